//! Parallel algorithms written in the kernel language: reductions, scans and sorts, for any
//! length, on the accelerator the data lives on (C++ AMP's Algorithms Library; Thrust and CUB
//! for CUDA users).
//!
//! ```no_run
//! use amp::prelude::*;
//!
//! # fn main() -> Result<(), amp::Error> {
//! let data: Vec<f32> = (0..1_000_000).map(|i| (i % 7) as f32).collect();
//! let view = ArrayView::new([data.len()], &data)?;
//! let total = amp::algorithms::sum(&view)?;
//! let smallest = amp::algorithms::min(&view)?;
//!
//! let mut prefix = vec![0.0f32; data.len()];
//! let mut out = ArrayViewMut::new([data.len()], &mut prefix)?;
//! amp::algorithms::inclusive_scan(&view, &mut out)?;
//!
//! let mut keys = Array::from_slice([4], &[3u32, 1, 2, 0])?;
//! amp::algorithms::sort(&mut keys.view_mut())?;
//! assert_eq!(keys.to_vec()?, [0, 1, 2, 3]);
//! # Ok(()) }
//! ```
//!
//! Every function works on views: of host data (used in place) or of an [`Array`]
//! ([`Array::view`], [`Array::view_mut`]), whose accelerator then runs the work; views of host
//! data run on the default accelerator. The designs and the measured numbers are in
//! `docs/algorithms.md`.
//!
//! - Reductions ([`sum`], [`min`], [`max`]) and scans ([`inclusive_scan`],
//!   [`exclusive_scan`]) combine in a tree, not left to right: integer sums wrap (as
//!   everywhere on the device), float sums may round differently from a sequential loop.
//! - Sorts ([`sort`], [`sort_by_key`]) are LSD radix sorts: ascending, floats in IEEE total
//!   order for `-0.0 < +0.0` and the infinities, NaNs last; `sort_by_key` is stable.

mod reduce;
mod scan;
mod sort;

pub use reduce::{max, min, sum};
pub use scan::{exclusive_scan, inclusive_scan};
pub use sort::{sort, sort_by_key};

#[cfg(doc)]
use crate::Array;
use crate::{Accelerator, ArrayView, DeviceElement, Error};

/// Threads per tile of every algorithm kernel.
const TILE: usize = 256;
/// Elements per thread of a block.
const ITEMS: usize = 8;
/// Elements per block: what one tile processes.
const BLOCK: usize = TILE * ITEMS;
/// The most tiles one launch has (Vulkan guarantees 65535 workgroups per dimension); larger
/// inputs take several launches, each starting at a later block.
const MAX_TILES_PER_LAUNCH: usize = 65535;

/// The accelerator a view's data lives on, or the default one for host data.
fn accelerator_of<T: DeviceElement, const N: usize>(
    view: &ArrayView<'_, T, N>,
) -> Result<Accelerator, Error> {
    match view.accelerator() {
        Some(acc) => Ok(acc),
        None => Accelerator::default(),
    }
}

/// The number of blocks of `n` elements, and the launches (first block, tiles) that cover them.
fn launches(blocks: usize) -> impl Iterator<Item = (u32, usize)> {
    (0..blocks)
        .step_by(MAX_TILES_PER_LAUNCH)
        .map(move |first| (first as u32, (blocks - first).min(MAX_TILES_PER_LAUNCH)))
}
