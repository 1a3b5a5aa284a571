//! The runtime's error type.

use ash::vk;

use crate::dims::dims_list;

/// Everything that can go wrong between a kernel call and its results.
///
/// Every fallible runtime function returns `Result<_, Error>`. The runtime panics only where
/// std's types panic too, in its operator impls on the host: indexing an
/// [`ArrayView`](crate::ArrayView) (`view[idx]`) out of bounds, on a view of an
/// [`Array`](crate::Array)'s device memory or on a reinterpreted view whose elements are not
/// aligned in host memory ([`ArrayView::get`](crate::ArrayView::get) and
/// [`ArrayView::try_get`](crate::ArrayView::try_get) do not panic); indexing an
/// [`Extent`](crate::Extent) or [`Index`](crate::Index) (`extent[d]`) with `d` past its rank;
/// and `Index` / `Extent` arithmetic, which overflows as `usize` does (a panic in debug builds)
/// and panics on a division by zero.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The Vulkan loader (`libvulkan.so.1`, `vulkan-1.dll`, ...) could not be loaded.
    #[error("the Vulkan loader could not be loaded ({0}); install a Vulkan driver (for example Mesa's lavapipe and libvulkan1)")]
    NoVulkanLoader(String),
    /// Vulkan is available but offers no device that supports Vulkan 1.1 compute.
    #[error("no Vulkan 1.1 device with a compute queue was found")]
    NoDevice,
    /// `AMP_DEVICE` or [`Accelerator::from_path`](crate::Accelerator::from_path) names no
    /// device.
    #[error("no Vulkan device matches {name:?} (set by AMP_DEVICE or Accelerator::from_path; available: {available})")]
    DeviceNotFound {
        /// The requested name (a case-insensitive substring of a name, or a device path).
        name: String,
        /// The devices that exist, comma separated (names and device paths).
        available: String,
    },
    /// An extent's element count differs from the length of the slice it describes.
    #[error("extent has {extent} elements but the data has {len}")]
    ExtentMismatch {
        /// Number of elements the extent describes.
        extent: usize,
        /// Length of the slice.
        len: usize,
    },
    /// An extent that must have elements has none: a texture's (Vulkan images have at least
    /// one texel in each dimension) or an extent of rank 0. Views, arrays, sections and launch
    /// domains may be empty.
    #[error(
        "extent has zero elements: a texture needs at least one texel in each dimension \
         (views, arrays and launches may be empty)"
    )]
    ZeroExtent,
    /// An extent, an element count or a buffer is larger than the device can address.
    #[error("{what} is too large: {value} exceeds the limit of {limit}")]
    ExtentTooLarge {
        /// What was too large.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// The device ran out of memory.
    #[error("out of device memory")]
    OutOfDeviceMemory,
    /// A kernel needs a device feature that this device does not have.
    #[error("kernel `{kernel}` needs the device feature `{capability}`, which {device} does not support")]
    MissingCapability {
        /// The kernel's name.
        kernel: String,
        /// The Vulkan feature, for example `shaderFloat64`.
        capability: &'static str,
        /// The device's name.
        device: String,
    },
    /// The launch needs more workgroups than the device can dispatch.
    #[error("the launch needs {groups} workgroups, more than the device can dispatch ({limit})")]
    TooManyWorkgroups {
        /// Workgroups needed.
        groups: u64,
        /// The most the device can dispatch.
        limit: u64,
    },
    /// A kernel's push-constant block is larger than the device allows.
    #[error(
        "kernel `{kernel}` needs {size} bytes of push constants but the device allows {limit}"
    )]
    PushConstantsTooLarge {
        /// The kernel's name.
        kernel: String,
        /// Bytes needed.
        size: u32,
        /// `maxPushConstantsSize` of the device.
        limit: u32,
    },
    /// The arguments of a kernel call do not match the kernel's parameters.
    #[error("kernel `{kernel}`: {reason}")]
    ArgumentMismatch {
        /// The kernel's name.
        kernel: String,
        /// What did not match.
        reason: String,
    },
    /// A tiled launch's extent is not a multiple of its tile in some dimension (C++ AMP's
    /// `invalid_compute_domain`).
    #[error("kernel `{kernel}`: the extent {extent} is not a multiple of the tile {tile}; launch over `.pad()` (rounds the extent up; the kernel must then skip the threads past its data) or `.truncate()` (rounds it down, leaving the rest out)")]
    NotDivisible {
        /// The kernel's name.
        kernel: String,
        /// The domain's extent, for example `[100, 60]`.
        extent: String,
        /// The tile's extent, for example `[16, 16]`.
        tile: String,
    },
    /// A tile has more threads than the device allows in one workgroup, in total or along one
    /// axis.
    #[error("kernel `{kernel}`: the tile {tile} needs {needed} threads, more than the device's {limit} ({max}); use a smaller tile")]
    TileTooLarge {
        /// The kernel's name.
        kernel: String,
        /// The tile's extent, for example `[16, 64]`.
        tile: String,
        /// The Vulkan limit exceeded: `maxComputeWorkGroupInvocations` or
        /// `maxComputeWorkGroupSize[axis]`.
        limit: &'static str,
        /// Threads needed (in total or along the axis).
        needed: u64,
        /// The device's limit.
        max: u32,
    },
    /// A tiled kernel needs more `tile_static` memory than the device has per workgroup.
    #[error("kernel `{kernel}`: a tile of {tile} needs {needed} bytes of tile_static memory but the device has {limit} (maxComputeSharedMemorySize); use a smaller tile or smaller tile_static arrays")]
    TileStaticTooLarge {
        /// The kernel's name.
        kernel: String,
        /// The tile's extent.
        tile: String,
        /// Bytes needed.
        needed: u32,
        /// `maxComputeSharedMemorySize` of the device.
        limit: u32,
    },
    /// A kernel's metadata is inconsistent (a bug in the code that produced it).
    #[error("kernel `{kernel}` is invalid: {reason}")]
    InvalidKernel {
        /// The kernel's name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// Arrays that live on different accelerators were used together.
    #[error("an Array on {array} cannot be used on {launch}")]
    AcceleratorMismatch {
        /// The accelerator the array lives on.
        array: String,
        /// The accelerator that was asked to use it.
        launch: String,
    },
    /// Two things that must have the same length do not: the inputs of an algorithm
    /// (`amp::algorithms`: `inclusive_scan`'s input and output, `sort_by_key`'s keys and values)
    /// or an array and a host slice (`Array::copy_to_slice`, `copy_from_slice`).
    #[error("{operation}: {first_name} has {first} elements but {second_name} has {second}")]
    MismatchedLengths {
        /// The operation (`inclusive_scan`, `sort_by_key`, `copy_to_slice`, ...).
        operation: &'static str,
        /// What the first is (`input`, `keys`, `the array`).
        first_name: &'static str,
        /// Its length.
        first: usize,
        /// What the second input is (`output`, `values`).
        second_name: &'static str,
        /// Its length.
        second: usize,
    },
    /// An algorithm that has no answer for no elements (`min`, `max`) got none.
    #[error("{operation} of an empty input has no answer")]
    EmptyInput {
        /// The algorithm.
        operation: &'static str,
    },
    /// A Vulkan call failed (with a result other than running out of memory or losing the
    /// device, which have their own variants).
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan function.
        call: &'static str,
        /// Its result code.
        result: VulkanResult,
    },
    /// The memory allocator failed for a reason other than running out of memory.
    #[error("device memory allocation failed: {0}")]
    Allocation(String),
    /// The device was lost (`VK_ERROR_DEVICE_LOST`: a driver crash, a GPU reset, a kernel the
    /// driver had to kill). Work in flight is gone; the accelerator cannot be used again in
    /// this process.
    #[error("the device was lost during {call}; its work and data are gone")]
    DeviceLost {
        /// The Vulkan function that reported it.
        call: &'static str,
    },
    /// A section or projection reaches outside the view or array it is taken from.
    #[error("{what} {requested} is out of bounds of the extent {extent}")]
    SectionOutOfBounds {
        /// What was asked for (`"the section at [1, 2] with extent [3, 3]"`, `"row 7"`).
        what: &'static str,
        /// The requested origin and extent, or row.
        requested: String,
        /// The extent of the view or array it was taken from.
        extent: String,
    },
    /// A reshape or reinterpretation, or a host slice of a view, needs contiguous elements
    /// but the view is a section with gaps between its rows.
    #[error("{operation} needs a contiguous view, but this view (extent {extent}, strides {strides}) has gaps between its rows; copy the section into an array or a new view first")]
    NotContiguous {
        /// The operation (`"view_as"`, `"reinterpret_as"`, `"data"`).
        operation: &'static str,
        /// The view's extent.
        extent: String,
        /// The view's element strides.
        strides: String,
    },
    /// `reinterpret_as` cannot view these bytes as the new element type.
    #[error("reinterpret_as from {from} to {to}: {reason}")]
    Reinterpret {
        /// The view's element type.
        from: &'static str,
        /// The requested element type.
        to: &'static str,
        /// Why (size not a multiple, offset or address not aligned).
        reason: String,
    },
    /// The host cannot access this memory directly (C++ AMP's `cpu_access_type`).
    #[error("{what} is not accessible from the host: {reason}")]
    NotHostAccessible {
        /// The array or view.
        what: &'static str,
        /// Why, and what to do instead.
        reason: String,
    },
    /// An `ndarray` view that is not in standard layout (row-major and contiguous), which a
    /// view of host data needs (the `ndarray` feature).
    #[error("an ndarray view of shape {shape} with strides {strides} is {layout}, but a view needs standard layout (row-major, contiguous): make one with `.as_standard_layout()`, or copy it into an `Array` with `Array::from_ndarray`")]
    NotStandardLayout {
        /// The `ndarray` view's shape.
        shape: String,
        /// Its strides, in elements.
        strides: String,
        /// What its layout is: column-major (Fortran order), reversed (negative strides) or
        /// strided (stepped or sliced axes).
        layout: &'static str,
    },
    /// `copy` between a source and a destination of different extents.
    #[error("copy from extent {src} to extent {dst}: the extents must have the same element count (and, between views and arrays, the same shape)")]
    CopyExtentMismatch {
        /// The source's extent (a slice's length as `[len]`).
        src: String,
        /// The destination's extent.
        dst: String,
    },
    /// A texture format the device cannot use the way amp-rs needs (for example a texel type
    /// with 16 bits per scalar that the driver lacks, or linear sampling of a format without
    /// linear filtering).
    #[error("the texture format {format} is not supported by {device}: {reason}")]
    UnsupportedFormat {
        /// The format (`R8G8B8A8_UNORM`, ...) and the texel type it stores.
        format: String,
        /// The device's name.
        device: String,
        /// What is missing, and what to use instead.
        reason: String,
    },
    /// An image file could not be read or written (`Texture::from_image_file`,
    /// `Texture::write_image_file`).
    #[error("image file {path}: {reason}")]
    ImageFile {
        /// The file's path.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// A background transfer's worker thread panicked (a bug in amp-rs).
    #[error("an asynchronous transfer failed: {0}")]
    AsyncTransfer(String),
    /// A bounds-checked kernel accessed a view or array outside its extent. The access did not
    /// happen (a read gave 0, a write was dropped); the rest of the launch ran. When several
    /// accesses failed, one of them is reported.
    #[error(
        "kernel `{kernel}`: index {} is out of bounds for view `{param}` of extent {}",
        dims_list(.index),
        dims_list(.extent)
    )]
    IndexOutOfBounds {
        /// The kernel's name.
        kernel: String,
        /// The view or array parameter's name.
        param: String,
        /// The index, one entry per dimension (a negative `i32` cast to `usize` shows as its
        /// 32-bit two's complement, for example 4294967295 for -1).
        index: Vec<usize>,
        /// The view's extent.
        extent: Vec<usize>,
    },
    /// A device ended one of a kernel's loops by itself: it runs at most
    /// [`Limits::max_loop_iterations`](crate::Limits::max_loop_iterations) loop iterations per
    /// group of threads, counted over every loop (lavapipe: 65,535), and leaves the loop it is
    /// in when they are spent, with no error of its own. The launch's results are wrong; the
    /// rest of the launch ran. When several loops were ended, the first one noted is reported.
    #[error(
        "kernel `{kernel}`: the device `{device}` ended the loop at line {line} after its limit of {limit} loop iterations (counted over all the loops a group of threads runs), so the results are wrong; run the kernel on the native CPU accelerator (AMP_DEVICE=cpu) or a GPU, or spread the loop over more threads or launches"
    )]
    LoopLimit {
        /// The kernel's name.
        kernel: String,
        /// The source line of the loop's `for`, `while` or `loop`.
        line: u32,
        /// The device's limit.
        limit: u32,
        /// The device's name.
        device: String,
    },
    /// Something the native CPU accelerator ([`Accelerator::cpu`](crate::Accelerator::cpu))
    /// cannot do: a Vulkan-only feature (textures, raw SPIR-V kernels, extra queues), or a
    /// kernel that uses a construct the native back end does not translate yet. Run it on a
    /// Vulkan accelerator instead (`AMP_DEVICE=vulkan`, or [`Accelerator::all`](crate::Accelerator::all)).
    #[error("{what} cannot run on the native CPU accelerator: {reason}; use a Vulkan accelerator (AMP_DEVICE=vulkan, or Accelerator::from_path with a vulkan: path) for it")]
    NativeUnsupported {
        /// What was asked for (`kernel `blur``, `textures`).
        what: String,
        /// Why the native accelerator cannot do it.
        reason: String,
    },
    /// A setting (an `AMP_*` variable, or the [`Config`](crate::Config) method that sets it)
    /// has a value it cannot use.
    #[error("{setting}={value:?}, from {from}, is invalid: expected {expected}")]
    InvalidSetting {
        /// The setting's environment variable.
        setting: &'static str,
        /// Its value.
        value: String,
        /// What it should hold.
        expected: &'static str,
        /// Where the value came from.
        from: SettingSource,
    },
    /// [`Config::apply`](crate::Config::apply) came after the runtime read one of its settings
    /// (each is read once, at the first use that needs it: the default accelerator, the Vulkan
    /// instance, the native pool) with another value.
    #[error("{setting} was already read with another value: apply the Config before the first use of a device")]
    ConfigTooLate {
        /// The setting's environment variable (`AMP_DEVICE`, ...).
        setting: &'static str,
    },
    /// [`AcceleratorView::set_profiling`](crate::AcceleratorView::set_profiling) was asked to
    /// time launches on a device whose compute queue cannot write timestamps
    /// (`timestampValidBits` is 0), so their device times cannot be measured there.
    #[error("{device}'s compute queue cannot write timestamps (timestampValidBits is 0), so kernel times cannot be measured on it")]
    TimestampsUnsupported {
        /// The device's name.
        device: String,
    },
    /// Submitted device work (a launch or a transfer) did not finish within the timeout
    /// (`AMP_LAUNCH_TIMEOUT_MS`, default 60 s, or [`AcceleratorView::set_timeout`]). Vulkan
    /// cannot cancel it: it keeps running, host access to the data it uses (reading a view
    /// or array, dropping it) waits for it, and a launch's results appear once it is done.
    ///
    /// A launch that uses host memory in place (an imported host slice) is the exception: it
    /// returns this error only once the device is done with that memory.
    ///
    /// [`AcceleratorView::set_timeout`]: crate::AcceleratorView::set_timeout
    #[error("device work did not finish within {timeout_ms} ms (AMP_LAUNCH_TIMEOUT_MS or AcceleratorView::set_timeout); unless it used host data in place (then it has finished since), it is still running, and the next wait or host access of its data waits for it again")]
    Timeout {
        /// The timeout in milliseconds.
        timeout_ms: u64,
    },
    /// One part of a launch split over several accelerators (`amp::multi`) failed: the
    /// accelerator it ran on, the rows of the domain it covered, and its own error. When
    /// several parts fail, the first of them in the order of the accelerators is returned.
    #[error("part {part} of a multi-device launch (rows {}..{} on {device}) failed: {error}", rows.start, rows.end)]
    PartFailed {
        /// The part's position in the list of accelerators.
        part: usize,
        /// The name of the accelerator the part ran on.
        device: String,
        /// The rows of the domain (along its first dimension) the part covered.
        rows: std::ops::Range<usize>,
        /// What went wrong there.
        #[source]
        error: Box<Error>,
    },
    /// A launch over several accelerators (`amp::multi`) was asked for a split that cannot be
    /// made; nothing ran.
    #[error("multi-device launch: {0}")]
    InvalidSplit(SplitError),
}

