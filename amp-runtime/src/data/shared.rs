//! The data and coherence state a family of views shares ([`Shared`]): a host slice or an
//! array's buffer, at most one device copy per accelerator, which of them is current, and the
//! per-thread [`transfer_stats`] of the copies made.

use std::sync::{Arc, Mutex};

use super::access::{NativePrepared, Prepared};
use super::future::{stage_download, CompletionFuture};
use super::layout::Layout;
use super::storage::Storage;
use crate::device::{Accelerator, Device};
use crate::memory::Buffer;
use crate::scalar::DeviceElement;
use crate::sync::lock;
use crate::Error;

/// How much host data views moved on one thread (see [`transfer_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransferStats {
    /// Host-to-device copies of view data (a launch found the device copy out of date).
    pub uploads: u64,
    /// Bytes those copies moved.
    pub upload_bytes: u64,
    /// Device-to-host copies of view data (`synchronize`, host access, or the last view
    /// dropped after a launch wrote a device copy).
    pub downloads: u64,
    /// Bytes those copies moved.
    pub download_bytes: u64,
    /// Host slices that kernels use in place (imported host memory): no bytes move.
    pub imports: u64,
}

thread_local! {
    static TRANSFERS: std::cell::Cell<TransferStats> = const {
        std::cell::Cell::new(TransferStats {
            uploads: 0,
            upload_bytes: 0,
            downloads: 0,
            download_bytes: 0,
            imports: 0,
        })
    };
}

/// The data movement of views on the calling thread since it started: what the coherence
/// rules cost (a view read by two launches is uploaded once; a result never read on the host
/// is never downloaded; zero-copy views move nothing). Launches run on the calling thread,
/// so a test can compare two snapshots.
///
/// ```
/// let before = amp_runtime::transfer_stats();
/// // ... launches ...
/// let moved = amp_runtime::transfer_stats().upload_bytes - before.upload_bytes;
/// # assert_eq!(moved, 0);
/// ```
pub fn transfer_stats() -> TransferStats {
    TRANSFERS.with(|t| t.get())
}

pub(super) fn count(update: impl FnOnce(&mut TransferStats)) {
    TRANSFERS.with(|t| {
        let mut s = t.get();
        update(&mut s);
        t.set(s);
    });
}

/// Where a family of views keeps its data.
enum Source {
    /// Host memory borrowed by the views (`&[T]` or `&mut [T]`), as bytes.
    Host { ptr: *mut u8, len: usize },
    /// The memory of an [`Array`](crate::Array) on its accelerator.
    Array { storage: Storage, acc: Accelerator },
}

/// A device copy of host data.
struct DeviceCopy {
    buffer: Arc<Buffer>,
    /// Byte offset of the host data's first byte in `buffer` (the descriptor's offset).
    base: usize,
    /// The buffer is the host memory itself (imported): it is exactly as current as the host.
    imported: bool,
    /// Holds the latest data (only for copies that are not imported).
    current: bool,
}

/// Which copies of a host-backed family hold the latest data.
pub(super) struct Coherence {
    /// The host slice holds the latest data.
    host_current: bool,
    /// The next upload may be skipped (`discard_data`).
    discard: bool,
    copies: Vec<DeviceCopy>,
    /// The copy the latest `prepare` returned (the one a launch then writes).
    last: Option<usize>,
}

/// The data and coherence state shared by a view and every view derived from it.
pub(crate) struct Shared {
    source: Source,
    pub(super) state: Mutex<Coherence>,
}

// SAFETY: the host pointer comes from a `&[T]` or `&mut [T]` of a `DeviceElement` (plain data,
// `Send + Sync`); the views that hold the `Shared` carry that borrow's lifetime and follow its
// rules (only `ArrayViewMut` writes host data, and only through `&mut self` or the lock).
unsafe impl Send for Shared {}
// SAFETY: as above; the mutable state is behind a `Mutex`.
unsafe impl Sync for Shared {}

impl Shared {
    pub(super) fn host(ptr: *mut u8, len: usize) -> Arc<Shared> {
        Arc::new(Shared {
            source: Source::Host { ptr, len },
            state: Mutex::new(Coherence {
                host_current: true,
                discard: false,
                copies: Vec::new(),
                last: None,
            }),
        })
    }

    pub(crate) fn array(storage: Storage, acc: Accelerator) -> Arc<Shared> {
        Arc::new(Shared {
            source: Source::Array { storage, acc },
            state: Mutex::new(Coherence {
                host_current: true,
                discard: false,
                copies: Vec::new(),
                last: None,
            }),
        })
    }

