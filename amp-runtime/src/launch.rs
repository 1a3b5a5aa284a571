//! Kernel calls and launches: [`KernelCall`], [`TiledKernelCall`], [`KernelArg`],
//! [`ComputeDomain`], [`parallel_for_each`] and [`RawKernel`].

use std::marker::PhantomData;

use ash::vk;

use crate::bounds::OobReport;
use crate::buffer_access::{BufferAccess, DeviceBuffer, DeviceBufferMut};
use crate::extent::{dims_list, validate_dims};
use crate::kernel::{ElemType, KernelInfo, ParamKind, ScalarType};
use crate::pipeline::{cached, Pipeline};
use crate::queue::{AcceleratorView, LaunchTarget};
use crate::{Accelerator, DeviceScalar, Error, Extent, ScalarArg, TiledExtent};

enum Arg<'a> {
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
}

/// One argument of a kernel call: a buffer (read or written) or a scalar.
///
/// Built by the launcher functions that `#[kernel(amp)]` generates; also used with
/// [`RawKernel::dispatch`].
pub struct KernelArg<'a>(Arg<'a>);

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
    pub fn value<T: DeviceScalar>(value: T) -> Self {
        KernelArg(Arg::Value {
            elem: T::ELEM,
            bytes: bytemuck::bytes_of(&value).to_vec(),
        })
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
        }
    }
}

/// A kernel bound to its arguments, ready for [`parallel_for_each`] over an `N`-dimensional
/// domain ([`Extent<N>`]). Returned by the launcher function of a simple (untiled)
/// `#[kernel(amp)]` kernel.
#[derive(Debug)]
pub struct KernelCall<'a, const N: usize> {
    info: &'static KernelInfo,
    args: Vec<KernelArg<'a>>,
    spec: Vec<u32>,
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
            _rank: PhantomData,
        }
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

/// A tiled kernel bound to its arguments, ready for [`parallel_for_each`] over a
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
            _tile: PhantomData,
        }
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

/// A launch domain for [`parallel_for_each`]: an [`Extent<N>`] (simple kernels, one thread per
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
            domain: self.as_slice().to_vec(),
            tiling: None,
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
            domain: self.extent().to_vec(),
            tiling: Some(Tiling {
                tile: self.tile_extent(),
                tile_static_bytes: call.tile_static_bytes,
            }),
        }
    }
}

/// A launch, independent of the domain's type. `pub` only because the sealed trait names it;
/// it cannot be named outside this crate.
pub struct Plan<'a> {
    info: &'static KernelInfo,
    args: Vec<KernelArg<'a>>,
    spec: Vec<u32>,
    domain: Vec<usize>,
    tiling: Option<Tiling>,
}

struct Tiling {
    /// The tile's extent (one entry per dimension of the domain).
    tile: &'static [usize],
    tile_static_bytes: u32,
}