/// Why a launch over several accelerators cannot be split ([`Error::InvalidSplit`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SplitError {
    /// The list of accelerators is empty.
    #[error("the list of accelerators is empty")]
    NoAccelerators,
    /// The weights are not one per accelerator.
    #[error("{weights} weights were given for {accelerators} accelerators")]
    WeightCount {
        /// The number of weights.
        weights: usize,
        /// The number of accelerators.
        accelerators: usize,
    },
    /// A weight is negative, infinite or not a number.
    #[error("weight {index} is {value}: weights must be finite and not negative")]
    InvalidWeight {
        /// The weight's position.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// Every weight is zero, so no accelerator would get any rows.
    #[error("every weight is zero")]
    ZeroWeights,
    /// Parts aligned to tiles of zero rows.
    #[error("parts must be aligned to tiles of at least one row")]
    ZeroTileRows,
    /// Data to split by rows does not have a whole number of elements per row of the domain.
    #[error("{what} has {len} elements, which cannot be split into the domain's {rows} rows (its length must be a multiple of the rows, and 0 when there are none)")]
    RowsMismatch {
        /// What the data is (`an output`, `an input`).
        what: &'static str,
        /// Its length.
        len: usize,
        /// The domain's rows (its first dimension).
        rows: usize,
    },
}

