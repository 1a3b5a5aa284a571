//! Kernel calls: [`KernelArg`], [`KernelCall`], [`TiledKernelCall`] and the [`ComputeDomain`]s
//! they run over, turned into one domain-independent [`Plan`] per launch.

use std::marker::PhantomData;

use super::executor::NativeCode;
use super::tiled::TiledExtent;

/// Why a call made without native code cannot run on the native CPU accelerator.
const NO_NATIVE_CODE: &str = "the call was built without native code";
use crate::data::{BufferAccess, DeviceBuffer, DeviceBufferMut};
use crate::device::Accelerator;
use crate::extent::Extent;
use crate::kernel::{ElemType, KernelInfo, ScalarType, TextureAccess};
use crate::scalar::{DeviceElement, ScalarArg};
use crate::texture::{Sampler, Texel, TextureTarget, TextureView, WriteonlyTextureView};

/// A kernel argument (see [`KernelArg`]).
pub(super) enum Arg<'a> {
    Buffer {
        buf: &'a dyn BufferAccess,
        writable: bool,
    },
    Scalar {
        ty: ScalarType,
        bits: u64,
    },
    /// A short vector or struct by value: its host bytes.
    Value {
        elem: ElemType,
        bytes: Vec<u8>,
    },
    /// A texture view.
    Texture {
        target: TextureTarget,
        texel: ElemType,
        access: TextureAccess,
    },
    /// A sampler.
    Sampler(Sampler),
}

/// One argument of a kernel call: a buffer (read or written) or a scalar.
///
/// Built by the launcher functions that `#[kernel(amp)]` generates; also used with
/// [`RawKernel::dispatch`](crate::RawKernel::dispatch).
pub struct KernelArg<'a>(pub(super) Arg<'a>);

impl<'a> KernelArg<'a> {
    /// A buffer the kernel reads: an [`ArrayView`](crate::ArrayView),
    /// [`ArrayViewMut`](crate::ArrayViewMut) or [`Array`](crate::Array).
    pub fn read<B: DeviceBuffer>(buffer: &'a B) -> Self {
        KernelArg(Arg::Buffer {
            buf: buffer,
            writable: false,
        })
    }

    /// A buffer the kernel may write: an [`ArrayViewMut`](crate::ArrayViewMut) or an
    /// [`Array`](crate::Array).
    pub fn write<B: DeviceBufferMut>(buffer: &'a mut B) -> Self {
        KernelArg(Arg::Buffer {
            buf: &*buffer,
            writable: true,
        })
    }

    /// A scalar passed by value (`i32`, `u32`, `f32`, `f64`, or `bool` as a `u32` 0 or 1).
    pub fn scalar<S: ScalarArg>(value: S) -> Self {
        KernelArg(Arg::Scalar {
            ty: S::TYPE,
            bits: value.to_bits(),
        })
    }

    /// A short vector ([`Float3`](crate::Float3), ...) or `#[derive(DeviceStruct)]` struct
    /// passed by value: its `#[repr(C)]` bytes go to the push constants as they are.
    pub fn value<T: DeviceElement>(value: T) -> Self {
        KernelArg(Arg::Value {
            elem: T::ELEM,
            bytes: crate::scalar::as_bytes(std::slice::from_ref(&value)).to_vec(),
        })
    }
}

impl<'a> KernelArg<'a> {
    /// A texture view the kernel reads and samples (`&texture.view()`).
    pub fn texture<T: Texel, const N: usize>(view: &TextureView<T, N>) -> Self {
        KernelArg(Arg::Texture {
            target: view.target.clone(),
            texel: T::TEXEL,
            access: TextureAccess::Read,
        })
    }

    /// A texture view the kernel writes (`&texture.writeonly_view()`).
    pub fn writeonly_texture<T: Texel, const N: usize>(view: &WriteonlyTextureView<T, N>) -> Self {
        KernelArg(Arg::Texture {
            target: view.target.clone(),
            texel: T::TEXEL,
            access: TextureAccess::Write,
        })
    }

    /// A sampler, by value.
    pub fn sampler(sampler: Sampler) -> Self {
        KernelArg(Arg::Sampler(sampler))
    }
}