/// The accelerator the arrays among `args` live on, if any.
fn home(args: &[KernelArg<'_>]) -> Result<Option<Accelerator>, Error> {
    let mut home: Option<Accelerator> = None;
    for arg in args {
        if let Arg::Buffer { buf, .. } = &arg.0 {
            if let Some(acc) = buf.home() {
                match &home {
                    Some(h) if *h != acc => {
                        return Err(Error::AcceleratorMismatch {
                            array: acc.name().to_owned(),
                            launch: h.name().to_owned(),
                        })
                    }
                    Some(_) => {}
                    None => home = Some(acc),
                }
            }
        }
    }
    Ok(home)
}

/// Runs `call` once for every index of `domain` (C++ AMP's `parallel_for_each`), on the
/// default view of the accelerator the call's [`Array`](crate::Array)s live on, or else of the
/// default accelerator, and waits for it to finish.
///
/// `domain` is an [`Extent<N>`] for a simple kernel or a [`TiledExtent`] (from
/// [`Extent::tile`]) for a tiled one; see [`ComputeDomain`]. A tiled launch needs every
/// dimension of the extent to be a multiple of the tile's ([`Error::NotDivisible`] otherwise;
/// see [`TiledExtent::pad`] and [`TiledExtent::truncate`]).
///
/// Views are copied to the device as needed; views the kernel writes have their device copy
/// marked newer (see [`ArrayViewMut::synchronize`](crate::ArrayViewMut::synchronize)).
///
/// ```ignore
/// parallel_for_each(sum.extent(), add(&a, &b, &mut sum))?;
/// parallel_for_each(c.extent().tile::<16, 16>(), matmul_tiled(&a, &b, &mut c))?;
/// ```
pub fn parallel_for_each<D: ComputeDomain>(domain: D, call: D::Call<'_>) -> Result<(), Error> {
    let plan = domain.plan(call);
    let acc = match home(&plan.args)? {
        Some(acc) => acc,
        None => Accelerator::default()?,
    };
    launch(&acc.default_view(), plan)
}

/// [`parallel_for_each`] on a chosen accelerator (its default view) or
/// [`AcceleratorView`]. Arrays in the call must live on its accelerator.
///
/// Launches on one view run in the order they are made. Like [`parallel_for_each`] it returns
/// once the device has finished the launch (see [`AcceleratorView`]).
///
/// ```text
/// parallel_for_each_on(&acc, out.extent(), kernel(&a, &mut out))?;
/// let view = acc.create_view()?;
/// parallel_for_each_on(&view, out.extent(), kernel(&a, &mut out))?;
/// ```
pub fn parallel_for_each_on<T: LaunchTarget + ?Sized, D: ComputeDomain>(
    target: &T,
    domain: D,
    call: D::Call<'_>,
) -> Result<(), Error> {
    launch(&target.accelerator_view(), domain.plan(call))
}

/// Writes `words` (host byte order) into the push-constant block at byte `offset`.
fn put<I>(
    block: &mut [u8],
    offset: u32,
    words: I,
    kernel: &KernelInfo,
    what: &str,
) -> Result<(), Error>
where
    I: IntoIterator<Item = u32>,
    I::IntoIter: ExactSizeIterator,
{
    let words = words.into_iter();
    let start = offset as usize;
    let Some(dst) = block.get_mut(start..start + 4 * words.len()) else {
        return Err(Error::InvalidKernel {
            kernel: kernel.name.to_owned(),
            reason: format!(
                "{what} at byte {offset} does not fit the {}-byte push-constant block",
                block.len()
            ),
        });
    };
    for (slot, w) in dst.chunks_exact_mut(4).zip(words) {
        slot.copy_from_slice(&w.to_ne_bytes());
    }
    Ok(())
}

/// What a parameter is, for argument-mismatch messages.
fn kind_name(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::Buffer { .. } => "buffer",
        ParamKind::Scalar { .. } => "scalar",
        ParamKind::Value { .. } => "by-value vector or struct",
    }
}

/// `dims` as push-constant words (`u32` each; extents were validated to fit).
fn dim_words(dims: &[usize]) -> impl ExactSizeIterator<Item = u32> + '_ {
    dims.iter().map(|&d| d as u32)
}

/// Push-constant blocks up to this size live on the stack during a launch.
const INLINE_PUSH_BYTES: usize = 256;

/// The specialization of a pipeline: map entries and their data (host byte order).
pub(crate) struct Specialization {
    pub(crate) entries: Vec<vk::SpecializationMapEntry>,
    pub(crate) data: Vec<u8>,
}

impl Specialization {
    /// Adds constant `id` with the value `words` (1 or 2 words, low word first).
    fn push(&mut self, id: u32, words: &[u32]) {
        let offset = self.data.len() as u32;
        match *words {
            [w] => self.data.extend_from_slice(&w.to_ne_bytes()),
            [lo, hi] => self
                .data
                .extend_from_slice(&(u64::from(lo) | (u64::from(hi) << 32)).to_ne_bytes()),
            _ => unreachable!("a specialization constant is 1 or 2 words"),
        }
        self.entries.push(vk::SpecializationMapEntry {
            constant_id: id,
            offset,
            size: 4 * words.len(),
        });
    }
}

