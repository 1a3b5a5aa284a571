//! Launches on the native CPU accelerator: the Rust code `#[kernel(amp)]` generates beside
//! each kernel's SPIR-V (amp-spirv's native back end), run over the domain on the accelerator's
//! `rayon` pool.
//!
//! The macro emits one entry function per kernel instance, [`NativeCode::Entry`], which this
//! module calls with a [`NativeLaunch`]: the entry reads its arguments from it
//! ([`NativeLaunch::buf`], [`NativeLaunch::value`], [`NativeLaunch::spec`]) and hands the
//! generated thread (or tile) function to [`NativeLaunch::for_each`] (or
//! [`NativeLaunch::for_each_tile`]), generic over the closure, so rustc inlines the kernel
//! into each chunk's loop. Launches finish before they return; views of host slices are used
//! in place and arrays on this accelerator are host memory.

use std::panic::{catch_unwind, AssertUnwindSafe};

use amp_abi::native_rt::{Buf, OobReport};
use rayon::prelude::*;

use super::args::encode_args;
use super::bounds::decode;
use super::call::{Arg, Plan};
use super::grid::tiled_grid;
use super::launch::{check_shape, check_spec_words};
use super::pipeline::Specialization;
use crate::data::{BufferAccess, NativePrepared};
use crate::device::{Accelerator, Limits, NativeDevice};
use crate::kernel::{KernelInfo, ParamKind};
use crate::Error;

/// A kernel's native code, as `#[kernel(amp)]` generated it.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum NativeCode {
    /// The entry that runs a whole launch.
    Entry(unsafe fn(&NativeLaunch<'_>)),
    /// Why the kernel has no native code (a construct the native back end does not
    /// translate yet).
    Unsupported(&'static str),
}

/// Fewest elements a pool task runs: below this, scheduling costs more than it saves (and a
/// launch this small runs on the calling thread).
const MIN_CHUNK: usize = 16 * 1024;

/// One argument of a native launch.
enum NativeArg {
    /// A view or array: its memory and layout.
    Buffer {
        ptr: *mut u8,
        extent: [u32; 3],
        offset: u32,
        strides: [u32; 3],
    },
    /// A scalar or by-value vector or struct: its host bytes.
    Bytes(Vec<u8>),
    /// A texture or sampler (never reached: kernels with them have no native code).
    Other,
}

/// What a native entry reads its launch from. Only generated code uses it.
#[doc(hidden)]
pub struct NativeLaunch<'a> {
    pool: &'a rayon::ThreadPool,
    threads: usize,
    domain: [u32; 3],
    tile: [u32; 3],
    args: Vec<NativeArg>,
    spec: &'a [u32],
    oob: OobReport,
}

// SAFETY: the raw pointers are the launch's buffers, which the generated code shares between
// its threads exactly as the kernel's threads share them on a device.
unsafe impl Sync for NativeLaunch<'_> {}

impl NativeLaunch<'_> {
    /// Buffer argument `i` as the thread ABI's `Buf`.
    ///
    /// # Safety
    /// Argument `i` is a buffer whose elements are `T`s and whose rank is `R`.
    #[inline]
    pub unsafe fn buf<T, const R: usize>(&self, i: usize) -> Buf<T, R> {
        match &self.args[i] {
            NativeArg::Buffer {
                ptr,
                extent,
                offset,
                strides,
            } => {
                let mut e = [0; R];
                let mut s = [1; R];
                e.copy_from_slice(&extent[..R]);
                s.copy_from_slice(&strides[..R]);
                Buf {
                    ptr: ptr.cast(),
                    extent: e,
                    offset: *offset,
                    strides: s,
                }
            }
            _ => unreachable!("argument {i} is not a buffer (the launch checked the arguments)"),
        }
    }

    /// Scalar or by-value argument `i`, read from its host bytes.
    ///
    /// # Safety
    /// Argument `i` holds a `T` (its host bytes, at least `size_of::<T>()` of them; a `bool`
    /// or `usize` scalar is read as `bool` or `u32` from its little-endian bits).
    #[inline]
    pub unsafe fn value<T: Copy>(&self, i: usize) -> T {
        match &self.args[i] {
            NativeArg::Bytes(b) => {
                assert!(
                    b.len() >= std::mem::size_of::<T>(),
                    "argument {i} is too small"
                );
                // SAFETY: per the contract, the bytes are a `T`.
                unsafe { b.as_ptr().cast::<T>().read_unaligned() }
            }
            _ => unreachable!("argument {i} is not a value (the launch checked the arguments)"),
        }
    }

    /// Word `i` of the outer constants' values (an `f64` is two words, low first).
    #[inline]
    pub fn spec(&self, i: usize) -> u32 {
        self.spec[i]
    }

    /// The launch's out-of-bounds report.
    #[inline]
    pub fn oob(&self) -> &OobReport {
        &self.oob
    }

    /// Runs `thread` for every index of the domain, in parallel chunks of whole rows (the
    /// last dimension is each chunk's inner loop).
    #[inline]
    pub fn for_each<const R: usize, F: Fn([u32; R]) + Sync>(&self, thread: F) {
        let d = &self.domain[..R];
        let inner = d[R - 1] as usize;
        let rows: usize = d[..R - 1].iter().map(|&n| n as usize).product();
        let run_rows = |lo: usize, hi: usize| {
            for row in lo..hi {
                let mut idx = [0u32; R];
                let mut rest = row;
                for k in (0..R - 1).rev() {
                    idx[k] = (rest % d[k] as usize) as u32;
                    rest /= d[k] as usize;
                }
                for j in 0..inner as u32 {
                    idx[R - 1] = j;
                    thread(idx);
                }
            }
        };
        if R == 1 {
            // One row: chunks of it.
            let chunk = chunk_len(inner, self.threads);
            let run = |lo: usize, hi: usize| {
                for i in lo as u32..hi as u32 {
                    let mut idx = [0u32; R];
                    idx[0] = i;
                    thread(idx);
                }
            };
            self.split(inner, chunk, &run);
        } else {
            let per_chunk = chunk_len(rows * inner, self.threads).div_ceil(inner.max(1));
            self.split(rows, per_chunk.max(1), &run_rows);
        }
    }

    /// Runs `tile` for every tile of the domain, one pool task per tile.
    #[inline]
    pub fn for_each_tile<const R: usize, F: Fn([u32; R]) + Sync>(&self, tile: F) {
        let grid: [u32; R] = std::array::from_fn(|k| self.domain[k] / self.tile[k]);
        let count: usize = grid.iter().map(|&n| n as usize).product();
        let run = |lo: usize, hi: usize| {
            for t in lo..hi {
                let mut idx = [0u32; R];
                let mut rest = t;
                for k in (0..R).rev() {
                    idx[k] = (rest % grid[k] as usize) as u32;
                    rest /= grid[k] as usize;
                }
                tile(idx);
            }
        };
        let threads_per_tile: usize = self.tile[..R].iter().map(|&n| n as usize).product();
        let per_task = (MIN_CHUNK / threads_per_tile.max(1)).max(1);
        self.split(
            count,
            per_task.min(count.div_ceil(self.threads * 4).max(1)),
            &run,
        );
    }

    /// Runs `run(lo, hi)` over `0..n` in pieces of `chunk` on the pool (on the calling
    /// thread when one piece covers it all).
    fn split(&self, n: usize, chunk: usize, run: &(dyn Fn(usize, usize) + Sync)) {
        if n <= chunk || self.threads == 1 {
            run(0, n);
            return;
        }
        let pieces = n.div_ceil(chunk);
        self.pool.install(|| {
            (0..pieces)
                .into_par_iter()
                .for_each(|p| run(p * chunk, ((p + 1) * chunk).min(n)));
        });
    }
}

