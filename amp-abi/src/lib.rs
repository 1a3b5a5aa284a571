#![doc = include_str!("../README.md")]
//!
//! # The contract between the compiler and the runtime
//! - Descriptor set 0 holds one storage buffer per buffer parameter (`ArrayView`, `ArrayViewMut`,
//!   `Array`), bound at [`ParamKind::Buffer::binding`] (declaration order, from 0). Each buffer is
//!   a runtime array of its element type, densely packed, row-major; a short-vector element (`Float3`) is its
//!   components packed without padding ([`ElemType::size`] bytes, 12 for a `Float3`); a struct
//!   element is its `#[repr(C)]` layout (short-vector fields packed the same way).
//! - One push-constant block of [`KernelInfo::push_constant_size`] bytes. Bytes
//!   `[0, 4 * rank)` hold the launch domain's extent as `u32`s; each buffer parameter's layout
//!   starts at its `extent_offset`: its extent (`rank` `u32`s), the element offset of the view's
//!   first element in the buffer (one `u32`), and the element strides of all dimensions but the
//!   last (`rank - 1` `u32`s; the last stride is 1), so sections and projections of a buffer
//!   are passed without copying; each scalar parameter lives at its `offset`
//!   (`bool` as a `u32` 0 or 1, `f64` on an 8-byte boundary), and each by-value short vector
//!   or struct ([`ParamKind::Value`]) is its host `#[repr(C)]` bytes at its `offset`, aligned
//!   as the host type (on the device, one push-constant member per scalar, at its C offset).
//!   Scalars and values follow the buffers' layouts, in declaration order.
//! - Bounds checks (every `#[kernel(amp)]` kernel with buffers, unless it says
//!   `#[kernel(amp, unchecked)]`): each view or array access compares every index component,
//!   as a `u32` (so a negative `i32` cast to `usize` fails too), with the buffer's extent from
//!   the push constants. In bounds, the access happens; out of bounds, it does not: a read
//!   yields zero of the element type (`0` / `0.0`), a write is dropped, an atomic does nothing
//!   and returns 0 (a compare-exchange sees the element as 0). A failing access is noted in
//!   the thread's private pending report; when the thread ends, a pending report goes to the
//!   out-of-bounds report, the first [`OOB_REPORT_WORDS`] `u32`s of the buffer at binding
//!   [`KernelInfo::report_binding`] (the one after the buffer parameters):
//!   `[flag, param, rank, index[3], extent[3]]`, where `param` indexes [`KernelInfo::params`]
//!   and unused dimensions are 0. The thread whose atomic compare-exchange moves `flag` from 0
//!   to 1 writes the rest; later threads change nothing. (One atomic per failing thread, at its
//!   end, rather than behind every access: the rarely taken branch stays cheap.) The runtime
//!   binds a zeroed report to every launch and, once the launch has finished, turns a set
//!   flag into `Error::IndexOutOfBounds`. `tile_static` arrays and
//!   local arrays are not buffers: their indices are clamped to the last element instead.
//! - Loop watching (kernels with [`KernelInfo::loop_lines`]): a device may end loops after a
//!   fixed number of iterations without an error (lavapipe: 65,535 per group of threads,
//!   counted over every loop). Such kernels read the device's limit from specialization
//!   constant [`spec_id::LOOP_LIMIT`] (0: none, and the watching folds away); under a limit, a
//!   thread that leaves a loop its code did not end notes the loop's number plus one, and
//!   when it ends, moves word [`LOOP_CUT_REPORT_WORD`] of the report (the buffer is
//!   [`REPORT_WORDS`] long) from 0 to that value with a compare-exchange. The runtime turns a
//!   nonzero word into `Error::LoopLimit`, naming the loop's line.
//! - Simple (untiled) kernels run with [`KernelInfo::workgroup_size`] threads per workgroup. The
//!   runtime dispatches `ceil(total / workgroup_size[0])` workgroups, folded onto `x` and `y` when
//!   they exceed the device's per-dimension limit (`y = ceil(groups / max_x)` rows of
//!   `ceil(groups / y)`, and never more than 2^32 threads in all, so the ids below cannot
//!   wrap); the kernel computes its linear id as
//!   `GlobalInvocationId.x + GlobalInvocationId.y * NumWorkgroups.x * workgroup_size[0]`, skips
//!   ids past the domain's element count, and unflattens the rest row-major into its `Index<N>`.
//! - Tiled kernels (`tile_rank` > 0) run one workgroup per tile. The workgroup size is given by
//!   specialization constants 0 (x), 1 (y), 2 (z), which the runtime sets from the tile shape:
//!   x is the last tile dimension (the fastest-varying), y the one before, z the first of three.
//!   The runtime dispatches `extent[d] / tile[d]` workgroups along the same axes; for rank 1 a
//!   count above the device's x limit is folded onto y the same way (`tile = WorkgroupId.x +
//!   WorkgroupId.y * NumWorkgroups.x`; whole workgroups with `tile * tile[0] >= extent[0]`
//!   return at once, so barriers stay uniform).
//! - Specialization constants 3, 4, ... carry the values of [`KernelInfo::spec_constants`],
//!   4 bytes each (`bool` as a `u32`) or 8 for `f64`, supplied by each call (simple kernels
//!   through `KernelCall::with_spec`, tiled ones through `TiledKernelCall::new`) as
//!   little-endian words, one per 4-byte value and two per `f64` (low word first). Simple
//!   kernels get no entries for ids 0, 1, 2: their workgroup size is their `LocalSize`.
//! - Each buffer parameter at binding `b` has a `u32` specialization constant with `SpecId`
//!   [`LAYOUT_SPEC_ID_BASE`]` + b`: its layout facts for this launch, a set of
//!   [`layout_fact`] bits (`ZERO_OFFSET`: the view starts at element 0; `DENSE`: its strides
//!   are row-major over its own extent; `COVERS_DOMAIN`: same rank as the domain and at
//!   least as large in every dimension; `EQUALS_DOMAIN_DIM0 << d`: dimension `d` equals the
//!   domain's). Kernels use 0 for the offset, strides from the extent, the domain's extent
//!   member for equal dimensions, and skip checks of index components derived from the
//!   thread's own index (`idx[d]`, `t.global[d]`) in covering views; the driver folds what
//!   the facts decide. It defaults to 0 (nothing known); the runtime sets it at every launch,
//!   so a kernel has one pipeline per combination of facts it is launched with.
//! - Each `WriteonlyTextureView` of `f32` components, and each texture view of `Unorm` or
//!   `Norm` texels, at binding `b` has a `u32` specialization constant with `SpecId`
//!   [`LAYOUT_SPEC_ID_BASE`]` + b`: its [`texture_fact`] bits (`HALF_FLOAT`: the texture
//!   stores 16-bit floats, so the kernel rounds to them itself; `SIXTEEN_BITS`: its
//!   normalized components have 16 bits).
//! - The runtime builds one pipeline per kernel, device and specialization (workgroup size and
//!   constant values), so a const-generic kernel launched with two tile shapes gets two.
//! - Before a tiled launch the runtime checks that each extent dimension is a multiple of the
//!   tile's (`Error::NotDivisible`), that the tile fits `maxComputeWorkGroupInvocations` and
//!   `maxComputeWorkGroupSize` (`Error::TileTooLarge`), and that the call's `tile_static` bytes
//!   fit `maxComputeSharedMemorySize` (`Error::TileStaticTooLarge`).

