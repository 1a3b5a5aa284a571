//! Launches on the native CPU accelerator: the Rust code `#[kernel(amp)]` generates beside
//! each kernel's SPIR-V (amp-spirv's native back end), run over the domain on the accelerator's
//! `rayon` pool.
//!
//! The macro emits one entry function per kernel instance, [`NativeCode::Entry`], which this
//! module calls with a [`NativeLaunch`] (see `executor`) after the checks every launch gets.
//! Launches finish before they return; views of host slices are used in place and arrays on
//! this accelerator are host memory.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, RwLockReadGuard, RwLockWriteGuard};

use amp_native_rt::OobReport;

use super::args::encode_args;
use super::bounds::decode;
use super::call::{Arg, Plan};
use super::checks::{check_shape, check_spec_words};
use super::executor::{NativeArg, NativeCode, NativeLaunch};
use super::grid::tiled_grid;
use super::pipeline::Specialization;
use crate::data::{BufferAccess, NativePrepared};
use crate::device::{Accelerator, Limits, NativeDevice};
use crate::kernel::{KernelInfo, TextureAccess};
use crate::texture::{native_kind, HostTexels, Texels};
use crate::Error;

/// Runs `plan` on the native CPU accelerator `acc`: the same checks as a Vulkan launch, then
/// the kernel's native entry over host memory; finishes before it returns.
pub(super) fn launch_native(
    acc: &Accelerator,
    device: &NativeDevice,
    plan: Plan<'_>,
) -> Result<(), Error> {
    let Plan {
        info,
        args,
        spec,
        domain,
        tiling,
        native,
    } = plan;
    check_shape(info, &domain, tiling.as_ref())?;
    check_spec_words(info, &spec)?;
    // The argument and tile checks of a Vulkan launch, against the limits kernels are
    // compiled for.
    let mut push = vec![0u8; info.push_constant_size as usize];
    let mut specialization = Specialization::default();
    encode_args(info, &args, &domain, &mut push, &mut specialization)?;
    let mut tile = [1u32; 3];
    if let Some(t) = &tiling {
        tiled_grid(info, &domain, t, &Limits::native(), &mut specialization)?;
        for (dst, &src) in tile.iter_mut().zip(t.tile) {
            *dst = src as u32;
        }
    }
    if domain.contains(&0) {
        // An empty domain launches nothing (its arguments and tile were checked above).
        return Ok(());
    }
    let entry = match native {
        NativeCode::Entry(entry) => entry,
        NativeCode::Unsupported(why) => {
            return Err(Error::NativeUnsupported {
                what: format!("kernel `{}`", info.name),
                reason: why.to_owned(),
            })
        }
    };
    let mut dims = [1u32; 3];
    for (dst, &src) in dims.iter_mut().zip(domain.iter()) {
        *dst = u32::try_from(src).map_err(|_| Error::ExtentTooLarge {
            what: "a native launch's extent",
            value: src as u64,
            limit: u64::from(u32::MAX),
        })?;
    }
    let mut keep: Vec<NativePrepared> = Vec::new();
    // The launch's host textures, each once, and whether it writes them.
    let mut textures: Vec<(Arc<HostTexels>, bool)> = Vec::new();
    let mut native_args = Vec::with_capacity(args.len());
    for (param, arg) in info.params.iter().zip(&args) {
        native_args.push(match &arg.0 {
            Arg::Buffer { buf, .. } => {
                let p = buf.prepare_native(acc)?;
                check_reach(info, param.name, &**buf, &p)?;
                let covers = buf.dims().len() == domain.len()
                    && buf.dims().iter().zip(domain.iter()).all(|(v, d)| v >= d);
                let arg = NativeArg::Buffer {
                    ptr: p.ptr,
                    extent: words(buf.dims()),
                    offset: buf.offset() as u32,
                    strides: words(&buf.strides()),
                    covers,
                };
                keep.push(p);
                arg
            }
            Arg::Scalar { bits, .. } => NativeArg::Bytes(bits.to_le_bytes().to_vec()),
            Arg::Value { bytes, .. } => NativeArg::Bytes(bytes.clone()),
            Arg::Texture { target, access, .. } => {
                let host = match &target.texels {
                    Texels::Host(h) if target.acc == *acc => h,
                    _ => {
                        return Err(Error::AcceleratorMismatch {
                            array: target.acc.name().to_owned(),
                            launch: acc.name().to_owned(),
                        })
                    }
                };
                let write = *access == TextureAccess::Write;
                match textures.iter_mut().find(|(h, _)| Arc::ptr_eq(h, host)) {
                    Some((_, w)) if *w != write => {
                        return Err(Error::ArgumentMismatch {
                            kernel: info.name.to_owned(),
                            reason: format!(
                                "parameter `{}`: the texture is both read and written in this launch (a `TextureView` and a `WriteonlyTextureView` of one texture); write into a second texture",
                                param.name
                            ),
                        })
                    }
                    Some(_) => {}
                    None => textures.push((host.clone(), write)),
                }
                NativeArg::Texture {
                    ptr: host.as_ptr(),
                    extent: words(&target.dims),
                    kind: native_kind(target.kind),
                    bits: target.bits,
                    components: target.components,
                }
            }
            Arg::Sampler(s) => NativeArg::Sampler(s.native()),
        });
    }
    // Launches that write a texture exclude every other use of it (the host's copies, other
    // launches); readers share it. Taken in one order (by address), so two launches never wait
    // for each other.
    textures.sort_by_key(|(h, _)| Arc::as_ptr(h) as usize);
    let _texture_locks: Vec<TextureLock<'_>> = textures
        .iter()
        .map(|(h, write)| match write {
            true => TextureLock::Write(h.claim()),
            false => TextureLock::Read(h.share()),
        })
        .collect();
    let launch = NativeLaunch {
        team: device.team(),
        pool: device.pool(),
        threads: device.threads(),
        domain: dims,
        tile,
        args: native_args,
        spec: &spec,
        oob: OobReport::new(),
    };
    // SAFETY: the arguments were checked against the kernel's parameters (types, ranks,
    // writability, texel types) by `encode_args`, the buffers point at host memory current for
    // the launch and kept alive by `keep` and the borrows of `args`, the textures' host memory
    // is kept alive by `args` and locked for the launch (written ones exclusively), and the
    // entry was generated for this kernel by `#[kernel(amp)]`.
    let ran = catch_unwind(AssertUnwindSafe(|| unsafe { entry(&launch) }));
    drop(keep);
    for arg in &args {
        if let Arg::Buffer {
            buf,
            writable: true,
        } = &arg.0
        {
            buf.mark_written_native();
        }
    }
    if let Err(panic) = ran {
        return Err(panicked(info, panic));
    }
    match decode(&launch.oob.read(), info) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A launch's hold on one host texture.
enum TextureLock<'a> {
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

/// Checks that every element of the view `buf` lies in the memory `p` (views are checked
/// against their data when made; this keeps a native launch from reaching outside it even if
/// that ever failed).
fn check_reach(
    info: &KernelInfo,
    name: &str,
    buf: &dyn BufferAccess,
    p: &NativePrepared,
) -> Result<(), Error> {
    let dims = buf.dims();
    if dims.contains(&0) {
        // An empty view reaches nothing.
        return Ok(());
    }
    let strides = buf.strides();
    let last = dims.iter().enumerate().fold(buf.offset(), |at, (d, &n)| {
        at + n.saturating_sub(1) * strides.get(d).copied().unwrap_or(1)
    });
    let size = buf.elem().size() as usize;
    if (last + 1) * size > p.len {
        return Err(Error::ArgumentMismatch {
            kernel: info.name.to_owned(),
            reason: format!("parameter `{name}`: the view reaches past its data"),
        });
    }
    Ok(())
}

/// A kernel's panic as an error (generated code does not panic; this is a bug in amp-rs).
fn panicked(info: &KernelInfo, panic: Box<dyn std::any::Any + Send>) -> Error {
    let msg = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    Error::InvalidKernel {
        kernel: info.name.to_owned(),
        reason: format!("its native code panicked ({msg}); please report this as a bug"),
    }
}

/// Up to three dimensions as `u32`s (views' extents and strides fit: arrays and views are
/// validated when made).
fn words(v: &[usize]) -> [u32; 3] {
    let mut out = [0u32; 3];
    for (o, &x) in out.iter_mut().zip(v) {
        *o = x as u32;
    }
    out
}
