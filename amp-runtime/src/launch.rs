//! Kernel calls and launches: [`KernelCall`], [`KernelArg`], [`parallel_for_each`] and
//! [`RawKernel`].

use std::marker::PhantomData;

use ash::vk;

use crate::buffer_access::{BufferAccess, DeviceBuffer, DeviceBufferMut};
use crate::kernel::{KernelInfo, ParamKind, ScalarType};
use crate::pipeline::{cached, Pipeline};
use crate::{Accelerator, Error, Extent, ScalarArg};

enum Arg<'a> {
    Buffer {
        buf: &'a dyn BufferAccess,
        writable: bool,
    },
    Scalar {
        ty: ScalarType,
        bits: u64,
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
        }
    }
}

/// A kernel bound to its arguments, ready for [`parallel_for_each`] over an `N`-dimensional
/// domain. Returned by the launcher function of a `#[kernel(amp)]` kernel.
#[derive(Debug)]
pub struct KernelCall<'a, const N: usize> {
    info: &'static KernelInfo,
    args: Vec<KernelArg<'a>>,
    _rank: PhantomData<[(); N]>,
}

impl<'a, const N: usize> KernelCall<'a, N> {
    /// Binds `args` (one per entry of `info.params`, in order) to the kernel `info`.
    #[doc(hidden)]
    pub fn new(info: &'static KernelInfo, args: Vec<KernelArg<'a>>) -> Self {
        KernelCall {
            info,
            args,
            _rank: PhantomData,
        }
    }

