//! Views over host data: [`ArrayView`] (read-only) and [`ArrayViewMut`].

use std::fmt;
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::accelerator::{lock, DeviceShared};
use crate::buffer_access::{BufferAccess, DeviceBuffer, DeviceBufferMut};
use crate::kernel::ElemType;
use crate::memory::Buffer;
use crate::{Accelerator, DeviceScalar, Error, Extent, Index};

fn byte_len<T>(len: usize) -> u64 {
    (len as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

fn check_extent<const N: usize>(extent: &Extent<N>, len: usize) -> Result<(), Error> {
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

fn on_device(b: &Buffer, device: &Arc<DeviceShared>) -> bool {
    Arc::ptr_eq(b.device(), device)
}

/// A read-only view of host data as an N-dimensional array (C++ AMP's
/// `array_view<const T, N>`).
///
/// The data is copied to a device the first time a kernel launched there reads the view, and
/// that copy is reused by later launches. The host data is always current.
///
/// ```
/// use amp_runtime::ArrayView;
/// let data = vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let v = ArrayView::new([2, 3], &data)?;
/// assert_eq!(v.extent().as_array(), [2, 3]);
/// assert_eq!(v[[1, 2]], 6.0);
/// # Ok::<(), amp_runtime::Error>(())
/// ```
pub struct ArrayView<'a, T: DeviceScalar, const N: usize> {
    data: &'a [T],
    extent: Extent<N>,
    /// At most one copy per device; all of them current (the data cannot change).
    copies: Mutex<Vec<Buffer>>,
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
        Ok(ArrayView {
            data,
            extent,
            copies: Mutex::new(Vec::new()),
        })
    }

    /// The view's extent.
    pub fn extent(&self) -> Extent<N> {
        self.extent
    }

    /// The host data, row-major.
    pub fn data(&self) -> &'a [T] {
        self.data
    }

    /// The element at `idx`, or `None` when it is out of bounds.
    pub fn get(&self, idx: impl Into<Index<N>>) -> Option<&'a T> {
        self.extent
            .linear(&idx.into().as_array())
            .map(|i| &self.data[i])
    }
}

impl<T: DeviceScalar, const N: usize> fmt::Debug for ArrayView<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayView")
            .field("extent", &self.extent)
            .field("data", &self.data)
            .finish()
    }
}

impl<T: DeviceScalar, const N: usize> std::ops::Index<Index<N>> for ArrayView<'_, T, N> {
    type Output = T;
    /// Panics when `idx` is out of bounds.
    fn index(&self, idx: Index<N>) -> &T {
        &self[idx.as_array()]
    }
}

impl<T: DeviceScalar, const N: usize> std::ops::Index<[usize; N]> for ArrayView<'_, T, N> {
    type Output = T;
    /// Panics when `idx` is out of bounds.
    fn index(&self, idx: [usize; N]) -> &T {
        match self.extent.linear(&idx) {
            Some(i) => &self.data[i],
            None => panic!(
                "index {} out of bounds for extent {}",
                Index::new(idx),
                self.extent
            ),
        }
    }
}

impl<T: DeviceScalar, const N: usize> BufferAccess for ArrayView<'_, T, N> {
    fn elem(&self) -> ElemType {
        T::ELEM
    }
    fn dims(&self) -> &[usize] {
        self.extent.as_slice()
    }
    fn home(&self) -> Option<Accelerator> {
        None
    }
    fn prepare(&self, acc: &Accelerator) -> Result<vk::Buffer, Error> {
        let mut copies = lock(&self.copies);
        if let Some(b) = copies.iter().find(|b| on_device(b, &acc.shared)) {
            return Ok(b.raw());
        }
        let mut b = Buffer::storage(&acc.shared, byte_len::<T>(self.data.len()))?;
        b.write(bytemuck::cast_slice(self.data))?;
        let raw = b.raw();
        copies.push(b);
        Ok(raw)
    }
    fn mark_written(&self, _acc: &Accelerator) {}
}

impl<T: DeviceScalar, const N: usize> DeviceBuffer for ArrayView<'_, T, N> {}

struct DeviceCopy {
    buffer: Buffer,
    current: bool,
}

struct MutInner<'a, T> {
    host: &'a mut [T],
    host_current: bool,
    discard: bool,
    copies: Vec<DeviceCopy>,
}

impl<T: DeviceScalar> MutInner<'_, T> {
    /// Brings the host data up to date.
    fn sync_host(&mut self) -> Result<(), Error> {
        if self.host_current {
            return Ok(());
        }
        if let Some(c) = self.copies.iter().find(|c| c.current) {
            c.buffer.read(bytemuck::cast_slice_mut(self.host))?;
        }
        self.host_current = true;
        Ok(())
    }
}