fn launch(view: &AcceleratorView, plan: Plan<'_>) -> Result<(), Error> {
    let acc = view.accelerator();
    let Plan {
        info,
        args,
        spec,
        domain,
        tiling,
    } = plan;
    let device = &acc.shared;
    let limits = &device.limits;
    let mismatch = |reason: String| Error::ArgumentMismatch {
        kernel: info.name.to_owned(),
        reason,
    };
    let invalid = |reason: String| Error::InvalidKernel {
        kernel: info.name.to_owned(),
        reason,
    };

    // The domain and the model.
    let total = validate_dims(&domain)? as u64;
    let rank = domain.len();
    if info.rank as usize != rank {
        return Err(mismatch(format!(
            "the kernel's index has rank {} but the domain has rank {rank}",
            info.rank
        )));
    }
    match &tiling {
        None if info.tile_rank != 0 => {
            return Err(mismatch(format!(
                "the kernel is tiled (tile rank {}); launch it over a tiled extent \
                 (`extent.tile::<...>()`)",
                info.tile_rank
            )))
        }
        Some(_) if info.tile_rank == 0 => {
            return Err(mismatch(
                "the kernel is not tiled; launch it over a plain extent".into(),
            ))
        }
        Some(t) if info.tile_rank as usize != t.tile.len() => {
            return Err(mismatch(format!(
                "the kernel's tile has rank {} but the domain's tile {} has rank {}",
                info.tile_rank,
                dims_list(t.tile),
                t.tile.len()
            )))
        }
        _ => {}
    }

    // Capabilities.
    if info.uses_float64 && !device.float64 {
        return Err(Error::MissingCapability {
            kernel: info.name.to_owned(),
            capability: "shaderFloat64",
            device: device.name.clone(),
        });
    }
    if info.push_constant_size > limits.max_push_constants_size {
        return Err(Error::PushConstantsTooLarge {
            kernel: info.name.to_owned(),
            size: info.push_constant_size,
            limit: limits.max_push_constants_size,
        });
    }

    // Specialization constants 3, 4, ...: the call's words against the kernel's types.
    let expected_words: usize = info
        .spec_constants
        .iter()
        .map(|t| t.size() as usize / 4)
        .sum();
    if spec.len() != expected_words {
        return Err(mismatch(format!(
            "the kernel has {} specialization constants ({expected_words} words) but the call \
             supplies {} words",
            info.spec_constants.len(),
            spec.len()
        )));
    }
    let mut specialization = Specialization {
        entries: Vec::new(),
        data: Vec::new(),
    };

    // Arguments against parameters; the push-constant block.
    if args.len() != info.params.len() {
        return Err(mismatch(format!(
            "expected {} arguments, got {}",
            info.params.len(),
            args.len()
        )));
    }
    // The block, on the stack unless it is unusually large (no allocation per launch).
    let mut inline = [0u8; INLINE_PUSH_BYTES];
    let mut heap = Vec::new();
    let push: &mut [u8] = match info.push_constant_size as usize {
        n if n <= INLINE_PUSH_BYTES => &mut inline[..n],
        n => {
            heap.resize(n, 0);
            &mut heap
        }
    };
    put(push, 0, dim_words(&domain), info, "the domain extent")?;
    for (param, arg) in info.params.iter().zip(&args) {
        match (param.kind, &arg.0) {
            (
                ParamKind::Buffer {
                    elem,
                    rank,
                    writable,
                    extent_offset,
                    binding,
                },
                Arg::Buffer { buf, writable: w },
            ) => {
                if buf.elem() != elem {
                    return Err(mismatch(format!(
                        "parameter `{}` has element type {} but the argument has {}",
                        param.name,
                        elem,
                        buf.elem()
                    )));
                }
                if buf.dims().len() != rank as usize {
                    return Err(mismatch(format!(
                        "parameter `{}` has rank {rank} but the argument has rank {}",
                        param.name,
                        buf.dims().len()
                    )));
                }
                if writable && !w {
                    return Err(mismatch(format!(
                        "parameter `{}` is written by the kernel but was passed read-only",
                        param.name
                    )));
                }
                // extent, element offset, strides of all but the last dimension
                let dims = buf.dims();
                let strides = buf.strides();
                let offset_at = extent_offset + 4 * rank;
                put(push, extent_offset, dim_words(dims), info, param.name)?;
                put(push, offset_at, [buf.offset() as u32], info, param.name)?;
                put(push, offset_at + 4, dim_words(&strides), info, param.name)?;
                // What this launch's view looks like, for the pipeline's specialization.
                specialization.push(
                    crate::kernel::LAYOUT_SPEC_ID_BASE + binding,
                    &[layout_facts(buf.offset(), dims, &strides, &domain)],
                );
            }
            (ParamKind::Scalar { ty, offset }, Arg::Scalar { ty: t, bits }) => {
                if ty != *t {
                    return Err(mismatch(format!(
                        "parameter `{}` has type {} but the argument has type {}",
                        param.name,
                        ty.name(),
                        t.name()
                    )));
                }
                // An 8-byte scalar is two words in host byte order.
                let (lo, hi) = (*bits as u32, (*bits >> 32) as u32);
                let (first, second) = if cfg!(target_endian = "little") {
                    (lo, hi)
                } else {
                    (hi, lo)
                };
                match ty.size() {
                    8 => put(push, offset, [first, second], info, param.name)?,
                    _ => put(push, offset, [lo], info, param.name)?,
                }
            }
            (ParamKind::Value { elem, offset }, Arg::Value { elem: e, bytes }) => {
                if elem != *e {
                    return Err(mismatch(format!(
                        "parameter `{}` has type {elem} but the argument has type {e}",
                        param.name
                    )));
                }
                let words = bytes
                    .chunks_exact(4)
                    .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
                put(push, offset, words, info, param.name)?;
            }
            (ParamKind::Buffer { .. } | ParamKind::Value { .. }, Arg::Scalar { .. }) => {
                return Err(mismatch(format!(
                    "parameter `{}` is a {} but a scalar was passed",
                    param.name,
                    kind_name(param.kind)
                )))
            }
            (ParamKind::Scalar { .. } | ParamKind::Value { .. }, Arg::Buffer { .. }) => {
                return Err(mismatch(format!(
                    "parameter `{}` is a {} but a buffer was passed",
                    param.name,
                    kind_name(param.kind)
                )))
            }
            (ParamKind::Buffer { .. } | ParamKind::Scalar { .. }, Arg::Value { elem, .. }) => {
                return Err(mismatch(format!(
                    "parameter `{}` is a {} but a {elem} value was passed",
                    param.name,
                    kind_name(param.kind)
                )))
            }
        }
    }

    let max = limits.max_workgroup_count;
    let groups = match &tiling {
        None => {
            // Simple: ceil(total / workgroup) groups, folded onto x and y.
            let wg = u64::from(info.workgroup_size[0]);
            if wg == 0 || info.workgroup_size.contains(&0) {
                return Err(invalid("workgroup size has a zero dimension".into()));
            }
            if info.workgroup_size[1] != 1 || info.workgroup_size[2] != 1 {
                return Err(invalid(format!(
                    "workgroup size {:?}: simple kernels must have one-dimensional workgroups",
                    info.workgroup_size
                )));
            }
            fold_onto_xy(total.div_ceil(wg), wg, max)?
        }
        Some(Tiling {
            tile,
            tile_static_bytes,
        }) => {
            // Tiled: one workgroup per tile; x is the last dimension.
            let tile_str = || dims_list(tile);
            // Workgroup size per axis x, y, z (1 where the tile has no such dimension).
            let mut size = [1u64; 3];
            for (axis, &t) in tile.iter().rev().enumerate() {
                size[axis] = t as u64;
            }
            let too_large = |limit: &'static str, needed: u64, max: u32| Error::TileTooLarge {
                kernel: info.name.to_owned(),
                tile: tile_str(),
                limit,
                needed,
                max,
            };
            let threads: u64 = size.iter().product();
            if threads > u64::from(limits.max_threads_per_workgroup) {
                return Err(too_large(
                    "maxComputeWorkGroupInvocations",
                    threads,
                    limits.max_threads_per_workgroup,
                ));
            }
            const AXES: [&str; 3] = [
                "maxComputeWorkGroupSize[0] (x, the last tile dimension)",
                "maxComputeWorkGroupSize[1] (y)",
                "maxComputeWorkGroupSize[2] (z, the first of three tile dimensions)",
            ];
            for axis in 0..3 {
                if size[axis] > u64::from(limits.max_workgroup_size[axis]) {
                    return Err(too_large(
                        AXES[axis],
                        size[axis],
                        limits.max_workgroup_size[axis],
                    ));
                }
            }
            if *tile_static_bytes > limits.max_shared_memory_bytes {
                return Err(Error::TileStaticTooLarge {
                    kernel: info.name.to_owned(),
                    tile: tile_str(),
                    needed: *tile_static_bytes,
                    limit: limits.max_shared_memory_bytes,
                });
            }
            if domain.iter().zip(tile.iter()).any(|(&d, &t)| d % t != 0) {
                return Err(Error::NotDivisible {
                    kernel: info.name.to_owned(),
                    extent: dims_list(&domain),
                    tile: tile_str(),
                });
            }
            for (axis, &s) in size.iter().enumerate() {
                specialization.push(axis as u32, &[s as u32]);
            }
            // Tiles per axis x, y, z.
            let mut count = [1u64; 3];
            for (axis, (&d, &t)) in domain.iter().zip(tile.iter()).rev().enumerate() {
                count[axis] = (d / t) as u64;
            }
            if rank == 1 {
                fold_onto_xy(count[0], size[0], max)?
            } else {
                for axis in 0..3 {
                    if count[axis] > u64::from(max[axis]) {
                        return Err(Error::TooManyWorkgroups {
                            groups: count[axis],
                            limit: u64::from(max[axis]),
                        });
                    }
                }
                count.map(|c| c as u32)
            }
        }
    };
    let mut words = spec.as_slice();
    for (i, ty) in info.spec_constants.iter().enumerate() {
        let (value, rest) = words.split_at(ty.size() as usize / 4);
        specialization.push(3 + i as u32, value);
        words = rest;
    }

    let pipeline = cached(device, info, &specialization)?;

    // Device copies, then the dispatch.
    let mut bindings: Vec<(u32, vk::DescriptorBufferInfo)> =
        Vec::with_capacity(pipeline.bindings as usize);
    for (param, arg) in info.params.iter().zip(&args) {
        if let (ParamKind::Buffer { binding, .. }, Arg::Buffer { buf, .. }) = (param.kind, &arg.0) {
            bindings.push((binding, buf.prepare(acc)?));
        }
    }
    let oob_report = OobReport::for_launch(device, info)?;
    bindings.extend(oob_report.as_ref().map(OobReport::binding));
    let ran = pipeline.run(device, view.submitter(), &bindings, push, groups);
    if let Err(Error::Timeout { .. }) = ran {
        // Still running: its writes will land, so the views are marked written (reading them
        // waits for it), and the report is still in use.
        mark_written(&args, acc);
        if let Some(report) = oob_report {
            report.give_back_after_abandoned_work();
        }
        return ran;
    }
    ran?;
    mark_written(&args, acc);
    // The in-bounds writes happened (the views are marked above); now the failed accesses.
    match oob_report {
        Some(report) => report.check(info),
        None => Ok(()),
    }
}

