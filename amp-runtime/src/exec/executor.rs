//! The native CPU accelerator's executor: [`NativeCode`], the entry `#[kernel(amp)]` generates
//! beside each kernel's SPIR-V, and [`NativeLaunch`], what that entry reads its launch from and
//! runs the generated thread (or tile) function over the domain with, on the accelerator's
//! launch team (`device/team.rs`). [`for_each`](NativeLaunch::for_each) and
//! [`for_each_tile`](NativeLaunch::for_each_tile) are generic over the closure, so rustc inlines
//! the kernel into each chunk's loop.

use amp_native_rt::{Buf, OobReport, Smp, Tex, TexKind};
use rayon::prelude::*;

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

/// Fewest threads of loop-free work a pool task runs: below this, scheduling costs more than
/// it saves (and a launch this small runs on the calling thread). A kernel whose threads each
/// run `work` loop iterations (the compiler's estimate) needs `work` times fewer.
const MIN_CHUNK: usize = 16 * 1024;

/// Fewest threads a pool task runs, however heavy each is.
const MIN_HEAVY_CHUNK: usize = 8;

/// One argument of a native launch.
pub(super) enum NativeArg {
    /// A view or array: its memory and layout.
    Buffer {
        ptr: *mut u8,
        extent: [u32; 3],
        offset: u32,
        strides: [u32; 3],
        /// The view covers the launch domain (`Buf::covers`).
        covers: bool,
    },
    /// A scalar or by-value vector or struct: its host bytes.
    Bytes(Vec<u8>),
    /// A texture view: its texels' memory and format.
    Texture {
        ptr: *mut u8,
        extent: [u32; 3],
        kind: TexKind,
        bits: u32,
        components: u32,
    },
    /// A sampler.
    Sampler(Smp),
}

/// The index of the first thread of row `row` of a domain `d` of rank `R` (rows in row-major
/// order over every dimension but the last, which is 0).
#[inline]
fn row_start<const R: usize>(d: &[u32], row: usize) -> [u32; R] {
    let mut idx = [0u32; R];
    let mut left = row;
    for k in (0..R - 1).rev() {
        idx[k] = (left % d[k] as usize) as u32;
        left /= d[k] as usize;
    }
    idx
}

