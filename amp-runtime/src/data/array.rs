//! [`Array`]: a device-resident N-dimensional container.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use gpu_allocator::MemoryLocation;

use super::access::{BufferAccess, DeviceBuffer, DeviceBufferMut, NativePrepared, Prepared};
use super::layout::Layout;
use super::shared::{prepare_array, Shared};
use super::storage::Storage;
use super::view::{ArrayView, ArrayViewMut};
use crate::device::{Accelerator, Backend};
use crate::kernel::ElemType;
use crate::memory::{force_staging, Buffer, Fill, HostMemory};
use crate::scalar::DeviceElement;
use crate::{Error, Extent, Index};

/// How the host may access an [`Array`]'s memory (C++ AMP's `access_type`, used as its
/// `cpu_access_type`).
///
/// On devices whose memory the host can map coherently ([`Accelerator::supports_cpu_shared_memory`]:
/// integrated GPUs, lavapipe), an array with host access is zero-copy: the host reads and
/// writes the memory kernels use ([`Array::as_slice`], [`Array::as_mut_slice`]). On a discrete
/// GPU, `Read`/`Write`/`ReadWrite` put the array in host-visible memory (kernels reach it over
/// the bus), while `None` keeps it in fast device memory and transfers go through staging
/// buffers. `Auto` chooses by the device's memory types: `ReadWrite` where memory is shared,
/// else `None`. Setting `AMP_FORCE_STAGING=1` makes `Auto` choose `None` everywhere.
///
/// ```no_run
/// use amp_runtime::{Accelerator, AccessType, Array};
/// let acc = Accelerator::default()?;
/// let mut a = Array::<f32, 1>::new_with_access(&acc, [4], AccessType::Auto)?;
/// if a.access_type().host_can_write() {
///     a.as_mut_slice()?.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]); // no transfer
/// }
/// # Ok::<(), amp_runtime::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AccessType {
    /// The host never touches the memory directly (copies go through staging buffers where
    /// device memory is not host-visible).
    None,
    /// The host reads the memory directly.
    Read,
    /// The host writes the memory directly.
    Write,
    /// The host reads and writes the memory directly.
    ReadWrite,
    /// Chosen by the device: `ReadWrite` where the host shares device memory, else `None`.
    #[default]
    Auto,
}

impl AccessType {
    /// Whether the host may read the memory directly.
    pub fn host_can_read(self) -> bool {
        matches!(self, AccessType::Read | AccessType::ReadWrite)
    }

    /// Whether the host may write the memory directly.
    pub fn host_can_write(self) -> bool {
        matches!(self, AccessType::Write | AccessType::ReadWrite)
    }

    /// `Auto` resolved for `acc`; other values unchanged.
    fn resolve(self, acc: &Accelerator) -> AccessType {
        match self {
            AccessType::Auto => acc.default_cpu_access_type(),
            other => other,
        }
    }

    /// Where gpu-allocator should put the memory.
    fn location(self) -> MemoryLocation {
        match self {
            AccessType::None | AccessType::Auto => MemoryLocation::GpuOnly,
            AccessType::Write => MemoryLocation::CpuToGpu,
            AccessType::Read | AccessType::ReadWrite => MemoryLocation::GpuToCpu,
        }
    }
}

impl Accelerator {
    /// The host access [`AccessType::Auto`] resolves to on this device (C++ AMP's
    /// `default_cpu_access_type`): `ReadWrite` when it supports shared memory (and
    /// `AMP_FORCE_STAGING=1` is not set), else `None`.
    pub fn default_cpu_access_type(&self) -> AccessType {
        if self.is_native() || (self.supports_cpu_shared_memory() && !force_staging()) {
            AccessType::ReadWrite
        } else {
            AccessType::None
        }
    }

    /// Whether kernels on this device can use host slices in place
    /// (`VK_EXT_external_memory_host`), so views of host data are zero-copy.
    pub fn supports_host_memory_import(&self) -> bool {
        match self.backend() {
            Backend::Vulkan(d) => {
                d.memory().host_import_alignment.is_some()
                    && self.supports_cpu_shared_memory()
                    && !force_staging()
            }
            // Native kernels read and write host slices where they are.
            Backend::Native(_) => true,
        }
    }
}