#![no_std]
#![deny(missing_docs)]

pub mod settings;

/// The most threads a tile may have: the limit the compiler enforces on a tile shape and the
/// runtime on a tiled extent (every device C++ AMP targets allows at least this many; the
/// runtime also checks the device's own `maxComputeWorkGroupInvocations`).
pub const MAX_TILE_THREADS: u32 = 1024;

/// The most elements a local (or `tile_static`) array may have per dimension.
pub const MAX_LOCAL_ARRAY_LEN: u32 = 16384;

/// `SpecId`s of the specialization constants every module may declare.
pub mod spec_id {
    /// The workgroup size x, y, z: a tiled kernel's tile (x is the last tile dimension), or
    /// a simple kernel's threads per workgroup on x (the runtime's choice for the device; the
    /// module's default is [`KernelInfo::workgroup_size`](crate::KernelInfo::workgroup_size)).
    pub const WORKGROUP_SIZE: [u32; 3] = [0, 1, 2];
    /// The first constant read from outside the kernel's body ([`KernelInfo::spec_constants`]
    /// are `FIRST_OUTER_CONST`, `FIRST_OUTER_CONST + 1`, ...).
    ///
    /// [`KernelInfo::spec_constants`]: crate::KernelInfo::spec_constants
    pub const FIRST_OUTER_CONST: u32 = 3;
    /// The `u32` loop limit of the device the pipeline is built for (0: none), in kernels whose
    /// loops are watched ([`KernelInfo::loop_lines`](crate::KernelInfo::loop_lines)): where it
    /// is 0 the driver folds the watching away.
    pub const LOOP_LIMIT: u32 = 0x2_0000;
    /// A boolean: every `f32` operation that amp-rs computes exactly on top of the device's own
    /// (division, square root) takes its exact path even where the device's result is right,
    /// starting from a deliberately rough guess (false by default; the runtime's
    /// `AMP_FORCE_EXACT_PATHS` sets it), so that those paths are tested on devices that never
    /// need them.
    pub const FORCE_EXACT_PATHS: u32 = 0x2_0001;
    /// A boolean: the device's own `f32` division and square root are correctly rounded
    /// (measured and known by device: lavapipe), so the checks that correct them fold away
    /// (false by default: every result is checked).
    pub const DEVICE_ROUNDS_EXACTLY: u32 = 0x2_0002;
    /// A boolean: a simple kernel's invocations each run every index `first + k * stride`
    /// below the domain's size (a grid-stride loop; `stride` is the grid's invocations), set
    /// by the runtime when it dispatches fewer invocations than the domain has indices (false
    /// by default: one index per invocation, the loop folds away).
    pub const GRID_STRIDE: u32 = 0x2_0003;
    /// A boolean: every memory fence (`OpMemoryBarrier`) is an atomic addition of 0 to a word
    /// of the tile's memory instead (false by default). Set for lavapipe, whose atomics are
    /// sequentially consistent (so the addition orders memory as the fence does) and which
    /// drops the invocations that reach an `OpMemoryBarrier` inside a loop entered by part of
    /// a workgroup (Mesa 22.3: they end without a trace, so their later writes never happen).
    pub const FENCES_AS_ATOMICS: u32 = 0x2_0004;
    /// A boolean: a simple kernel compiled to run four indices per step with 16-byte accesses
    /// (`Shape::Chosen` with `lanes` 4) runs one index per step with 4-byte accesses instead
    /// (false by default); the runtime then sizes its grid for one index per step. Set where
    /// `AMP_VECTOR_ACCESS=0`, and for a launch whose views of the form do not all start at
    /// the same element modulo 4 (`Shape::Chosen::quad_views`).
    pub const SCALAR_ACCESS: u32 = 0x2_0005;
}

