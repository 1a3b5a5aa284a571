//! [`copy`] and [`copy_async`] (C++ AMP's `concurrency::copy` / `copy_async`) between
//! arrays, views and host slices.

use std::sync::Arc;

use gpu_allocator::MemoryLocation;

use super::array::Array;
use super::future::{stage_download, CompletionFuture};
use super::layout::Layout;
use super::shared::Shared;
use super::view::{ArrayView, ArrayViewMut, ViewParts};
use crate::device::Accelerator;
use crate::dims::dims_list;
use crate::memory::{Buffer, Pooled};
use crate::scalar::DeviceElement;
use crate::Error;

mod sealed {
    use super::*;

    /// What `copy` needs from a source.
    pub trait Source<T: DeviceElement> {
        /// The shape (a slice's is `[len]`) and whether it is an array or view (whose
        /// shape must match exactly, not just its element count).
        fn shape(&self) -> (Vec<usize>, bool);
        /// The elements, row-major.
        fn read_all(&self) -> Result<Vec<T>, Error>;
        /// The whole buffer of an array, for device-to-device copies.
        fn array_buffer(&self) -> Option<(&Arc<Buffer>, &Accelerator)> {
            None
        }
        /// The elements as a host slice, when they are one.
        fn host_slice(&self) -> Option<&[T]> {
            None
        }
        /// An array's elements as one rank-1 view, for the facade's device copies.
        fn whole_array(&self) -> Option<ArrayView<'_, T, 1>> {
            None
        }
    }

    /// What `copy` needs from a destination.
    pub trait Destination<T: DeviceElement> {
        /// As [`Source::shape`].
        fn shape(&self) -> (Vec<usize>, bool);
        /// Overwrites the elements with `data` (row-major, the right length).
        fn write_all(&mut self, data: &[T]) -> Result<(), Error>;
        /// As [`Source::array_buffer`].
        fn array_buffer(&self) -> Option<(&Arc<Buffer>, &Accelerator)> {
            None
        }
        /// As [`Source::host_slice`].
        fn host_slice(&mut self) -> Option<&mut [T]> {
            None
        }
        /// As [`Source::whole_array`], writable.
        fn whole_array_mut(&mut self) -> Option<ArrayViewMut<'_, T, 1>> {
            None
        }
    }
}

/// A source of [`copy`]: an [`Array`], an [`ArrayView`], an [`ArrayViewMut`] or a host
/// slice `[T]`. Sealed.
pub trait CopySource<T: DeviceElement>: sealed::Source<T> {}

/// A destination of [`copy`]: an [`Array`], an [`ArrayViewMut`] or a host slice `[T]`.
/// Sealed.
pub trait CopyDestination<T: DeviceElement>: sealed::Destination<T> {}

impl<T: DeviceElement> sealed::Source<T> for [T] {
    fn shape(&self) -> (Vec<usize>, bool) {
        (vec![self.len()], false)
    }
    fn read_all(&self) -> Result<Vec<T>, Error> {
        Ok(self.to_vec())
    }
    fn host_slice(&self) -> Option<&[T]> {
        Some(self)
    }
}
impl<T: DeviceElement> CopySource<T> for [T] {}

impl<T: DeviceElement> sealed::Destination<T> for [T] {
    fn shape(&self) -> (Vec<usize>, bool) {
        (vec![self.len()], false)
    }
    fn write_all(&mut self, data: &[T]) -> Result<(), Error> {
        self.copy_from_slice(data);
        Ok(())
    }
    fn host_slice(&mut self) -> Option<&mut [T]> {
        Some(self)
    }
}
impl<T: DeviceElement> CopyDestination<T> for [T] {}

impl<T: DeviceElement, const N: usize> sealed::Source<T> for Array<T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        (self.extent().as_slice().to_vec(), true)
    }
    fn read_all(&self) -> Result<Vec<T>, Error> {
        self.to_vec()
    }
    fn array_buffer(&self) -> Option<(&Arc<Buffer>, &Accelerator)> {
        Some((self.storage().buffer()?, self.accelerator()))
    }
    fn host_slice(&self) -> Option<&[T]> {
        self.storage().host()?;
        self.as_slice().ok()
    }
    fn whole_array(&self) -> Option<ArrayView<'_, T, 1>> {
        self.view().view_as([self.len()]).ok()
    }
}
impl<T: DeviceElement, const N: usize> CopySource<T> for Array<T, N> {}

