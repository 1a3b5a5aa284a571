#![doc = include_str!("../README.md")]
//!
//! Kernels are written with `#[kernel(amp)]` through the `amp` facade, which most users
//! depend on instead:
//!
//! ```ignore
//! let a = ArrayView::new([5], &a_vec)?;
//! let mut sum = ArrayViewMut::new([5], &mut out)?;
//! sum.discard_data();
//! parallel_for_each(sum.extent(), add(&a, &b, &mut sum))?;
//! sum.synchronize()?;
//! ```
//!
//! - [`Accelerator`]: a Vulkan device (one logical device per physical device per process) or
//!   the native CPU accelerator; [`AcceleratorView`]: a queue on one.
//! - [`ArrayView`] / [`ArrayViewMut`]: views of host slices or arrays, made current on the
//!   device on demand (zero-copy where the host shares device memory); sections, projections,
//!   `view_as`, `reinterpret_as` (see `docs/data-model.md`).
//! - [`Array`]: data that lives on one device; host access per [`AccessType`].
//! - [`copy`] / [`copy_async`]: between arrays, views and host slices.
//! - [`parallel_for_each`]: runs a [`KernelCall`] over an [`Extent`], or a [`TiledKernelCall`]
//!   over a [`TiledExtent`] (C++ AMP's tiled model: [`TiledIndex`], `tile_static`, barriers).
//! - [`Texture`], [`TextureView`], [`WriteonlyTextureView`] and [`Sampler`]: C++ AMP's graphics
//!   library (see `docs/textures.md`).
//! - [`RawKernel`]: hand-written SPIR-V with an explicit grid.
//!
//! Environment: each setting is read once, at the first use that needs it, and each has a
//! method of [`Config`], which wins over the environment when applied before that use. Every
//! setting is checked when an accelerator is made; a value outside its kind's grammar (a flag
//! is `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off`, empty) is
//! [`Error::InvalidSetting`]. The table of settings is `amp_abi::settings::SETTINGS`.
//! - `AMP_DEVICE=<value>`: the default accelerator, `cpu` (the native one), `vulkan` (the
//!   preferred Vulkan device), a case-insensitive part of a device's name or an
//!   [`Accelerator::device_path`]; unset, a GPU, else the native CPU accelerator (see
//!   [`Accelerator::default`]).
//! - `AMP_CPU_THREADS=<n>`: the threads of the native CPU accelerator's pool (default: every
//!   core).
//! - `AMP_VULKAN_LIBRARY=<path>`: the Vulkan loader library to load instead of the system's.
//! - `AMP_VALIDATION=1`: the Khronos validation layer with synchronization validation (see
//!   [`validation_message_count`]).
//! - `AMP_SYNC_LAUNCHES=1`: every launch waits for its work before returning.
//! - `AMP_LAUNCH_TIMEOUT_MS=<n>`: the per-launch timeout of new accelerator views, in
//!   milliseconds (default 60,000; `0`: none; see [`AcceleratorView::set_timeout`]).
//! - `AMP_FORCE_STAGING=1`: no zero-copy: host slices are copied, [`AccessType::Auto`] arrays
//!   stay in device memory and transfers go through staging buffers.
//! - `AMP_SIMULATE_DISCRETE=1`: every Vulkan device behaves as a discrete GPU (data in device
//!   memory, non-coherent mappings, a GPU's limits).
//! - `AMP_FORCE_EXACT_PATHS=1`: every `f32` division and square root takes the path that
//!   corrects an imprecise device result, and every normalized texel read the path that
//!   recovers its code, even on a device that needs neither (for tests).
//! - `AMP_PACKED_SMALL_INTS=1`: `bool`, `i8`, `u8`, `i16` and `u16` view elements stay packed in
//!   32-bit words even on devices with 8- and 16-bit storage (for tests).
//! - `AMP_PIPELINE_ROBUSTNESS=<mode>`: which pipelines run without the device's robust buffer
//!   access: `default`, `checked-off`, `on` or `off` (see [`Robustness`]).
//! - `AMP_VECTOR_ACCESS=0`: simple kernels run one index per step with 4-byte accesses, also
//!   where every access of their views is the thread's own element (by default four indices
//!   per step with 16-byte loads and stores there).
//! - `AMP_DEVICE_COPY=<mode>`: how `amp::copy` copies between two arrays on one Vulkan device:
//!   `auto`, `driver` or `kernel` (see [`DeviceCopy`]).
//! - `AMP_PIPELINE_CACHE=<dir>`: where compiled pipelines are kept between runs (default
//!   `$XDG_CACHE_HOME/amp-rs`, else `~/.cache/amp-rs`; `0`: not on disk).
//!
//! (`AMP_DUMP_SPIRV`, `AMP_DUMP_NATIVE` and `AMP_REPORT` are read at build time by the
//! `#[kernel(amp)]` macro, not by this crate.)
//!
//! Threads: [`Accelerator`], [`AcceleratorView`], [`Array`], [`ArrayView`], [`ArrayViewMut`],
//! [`RawKernel`] and kernels' metadata are `Send` and `Sync` (checked at compile time), so
//! kernels can be launched from several host threads at once.
#![deny(missing_docs)]

