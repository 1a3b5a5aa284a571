//! Host-side shapes and positions: [`Extent`] and [`Index`].

use std::fmt;

use crate::dims::write_dims;
use crate::Error;

/// The shape of an N-dimensional array or launch domain (C++ AMP's `extent<N>`).
///
/// Dimension 0 is the slowest-varying one (row-major).
///
/// ```
/// use amp_runtime::{Extent, Index};
/// let e = Extent::new([2, 3]);
/// assert_eq!(e.size(), 6);
/// assert_eq!(e[1], 3);
/// assert_eq!(e.to_string(), "[2, 3]");
/// // C++ AMP's arithmetic: with an index (per component), with a `usize`; `==` and `!=`.
/// assert_eq!(e + Index::new([1, 1]), Extent::new([3, 4]));
/// assert_eq!(e * 2, Extent::new([4, 6]));
/// assert!(e != Extent::new([3, 2]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Extent<const N: usize> {
    dims: [usize; N],
}

impl<const N: usize> Extent<N> {
    /// An extent with the given dimensions.
    pub const fn new(dims: [usize; N]) -> Self {
        Extent { dims }
    }

    /// The number of elements (the product of the dimensions; saturates at `usize::MAX`).
    pub fn size(&self) -> usize {
        self.checked_size().unwrap_or(usize::MAX)
    }

    /// The number of elements, or `None` if it overflows `usize`.
    pub fn checked_size(&self) -> Option<usize> {
        self.dims
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
    }

    /// The rank `N`.
    pub const fn rank(&self) -> usize {
        N
    }

    /// The dimensions as an array.
    pub const fn as_array(&self) -> [usize; N] {
        self.dims
    }

    /// The dimensions as a slice.
    pub fn as_slice(&self) -> &[usize] {
        &self.dims
    }

    /// Checks that the extent is usable on a device: non-empty, every dimension and the
    /// element count fit a `u32`. Returns the element count.
    pub(crate) fn validate(&self) -> Result<usize, Error> {
        validate_dims(&self.dims)
    }
}

impl<const N: usize> From<[usize; N]> for Extent<N> {
    fn from(dims: [usize; N]) -> Self {
        Extent::new(dims)
    }
}

impl<const N: usize> std::ops::Index<usize> for Extent<N> {
    type Output = usize;
    fn index(&self, d: usize) -> &usize {
        &self.dims[d]
    }
}

impl<const N: usize> fmt::Display for Extent<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims(f, &self.dims)
    }
}

/// A position in an N-dimensional domain (C++ AMP's `index<N>`), on the host.
///
/// Kernels get their own device-side index type; this one addresses host data of views:
///
/// ```
/// use amp_runtime::{ArrayView, Index};
/// let data = [1, 2, 3, 4, 5, 6];
/// let v = ArrayView::new([2, 3], &data).unwrap();
/// assert_eq!(v[Index::new([1, 0])], 4);
/// assert_eq!(v[[0, 2]], 3);
/// ```
///
/// C++ AMP's index arithmetic, per component, here and in kernels: `+` and `-` with an index
/// of the same rank, `+ - * / %` with a `usize` on either side, compound assignment, `==` and
/// `!=`:
///
/// ```
/// use amp_runtime::Index;
/// let i = Index::new([2, 5]);
/// assert_eq!(i + Index::new([1, 0]), Index::new([3, 5]));
/// assert_eq!(i - 1, Index::new([1, 4]));
/// assert_eq!(10 - i, Index::new([8, 5]));
/// assert_eq!(i * 3 % 4, Index::new([2, 3]));
/// let mut j = i;
/// j /= 2;
/// assert!(j == Index::new([1, 2]) && j != i);
/// ```
///
/// C++ AMP's `index` has no ordering, and kernels have none (`idx < other` is a compile error
/// there: compare components). On the host `Index` is `Ord` by row-major position
/// (lexicographic: `[0, 9] < [1, 0]`), the order of `BTreeMap` keys and sorting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Index<const N: usize> {
    coords: [usize; N],
}

impl<const N: usize> Index<N> {
    /// An index with the given coordinates.
    pub const fn new(coords: [usize; N]) -> Self {
        Index { coords }
    }

    /// The coordinates as an array.
    pub const fn as_array(&self) -> [usize; N] {
        self.coords
    }

    /// The rank `N`.
    pub const fn rank(&self) -> usize {
        N
    }
}

