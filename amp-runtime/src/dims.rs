//! Dimension lists as text (`[2, 3]`), for messages and `Display` impls.

use std::fmt;

/// `[2, 3]`: dimensions, indices or strides as text for messages.
pub(crate) fn dims_list(v: &[usize]) -> String {
    struct Dims<'a>(&'a [usize]);
    impl fmt::Display for Dims<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_dims(f, self.0)
        }
    }
    Dims(v).to_string()
}

pub(crate) fn write_dims(f: &mut fmt::Formatter<'_>, v: &[usize]) -> fmt::Result {
    f.write_str("[")?;
    for (i, d) in v.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{d}")?;
    }
    f.write_str("]")
}
