//! [`copy`] and [`copy_async`] (C++ AMP's `concurrency::copy` / `copy_async`) between
//! arrays, views and host slices, and the [`CompletionFuture`] of asynchronous transfers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use gpu_allocator::MemoryLocation;

use crate::extent::dims_list;
use crate::memory::Buffer;
use crate::view::{Layout, Shared, ViewParts};
use crate::{Accelerator, Array, ArrayView, ArrayViewMut, DeviceScalar, Error};

/// A finished-or-not asynchronous operation (C++ AMP's `completion_future`), returned by
/// [`copy_async`] and [`ArrayViewMut::synchronize_async`].
///
/// The device-side part of the transfer (a `vkCmdCopyBuffer` submitted from a worker thread)
/// runs in the background; [`wait`](Self::wait) waits for it and then does the host-side
/// part (the copy into a host slice), so a host slice is never written after the future is
/// gone. Dropping the future waits too (ignoring errors; call `wait` to see them). The
/// future borrows what it copies, so the borrow checker keeps them alive and untouched.
///
/// ```no_run
/// use amp_runtime::{copy_async, Array};
/// let a = Array::from_slice([4], &[1, 2, 3, 4])?;
/// let mut b = Array::<i32, 1>::new([4])?;
/// let done = copy_async(&a, &mut b)?;
/// // ... other work ...
/// done.wait()?;
/// assert_eq!(b.to_vec()?, [1, 2, 3, 4]);
/// # Ok::<(), amp_runtime::Error>(())
/// ```
#[must_use = "a transfer is only complete after `wait` (or drop)"]
pub struct CompletionFuture<'a> {
    worker: Option<JoinHandle<Result<(), Error>>>,
    finish: Option<Box<dyn FnOnce() -> Result<(), Error> + Send + 'a>>,
    device_done: Arc<AtomicBool>,
}

impl<'a> CompletionFuture<'a> {
    /// A future that is already complete.
    pub(crate) fn ready() -> Self {
        CompletionFuture {
            worker: None,
            finish: None,
            device_done: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Runs `device_work` on a worker thread; `finish` runs in `wait` after it.
    fn spawn(
        device_work: impl FnOnce() -> Result<(), Error> + Send + 'static,
        finish: Option<Box<dyn FnOnce() -> Result<(), Error> + Send + 'a>>,
    ) -> Result<Self, Error> {
        let device_done = Arc::new(AtomicBool::new(false));
        let flag = device_done.clone();
        let worker = std::thread::Builder::new()
            .name("amp-transfer".into())
            .spawn(move || {
                let r = device_work();
                flag.store(true, Ordering::Release);
                r
            })
            .map_err(|e| Error::AsyncTransfer(format!("cannot start a worker thread: {e}")))?;
        Ok(CompletionFuture {
            worker: Some(worker),
            finish,
            device_done,
        })
    }

    /// Whether the background (device-side) part has finished; [`wait`](Self::wait) then
    /// returns without blocking on the device (it may still copy into a host slice).
    pub fn is_done(&self) -> bool {
        self.device_done.load(Ordering::Acquire)
    }

    /// Waits for the transfer and completes it; returns its error, if any.
    pub fn wait(mut self) -> Result<(), Error> {
        self.complete()
    }

    fn complete(&mut self) -> Result<(), Error> {
        let device = match self.worker.take() {
            Some(w) => w
                .join()
                .unwrap_or_else(|_| Err(Error::AsyncTransfer("the worker thread panicked".into()))),
            None => Ok(()),
        };
        let finish = self.finish.take();
        device?;
        match finish {
            Some(f) => f(),
            None => Ok(()),
        }
    }
}

impl Drop for CompletionFuture<'_> {
    fn drop(&mut self) {
        let _ = self.complete();
    }
}

impl std::fmt::Debug for CompletionFuture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompletionFuture")
            .field("is_done", &self.is_done())
            .finish()
    }
}

/// The first half of a download: device bytes made host-visible in a buffer.
pub(crate) struct Staged {
    work: Option<Box<dyn FnOnce() -> Result<(), Error> + Send>>,
    staging: Arc<Buffer>,
    at: u64,
}

/// Starts making `len` bytes at byte `at` of `buffer` host-readable: nothing to do when the
/// buffer is mapped; else a device copy into a staging buffer, run by the future's worker.
pub(crate) fn stage_download(buffer: Arc<Buffer>, at: u64, len: u64) -> Result<Staged, Error> {
    if buffer.host_ptr().is_some() {
        return Ok(Staged {
            work: None,
            staging: buffer,
            at,
        });
    }
    let staging = Arc::new(Buffer::staging(
        buffer.device(),
        len,
        MemoryLocation::GpuToCpu,
    )?);
    let guard = buffer.busy().begin();
    let dst = staging.clone();
    Ok(Staged {
        work: Some(Box::new(move || {
            let _busy = guard;
            buffer.copy_on_device(at, &dst, 0, len)
        })),
        staging,
        at: 0,
    })
}

impl Staged {
    /// A future that finishes the download with `finish(buffer, byte offset)` in `wait`.
    pub(crate) fn then<'a>(
        self,
        finish: impl FnOnce(&Buffer, u64) -> Result<(), Error> + Send + 'a,
    ) -> CompletionFuture<'a> {
        let Staged { work, staging, at } = self;
        let finish: Box<dyn FnOnce() -> Result<(), Error> + Send + 'a> =
            Box::new(move || finish(&staging, at));
        match work {
            Some(work) => match CompletionFuture::spawn(work, Some(finish)) {
                Ok(f) => f,
                // No thread: do it all now; the error (if any) shows in `wait`.
                Err(e) => CompletionFuture {
                    worker: None,
                    finish: Some(Box::new(move || Err(e))),
                    device_done: Arc::new(AtomicBool::new(true)),
                },
            },
            None => CompletionFuture {
                worker: None,
                finish: Some(finish),
                device_done: Arc::new(AtomicBool::new(true)),
            },
        }
    }
}