impl<T: DeviceElement, const N: usize> sealed::Destination<T> for Array<T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        (self.extent().as_slice().to_vec(), true)
    }
    fn write_all(&mut self, data: &[T]) -> Result<(), Error> {
        self.copy_from_slice(data)
    }
    fn array_buffer(&self) -> Option<(&Arc<Buffer>, &Accelerator)> {
        Some((self.storage().buffer()?, self.accelerator()))
    }
    fn host_slice(&mut self) -> Option<&mut [T]> {
        self.storage().host()?;
        self.as_mut_slice().ok()
    }
    fn whole_array_mut(&mut self) -> Option<ArrayViewMut<'_, T, 1>> {
        let len = self.len();
        self.view_mut().into_view_as([len]).ok()
    }
}
impl<T: DeviceElement, const N: usize> CopyDestination<T> for Array<T, N> {}

fn view_shape<T: DeviceElement, const N: usize>(v: &impl ViewParts<T, N>) -> (Vec<usize>, bool) {
    (v.parts().1.extent.as_slice().to_vec(), true)
}

fn view_read<T: DeviceElement, const N: usize>(v: &impl ViewParts<T, N>) -> Result<Vec<T>, Error> {
    let (shared, layout): (&Arc<Shared>, &Layout<N>) = v.parts();
    shared.gather(layout)
}

impl<T: DeviceElement, const N: usize> sealed::Source<T> for ArrayView<'_, T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        view_shape(self)
    }
    fn read_all(&self) -> Result<Vec<T>, Error> {
        view_read(self)
    }
}
impl<T: DeviceElement, const N: usize> CopySource<T> for ArrayView<'_, T, N> {}

impl<T: DeviceElement, const N: usize> sealed::Source<T> for ArrayViewMut<'_, T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        view_shape(self)
    }
    fn read_all(&self) -> Result<Vec<T>, Error> {
        view_read(self)
    }
}
impl<T: DeviceElement, const N: usize> CopySource<T> for ArrayViewMut<'_, T, N> {}

impl<T: DeviceElement, const N: usize> sealed::Destination<T> for ArrayViewMut<'_, T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        view_shape(self)
    }
    fn write_all(&mut self, data: &[T]) -> Result<(), Error> {
        let (shared, layout) = self.parts();
        shared.scatter(layout, data)
    }
}
impl<T: DeviceElement, const N: usize> CopyDestination<T> for ArrayViewMut<'_, T, N> {}

/// Checks that `src` and `dst` have the same shape (arrays and views) or element count
/// (when a host slice is involved).
fn check_shapes(src: (Vec<usize>, bool), dst: (Vec<usize>, bool)) -> Result<usize, Error> {
    let (s, s_shaped) = src;
    let (d, d_shaped) = dst;
    let (sn, dn) = (s.iter().product::<usize>(), d.iter().product::<usize>());
    let same = if s_shaped && d_shaped {
        s == d
    } else {
        sn == dn
    };
    if same {
        Ok(sn)
    } else {
        Err(Error::CopyExtentMismatch {
            src: dims_list(&s),
            dst: dims_list(&d),
        })
    }
}

/// Copies every element of `src` to `dst` (C++ AMP's `concurrency::copy`), between any pair
/// of [`Array`], [`ArrayView`] / [`ArrayViewMut`] and host slice (`&[T]` / `&mut [T]`).
///
/// Arrays and views must have the same extent; with a host slice only the element count must
/// match (row-major order). Array-to-array copies on one accelerator stay on the device
/// (`vkCmdCopyBuffer`, or one `memcpy` where the memory is shared; `amp::copy`, which the
/// `amp` crate exports over this one, copies large arrays on GPUs with a kernel, see
/// [`DeviceCopy`](crate::DeviceCopy)); sections copy only their
/// elements; a view destination's device copies become stale (the next launch uploads).
///
/// Errors: [`Error::CopyExtentMismatch`] when the shapes differ, plus transfer errors.
///
/// ```no_run
/// use amp_runtime::{copy, Array, ArrayViewMut};
/// let a = Array::from_slice([2, 2], &[1, 2, 3, 4])?;
/// let mut host = vec![0; 4];
/// copy(&a, &mut host[..])?;
/// let mut out = vec![0; 4];
/// let mut v = ArrayViewMut::new([2, 2], &mut out)?;
/// copy(&a, &mut v)?;
/// # Ok::<(), amp_runtime::Error>(())
/// ```
pub fn copy<T, S, D>(src: &S, dst: &mut D) -> Result<(), Error>
where
    T: DeviceElement,
    S: CopySource<T> + ?Sized,
    D: CopyDestination<T> + ?Sized,
{
    let elems = check_shapes(src.shape(), dst.shape())?;
    let bytes = (elems * std::mem::size_of::<T>()) as u64;
    let _span = tracing::info_span!("copy", bytes).entered();
    if let (Some((s, s_acc)), Some((d, d_acc))) = (src.array_buffer(), dst.array_buffer()) {
        if s_acc == d_acc {
            return s.copy_to(0, d, 0, bytes);
        }
    }
    if let Some(out) = dst.host_slice() {
        if let Some((s, _)) = src.array_buffer() {
            return s.read(crate::scalar::as_bytes_mut(out));
        }
    }
    if let Some(data) = src.host_slice() {
        return dst.write_all(data);
    }
    let data = src.read_all()?;
    dst.write_all(&data)
}