    /// The kernel's metadata (name, SPIR-V, parameters, workgroup size).
    pub fn kernel(&self) -> &'static KernelInfo {
        self.info
    }

    /// The accelerator the call's arrays live on, if any.
    fn home(&self) -> Result<Option<Accelerator>, Error> {
        let mut home: Option<Accelerator> = None;
        for arg in &self.args {
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
}

/// Runs `call` once for every index of `domain` (C++ AMP's `parallel_for_each`), on the
/// accelerator the call's [`Array`](crate::Array)s live on, or else the default
/// accelerator, and waits for it to finish.
///
/// Views are copied to the device as needed; views the kernel writes have their device copy
/// marked newer (see [`ArrayViewMut::synchronize`](crate::ArrayViewMut::synchronize)).
///
/// ```ignore
/// parallel_for_each(sum.extent(), add(&a, &b, &mut sum))?;
/// ```
pub fn parallel_for_each<const N: usize>(
    domain: Extent<N>,
    call: KernelCall<'_, N>,
) -> Result<(), Error> {
    let acc = match call.home()? {
        Some(acc) => acc,
        None => Accelerator::default()?,
    };
    launch(&acc, domain, call)
}

/// [`parallel_for_each`] on a chosen accelerator. Arrays in the call must live on it.
pub fn parallel_for_each_on<const N: usize>(
    acc: &Accelerator,
    domain: Extent<N>,
    call: KernelCall<'_, N>,
) -> Result<(), Error> {
    launch(acc, domain, call)
}

fn put(
    block: &mut [u8],
    offset: u32,
    bytes: &[u8],
    kernel: &KernelInfo,
    what: &str,
) -> Result<(), Error> {
    let start = offset as usize;
    match block.get_mut(start..start + bytes.len()) {
        Some(dst) => {
            dst.copy_from_slice(bytes);
            Ok(())
        }
        None => Err(Error::InvalidKernel {
            kernel: kernel.name.to_owned(),
            reason: format!(
                "{what} at byte {offset} does not fit the {}-byte push-constant block",
                block.len()
            ),
        }),
    }
}

fn dims_bytes(dims: &[usize]) -> Vec<u8> {
    dims.iter()
        .flat_map(|&d| (d as u32).to_ne_bytes())
        .collect()
}

fn launch<const N: usize>(
    acc: &Accelerator,
    domain: Extent<N>,
    call: KernelCall<'_, N>,
) -> Result<(), Error> {
    let info = call.info;
    let device = &acc.shared;
    let mismatch = |reason: String| Error::ArgumentMismatch {
        kernel: info.name.to_owned(),
        reason,
    };

    // The domain.
    let total = domain.validate()? as u64;
    if info.rank as usize != N {
        return Err(mismatch(format!(
            "the kernel's index has rank {} but the domain has rank {N}",
            info.rank
        )));
    }

    // Capabilities.
    if info.uses_float64 && !device.float64 {
        return Err(Error::MissingCapability {
            kernel: info.name.to_owned(),
            capability: "shaderFloat64",
            device: device.name.clone(),
        });
    }
    if info.push_constant_size > device.limits.max_push_constants_size {
        return Err(Error::PushConstantsTooLarge {
            kernel: info.name.to_owned(),
            size: info.push_constant_size,
            limit: device.limits.max_push_constants_size,
        });
    }

    // Arguments against parameters; the push-constant block.
    if call.args.len() != info.params.len() {
        return Err(mismatch(format!(
            "expected {} arguments, got {}",
            info.params.len(),
            call.args.len()
        )));
    }
    let mut push = vec![0u8; info.push_constant_size as usize];
    put(
        &mut push,
        0,
        &dims_bytes(domain.as_slice()),
        info,
        "the domain extent",
    )?;
    for (param, arg) in info.params.iter().zip(&call.args) {
        match (param.kind, &arg.0) {
            (
                ParamKind::Buffer {
                    elem,
                    rank,
                    writable,
                    extent_offset,
                    ..
                },
                Arg::Buffer { buf, writable: w },
            ) => {
                if buf.elem() != elem {
                    return Err(mismatch(format!(
                        "parameter `{}` has element type {} but the argument has {}",
                        param.name,
                        elem.name(),
                        buf.elem().name()
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
                put(
                    &mut push,
                    extent_offset,
                    &dims_bytes(buf.dims()),
                    info,
                    param.name,
                )?;
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
                let bytes = match ty.size() {
                    8 => bits.to_ne_bytes().to_vec(),
                    _ => (*bits as u32).to_ne_bytes().to_vec(),
                };
                put(&mut push, offset, &bytes, info, param.name)?;
            }
            (ParamKind::Buffer { .. }, Arg::Scalar { .. }) => {
                return Err(mismatch(format!(
                    "parameter `{}` is a buffer but a scalar was passed",
                    param.name
                )))
            }
            (ParamKind::Scalar { .. }, Arg::Buffer { .. }) => {
                return Err(mismatch(format!(
                    "parameter `{}` is a scalar but a buffer was passed",
                    param.name
                )))
            }
        }
    }

    // The dispatch grid: ceil(total / workgroup) groups, folded onto x and y.
    let wg = u64::from(info.workgroup_size[0]);
    if wg == 0 || info.workgroup_size.contains(&0) {
        return Err(Error::InvalidKernel {
            kernel: info.name.to_owned(),
            reason: "workgroup size has a zero dimension".into(),
        });
    }
    if info.workgroup_size[1] != 1 || info.workgroup_size[2] != 1 {
        return Err(Error::InvalidKernel {
            kernel: info.name.to_owned(),
            reason: format!(
                "workgroup size {:?}: only one-dimensional workgroups (simple kernels) are launched by this runtime so far",
                info.workgroup_size
            ),
        });
    }
    let groups = total.div_ceil(wg);
    let max = device.limits.max_workgroup_count;
    let x = groups.min(u64::from(max[0])).max(1);
    let y = groups.div_ceil(x);
    if y > u64::from(max[1]) {
        return Err(Error::TooManyWorkgroups {
            groups,
            limit: u64::from(max[0]) * u64::from(max[1]),
        });
    }

    let pipeline = cached(device, info)?;

    // Device copies, then the dispatch.
    let mut bindings: Vec<(u32, vk::Buffer)> = Vec::with_capacity(pipeline.bindings as usize);
    for (param, arg) in info.params.iter().zip(&call.args) {
        if let (ParamKind::Buffer { binding, .. }, Arg::Buffer { buf, .. }) = (param.kind, &arg.0) {
            bindings.push((binding, buf.prepare(acc)?));
        }
    }
    pipeline.run(device, &bindings, &push, [x as u32, y as u32, 1])?;
    for arg in &call.args {
        if let Arg::Buffer {
            buf,
            writable: true,
        } = &arg.0
        {
            buf.mark_written(acc);
        }
    }
    Ok(())
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
                Arg::Scalar { .. } => {
                    return Err(mismatch(format!(
                        "argument {i} is a scalar; pass scalars in the push constants"
                    )))
                }
            }
        }
        self.pipeline
            .run(&self.acc.shared, &bindings, push_constants, groups)?;
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