impl Error {
    /// Wraps a failed Vulkan call, mapping out-of-memory results to [`Error::OutOfDeviceMemory`]
    /// and a lost device to [`Error::DeviceLost`].
    pub(crate) fn vk(call: &'static str) -> impl Fn(vk::Result) -> Error {
        move |result| match result {
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
                Error::OutOfDeviceMemory
            }
            vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost { call },
            result => Error::Vulkan {
                call,
                result: VulkanResult(result.as_raw()),
            },
        }
    }
}

/// A Vulkan result code (`VkResult`), as [`Error::Vulkan`] reports it: its number and, in
/// `Display`, its name and meaning. It does not expose the Vulkan bindings' own type, so an
/// upgrade of those bindings changes nothing in this API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VulkanResult(i32);

impl VulkanResult {
    /// The `VkResult` number (negative for errors, as `VK_ERROR_INITIALIZATION_FAILED` = -3).
    pub fn code(self) -> i32 {
        self.0
    }
}

impl std::fmt::Display for VulkanResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({:?})",
            vk::Result::from_raw(self.0),
            vk::Result::from_raw(self.0)
        )
    }
}

impl From<gpu_allocator::AllocationError> for Error {
    fn from(e: gpu_allocator::AllocationError) -> Self {
        match e {
            gpu_allocator::AllocationError::OutOfMemory => Error::OutOfDeviceMemory,
            other => Error::Allocation(other.to_string()),
        }
    }
}