/// Two arrays on one accelerator with the same extent, as rank-1 views, and that accelerator:
/// what the facade's `copy` and `copy_async` may copy with a kernel. `None` for any other pair
/// (which [`copy`] handles, errors included).
#[doc(hidden)]
pub fn __same_device_arrays<'a, T, S, D>(
    src: &'a S,
    dst: &'a mut D,
) -> Option<(ArrayView<'a, T, 1>, ArrayViewMut<'a, T, 1>, Accelerator)>
where
    T: DeviceElement,
    S: CopySource<T> + ?Sized,
    D: CopyDestination<T> + ?Sized,
{
    let acc = match (src.array_buffer(), dst.array_buffer()) {
        (Some((_, s)), Some((_, d))) if s == d => s.clone(),
        _ => return None,
    };
    check_shapes(src.shape(), dst.shape()).ok()?;
    Some((src.whole_array()?, dst.whole_array_mut()?, acc))
}

/// A [`CompletionFuture`] that completes once the device work already recorded on `dst`'s
/// array (the facade's copy kernel) has finished; for an `dst` that is not an array, one that
/// is complete.
#[doc(hidden)]
pub fn __completion_of_writes<'a, T, D>(dst: &'a mut D) -> Result<CompletionFuture<'a>, Error>
where
    T: DeviceElement,
    D: CopyDestination<T> + ?Sized + Send,
{
    let Some((d, _)) = dst.array_buffer() else {
        return Ok(CompletionFuture::ready());
    };
    let d = d.clone();
    let guard = d.busy().begin();
    CompletionFuture::spawn(
        move || {
            let _busy = guard;
            d.wait_device_work()
        },
        None,
    )
}

/// Starts [`copy`] and returns a [`CompletionFuture`] (C++ AMP's `copy_async`).
///
/// Array-to-array copies on one accelerator run as device work on a worker thread;
/// array-to-slice copies stage the device data in the background and copy into the slice in
/// [`CompletionFuture::wait`]; slice-to-array copies write host-visible memory at once and
/// copy from a staging buffer in the background otherwise. Copies that involve views run
/// before `copy_async` returns (their future is complete). Completion is in order per call:
/// a future's `wait` returns once its own transfer is complete.
///
/// Errors: as for [`copy`] (shape errors are reported at once, transfer errors by `wait`).
pub fn copy_async<'a, T, S, D>(src: &'a S, dst: &'a mut D) -> Result<CompletionFuture<'a>, Error>
where
    T: DeviceElement,
    S: CopySource<T> + ?Sized + Sync,
    D: CopyDestination<T> + ?Sized + Send,
{
    let elems = check_shapes(src.shape(), dst.shape())?;
    let bytes = (elems * std::mem::size_of::<T>()) as u64;
    let _span = tracing::info_span!("copy_async", bytes).entered();
    if let (Some((s, s_acc)), Some((d, d_acc))) = (src.array_buffer(), dst.array_buffer()) {
        if s_acc == d_acc {
            let (s, d) = (s.clone(), d.clone());
            let guards = (s.busy().begin(), d.busy().begin());
            return CompletionFuture::spawn(
                move || {
                    let _busy = guards;
                    s.copy_on_device(0, &d, 0, bytes)
                },
                None,
            );
        }
    }
    if let Some((s, _)) = src.array_buffer() {
        if dst.host_slice().is_some() {
            let staged = stage_download(s.clone(), 0, bytes)?;
            return Ok(staged.then(move |buffer, at| {
                let out = dst.host_slice().expect("checked above");
                buffer.read_at(at, crate::scalar::as_bytes_mut(out))
            }));
        }
    }
    if let (Some(data), Some((d, _))) = (src.host_slice(), dst.array_buffer()) {
        if !d.is_direct() {
            let staging = Arc::new(Pooled::take(d.device(), bytes, MemoryLocation::CpuToGpu)?);
            staging.write(crate::scalar::as_bytes(data))?;
            let d = d.clone();
            let guard = d.busy().begin();
            return CompletionFuture::spawn(
                move || {
                    let _busy = guard;
                    staging.copy_on_device(0, &d, 0, bytes)
                },
                None,
            );
        }
    }
    copy(src, dst)?;
    Ok(CompletionFuture::ready())
}
