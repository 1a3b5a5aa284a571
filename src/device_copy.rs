//! [`copy`] and [`copy_async`]: the runtime's copies, except that a copy between two arrays on
//! one GPU runs as a kernel of 16-byte loads and stores where the device's policy says so
//! ([`Accelerator::__copies_by_kernel`], `AMP_DEVICE_COPY`): an H200 ran the driver's copy
//! (`vkCmdCopyBuffer`) at 846 GB/s and such a kernel at 4,200 GB/s.

use amp_macros::kernel;
use amp_runtime::short_vector::UInt4;
use amp_runtime::{
    parallel_for_each_on, Accelerator, ArrayView, ArrayViewMut, CompletionFuture, CopyDestination,
    CopySource, DeviceElement, Error,
};

/// `dst[i] = src[i]` for 16-byte vectors: one load and one store per index. A simple kernel,
/// so it runs at the device's (tuned) launch shape. Vectors as elements rather than the quad
/// form of a kernel over words: no test per quad of whether it is whole and aligned (lavapipe
/// ran a vector add of `Float4`s in 18.5 ms, the quad form of the `f32` one in 23.5 ms).
#[kernel(amp)]
fn copy_quads(idx: Index<1>, src: ArrayView<UInt4, 1>, dst: ArrayViewMut<UInt4, 1>) {
    dst[idx] = src[idx];
}

/// `dst[i] = src[i]` for words: the last words of a copy past its whole 16-byte vectors.
#[kernel(amp)]
fn copy_words(idx: Index<1>, src: ArrayView<u32, 1>, dst: ArrayViewMut<u32, 1>) {
    dst[idx] = src[idx];
}

/// Copies `src` to `dst` (two arrays' elements, the same number of them) with [`copy_quads`]
/// and [`copy_words`] where the device copies its `bytes` by kernel and they are whole words;
/// `false`, copying nothing, elsewhere.
fn copy_by_kernel<T: DeviceElement>(
    acc: &Accelerator,
    src: &ArrayView<'_, T, 1>,
    dst: &mut ArrayViewMut<'_, T, 1>,
) -> Result<bool, Error> {
    let bytes = (src.extent().size() * std::mem::size_of::<T>()) as u64;
    if !acc.__copies_by_kernel(bytes) {
        return Ok(false);
    }
    // Arrays start at the start of their buffers, so the words are 16-byte aligned.
    let (Ok(words), Ok(mut out)) = (src.reinterpret_as::<u32>(), dst.reinterpret_as_mut::<u32>())
    else {
        return Ok(false);
    };
    let n = words.extent()[0];
    let whole = n / 4 * 4;
    if whole > 0 {
        let quads = words.section([0], [whole])?.reinterpret_as::<UInt4>()?;
        let mut out = out.section_mut([0], [whole])?;
        let mut out = out.reinterpret_as_mut::<UInt4>()?;
        parallel_for_each_on(acc, out.extent(), copy_quads(&quads, &mut out))?;
    }
    if whole < n {
        let tail = words.section([whole], [n - whole])?;
        let mut out = out.section_mut([whole], [n - whole])?;
        parallel_for_each_on(acc, out.extent(), copy_words(&tail, &mut out))?;
    }
    Ok(true)
}

/// Copies every element of `src` to `dst` (C++ AMP's `concurrency::copy`), between any pair
/// of [`Array`](crate::Array), [`ArrayView`] / [`ArrayViewMut`] and host slice (`&[T]` / `&mut [T]`).
///
/// Arrays and views must have the same extent; with a host slice only the element count must
/// match (row-major order). Array-to-array copies on one accelerator stay on the device: on a
/// GPU, copies of [`KERNEL_COPY_MIN_BYTES`](crate::KERNEL_COPY_MIN_BYTES) or more run as a
/// kernel of 16-byte loads and stores, others as the driver's copy (`vkCmdCopyBuffer`;
/// `AMP_DEVICE_COPY` and [`DeviceCopy`](crate::DeviceCopy) choose), and where the memory is
/// shared, one `memcpy`. Sections copy only their elements; a view destination's device
/// copies become stale (the next launch uploads).
///
/// Errors: [`Error::CopyExtentMismatch`] when the shapes differ, plus transfer and launch
/// errors.
///
/// ```no_run
/// use amp::{copy, Array, ArrayViewMut};
/// let a = Array::from_slice([2, 2], &[1, 2, 3, 4])?;
/// let mut host = vec![0; 4];
/// copy(&a, &mut host[..])?;
/// let mut out = vec![0; 4];
/// let mut v = ArrayViewMut::new([2, 2], &mut out)?;
/// copy(&a, &mut v)?;
/// # Ok::<(), amp::Error>(())
/// ```
pub fn copy<T, S, D>(src: &S, dst: &mut D) -> Result<(), Error>
where
    T: DeviceElement,
    S: CopySource<T> + ?Sized,
    D: CopyDestination<T> + ?Sized,
{
    if let Some((s, mut d, acc)) = amp_runtime::__same_device_arrays(src, dst) {
        if copy_by_kernel(&acc, &s, &mut d)? {
            return Ok(());
        }
    }
    amp_runtime::copy(src, dst)
}

/// Starts [`copy`] and returns a [`CompletionFuture`] (C++ AMP's `copy_async`).
///
/// Array-to-array copies on one accelerator run as device work in the background (the kernel
/// of [`copy`] where it applies, else the driver's copy from a worker thread); array-to-slice
/// copies stage the device data in the background and copy into the slice in
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
    // The views end with this statement, so the future may borrow `dst` again.
    let by_kernel = match amp_runtime::__same_device_arrays(src, &mut *dst) {
        Some((s, mut d, acc)) => copy_by_kernel(&acc, &s, &mut d)?,
        None => false,
    };
    if by_kernel {
        return amp_runtime::__completion_of_writes(dst);
    }
    amp_runtime::copy_async(src, dst)
}