/// `SpecId` of the `u32` specialization constant holding the layout facts of the buffer bound
/// at binding `b`: `LAYOUT_SPEC_ID_BASE + b`. Its bits are [`layout_fact`]s; it defaults to 0
/// (nothing known: offset, strides and extents come from the push constants) and the runtime
/// sets it for every launch.
pub const LAYOUT_SPEC_ID_BASE: u32 = 0x1_0000;

/// The bits of a buffer's layout facts ([`LAYOUT_SPEC_ID_BASE`]).
pub mod layout_fact {
    /// The view starts at its buffer's first element (element offset 0).
    pub const ZERO_OFFSET: u32 = 1;
    /// The view's strides are row-major over its own extent (a whole array or view).
    pub const DENSE: u32 = 1 << 1;
    /// The view has the launch domain's rank and an extent at least the domain's in every
    /// dimension: index components derived from the thread's own index need no check.
    pub const COVERS_DOMAIN: u32 = 1 << 2;
    /// Dimension 0 of the view's extent equals the domain's (same rank); `<< d` for
    /// dimension `d`.
    pub const EQUALS_DOMAIN_DIM0: u32 = 1 << 3;
}

/// The bits of a texture's facts: the `u32` specialization constant with `SpecId`
/// [`LAYOUT_SPEC_ID_BASE`]` + b` of a `WriteonlyTextureView` of `f32` components, or of a
/// texture view of `Unorm` or `Norm` texels, at binding `b` (defaults to 0; the runtime sets
/// it for every launch).
pub mod texture_fact {
    /// The texture stores 16-bit floats. The kernel rounds each component to the nearest
    /// half-precision value (ties to even, as the host's conversion) before the store, so the
    /// device's own conversion, which Vulkan lets round toward zero, is exact.
    pub const HALF_FLOAT: u32 = 1;
    /// A texture of `Unorm` or `Norm` texels stores 16 bits per component (else 8). Read,
    /// the kernel recovers each component's code from the device's decode and decodes it as
    /// the host does (`code * (1 / (2^b - 1))` rounded to `f32`), which Vulkan does not
    /// promise (NVIDIA's driver divides, an ULP away from the host's product for some codes);
    /// written, it computes the host's code itself and stores a value a quarter of a step
    /// past it, which every conversion Vulkan allows (either nearest code) turns into it.
    pub const SIXTEEN_BITS: u32 = 1 << 1;
}

