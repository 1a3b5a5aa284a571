//! The amp-rs runtime: accelerators, arrays, views and kernel launches on Vulkan.
//!
//! Most users reach this crate through the `amp` facade:
//!
//! ```ignore
//! let a = ArrayView::new([5], &a_vec)?;
//! let mut sum = ArrayViewMut::new([5], &mut out)?;
//! sum.discard_data();
//! parallel_for_each(sum.extent(), add(&a, &b, &mut sum))?;
//! sum.synchronize()?;
//! ```
//!
//! - [`Accelerator`]: a Vulkan device (one logical device per physical device per process).
//! - [`ArrayView`] / [`ArrayViewMut`]: views of host slices, copied to the device on demand.
//! - [`Array`]: data that lives on one device.
//! - [`parallel_for_each`]: runs a [`KernelCall`] over an [`Extent`], or a [`TiledKernelCall`]
//!   over a [`TiledExtent`] (C++ AMP's tiled model: [`TiledIndex`], `tile_static`, barriers).
//! - [`RawKernel`]: hand-written SPIR-V with an explicit grid.
//!
//! Environment: `AMP_DEVICE=<substring>` picks the default device by name;
//! `AMP_VALIDATION=1` enables the Khronos validation layer (see
//! [`validation_message_count`]).
#![deny(missing_docs)]

mod accelerator;
mod array;
mod bounds;
mod buffer_access;
mod error;
mod extent;
mod instance;
mod kernel;
mod launch;
mod memory;
mod pipeline;
mod scalar;
mod tiled;
mod view;

pub use accelerator::{Accelerator, DeviceType, Limits};
pub use array::Array;
#[doc(hidden)]
pub use buffer_access::{DeviceBuffer, DeviceBufferMut};
pub use error::Error;
pub use extent::{Extent, Index};
pub use instance::{validation_enabled, validation_message_count};
pub use kernel::ScalarType;
#[doc(hidden)]
pub use kernel::{KernelInfo, ParamInfo, ParamKind, OOB_REPORT_WORDS};
pub use launch::{
    parallel_for_each, parallel_for_each_on, ComputeDomain, KernelArg, KernelCall, RawKernel,
    TiledKernelCall,
};
pub use scalar::{DeviceScalar, ScalarArg};
pub use tiled::{TileBarrier, TiledExtent, TiledIndex, MAX_TILE_THREADS};
pub use view::{ArrayView, ArrayViewMut};
