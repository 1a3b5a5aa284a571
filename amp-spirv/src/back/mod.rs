//! The back ends: what turns a checked [`Kernel`] into something a device
//! runs.
//!
//! A back end takes the kernel, its launch-parameter [`Layout`] and the [`BoundsChecks`] mode,
//! and honours the same contract with the runtime whatever it produces: the parameters where the
//! layout puts them, the layout facts, and the out-of-bounds report ([`OOB_REPORT_WORDS`] words
//! at [`report_binding`]). Those shared pieces live here; each back end has its own folder:
//!
//! - [`spv`]: SPIR-V 1.3 words for a Vulkan compute pipeline.
//! - [`native`]: Rust source for one thread of the kernel, for a CPU executor.

mod layout;
pub mod native;
pub(crate) mod plan;
pub mod spv;

pub use layout::{Layout, ParamSlot};
pub use spv::emit;
pub(crate) use spv::quads::QuadForm;

use crate::ir::{Kernel, ParamKind};

/// Whether buffer accesses are checked against the buffer's extent on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsChecks {
    /// Every view and array access compares its index with the extent: out-of-bounds reads
    /// yield zero, writes and atomics are skipped, and the first such access is recorded in the
    /// out-of-bounds report buffer (see [`OOB_REPORT_WORDS`]).
    On,
    /// Accesses go straight to memory (`#[kernel(amp, unchecked)]`); out-of-bounds accesses are
    /// left to the device's `robustBufferAccess`.
    Off,
}

/// How the `f32` operations whose Vulkan precision is looser than Rust's are computed:
/// division, square root, `sin`, `cos` and `tan`. The native back end computes Rust's results
/// either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// Rust's results on every device: division and square root correctly rounded, the
    /// trigonometric functions within docs/math.md's bounds (the default).
    #[default]
    Exact,
    /// The device's own instructions, within Vulkan's precision (`#[kernel(amp, fast_math)]`):
    /// a division may be 2.5 ULP off, a sine off by 2^-11 absolute.
    Fast,
}

/// Size in `u32` words of the out-of-bounds report buffer of a checked kernel: `[flag,
/// param, rank, index[3], extent[3]]`. The first failing access sets `flag` from 0 to 1 with a
/// compare-exchange and writes the rest; unused index and extent entries are 0.
pub use amp_abi::OOB_REPORT_WORDS;

/// The binding of the kernel's report buffer: right after its buffer, texture and sampler
/// parameters, when `kernel` is compiled with bounds checks and has buffers or textures (the
/// out-of-bounds report) or its loops are `watched` for a device's loop limit
/// (the loop analysis's `Loops::watched`); `None` otherwise.
pub fn report_binding(kernel: &Kernel, checks: BoundsChecks, watched: bool) -> Option<u32> {
    let bound = kernel.params.iter().filter(|p| p.kind.is_bound()).count() as u32;
    let checked = kernel
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Buffer { .. } | ParamKind::Texture { .. }));
    (checks == BoundsChecks::On && checked || watched).then_some(bound)
}

/// Whether a kernel compiled with `checks` records out-of-bounds accesses in its report.
pub fn reports_out_of_bounds(kernel: &Kernel, checks: BoundsChecks) -> bool {
    report_binding(kernel, checks, false).is_some()
}