/// The largest push-constant block every Vulkan device supports (`maxPushConstantsSize` is at
/// least this): the compiler refuses kernels whose launch parameters need more.
pub const MAX_PUSH_CONSTANT_BYTES: u32 = 128;

/// One buffer parameter's layout in the push-constant block, in `u32` words from its
/// [`ParamKind::Buffer::extent_offset`]: its extent (`rank` words), the element offset of its
/// first element (one word) and the strides of all dimensions but the last (`rank - 1` words;
/// the last stride is 1).
pub mod buffer_layout {
    /// Words of the whole layout.
    pub const fn words(rank: u32) -> u32 {
        2 * rank
    }

    /// Word of the element offset.
    pub const fn offset_word(rank: u32) -> u32 {
        rank
    }

    /// Word of the first stride (dimension 0's).
    pub const fn strides_word(rank: u32) -> u32 {
        rank + 1
    }
}

/// The scalar types a kernel parameter or buffer element can have on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `bool`: a scalar parameter is a `u32` word 0 or 1; in a buffer, one byte 0 or 1 (as
    /// the host's `bool`).
    Bool,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i8`: one byte in a buffer; a scalar parameter is an `i32` word (sign-extended).
    I8,
    /// `u8`: one byte in a buffer; a scalar parameter is a `u32` word.
    U8,
    /// `i16`: two bytes in a buffer; a scalar parameter is an `i32` word (sign-extended).
    I16,
    /// `u16`: two bytes in a buffer; a scalar parameter is a `u32` word.
    U16,
    /// `f32`.
    F32,
    /// `f64`: needs the device feature `shaderFloat64`.
    F64,
    /// `Norm` (C++ AMP's `norm`): an `f32` in `[-1, 1]` on the device.
    Norm,
    /// `Unorm` (C++ AMP's `unorm`): an `f32` in `[0, 1]` on the device.
    Unorm,
}

impl ScalarType {
    /// Size in bytes of one element in a buffer.
    pub const fn size(self) -> u32 {
        match self {
            ScalarType::F64 => 8,
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 => 1,
            ScalarType::I16 | ScalarType::U16 => 2,
            _ => 4,
        }
    }

    /// Size in bytes of a scalar parameter in the push-constant block: 8 for `f64`, one 4-byte
    /// word for every other type (`bool` and the small integers included).
    pub const fn push_size(self) -> u32 {
        match self {
            ScalarType::F64 => 8,
            _ => 4,
        }
    }

    /// Whether a buffer of this type holds its elements packed into 32-bit words (`bool`,
    /// `i8`, `u8`, `i16`, `u16`): the kernel reads and writes them inside words, and the
    /// runtime sizes such a buffer to whole words.
    pub const fn is_packed(self) -> bool {
        matches!(
            self,
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 | ScalarType::I16 | ScalarType::U16
        )
    }

    /// The Rust spelling of the type, for error messages.
    pub const fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "i32",
            ScalarType::U32 => "u32",
            ScalarType::I8 => "i8",
            ScalarType::U8 => "u8",
            ScalarType::I16 => "i16",
            ScalarType::U16 => "u16",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::Norm => "Norm",
            ScalarType::Unorm => "Unorm",
        }
    }
}

/// The element type of a view or array on the device: a scalar, or a short vector of one
/// (`Float3`, `int_2`, ...), packed as the host's `#[repr(C)]` type (a `Float3` is 12 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// `i32`, `u32`, `f32`, `f64`, `Norm` or `Unorm`.
    Scalar(ScalarType),
    /// A short vector: its component type and its 2 to 4 components.
    Vector(ScalarType, u32),
    /// A `#[derive(DeviceStruct)]` struct, laid out as its `#[repr(C)]` host type.
    Struct {
        /// The struct's name.
        name: &'static str,
        /// Its size in bytes.
        size: u32,
    },
}