mod config;
mod data;
mod device;
mod dims;
mod error;
mod exec;
mod extent;
#[cfg(feature = "fault-injection")]
pub mod fault;
#[cfg(not(feature = "fault-injection"))]
mod fault;
mod kernel;
mod memory;
mod normalized;
mod numeric;
mod outer_const;
mod scalar;
pub mod short_vector;
mod sync;
mod texture;

/// What the native back end's generated code names: the support crate, and the reads of
/// constants that need the runtime's types.
#[doc(hidden)]
pub mod native_rt {
    pub use crate::outer_const::outer_const_len;
    pub use amp_native_rt::*;
}
pub use config::{Config, DeviceCopy, Robustness, KERNEL_COPY_MIN_BYTES};
#[doc(hidden)]
pub use data::{__completion_of_writes, __same_device_arrays, DeviceBuffer, DeviceBufferMut};
pub use data::{
    copy, copy_async, transfer_stats, AccessType, Array, ArrayView, ArrayViewMut, CompletionFuture,
    CopyDestination, CopySource, TransferStats,
};
pub use device::{
    live_object_counts, validation_enabled, validation_message_count, Accelerator, AcceleratorView,
    DeviceType, KernelTime, LaunchShape, LaunchTarget, Limits, ObjectCounts, ShapeTime, TunedShape,
};
pub use error::{Error, SettingSource, SplitError, VulkanResult};
#[doc(hidden)]
pub use exec::{launch_plan_counts, NativeCode, NativeLaunch};
pub use exec::{
    parallel_for_each, parallel_for_each_on, ComputeDomain, KernelArg, KernelCall, RawBinding,
    RawKernel, Subgroup, SubgroupNumber, TileBarrier, TiledExtent, TiledIndex, TiledKernelCall,
    MAX_TILE_THREADS,
};
pub use extent::{Extent, Index};
#[doc(hidden)]
pub use kernel::{
    layout_fact, KernelInfo, ParamInfo, ParamKind, Shape, SpirvBytes, TextureAccess,
    LAYOUT_SPEC_ID_BASE, OOB_REPORT_WORDS,
};
pub use kernel::{ElemType, ScalarType};
pub use normalized::{
    norm, norm_2, norm_3, norm_4, unorm, unorm_2, unorm_3, unorm_4, Norm, Norm2, Norm3, Norm4,
    Unorm, Unorm2, Unorm3, Unorm4,
};
#[doc(hidden)]
pub use numeric::is_scalar;
pub use numeric::{DeviceFloat, DeviceInt, DeviceScalar};
#[doc(hidden)]
pub use outer_const::{fits_u32, outer_const, outer_const_len, OuterConstValue};
pub use scalar::assert_device_field;
#[doc(hidden)]
pub use scalar::sealed::Sealed as DeviceStructSeal;
pub use scalar::{DeviceElement, ScalarArg};
pub use short_vector::{
    double_2, double_3, double_4, float_2, float_3, float_4, int_2, int_3, int_4, uint_2, uint_3,
    uint_4, Double2, Double3, Double4, Float2, Float3, Float4, Int2, Int3, Int4, UInt2, UInt3,
    UInt4,
};
#[cfg(feature = "image-files")]
pub use texture::ImageTexel;
pub use texture::{
    AddressMode, Filter, Sampler, Texel, TexelKind, Texture, TextureView, WriteonlyTextureView,
};

/// Compile-time proof that the types C++ AMP lets several threads share are `Send + Sync`.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Accelerator>();
    assert_send_sync::<AcceleratorView>();
    assert_send_sync::<Array<f32, 2>>();
    assert_send_sync::<ArrayView<'static, f32, 2>>();
    assert_send_sync::<ArrayViewMut<'static, f32, 2>>();
    assert_send_sync::<KernelInfo>();
    assert_send_sync::<RawKernel>();
    assert_send_sync::<Error>();
    assert_send_sync::<Limits>();
    assert_send_sync::<Texture<Float4, 2>>();
    assert_send_sync::<TextureView<Float4, 2>>();
    assert_send_sync::<WriteonlyTextureView<Float4, 2>>();
    assert_send_sync::<Sampler>();
};
