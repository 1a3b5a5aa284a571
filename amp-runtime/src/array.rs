//! [`Array`]: a device-resident N-dimensional container.

use std::fmt;
use std::marker::PhantomData;

use ash::vk;

use crate::buffer_access::{BufferAccess, DeviceBuffer, DeviceBufferMut};
use crate::kernel::ElemType;
use crate::memory::Buffer;
use crate::{Accelerator, DeviceScalar, Error, Extent};

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
pub struct Array<T: DeviceScalar, const N: usize> {
    buffer: Buffer,
    extent: Extent<N>,
    len: usize,
    acc: Accelerator,
    _elem: PhantomData<T>,
}

impl<T: DeviceScalar, const N: usize> Array<T, N> {
    fn alloc(acc: &Accelerator, extent: Extent<N>) -> Result<Self, Error> {
        let len = extent.validate()?;
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let buffer = Buffer::storage(&acc.shared, bytes)?;
        Ok(Array {
            buffer,
            extent,
            len,
            acc: acc.clone(),
            _elem: PhantomData,
        })
    }

    /// A zero-filled array on the default accelerator.
    pub fn new(extent: impl Into<Extent<N>>) -> Result<Self, Error> {
        Self::new_on(&Accelerator::default()?, extent)
    }

    /// A zero-filled array on `acc`.
    pub fn new_on(acc: &Accelerator, extent: impl Into<Extent<N>>) -> Result<Self, Error> {
        let mut a = Self::alloc(acc, extent.into())?;
        a.buffer.zero()?;
        Ok(a)
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
            Some(0) => return Err(Error::ZeroExtent),
            Some(n) if n == data.len() => {}
            n => {
                return Err(Error::ExtentMismatch {
                    extent: n.unwrap_or(usize::MAX),
                    len: data.len(),
                })
            }
        }
        let mut a = Self::alloc(acc, extent)?;
        a.buffer.write(bytemuck::cast_slice(data))?;
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

    /// Copies the contents to a new `Vec` (row-major).
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        let mut v = vec![T::zeroed(); self.len];
        self.copy_to_slice(&mut v)?;
        Ok(v)
    }

    /// Copies the contents into `out`, whose length must equal the element count.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<(), Error> {
        if out.len() != self.len {
            return Err(Error::LengthMismatch {
                expected: self.len,
                actual: out.len(),
            });
        }
        self.buffer.read(bytemuck::cast_slice_mut(out))
    }

    /// Overwrites the contents with `data`, whose length must equal the element count.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch {
                expected: self.len,
                actual: data.len(),
            });
        }
        self.buffer.write(bytemuck::cast_slice(data))
    }

    /// A deep copy on the same accelerator (copied device to device).
    pub fn try_clone(&self) -> Result<Self, Error> {
        Ok(Array {
            buffer: self.buffer.try_clone()?,
            extent: self.extent,
            len: self.len,
            acc: self.acc.clone(),
            _elem: PhantomData,
        })
    }
}

impl<T: DeviceScalar, const N: usize> fmt::Debug for Array<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Array")
            .field("extent", &self.extent)
            .field("accelerator", &self.acc.name())
            .finish()
    }
}

impl<T: DeviceScalar, const N: usize> BufferAccess for Array<T, N> {
    fn elem(&self) -> ElemType {
        T::ELEM
    }
    fn dims(&self) -> &[usize] {
        self.extent.as_slice()
    }
    fn home(&self) -> Option<Accelerator> {
        Some(self.acc.clone())
    }
    fn prepare(&self, acc: &Accelerator) -> Result<vk::Buffer, Error> {
        if *acc != self.acc {
            return Err(Error::AcceleratorMismatch {
                array: self.acc.name().to_owned(),
                launch: acc.name().to_owned(),
            });
        }
        Ok(self.buffer.raw())
    }
    fn mark_written(&self, _acc: &Accelerator) {}
}

impl<T: DeviceScalar, const N: usize> DeviceBuffer for Array<T, N> {}
impl<T: DeviceScalar, const N: usize> DeviceBufferMut for Array<T, N> {}