impl ElemType {
    /// Size in bytes of one element (its stride in the buffer).
    pub const fn size(self) -> u32 {
        match self {
            ElemType::Scalar(s) => s.size(),
            ElemType::Vector(s, n) => s.size() * n,
            ElemType::Struct { size, .. } => size,
        }
    }
}

impl From<ScalarType> for ElemType {
    fn from(s: ScalarType) -> Self {
        ElemType::Scalar(s)
    }
}

impl core::fmt::Display for ElemType {
    /// The Rust spelling: `f32`, `Float3`, `Int2`, `UInt4`, `Double2`, `Unorm4`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ElemType::Scalar(s) => f.write_str(s.name()),
            ElemType::Vector(s, n) => {
                let base = match s {
                    ScalarType::I32 => "Int",
                    ScalarType::U32 => "UInt",
                    ScalarType::F32 => "Float",
                    ScalarType::F64 => "Double",
                    ScalarType::Bool => "Bool",
                    ScalarType::Norm => "Norm",
                    ScalarType::Unorm => "Unorm",
                    // No short vector of the small integers exists.
                    ScalarType::I8 | ScalarType::U8 | ScalarType::I16 | ScalarType::U16 => {
                        return write!(f, "[{}; {n}]", s.name())
                    }
                };
                write!(f, "{base}{n}")
            }
            ElemType::Struct { name, .. } => f.write_str(name),
        }
    }
}

/// How one kernel parameter (after the index) reaches the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A view or array, bound as a storage buffer.
    Buffer {
        /// Binding number in descriptor set 0.
        binding: u32,
        /// Element type.
        elem: ElemType,
        /// Rank of the view or array.
        rank: u32,
        /// Whether the kernel may write it (`ArrayViewMut`, `&mut Array`).
        writable: bool,
        /// Byte offset of its layout in the push-constant block: extent (`rank` `u32`s), element
        /// offset (one `u32`), strides of all but the last dimension (`rank - 1` `u32`s).
        extent_offset: u32,
    },
    /// A scalar passed by value in the push-constant block.
    Scalar {
        /// Its type.
        ty: ScalarType,
        /// Byte offset in the push-constant block.
        offset: u32,
    },
    /// A short vector or `#[derive(DeviceStruct)]` struct passed by value in the push-constant
    /// block: its host `#[repr(C)]` bytes ([`ElemType::size`] of them, padding included) copied
    /// as they are, at `offset` (a multiple of the type's alignment).
    Value {
        /// Its type.
        elem: ElemType,
        /// Byte offset in the push-constant block.
        offset: u32,
    },
    /// A texture view, bound after every buffer: a sampled image (read) or a storage image
    /// without a declared format (write). Its extent (`rank` `u32`s) is in the push-constant
    /// block at `extent_offset`.
    Texture {
        /// Binding number in descriptor set 0.
        binding: u32,
        /// Texel type.
        texel: ElemType,
        /// Rank of the texture.
        rank: u32,
        /// Read or write.
        access: TextureAccess,
        /// Byte offset of its extent in the push-constant block.
        extent_offset: u32,
    },
    /// A sampler, bound after every buffer.
    Sampler {
        /// Binding number in descriptor set 0.
        binding: u32,
    },
}

