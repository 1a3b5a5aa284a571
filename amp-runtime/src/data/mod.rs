//! The data layer: [`Array`] (data on one device), [`ArrayView`] / [`ArrayViewMut`] (views of
//! host slices or arrays, with their shared coherence state and layouts), [`copy`] /
//! [`copy_async`] with their [`CompletionFuture`], and [`BufferAccess`], what a launch needs
//! from a kernel buffer argument.
//!
//! Builds on `memory` and `device`; `exec` builds on it.

mod access;
mod array;
mod copy;
mod future;
mod layout;
#[cfg(feature = "ndarray")]
mod nd;
mod shared;
mod storage;
mod view;

pub(crate) use access::{BufferAccess, NativePrepared, Prepared};
pub use access::{DeviceBuffer, DeviceBufferMut};
pub use array::{AccessType, Array};
pub use copy::{
    __completion_of_writes, __same_device_arrays, copy, copy_async, CopyDestination, CopySource,
};
pub use future::CompletionFuture;
pub use shared::{transfer_stats, TransferStats};
pub use view::{ArrayView, ArrayViewMut};