impl<const N: usize> From<[usize; N]> for Index<N> {
    fn from(coords: [usize; N]) -> Self {
        Index::new(coords)
    }
}

impl<const N: usize> std::ops::Index<usize> for Index<N> {
    type Output = usize;
    fn index(&self, d: usize) -> &usize {
        &self.coords[d]
    }
}

impl<const N: usize> std::ops::IndexMut<usize> for Index<N> {
    fn index_mut(&mut self, d: usize) -> &mut usize {
        &mut self.coords[d]
    }
}

impl<const N: usize> fmt::Display for Index<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims(f, &self.coords)
    }
}

/// C++ AMP's index and extent arithmetic, per component: `a + b` and `a - b` with an index of
/// the same rank (`extent + index` is an extent), and `+ - * / %` with a `usize` on either
/// side; each also as compound assignment. Components are `usize`, so they overflow as `usize`
/// does (a panic in debug builds; kernels wrap, as release builds do).
macro_rules! component_ops {
    ($ty:ident, $field:ident) => {
        component_ops!(@with $ty, $field, Index, Add, add, AddAssign, add_assign, +);
        component_ops!(@with $ty, $field, Index, Sub, sub, SubAssign, sub_assign, -);
        component_ops!(@scalar $ty, $field, Add, add, AddAssign, add_assign, +);
        component_ops!(@scalar $ty, $field, Sub, sub, SubAssign, sub_assign, -);
        component_ops!(@scalar $ty, $field, Mul, mul, MulAssign, mul_assign, *);
        component_ops!(@scalar $ty, $field, Div, div, DivAssign, div_assign, /);
        component_ops!(@scalar $ty, $field, Rem, rem, RemAssign, rem_assign, %);
    };
    (@with $ty:ident, $field:ident, $rhs:ident, $tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl<const N: usize> std::ops::$tr<$rhs<N>> for $ty<N> {
            type Output = $ty<N>;
            fn $f(mut self, rhs: $rhs<N>) -> $ty<N> {
                std::ops::$tra::$fa(&mut self, rhs);
                self
            }
        }
        impl<const N: usize> std::ops::$tra<$rhs<N>> for $ty<N> {
            fn $fa(&mut self, rhs: $rhs<N>) {
                for (a, b) in self.$field.iter_mut().zip(rhs.as_array()) {
                    *a = *a $op b;
                }
            }
        }
    };
    (@scalar $ty:ident, $field:ident, $tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl<const N: usize> std::ops::$tr<usize> for $ty<N> {
            type Output = $ty<N>;
            fn $f(mut self, rhs: usize) -> $ty<N> {
                std::ops::$tra::$fa(&mut self, rhs);
                self
            }
        }
        impl<const N: usize> std::ops::$tr<$ty<N>> for usize {
            type Output = $ty<N>;
            // The scalar is the left operand (`10 - i`), which matters for `-`, `/` and `%`.
            #[allow(clippy::assign_op_pattern)]
            fn $f(self, mut rhs: $ty<N>) -> $ty<N> {
                for c in rhs.$field.iter_mut() {
                    *c = self $op *c;
                }
                rhs
            }
        }
        impl<const N: usize> std::ops::$tra<usize> for $ty<N> {
            fn $fa(&mut self, rhs: usize) {
                for c in self.$field.iter_mut() {
                    *c = *c $op rhs;
                }
            }
        }
    };
}

component_ops!(Index, coords);
component_ops!(Extent, dims);

/// Checks that an extent's dimensions are usable on a device: at least one dimension, every
/// dimension and the element count fit a `u32`. Returns the element count, which may be 0 (an
/// empty view, array or launch is allowed, as an empty `Vec` is).
pub(crate) fn validate_dims(dims: &[usize]) -> Result<usize, Error> {
    let limit = u64::from(u32::MAX);
    for &d in dims {
        if d as u64 > limit {
            return Err(Error::ExtentTooLarge {
                what: "an extent dimension",
                value: d as u64,
                limit,
            });
        }
    }
    let size = dims
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
        .ok_or(Error::ExtentTooLarge {
            what: "the element count",
            value: u64::MAX,
            limit,
        })?;
    if dims.is_empty() {
        return Err(Error::ZeroExtent);
    }
    if size > limit {
        return Err(Error::ExtentTooLarge {
            what: "the element count",
            value: size,
            limit,
        });
    }
    Ok(size as usize)
}