/// A writable view of host data as an N-dimensional array (C++ AMP's `array_view<T, N>`).
///
/// Launches copy the host data to the device when the device copy is out of date (unless
/// [`discard_data`](Self::discard_data) was called); a launch that writes the view makes the
/// device copy the newer one, and [`synchronize`](Self::synchronize) (or dropping the view)
/// copies it back into the host slice.
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
    extent: Extent<N>,
    inner: Mutex<MutInner<'a, T>>,
}

impl<'a, T: DeviceScalar, const N: usize> ArrayViewMut<'a, T, N> {
    /// A writable view of `data` with the given extent.
    ///
    /// Errors as for [`ArrayView::new`].
    pub fn new(extent: impl Into<Extent<N>>, data: &'a mut [T]) -> Result<Self, Error> {
        let extent = extent.into();
        check_extent(&extent, data.len())?;
        Ok(ArrayViewMut {
            extent,
            inner: Mutex::new(MutInner {
                host: data,
                host_current: true,
                discard: false,
                copies: Vec::new(),
            }),
        })
    }

    /// The view's extent.
    pub fn extent(&self) -> Extent<N> {
        self.extent
    }

    /// Declares the current contents irrelevant: the next launch does not copy the host data
    /// to the device (use it for pure outputs).
    pub fn discard_data(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        inner.discard = true;
        inner.host_current = true;
        for c in &mut inner.copies {
            c.current = false;
        }
    }

    /// Copies the device results back into the host slice if a launch wrote them.
    pub fn synchronize(&mut self) -> Result<(), Error> {
        self.inner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .sync_host()
    }

    /// Declares that the host data changed outside the view: the next launch copies it to
    /// the device again.
    pub fn refresh(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        inner.host_current = true;
        for c in &mut inner.copies {
            c.current = false;
        }
    }

    /// The host data, synchronized first.
    pub fn data(&mut self) -> Result<&[T], Error> {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        inner.sync_host()?;
        Ok(inner.host)
    }

    /// The host data for writing, synchronized first; the next launch copies it to the device.
    pub fn data_mut(&mut self) -> Result<&mut [T], Error> {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        inner.sync_host()?;
        for c in &mut inner.copies {
            c.current = false;
        }
        Ok(inner.host)
    }

    /// The element at `idx` (synchronized first), or `Ok(None)` when it is out of bounds.
    pub fn get(&mut self, idx: impl Into<Index<N>>) -> Result<Option<T>, Error> {
        let i = self.extent.linear(&idx.into().as_array());
        let data = self.data()?;
        Ok(i.map(|i| data[i]))
    }
}

impl<T: DeviceScalar, const N: usize> Drop for ArrayViewMut<'_, T, N> {
    fn drop(&mut self) {
        let _ = self.synchronize();
    }
}

impl<T: DeviceScalar, const N: usize> fmt::Debug for ArrayViewMut<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayViewMut")
            .field("extent", &self.extent)
            .finish_non_exhaustive()
    }
}

impl<T: DeviceScalar, const N: usize> BufferAccess for ArrayViewMut<'_, T, N> {
    fn elem(&self) -> ElemType {
        T::ELEM
    }
    fn dims(&self) -> &[usize] {
        self.extent.as_slice()
    }
    fn home(&self) -> Option<Accelerator> {
        None
    }
    fn prepare(&self, acc: &Accelerator) -> Result<vk::Buffer, Error> {
        let mut guard = lock(&self.inner);
        let inner = &mut *guard;
        let i = match inner
            .copies
            .iter()
            .position(|c| on_device(&c.buffer, &acc.shared))
        {
            Some(i) => i,
            None => {
                let buffer = Buffer::storage(&acc.shared, byte_len::<T>(inner.host.len()))?;
                inner.copies.push(DeviceCopy {
                    buffer,
                    current: false,
                });
                inner.copies.len() - 1
            }
        };
        if !inner.copies[i].current {
            if !inner.discard {
                inner.sync_host()?;
                inner.copies[i]
                    .buffer
                    .write(bytemuck::cast_slice(inner.host))?;
            }
            inner.copies[i].current = true;
        }
        inner.discard = false;
        Ok(inner.copies[i].buffer.raw())
    }
    fn mark_written(&self, acc: &Accelerator) {
        let mut inner = lock(&self.inner);
        inner.host_current = false;
        for c in &mut inner.copies {
            c.current = on_device(&c.buffer, &acc.shared);
        }
    }
}

impl<T: DeviceScalar, const N: usize> DeviceBuffer for ArrayViewMut<'_, T, N> {}
impl<T: DeviceScalar, const N: usize> DeviceBufferMut for ArrayViewMut<'_, T, N> {}
