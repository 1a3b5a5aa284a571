//! The execution layer: kernel calls and their domains ([`KernelCall`], [`TiledKernelCall`],
//! [`ComputeDomain`], the tiled model in `tiled`), argument encoding, the launch grid,
//! pipelines and the per-device pipeline cache, the out-of-bounds report of checked kernels,
//! [`parallel_for_each`] and [`RawKernel`].
//!
//! The top layer: builds on `data`, `memory` and `device`; nothing in the crate builds on it.

mod args;
mod bounds;
mod cache;
mod call;
mod checks;
mod executor;
mod float_controls;
mod grid;
mod launch;
mod native;
mod pipeline;
mod plan;
mod raw;
mod subgroup;
mod tiled;

pub use call::{ComputeDomain, KernelArg, KernelCall, TiledKernelCall};
#[doc(hidden)]
pub use executor::{NativeCode, NativeLaunch};
pub use launch::{parallel_for_each, parallel_for_each_on};
#[doc(hidden)]
pub use plan::launch_plan_counts;
pub use raw::{RawBinding, RawKernel};
pub use subgroup::{Subgroup, SubgroupNumber};
pub use tiled::{TileBarrier, TiledExtent, TiledIndex, MAX_TILE_THREADS};