/// An N-dimensional array that lives in one accelerator's memory (C++ AMP's `array<T, N>`).
///
/// Unlike views, an `Array` owns its data, which stays on its accelerator: launches that use
/// it run there, and copies to and from the host are explicit.
///
/// ```no_run
/// use amp_runtime::Array;
/// let a = Array::from_slice([2, 2], &[1i32, 2, 3, 4])?;
/// let b = a.try_clone()?;
/// assert_eq!(b.to_vec()?, vec![1, 2, 3, 4]);
/// # Ok::<(), amp_runtime::Error>(())
/// ```
pub struct Array<T: DeviceElement, const N: usize> {
    storage: Storage,
    extent: Extent<N>,
    len: usize,
    acc: Accelerator,
    access: AccessType,
    _elem: PhantomData<T>,
}

impl<T: DeviceElement, const N: usize> Array<T, N> {
    /// An array whose memory holds what `fill` says on the native accelerator; on a Vulkan
    /// device its contents are the device's until the caller zeroes or writes them.
    fn alloc(
        acc: &Accelerator,
        extent: Extent<N>,
        access: AccessType,
        fill: Fill,
    ) -> Result<Self, Error> {
        let len = extent.validate()?;
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let access = access.resolve(acc);
        let storage = match acc.backend() {
            // Whole 32-bit words: kernels read and write `u8`, `i16`, ... elements inside the
            // words that hold them (`ScalarType::is_packed`).
            Backend::Vulkan(device) => Storage::Device(Arc::new(Buffer::storage_in(
                device,
                bytes.div_ceil(4) * 4,
                access.location(),
            )?)),
            Backend::Native(native) => {
                let bytes = usize::try_from(bytes).map_err(|_| Error::OutOfDeviceMemory)?;
                Storage::Host(Arc::new(HostMemory::new_on(
                    bytes,
                    fill,
                    Some(native.pool()),
                )?))
            }
        };
        Ok(Array {
            storage,
            extent,
            len,
            acc: acc.clone(),
            access,
            _elem: PhantomData,
        })
    }

    /// A zero-filled array on `acc` whose memory the host accesses as `access` says (C++
    /// AMP's `array(extent, accelerator_view, access_type)`).
    pub fn new_with_access(
        acc: &Accelerator,
        extent: impl Into<Extent<N>>,
        access: AccessType,
    ) -> Result<Self, Error> {
        let a = Self::alloc(acc, extent.into(), access, Fill::Zero)?;
        if let Storage::Device(b) = &a.storage {
            b.zero()?;
        }
        Ok(a)
    }

    /// The host access the array was created with, `Auto` resolved (C++ AMP's
    /// `get_cpu_access_type`).
    pub fn access_type(&self) -> AccessType {
        self.access
    }

    /// The array's memory as a host slice, with no copy (C++ AMP's `array::data()` on
    /// shared memory).
    ///
    /// Errors: [`Error::NotHostAccessible`] when the array's access type does not allow host
    /// reads or the memory is not host-visible; use [`to_vec`](Self::to_vec) then.
    pub fn as_slice(&self) -> Result<&[T], Error> {
        let p = self.host_memory(self.access.host_can_read(), "read")?;
        // SAFETY: the mapping covers `len` elements, is aligned (allocations are at least
        // 16-byte aligned) and current (`host_memory` waited for the device work using it);
        // `&self` excludes writers, so no launch can write it while the slice lives.
        Ok(unsafe { std::slice::from_raw_parts(p.cast::<T>(), self.len) })
    }

