//! What a launch needs from a view or array passed to a kernel: the sealed [`BufferAccess`]
//! trait (the interface between the `data` and `exec` layers).

use std::sync::Arc;

use ash::vk;

use crate::device::{Accelerator, Queue};
use crate::kernel::ElemType;
use crate::memory::{Buffer, HostMemory};
use crate::Error;

mod sealed {
    use super::*;

    /// A buffer argument made ready for a launch by [`BufferAccess::prepare`].
    pub struct Prepared {
        /// The range to bind.
        pub(crate) info: vk::DescriptorBufferInfo,
        /// The buffer, kept alive by the launch's batch.
        pub(crate) buffer: Arc<Buffer>,
        /// The buffer is borrowed host memory used in place (imported): the launch must finish
        /// before the borrow can end.
        pub(crate) in_place: bool,
        /// The launch may write the buffer (true unless the kernel's parameter is read-only):
        /// a launch that only reads what earlier ones read needs no barrier after them.
        pub(crate) writes: bool,
    }

    /// A buffer argument made ready for a native launch by [`BufferAccess::prepare_native`]:
    /// host memory the kernel uses in place.
    pub struct NativePrepared {
        /// The first byte of the memory the view's offset and strides count from.
        pub(crate) ptr: *mut u8,
        /// Bytes from `ptr` the view may reach.
        pub(crate) len: usize,
        /// The array memory, kept alive for the launch.
        pub(crate) _keep: Option<Arc<HostMemory>>,
    }

    /// The runtime's view of a kernel buffer argument.
    pub trait BufferAccess {
        /// Element type.
        fn elem(&self) -> ElemType;
        /// Extent, one entry per dimension.
        fn dims(&self) -> &[usize];
        /// Element offset of the view's first element in the buffer [`prepare`] returns
        /// (non-zero for sections and projections).
        ///
        /// [`prepare`]: BufferAccess::prepare
        fn offset(&self) -> usize {
            0
        }
        /// Element strides of every dimension but the last (whose stride is 1); row-major
        /// strides of [`dims`](BufferAccess::dims) unless the view is a section.
        fn strides(&self) -> Vec<usize> {
            let dims = self.dims();
            (0..dims.len().saturating_sub(1))
                .map(|d| dims[d + 1..].iter().product())
                .collect()
        }
        /// The accelerator the data is bound to, if any (an [`Array`](crate::Array)).
        fn home(&self) -> Option<&Accelerator>;
        /// Makes the device copy on `acc` current for a launch on `queue` (an upload is
        /// recorded there, ahead of the launch) and returns it with the range to bind: the
        /// whole buffer, or exactly the host slice when the buffer is imported host memory
        /// (which starts before the slice).
        fn prepare(&self, acc: &Accelerator, queue: &Arc<Queue>) -> Result<Prepared, Error>;
        /// Records that a launch on `acc` wrote the buffer the latest `prepare` returned.
        fn mark_written(&self, acc: &Accelerator);
        /// Makes the host memory current for a launch on the native CPU accelerator `acc`
        /// and returns it ([`Error::AcceleratorMismatch`] for an array on another one).
        fn prepare_native(&self, acc: &Accelerator) -> Result<NativePrepared, Error>;
        /// Records that a native launch wrote the host memory.
        fn mark_written_native(&self);
    }
}

pub(crate) use sealed::{BufferAccess, NativePrepared, Prepared};

/// Something a kernel can read as a buffer: [`ArrayView`](crate::ArrayView),
/// [`ArrayViewMut`](crate::ArrayViewMut) or [`Array`](crate::Array). Sealed.
#[doc(hidden)]
pub trait DeviceBuffer: BufferAccess {}

/// Something a kernel can write as a buffer: [`ArrayViewMut`](crate::ArrayViewMut) or
/// [`Array`](crate::Array) (not the read-only [`ArrayView`](crate::ArrayView)). Sealed.
#[doc(hidden)]
pub trait DeviceBufferMut: DeviceBuffer {}
