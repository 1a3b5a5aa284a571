//! [`CompletionFuture`] (C++ AMP's `completion_future`) of asynchronous transfers, and the
//! staged downloads behind them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use gpu_allocator::MemoryLocation;

use crate::memory::{Buffer, Pooled};
use crate::Error;

/// A finished-or-not asynchronous operation (C++ AMP's `completion_future`), returned by
/// [`copy_async`](crate::copy_async) and [`ArrayViewMut::synchronize_async`](crate::ArrayViewMut::synchronize_async).
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
    pub(super) fn spawn(
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
    /// The buffer itself when mapped, else a staging buffer from the device's pool.
    staging: Arc<dyn std::ops::Deref<Target = Buffer> + Send + Sync>,
    at: u64,
}

/// Starts making `len` bytes at byte `at` of `buffer` host-readable: nothing to do when the
/// buffer is mapped; else a device copy into a staging buffer, run by the future's worker.
pub(crate) fn stage_download(buffer: Arc<Buffer>, at: u64, len: u64) -> Result<Staged, Error> {
    if buffer.is_direct() {
        return Ok(Staged {
            work: None,
            staging: Arc::new(buffer),
            at,
        });
    }
    let staging = Arc::new(Pooled::take(
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
        staging: staging as Arc<dyn std::ops::Deref<Target = Buffer> + Send + Sync>,
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