/// What a native entry reads its launch from. Only generated code uses it.
#[doc(hidden)]
pub struct NativeLaunch<'a> {
    pub(super) team: Option<&'a crate::device::Team>,
    pub(super) pool: &'a rayon::ThreadPool,
    pub(super) threads: usize,
    pub(super) domain: [u32; 3],
    pub(super) tile: [u32; 3],
    pub(super) args: Vec<NativeArg>,
    pub(super) spec: &'a [u32],
    pub(super) oob: OobReport,
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
                covers,
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
                    covers: *covers,
                }
            }
            _ => unreachable!("argument {i} is not a buffer (the launch checked the arguments)"),
        }
    }

    /// Texture argument `i` as the thread ABI's `Tex`.
    ///
    /// # Safety
    /// Argument `i` is a texture of rank `R`.
    #[inline]
    pub unsafe fn tex<const R: usize>(&self, i: usize) -> Tex<R> {
        match &self.args[i] {
            NativeArg::Texture {
                ptr,
                extent,
                kind,
                bits,
                components,
            } => {
                let mut e = [0; R];
                e.copy_from_slice(&extent[..R]);
                Tex {
                    ptr: *ptr,
                    extent: e,
                    kind: *kind,
                    bits: *bits,
                    comps: *components,
                }
            }
            _ => unreachable!("argument {i} is not a texture (the launch checked the arguments)"),
        }
    }

    /// Sampler argument `i`.
    #[inline]
    pub fn sampler(&self, i: usize) -> Smp {
        match &self.args[i] {
            NativeArg::Sampler(s) => *s,
            _ => unreachable!("argument {i} is not a sampler (the launch checked the arguments)"),
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

    /// Whether every buffer argument covers the launch domain (`Buf::covers`): the entry then
    /// runs the kernel's variant without the checks that proves unnecessary.
    #[inline]
    pub fn all_buffers_cover(&self) -> bool {
        self.args.iter().all(|a| match a {
            NativeArg::Buffer { covers, .. } => *covers,
            _ => true,
        })
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
    /// `work`: the compiler's estimate of one thread's loop iterations (see [`chunk_len`]).
    #[inline]
    pub fn for_each<const R: usize, F: Fn([u32; R]) + Sync + Copy>(&self, work: u32, thread: F) {
        let d = &self.domain[..R];
        let inner = d[R - 1] as usize;
        let rows: usize = d[..R - 1].iter().map(|&n| n as usize).product();
        let run_rows = |lo: usize, hi: usize| {
            // A copy on this task's stack: its captures (the buffers' pointers, extents and
            // `covers` flags) are then provably untouched by the kernel's stores, so LLVM keeps
            // them in registers and unswitches the bounds checks out of the loop.
            #[allow(clippy::redundant_locals)] // the copy is the point (see above)
            let thread = thread;
            for row in lo..hi {
                let mut idx = row_start::<R>(d, row);
                for j in 0..inner as u32 {
                    idx[R - 1] = j;
                    thread(idx);
                }
            }
        };
        if R == 1 {
            // One row: chunks of it.
            let chunk = chunk_len(inner, self.threads, work);
            let run = |lo: usize, hi: usize| {
                #[allow(clippy::redundant_locals)] // a copy per task, as in `run_rows`
                let thread = thread;
                for i in lo as u32..hi as u32 {
                    let mut idx = [0u32; R];
                    idx[0] = i;
                    thread(idx);
                }
            };
            self.split(inner, chunk, &run);
        } else {
            let per_chunk = chunk_len(rows * inner, self.threads, work).div_ceil(inner.max(1));
            self.split(rows, per_chunk.max(1), &run_rows);
        }
    }

    /// Runs a simple kernel's batch function `batch` for every run of `lanes` neighbouring
    /// threads of each row, called with `([i0, .., j / lanes], n, 1)` for the `n` threads
    /// `j..j + n` (see amp-spirv's `native_batched`): `lanes` of them, and a row's last batch
    /// its remaining `len % lanes`. In parallel chunks of rows (of one row's batches for a 1-D
    /// domain).
    ///
    /// A `wide` batch function (one without per-thread frames) may run more than `lanes`
    /// threads per call, and `fits` says whether such a call, `(first batch, count, rows)`,
    /// runs without the checks its guard decides. In a domain of rank 2 or more, a chunk's
    /// whole rows of one plane (neighbours along the dimension before the last) that fit go in
    /// one call `([i0, .., r, 0], len, rows)`: one guard and one work-item loop for all their
    /// threads. A row of a block that does not fit is tried alone: a run of its batches that
    /// fits goes in one call. A run that does not (an index that leaves its view near the
    /// row's start or end) tries the batches between its first and last whole ones, and runs
    /// the rest batch by batch, so only those threads take the checked path.
    #[inline]
    pub fn for_each_batched<const R: usize, F, B>(
        &self,
        work: u32,
        lanes: u32,
        wide: bool,
        fits: F,
        batch: B,
    ) where
        F: Fn([u32; R], u32, u32) -> bool + Sync + Copy,
        B: Fn([u32; R], u32, u32) + Sync + Copy,
    {
        let d = &self.domain[..R];
        let inner = d[R - 1];
        let lanes = lanes.max(1);
        let (full, rest) = (inner / lanes, inner % lanes);
        let batches = full + u32::from(rest > 0);
        let rows: usize = d[..R - 1].iter().map(|&n| n as usize).product();
        // Batches `lo..hi` of row `row`: whole ones, then (when they reach its end) the row's
        // shorter last one. Whole batches get `lanes` itself, a constant where this is
        // inlined, so their work-item loops keep a fixed trip count.
        let run = |row: usize, lo: u32, hi: u32| {
            #[allow(clippy::redundant_locals)] // a copy per task, as in `for_each`
            let (fits, batch) = (fits, batch);
            let mut idx = row_start::<R>(d, row);
            let end = hi.min(full);
            let mut b = lo;
            if wide {
                let at = |b: u32| {
                    let mut idx = idx;
                    idx[R - 1] = b;
                    idx
                };
                let all = (end - lo) * lanes + if hi > full { rest } else { 0 };
                if all > lanes && fits(at(lo), all, 1) {
                    batch(at(lo), all, 1);
                    return;
                }
                let middle = end.saturating_sub(lo + 2) * lanes;
                if middle > 0 && fits(at(lo + 1), middle, 1) {
                    batch(at(lo), lanes, 1);
                    batch(at(lo + 1), middle, 1);
                    b = end - 1;
                }
            }
            for b in b..end {
                idx[R - 1] = b;
                batch(idx, lanes, 1);
            }
            if hi > full {
                idx[R - 1] = full;
                batch(idx, rest, 1);
            }
        };
        if R == 1 {
            let chunk = chunk_len(inner as usize, self.threads, work).div_ceil(lanes as usize);
            self.split(batches as usize, chunk.max(1), &|lo, hi| {
                run(0, lo as u32, hi as u32)
            });
        } else {
            let per_chunk = chunk_len(rows * inner as usize, self.threads, work)
                .div_ceil((inner as usize).max(1));
            // Rows per plane: a block of rows in one call stays in one plane.
            let plane = d[R - 2] as usize;
            self.split(rows, per_chunk.max(1), &|lo, hi| {
                #[allow(clippy::redundant_locals)] // a copy per task, as in `for_each`
                let (fits, batch) = (fits, batch);
                let mut row = lo;
                while row < hi {
                    let end = hi.min((row / plane + 1) * plane);
                    let (first, block) = (row_start::<R>(d, row), (end - row) as u32);
                    if wide && block > 1 && fits(first, inner, block) {
                        batch(first, inner, block);
                    } else {
                        for row in row..end {
                            run(row, 0, batches);
                        }
                    }
                    row = end;
                }
            });
        }
    }

    /// Runs `tile` for every tile of the domain: each pool task runs a run of consecutive tiles
    /// (about 16K threads' worth, fewer when that would leave cores idle), one after another.
    /// `work` as for [`for_each`](Self::for_each).
    #[inline]
    pub fn for_each_tile<const R: usize, F: Fn([u32; R]) + Sync + Copy>(&self, work: u32, tile: F) {
        let grid: [u32; R] = std::array::from_fn(|k| self.domain[k] / self.tile[k]);
        let count: usize = grid.iter().map(|&n| n as usize).product();
        let run = |lo: usize, hi: usize| {
            #[allow(clippy::redundant_locals)] // a copy per task, as in `for_each`
            let tile = tile;
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
        let per_task = (min_chunk(work) / threads_per_tile.max(1)).max(1);
        self.split(
            count,
            per_task.min(count.div_ceil(self.threads * 4).max(1)),
            &run,
        );
    }

    /// Runs `run(lo, hi)` over `0..n` in pieces of `chunk` on the calling thread and the
    /// launch team (on the calling thread alone when one piece covers it all; on the pool when
    /// the team is running another thread's launch).
    fn split(&self, n: usize, chunk: usize, run: &(dyn Fn(usize, usize) + Sync)) {
        if n <= chunk || self.threads == 1 {
            crate::fault::fires(crate::fault::NATIVE_TASK);
            run(0, n);
            return;
        }
        let pieces = n.div_ceil(chunk);
        let piece = |p: usize| {
            crate::fault::fires(crate::fault::NATIVE_TASK);
            run(p * chunk, ((p + 1) * chunk).min(n))
        };
        if self.team.is_some_and(|team| team.try_run(pieces, &piece)) {
            return;
        }
        self.pool
            .install(|| (0..pieces).into_par_iter().for_each(piece));
    }
}

/// Elements per pool task for `n` threads of `work` loop iterations each: about four tasks
/// per pool thread, at least [`min_chunk`]. A launch of few, heavy threads (an n-body step's
/// 2,000 threads of 2,000 interactions) is spread over the pool like a large one.
fn chunk_len(n: usize, threads: usize, work: u32) -> usize {
    n.div_ceil(threads * 4).max(min_chunk(work))
}

/// The fewest threads of `work` loop iterations each worth a pool task: [`MIN_CHUNK`]'s worth
/// of work, at least [`MIN_HEAVY_CHUNK`] threads.
fn min_chunk(work: u32) -> usize {
    (MIN_CHUNK / (work.max(1) as usize)).max(MIN_HEAVY_CHUNK)
}