/// Where an invalid setting came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingSource {
    /// The process's environment.
    Environment,
    /// The [`Config`](crate::Config) method named.
    Config(&'static str),
}

impl std::fmt::Display for SettingSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingSource::Environment => f.write_str("the environment"),
            SettingSource::Config(method) => write!(f, "Config::{method}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_lost_from_any_call_is_its_own_variant() {
        for call in [
            "vkQueueSubmit",
            "vkWaitForFences",
            "vkAllocateDescriptorSets",
        ] {
            let e = Error::vk(call)(vk::Result::ERROR_DEVICE_LOST);
            assert!(
                matches!(e, Error::DeviceLost { call: c } if c == call),
                "{e:?}"
            );
            assert!(e.to_string().contains("device was lost"), "{e}");
        }
    }

    #[test]
    fn out_of_memory_and_other_results_keep_their_mapping() {
        let oom = Error::vk("vkAllocateMemory")(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        assert!(matches!(oom, Error::OutOfDeviceMemory));
        let other = Error::vk("vkCreateBuffer")(vk::Result::ERROR_INITIALIZATION_FAILED);
        match other {
            Error::Vulkan {
                call: "vkCreateBuffer",
                result,
            } => {
                assert_eq!(result.code(), -3);
                assert!(
                    result.to_string().contains("ERROR_INITIALIZATION_FAILED"),
                    "{result}"
                );
            }
            e => panic!("{e:?}"),
        }
    }
}
