//! Where a view's elements are: [`Layout`] (element offset, extent, strides) and the layout
//! arithmetic of sections, projections, reshapes and reinterpretations.

use crate::dims::dims_list;
use crate::scalar::{is_bool, DeviceElement};
use crate::{Error, Extent};

/// Checks that `extent` is usable and has exactly `len` elements.
pub(crate) fn check_extent<const N: usize>(extent: &Extent<N>, len: usize) -> Result<(), Error> {
    match extent.checked_size() {
        Some(n) if n != len => return Err(Error::ExtentMismatch { extent: n, len }),
        None => {
            return Err(Error::ExtentMismatch {
                extent: usize::MAX,
                len,
            })
        }
        _ => {}
    }
    extent.validate().map(|_| ())
}

/// Where a view's elements are: `offset + sum(index[d] * strides[d])`, in elements of the
/// view's type from the start of the shared data. The last stride is always 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout<const N: usize> {
    pub(crate) extent: Extent<N>,
    pub(crate) offset: usize,
    pub(crate) strides: [usize; N],
}

impl<const N: usize> Layout<N> {
    /// The dense row-major layout of `extent` starting at element 0.
    pub(crate) fn dense(extent: Extent<N>) -> Self {
        Layout {
            extent,
            offset: 0,
            strides: row_major_strides(&extent),
        }
    }

    /// The one-element layout of `idx` in the shared data, or `None` when it is out of
    /// bounds.
    pub(crate) fn element(&self, idx: &[usize; N]) -> Option<Layout<1>> {
        let dims = self.extent.as_array();
        let mut at = self.offset;
        for ((&i, &d), &stride) in idx.iter().zip(&dims).zip(&self.strides) {
            if i >= d {
                return None;
            }
            at += i * stride;
        }
        Some(Layout {
            extent: Extent::new([1]),
            offset: at,
            strides: [1],
        })
    }

    /// Whether the elements are one gap-free run (row-major).
    pub(crate) fn is_contiguous(&self) -> bool {
        let dense = row_major_strides(&self.extent);
        // A dimension of size 1 never steps, so its stride does not matter.
        (0..N).all(|d| self.extent.as_array()[d] == 1 || self.strides[d] == dense[d])
    }

    /// The section at `origin` with `extent` (C++ AMP's `section`). An empty section (a zero
    /// in `extent`) may start anywhere up to the end of each dimension, as `v[k..k]` may.
    pub(crate) fn section(&self, origin: [usize; N], extent: Extent<N>) -> Result<Self, Error> {
        let outer = self.extent.as_array();
        let inner = extent.as_array();
        let fits = (0..N).all(|d| {
            origin[d]
                .checked_add(inner[d])
                .is_some_and(|end| end <= outer[d])
        });
        if !fits {
            return Err(Error::SectionOutOfBounds {
                what: "the section (origin, extent)",
                requested: format!("({}, {})", dims_list(&origin), dims_list(&inner)),
                extent: self.extent.to_string(),
            });
        }
        // An empty section keeps the view's offset: it reads nothing, and its start must not
        // point past the data (origin `[rows, cols]` of a `[rows, cols]` view would).
        let offset = if inner.contains(&0) {
            self.offset
        } else {
            self.offset + (0..N).map(|d| origin[d] * self.strides[d]).sum::<usize>()
        };
        Ok(Layout {
            extent,
            offset,
            strides: self.strides,
        })
    }

    /// The rank `M = N - 1` layout of row `i` of dimension 0 (C++ AMP's `view[i]`).
    pub(crate) fn project<const M: usize>(&self, i: usize) -> Result<Layout<M>, Error> {
        let dims = self.extent.as_array();
        if M + 1 != N || i >= dims[0] {
            return Err(Error::SectionOutOfBounds {
                what: "the projection onto row",
                requested: i.to_string(),
                extent: self.extent.to_string(),
            });
        }
        let mut extent = [0; M];
        let mut strides = [0; M];
        extent.copy_from_slice(&dims[1..]);
        strides.copy_from_slice(&self.strides[1..]);
        Ok(Layout {
            extent: Extent::new(extent),
            offset: self.offset + i * self.strides[0],
            strides,
        })
    }