    /// The array's memory as a mutable host slice, with no copy. Errors as for
    /// [`as_slice`](Self::as_slice), for host writes.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], Error> {
        let p = self.host_memory(self.access.host_can_write(), "write")?;
        // SAFETY: as in `as_slice`; `&mut self` excludes every other access.
        Ok(unsafe { std::slice::from_raw_parts_mut(p.cast::<T>(), self.len) })
    }

    fn host_memory(&self, allowed: bool, what: &str) -> Result<*mut u8, Error> {
        if !allowed {
            return Err(Error::NotHostAccessible {
                what: "the array",
                reason: format!(
                    "its access type {:?} does not let the host {what} it; create it with \
                     Array::new_with_access and AccessType::ReadWrite, or use to_vec / \
                     copy_from_slice",
                    self.access
                ),
            });
        }
        let p = match &self.storage {
            Storage::Device(b) => b.host_ptr()?,
            Storage::Host(h) => Some(h.as_ptr()),
        };
        let p = p.ok_or_else(|| Error::NotHostAccessible {
            what: "the array",
            reason: "its memory is not host-visible on this device (or AMP_FORCE_STAGING=1 is \
                     set); use to_vec / copy_from_slice"
                .into(),
        })?;
        if !(p as usize).is_multiple_of(std::mem::align_of::<T>()) {
            return Err(Error::NotHostAccessible {
                what: "the array",
                reason: "its mapping is not aligned for the element type; use to_vec".into(),
            });
        }
        Ok(p)
    }

    /// A read-only view of the whole array (C++ AMP's `array_view(array)`): kernels use the
    /// array's buffer, nothing is copied.
    pub fn view(&self) -> ArrayView<'_, T, N> {
        ArrayView::from_shared(self.shared(), Layout::dense(self.extent))
    }

    /// A writable view of the whole array; kernels write the array's buffer.
    pub fn view_mut(&mut self) -> ArrayViewMut<'_, T, N> {
        ArrayViewMut::from_shared(self.shared(), Layout::dense(self.extent))
    }

    /// A read-only view of the elements from `origin` spanning `extent` (C++ AMP's
    /// `array::section`); zero-copy. Errors: [`Error::SectionOutOfBounds`].
    pub fn section(
        &self,
        origin: impl Into<Index<N>>,
        extent: impl Into<Extent<N>>,
    ) -> Result<ArrayView<'_, T, N>, Error> {
        let layout = Layout::dense(self.extent).section(origin.into().as_array(), extent.into())?;
        Ok(ArrayView::from_shared(self.shared(), layout))
    }

    /// A writable view of the elements from `origin` spanning `extent`; zero-copy.
    /// Errors: [`Error::SectionOutOfBounds`].
    pub fn section_mut(
        &mut self,
        origin: impl Into<Index<N>>,
        extent: impl Into<Extent<N>>,
    ) -> Result<ArrayViewMut<'_, T, N>, Error> {
        let layout = Layout::dense(self.extent).section(origin.into().as_array(), extent.into())?;
        Ok(ArrayViewMut::from_shared(self.shared(), layout))
    }

    fn shared(&self) -> Arc<Shared> {
        Shared::array(self.storage.clone(), self.acc.clone())
    }

    /// The memory (for `copy`).
    pub(crate) fn storage(&self) -> &Storage {
        &self.storage
    }

    /// A zero-filled array on the default accelerator.
    pub fn new(extent: impl Into<Extent<N>>) -> Result<Self, Error> {
        Self::new_on(&Accelerator::default()?, extent)
    }

    /// A zero-filled array on `acc`.
    pub fn new_on(acc: &Accelerator, extent: impl Into<Extent<N>>) -> Result<Self, Error> {
        Self::new_with_access(acc, extent, AccessType::Auto)
    }

    /// An array on `acc` whose contents are unspecified (natively zeros or the bytes of an
    /// array freed earlier, never uninitialized memory; on a Vulkan device what its memory
    /// held), for an output a launch writes entirely before
    /// anything reads it (C++20's `make_unique_for_overwrite`): it skips the zero fill, and on
    /// the native accelerator a reused block costs nothing at all. The library's algorithms
    /// use it for their temporaries.
    #[doc(hidden)]
    pub fn new_for_overwrite_on(
        acc: &Accelerator,
        extent: impl Into<Extent<N>>,
    ) -> Result<Self, Error> {
        // `bool`s hold only the bytes 0 and 1: theirs are zeroed.
        let fill = if crate::scalar::is_bool::<T>() {
            Fill::Zero
        } else {
            Fill::Overwritten
        };
        Self::alloc(acc, extent.into(), AccessType::Auto, fill)
    }

    /// An array on the default accelerator holding a copy of `data` (row-major).
    pub fn from_slice(extent: impl Into<Extent<N>>, data: &[T]) -> Result<Self, Error> {
        Self::from_slice_on(&Accelerator::default()?, extent, data)
    }

    /// An array on `acc` holding a copy of `data` (row-major).
    ///
    /// Errors: [`Error::ExtentMismatch`] when the extent's element count differs from
    /// `data.len()`, plus those of [`Array::new_on`].
    pub fn from_slice_on(
        acc: &Accelerator,
        extent: impl Into<Extent<N>>,
        data: &[T],
    ) -> Result<Self, Error> {
        let extent = extent.into();
        match extent.checked_size() {
            Some(n) if n == data.len() => {}
            n => {
                return Err(Error::ExtentMismatch {
                    extent: n.unwrap_or(usize::MAX),
                    len: data.len(),
                })
            }
        }
        let a = Self::alloc(acc, extent, AccessType::Auto, Fill::Overwritten)?;
        a.storage.write_at(0, crate::scalar::as_bytes(data))?;
        Ok(a)
    }

    /// The array's extent.
    pub fn extent(&self) -> Extent<N> {
        self.extent
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always `false`: arrays have at least one element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The accelerator the array lives on.
    pub fn accelerator(&self) -> &Accelerator {
        &self.acc
    }

    /// The element at `idx` (read from the device: waits for the launches that write the
    /// array), or `Ok(None)` when `idx` is out of bounds. Reads one element; use
    /// [`to_vec`](Self::to_vec) for many.
    pub fn get(&self, idx: impl Into<Index<N>>) -> Result<Option<T>, Error> {
        self.view().try_get(idx)
    }

    /// Sets the element at `idx` to `value` (written to the device). Errors:
    /// [`Error::SectionOutOfBounds`] when `idx` is out of bounds.
    pub fn set(&mut self, idx: impl Into<Index<N>>, value: T) -> Result<(), Error> {
        self.view_mut().set(idx, value)
    }

    /// Copies the contents to a new `Vec` (row-major).
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        let mut v = vec![crate::scalar::zeroed::<T>(); self.len];
        self.copy_to_slice(&mut v)?;
        Ok(v)
    }

    /// Copies the contents into `out`, whose length must equal the element count.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<(), Error> {
        if out.len() != self.len {
            return Err(Error::MismatchedLengths {
                operation: "copy_to_slice",
                first_name: "the array",
                first: self.len,
                second_name: "the slice",
                second: out.len(),
            });
        }
        self.storage.read_at(0, crate::scalar::as_bytes_mut(out))
    }

    /// Overwrites the contents with `data`, whose length must equal the element count.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.len {
            return Err(Error::MismatchedLengths {
                operation: "copy_from_slice",
                first_name: "the array",
                first: self.len,
                second_name: "the slice",
                second: data.len(),
            });
        }
        self.storage.write_at(0, crate::scalar::as_bytes(data))
    }

    /// A deep copy on the same accelerator with the same access type (copied device to
    /// device; C++ AMP's array copy constructor).
    pub fn try_clone(&self) -> Result<Self, Error> {
        let copy = Self::alloc(&self.acc, self.extent, self.access, Fill::Overwritten)?;
        match (&self.storage, &copy.storage) {
            (Storage::Device(from), Storage::Device(to)) => from.copy_to(0, to, 0, from.size())?,
            (Storage::Host(from), Storage::Host(to)) => {
                // SAFETY: two distinct allocations of the same size.
                unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_ptr(), from.size()) }
            }
            _ => copy
                .storage
                .write_at(0, crate::scalar::as_bytes(&self.to_vec()?))?,
        }
        Ok(copy)
    }

    /// A deep copy on another accelerator (C++ AMP's `array(array, accelerator_view)`).
    pub fn try_clone_to(&self, acc: &Accelerator) -> Result<Self, Error> {
        if *acc == self.acc {
            return self.try_clone();
        }
        Self::from_slice_on(acc, self.extent, &self.to_vec()?)
    }
}

impl<T: DeviceElement, const N: usize> fmt::Debug for Array<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Array")
            .field("extent", &self.extent)
            .field("accelerator", &self.acc.name())
            .field("access", &self.access)
            .finish()
    }
}

impl<T: DeviceElement, const N: usize> BufferAccess for Array<T, N> {
    fn elem(&self) -> ElemType {
        T::ELEM
    }
    fn dims(&self) -> &[usize] {
        self.extent.as_slice()
    }
    fn home(&self) -> Option<&Accelerator> {
        Some(&self.acc)
    }
    fn prepare(
        &self,
        acc: &Accelerator,
        _queue: &Arc<crate::device::Queue>,
    ) -> Result<Prepared, Error> {
        // What the array's own family would answer, without making one per launch.
        prepare_array(&self.storage, &self.acc, acc)
    }
    fn mark_written(&self, _acc: &Accelerator) {}
    fn prepare_native(&self, acc: &Accelerator) -> Result<NativePrepared, Error> {
        self.shared().prepare_native(acc)
    }
    fn mark_written_native(&self) {}
}

impl<T: DeviceElement, const N: usize> DeviceBuffer for Array<T, N> {}
impl<T: DeviceElement, const N: usize> DeviceBufferMut for Array<T, N> {}
