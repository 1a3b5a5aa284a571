//! Views: [`ArrayView`] (read-only) and [`ArrayViewMut`] over host slices or over an
//! [`Array`](crate::Array), with sections, projections, reshapes and reinterpretations.
//!
//! Every view made from another (a section, a projection, `view_as`, `reinterpret_as`,
//! `as_view`) shares its parent's data and coherence state: one host slice (or array buffer),
//! at most one device copy per accelerator, and flags saying which of them is current. A
//! derived view only changes the *layout*: the element offset, extent and strides that a
//! launch passes to the kernel (see `kernel.rs`), so nothing is copied to make it. The rules
//! are written up in `docs/data-model.md`.

use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::accelerator::{lock, DeviceShared};
use crate::buffer_access::{BufferAccess, DeviceBuffer, DeviceBufferMut};
use crate::copy::CompletionFuture;
use crate::extent::dims_list;
use crate::kernel::ElemType;
use crate::memory::Buffer;
use crate::{Accelerator, DeviceScalar, Error, Extent, Index};

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

fn count(update: impl FnOnce(&mut TransferStats)) {
    TRANSFERS.with(|t| {
        let mut s = t.get();
        update(&mut s);
        t.set(s);
    });
}

/// Checks that `extent` is usable and has exactly `len` elements.
pub(crate) fn check_extent<const N: usize>(extent: &Extent<N>, len: usize) -> Result<(), Error> {
    match extent.checked_size() {
        Some(0) => return Err(Error::ZeroExtent),
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

    /// The section at `origin` with `extent` (C++ AMP's `section`).
    pub(crate) fn section(&self, origin: [usize; N], extent: Extent<N>) -> Result<Self, Error> {
        let outer = self.extent.as_array();
        let inner = extent.as_array();
        let fits = (0..N).all(|d| {
            inner[d] > 0
                && origin[d]
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
        let offset = self.offset + (0..N).map(|d| origin[d] * self.strides[d]).sum::<usize>();
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
            Some(0) => return Err(Error::ZeroExtent),
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

/// Where a family of views keeps its data.
enum Source {
    /// Host memory borrowed by the views (`&[T]` or `&mut [T]`), as bytes.
    Host { ptr: *mut u8, len: usize },
    /// The buffer of an [`Array`](crate::Array) on its accelerator.
    Array {
        buffer: Arc<Buffer>,
        acc: Accelerator,
    },
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
struct Coherence {
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
    state: Mutex<Coherence>,
}

// SAFETY: the host pointer comes from a `&[T]` or `&mut [T]` of a `DeviceScalar` (plain data,
// `Send + Sync`); the views that hold the `Shared` carry that borrow's lifetime and follow its
// rules (only `ArrayViewMut` writes host data, and only through `&mut self` or the lock).
unsafe impl Send for Shared {}
// SAFETY: as above; the mutable state is behind a `Mutex`.
unsafe impl Sync for Shared {}

impl Shared {
    fn host(ptr: *mut u8, len: usize) -> Arc<Shared> {
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

    pub(crate) fn array(buffer: Arc<Buffer>, acc: Accelerator) -> Arc<Shared> {
        Arc::new(Shared {
            source: Source::Array { buffer, acc },
            state: Mutex::new(Coherence {
                host_current: true,
                discard: false,
                copies: Vec::new(),
                last: None,
            }),
        })
    }

    /// The array this family views, if any.
    fn home(&self) -> Option<Accelerator> {
        match &self.source {
            Source::Array { acc, .. } => Some(acc.clone()),
            Source::Host { .. } => None,
        }
    }

    /// Brings the host data up to date from the current device copy.
    fn sync_host(&self, st: &mut Coherence) -> Result<(), Error> {
        let Source::Host { ptr, len } = self.source else {
            return Ok(());
        };
        if st.host_current {
            return Ok(());
        }
        if let Some(c) = st.copies.iter().find(|c| c.current && !c.imported) {
            // SAFETY: the family borrows `len` bytes at `ptr`; a device copy is only ever
            // newer after a launch through an `ArrayViewMut`, so the borrow is mutable, and the
            // lock excludes other writers.
            let host = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
            c.buffer.read_at(c.base as u64, host)?;
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
    fn prepare(&self, acc: &Accelerator) -> Result<vk::DescriptorBufferInfo, Error> {
        let (ptr, len) = match &self.source {
            Source::Array { buffer, acc: home } => {
                if acc != home {
                    return Err(Error::AcceleratorMismatch {
                        array: home.name().to_owned(),
                        launch: acc.name().to_owned(),
                    });
                }
                buffer.busy().wait_idle();
                return Ok(buffer.whole());
            }
            Source::Host { ptr, len } => (*ptr, *len),
        };
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        let usable = |c: &DeviceCopy| on_device(&c.buffer, &acc.shared);
        let i = match st.copies.iter().position(usable) {
            Some(i) => i,
            None => {
                st.copies.push(new_copy(&acc.shared, ptr, len)?);
                st.copies.len() - 1
            }
        };
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
                    .write_at(st.copies[i].base as u64, host)?;
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
        Ok(vk::DescriptorBufferInfo {
            buffer: copy.buffer.raw(),
            offset: copy.base as u64,
            range: len as u64,
        })
    }

    /// Records that a launch on `acc` wrote the copy the latest `prepare` returned.
    fn mark_written(&self) {
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
    fn discard(&self) {
        let mut st = lock(&self.state);
        st.discard = true;
        st.host_current = true;
        for c in &mut st.copies {
            c.current = false;
        }
    }

    /// Declares the host data newer than every device copy.
    fn refresh(&self) {
        let mut st = lock(&self.state);
        st.host_current = true;
        st.discard = false;
        for c in &mut st.copies {
            c.current = false;
        }
    }

    /// Reads the elements of `layout` (row-major) into a new `Vec`.
    pub(crate) fn gather<T: DeviceScalar, const N: usize>(
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
            Source::Array { buffer, .. } => {
                let mut out = vec![T::zeroed(); layout.extent.size()];
                let mut at = 0;
                for (start, n) in layout.runs() {
                    let dst = bytemuck::cast_slice_mut(&mut out[at..at + n]);
                    buffer.read_at((start * size) as u64, dst)?;
                    at += n;
                }
                Ok(out)
            }
        }
    }

    /// Writes `data` (row-major) into the elements of `layout`; device copies become stale.
    pub(crate) fn scatter<T: DeviceScalar, const N: usize>(
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
            Source::Array { buffer, .. } => {
                let mut at = 0;
                for (start, n) in layout.runs() {
                    buffer.write_at(
                        (start * size) as u64,
                        bytemuck::cast_slice(&data[at..at + n]),
                    )?;
                    at += n;
                }
                Ok(())
            }
        }
    }

    /// The host bytes of a contiguous `layout` (synchronized first), if the data is host
    /// memory.
    fn host_run<T: DeviceScalar, const N: usize>(
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
                if p as usize % std::mem::align_of::<T>() != 0 {
                    return Err(Error::NotHostAccessible {
                        what: "this view",
                        reason: "its elements are not aligned for their type in host memory \
                                 (a reinterpreted view); use to_vec"
                            .into(),
                    });
                }
                Ok(p.cast())
            }
            Source::Array { .. } => Err(Error::NotHostAccessible {
                what: "a view of an Array",
                reason: "its data is in device memory; use to_vec, or Array::as_slice".into(),
            }),
        }
    }

    /// Starts bringing the host data up to date; the future finishes it.
    fn synchronize_async(self: &Arc<Self>) -> Result<CompletionFuture<'static>, Error> {
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
        let staged = crate::copy::stage_download(buffer, base as u64, len as u64)?;
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
        // semantics); errors cannot be reported here (call `synchronize` to see them).
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
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

fn on_device(b: &Buffer, device: &Arc<DeviceShared>) -> bool {
    Arc::ptr_eq(b.device(), device)
}

/// A device copy of the `len` host bytes at `ptr`: the host memory itself when the device can
/// import it (zero-copy), else a new device buffer.
fn new_copy(device: &Arc<DeviceShared>, ptr: *mut u8, len: usize) -> Result<DeviceCopy, Error> {
    if device.memory.shared_memory() {
        // SAFETY: the family borrows the bytes for as long as any of its views lives, and
        // the copies are dropped with the family; launches wait for their work.
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
        buffer: Arc::new(Buffer::storage(device, len as u64)?),
        base: 0,
        imported: false,
        current: false,
    })
}

/// A read-only view of host data or of an [`Array`](crate::Array) as an N-dimensional array
/// (C++ AMP's `array_view<const T, N>`).
///
/// Over a host slice, the data reaches a device the first time a kernel launched there reads
/// the view: on devices whose memory the host shares (integrated GPUs, lavapipe) the kernel
/// reads the slice's memory itself (imported with `VK_EXT_external_memory_host`); otherwise
/// it is copied once and the copy is reused by later launches. Over an array, kernels use the
/// array's buffer.
///
/// Views are cheap to clone and to derive: [`section`](Self::section),
/// [`project`](ArrayView::project) (C++ AMP's `view[i]`), [`view_as`](Self::view_as) and
/// [`reinterpret_as`](Self::reinterpret_as) share the data and its device copies.
///
/// ```
/// use amp_runtime::ArrayView;
/// let data = vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let v = ArrayView::new([2, 3], &data)?;
/// assert_eq!(v.extent().as_array(), [2, 3]);
/// assert_eq!(v.get([1, 2]), Some(6.0));
/// assert_eq!(v[[1, 2]], 6.0);
/// let col = v.section([0, 1], [2, 2])?; // rows 0..2, columns 1..3
/// assert_eq!(col.to_vec()?, [2.0, 3.0, 5.0, 6.0]);
/// assert_eq!(v.project(1)?.to_vec()?, [4.0, 5.0, 6.0]); // C++ AMP's v[1]
/// # Ok::<(), amp_runtime::Error>(())
/// ```
pub struct ArrayView<'a, T: DeviceScalar, const N: usize> {
    shared: Arc<Shared>,
    layout: Layout<N>,
    _data: PhantomData<&'a [T]>,
}

/// A writable view of host data or of an [`Array`](crate::Array) as an N-dimensional array
/// (C++ AMP's `array_view<T, N>`).
///
/// Launches make the data current on the device (unless
/// [`discard_data`](Self::discard_data) was called): on devices whose memory the host shares
/// the kernel uses the host slice's memory itself, so nothing is copied either way; otherwise
/// the slice is copied when the device copy is out of date, a launch that writes the view
/// makes the device copy the newer one, and [`synchronize`](Self::synchronize) (or dropping
/// the last view of the data) copies it back into the host slice. A result never read on the
/// host is never copied back before the view is dropped.
///
/// Sections ([`section_mut`](Self::section_mut)), projections
/// ([`project_mut`](ArrayViewMut::project_mut)) and reshapes borrow the view mutably and share
/// its data and device copies.
///
/// ```no_run
/// use amp_runtime::ArrayViewMut;
/// let mut out = vec![0.0f32; 6];
/// let mut v = ArrayViewMut::new([2, 3], &mut out)?;
/// v.discard_data(); // the next launch need not upload the zeros
/// // parallel_for_each(v.extent(), my_kernel(&mut v))?;
/// v.synchronize()?;
/// # Ok::<(), amp_runtime::Error>(())
/// ```
pub struct ArrayViewMut<'a, T: DeviceScalar, const N: usize> {
    shared: Arc<Shared>,
    layout: Layout<N>,
    _data: PhantomData<&'a mut [T]>,
}

/// Methods both view types have (read-only access).
macro_rules! read_methods {
    ($l:lifetime) => {
        /// The view's extent.
        pub fn extent(&self) -> Extent<N> {
            self.layout.extent
        }

        /// The element offset of the view's first element in the data it views (non-zero
        /// for sections and projections).
        pub fn offset(&self) -> usize {
            self.layout.offset
        }

        /// The element strides of every dimension (row-major unless the view is a section;
        /// the last is always 1).
        pub fn strides(&self) -> [usize; N] {
            self.layout.strides
        }

        /// Whether the view's elements are one gap-free row-major run (needed by
        /// `view_as`, `reinterpret_as` and host slices).
        pub fn is_contiguous(&self) -> bool {
            self.layout.is_contiguous()
        }

        /// The accelerator the data lives on when the view is over an
        /// [`Array`](crate::Array); `None` for views of host data.
        pub fn accelerator(&self) -> Option<Accelerator> {
            self.shared.home()
        }

        /// The view's elements in row-major order (synchronized from the device first when
        /// a launch wrote them).
        pub fn to_vec(&self) -> Result<Vec<T>, Error> {
            self.shared.gather(&self.layout)
        }

        /// A read-only section: the elements from `origin` spanning `extent` (C++ AMP's
        /// `section`). Shares the data; nothing is copied. Sections of sections work.
        ///
        /// Errors: [`Error::SectionOutOfBounds`] when it reaches outside the view.
        pub fn section(
            &self,
            origin: impl Into<Index<N>>,
            extent: impl Into<Extent<N>>,
        ) -> Result<ArrayView<$l, T, N>, Error> {
            let layout = self
                .layout
                .section(origin.into().as_array(), extent.into())?;
            Ok(self.derive(layout))
        }

        /// The same elements as a dense view of another shape (C++ AMP's `view_as`); the
        /// new extent may have fewer elements (a prefix).
        ///
        /// Errors: [`Error::NotContiguous`] for a section with gaps,
        /// [`Error::ExtentMismatch`] when `extent` has more elements than the view.
        pub fn view_as<const M: usize>(
            &self,
            extent: impl Into<Extent<M>>,
        ) -> Result<ArrayView<$l, T, M>, Error> {
            let layout = self.layout.view_as(extent.into())?;
            Ok(self.derive(layout))
        }

        /// The same bytes as a rank-1 view of another element type (C++ AMP's
        /// `reinterpret_as`), e.g. `f32` data as `u32` bit patterns.
        ///
        /// Errors: [`Error::NotContiguous`] for a section with gaps; [`Error::Reinterpret`]
        /// when the view's byte size or byte offset is not a multiple of `U`'s size.
        pub fn reinterpret_as<U: DeviceScalar>(&self) -> Result<ArrayView<$l, U, 1>, Error> {
            let layout = reinterpret::<T, U, N>(&self.layout)?;
            Ok(ArrayView {
                shared: self.shared.clone(),
                layout,
                _data: PhantomData,
            })
        }

        fn derive<const M: usize>(&self, layout: Layout<M>) -> ArrayView<$l, T, M> {
            ArrayView {
                shared: self.shared.clone(),
                layout,
                _data: PhantomData,
            }
        }
    };
}

/// The layout of `layout`'s bytes as elements of `U`.
fn reinterpret<T: DeviceScalar, U: DeviceScalar, const N: usize>(
    layout: &Layout<N>,
) -> Result<Layout<1>, Error> {
    layout.require_contiguous("reinterpret_as")?;
    let (from, to) = (std::mem::size_of::<T>(), std::mem::size_of::<U>());
    let err = |reason: String| Error::Reinterpret {
        from: T::TYPE.name(),
        to: U::TYPE.name(),
        reason,
    };
    let bytes = layout.extent.size() * from;
    if bytes % to != 0 {
        return Err(err(format!(
            "the view has {bytes} bytes, not a multiple of {to}"
        )));
    }
    let start = layout.offset * from;
    if start % to != 0 {
        return Err(err(format!(
            "the view starts at byte {start} of its data, not a multiple of {to}"
        )));
    }
    Ok(Layout::dense(Extent::new([bytes / to])).shifted(start / to))
}

impl<const N: usize> Layout<N> {
    fn shifted(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }
}

impl<'a, T: DeviceScalar, const N: usize> ArrayView<'a, T, N> {
    /// A view of `data` with the given extent.
    ///
    /// Errors: [`Error::ZeroExtent`] for an empty extent, [`Error::ExtentMismatch`] when the
    /// extent's element count differs from `data.len()`, [`Error::ExtentTooLarge`] when it
    /// exceeds `u32::MAX`.
    pub fn new(extent: impl Into<Extent<N>>, data: &'a [T]) -> Result<Self, Error> {
        let extent = extent.into();
        check_extent(&extent, data.len())?;
        let bytes: &[u8] = bytemuck::cast_slice(data);
        Ok(ArrayView {
            shared: Shared::host(bytes.as_ptr().cast_mut(), bytes.len()),
            layout: Layout::dense(extent),
            _data: PhantomData,
        })
    }

    pub(crate) fn from_shared(shared: Arc<Shared>, layout: Layout<N>) -> Self {
        ArrayView {
            shared,
            layout,
            _data: PhantomData,
        }
    }

    /// The host slice of a contiguous view of host data.
    ///
    /// Errors: [`Error::NotContiguous`] for a section with gaps, [`Error::NotHostAccessible`]
    /// for a view of an [`Array`](crate::Array).
    pub fn data(&self) -> Result<&[T], Error> {
        let p = self.shared.host_run::<T, N>(&self.layout, "data")?;
        // SAFETY: a contiguous run of the view's elements in host memory, current, aligned;
        // read-only views never write host data, and the family's writers are borrowed
        // while this view lives.
        Ok(unsafe { std::slice::from_raw_parts(p, self.layout.extent.size()) })
    }

    // Views derived from a read-only view borrow the data, not the view.
    read_methods!('a);

    /// The element at `idx` (read from the device for a view of an array), or `Ok(None)`
    /// when it is out of bounds.
    pub fn try_get(&self, idx: impl Into<Index<N>>) -> Result<Option<T>, Error> {
        match self.layout.element(&idx.into().as_array()) {
            Some(one) => Ok(self.shared.gather::<T, 1>(&one)?.first().copied()),
            None => Ok(None),
        }
    }

    /// The element at `idx`, or `None` when it is out of bounds (or, for a view of an array,
    /// when reading device memory fails: [`try_get`](Self::try_get) returns the error).
    pub fn get(&self, idx: impl Into<Index<N>>) -> Option<T> {
        self.try_get(idx).ok().flatten()
    }
}

impl<T: DeviceScalar, const N: usize> std::ops::Index<[usize; N]> for ArrayView<'_, T, N> {
    type Output = T;
    /// The element at `idx` of a view of host data.
    ///
    /// Panics when `idx` is out of bounds, for a view of an [`Array`](crate::Array) (its data
    /// is in device memory: use [`get`](ArrayView::get)), and for a reinterpreted view whose
    /// elements are not aligned in host memory.
    fn index(&self, idx: [usize; N]) -> &T {
        let one = match self.layout.element(&idx) {
            Some(one) => one,
            None => panic!(
                "index {} out of bounds for extent {}",
                Index::new(idx),
                self.layout.extent
            ),
        };
        match self.shared.host_run::<T, 1>(&one, "indexing") {
            // SAFETY: as in `ArrayView::data`.
            Ok(p) => unsafe { &*p },
            Err(e) => panic!("{e}"),
        }
    }
}

impl<T: DeviceScalar, const N: usize> std::ops::Index<Index<N>> for ArrayView<'_, T, N> {
    type Output = T;
    /// As indexing with `[usize; N]`.
    fn index(&self, idx: Index<N>) -> &T {
        &self[idx.as_array()]
    }
}

impl<T: DeviceScalar, const N: usize> Clone for ArrayView<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayView {
            shared: self.shared.clone(),
            layout: self.layout,
            _data: PhantomData,
        }
    }
}

impl<'a, T: DeviceScalar, const N: usize> ArrayViewMut<'a, T, N> {
    /// A writable view of `data` with the given extent.
    ///
    /// Errors as for [`ArrayView::new`].
    pub fn new(extent: impl Into<Extent<N>>, data: &'a mut [T]) -> Result<Self, Error> {
        let extent = extent.into();
        check_extent(&extent, data.len())?;
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(data);
        Ok(ArrayViewMut {
            shared: Shared::host(bytes.as_mut_ptr(), bytes.len()),
            layout: Layout::dense(extent),
            _data: PhantomData,
        })
    }

    pub(crate) fn from_shared(shared: Arc<Shared>, layout: Layout<N>) -> Self {
        ArrayViewMut {
            shared,
            layout,
            _data: PhantomData,
        }
    }

    // Read-only views derived from a writable one borrow it (it cannot launch meanwhile).
    read_methods!('_);

    /// The element at `idx` (synchronized first), or `Ok(None)` when it is out of bounds.
    pub fn get(&self, idx: impl Into<Index<N>>) -> Result<Option<T>, Error> {
        match self.layout.element(&idx.into().as_array()) {
            Some(one) => Ok(self.shared.gather::<T, 1>(&one)?.first().copied()),
            None => Ok(None),
        }
    }

    /// A read-only view of the same data (C++ AMP's conversion to `array_view<const T, N>`),
    /// e.g. to pass it to a kernel parameter of type `ArrayView`.
    pub fn as_view(&self) -> ArrayView<'_, T, N> {
        self.derive(self.layout)
    }

    /// A writable section: the elements from `origin` spanning `extent` (C++ AMP's
    /// `section`). Borrows this view mutably and shares its data: a launch that writes the
    /// section writes this view's data.
    ///
    /// Errors: [`Error::SectionOutOfBounds`] when it reaches outside the view.
    pub fn section_mut(
        &mut self,
        origin: impl Into<Index<N>>,
        extent: impl Into<Extent<N>>,
    ) -> Result<ArrayViewMut<'_, T, N>, Error> {
        let layout = self
            .layout
            .section(origin.into().as_array(), extent.into())?;
        Ok(self.derive_mut(layout))
    }

    /// [`view_as`](Self::view_as), writable.
    pub fn view_as_mut<const M: usize>(
        &mut self,
        extent: impl Into<Extent<M>>,
    ) -> Result<ArrayViewMut<'_, T, M>, Error> {
        let layout = self.layout.view_as(extent.into())?;
        Ok(self.derive_mut(layout))
    }

    /// [`reinterpret_as`](Self::reinterpret_as), writable.
    pub fn reinterpret_as_mut<U: DeviceScalar>(&mut self) -> Result<ArrayViewMut<'_, U, 1>, Error> {
        let layout = reinterpret::<T, U, N>(&self.layout)?;
        Ok(ArrayViewMut {
            shared: self.shared.clone(),
            layout,
            _data: PhantomData,
        })
    }

    fn derive_mut<const M: usize>(&mut self, layout: Layout<M>) -> ArrayViewMut<'_, T, M> {
        ArrayViewMut {
            shared: self.shared.clone(),
            layout,
            _data: PhantomData,
        }
    }

    /// Declares the current contents irrelevant (C++ AMP's `discard_data`): the next launch
    /// does not copy the host data to the device (use it for pure outputs). Applies to all
    /// the data this view shares with its parent and sections.
    pub fn discard_data(&mut self) {
        self.shared.discard();
    }

    /// Copies the device results back into the host data if a launch wrote them and they
    /// were not copied back yet (C++ AMP's `synchronize`). A no-op for views of an
    /// [`Array`](crate::Array) and when the kernel wrote the host memory itself.
    pub fn synchronize(&mut self) -> Result<(), Error> {
        self.shared.sync_host(&mut lock(&self.shared.state))
    }

    /// Starts [`synchronize`](Self::synchronize) and returns a future that finishes it
    /// (C++ AMP's `synchronize_async`): the device-to-host transfer runs in the background
    /// when the device memory is not host-visible; the copy into the host slice happens in
    /// [`CompletionFuture::wait`]. The view stays borrowed until then.
    pub fn synchronize_async(&mut self) -> Result<CompletionFuture<'_>, Error> {
        self.shared.synchronize_async()
    }

    /// Declares that the host data changed outside the view (C++ AMP's `refresh`): every
    /// device copy is out of date and the next launch copies the host data again. (Writes
    /// through [`data_mut`](Self::data_mut) and [`set`](Self::set) do this themselves.)
    pub fn refresh(&mut self) {
        self.shared.refresh();
    }

    /// The host slice of a contiguous view of host data, synchronized first.
    ///
    /// Errors: [`Error::NotContiguous`] for a section with gaps, [`Error::NotHostAccessible`]
    /// for a view of an [`Array`](crate::Array) (use [`to_vec`](Self::to_vec)).
    pub fn data(&mut self) -> Result<&[T], Error> {
        let p = self.shared.host_run::<T, N>(&self.layout, "data")?;
        // SAFETY: as in `ArrayView::data`; `&mut self` excludes launches.
        Ok(unsafe { std::slice::from_raw_parts(p, self.layout.extent.size()) })
    }

    /// The host slice for writing, synchronized first; the next launch copies it to the
    /// device again. Errors as for [`data`](Self::data).
    pub fn data_mut(&mut self) -> Result<&mut [T], Error> {
        let p = self.shared.host_run::<T, N>(&self.layout, "data_mut")?;
        self.shared.refresh();
        // SAFETY: as in `data`; `&mut self` excludes every other access to the family.
        Ok(unsafe { std::slice::from_raw_parts_mut(p, self.layout.extent.size()) })
    }

    /// Sets the element at `idx` to `value`. Errors: [`Error::SectionOutOfBounds`] when
    /// `idx` is out of bounds.
    pub fn set(&mut self, idx: impl Into<Index<N>>, value: T) -> Result<(), Error> {
        let idx = idx.into();
        match self.layout.element(&idx.as_array()) {
            Some(one) => self.shared.scatter(&one, &[value]),
            None => Err(Error::SectionOutOfBounds {
                what: "the index",
                requested: idx.to_string(),
                extent: self.layout.extent.to_string(),
            }),
        }
    }

    /// Overwrites the view's elements with `data` (row-major). Errors:
    /// [`Error::CopyExtentMismatch`] when `data.len()` differs from the element count.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.layout.extent.size() {
            return Err(Error::CopyExtentMismatch {
                src: dims_list(&[data.len()]),
                dst: self.layout.extent.to_string(),
            });
        }
        self.shared.scatter(&self.layout, data)
    }
}