mod sealed {
    use super::*;

    /// What `copy` needs from a source.
    pub trait Source<T: DeviceScalar> {
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
    }

    /// What `copy` needs from a destination.
    pub trait Destination<T: DeviceScalar> {
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
    }
}

/// A source of [`copy`]: an [`Array`], an [`ArrayView`], an [`ArrayViewMut`] or a host
/// slice `[T]`. Sealed.
pub trait CopySource<T: DeviceScalar>: sealed::Source<T> {}

/// A destination of [`copy`]: an [`Array`], an [`ArrayViewMut`] or a host slice `[T]`.
/// Sealed.
pub trait CopyDestination<T: DeviceScalar>: sealed::Destination<T> {}

impl<T: DeviceScalar> sealed::Source<T> for [T] {
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
impl<T: DeviceScalar> CopySource<T> for [T] {}

impl<T: DeviceScalar> sealed::Destination<T> for [T] {
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
impl<T: DeviceScalar> CopyDestination<T> for [T] {}

impl<T: DeviceScalar, const N: usize> sealed::Source<T> for Array<T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        (self.extent().as_slice().to_vec(), true)
    }
    fn read_all(&self) -> Result<Vec<T>, Error> {
        self.to_vec()
    }
    fn array_buffer(&self) -> Option<(&Arc<Buffer>, &Accelerator)> {
        Some((self.buffer(), self.accelerator()))
    }
}
impl<T: DeviceScalar, const N: usize> CopySource<T> for Array<T, N> {}

impl<T: DeviceScalar, const N: usize> sealed::Destination<T> for Array<T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        (self.extent().as_slice().to_vec(), true)
    }
    fn write_all(&mut self, data: &[T]) -> Result<(), Error> {
        self.copy_from_slice(data)
    }
    fn array_buffer(&self) -> Option<(&Arc<Buffer>, &Accelerator)> {
        Some((self.buffer(), self.accelerator()))
    }
}
impl<T: DeviceScalar, const N: usize> CopyDestination<T> for Array<T, N> {}

fn view_shape<T: DeviceScalar, const N: usize>(v: &impl ViewParts<T, N>) -> (Vec<usize>, bool) {
    (v.parts().1.extent.as_slice().to_vec(), true)
}

fn view_read<T: DeviceScalar, const N: usize>(v: &impl ViewParts<T, N>) -> Result<Vec<T>, Error> {
    let (shared, layout): (&Arc<Shared>, &Layout<N>) = v.parts();
    shared.gather(layout)
}

impl<T: DeviceScalar, const N: usize> sealed::Source<T> for ArrayView<'_, T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        view_shape(self)
    }
    fn read_all(&self) -> Result<Vec<T>, Error> {
        view_read(self)
    }
}
impl<T: DeviceScalar, const N: usize> CopySource<T> for ArrayView<'_, T, N> {}

impl<T: DeviceScalar, const N: usize> sealed::Source<T> for ArrayViewMut<'_, T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        view_shape(self)
    }
    fn read_all(&self) -> Result<Vec<T>, Error> {
        view_read(self)
    }
}
impl<T: DeviceScalar, const N: usize> CopySource<T> for ArrayViewMut<'_, T, N> {}

impl<T: DeviceScalar, const N: usize> sealed::Destination<T> for ArrayViewMut<'_, T, N> {
    fn shape(&self) -> (Vec<usize>, bool) {
        view_shape(self)
    }
    fn write_all(&mut self, data: &[T]) -> Result<(), Error> {
        let (shared, layout) = self.parts();
        shared.scatter(layout, data)
    }
}
impl<T: DeviceScalar, const N: usize> CopyDestination<T> for ArrayViewMut<'_, T, N> {}

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
/// (`vkCmdCopyBuffer`, or one `memcpy` where the memory is shared); sections copy only their
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
    T: DeviceScalar,
    S: CopySource<T> + ?Sized,
    D: CopyDestination<T> + ?Sized,
{
    let elems = check_shapes(src.shape(), dst.shape())?;
    let bytes = (elems * std::mem::size_of::<T>()) as u64;
    if let (Some((s, s_acc)), Some((d, d_acc))) = (src.array_buffer(), dst.array_buffer()) {
        if s_acc == d_acc {
            return s.copy_to(0, d, 0, bytes);
        }
    }
    if let Some(out) = dst.host_slice() {
        if let Some((s, _)) = src.array_buffer() {
            return s.read(bytemuck::cast_slice_mut(out));
        }
    }
    if let Some(data) = src.host_slice() {
        return dst.write_all(data);
    }
    let data = src.read_all()?;
    dst.write_all(&data)
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
    T: DeviceScalar,
    S: CopySource<T> + ?Sized + Sync,
    D: CopyDestination<T> + ?Sized + Send,
{
    let elems = check_shapes(src.shape(), dst.shape())?;
    let bytes = (elems * std::mem::size_of::<T>()) as u64;
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
                buffer.read_at(at, bytemuck::cast_slice_mut(out))
            }));
        }
    }
    if let (Some(data), Some((d, _))) = (src.host_slice(), dst.array_buffer()) {
        if d.host_ptr().is_none() {
            let staging = Arc::new(Buffer::staging(
                d.device(),
                bytes,
                MemoryLocation::CpuToGpu,
            )?);
            staging.write(bytemuck::cast_slice(data))?;
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