/// How a kernel uses a texture parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureAccess {
    /// `TextureView<T, N>`: texel reads and sampling, bound as a sampled image.
    Read,
    /// `WriteonlyTextureView<T, N>`: texel writes, bound as a storage image.
    Write,
}

/// Who chooses the launch shape of a simple kernel: its threads per workgroup and how many
/// indices each thread runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The module's own: [`KernelInfo::workgroup_size`] threads per workgroup, one index per
    /// invocation (hand-written modules; tiled kernels, whose tile is their shape).
    Fixed,
    /// The runtime's, per device: the module takes its workgroup size x from specialization
    /// constant [`spec_id::WORKGROUP_SIZE`]`[0]`, and each invocation runs a grid-stride loop
    /// over the domain when [`spec_id::GRID_STRIDE`] is on.
    Chosen {
        /// Whether the kernel has a loop: a device that ends loops by itself after a count of
        /// iterations per invocation ([`KernelInfo::loop_lines`]) then gets one index per
        /// invocation, so that the grid-stride loop adds nothing to that count.
        loops: bool,
        /// Consecutive indices each invocation runs at once (its grid-stride loop steps over
        /// groups of them): 4 for a kernel that moves its views' elements 16 bytes at a time,
        /// else 1. The grid is sized for `ceil((indices + lanes - 1) / lanes)` such groups:
        /// the module's groups may start up to `lanes - 1` indices before index 0, so that a
        /// view's groups start at its 16-byte boundary.
        lanes: u32,
        /// With `lanes` 4, the parameters whose elements move 16 bytes at a time, the one the
        /// groups are aligned to first: its element offset modulo 4 is where they start. A
        /// view that starts at another element modulo 4 would send every group down the
        /// one-index path, so the runtime then launches with [`spec_id::SCALAR_ACCESS`].
        quad_views: &'static [u32],
    },
}

/// One kernel parameter after the index parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    /// The parameter's name in the kernel's source.
    pub name: &'static str,
    /// How it is passed.
    pub kind: ParamKind,
}

/// A SPIR-V module as the bytes of its words in the target's byte order, aligned for words:
/// the macro hands a module over as one byte-string token instead of a literal per word (a
/// suite of a few hundred kernels is hundreds of thousands of tokens that way, each made and
/// parsed by the compiler).
#[repr(C, align(4))]
pub struct SpirvBytes<const B: usize>(pub [u8; B]);