/// Marks the buffers `args` passes as writable as written on `acc`.
/// The layout facts ([`crate::kernel::layout_fact`]) of a view with element offset `offset`,
/// extent `dims` and strides `strides` (all but the last dimension's) in a launch over
/// `domain`.
fn layout_facts(offset: usize, dims: &[usize], strides: &[usize], domain: &[usize]) -> u32 {
    use crate::kernel::layout_fact::*;
    let mut facts = 0;
    if offset == 0 {
        facts |= ZERO_OFFSET;
    }
    let mut row_major = true;
    let mut expected = 1;
    for d in (0..dims.len()).rev() {
        if d + 1 < dims.len() {
            row_major &= strides.get(d) == Some(&expected);
        }
        expected *= dims[d];
    }
    if row_major {
        facts |= DENSE;
    }
    if dims.len() == domain.len() {
        if dims.iter().zip(domain).all(|(e, d)| e >= d) {
            facts |= COVERS_DOMAIN;
        }
        for (d, (e, n)) in dims.iter().zip(domain).enumerate() {
            if e == n {
                facts |= EQUALS_DOMAIN_DIM0 << d;
            }
        }
    }
    facts
}

/// The grid for `groups` workgroups of `threads` threads each along x, folded onto y when they
/// exceed the device's x limit. Balanced: `y = ceil(groups / max_x)` rows of `x = ceil(groups
/// / y)` groups, so fewer than `y` surplus workgroups are dispatched (they leave at once).
/// Kernels compute `(group.x + group.y * groups.x) * threads` in a `u32`, so a grid whose
/// threads would pass `u32::MAX + 1` is refused rather than let that wrap.
fn fold_onto_xy(groups: u64, threads: u64, max: [u32; 3]) -> Result<[u32; 3], Error> {
    let (max_x, max_y) = (u64::from(max[0]).max(1), u64::from(max[1]));
    let y = groups.div_ceil(max_x).max(1);
    if y > max_y {
        return Err(Error::TooManyWorkgroups {
            groups,
            limit: max_x * max_y,
        });
    }
    let x = groups.div_ceil(y).max(1);
    let dispatched = x * y * threads;
    let limit = u64::from(u32::MAX) + 1;
    if dispatched > limit {
        return Err(Error::ExtentTooLarge {
            what:
                "the launch grid's thread count (the domain rounded up to whole rows of workgroups)",
            value: dispatched,
            limit,
        });
    }
    Ok([x as u32, y as u32, 1])
}