    /// The array this family views, if any.
    pub(super) fn home(&self) -> Option<&Accelerator> {
        match &self.source {
            Source::Array { acc, .. } => Some(acc),
            Source::Host { .. } => None,
        }
    }

    /// Brings the host data up to date from the current device copy.
    pub(super) fn sync_host(&self, st: &mut Coherence) -> Result<(), Error> {
        let Source::Host { ptr, len } = self.source else {
            return Ok(());
        };
        if st.host_current {
            return Ok(());
        }
        if let Some(c) = st.copies.iter_mut().find(|c| c.current && !c.imported) {
            // SAFETY: the family borrows `len` bytes at `ptr`; a device copy is only ever
            // newer after a launch through an `ArrayViewMut`, so the borrow is mutable, and the
            // lock excludes other writers.
            let host = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
            // A copy whose contents a failed batch lost is not read (`read_at` returns that
            // error before it copies anything): the host data, last synchronized, is then the
            // newest there is, and the next launch uploads it again.
            if let Err(e) = c.buffer.read_at(c.base as u64, host) {
                if c.buffer.pending().lost().is_some() {
                    c.current = false;
                    st.host_current = true;
                }
                return Err(e);
            }
            count(|s| {
                s.downloads += 1;
                s.download_bytes += len as u64;
            });
        }
        st.host_current = true;
        Ok(())
    }

    /// Makes a copy of the data current on `acc` and returns the range of it to bind: exactly
    /// the data's bytes (an imported buffer starts before them), so a kernel sees element 0
    /// of the data at element 0 of its buffer.
    pub(super) fn prepare(
        &self,
        acc: &Accelerator,
        queue: &Arc<crate::device::Queue>,
    ) -> Result<Prepared, Error> {
        let (ptr, len) = match &self.source {
            Source::Array { storage, acc: home } => return prepare_array(storage, home, acc),
            Source::Host { ptr, len } => (*ptr, *len),
        };
        let device = acc.vulkan("a Vulkan launch")?;
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        let usable = |c: &DeviceCopy| on_device(&c.buffer, device);
        let i = match st.copies.iter().position(usable) {
            Some(i) => i,
            None => {
                st.copies.push(new_copy(device, ptr, len)?);
                st.copies.len() - 1
            }
        };
        if !st.copies[i].imported && st.copies[i].buffer.pending().lost().is_some() {
            // A failed batch lost the copy's contents: it is uploaded again (from the host
            // data, brought up to date from any other current copy first).
            st.copies[i].current = false;
            if !st.copies.iter().any(|c| c.current && !c.imported) {
                st.host_current = true;
            }
        }
        if st.copies[i].imported {
            // The device reads the host memory itself: it only has to be current.
            self.sync_host(st)?;
        } else if !st.copies[i].current {
            if !st.discard {
                self.sync_host(st)?;
                // SAFETY: the family borrows `len` bytes at `ptr`, now current.
                let host = unsafe { std::slice::from_raw_parts(ptr, len) };
                st.copies[i]
                    .buffer
                    .write_at_on(queue, st.copies[i].base as u64, host)?;
                count(|s| {
                    s.uploads += 1;
                    s.upload_bytes += len as u64;
                });
            }
            st.copies[i].current = true;
        }
        st.discard = false;
        st.last = Some(i);
        let copy = &st.copies[i];
        Ok(Prepared {
            info: ash::vk::DescriptorBufferInfo {
                buffer: copy.buffer.raw(),
                offset: copy.base as u64,
                // Vulkan has no empty ranges: an empty view binds 4 bytes of its (4-byte or
                // larger) copy, which its zero extent keeps every access away from. Packed
                // elements (`u8`, `i16`, ...) are read and written in whole words, so the
                // range ends at a word's end, within the copy (`new_copy`).
                range: len.max(4).div_ceil(4) as u64 * 4,
            },
            buffer: copy.buffer.clone(),
            in_place: copy.imported,
            writes: true,
        })
    }

    /// The host memory for a launch on the native CPU accelerator `acc`: an array's own
    /// memory, or the borrowed host slice brought up to date from any newer device copy.
    pub(super) fn prepare_native(&self, acc: &Accelerator) -> Result<NativePrepared, Error> {
        match &self.source {
            Source::Array { storage, acc: home } => match storage.host() {
                Some(host) if acc == home => Ok(NativePrepared {
                    ptr: host.as_ptr(),
                    len: host.size(),
                    _keep: Some(host.clone()),
                }),
                _ => Err(Error::AcceleratorMismatch {
                    array: home.name().to_owned(),
                    launch: acc.name().to_owned(),
                }),
            },
            Source::Host { ptr, len } => {
                let mut guard = lock(&self.state);
                let st = &mut *guard;
                if !st.discard {
                    self.sync_host(st)?;
                }
                st.discard = false;
                st.host_current = true;
                Ok(NativePrepared {
                    ptr: *ptr,
                    len: *len,
                    _keep: None,
                })
            }
        }
    }