impl<const B: usize> SpirvBytes<B> {
    /// The module's words.
    ///
    /// # Panics
    /// At compile time (a `static`'s initializer), when `B` is not a multiple of 4.
    pub const fn words(&'static self) -> &'static [u32] {
        assert!(B.is_multiple_of(4), "a SPIR-V module is whole words");
        // SAFETY: the array is aligned for `u32` (`align(4)`) and `B / 4` words long; every bit
        // pattern is a `u32`; it is borrowed for `'static` and never written.
        unsafe { core::slice::from_raw_parts(self.0.as_ptr().cast::<u32>(), B / 4) }
    }
}

/// Everything the runtime needs to know about one compiled kernel.
#[derive(Debug)]
pub struct KernelInfo {
    /// The kernel function's name.
    pub name: &'static str,
    /// The SPIR-V module (SPIR-V 1.3, Vulkan 1.1), validated at build time.
    pub spirv: &'static [u32],
    /// The same kernel with its `bool`, `i8`, `u8`, `i16` and `u16` buffers as arrays of 8- and
    /// 16-bit integers (`StorageBuffer8BitAccess`, `StorageBuffer16BitAccess`), which the
    /// runtime uses on devices with those features; in [`spirv`](Self::spirv) such buffers are
    /// packed into 32-bit words. Empty for a kernel without such buffers.
    pub spirv_narrow_storage: &'static [u32],
    /// Name of the compute entry point in [`spirv`](Self::spirv).
    pub entry_point: &'static str,
    /// Rank of the launch domain (the `N` of the kernel's `Index<N>`).
    pub rank: u32,
    /// Parameters after the index, in declaration order.
    pub params: &'static [ParamInfo],
    /// Size in bytes of the push-constant block (a multiple of 4; 0 when there is none).
    pub push_constant_size: u32,
    /// Threads per workgroup, as declared by the module's `LocalSize`. Ignored for tiled
    /// kernels, whose workgroup size is the tile (specialization constants 0, 1, 2), and for
    /// simple kernels whose [`shape`](Self::shape) the runtime chooses.
    pub workgroup_size: [u32; 3],
    /// Who chooses a simple kernel's launch shape.
    pub shape: Shape,
    /// Whether the module declares the `Float64` capability.
    pub uses_float64: bool,
    /// A hash of the module, stable across builds; the pipeline cache's key.
    pub hash: u64,
    /// Rank of the tile for tiled kernels (1 to 3); 0 for simple kernels.
    pub tile_rank: u32,
    /// Types of the specialization constants with `SpecId` 3, 4, ... in order (constants the
    /// kernel reads from outside its body: `const` items, const-generic parameters). Their values
    /// come with each call. `SpecId` 0, 1, 2 are the workgroup size x, y, z of tiled kernels.
    pub spec_constants: &'static [ScalarType],
    /// The compiler's report: shape, memory, bindings and their access, capabilities, and the
    /// analyses' findings (empty for hand-written modules).
    pub report: &'static str,
    /// The binding in set 0 of the kernel's report buffer ([`REPORT_WORDS`] `u32`s; see the
    /// module documentation), for a bounds-checked kernel with buffers or a kernel whose loops
    /// are watched ([`loop_lines`](Self::loop_lines)); `None` otherwise, and for hand-written
    /// modules.
    pub report_binding: Option<u32>,
    /// Whether the kernel checks every access of its views and arrays against their extents
    /// and records a failing one in its report (a bounds-checked kernel with buffers).
    pub bounds_checked: bool,
    /// The source line of each loop the kernel watches for a device's loop limit, by loop
    /// number (the report's [`LOOP_CUT_REPORT_WORD`] holds the number plus one); empty when
    /// its loops cannot reach such a limit.
    pub loop_lines: &'static [u32],
}

/// Size in `u32`s of the out-of-bounds part of a kernel's report: `[flag, param, rank,
/// index[3], extent[3]]`.
pub const OOB_REPORT_WORDS: u32 = 9;

/// The word of a kernel's report that names the first watched loop a device ended by itself
/// (its number in [`KernelInfo::loop_lines`] plus one; 0: none).
pub const LOOP_CUT_REPORT_WORD: u32 = OOB_REPORT_WORDS;

/// Size in `u32`s of a kernel's report buffer: the out-of-bounds report, then the loop word.
pub const REPORT_WORDS: u32 = OOB_REPORT_WORDS + 1;

impl KernelInfo {
    /// The SPIR-V words of this kernel.
    pub fn spirv(&self) -> &'static [u32] {
        self.spirv
    }

    /// The compile report (`AMP_REPORT=1` prints it during the build).
    pub fn report(&self) -> &'static str {
        self.report
    }
}