impl std::fmt::Debug for KernelArg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Arg::Buffer { buf, writable } => f
                .debug_struct("Buffer")
                .field("elem", &buf.elem())
                .field("extent", &buf.dims())
                .field("writable", writable)
                .finish(),
            Arg::Scalar { ty, bits } => f
                .debug_struct("Scalar")
                .field("ty", ty)
                .field("bits", bits)
                .finish(),
            Arg::Value { elem, bytes } => f
                .debug_struct("Value")
                .field("elem", elem)
                .field("bytes", bytes)
                .finish(),
            Arg::Texture {
                target,
                texel,
                access,
            } => f
                .debug_struct("Texture")
                .field("texel", texel)
                .field("extent", &target.dims)
                .field("access", access)
                .finish(),
            Arg::Sampler(s) => s.fmt(f),
        }
    }
}

/// A kernel bound to its arguments, ready for [`parallel_for_each`](crate::parallel_for_each) over an `N`-dimensional
/// domain ([`Extent<N>`]). Returned by the launcher function of a simple (untiled)
/// `#[kernel(amp)]` kernel.
#[derive(Debug)]
pub struct KernelCall<'a, const N: usize> {
    info: &'static KernelInfo,
    args: Vec<KernelArg<'a>>,
    spec: Vec<u32>,
    native: NativeCode,
    _rank: PhantomData<[(); N]>,
}

impl<'a, const N: usize> KernelCall<'a, N> {
    /// Binds `args` (one per entry of `info.params`, in order) to the kernel `info`.
    #[doc(hidden)]
    pub fn new(info: &'static KernelInfo, args: Vec<KernelArg<'a>>) -> Self {
        KernelCall {
            info,
            args,
            spec: Vec::new(),
            native: NativeCode::Unsupported(NO_NATIVE_CODE),
            _rank: PhantomData,
        }
    }

    /// Sets the kernel's native code (for the native CPU accelerator).
    #[doc(hidden)]
    pub fn with_native(mut self, native: NativeCode) -> Self {
        self.native = native;
        self
    }

    /// Sets the values of the kernel's specialization constants (`SpecId` 3, 4, ...; see
    /// [`KernelInfo::spec_constants`]): their little-endian words in order, one per 4-byte
    /// type (`bool` as 0 or 1), two per `f64` (low word first).
    #[doc(hidden)]
    pub fn with_spec(mut self, spec: Vec<u32>) -> Self {
        self.spec = spec;
        self
    }

    /// The kernel's metadata (name, SPIR-V, parameters, workgroup size).
    pub fn kernel(&self) -> &'static KernelInfo {
        self.info
    }
}

/// A tiled kernel bound to its arguments, ready for [`parallel_for_each`](crate::parallel_for_each) over a
/// [`TiledExtent<T0, T1, T2>`] of the same tile shape. Returned by the launcher function of a
/// tiled `#[kernel(amp)]` kernel (one whose index is a
/// [`TiledIndex<T0, T1, T2>`](crate::TiledIndex)).
///
/// Launching it over a domain of another tile shape, or over a plain [`Extent`], does not
/// compile.
#[derive(Debug)]
pub struct TiledKernelCall<'a, const T0: usize, const T1: usize = 0, const T2: usize = 0> {
    info: &'static KernelInfo,
    args: Vec<KernelArg<'a>>,
    spec: Vec<u32>,
    tile_static_bytes: u32,
    native: NativeCode,
    _tile: PhantomData<([(); T0], [(); T1], [(); T2])>,
}

impl<'a, const T0: usize, const T1: usize, const T2: usize> TiledKernelCall<'a, T0, T1, T2> {
    /// Binds `args` (one per entry of `info.params`, in order) to the tiled kernel `info`.
    ///
    /// `spec` holds the values of `info.spec_constants` (`SpecId` 3, 4, ...) as little-endian
    /// words, one per 4-byte type, two per `f64` (low word first); `tile_static_bytes` is the
    /// kernel's `tile_static` (workgroup) memory in bytes for this tile shape, checked against
    /// the device's `maxComputeSharedMemorySize` at launch.
    #[doc(hidden)]
    pub fn new(
        info: &'static KernelInfo,
        args: Vec<KernelArg<'a>>,
        spec: Vec<u32>,
        tile_static_bytes: u32,
    ) -> Self {
        TiledKernelCall {
            info,
            args,
            spec,
            tile_static_bytes,
            native: NativeCode::Unsupported(NO_NATIVE_CODE),
            _tile: PhantomData,
        }
    }

    /// Sets the kernel's native code (for the native CPU accelerator).
    #[doc(hidden)]
    pub fn with_native(mut self, native: NativeCode) -> Self {
        self.native = native;
        self
    }

