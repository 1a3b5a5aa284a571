//! Host-side shapes and positions: [`Extent`] and [`Index`].

use std::fmt;

use crate::dims::write_dims;
use crate::Error;

/// The shape of an N-dimensional array or launch domain (C++ AMP's `extent<N>`).
///
/// Dimension 0 is the slowest-varying one (row-major).
///
/// ```
/// use amp_runtime::Extent;
/// let e = Extent::new([2, 3]);
/// assert_eq!(e.size(), 6);
/// assert_eq!(e[1], 3);
/// assert_eq!(e.to_string(), "[2, 3]");
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

/// Checks that an extent's dimensions are usable on a device: non-empty, every dimension and the
/// element count fit a `u32`. Returns the element count.
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
    if size == 0 || dims.is_empty() {
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