    /// Records that a native launch wrote the host data: every device copy is stale.
    pub(super) fn mark_written_native(&self) {
        if let Source::Array { .. } = self.source {
            return;
        }
        let mut st = lock(&self.state);
        st.host_current = true;
        for c in &mut st.copies {
            if !c.imported {
                c.current = false;
            }
        }
    }

    /// Records that a launch on `acc` wrote the copy the latest `prepare` returned.
    pub(super) fn mark_written(&self) {
        if let Source::Array { .. } = self.source {
            return;
        }
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        let Some(i) = st.last else { return };
        let imported = st.copies[i].imported;
        // An imported copy is the host memory: the host is current, every other copy stale.
        st.host_current = imported;
        for (j, c) in st.copies.iter_mut().enumerate() {
            c.current = j == i && !imported;
        }
    }

    /// Declares the data irrelevant: the next launch uploads nothing.
    pub(super) fn discard(&self) {
        let mut st = lock(&self.state);
        st.discard = true;
        st.host_current = true;
        for c in &mut st.copies {
            c.current = false;
        }
    }

    /// Declares the host data newer than every device copy.
    pub(super) fn refresh(&self) {
        let mut st = lock(&self.state);
        st.host_current = true;
        st.discard = false;
        for c in &mut st.copies {
            c.current = false;
        }
    }

    /// Reads the elements of `layout` (row-major) into a new `Vec`.
    pub(crate) fn gather<T: DeviceElement, const N: usize>(
        &self,
        layout: &Layout<N>,
    ) -> Result<Vec<T>, Error> {
        let size = std::mem::size_of::<T>();
        match &self.source {
            Source::Host { ptr, .. } => {
                self.sync_host(&mut lock(&self.state))?;
                Ok(layout
                    .positions()
                    // SAFETY: every position of a layout lies in the shared data (sections
                    // and projections are checked against their parent).
                    .map(|p| unsafe { ptr.add(p * size).cast::<T>().read_unaligned() })
                    .collect())
            }
            Source::Array { storage, .. } => {
                let mut out = vec![crate::scalar::zeroed::<T>(); layout.extent.size()];
                let mut at = 0;
                for (start, n) in layout.runs() {
                    let dst = crate::scalar::as_bytes_mut(&mut out[at..at + n]);
                    storage.read_at(start * size, dst)?;
                    at += n;
                }
                Ok(out)
            }
        }
    }

    /// Writes `data` (row-major) into the elements of `layout`; device copies become stale.
    pub(crate) fn scatter<T: DeviceElement, const N: usize>(
        &self,
        layout: &Layout<N>,
        data: &[T],
    ) -> Result<(), Error> {
        let size = std::mem::size_of::<T>();
        match &self.source {
            Source::Host { ptr, .. } => {
                let mut st = lock(&self.state);
                self.sync_host(&mut st)?;
                for (p, v) in layout.positions().zip(data) {
                    // SAFETY: as in `gather`; only `ArrayViewMut` (a mutable borrow) scatters.
                    unsafe { ptr.add(p * size).cast::<T>().write_unaligned(*v) };
                }
                st.discard = false;
                for c in &mut st.copies {
                    c.current = false;
                }
                Ok(())
            }
            Source::Array { storage, .. } => {
                let mut at = 0;
                for (start, n) in layout.runs() {
                    storage.write_at(start * size, crate::scalar::as_bytes(&data[at..at + n]))?;
                    at += n;
                }
                Ok(())
            }
        }
    }

    /// The host bytes of a contiguous `layout` (synchronized first), if the data is host
    /// memory.
    pub(super) fn host_run<T: DeviceElement, const N: usize>(
        &self,
        layout: &Layout<N>,
        operation: &'static str,
    ) -> Result<*mut T, Error> {
        layout.require_contiguous(operation)?;
        match &self.source {
            Source::Host { ptr, .. } => {
                self.sync_host(&mut lock(&self.state))?;
                // SAFETY: the layout lies in the shared data.
                let p = unsafe { ptr.add(layout.offset * std::mem::size_of::<T>()) };
                if !(p as usize).is_multiple_of(std::mem::align_of::<T>()) {
                    return Err(Error::NotHostAccessible {
                        what: "this view",
                        reason: "its elements are not aligned for their type in host memory \
                                 (a reinterpreted view); use to_vec"
                            .into(),
                    });
                }
                Ok(p.cast())
            }
            Source::Array { storage, .. } => match storage.host() {
                // SAFETY: the layout lies in the array's memory.
                Some(h) => {
                    Ok(unsafe { h.as_ptr().add(layout.offset * std::mem::size_of::<T>()) }.cast())
                }
                None => Err(Error::NotHostAccessible {
                    what: "a view of an Array",
                    reason: "its data is in device memory; use to_vec, or Array::as_slice".into(),
                }),
            },
        }
    }