fn mark_written(args: &[KernelArg<'_>], acc: &Accelerator) {
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

/// A compute shader given as raw SPIR-V, launched with an explicit workgroup grid.
///
/// For hand-written shaders and benchmarks; kernels written in Rust go through
/// `#[kernel(amp)]` and [`parallel_for_each`]. Buffers are bound in descriptor set 0 at
/// bindings `0..bindings` in the order they are passed; the push-constant block is passed as
/// bytes.
///
/// ```ignore
/// let k = RawKernel::new(&acc, &spirv_words, "main", 2, 4)?;
/// k.dispatch([groups, 1, 1], vec![KernelArg::read(&input), KernelArg::write(&mut output)],
///            &(n as u32).to_ne_bytes())?;
/// ```
pub struct RawKernel {
    acc: Accelerator,
    pipeline: Pipeline,
    name: String,
}

impl RawKernel {
    /// Builds the pipeline for `spirv` (entry point `entry_point`) on `acc`, with
    /// `bindings` storage buffers and `push_constant_size` bytes of push constants.
    pub fn new(
        acc: &Accelerator,
        spirv: &[u32],
        entry_point: &str,
        bindings: u32,
        push_constant_size: u32,
    ) -> Result<Self, Error> {
        let binding_numbers: Vec<u32> = (0..bindings).collect();
        let pipeline = Pipeline::create(
            &acc.shared,
            entry_point,
            spirv,
            entry_point,
            &binding_numbers,
            push_constant_size,
            None,
        )?;
        Ok(RawKernel {
            acc: acc.clone(),
            pipeline,
            name: entry_point.to_owned(),
        })
    }

    /// The accelerator the kernel runs on.
    pub fn accelerator(&self) -> &Accelerator {
        &self.acc
    }

    /// Runs `groups` workgroups with `buffers` bound at bindings `0, 1, ...` and the
    /// push-constant block `push_constants`, and waits for them. Writable buffers
    /// ([`KernelArg::write`]) are marked as written.
    pub fn dispatch(
        &self,
        groups: [u32; 3],
        buffers: Vec<KernelArg<'_>>,
        push_constants: &[u8],
    ) -> Result<(), Error> {
        let mismatch = |reason: String| Error::ArgumentMismatch {
            kernel: self.name.clone(),
            reason,
        };
        if groups.contains(&0) {
            return Err(Error::ZeroExtent);
        }
        let max = self.acc.shared.limits.max_workgroup_count;
        for d in 0..3 {
            if groups[d] > max[d] {
                return Err(Error::TooManyWorkgroups {
                    groups: u64::from(groups[d]),
                    limit: u64::from(max[d]),
                });
            }
        }
        if buffers.len() != self.pipeline.bindings as usize {
            return Err(mismatch(format!(
                "expected {} buffers, got {}",
                self.pipeline.bindings,
                buffers.len()
            )));
        }
        if push_constants.len() != self.pipeline.push_constant_size as usize {
            return Err(mismatch(format!(
                "expected {} bytes of push constants, got {}",
                self.pipeline.push_constant_size,
                push_constants.len()
            )));
        }
        let mut bindings = Vec::with_capacity(buffers.len());
        for (i, arg) in buffers.iter().enumerate() {
            match &arg.0 {
                Arg::Buffer { buf, .. } => bindings.push((i as u32, buf.prepare(&self.acc)?)),
                Arg::Scalar { .. } | Arg::Value { .. } => {
                    return Err(mismatch(format!(
                        "argument {i} is a scalar or value; pass those in the push constants"
                    )))
                }
            }
        }
        let device = &self.acc.shared;
        self.pipeline
            .run(device, &device.submitter, &bindings, push_constants, groups)?;
        for arg in &buffers {
            if let Arg::Buffer {
                buf,
                writable: true,
            } = &arg.0
            {
                buf.mark_written(&self.acc);
            }
        }
        Ok(())
    }
}

impl Drop for RawKernel {
    fn drop(&mut self) {
        // SAFETY: every dispatch was waited for; the pipeline is not used again.
        unsafe { self.pipeline.destroy(&self.acc.shared.device) };
    }
}

impl std::fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawKernel")
            .field("entry_point", &self.name)
            .field("accelerator", &self.acc.name())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: [u32; 3] = [65535, 65535, 65535];

    #[test]
    fn layout_facts_of_views() {
        use crate::kernel::layout_fact::*;
        // A whole [4, 6] array in a [4, 6] domain: everything.
        assert_eq!(
            layout_facts(0, &[4, 6], &[6], &[4, 6]),
            ZERO_OFFSET | DENSE | COVERS_DOMAIN | EQUALS_DOMAIN_DIM0 | EQUALS_DOMAIN_DIM0 << 1
        );
        // A [2, 3] section at offset 7 of a [4, 6] array, in a [2, 6] domain.
        assert_eq!(layout_facts(7, &[2, 3], &[6], &[2, 6]), EQUALS_DOMAIN_DIM0);
        // A [8, 6] view in a [4, 6] domain: covers, equal in dimension 1 only.
        assert_eq!(
            layout_facts(0, &[8, 6], &[6], &[4, 6]),
            ZERO_OFFSET | DENSE | COVERS_DOMAIN | EQUALS_DOMAIN_DIM0 << 1
        );
        // Rank 1 in a rank-2 domain: no domain facts; rank 3 strides.
        assert_eq!(layout_facts(0, &[5], &[], &[5, 5]), ZERO_OFFSET | DENSE);
        assert_eq!(
            layout_facts(0, &[2, 3, 4], &[12, 4], &[9]),
            ZERO_OFFSET | DENSE
        );
        assert_eq!(layout_facts(0, &[2, 3, 4], &[24, 4], &[9]), ZERO_OFFSET);
    }

    #[test]
    fn small_grids_stay_on_x() {
        assert_eq!(fold_onto_xy(10, 64, LIMITS).unwrap(), [10, 1, 1]);
        assert_eq!(fold_onto_xy(65535, 64, LIMITS).unwrap(), [65535, 1, 1]);
    }

    #[test]
    fn large_grids_fold_into_balanced_rows() {
        // 16M threads of 64: 262144 groups as 5 rows of 52429 (one spare group, not 65531).
        assert_eq!(fold_onto_xy(262_144, 64, LIMITS).unwrap(), [52_429, 5, 1]);
        let [x, y, _] = fold_onto_xy(65_536, 256, LIMITS).unwrap();
        assert_eq!((x, y), (32_768, 2));
    }

    #[test]
    fn grids_past_the_limits_are_refused() {
        assert!(matches!(
            fold_onto_xy(65_535 * 65_535 + 1, 1, LIMITS),
            Err(Error::TooManyWorkgroups { .. })
        ));
        // 2^26 - 1 groups of 64 threads fit a u32, but 1025 rows of 65473 groups do not.
        assert!(matches!(
            fold_onto_xy((1 << 26) - 1, 64, LIMITS),
            Err(Error::ExtentTooLarge { .. })
        ));
    }
}