/// Elements per pool task for `n` elements: about four tasks per thread, at least
/// [`MIN_CHUNK`].
fn chunk_len(n: usize, threads: usize) -> usize {
    n.div_ceil(threads * 4).max(MIN_CHUNK)
}

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
    for (dst, &src) in dims.iter_mut().zip(&domain) {
        *dst = u32::try_from(src).map_err(|_| Error::ExtentTooLarge {
            what: "a native launch's extent",
            value: src as u64,
            limit: u64::from(u32::MAX),
        })?;
    }
    let mut keep: Vec<NativePrepared> = Vec::new();
    let mut native_args = Vec::with_capacity(args.len());
    for (param, arg) in info.params.iter().zip(&args) {
        native_args.push(match &arg.0 {
            Arg::Buffer { buf, .. } => {
                let p = buf.prepare_native(acc)?;
                check_reach(info, param.name, &**buf, &p)?;
                let arg = NativeArg::Buffer {
                    ptr: p.ptr,
                    extent: words(buf.dims()),
                    offset: buf.offset() as u32,
                    strides: words(&buf.strides()),
                };
                keep.push(p);
                arg
            }
            Arg::Scalar { bits, .. } => NativeArg::Bytes(bits.to_le_bytes().to_vec()),
            Arg::Value { bytes, .. } => NativeArg::Bytes(bytes.clone()),
            Arg::Texture { .. } | Arg::Sampler(_) => {
                if matches!(
                    param.kind,
                    ParamKind::Texture { .. } | ParamKind::Sampler { .. }
                ) {
                    return Err(Error::NativeUnsupported {
                        what: format!("kernel `{}`", info.name),
                        reason: "textures and samplers are Vulkan images".into(),
                    });
                }
                NativeArg::Other
            }
        });
    }
    let launch = NativeLaunch {
        pool: device.pool(),
        threads: device.threads(),
        domain: dims,
        tile,
        args: native_args,
        spec: &spec,
        oob: OobReport::new(),
    };
    // SAFETY: the arguments were checked against the kernel's parameters (types, ranks,
    // writability) by `encode_args`, the buffers point at host memory current for the launch
    // and kept alive by `keep` and the borrows of `args`, and the entry was generated for
    // this kernel by `#[kernel(amp)]`.
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