/// Projections (C++ AMP's `view[i]`): Rust's `Index` cannot return a view by value, so they
/// are methods.
macro_rules! projections {
    ($($n:literal => $m:literal),*) => {$(
        impl<'a, T: DeviceScalar> ArrayView<'a, T, $n> {
            /// Row `i` of dimension 0 as a view of rank one less (C++ AMP's `view[i]`).
            /// Shares the data. Errors: [`Error::SectionOutOfBounds`] when `i` is out of
            /// bounds.
            pub fn project(&self, i: usize) -> Result<ArrayView<'a, T, $m>, Error> {
                let layout = self.layout.project::<$m>(i)?;
                Ok(self.derive(layout))
            }
        }

        impl<'a, T: DeviceScalar> ArrayViewMut<'a, T, $n> {
            /// Row `i` of dimension 0 as a read-only view of rank one less (C++ AMP's
            /// `view[i]`). Errors: [`Error::SectionOutOfBounds`] when `i` is out of bounds.
            pub fn project(&self, i: usize) -> Result<ArrayView<'_, T, $m>, Error> {
                let layout = self.layout.project::<$m>(i)?;
                Ok(self.derive(layout))
            }

            /// Row `i` of dimension 0 as a writable view of rank one less (C++ AMP's
            /// `view[i]`). Errors: [`Error::SectionOutOfBounds`] when `i` is out of bounds.
            pub fn project_mut(&mut self, i: usize) -> Result<ArrayViewMut<'_, T, $m>, Error> {
                let layout = self.layout.project::<$m>(i)?;
                Ok(self.derive_mut(layout))
            }
        }
    )*};
}