    /// The kernel's metadata (name, SPIR-V, parameters, tile rank).
    pub fn kernel(&self) -> &'static KernelInfo {
        self.info
    }

    /// Bytes of `tile_static` memory one tile of this call uses.
    pub fn tile_static_bytes(&self) -> u32 {
        self.tile_static_bytes
    }
}

mod sealed {
    use super::Plan;

    pub trait Sealed {
        /// The launch of `call` over `self`, in the form the runtime checks and runs.
        fn plan<'a>(self, call: <Self as super::ComputeDomain>::Call<'a>) -> Plan<'a>
        where
            Self: super::ComputeDomain;
    }
}

/// A launch domain for [`parallel_for_each`](crate::parallel_for_each): an [`Extent<N>`] (simple kernels, one thread per
/// index) or a [`TiledExtent`] (tiled kernels, one workgroup per tile).
///
/// Each domain names the kind of call it runs, so launching a kernel over a domain of the wrong
/// rank, the wrong model or the wrong tile shape is a type error:
///
/// | domain | call |
/// |---|---|
/// | `Extent<N>` | [`KernelCall<'_, N>`] |
/// | `TiledExtent<T0, T1, T2>` | [`TiledKernelCall<'_, T0, T1, T2>`] |
///
/// Sealed: implemented by these two types only.
pub trait ComputeDomain: sealed::Sealed {
    /// The kernel call a domain of this type runs.
    type Call<'a>;
}

impl<const N: usize> ComputeDomain for Extent<N> {
    type Call<'a> = KernelCall<'a, N>;
}

impl<const N: usize> sealed::Sealed for Extent<N> {
    fn plan<'a>(self, call: <Self as ComputeDomain>::Call<'a>) -> Plan<'a> {
        Plan {
            info: call.info,
            args: call.args,
            spec: call.spec,
            domain: Dims::new(self.as_slice()),
            tiling: None,
            native: call.native,
        }
    }
}

impl<const T0: usize, const T1: usize, const T2: usize> ComputeDomain for TiledExtent<T0, T1, T2> {
    type Call<'a> = TiledKernelCall<'a, T0, T1, T2>;
}

impl<const T0: usize, const T1: usize, const T2: usize> sealed::Sealed for TiledExtent<T0, T1, T2> {
    fn plan<'a>(self, call: <Self as ComputeDomain>::Call<'a>) -> Plan<'a> {
        Plan {
            info: call.info,
            args: call.args,
            spec: call.spec,
            domain: Dims::new(self.extent()),
            tiling: Some(Tiling {
                tile: self.tile_extent(),
                tile_static_bytes: call.tile_static_bytes,
            }),
            native: call.native,
        }
    }
}

/// A launch, independent of the domain's type. `pub` only because the sealed trait names it;
/// it cannot be named outside this crate.
pub struct Plan<'a> {
    pub(super) info: &'static KernelInfo,
    pub(super) args: Vec<KernelArg<'a>>,
    pub(super) spec: Vec<u32>,
    pub(super) domain: Dims,
    pub(super) tiling: Option<Tiling>,
    pub(super) native: NativeCode,
}

/// A launch's domain: its extent, held inline up to [`Dims::INLINE`] dimensions (a launch does
/// not allocate it).
pub(super) enum Dims {
    Inline(usize, [usize; Dims::INLINE]),
    Heap(Vec<usize>),
}

impl Dims {
    /// The dimensions held inline.
    const INLINE: usize = 4;

    fn new(dims: &[usize]) -> Dims {
        if dims.len() <= Dims::INLINE {
            let mut inline = [0; Dims::INLINE];
            inline[..dims.len()].copy_from_slice(dims);
            Dims::Inline(dims.len(), inline)
        } else {
            Dims::Heap(dims.to_vec())
        }
    }
}

impl std::ops::Deref for Dims {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        match self {
            Dims::Inline(len, dims) => &dims[..*len],
            Dims::Heap(dims) => dims,
        }
    }
}

/// The tile shape of a tiled launch.
pub(super) struct Tiling {
    /// The tile's extent (one entry per dimension of the domain).
    pub(super) tile: &'static [usize],
    pub(super) tile_static_bytes: u32,
}

/// Marks the buffers `args` passes as writable as written on `acc`.
pub(super) fn mark_written(args: &[KernelArg<'_>], acc: &Accelerator) {
    for arg in args {
        if let Arg::Buffer {
            buf,
            writable: true,
        } = &arg.0
        {
            buf.mark_written(acc);
        }
    }
}
