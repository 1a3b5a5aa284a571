//! Interop with [`ndarray`] (the `ndarray` feature): views of `ndarray` arrays in standard
//! layout, and [`Array`]s to and from `ndarray::Array`.
//!
//! A view is made over the `ndarray` array's memory as over a host slice
//! ([`ArrayView::new`]): used in place where the device can read host memory, copied when a
//! launch needs it elsewhere. `ndarray` views in any other layout (column-major, reversed or
//! stepped axes) are [`Error::NotStandardLayout`]; [`Array::from_ndarray`] copies any layout.

use ndarray::{Dim, Dimension};

use super::{Array, ArrayView, ArrayViewMut};
use crate::device::Accelerator;
use crate::dims::dims_list;
use crate::scalar::DeviceElement;
use crate::Error;

/// The extent of an `ndarray` array of rank `N`.
fn extent_of<const N: usize>(shape: &[usize]) -> [usize; N] {
    let mut extent = [0; N];
    extent.copy_from_slice(shape);
    extent
}

/// The error for an `ndarray` view that is not in standard layout, naming its layout.
fn not_standard(shape: &[usize], strides: &[isize], reversed_is_standard: bool) -> Error {
    let layout = if strides.iter().any(|&s| s < 0) {
        "reversed (negative strides)"
    } else if reversed_is_standard {
        "column-major (Fortran order)"
    } else {
        "strided (stepped or sliced axes)"
    };
    let strides = format!(
        "[{}]",
        strides
            .iter()
            .map(isize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    Error::NotStandardLayout {
        shape: dims_list(shape),
        strides,
        layout,
    }
}

impl<'a, T: DeviceElement, const N: usize> TryFrom<ndarray::ArrayView<'a, T, Dim<[usize; N]>>>
    for ArrayView<'a, T, N>
where
    Dim<[usize; N]>: Dimension,
{
    type Error = Error;

    /// A view of the `ndarray` view's elements, which must be in standard (row-major,
    /// contiguous) layout, without copying them.
    ///
    /// Errors: [`Error::NotStandardLayout`] for any other layout.
    fn try_from(v: ndarray::ArrayView<'a, T, Dim<[usize; N]>>) -> Result<Self, Error> {
        let extent = extent_of::<N>(v.shape());
        match v.to_slice() {
            Some(data) => ArrayView::new(extent, data),
            None => Err(not_standard(
                v.shape(),
                v.strides(),
                v.t().is_standard_layout(),
            )),
        }
    }
}

impl<'a, T: DeviceElement, const N: usize> TryFrom<ndarray::ArrayViewMut<'a, T, Dim<[usize; N]>>>
    for ArrayViewMut<'a, T, N>
where
    Dim<[usize; N]>: Dimension,
{
    type Error = Error;

    /// A writable view of the `ndarray` view's elements, which must be in standard
    /// (row-major, contiguous) layout, without copying them.
    ///
    /// Errors: [`Error::NotStandardLayout`] for any other layout.
    fn try_from(v: ndarray::ArrayViewMut<'a, T, Dim<[usize; N]>>) -> Result<Self, Error> {
        let extent = extent_of::<N>(v.shape());
        if !v.is_standard_layout() {
            return Err(not_standard(
                v.shape(),
                v.strides(),
                v.t().is_standard_layout(),
            ));
        }
        match v.into_slice() {
            Some(data) => ArrayViewMut::new(extent, data),
            // A view in standard layout is one slice; checked above, so this is a view whose
            // layout `ndarray` judges otherwise: the same error, without the details.
            None => Err(not_standard(&extent, &[], false)),
        }
    }
}

impl<T: DeviceElement, const N: usize> Array<T, N>
where
    Dim<[usize; N]>: Dimension,
{
    /// An array on the default accelerator holding a copy of `src`, in any layout (its
    /// elements in logical, row-major order).
    ///
    /// ```ignore
    /// let a = Array::from_ndarray(nd.view())?;
    /// ```
    pub fn from_ndarray(src: ndarray::ArrayView<'_, T, Dim<[usize; N]>>) -> Result<Self, Error> {
        Self::from_ndarray_on(&Accelerator::default()?, src)
    }

    /// [`from_ndarray`](Self::from_ndarray) on `acc`.
    pub fn from_ndarray_on(
        acc: &Accelerator,
        src: ndarray::ArrayView<'_, T, Dim<[usize; N]>>,
    ) -> Result<Self, Error> {
        let extent = extent_of::<N>(src.shape());
        match src.to_slice() {
            Some(data) => Array::from_slice_on(acc, extent, data),
            None => {
                let data: Vec<T> = src.iter().copied().collect();
                Array::from_slice_on(acc, extent, &data)
            }
        }
    }

    /// The array's elements copied into a new `ndarray::Array` of the same shape (waiting for
    /// the device work that writes them, as [`to_vec`](Self::to_vec)).
    pub fn to_ndarray(&self) -> Result<ndarray::Array<T, Dim<[usize; N]>>, Error> {
        let mut shape = Dim::<[usize; N]>::zeros(N);
        shape.slice_mut().copy_from_slice(self.extent().as_slice());
        let data = self.to_vec()?;
        Ok(ndarray::Array::from_shape_vec(shape, data)
            .expect("the array's element count is its extent's"))
    }
}