    /// Starts bringing the host data up to date; the future finishes it.
    pub(super) fn synchronize_async(self: &Arc<Self>) -> Result<CompletionFuture<'static>, Error> {
        let mut guard = lock(&self.state);
        if guard.host_current {
            return Ok(CompletionFuture::ready());
        }
        let Some(copy) = guard.copies.iter().find(|c| c.current && !c.imported) else {
            guard.host_current = true;
            return Ok(CompletionFuture::ready());
        };
        let Source::Host { len, .. } = self.source else {
            return Ok(CompletionFuture::ready());
        };
        let (buffer, base) = (copy.buffer.clone(), copy.base);
        drop(guard);
        // The device-to-host part runs on a worker; the final copy into the host slice
        // happens in `wait` (so a leaked future never writes the slice after its borrow).
        let staged = stage_download(buffer, base as u64, len as u64)?;
        let shared = self.clone();
        Ok(staged.then(move |staging, at| {
            let mut st = lock(&shared.state);
            if st.host_current {
                return Ok(());
            }
            let Source::Host { ptr, len } = shared.source else {
                return Ok(());
            };
            // SAFETY: as in `sync_host`.
            let host = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
            staging.read_at(at, host)?;
            count(|s| {
                s.downloads += 1;
                s.download_bytes += len as u64;
            });
            st.host_current = true;
            Ok(())
        }))
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The last view of a family copies device results back (C++ AMP's destructor
        // semantics); errors cannot be reported here (call `synchronize` to see them; the
        // view's `wait` still reports a device error). The device work on the family's
        // copies ends first, however long it takes: an imported copy is the borrowed host
        // memory, which must not be used once the borrow ends.
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for c in &st.copies {
            c.buffer.settle();
        }
        let mut st = std::mem::replace(
            st,
            Coherence {
                host_current: true,
                discard: false,
                copies: Vec::new(),
                last: None,
            },
        );
        let _ = self.sync_host(&mut st);
    }
}

/// [`Shared::prepare`] of an array's storage on its `home` accelerator: the whole buffer, on
/// that accelerator only.
pub(super) fn prepare_array(
    storage: &Storage,
    home: &Accelerator,
    acc: &Accelerator,
) -> Result<Prepared, Error> {
    match storage.buffer() {
        Some(buffer) if acc == home => Ok(Prepared {
            info: buffer.whole(),
            buffer: buffer.clone(),
            in_place: false,
            writes: true,
        }),
        _ => Err(Error::AcceleratorMismatch {
            array: home.name().to_owned(),
            launch: acc.name().to_owned(),
        }),
    }
}

fn on_device(b: &Buffer, device: &Arc<Device>) -> bool {
    Arc::ptr_eq(b.device(), device)
}

/// A device copy of the `len` host bytes at `ptr`: the host memory itself when the device can
/// import it (zero-copy), else a new device buffer.
///
/// Host memory whose length is not a whole number of 32-bit words is never imported: a kernel
/// writes packed elements (`u8`, `i16`, ...) with atomics on the words that hold them, and the
/// last word would reach bytes past the view's, which the host may be writing meanwhile.
fn new_copy(device: &Arc<Device>, ptr: *mut u8, len: usize) -> Result<DeviceCopy, Error> {
    if device.memory().shared_memory() && len.is_multiple_of(4) {
        // SAFETY: the family borrows the bytes for as long as any of its views lives; launches
        // that use the import wait for their work, and the family's drop waits for any that
        // timed out (the batch's handle of the buffer is gone once it finished).
        if let Some((buffer, base)) = unsafe { Buffer::import_host(device, ptr, len) } {
            count(|s| s.imports += 1);
            return Ok(DeviceCopy {
                buffer: Arc::new(buffer),
                base,
                imported: true,
                current: true,
            });
        }
    }
    Ok(DeviceCopy {
        buffer: Arc::new(Buffer::storage(device, len.div_ceil(4) as u64 * 4)?),
        base: 0,
        imported: false,
        current: false,
    })
}