projections!(2 => 1, 3 => 2, 4 => 3);

impl<T: DeviceScalar, const N: usize> fmt::Debug for ArrayView<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayView")
            .field("extent", &self.layout.extent)
            .field("offset", &self.layout.offset)
            .field("strides", &self.layout.strides)
            .finish_non_exhaustive()
    }
}

impl<T: DeviceScalar, const N: usize> fmt::Debug for ArrayViewMut<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayViewMut")
            .field("extent", &self.layout.extent)
            .field("offset", &self.layout.offset)
            .field("strides", &self.layout.strides)
            .finish_non_exhaustive()
    }
}

/// The buffer-argument plumbing both view types share.
macro_rules! buffer_access {
    ($ty:ident) => {
        impl<T: DeviceScalar, const N: usize> BufferAccess for $ty<'_, T, N> {
            fn elem(&self) -> ElemType {
                T::ELEM
            }
            fn dims(&self) -> &[usize] {
                self.layout.extent.as_slice()
            }
            fn offset(&self) -> usize {
                self.layout.offset
            }
            fn strides(&self) -> Vec<usize> {
                self.layout.strides[..N.saturating_sub(1)].to_vec()
            }
            fn home(&self) -> Option<Accelerator> {
                self.shared.home()
            }
            fn prepare(&self, acc: &Accelerator) -> Result<vk::DescriptorBufferInfo, Error> {
                self.shared.prepare(acc)
            }
            fn mark_written(&self, _acc: &Accelerator) {
                self.shared.mark_written();
            }
        }

        impl<T: DeviceScalar, const N: usize> DeviceBuffer for $ty<'_, T, N> {}
    };
}

buffer_access!(ArrayView);
buffer_access!(ArrayViewMut);

impl<T: DeviceScalar, const N: usize> DeviceBufferMut for ArrayViewMut<'_, T, N> {}

/// Crate access to a view's parts (for `copy`).
pub(crate) trait ViewParts<T: DeviceScalar, const N: usize> {
    fn parts(&self) -> (&Arc<Shared>, &Layout<N>);
}

impl<T: DeviceScalar, const N: usize> ViewParts<T, N> for ArrayView<'_, T, N> {
    fn parts(&self) -> (&Arc<Shared>, &Layout<N>) {
        (&self.shared, &self.layout)
    }
}

impl<T: DeviceScalar, const N: usize> ViewParts<T, N> for ArrayViewMut<'_, T, N> {
    fn parts(&self) -> (&Arc<Shared>, &Layout<N>) {
        (&self.shared, &self.layout)
    }
}