    /// The same elements (the first `extent.size()` of them) as a dense view of `extent`.
    pub(crate) fn view_as<const M: usize>(&self, extent: Extent<M>) -> Result<Layout<M>, Error> {
        self.require_contiguous("view_as")?;
        let len = self.extent.size();
        match extent.checked_size() {
            Some(n) if n <= len => {}
            n => {
                return Err(Error::ExtentMismatch {
                    extent: n.unwrap_or(usize::MAX),
                    len,
                })
            }
        }
        extent.validate()?;
        Ok(Layout {
            extent,
            offset: self.offset,
            strides: row_major_strides(&extent),
        })
    }

    /// An error unless the view is contiguous.
    pub(crate) fn require_contiguous(&self, operation: &'static str) -> Result<(), Error> {
        if self.is_contiguous() {
            Ok(())
        } else {
            Err(Error::NotContiguous {
                operation,
                extent: self.extent.to_string(),
                strides: dims_list(&self.strides),
            })
        }
    }

    /// Every index of the extent, row-major, with its position in the shared data.
    pub(crate) fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        let dims = self.extent.as_array();
        let total = self.extent.size();
        (0..total).map(move |mut linear| {
            let mut at = self.offset;
            for d in (0..N).rev() {
                at += (linear % dims[d]) * self.strides[d];
                linear /= dims[d];
            }
            at
        })
    }

    /// Runs of consecutive positions, as `(start, len)`, in row-major order: one per row of
    /// the last dimension, or a single run for a contiguous view.
    pub(crate) fn runs(&self) -> Vec<(usize, usize)> {
        if self.is_contiguous() {
            return vec![(self.offset, self.extent.size())];
        }
        let last = self.extent.as_array()[N - 1];
        self.positions().step_by(last).map(|s| (s, last)).collect()
    }
}

/// Row-major strides of `extent` (the last is 1).
fn row_major_strides<const N: usize>(extent: &Extent<N>) -> [usize; N] {
    let dims = extent.as_array();
    let mut strides = [1; N];
    for d in (0..N.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    strides
}

/// The layout of `layout`'s bytes as elements of `U`.
///
/// `writable`: the new view writes the bytes. A `bool` holds only the bytes 0 and 1, so no
/// other type's bytes are seen as `bool`s, and a `bool`'s bytes are written only as `bool`s.
pub(super) fn reinterpret<T: DeviceElement, U: DeviceElement, const N: usize>(
    layout: &Layout<N>,
    writable: bool,
) -> Result<Layout<1>, Error> {
    layout.require_contiguous("reinterpret_as")?;
    let (from, to) = (std::mem::size_of::<T>(), std::mem::size_of::<U>());
    let err = |reason: String| Error::Reinterpret {
        from: T::TYPE.name(),
        to: U::TYPE.name(),
        reason,
    };
    let (from_bool, to_bool) = (is_bool::<T>(), is_bool::<U>());
    if to_bool && !from_bool {
        return Err(err(
            "a `bool` is only the byte 0 or 1, which other bytes are not: read them as `u8`".into(),
        ));
    }
    if from_bool && !to_bool && writable {
        return Err(err(
            "a `bool` is only the byte 0 or 1: a writable view of another type could store \
             other bytes; reinterpret it read-only (`reinterpret_as`)"
                .into(),
        ));
    }
    let bytes = layout.extent.size() * from;
    if !bytes.is_multiple_of(to) {
        return Err(err(format!(
            "the view has {bytes} bytes, not a multiple of {to}"
        )));
    }
    let start = layout.offset * from;
    if !start.is_multiple_of(to) {
        return Err(err(format!(
            "the view starts at byte {start} of its data, not a multiple of {to}"
        )));
    }
    Ok(Layout::dense(Extent::new([bytes / to])).shifted(start / to))
}

impl<const N: usize> Layout<N> {
    pub(crate) fn shifted(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }
}
