//! The performance benchmark: every workload three ways on the same device in the same process,
//! (1) the `#[kernel(amp)]` kernel through `parallel_for_each`, (2) equivalent hand-written GLSL
//! compiled at run time by `glslangValidator` and launched with `RawKernel` on the same device
//! buffers, (3) plain Rust on the CPU (rayon where it parallelises). All device data lives in
//! `Array`s, so no transfers are timed except in the transfer rows.
//!
//! ```text
//! cargo run --release -p amp-bench            # default sizes; writes docs/performance.md
//! cargo run --release -p amp-bench -- --full  # also 1024 x 1024 matrix products
//! cargo run --release -p amp-bench -- --tiny  # a few-ms smoke run (writes nothing)
//! ```
//!
//! Other flags: `--no-write` (print only), `--reps N` (most timed runs per row, default 7).
//! Each row is the median of the timed runs after one warm-up run. `MESA_SHADER_CACHE_DISABLE=true`
//! makes the first-launch row a cold compile on lavapipe.
#[path = "bench_support/algorithms.rs"]
mod algorithms_bench;
#[path = "bench_support/chart.rs"]
pub mod chart;
#[path = "bench_support/conv.rs"]
mod conv_bench;
#[path = "bench_support/instructions.rs"]
pub mod instructions;
#[path = "bench_support/raw_vulkan.rs"]
mod raw_vulkan;
#[path = "bench_support/textures.rs"]
mod textures_bench;

use amp::prelude::*;
use amp::{DeviceType, KernelArg, RawKernel};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Any failure of the benchmark.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

// ---------------------------------------------------------------------------------------------
// The amp kernels
// ---------------------------------------------------------------------------------------------

/// Threads per tile of the reductions, the histogram and the tile scan.
const RT: usize = 256;
/// Tile side of the tiled matrix product.
const TS: usize = 16;

#[kernel(amp)]
fn empty(_idx: Index<1>) {}

#[kernel(amp)]
fn touch(idx: Index<1>, a: ArrayView<u32, 1>, out: &mut Array<u32, 1>) {
    out[idx] = a[idx];
}

#[kernel(amp)]
fn fill_one(idx: Index<1>, v: ArrayViewMut<u32, 1>) {
    v[idx] = 1;
}

/// Steps a linear congruential generator `rounds` times per element: device work whose length
/// the overlap row sets.
#[kernel(amp, unchecked)]
fn churn(idx: Index<1>, a: &mut Array<u32, 1>, rounds: u32) {
    let mut x = a[idx];
    let mut r = 0u32;
    while r < rounds {
        x = x * 1_664_525 + 1_013_904_223;
        r += 1;
    }
    a[idx] = x;
}

#[kernel(amp, unchecked)]
fn vadd(idx: Index<1>, a: &Array<f32, 1>, b: &Array<f32, 1>, c: &mut Array<f32, 1>) {
    c[idx] = a[idx] + b[idx];
}

/// `vadd` again, launched once and only on the native CPU accelerator: the native first-launch
/// row times the first launch of a kernel not launched before in the process.
#[kernel(amp, unchecked)]
fn vadd_first_native(idx: Index<1>, a: &Array<f32, 1>, b: &Array<f32, 1>, c: &mut Array<f32, 1>) {
    c[idx] = a[idx] + b[idx];
}

/// `vadd` bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
fn vadd_checked(idx: Index<1>, a: &Array<f32, 1>, b: &Array<f32, 1>, c: &mut Array<f32, 1>) {
    c[idx] = a[idx] + b[idx];
}

/// `out = a`: the copy kernel whose bandwidth is the yardstick of the memory-bound rows.
#[kernel(amp, unchecked)]
fn vcopy(idx: Index<1>, a: &Array<f32, 1>, out: &mut Array<f32, 1>) {
    out[idx] = a[idx];
}

#[kernel(amp, unchecked)]
fn saxpy(idx: Index<1>, alpha: f32, x: &Array<f32, 1>, y: &Array<f32, 1>, z: &mut Array<f32, 1>) {
    z[idx] = alpha * x[idx] + y[idx];
}

#[kernel(amp, unchecked)]
fn mm_simple(idx: Index<2>, a: &Array<f32, 2>, b: &Array<f32, 2>, c: &mut Array<f32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

#[kernel(amp, unchecked)]
fn mm_tiled(t: TiledIndex<TS, TS>, a: &Array<f32, 2>, b: &Array<f32, 2>, c: &mut Array<f32, 2>) {
    let (row, col) = (t.local[0], t.local[1]);
    #[tile_static]
    let mut loc_a: [[f32; TS]; TS];
    #[tile_static]
    let mut loc_b: [[f32; TS]; TS];
    let mut sum = 0.0;
    let mut i = 0;
    while i < a.extent()[1] {
        loc_a[row][col] = a[[t.global[0], col + i]];
        loc_b[row][col] = b[[row + i, t.global[1]]];
        t.barrier.wait_with_tile_static_memory_fence();
        for k in 0..TS {
            sum += loc_a[row][k] * loc_b[k][col];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        i += TS;
    }
    c[t.global] = sum;
}

/// `mm_simple` as written, bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
fn mm_simple_checked(idx: Index<2>, a: &Array<f32, 2>, b: &Array<f32, 2>, c: &mut Array<f32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

/// `mm_tiled` as written, bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
fn mm_tiled_checked(
    t: TiledIndex<TS, TS>,
    a: &Array<f32, 2>,
    b: &Array<f32, 2>,
    c: &mut Array<f32, 2>,
) {
    let (row, col) = (t.local[0], t.local[1]);
    #[tile_static]
    let mut loc_a: [[f32; TS]; TS];
    #[tile_static]
    let mut loc_b: [[f32; TS]; TS];
    let mut sum = 0.0;
    let mut i = 0;
    while i < a.extent()[1] {
        loc_a[row][col] = a[[t.global[0], col + i]];
        loc_b[row][col] = b[[row + i, t.global[1]]];
        t.barrier.wait_with_tile_static_memory_fence();
        for k in 0..TS {
            sum += loc_a[row][k] * loc_b[k][col];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        i += TS;
    }
    c[t.global] = sum;
}

/// Interleaved-addressing tree: at step `s`, threads with `l % 2s == 0` add their neighbour.
#[kernel(amp, unchecked)]
fn reduce_tree_i32(t: TiledIndex<RT>, a: &Array<i32, 1>, sums: &mut Array<i32, 1>) {
    #[tile_static]
    let mut sh: [i32; RT];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    let mut s = 1;
    while s < RT {
        if l % (2 * s) == 0 {
            sh[l] += sh[l + s];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        s *= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = sh[0];
    }
}

/// Sequential addressing: at step `s` (halving), threads `l < s` add element `l + s`.
#[kernel(amp, unchecked)]
fn reduce_seq_i32(t: TiledIndex<RT>, a: &Array<i32, 1>, sums: &mut Array<i32, 1>) {
    #[tile_static]
    let mut sh: [i32; RT];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    let mut s = RT / 2;
    while s > 0 {
        if l < s {
            sh[l] += sh[l + s];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        s /= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = sh[0];
    }
}

#[kernel(amp, unchecked)]
fn reduce_tree_f32(t: TiledIndex<RT>, a: &Array<f32, 1>, sums: &mut Array<f32, 1>) {
    #[tile_static]
    let mut sh: [f32; RT];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    let mut s = 1;
    while s < RT {
        if l % (2 * s) == 0 {
            sh[l] += sh[l + s];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        s *= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = sh[0];
    }
}

#[kernel(amp, unchecked)]
fn reduce_seq_f32(t: TiledIndex<RT>, a: &Array<f32, 1>, sums: &mut Array<f32, 1>) {
    #[tile_static]
    let mut sh: [f32; RT];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    let mut s = RT / 2;
    while s > 0 {
        if l < s {
            sh[l] += sh[l + s];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        s /= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = sh[0];
    }
}

/// `reduce_tree_i32` bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
fn reduce_tree_i32_checked(t: TiledIndex<RT>, a: &Array<i32, 1>, sums: &mut Array<i32, 1>) {
    #[tile_static]
    let mut sh: [i32; RT];
    let l = t.local[0];
    sh[l] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    let mut s = 1;
    while s < RT {
        if l % (2 * s) == 0 {
            sh[l] += sh[l + s];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        s *= 2;
    }
    if t.local[0] == 0 {
        sums[t.tile] = sh[0];
    }
}

/// `histogram` bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
fn histogram_checked(t: TiledIndex<RT>, data: &Array<u32, 1>, bins: &mut Array<u32, 1>) {
    #[tile_static]
    let mut local: [u32; RT];
    local[t.local[0]] = 0;
    t.barrier.wait_with_tile_static_memory_fence();
    let bin = data[t.global] % 256;
    atomic_fetch_add(&mut local[bin as usize], 1);
    t.barrier.wait_with_tile_static_memory_fence();
    let n = local[t.local[0]];
    if n > 0 {
        atomic_fetch_add(&mut bins[t.local[0]], n);
    }
}

/// `scan_tiles` bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp, allow(write_conflict))]
fn scan_tiles_checked(
    t: TiledIndex<RT>,
    input: &Array<u32, 1>,
    out: &mut Array<u32, 1>,
    sums: &mut Array<u32, 1>,
) {
    #[tile_static]
    let mut sh: [u32; RT];
    let l = t.local[0];
    let x = input[t.global];
    sh[l] = x;
    t.barrier.wait_with_tile_static_memory_fence();
    let mut off = 1;
    while off < RT {
        let v = if l >= off { sh[l - off] } else { 0u32 };
        t.barrier.wait_with_tile_static_memory_fence();
        sh[l] += v;
        t.barrier.wait_with_tile_static_memory_fence();
        off *= 2;
    }
    out[t.global] = sh[l] - x;
    if l == RT - 1 {
        sums[t.tile] = sh[l];
    }
}

/// Transpose through a 32 x 33 tile (one padding column against bank conflicts).
#[kernel(amp, unchecked, allow(write_conflict))]
fn transpose_padded(t: TiledIndex<32, 32>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 33]; 32];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    out[[t.tile_origin[1] + r, t.tile_origin[0] + c]] = block[c][r];
}

/// The same through a 32 x 32 tile: the column read `block[c][r]` hits one bank.
#[kernel(amp, unchecked, allow(write_conflict, bank_conflict))]
fn transpose_square(t: TiledIndex<32, 32>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 32]; 32];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    out[[t.tile_origin[1] + r, t.tile_origin[0] + c]] = block[c][r];
}

/// 256 bins per tile in `tile_static` memory, merged into `bins` with one atomic per bin.
#[kernel(amp, unchecked)]
fn histogram(t: TiledIndex<RT>, data: &Array<u32, 1>, bins: &mut Array<u32, 1>) {
    #[tile_static]
    let mut local: [u32; RT];
    local[t.local[0]] = 0;
    t.barrier.wait_with_tile_static_memory_fence();
    let bin = data[t.global] % 256;
    atomic_fetch_add(&mut local[bin as usize], 1);
    t.barrier.wait_with_tile_static_memory_fence();
    let n = local[t.local[0]];
    if n > 0 {
        atomic_fetch_add(&mut bins[t.local[0]], n);
    }
}

/// Exclusive scan of each tile (Hillis-Steele in `tile_static` memory); the tile's total goes
/// to `sums[tile]`.
#[kernel(amp, unchecked, allow(write_conflict))]
fn scan_tiles(
    t: TiledIndex<RT>,
    input: &Array<u32, 1>,
    out: &mut Array<u32, 1>,
    sums: &mut Array<u32, 1>,
) {
    #[tile_static]
    let mut sh: [u32; RT];
    let l = t.local[0];
    let x = input[t.global];
    sh[l] = x;
    t.barrier.wait_with_tile_static_memory_fence();
    let mut off = 1;
    while off < RT {
        let v = if l >= off { sh[l - off] } else { 0u32 };
        t.barrier.wait_with_tile_static_memory_fence();
        sh[l] += v;
        t.barrier.wait_with_tile_static_memory_fence();
        off *= 2;
    }
    out[t.global] = sh[l] - x;
    if l == RT - 1 {
        sums[t.tile] = sh[l];
    }
}

/// Exclusive scan of the tile sums in place by one tile of 1024 threads: each scans its chunk
/// sequentially, the chunk totals are scanned in `tile_static` memory, then added back.
#[kernel(amp, unchecked, allow(write_conflict))]
fn scan_sums(t: TiledIndex<1024>, sums: &mut Array<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; 1024];
    let m = sums.extent()[0];
    let chunk = (m + 1023) / 1024;
    let l = t.local[0];
    let start = l * chunk;
    let end = min(start + chunk, m);
    let mut total = 0u32;
    for i in start..end {
        let v = sums[i];
        sums[i] = total;
        total += v;
    }
    sh[l] = total;
    t.barrier.wait_with_tile_static_memory_fence();
    let mut off = 1;
    while off < 1024 {
        let v = if l >= off { sh[l - off] } else { 0u32 };
        t.barrier.wait_with_tile_static_memory_fence();
        sh[l] += v;
        t.barrier.wait_with_tile_static_memory_fence();
        off *= 2;
    }
    let offset = sh[l] - total;
    for i in start..end {
        sums[i] += offset;
    }
}

#[kernel(amp, unchecked)]
fn scan_add(idx: Index<1>, out: &mut Array<u32, 1>, sums: &Array<u32, 1>) {
    out[idx] += sums[idx[0] / RT];
}

// ---------------------------------------------------------------------------------------------
// The same kernels in GLSL
// ---------------------------------------------------------------------------------------------

/// Simple 1-D kernels: 64 threads per workgroup, groups folded onto x and y as amp does.
const GLSL_1D: &str = "#version 450
layout(local_size_x = 64) in;
uint gid() { return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u; }
";

/// Tiled 1-D kernels of 256 threads; tiles folded onto x and y as amp does.
const GLSL_T256: &str = "#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint tiles; } pc;
uint tile_id() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
";

const G_CHAIN: &str = "#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) b[i] = a[i] + 1.0;
}
";

const G_EMPTY: &str = "#version 450
layout(local_size_x = 64) in;
void main() {}
";

const G_VADD: &str = "
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    c[i] = a[i] + b[i];
}
";

const G_COPY: &str = "
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    c[i] = a[i];
}
";

const G_SAXPY: &str = "
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Z { float z[]; };
layout(push_constant) uniform P { uint n; float alpha; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    z[i] = pc.alpha * x[i] + y[i];
}
";

const G_MM_SIMPLE: &str = "
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint m; uint n; uint w; } pc;
void main() {
    uint id = gid();
    if (id >= pc.m * pc.n) return;
    uint row = id / pc.n;
    uint col = id % pc.n;
    float sum = 0.0;
    for (uint k = 0u; k < pc.w; k++) sum += a[row * pc.w + k] * b[k * pc.n + col];
    c[id] = sum;
}
";

const G_MM_TILED: &str = "#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint n; uint w; } pc;
shared float la[16][16];
shared float lb[16][16];
void main() {
    uint row = gl_LocalInvocationID.y, col = gl_LocalInvocationID.x;
    uint grow = gl_GlobalInvocationID.y, gcol = gl_GlobalInvocationID.x;
    float sum = 0.0;
    for (uint i = 0u; i < pc.w; i += 16u) {
        la[row][col] = a[grow * pc.w + col + i];
        lb[row][col] = b[(row + i) * pc.n + gcol];
        barrier();
        for (uint k = 0u; k < 16u; k++) sum += la[row][k] * lb[k][col];
        barrier();
    }
    c[grow * pc.n + gcol] = sum;
}
";

/// Reduction body; `T` is replaced by the element type, `LOOP` by the loop header and `COND`
/// by the condition of the add.
const G_REDUCE: &str = "
layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) writeonly buffer S { T sums[]; };
shared T sh[256];
void main() {
    uint tile = tile_id();
    if (tile >= pc.tiles) return;
    uint l = gl_LocalInvocationID.x;
    sh[l] = a[tile * 256u + l];
    barrier();
    LOOP {
        if (COND) sh[l] += sh[l + s];
        barrier();
    }
    if (l == 0u) sums[tile] = sh[0];
}
";

/// Transpose; `W` is the tile row length (33 padded, 32 square).
const G_TRANSPOSE: &str = "#version 450
layout(local_size_x = 32, local_size_y = 32) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer O { float o[]; };
layout(push_constant) uniform P { uint rows; uint cols; } pc;
shared float block[32][W];
void main() {
    uint r = gl_LocalInvocationID.y, c = gl_LocalInvocationID.x;
    block[r][c] = a[gl_GlobalInvocationID.y * pc.cols + gl_GlobalInvocationID.x];
    barrier();
    uint oi = gl_WorkGroupID.x * 32u + r, oj = gl_WorkGroupID.y * 32u + c;
    o[oi * pc.rows + oj] = block[c][r];
}
";

const G_HISTOGRAM: &str = "
layout(std430, binding = 0) readonly buffer D { uint data[]; };
layout(std430, binding = 1) buffer B { uint bins[]; };
shared uint local_bins[256];
void main() {
    uint tile = tile_id();
    if (tile >= pc.tiles) return;
    uint l = gl_LocalInvocationID.x;
    local_bins[l] = 0u;
    barrier();
    uint bin = data[tile * 256u + l] % 256u;
    atomicAdd(local_bins[bin], 1u);
    barrier();
    uint n = local_bins[l];
    if (n > 0u) atomicAdd(bins[l], n);
}
";

const G_SCAN_TILES: &str = "
layout(std430, binding = 0) readonly buffer I { uint inp[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
layout(std430, binding = 2) writeonly buffer S { uint sums[]; };
shared uint sh[256];
void main() {
    uint tile = tile_id();
    if (tile >= pc.tiles) return;
    uint l = gl_LocalInvocationID.x;
    uint g = tile * 256u + l;
    uint x = inp[g];
    sh[l] = x;
    barrier();
    for (uint off = 1u; off < 256u; off *= 2u) {
        uint v = l >= off ? sh[l - off] : 0u;
        barrier();
        sh[l] += v;
        barrier();
    }
    o[g] = sh[l] - x;
    if (l == 255u) sums[tile] = sh[l];
}
";

const G_SCAN_SUMS: &str = "#version 450
layout(local_size_x = 1024) in;
layout(std430, binding = 0) buffer S { uint sums[]; };
layout(push_constant) uniform P { uint m; } pc;
shared uint sh[1024];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint chunk = (pc.m + 1023u) / 1024u;
    uint start = l * chunk;
    uint end = min(start + chunk, pc.m);
    uint total = 0u;
    for (uint i = start; i < end; i++) { uint v = sums[i]; sums[i] = total; total += v; }
    sh[l] = total;
    barrier();
    for (uint off = 1u; off < 1024u; off *= 2u) {
        uint v = l >= off ? sh[l - off] : 0u;
        barrier();
        sh[l] += v;
        barrier();
    }
    uint offset = sh[l] - total;
    for (uint i = start; i < end; i++) sums[i] += offset;
}
";

const G_SCAN_ADD: &str = "
layout(std430, binding = 0) buffer O { uint o[]; };
layout(std430, binding = 1) readonly buffer S { uint sums[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    o[i] += sums[i / 256u];
}
";

/// Compiles GLSL compute source with `glslangValidator -V --target-env vulkan1.1` into SPIR-V
/// words. Fails with a clear message when the tool is missing.
pub fn compile_glsl(name: &str, source: &str) -> Result<Vec<u32>, BoxError> {
    Ok(amp_test_support::compile_glsl(name, source)?)
}

fn raw(
    acc: &Accelerator,
    name: &str,
    src: &str,
    bindings: u32,
    push: u32,
) -> Result<RawKernel, BoxError> {
    Ok(RawKernel::new(
        acc,
        &compile_glsl(name, src)?,
        "main",
        bindings,
        push,
    )?)
}

fn push(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// `groups` workgroups folded onto x and y, as the runtime does for amp launches: balanced
/// rows, so both sides dispatch the same (nearly no) surplus workgroups.
fn fold(acc: &Accelerator, groups: usize) -> [u32; 3] {
    let max = acc.limits().max_workgroup_count[0] as usize;
    let y = groups.div_ceil(max).max(1);
    [groups.div_ceil(y).max(1) as u32, y as u32, 1]
}

// ---------------------------------------------------------------------------------------------
// Measurements and the report
// ---------------------------------------------------------------------------------------------

/// Sizes and repetitions.
#[derive(Clone, Debug)]
pub struct Config {
    /// A few-ms smoke run: small sizes, one run per measurement.
    pub tiny: bool,
    /// Also the 1024 x 1024 matrix products.
    pub full: bool,
    /// The GPU profile (`--gpu`): sizes that mean something on a discrete GPU (256M-element
    /// vectors, 4096 x 4096 products, 8192 x 8192 transposes), fewer repetitions of rows that
    /// take over a second, and the copy-kernel yardstick and GPU targets in the report.
    pub gpu: bool,
    /// Whether the native column runs (off in the GPU profile unless `--native`: at GPU sizes
    /// it would take most of the run).
    pub native: bool,
    /// The largest buffer a kernel can bind on the Vulkan device (`maxStorageBufferRange`),
    /// set by [`run`]: the GPU profile's sizes shrink to fit it.
    pub max_buffer_bytes: u64,
    /// Most timed runs per row (after one warm-up run).
    pub reps: usize,
    /// Only the sections whose names contain this (`--only launch`); all when `None`.
    pub only: Option<String>,
    /// Instruction counting (a child of `--instructions`, run under callgrind): only this
    /// side of this pair runs, a fixed number of times, and nothing is timed or checked.
    pub count: Option<instructions::CountRun>,
}

impl Config {
    /// The smoke-test configuration.
    pub fn tiny() -> Self {
        Config {
            tiny: true,
            full: false,
            gpu: false,
            native: true,
            max_buffer_bytes: u64::MAX,
            reps: 1,
            only: None,
            count: None,
        }
    }

    /// Whether the section `name` runs.
    fn runs(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|o| name.contains(o))
    }

    /// Elements of the 1-D workloads.
    fn n(&self) -> usize {
        if self.tiny {
            1 << 16
        } else if self.gpu {
            self.fit(1 << 28)
        } else if self.count.is_some() {
            1 << 20
        } else {
            1 << 24
        }
    }

    fn matmul_sizes(&self) -> Vec<usize> {
        match (self.tiny, self.full) {
            (true, _) => vec![64],
            _ if self.count.is_some() => vec![128],
            _ if self.gpu => vec![self.fit_side(4096)],
            (false, false) => vec![512],
            (false, true) => vec![512, 1024],
        }
    }

    fn transpose_side(&self) -> usize {
        if self.tiny {
            128
        } else if self.gpu {
            self.fit_side(8192)
        } else if self.count.is_some() {
            1024
        } else {
            4096
        }
    }

    /// `x` halved until `bytes(x)` fits one buffer of the device.
    fn halved_to_fit(&self, mut x: usize, bytes: impl Fn(u64) -> u64) -> usize {
        while x > 1 && bytes(x as u64) > self.max_buffer_bytes {
            x /= 2;
        }
        x
    }

    /// `elements` 4-byte elements, halved until one buffer of them fits the device.
    fn fit(&self, elements: usize) -> usize {
        self.halved_to_fit(elements, |n| n * 4)
    }

    /// The side of a square of 4-byte elements, halved until the square fits the device.
    pub fn fit_side(&self, side: usize) -> usize {
        self.halved_to_fit(side, |s| s * s * 4)
    }

    fn transfer_bytes(&self) -> usize {
        if self.tiny {
            1 << 20
        } else if self.gpu {
            self.fit(64 << 20) * 4
        } else {
            64 << 20
        }
    }
}

/// One cell of the table.
#[derive(Clone, Debug)]
pub enum Cell {
    /// Not measured.
    None,
    /// A median time in seconds and, where meaningful, a rate.
    Time { secs: f64, rate: Option<String> },
    /// Free text.
    Text(String),
    /// Not run: the native CPU accelerator cannot launch the kernel yet (the reason, from
    /// `amp::Error::NativeUnsupported`). Renders as "–"; the reasons become notes.
    Unsupported(String),
}

impl Cell {
    fn secs(&self) -> Option<f64> {
        match self {
            Cell::Time { secs, .. } => Some(*secs),
            _ => None,
        }
    }

    fn render(&self) -> String {
        match self {
            Cell::None => "-".into(),
            Cell::Unsupported(_) => "–".into(),
            Cell::Text(s) => s.clone(),
            Cell::Time { secs, rate } => match rate {
                Some(r) => format!("{} ({r})", fmt_time(*secs)),
                None => fmt_time(*secs),
            },
        }
    }
}

/// One row: a workload and its implementations.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: String,
    pub size: String,
    /// The amp kernel on the Vulkan device.
    pub amp: Cell,
    /// Hand-written GLSL on the same Vulkan device.
    pub glsl: Cell,
    /// Plain Rust (rayon where it parallelises).
    pub cpu: Cell,
    /// The same amp kernel on the native CPU accelerator (`Accelerator::cpu()`).
    pub native: Cell,
}

impl Row {
    /// amp time over glslang time.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.amp.secs()? / self.glsl.secs()?)
    }

    /// Native time over the plain Rust/rayon time (below 1: the native kernel is faster).
    pub fn native_over_cpu(&self) -> Option<f64> {
        Some(self.native.secs()? / self.cpu.secs()?)
    }

    /// amp (Vulkan device) time over native time: how many times faster native runs.
    pub fn amp_over_native(&self) -> Option<f64> {
        Some(self.amp.secs()? / self.native.secs()?)
    }
}

/// Whether the three results of a workload agree.
#[derive(Clone, Debug)]
pub struct Check {
    pub workload: String,
    pub agree: bool,
    pub detail: String,
}

/// Everything one run of the benchmark measured.
#[derive(Clone, Debug)]
pub struct Report {
    pub device: String,
    /// Whether the Vulkan device is a CPU driver (lavapipe): the 10x targets apply.
    pub device_is_cpu_driver: bool,
    /// The native CPU accelerator's name.
    pub native_device: String,
    pub rows: Vec<Row>,
    pub checks: Vec<Check>,
    /// What bounds checking costs: the same kernels checked (the default) and `unchecked`.
    pub bounds: Vec<BoundsCost>,
    /// Variants of workloads that explain the native column's results.
    pub diagnostics: Vec<Diagnostic>,
    /// Sections that failed with an error (`section: error`); the run goes on without them.
    pub failures: Vec<String>,
    /// Device (timestamp) time beside wall time for the rows that launched on the device.
    pub kernel_rows: Vec<KernelRow>,
}

/// The device time of one row's work from timestamp queries, to set beside the row's wall
/// time: what a launch costs on the host (recording, submission, the wait) is the difference.
#[derive(Clone, Debug)]
pub struct KernelRow {
    /// The row's index in [`Report::rows`].
    pub row: usize,
    pub amp_kernel: Option<f64>,
    pub glsl_kernel: Option<f64>,
}

impl Report {
    /// The kernel-time table in Markdown: each row's wall times beside its kernel times, and
    /// the amp column's rate recomputed from its kernel time.
    pub fn kernel_table(&self) -> String {
        let mut s = String::from(
            "| workload | size | amp wall | amp kernel | amp rate by kernel time | glslang wall | \
             glslang kernel |\n|---|---|---|---|---|---|---|\n",
        );
        let t = |x: Option<f64>| x.map_or("-".into(), fmt_time);
        for k in &self.kernel_rows {
            let r = &self.rows[k.row];
            let wall = r.amp.secs();
            let rate = ["GB/s", "GFLOP/s"]
                .into_iter()
                .find_map(|unit| Some((r.amp.rate_in(unit)?, unit)));
            let rate = match (rate, wall, k.amp_kernel) {
                (Some((rate, unit)), Some(wall), Some(kernel)) if kernel > 0.0 => {
                    format!("{:.2} {unit}", rate * wall / kernel)
                }
                _ => "-".into(),
            };
            s += &format!(
                "| {} | {} | {} | {} | {rate} | {} | {} |\n",
                r.name,
                r.size,
                t(wall),
                t(k.amp_kernel),
                t(r.glsl.secs()),
                t(k.glsl_kernel),
            );
        }
        s
    }
}

impl Report {
    /// The rows with an amp/glslang ratio, labelled for the chart.
    pub fn bars(&self) -> Vec<(String, f64)> {
        self.rows
            .iter()
            .filter_map(|r| {
                let label = r.name.split(" (").next().unwrap_or(&r.name);
                Some((format!("{label}, {}", r.size), r.ratio()?))
            })
            .collect()
    }

    /// The table in Markdown.
    pub fn table(&self) -> String {
        let mut s = String::from(
            "| workload | size | amp | glslang | CPU | native | amp/glslang | native/CPU | \
             amp/native |\n|---|---|---|---|---|---|---|---|---|\n",
        );
        let ratio = |r: Option<f64>| match r {
            Some(x) => format!("{x:.2}"),
            None => "-".into(),
        };
        for r in &self.rows {
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.name,
                r.size,
                r.amp.render(),
                r.glsl.render(),
                r.cpu.render(),
                r.native.render(),
                ratio(r.ratio()),
                ratio(r.native_over_cpu()),
                ratio(r.amp_over_native()),
            );
        }
        s
    }

    /// Why rows show "–" in the native column: each distinct reason once, with its rows.
    pub fn native_notes(&self) -> String {
        let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
        for r in &self.rows {
            if let Cell::Unsupported(why) = &r.native {
                match reasons.iter_mut().find(|(w, _)| w == why) {
                    Some((_, rows)) => rows.push(r.name.clone()),
                    None => reasons.push((why.clone(), vec![r.name.clone()])),
                }
            }
        }
        reasons
            .iter()
            .map(|(why, rows)| format!("- {}: {why}\n", rows.join("; ")))
            .collect()
    }

    /// The native targets, row by row: met, missed or not measured.
    pub fn targets(&self) -> Vec<Target> {
        let lavapipe = self.device_is_cpu_driver;
        let mut out = Vec::new();
        for r in &self.rows {
            if let Some(limit) = first_launch_limit(&r.name) {
                out.push(Target::new(
                    r,
                    "first native launch",
                    "<=",
                    limit,
                    r.native.secs(),
                ));
                continue;
            }
            if !is_workload(r) {
                continue;
            }
            let limit = if r.name.starts_with("vector add") || r.name.starts_with("saxpy") {
                1.2
            } else if r.name.starts_with("conv ") {
                // A tiled kernel on every core against one loop of plain Rust.
                0.75
            } else {
                1.5
            };
            out.push(Target::new(
                r,
                "native/CPU",
                "<=",
                limit,
                r.native_over_cpu(),
            ));
            if needs_10x(&r.name) {
                let what = if lavapipe {
                    "lavapipe(amp)/native"
                } else {
                    "amp/native (the Vulkan device is not a CPU driver: informative)"
                };
                out.push(Target::new(r, what, ">=", 10.0, r.amp_over_native()));
            }
        }
        out
    }
}

/// Whether `r` is a workload row (one with a CPU time to compare with; the launch, transfer
/// and build rows are not).
fn is_workload(r: &Row) -> bool {
    r.cpu.secs().is_some()
        && !r.name.starts_with("host to device")
        && !r.name.starts_with("device to host")
}

/// The workloads that must run natively at least 10x faster than on lavapipe.
fn needs_10x(name: &str) -> bool {
    ["vector add", "matmul, simple", "reduce ", "exclusive scan"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The first-launch row's limit in seconds.
fn first_launch_limit(name: &str) -> Option<f64> {
    name.starts_with("first launch").then_some(1e-3)
}

impl Cell {
    /// The number of this cell's rate when it is given in `unit` (`GB/s`, `GFLOP/s`).
    fn rate_in(&self, unit: &str) -> Option<f64> {
        match self {
            Cell::Time {
                rate: Some(rate), ..
            } => rate.strip_suffix(unit)?.trim().parse().ok(),
            _ => None,
        }
    }
}

impl Report {
    /// The first row whose name starts with `prefix`.
    fn row(&self, prefix: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.name.starts_with(prefix))
    }

    /// The GPU targets, judged from this run's rows: the memory-bound rows against the
    /// device's own copy-kernel bandwidth (the better of the amp and GLSL copy rows), the
    /// tiled product against the simple one, sort throughput, the launch chain against the
    /// hand-recorded floor. On a CPU driver they are informative only.
    pub fn gpu_targets(&self) -> Vec<Target> {
        let mut out = Vec::new();
        let copy = self.row(COPY_ROW).and_then(|r| {
            let best = r
                .amp
                .rate_in("GB/s")
                .into_iter()
                .chain(r.glsl.rate_in("GB/s"));
            best.reduce(f64::max)
        });
        let of_copy = |r: &Row| Some(r.amp.rate_in("GB/s")? / copy?);
        for (prefix, limit) in [
            ("vector add", 0.8),
            (PLACED_ROW, 0.8),
            (COPY_ROW, 0.8),
            ("amp::algorithms::sum", 0.6),
            ("amp::algorithms::exclusive_scan", 0.6),
        ] {
            if let Some(r) = self.row(prefix) {
                out.push(Target::new(
                    r,
                    "amp GB/s / copy-kernel GB/s",
                    ">=",
                    limit,
                    of_copy(r),
                ));
            }
        }
        if let (Some(simple), Some(tiled)) = (self.row("matmul, simple"), self.row("matmul, tiled"))
        {
            out.push(Target::new(
                tiled,
                "simple time / tiled time (amp)",
                ">=",
                2.0,
                simple.amp.secs().zip(tiled.amp.secs()).map(|(s, t)| s / t),
            ));
        }
        for r in self
            .rows
            .iter()
            .filter(|r| r.name.starts_with("amp::algorithms::sort"))
        {
            // 4 bytes per 32-bit key: G keys/s = GB/s / 4.
            out.push(Target::new(
                r,
                "G keys/s (amp)",
                ">=",
                1.0,
                r.amp.rate_in("GB/s").map(|g| g / 4.0),
            ));
        }
        if let Some(r) = self.row("chain of") {
            out.push(Target::new(
                r,
                "async chain / hand-recorded floor",
                "<=",
                1.3,
                r.ratio(),
            ));
        }
        out
    }
}

/// One native target of one row.
#[derive(Clone, Debug)]
pub struct Target {
    pub row: String,
    pub size: String,
    /// What is compared (`native/CPU`).
    pub what: String,
    /// `<=` or `>=`.
    pub op: &'static str,
    pub limit: f64,
    /// The measured value; `None` when the row has no native time.
    pub value: Option<f64>,
}

impl Target {
    fn new(r: &Row, what: &str, op: &'static str, limit: f64, value: Option<f64>) -> Target {
        Target {
            row: r.name.clone(),
            size: r.size.clone(),
            what: what.into(),
            op,
            limit,
            value,
        }
    }

    /// `Some(true)` met, `Some(false)` missed, `None` not measured.
    pub fn met(&self) -> Option<bool> {
        let v = self.value?;
        Some(if self.op == "<=" {
            v <= self.limit
        } else {
            v >= self.limit
        })
    }
}

/// A measurement that explains a native result: one variant of a workload.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub workload: String,
    pub size: String,
    /// What ran (`the kernel's algorithm in plain Rust`).
    pub variant: String,
    pub secs: f64,
}

/// The diagnostics table in Markdown.
pub fn diagnostics_table(rows: &[Diagnostic]) -> String {
    let mut s = String::from("| workload | size | variant | time |\n|---|---|---|---|\n");
    for d in rows {
        s += &format!(
            "| {} | {} | {} | {} |\n",
            d.workload,
            d.size,
            d.variant,
            fmt_time(d.secs)
        );
    }
    s
}

/// The targets table in Markdown.
pub fn targets_table(targets: &[Target]) -> String {
    let mut s = String::from(
        "| workload | size | measure | target | value | |\n|---|---|---|---|---|---|\n",
    );
    for t in targets {
        let time = t.what.starts_with("first");
        let fmt = |x: f64| {
            if time {
                fmt_time(x)
            } else {
                format!("{x:.2}")
            }
        };
        let value = t.value.map_or("–".into(), fmt);
        let verdict = match t.met() {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "not measured (no native time)",
        };
        s += &format!(
            "| {} | {} | {} | {} {} | {} | {} |\n",
            t.row,
            t.size,
            t.what,
            t.op,
            fmt(t.limit),
            value,
            verdict
        );
    }
    s
}

/// `16M`, `64K`.
fn count(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{}M", n >> 20)
    } else {
        format!("{}K", n >> 10)
    }
}

fn fmt_time(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.1} µs", secs * 1e6)
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Waits for the launches on the default accelerator's default view: launches are
/// asynchronous, so every timed run ends here (a run that read its results waits for
/// nothing more).
pub fn settle() -> Result<(), BoxError> {
    Ok(Accelerator::default()?.default_view().wait()?)
}

/// One warm-up run, then the median of up to `cfg.reps` timed runs (at least 3, fewer beyond
/// about 2 s of work). The tiny configuration times the single warm-up run.
fn measure(cfg: &Config, mut f: impl FnMut() -> Result<(), BoxError>) -> Result<f64, BoxError> {
    let mut f = move || -> Result<(), BoxError> {
        f()?;
        settle()
    };
    let t0 = Instant::now();
    f()?;
    let first = t0.elapsed().as_secs_f64();
    if cfg.tiny {
        return Ok(first);
    }
    let (min_reps, budget) = rep_budget(cfg);
    let reps = ((budget / first.max(1e-9)).ceil() as usize).clamp(min_reps, cfg.reps.max(min_reps));
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(median(&mut times))
}

/// The fewest timed runs of a row and the seconds of work after which no more are started:
/// at least 3 runs within about 2 s; in the GPU profile, whose CPU rows at GPU sizes take
/// seconds each, at least 2 within about 1 s.
fn rep_budget(cfg: &Config) -> (usize, f64) {
    if cfg.gpu {
        (2, 1.0)
    } else {
        (3, 2.0)
    }
}

/// Why the native column is empty in the GPU profile.
const NATIVE_OFF: &str = "the native column is off in the GPU profile (`--gpu` without `--native`)";

/// [`measure`] for two versions of a workload, alternating them: after one warm-up run of
/// each, every repetition runs the first and then the second (the order flips each time).
fn measure_pair(
    cfg: &Config,
    mut first: impl FnMut() -> Result<(), BoxError>,
    mut second: impl FnMut() -> Result<(), BoxError>,
) -> Result<(f64, f64), BoxError> {
    let timed = |f: &mut dyn FnMut() -> Result<(), BoxError>| -> Result<f64, BoxError> {
        let t = Instant::now();
        f()?;
        settle()?;
        Ok(t.elapsed().as_secs_f64())
    };
    let (w1, w2) = (timed(&mut first)?, timed(&mut second)?);
    if cfg.tiny {
        return Ok((w1, w2));
    }
    let slowest = w1.max(w2).max(1e-9);
    let (min_reps, budget) = rep_budget(cfg);
    let reps = ((budget / slowest).ceil() as usize).clamp(min_reps, cfg.reps.max(min_reps));
    let (mut t1, mut t2) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for rep in 0..reps {
        if rep % 2 == 0 {
            t1.push(timed(&mut first)?);
            t2.push(timed(&mut second)?);
        } else {
            t2.push(timed(&mut second)?);
            t1.push(timed(&mut first)?);
        }
    }
    Ok((median(&mut t1), median(&mut t2)))
}

/// Work of a row, for its rate.
#[derive(Clone, Copy)]
enum Work {
    Bytes(f64),
    Flops(f64),
}

fn timed(secs: f64, work: Work) -> Cell {
    let rate = match work {
        Work::Bytes(b) => format!("{:.2} GB/s", b / secs / 1e9),
        Work::Flops(f) => format!("{:.2} GFLOP/s", f / secs / 1e9),
    };
    Cell::Time {
        secs,
        rate: Some(rate),
    }
}

fn workload_row(name: &str, size: String, work: Work, t: [f64; 3], native: &Native) -> Row {
    Row {
        name: name.into(),
        size,
        amp: timed(t[0], work),
        glsl: timed(t[1], work),
        cpu: timed(t[2], work),
        native: native_cell(native, Some(work)),
    }
}

/// The native column of a row: its median time, or why the native CPU accelerator did not
/// run it.
pub type Native = Result<f64, String>;

fn native_cell(native: &Native, work: Option<Work>) -> Cell {
    match (native, work) {
        (Ok(secs), Some(work)) => timed(*secs, work),
        (Ok(secs), None) => Cell::Time {
            secs: *secs,
            rate: None,
        },
        (Err(why), _) => Cell::Unsupported(why.clone()),
    }
}

/// The reason when `e` is `amp::Error::NativeUnsupported` (a kernel the native back end does
/// not translate yet).
fn native_unsupported(e: &BoxError) -> Option<String> {
    match e.downcast_ref::<amp::Error>() {
        Some(amp::Error::NativeUnsupported { what, reason }) => Some(format!("{what}: {reason}")),
        _ => None,
    }
}

/// Whether the native result agrees with the CPU's (a separate check per workload, named
/// `<workload> (native)`).
fn check_native<T: PartialEq + std::fmt::Debug>(name: &str, native: &[T], cpu: &[T]) -> Check {
    let diff = if native.len() != cpu.len() {
        Some(format!("length {} vs {}", native.len(), cpu.len()))
    } else {
        native
            .iter()
            .zip(cpu)
            .position(|(a, b)| a != b)
            .map(|i| format!("element {i}: {:?} vs CPU {:?}", native[i], cpu[i]))
    };
    Check {
        workload: format!("{name} (native)"),
        agree: diff.is_none(),
        detail: diff.map_or_else(
            || "native agrees with the CPU".into(),
            |d| format!("native: {d}"),
        ),
    }
}

fn check<T: PartialEq + std::fmt::Debug>(name: &str, amp: &[T], glsl: &[T], cpu: &[T]) -> Check {
    let first_diff = |x: &[T]| -> Option<String> {
        if x.len() != cpu.len() {
            return Some(format!("length {} vs {}", x.len(), cpu.len()));
        }
        x.iter()
            .zip(cpu)
            .position(|(a, b)| a != b)
            .map(|i| format!("element {i}: {:?} vs CPU {:?}", x[i], cpu[i]))
    };
    let (a, g) = (first_diff(amp), first_diff(glsl));
    Check {
        workload: name.into(),
        agree: a.is_none() && g.is_none(),
        detail: match (a, g) {
            (None, None) => "all three agree".into(),
            (a, g) => format!(
                "amp: {}; glslang: {}",
                a.unwrap_or_else(|| "ok".into()),
                g.unwrap_or_else(|| "ok".into())
            ),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// The workloads
// ---------------------------------------------------------------------------------------------

struct Ctx<'a> {
    cfg: &'a Config,
    /// The Vulkan device of the amp and glslang columns.
    acc: Accelerator,
    /// The native CPU accelerator of the native column.
    native: Accelerator,
    rows: Vec<Row>,
    checks: Vec<Check>,
    diagnostics: Vec<Diagnostic>,
    /// `time_pair` calls so far (instruction counting picks one by its number).
    pairs: std::cell::Cell<usize>,
    /// Device times of the last timed pair (amp, glslang) or amp-only run, for the next row.
    pending_kernel: std::cell::Cell<Option<(Option<f64>, Option<f64>)>>,
    /// Kernel time beside wall time, one per row that launched on the Vulkan device.
    kernel_rows: Vec<KernelRow>,
}

impl Ctx<'_> {
    fn time(&self, f: impl FnMut() -> Result<(), BoxError>) -> Result<f64, BoxError> {
        if self.cfg.count.is_some() {
            return Ok(1.0);
        }
        measure(self.cfg, f)
    }

    /// [`Ctx::time`] for work on the Vulkan device, whose device time (one more run, timed
    /// with timestamp queries) goes with the next row.
    fn time_amp(&self, mut f: impl FnMut() -> Result<(), BoxError>) -> Result<f64, BoxError> {
        let secs = self.time(&mut f)?;
        if let Some(kernel) = self.kernel_time(&mut f)? {
            self.pending_kernel.set(Some((Some(kernel), None)));
        }
        Ok(secs)
    }

    /// The device time of one run of `f`: the sum of the kernel times (timestamp queries) of
    /// the launches it made on the default view; `None` when it made none there, the device
    /// cannot time, or instructions are being counted.
    fn kernel_time(
        &self,
        f: &mut dyn FnMut() -> Result<(), BoxError>,
    ) -> Result<Option<f64>, BoxError> {
        if self.cfg.count.is_some() {
            return Ok(None);
        }
        let view = Accelerator::default()?.default_view();
        if view.set_profiling(true).is_err() {
            return Ok(None);
        }
        let earlier = view.take_kernel_times();
        let ran = earlier.map_err(BoxError::from).and_then(|_| f());
        let times = view.take_kernel_times();
        view.set_profiling(false)?;
        ran?;
        let times = times?;
        Ok((!times.is_empty()).then(|| times.iter().map(|t| t.seconds).sum()))
    }

    /// Adds `row` to the table, and its kernel times, if the work before it measured any.
    fn push_row(&mut self, row: Row) {
        if let Some((amp_kernel, glsl_kernel)) = self.pending_kernel.take() {
            self.kernel_rows.push(KernelRow {
                row: self.rows.len(),
                amp_kernel,
                glsl_kernel,
            });
        }
        self.rows.push(row);
    }

    /// The native column: `f` (launches on `self.native`) timed as the CPU column is, or why
    /// the native accelerator cannot run it (`amp::Error::NativeUnsupported`). Other errors
    /// fail the benchmark.
    fn time_native(&self, f: impl FnMut() -> Result<(), BoxError>) -> Result<Native, BoxError> {
        if self.cfg.count.is_some() {
            return Ok(Err("not run while counting instructions".into()));
        }
        if !self.cfg.native {
            return Ok(Err(NATIVE_OFF.into()));
        }
        match measure(self.cfg, f) {
            Ok(secs) => Ok(Ok(secs)),
            Err(e) => match native_unsupported(&e) {
                Some(why) => Ok(Err(why)),
                None => Err(e),
            },
        }
    }

    /// Pushes the native check of `name` when the native column ran.
    fn check_native<T: PartialEq + std::fmt::Debug>(
        &mut self,
        name: &str,
        ran: &Native,
        native: impl FnOnce() -> Result<Vec<T>, BoxError>,
        cpu: &[T],
    ) -> Result<(), BoxError> {
        if ran.is_ok() && self.cfg.count.is_none() {
            let got = native()?;
            self.checks.push(check_native(name, &got, cpu));
        }
        Ok(())
    }

    /// Medians of the amp and the glslang version of a workload, timed in alternation (one
    /// run of each per repetition) so that machine load and cache state hit both alike.
    fn time_pair(
        &self,
        amp: impl FnMut() -> Result<(), BoxError>,
        glsl: impl FnMut() -> Result<(), BoxError>,
    ) -> Result<(f64, f64), BoxError> {
        let pair = self.pairs.get();
        self.pairs.set(pair + 1);
        if let Some(count) = &self.cfg.count {
            count.run(pair, amp, glsl)?;
            return Ok((1.0, 1.0));
        }
        let (mut amp, mut glsl) = (amp, glsl);
        let walls = measure_pair(self.cfg, &mut amp, &mut glsl)?;
        let kernels = (self.kernel_time(&mut amp)?, self.kernel_time(&mut glsl)?);
        self.pending_kernel.set(Some(kernels));
        Ok(walls)
    }
}

/// Runs every measurement of `cfg` and returns the table's rows and the agreement checks.
pub fn run(cfg: &Config) -> Result<Report, BoxError> {
    let t0 = Instant::now();
    let native = Accelerator::cpu()?;
    let native_init = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let acc = vulkan_device()?;
    let init = t0.elapsed().as_secs_f64();
    let cfg = &Config {
        max_buffer_bytes: cfg
            .max_buffer_bytes
            .min(u64::from(acc.limits().max_storage_buffer_range)),
        ..cfg.clone()
    };
    let mut ctx = Ctx {
        cfg,
        acc,
        native,
        rows: Vec::new(),
        checks: Vec::new(),
        diagnostics: Vec::new(),
        pairs: std::cell::Cell::new(0),
        pending_kernel: std::cell::Cell::new(None),
        kernel_rows: Vec::new(),
    };
    type Section = fn(&mut Ctx<'_>) -> Result<(), BoxError>;
    let sections: [(&str, Section); 13] = [
        ("vector", vector),
        ("matmul", |ctx| {
            for n in ctx.cfg.matmul_sizes() {
                matmul(ctx, n)?;
            }
            Ok(())
        }),
        ("reductions", reductions),
        ("transpose", transpose),
        ("histogram", histogram_workload),
        ("scan", scan),
        ("conv", conv_bench::conv_rows),
        ("algorithms", algorithms_bench::algorithms_rows),
        ("textures", textures_bench::texture_rows),
        ("launch", launch_overhead),
        ("chain", launch_chain),
        ("transfers", transfers),
        ("build", build_cost),
    ];
    if cfg.count.is_some() {
        // Only the sections with amp/glslang pairs; `--only` names one.
        for (name, section) in sections {
            if cfg.runs(name) && instructions::SECTIONS.contains(&name) {
                section(&mut ctx)?;
            }
        }
        return Ok(Report {
            device: ctx.acc.name().to_owned(),
            device_is_cpu_driver: ctx.acc.device_type() == DeviceType::Cpu,
            native_device: ctx.native.name().to_owned(),
            rows: ctx.rows,
            checks: Vec::new(),
            bounds: Vec::new(),
            diagnostics: Vec::new(),
            failures: Vec::new(),
            kernel_rows: Vec::new(),
        });
    }
    // A section that fails is reported and the others still run: on a device met for the
    // first time (the GPU kit's one run), one failure must not cost every other number.
    let mut failures = Vec::new();
    let mut attempt = |name: &str, result: Result<(), BoxError>, t0: Instant| {
        let secs = t0.elapsed().as_secs_f64();
        match result {
            Ok(()) => eprintln!("amp-bench: section {name} done in {secs:.1} s"),
            Err(e) => {
                eprintln!("amp-bench: section {name} FAILED after {secs:.1} s: {e}");
                failures.push(format!("{name}: {e}"));
            }
        }
    };
    if cfg.runs("first") {
        let t0 = Instant::now();
        attempt("first", first_launch(&mut ctx, init, native_init), t0);
    }
    for (name, section) in sections {
        if cfg.runs(name) {
            ctx.pending_kernel.set(None);
            let t0 = Instant::now();
            attempt(name, section(&mut ctx), t0);
        }
    }
    let mut bounds = Vec::new();
    if cfg.runs("bounds") {
        let t0 = Instant::now();
        let result = bounds_cost(&mut ctx).map(|b| bounds = b);
        attempt("bounds", result, t0);
    }
    Ok(Report {
        device: ctx.acc.name().to_owned(),
        device_is_cpu_driver: ctx.acc.device_type() == DeviceType::Cpu,
        native_device: ctx.native.name().to_owned(),
        rows: ctx.rows,
        checks: ctx.checks,
        bounds,
        diagnostics: ctx.diagnostics,
        failures,
        kernel_rows: ctx.kernel_rows,
    })
}

/// The Vulkan device of the amp and glslang columns, made the process's default accelerator
/// (the bench launches with `parallel_for_each` and makes arrays with `Array::new`): the one
/// `AMP_DEVICE` names if set (not `cpu`), else the preferred Vulkan device (GPUs first, then
/// CPU drivers such as lavapipe). The default would be the native CPU accelerator on a machine
/// without a GPU; the native column uses that one explicitly.
fn vulkan_device() -> Result<Accelerator, BoxError> {
    let acc = match std::env::var("AMP_DEVICE") {
        Ok(want) if !want.is_empty() => Accelerator::default()?,
        _ => {
            let rank = |t: DeviceType| match t {
                DeviceType::DiscreteGpu => 0,
                DeviceType::IntegratedGpu => 1,
                DeviceType::VirtualGpu => 2,
                DeviceType::Cpu => 3,
                DeviceType::Other => 4,
            };
            let mut vulkan: Vec<Accelerator> = Accelerator::all()?
                .into_iter()
                .filter(|a| !a.is_native())
                .collect();
            // Stable: enumeration order breaks ties.
            vulkan.sort_by_key(|a| rank(a.device_type()));
            vulkan
                .into_iter()
                .next()
                .ok_or("no Vulkan device: the amp and glslang columns need one")?
        }
    };
    if acc.is_native() {
        return Err(
            "AMP_DEVICE names the native CPU accelerator: the amp and glslang columns \
                    need a Vulkan device (the native column always runs)"
                .into(),
        );
    }
    if !Accelerator::set_default(&acc) {
        return Err(format!(
            "the default accelerator was chosen before the benchmark picked {}",
            acc.name()
        )
        .into());
    }
    Ok(acc)
}

/// The first launch of a kernel in the process (pipeline creation and the driver's compile)
/// against GLSL's tool compile, pipeline creation and first dispatch. Runs before anything else.
fn first_launch(ctx: &mut Ctx<'_>, init: f64, native_init: f64) -> Result<(), BoxError> {
    let n = 64;
    let a = Array::from_slice([n], &vec![1.0f32; n])?;
    let b = Array::from_slice([n], &vec![2.0f32; n])?;
    let mut c = Array::<f32, 1>::new([n])?;
    let mut c2 = Array::<f32, 1>::new([n])?;
    let t = Instant::now();
    parallel_for_each(Extent::new([n]), vadd(&a, &b, &mut c))?;
    let amp_first = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let words = compile_glsl("first_vadd", &format!("{GLSL_1D}{G_VADD}"))?;
    let tool = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let k = RawKernel::new(&ctx.acc, &words, "main", 3, 4)?;
    k.dispatch(
        fold(&ctx.acc, n.div_ceil(64)),
        vec![
            KernelArg::read(&a),
            KernelArg::read(&b),
            KernelArg::write(&mut c2),
        ],
        &push(&[n as u32]),
    )?;
    let glsl_first = t.elapsed().as_secs_f64();
    let cache = match std::env::var("MESA_SHADER_CACHE_DISABLE") {
        Ok(v) if v == "true" || v == "1" => "shader cache off",
        _ => "shader cache on",
    };
    // The native first launch: a kernel no column has launched yet, on the native accelerator.
    let na = Array::from_slice_on(&ctx.native, [n], &vec![1.0f32; n])?;
    let nb = Array::from_slice_on(&ctx.native, [n], &vec![2.0f32; n])?;
    let mut nc = Array::<f32, 1>::new_on(&ctx.native, [n])?;
    let t = Instant::now();
    let ran = parallel_for_each_on(
        &ctx.native,
        Extent::new([n]),
        vadd_first_native(&na, &nb, &mut nc),
    );
    let native_first = t.elapsed().as_secs_f64();
    let native_first: Native = match ran {
        Ok(()) => Ok(native_first),
        Err(e) => {
            Err(native_unsupported(&BoxError::from(e)).ok_or("the native first launch failed")?)
        }
    };
    ctx.check_native(
        "first launch",
        &native_first,
        || Ok(nc.to_vec()?),
        &vec![3.0f32; n],
    )?;
    ctx.push_row(Row {
        name:
            "device init (Vulkan: `Accelerator::all`, first non-native; native: `Accelerator::cpu`)"
                .into(),
        size: "-".into(),
        amp: Cell::Time {
            secs: init,
            rate: None,
        },
        glsl: Cell::None,
        cpu: Cell::None,
        native: Cell::Time {
            secs: native_init,
            rate: None,
        },
    });
    ctx.push_row(Row {
        name: format!("first launch, vector add ({cache})"),
        size: format!("{n}"),
        amp: Cell::Text(format!("{} (pipeline + dispatch)", fmt_time(amp_first))),
        glsl: Cell::Text(format!(
            "{} (glslangValidator {} + pipeline + dispatch {})",
            fmt_time(tool + glsl_first),
            fmt_time(tool),
            fmt_time(glsl_first)
        )),
        cpu: Cell::None,
        native: native_cell(&native_first, None),
    });
    ctx.checks.push(check(
        "first launch",
        &c.to_vec()?,
        &c2.to_vec()?,
        &vec![3.0f32; n],
    ));
    Ok(())
}

fn vector(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let acc = ctx.acc.clone();
    let xs: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.5).collect();
    let a = Array::from_slice([n], &xs)?;
    let b = Array::from_slice([n], &ys)?;
    let mut c_amp = Array::<f32, 1>::new([n])?;
    let mut c_glsl = Array::<f32, 1>::new([n])?;
    let groups = fold(&acc, n.div_ceil(64));
    let size = format!("{} f32", count(n));
    let bytes = Work::Bytes(12.0 * n as f64);
    let cpu_acc = ctx.native.clone();
    let na = Array::from_slice_on(&cpu_acc, [n], &xs)?;
    let nb = Array::from_slice_on(&cpu_acc, [n], &ys)?;
    let mut nc = Array::<f32, 1>::new_on(&cpu_acc, [n])?;

    // c = a + b
    let k_vadd = raw(&acc, "vadd", &format!("{GLSL_1D}{G_VADD}"), 3, 4)?;
    let (t_amp, t_glsl) = vadd_pair(ctx, &k_vadd, [&a, &b], [&mut c_amp, &mut c_glsl])?;
    let mut cpu = vec![0.0f32; n];
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter().zip(&ys))
            .for_each(|(c, (x, y))| *c = x + y);
        Ok(())
    })?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n]),
            vadd(&na, &nb, &mut nc),
        )?)
    })?;
    ctx.check_native("vector add", &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "vector add",
        size.clone(),
        bytes,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks.push(check(
        "vector add",
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &cpu,
    ));

    // z = alpha * x + y
    let alpha = 2.0f32;
    let k = raw(&acc, "saxpy", &format!("{GLSL_1D}{G_SAXPY}"), 3, 8)?;
    let pc = push(&[n as u32, alpha.to_bits()]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([n]),
                saxpy(alpha, &a, &b, &mut c_amp),
            )?)
        },
        || {
            Ok(k.dispatch(
                groups,
                vec![
                    KernelArg::read(&a),
                    KernelArg::read(&b),
                    KernelArg::write(&mut c_glsl),
                ],
                &pc,
            )?)
        },
    )?;
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter().zip(&ys))
            .for_each(|(z, (x, y))| *z = alpha * x + y);
        Ok(())
    })?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n]),
            saxpy(alpha, &na, &nb, &mut nc),
        )?)
    })?;
    ctx.check_native("saxpy", &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "saxpy (z = a*x + y)",
        size.clone(),
        bytes,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks
        .push(check("saxpy", &c_amp.to_vec()?, &c_glsl.to_vec()?, &cpu));

    // out = a: the device's copy-kernel bandwidth, the yardstick of the memory-bound rows.
    let k = raw(&acc, "copy", &format!("{GLSL_1D}{G_COPY}"), 2, 4)?;
    let pc = push(&[n as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || Ok(parallel_for_each(Extent::new([n]), vcopy(&a, &mut c_amp))?),
        || {
            Ok(k.dispatch(
                groups,
                vec![KernelArg::read(&a), KernelArg::write(&mut c_glsl)],
                &pc,
            )?)
        },
    )?;
    let t_cpu = ctx.time(|| {
        cpu.par_iter_mut()
            .zip(xs.par_iter())
            .for_each(|(c, x)| *c = *x);
        Ok(())
    })?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n]),
            vcopy(&na, &mut nc),
        )?)
    })?;
    ctx.check_native(COPY_ROW, &t_native, || Ok(nc.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        COPY_ROW,
        size.clone(),
        Work::Bytes(8.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks
        .push(check(COPY_ROW, &c_amp.to_vec()?, &c_glsl.to_vec()?, &cpu));

    // The vector add again on arrays in device-local memory (`AccessType::None`): where the
    // default placement differs (a discrete GPU), the gap is what placement costs.
    let local = || Array::<f32, 1>::new_with_access(&acc, [n], AccessType::None);
    let (mut a, mut b, mut c_amp, mut c_glsl) = (local()?, local()?, local()?, local()?);
    a.copy_from_slice(&xs)?;
    b.copy_from_slice(&ys)?;
    let (t_amp, t_glsl) = vadd_pair(ctx, &k_vadd, [&a, &b], [&mut c_amp, &mut c_glsl])?;
    let want: Vec<f32> = xs.par_iter().zip(&ys).map(|(x, y)| x + y).collect();
    ctx.push_row(Row {
        name: PLACED_ROW.into(),
        size,
        amp: timed(t_amp, bytes),
        glsl: timed(t_glsl, bytes),
        cpu: Cell::None,
        native: Cell::None,
    });
    ctx.checks.push(check(
        PLACED_ROW,
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &want,
    ));
    Ok(())
}

/// The vector add `out = a + b` as the amp kernel (into `out[0]`) and as the GLSL kernel `k`
/// (into `out[1]`), timed as a pair.
fn vadd_pair(
    ctx: &Ctx<'_>,
    k: &RawKernel,
    [a, b]: [&Array<f32, 1>; 2],
    [c_amp, c_glsl]: [&mut Array<f32, 1>; 2],
) -> Result<(f64, f64), BoxError> {
    let n = a.len();
    let groups = fold(&ctx.acc, n.div_ceil(64));
    let pc = push(&[n as u32]);
    ctx.time_pair(
        || Ok(parallel_for_each(Extent::new([n]), vadd(a, b, c_amp))?),
        || {
            Ok(k.dispatch(
                groups,
                vec![
                    KernelArg::read(a),
                    KernelArg::read(b),
                    KernelArg::write(c_glsl),
                ],
                &pc,
            )?)
        },
    )
}

/// The copy row's name: its bandwidth is the yardstick of the GPU targets.
const COPY_ROW: &str = "copy (out = a; the device's copy-kernel bandwidth)";
/// The vector add on arrays created with `AccessType::None`.
const PLACED_ROW: &str = "vector add, arrays in device-local memory (`AccessType::None`)";

fn matmul(ctx: &mut Ctx<'_>, n: usize) -> Result<(), BoxError> {
    let acc = ctx.acc.clone();
    // Small integers: every partial sum is exact, so all three must agree bit for bit.
    let av: Vec<f32> = (0..n * n)
        .map(|i| ((i * 7 + 3) % 17) as f32 - 8.0)
        .collect();
    let bv: Vec<f32> = (0..n * n)
        .map(|i| ((i * 5 + 1) % 13) as f32 - 6.0)
        .collect();
    let a = Array::from_slice([n, n], &av)?;
    let b = Array::from_slice([n, n], &bv)?;
    let mut c_amp = Array::<f32, 2>::new([n, n])?;
    let mut c_glsl = Array::<f32, 2>::new([n, n])?;
    let size = format!("{n} x {n}");
    let flops = Work::Flops(2.0 * (n * n * n) as f64);
    let cpu_acc = ctx.native.clone();
    let na = Array::from_slice_on(&cpu_acc, [n, n], &av)?;
    let nb = Array::from_slice_on(&cpu_acc, [n, n], &bv)?;
    let mut nc = Array::<f32, 2>::new_on(&cpu_acc, [n, n])?;

    let mut cpu = vec![0.0f32; n * n];
    let t_cpu = ctx.time(|| {
        cpu.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            row.fill(0.0);
            for k in 0..n {
                let aik = av[i * n + k];
                for (c, bkj) in row.iter_mut().zip(&bv[k * n..(k + 1) * n]) {
                    *c += aik * bkj;
                }
            }
        });
        Ok(())
    })?;

    let k = raw(&acc, "mm_simple", &format!("{GLSL_1D}{G_MM_SIMPLE}"), 3, 12)?;
    let pc = push(&[n as u32, n as u32, n as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([n, n]),
                mm_simple(&a, &b, &mut c_amp),
            )?)
        },
        || {
            Ok(k.dispatch(
                fold(&acc, (n * n).div_ceil(64)),
                vec![
                    KernelArg::read(&a),
                    KernelArg::read(&b),
                    KernelArg::write(&mut c_glsl),
                ],
                &pc,
            )?)
        },
    )?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n, n]),
            mm_simple(&na, &nb, &mut nc),
        )?)
    })?;
    ctx.check_native(
        &format!("matmul simple {n}"),
        &t_native,
        || Ok(nc.to_vec()?),
        &cpu,
    )?;
    ctx.push_row(workload_row(
        "matmul, simple",
        size.clone(),
        flops,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    if let Ok(t_native) = t_native {
        // Why the native kernel trails the CPU column: the kernel's own algorithm (one dot
        // product per element, B read down a column) in plain Rust, rayon over rows.
        let mut naive = vec![0.0f32; n * n];
        let t_naive = ctx.time(|| {
            naive.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
                for (j, c) in row.iter_mut().enumerate() {
                    let mut sum = 0.0;
                    for k in 0..n {
                        sum += av[i * n + k] * bv[k * n + j];
                    }
                    *c = sum;
                }
            });
            Ok(())
        })?;
        let ok = naive == cpu;
        ctx.checks.push(Check {
            workload: format!("matmul simple {n}, the kernel's algorithm in plain Rust"),
            agree: ok,
            detail: "agrees with the CPU column".into(),
        });
        let d = |variant: &str, secs| Diagnostic {
            workload: "matmul, simple".into(),
            size: size.clone(),
            variant: variant.into(),
            secs,
        };
        ctx.diagnostics
            .push(d("the kernel natively (`unchecked`)", t_native));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust (rayon over rows; a dot product per \
             element, B read down a column, a sequential f32 sum)",
            t_naive,
        ));
        ctx.diagnostics.push(d(
            "the CPU column: plain Rust i-k-j (rayon over rows; B read along its rows, \
             vectorised across the row)",
            t_cpu,
        ));
    }
    ctx.checks.push(check(
        &format!("matmul simple {n}"),
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &cpu,
    ));

    // A tiled launch that wrote nothing must not pass on the simple product's results.
    nc.copy_from_slice(&vec![0.0; n * n])?;
    let k = raw(&acc, "mm_tiled", G_MM_TILED, 3, 8)?;
    let pc = push(&[n as u32, n as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            Ok(parallel_for_each(
                Extent::new([n, n]).tile::<TS, TS>(),
                mm_tiled(&a, &b, &mut c_amp),
            )?)
        },
        || {
            Ok(k.dispatch(
                [(n / TS) as u32, (n / TS) as u32, 1],
                vec![
                    KernelArg::read(&a),
                    KernelArg::read(&b),
                    KernelArg::write(&mut c_glsl),
                ],
                &pc,
            )?)
        },
    )?;
    let t_native = ctx.time_native(|| {
        Ok(parallel_for_each_on(
            &cpu_acc,
            Extent::new([n, n]).tile::<TS, TS>(),
            mm_tiled(&na, &nb, &mut nc),
        )?)
    })?;
    ctx.check_native(
        &format!("matmul tiled {n}"),
        &t_native,
        || Ok(nc.to_vec()?),
        &cpu,
    )?;
    ctx.push_row(workload_row(
        "matmul, tiled 16 x 16 tile_static",
        size,
        flops,
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    ctx.checks.push(check(
        &format!("matmul tiled {n}"),
        &c_amp.to_vec()?,
        &c_glsl.to_vec()?,
        &cpu,
    ));
    Ok(())
}

/// One row of the bounds-checking cost table.
#[derive(Clone, Debug)]
pub struct BoundsCost {
    pub workload: String,
    pub size: String,
    /// Median seconds with bounds checks (the default).
    pub checked: f64,
    /// Median seconds with `#[kernel(amp, unchecked)]`.
    pub unchecked: f64,
    /// The same two on the native CPU accelerator (checked, unchecked), timed in alternation;
    /// `None` where it cannot run the kernel.
    pub native: Option<(f64, f64)>,
}

impl BoundsCost {
    /// Checked time over unchecked time.
    pub fn ratio(&self) -> f64 {
        self.checked / self.unchecked
    }
}

/// The bounds-checking cost table in Markdown.
pub fn bounds_table(rows: &[BoundsCost]) -> String {
    let mut s = String::from(
        "| workload | size | checked | unchecked | checked/unchecked | native checked | \
         native unchecked | native checked/unchecked |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let native = match r.native {
            Some((c, u)) => format!("{} | {} | {:.3}", fmt_time(c), fmt_time(u), c / u),
            None => "– | – | –".into(),
        };
        s += &format!(
            "| {} | {} | {} | {} | {:.3} | {native} |\n",
            r.workload,
            r.size,
            fmt_time(r.checked),
            fmt_time(r.unchecked),
            r.ratio()
        );
    }
    s
}

/// The matrix products with and without bounds checks, timed in alternation (checked,
/// unchecked, checked, ...) so drift in the machine's load hits both alike; the results must be
/// identical and the checked launches must report nothing.
/// A checked and an unchecked native launch timed in alternation; `None` where the native
/// accelerator cannot run the kernel (or while counting instructions).
fn native_bounds(
    ctx: &Ctx<'_>,
    checked: impl FnMut() -> Result<(), BoxError>,
    unchecked: impl FnMut() -> Result<(), BoxError>,
) -> Result<Option<(f64, f64)>, BoxError> {
    if ctx.cfg.count.is_some() || !ctx.cfg.native {
        return Ok(None);
    }
    match measure_pair(ctx.cfg, checked, unchecked) {
        Ok(pair) => Ok(Some(pair)),
        Err(e) => match native_unsupported(&e) {
            Some(_) => Ok(None),
            None => Err(e),
        },
    }
}

fn bounds_cost(ctx: &mut Ctx<'_>) -> Result<Vec<BoundsCost>, BoxError> {
    let n = if ctx.cfg.tiny {
        64
    } else if ctx.cfg.gpu {
        ctx.cfg.fit_side(2048)
    } else {
        512
    };
    let av: Vec<f32> = (0..n * n)
        .map(|i| ((i * 7 + 3) % 17) as f32 - 8.0)
        .collect();
    let bv: Vec<f32> = (0..n * n)
        .map(|i| ((i * 5 + 1) % 13) as f32 - 6.0)
        .collect();
    let a = Array::from_slice([n, n], &av)?;
    let b = Array::from_slice([n, n], &bv)?;
    let mut c_checked = Array::<f32, 2>::new([n, n])?;
    let mut c_unchecked = Array::<f32, 2>::new([n, n])?;
    let native = ctx.native.clone();
    let na = Array::from_slice_on(&native, [n, n], &av)?;
    let nb = Array::from_slice_on(&native, [n, n], &bv)?;
    let mut nc_checked = Array::<f32, 2>::new_on(&native, [n, n])?;
    let mut nc_unchecked = Array::<f32, 2>::new_on(&native, [n, n])?;
    let rounds = if ctx.cfg.tiny { 1 } else { 3 };
    let size = format!("{n} x {n}");
    let mut out = Vec::new();

    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        checked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]),
                mm_simple_checked(&a, &b, &mut c_checked),
            )?)
        })?);
        unchecked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]),
                mm_simple(&a, &b, &mut c_unchecked),
            )?)
        })?);
    }
    let (c1, c2) = (c_checked.to_vec()?, c_unchecked.to_vec()?);
    ctx.checks
        .push(check("matmul simple checked/unchecked", &c1, &c2, &c2));
    let e = Extent::new([n, n]);
    let nat = native_bounds(
        ctx,
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                mm_simple_checked(&na, &nb, &mut nc_checked),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                mm_simple(&na, &nb, &mut nc_unchecked),
            )?)
        },
    )?;
    if nat.is_some() {
        let (n1, n2) = (nc_checked.to_vec()?, nc_unchecked.to_vec()?);
        ctx.checks.push(check(
            "matmul simple checked/unchecked (native)",
            &n1,
            &n2,
            &c2,
        ));
    }
    out.push(BoundsCost {
        workload: "matmul, simple".into(),
        size: size.clone(),
        checked: median(&mut checked),
        unchecked: median(&mut unchecked),
        native: nat,
    });

    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        checked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]).tile::<TS, TS>(),
                mm_tiled_checked(&a, &b, &mut c_checked),
            )?)
        })?);
        unchecked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n, n]).tile::<TS, TS>(),
                mm_tiled(&a, &b, &mut c_unchecked),
            )?)
        })?);
    }
    let (c1, c2) = (c_checked.to_vec()?, c_unchecked.to_vec()?);
    ctx.checks
        .push(check("matmul tiled checked/unchecked", &c1, &c2, &c2));
    nc_checked.copy_from_slice(&vec![0.0; n * n])?;
    nc_unchecked.copy_from_slice(&vec![0.0; n * n])?;
    let e = Extent::new([n, n]).tile::<TS, TS>();
    let nat = native_bounds(
        ctx,
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                mm_tiled_checked(&na, &nb, &mut nc_checked),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                mm_tiled(&na, &nb, &mut nc_unchecked),
            )?)
        },
    )?;
    if nat.is_some() {
        let (n1, n2) = (nc_checked.to_vec()?, nc_unchecked.to_vec()?);
        ctx.checks.push(check(
            "matmul tiled checked/unchecked (native)",
            &n1,
            &n2,
            &c2,
        ));
    }
    out.push(BoundsCost {
        workload: "matmul, tiled 16 x 16 tile_static".into(),
        size,
        checked: median(&mut checked),
        unchecked: median(&mut unchecked),
        native: nat,
    });

    // A memory-bound kernel with one thread per element: the checks' worst case.
    let n = ctx.cfg.n();
    let x = Array::from_slice([n], &vec![1.5f32; n])?;
    let y = Array::from_slice([n], &vec![2.25f32; n])?;
    let mut z_checked = Array::<f32, 1>::new([n])?;
    let mut z_unchecked = Array::<f32, 1>::new([n])?;
    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        checked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n]),
                vadd_checked(&x, &y, &mut z_checked),
            )?)
        })?);
        unchecked.push(ctx.time(|| {
            Ok(parallel_for_each(
                Extent::new([n]),
                vadd(&x, &y, &mut z_unchecked),
            )?)
        })?);
    }
    let (z1, z2) = (z_checked.to_vec()?, z_unchecked.to_vec()?);
    ctx.checks
        .push(check("vector add checked/unchecked", &z1, &z2, &z2));
    let nx = Array::from_slice_on(&native, [n], &vec![1.5f32; n])?;
    let ny = Array::from_slice_on(&native, [n], &vec![2.25f32; n])?;
    let mut nz_checked = Array::<f32, 1>::new_on(&native, [n])?;
    let mut nz_unchecked = Array::<f32, 1>::new_on(&native, [n])?;
    let e = Extent::new([n]);
    let nat = native_bounds(
        ctx,
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                vadd_checked(&nx, &ny, &mut nz_checked),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                vadd(&nx, &ny, &mut nz_unchecked),
            )?)
        },
    )?;
    if nat.is_some() {
        let (n1, n2) = (nz_checked.to_vec()?, nz_unchecked.to_vec()?);
        ctx.checks.push(check(
            "vector add checked/unchecked (native)",
            &n1,
            &n2,
            &z2,
        ));
    }
    out.push(BoundsCost {
        workload: "vector add".into(),
        size: format!("{} f32", count(n)),
        checked: median(&mut checked),
        unchecked: median(&mut unchecked),
        native: nat,
    });
    tiled_bounds_rows(ctx, &mut out)?;
    Ok(out)
}

/// The tiled kernels of the reduction, histogram and scan rows, checked and unchecked: on the
/// Vulkan device, and natively (where the checks a tile can decide at its start are one
/// comparison per tile: docs/native.md).
fn tiled_bounds_rows(ctx: &mut Ctx<'_>, out: &mut Vec<BoundsCost>) -> Result<(), BoxError> {
    let n = ctx.cfg.n() / RT * RT;
    let tiles = n / RT;
    let native = ctx.native.clone();
    let e = Extent::new([n]).tile::<RT>();
    let xs: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let ints: Vec<i32> = xs.iter().map(|&x| x as i32).collect();
    let size = format!("{} u32", count(n));
    let mut push = |ctx: &mut Ctx<'_>, workload: &str, times: BoundsTimes, r: [Vec<u32>; 4]| {
        let [vc, vu, nc, nu] = r;
        ctx.checks.push(check(
            &format!("{workload} checked/unchecked"),
            &vc,
            &vu,
            &vu,
        ));
        if times.2.is_some() {
            ctx.checks.push(check(
                &format!("{workload} checked/unchecked (native)"),
                &nc,
                &nu,
                &vu,
            ));
        }
        out.push(BoundsCost {
            workload: workload.into(),
            size: size.clone(),
            checked: times.0,
            unchecked: times.1,
            native: times.2,
        });
    };

    // The tree reduction's tile sums (i32, compared as their bits).
    let a = Array::from_slice([n], &ints)?;
    let na = Array::from_slice_on(&native, [n], &ints)?;
    let (mut s0, mut s1) = (
        Array::<i32, 1>::new([tiles])?,
        Array::<i32, 1>::new([tiles])?,
    );
    let (mut n0, mut n1) = (
        Array::<i32, 1>::new_on(&native, [tiles])?,
        Array::<i32, 1>::new_on(&native, [tiles])?,
    );
    let times = bounds_times(
        ctx,
        || Ok(parallel_for_each(e, reduce_tree_i32_checked(&a, &mut s0))?),
        || Ok(parallel_for_each(e, reduce_tree_i32(&a, &mut s1))?),
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                reduce_tree_i32_checked(&na, &mut n0),
            )?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                reduce_tree_i32(&na, &mut n1),
            )?)
        },
    )?;
    let bits = |a: &Array<i32, 1>| -> Result<Vec<u32>, BoxError> {
        Ok(a.to_vec()?.into_iter().map(|x| x as u32).collect())
    };
    let r = [bits(&s0)?, bits(&s1)?, bits(&n0)?, bits(&n1)?];
    push(ctx, "reduce i32, tree (tiles of 256)", times, r);

    // The histogram.
    let d = Array::from_slice([n], &xs)?;
    let nd = Array::from_slice_on(&native, [n], &xs)?;
    let (mut h0, mut h1) = (Array::<u32, 1>::new([256])?, Array::<u32, 1>::new([256])?);
    let (mut m0, mut m1) = (
        Array::<u32, 1>::new_on(&native, [256])?,
        Array::<u32, 1>::new_on(&native, [256])?,
    );
    // Each timed launch adds to the bins: the results are compared per launch count below.
    let times = bounds_times(
        ctx,
        || Ok(parallel_for_each(e, histogram_checked(&d, &mut h0))?),
        || Ok(parallel_for_each(e, histogram(&d, &mut h1))?),
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                histogram_checked(&nd, &mut m0),
            )?)
        },
        || Ok(parallel_for_each_on(&native, e, histogram(&nd, &mut m1))?),
    )?;
    // Bins after one launch of each (the timed runs added up different counts).
    let once = |k: &dyn Fn(&mut Array<u32, 1>) -> Result<(), amp::Error>,
                acc: &Accelerator|
     -> Result<Vec<u32>, BoxError> {
        let mut bins = Array::<u32, 1>::new_on(acc, [256])?;
        k(&mut bins)?;
        Ok(bins.to_vec()?)
    };
    let acc = ctx.acc.clone();
    let r = [
        once(&|b| parallel_for_each(e, histogram_checked(&d, b)), &acc)?,
        once(&|b| parallel_for_each(e, histogram(&d, b)), &acc)?,
        once(
            &|b| parallel_for_each_on(&native, e, histogram_checked(&nd, b)),
            &native,
        )?,
        once(
            &|b| parallel_for_each_on(&native, e, histogram(&nd, b)),
            &native,
        )?,
    ];
    push(ctx, "histogram, 256 bins (tiles of 256)", times, r);

    // The tile scan.
    let (mut o0, mut o1) = (Array::<u32, 1>::new([n])?, Array::<u32, 1>::new([n])?);
    let (mut t0, mut t1) = (
        Array::<u32, 1>::new([tiles])?,
        Array::<u32, 1>::new([tiles])?,
    );
    let (mut p0, mut p1) = (
        Array::<u32, 1>::new_on(&native, [n])?,
        Array::<u32, 1>::new_on(&native, [n])?,
    );
    let (mut q0, mut q1) = (
        Array::<u32, 1>::new_on(&native, [tiles])?,
        Array::<u32, 1>::new_on(&native, [tiles])?,
    );
    let times = bounds_times(
        ctx,
        || {
            Ok(parallel_for_each(
                e,
                scan_tiles_checked(&d, &mut o0, &mut t0),
            )?)
        },
        || Ok(parallel_for_each(e, scan_tiles(&d, &mut o1, &mut t1))?),
        || {
            let call = scan_tiles_checked(&nd, &mut p0, &mut q0);
            Ok(parallel_for_each_on(&native, e, call)?)
        },
        || {
            Ok(parallel_for_each_on(
                &native,
                e,
                scan_tiles(&nd, &mut p1, &mut q1),
            )?)
        },
    )?;
    let r = [o0.to_vec()?, o1.to_vec()?, p0.to_vec()?, p1.to_vec()?];
    push(ctx, "scan of each tile (tiles of 256)", times, r);
    Ok(())
}

/// Medians of a checked and an unchecked Vulkan launch (timed in alternation) and the same
/// pair natively (`native_bounds`).
type BoundsTimes = (f64, f64, Option<(f64, f64)>);

fn bounds_times(
    ctx: &Ctx<'_>,
    mut checked: impl FnMut() -> Result<(), BoxError>,
    mut unchecked: impl FnMut() -> Result<(), BoxError>,
    native_checked: impl FnMut() -> Result<(), BoxError>,
    native_unchecked: impl FnMut() -> Result<(), BoxError>,
) -> Result<BoundsTimes, BoxError> {
    let rounds = if ctx.cfg.tiny { 1 } else { 3 };
    let (mut c, mut u) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        c.push(ctx.time(&mut checked)?);
        u.push(ctx.time(&mut unchecked)?);
    }
    let nat = native_bounds(ctx, native_checked, native_unchecked)?;
    Ok((median(&mut c), median(&mut u), nat))
}

fn reductions(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    // i32: wrapping sums of scrambled values.
    let xs: Vec<i32> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 4) as i32)
        .collect();
    reduction_rows(
        ctx,
        ("i32", "int"),
        &xs,
        |v| v.par_iter().copied().reduce(|| 0, i32::wrapping_add),
        |v| v.iter().fold(0, |x, &y| x.wrapping_add(y)),
        |on, tree, a, sums| {
            let e = Extent::new([n]).tile::<RT>();
            match tree {
                true => parallel_for_each_on(on, e, reduce_tree_i32(a, sums)),
                false => parallel_for_each_on(on, e, reduce_seq_i32(a, sums)),
            }
        },
    )?;
    reduction_diagnostics(ctx, &xs)?;
    // f32: values -1, 0, 1 repeating, so every partial sum is a small integer (exact).
    let xs: Vec<f32> = (0..n).map(|i| (i % 3) as f32 - 1.0).collect();
    reduction_rows(
        ctx,
        ("f32", "float"),
        &xs,
        |v| v.par_iter().sum(),
        |v| v.iter().sum(),
        |on, tree, a, sums| {
            let e = Extent::new([n]).tile::<RT>();
            match tree {
                true => parallel_for_each_on(on, e, reduce_tree_f32(a, sums)),
                false => parallel_for_each_on(on, e, reduce_seq_f32(a, sums)),
            }
        },
    )
}

/// Native time of the row named `name` (the last one), for the diagnostics.
fn native_secs(ctx: &Ctx<'_>, name: &str) -> Option<f64> {
    ctx.rows
        .iter()
        .rev()
        .find(|r| r.name == name)?
        .native
        .secs()
}

/// Why the native reductions trail the CPU column: the kernels' own algorithm (each tile
/// copied into a local array, then 8 passes over all 256 lanes with a barrier between them)
/// written in plain Rust, rayon over tiles, beside the native kernel and the CPU column.
fn reduction_diagnostics(ctx: &mut Ctx<'_>, xs: &[i32]) -> Result<(), BoxError> {
    if ctx.cfg.count.is_some() {
        return Ok(());
    }
    let want = xs.iter().fold(0i32, |s, &x| s.wrapping_add(x));
    for tree in [true, false] {
        let label = if tree { "tree" } else { "sequential" };
        let name = format!("reduce i32, {label} (+ CPU pass over tile sums)");
        let Some(t_native) = native_secs(ctx, &name) else {
            continue;
        };
        let mut sums = vec![0i32; xs.len() / RT];
        let mut total = 0;
        let t_emulated = ctx.time(|| {
            sums.par_iter_mut()
                .zip(xs.par_chunks(RT))
                .for_each(|(out, tile)| {
                    let mut sh = [0i32; RT];
                    sh.copy_from_slice(tile);
                    if tree {
                        let mut s = 1;
                        while s < RT {
                            for l in 0..RT {
                                if l % (2 * s) == 0 {
                                    sh[l] = sh[l].wrapping_add(sh[l + s]);
                                }
                            }
                            s *= 2;
                        }
                    } else {
                        let mut s = RT / 2;
                        while s > 0 {
                            for l in 0..RT {
                                if l < s {
                                    sh[l] = sh[l].wrapping_add(sh[l + s]);
                                }
                            }
                            s /= 2;
                        }
                    }
                    *out = sh[0];
                });
            total = sums.iter().fold(0i32, |s, &x| s.wrapping_add(x));
            Ok(())
        })?;
        ctx.checks.push(Check {
            workload: format!("{name}, the kernel's algorithm in plain Rust"),
            agree: total == want,
            detail: format!("{total} vs CPU {want}"),
        });
        let t_cpu = ctx
            .rows
            .iter()
            .rev()
            .find(|r| r.name == name)
            .and_then(|r| r.cpu.secs())
            .unwrap_or(f64::NAN);
        let size = format!("{} i32", count(xs.len()));
        let d = |variant: &str, secs| Diagnostic {
            workload: name.clone(),
            size: size.clone(),
            variant: variant.into(),
            secs,
        };
        ctx.diagnostics
            .push(d("the kernel natively (`unchecked`)", t_native));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust (rayon over tiles; each tile copied into a \
             local [i32; 256], then 8 passes over all 256 lanes, as the barriers order them)",
            t_emulated,
        ));
        ctx.diagnostics.push(d(
            "the CPU column: rayon `reduce` (one pass, vectorised)",
            t_cpu,
        ));
    }
    Ok(())
}

/// The tree and the sequential reduction rows of one element type (`ty`: its Rust and GLSL
/// names): `launch(on, tree, a, sums)` runs the amp kernel on `on`, `finish` adds up the tile
/// sums on the CPU (the amp, glslang and native columns pay it), `cpu_total` is the CPU column.
fn reduction_rows<T>(
    ctx: &mut Ctx<'_>,
    (ty, glsl_ty): (&str, &str),
    xs: &[T],
    cpu_total: impl Fn(&[T]) -> T,
    finish: impl Fn(&[T]) -> T,
    launch: impl Fn(&Accelerator, bool, &Array<T, 1>, &mut Array<T, 1>) -> Result<(), amp::Error>,
) -> Result<(), BoxError>
where
    T: amp::DeviceElement + Default + PartialEq + std::fmt::Debug,
{
    let n = xs.len();
    let acc = ctx.acc.clone();
    let tiles = n / RT;
    let groups = fold(&acc, tiles);
    let pc = push(&[tiles as u32]);
    let size = format!("{} {ty}", count(n));
    let bytes = Work::Bytes(4.0 * n as f64);
    let a = Array::from_slice([n], xs)?;
    let mut s_amp = Array::<T, 1>::new([tiles])?;
    let mut s_glsl = Array::<T, 1>::new([tiles])?;
    let total = |s: &Array<T, 1>| -> Result<T, BoxError> { Ok(finish(&s.to_vec()?)) };
    let native = ctx.native.clone();
    let na = Array::from_slice_on(&native, [n], xs)?;
    let mut ns = Array::<T, 1>::new_on(&native, [tiles])?;
    let mut cpu = T::default();
    let t_cpu = ctx.time(|| {
        cpu = cpu_total(xs);
        Ok(())
    })?;
    let loops = [
        (
            "tree",
            "for (uint s = 1u; s < 256u; s *= 2u)",
            "l % (2u * s) == 0u",
        ),
        (
            "sequential",
            "for (uint s = 128u; s > 0u; s >>= 1u)",
            "l < s",
        ),
    ];
    for (label, lp, cond) in loops {
        let source = format!(
            "{GLSL_T256}{}",
            G_REDUCE
                .replace("T ", &format!("{glsl_ty} "))
                .replace("LOOP", lp)
                .replace("COND", cond)
        );
        let k = raw(&acc, &format!("reduce_{label}_{ty}"), &source, 2, 4)?;
        let tree = label == "tree";
        let (mut r_amp, mut r_glsl) = (T::default(), T::default());
        let (t_amp, t_glsl) = ctx.time_pair(
            || {
                launch(&acc, tree, &a, &mut s_amp)?;
                r_amp = total(&s_amp)?;
                Ok(())
            },
            || {
                k.dispatch(
                    groups,
                    vec![KernelArg::read(&a), KernelArg::write(&mut s_glsl)],
                    &pc,
                )?;
                r_glsl = total(&s_glsl)?;
                Ok(())
            },
        )?;
        // Natively the tile sums are host memory: the CPU pass reads them in place.
        let mut r_native = T::default();
        let t_native = ctx.time_native(|| {
            launch(&native, tree, &na, &mut ns)?;
            r_native = finish(ns.as_slice()?);
            Ok(())
        })?;
        let name = format!("reduce {ty}, {label} (+ CPU pass over tile sums)");
        ctx.check_native(&name, &t_native, || Ok(vec![r_native]), &[cpu])?;
        ctx.push_row(workload_row(
            &name,
            size.clone(),
            bytes,
            [t_amp, t_glsl, t_cpu],
            &t_native,
        ));
        ctx.checks.push(check(&name, &[r_amp], &[r_glsl], &[cpu]));
    }
    Ok(())
}

fn transpose(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.transpose_side();
    let acc = ctx.acc.clone();
    let xs: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let a = Array::from_slice([n, n], &xs)?;
    let mut o_amp = Array::<f32, 2>::new([n, n])?;
    let mut o_glsl = Array::<f32, 2>::new([n, n])?;
    let bytes = Work::Bytes(8.0 * (n * n) as f64);
    let mut cpu = vec![0.0f32; n * n];
    let t_cpu = ctx.time(|| {
        cpu.par_chunks_mut(n).enumerate().for_each(|(j, row)| {
            for (i, o) in row.iter_mut().enumerate() {
                *o = xs[i * n + j];
            }
        });
        Ok(())
    })?;
    let pc = push(&[n as u32, n as u32]);
    let native = ctx.native.clone();
    let na = Array::from_slice_on(&native, [n, n], &xs)?;
    let mut no = Array::<f32, 2>::new_on(&native, [n, n])?;
    for (label, width, padded) in [
        ("padded [[f32; 33]; 32]", 33, true),
        ("square [[f32; 32]; 32]", 32, false),
    ] {
        let src = G_TRANSPOSE.replace("[W]", &format!("[{width}]"));
        let k = raw(&acc, &format!("transpose_{width}"), &src, 2, 8)?;
        let (t_amp, t_glsl) = ctx.time_pair(
            || {
                let e = Extent::new([n, n]).tile::<32, 32>();
                if padded {
                    parallel_for_each(e, transpose_padded(&a, &mut o_amp))?;
                } else {
                    parallel_for_each(e, transpose_square(&a, &mut o_amp))?;
                }
                Ok(())
            },
            || {
                Ok(k.dispatch(
                    [(n / 32) as u32, (n / 32) as u32, 1],
                    vec![KernelArg::read(&a), KernelArg::write(&mut o_glsl)],
                    &pc,
                )?)
            },
        )?;
        no.copy_from_slice(&vec![0.0; n * n])?;
        let t_native = ctx.time_native(|| {
            let e = Extent::new([n, n]).tile::<32, 32>();
            if padded {
                parallel_for_each_on(&native, e, transpose_padded(&na, &mut no))?;
            } else {
                parallel_for_each_on(&native, e, transpose_square(&na, &mut no))?;
            }
            Ok(())
        })?;
        let name = format!("transpose, tile {label}");
        ctx.check_native(&name, &t_native, || Ok(no.to_vec()?), &cpu)?;
        ctx.push_row(workload_row(
            &name,
            format!("{n} x {n} f32"),
            bytes,
            [t_amp, t_glsl, t_cpu],
            &t_native,
        ));
        ctx.checks
            .push(check(&name, &o_amp.to_vec()?, &o_glsl.to_vec()?, &cpu));
    }
    Ok(())
}

fn histogram_workload(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let acc = ctx.acc.clone();
    let tiles = n / RT;
    let xs: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 9)
        .collect();
    let data = Array::from_slice([n], &xs)?;
    let mut b_amp = Array::<u32, 1>::new([256])?;
    let mut b_glsl = Array::<u32, 1>::new([256])?;
    let zeros = [0u32; 256];
    let k = raw(
        &acc,
        "histogram",
        &format!("{GLSL_T256}{G_HISTOGRAM}"),
        2,
        4,
    )?;
    let pc = push(&[tiles as u32]);
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            b_amp.copy_from_slice(&zeros)?;
            Ok(parallel_for_each(
                Extent::new([n]).tile::<RT>(),
                histogram(&data, &mut b_amp),
            )?)
        },
        || {
            b_glsl.copy_from_slice(&zeros)?;
            Ok(k.dispatch(
                fold(&acc, tiles),
                vec![KernelArg::read(&data), KernelArg::write(&mut b_glsl)],
                &pc,
            )?)
        },
    )?;
    let mut cpu = vec![0u32; 256];
    let t_cpu = ctx.time(|| {
        cpu = xs
            .par_chunks(1 << 16)
            .fold(
                || vec![0u32; 256],
                |mut h, c| {
                    for x in c {
                        h[(x % 256) as usize] += 1;
                    }
                    h
                },
            )
            .reduce(
                || vec![0u32; 256],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        Ok(())
    })?;
    let native = ctx.native.clone();
    let n_data = Array::from_slice_on(&native, [n], &xs)?;
    let mut n_bins = Array::<u32, 1>::new_on(&native, [256])?;
    let t_native = ctx.time_native(|| {
        n_bins.copy_from_slice(&zeros)?;
        Ok(parallel_for_each_on(
            &native,
            Extent::new([n]).tile::<RT>(),
            histogram(&n_data, &mut n_bins),
        )?)
    })?;
    ctx.check_native("histogram", &t_native, || Ok(n_bins.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "histogram, 256 bins (tile_static atomics + merge)",
        format!("{} u32", count(n)),
        Work::Bytes(4.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    if let (Ok(t_native), None) = (&t_native, &ctx.cfg.count) {
        // The kernel's algorithm in plain Rust: per 256-element tile, local bins then one
        // atomic add per bin into the shared bins; once with atomic local bins (what the
        // kernel's `atomic_fetch_add` on `tile_static` memory asks for), once with plain ones
        // (enough when a tile's threads run on one OS thread, as natively).
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        let emulate = |atomic_local: bool| {
            let bins: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
            xs.par_chunks(RT).for_each(|tile| {
                let mut local = [0u32; RT];
                if atomic_local {
                    let local: [AtomicU32; RT] = std::array::from_fn(|_| AtomicU32::new(0));
                    for &x in tile {
                        local[(x % 256) as usize].fetch_add(1, Relaxed);
                    }
                    for (b, l) in bins.iter().zip(&local) {
                        let l = l.load(Relaxed);
                        if l > 0 {
                            b.fetch_add(l, Relaxed);
                        }
                    }
                } else {
                    for &x in tile {
                        local[(x % 256) as usize] += 1;
                    }
                    for (b, &l) in bins.iter().zip(&local) {
                        if l > 0 {
                            b.fetch_add(l, Relaxed);
                        }
                    }
                }
            });
            bins.iter().map(|b| b.load(Relaxed)).collect::<Vec<u32>>()
        };
        let mut got = (Vec::new(), Vec::new());
        let t_atomic = ctx.time(|| {
            got.0 = emulate(true);
            Ok(())
        })?;
        let t_plain = ctx.time(|| {
            got.1 = emulate(false);
            Ok(())
        })?;
        ctx.checks.push(check(
            "histogram, the kernel's algorithm in plain Rust (atomic / plain local bins)",
            &got.0,
            &got.1,
            &cpu,
        ));
        let name = "histogram, 256 bins (tile_static atomics + merge)";
        let size = format!("{} u32", count(n));
        let d = |variant: &str, secs| Diagnostic {
            workload: name.into(),
            size: size.clone(),
            variant: variant.into(),
            secs,
        };
        ctx.diagnostics
            .push(d("the kernel natively (`unchecked`)", *t_native));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust, atomic local bins (rayon over tiles)",
            t_atomic,
        ));
        ctx.diagnostics.push(d(
            "the kernel's algorithm in plain Rust, plain local bins (rayon over tiles)",
            t_plain,
        ));
        ctx.diagnostics.push(d(
            "the CPU column: rayon fold of per-chunk bins over 64K-element chunks",
            t_cpu,
        ));
    }
    ctx.checks.push(check(
        "histogram",
        &b_amp.to_vec()?,
        &b_glsl.to_vec()?,
        &cpu,
    ));
    Ok(())
}

fn scan(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = ctx.cfg.n();
    let acc = ctx.acc.clone();
    let tiles = n / RT;
    let xs: Vec<u32> = (0..n).map(|i| (i * 7 % 5) as u32).collect();
    let input = Array::from_slice([n], &xs)?;
    let mut o_amp = Array::<u32, 1>::new([n])?;
    let mut o_glsl = Array::<u32, 1>::new([n])?;
    let mut s_amp = Array::<u32, 1>::new([tiles])?;
    let mut s_glsl = Array::<u32, 1>::new([tiles])?;
    let k_tiles = raw(
        &acc,
        "scan_tiles",
        &format!("{GLSL_T256}{G_SCAN_TILES}"),
        3,
        4,
    )?;
    let k_sums = raw(&acc, "scan_sums", G_SCAN_SUMS, 1, 4)?;
    let k_add = raw(&acc, "scan_add", &format!("{GLSL_1D}{G_SCAN_ADD}"), 2, 4)?;
    let (t_amp, t_glsl) = ctx.time_pair(
        || {
            parallel_for_each(
                Extent::new([n]).tile::<RT>(),
                scan_tiles(&input, &mut o_amp, &mut s_amp),
            )?;
            parallel_for_each(Extent::new([1024]).tile::<1024>(), scan_sums(&mut s_amp))?;
            parallel_for_each(Extent::new([n]), scan_add(&mut o_amp, &s_amp))?;
            Ok(())
        },
        || {
            k_tiles.dispatch(
                fold(&acc, tiles),
                vec![
                    KernelArg::read(&input),
                    KernelArg::write(&mut o_glsl),
                    KernelArg::write(&mut s_glsl),
                ],
                &push(&[tiles as u32]),
            )?;
            k_sums.dispatch(
                [1, 1, 1],
                vec![KernelArg::write(&mut s_glsl)],
                &push(&[tiles as u32]),
            )?;
            k_add.dispatch(
                fold(&acc, n.div_ceil(64)),
                vec![KernelArg::write(&mut o_glsl), KernelArg::read(&s_glsl)],
                &push(&[n as u32]),
            )?;
            Ok(())
        },
    )?;
    let mut cpu = vec![0u32; n];
    let t_cpu = ctx.time(|| {
        cpu_exclusive_scan(&xs, &mut cpu);
        Ok(())
    })?;
    let native = ctx.native.clone();
    let n_in = Array::from_slice_on(&native, [n], &xs)?;
    let mut n_out = Array::<u32, 1>::new_on(&native, [n])?;
    let mut n_sums = Array::<u32, 1>::new_on(&native, [tiles])?;
    let t_native = ctx.time_native(|| {
        parallel_for_each_on(
            &native,
            Extent::new([n]).tile::<RT>(),
            scan_tiles(&n_in, &mut n_out, &mut n_sums),
        )?;
        parallel_for_each_on(
            &native,
            Extent::new([1024]).tile::<1024>(),
            scan_sums(&mut n_sums),
        )?;
        parallel_for_each_on(&native, Extent::new([n]), scan_add(&mut n_out, &n_sums))?;
        Ok(())
    })?;
    ctx.check_native("exclusive scan", &t_native, || Ok(n_out.to_vec()?), &cpu)?;
    ctx.push_row(workload_row(
        "exclusive scan (tile scan + scan of tile sums + add)",
        format!("{} u32", count(n)),
        Work::Bytes(8.0 * n as f64),
        [t_amp, t_glsl, t_cpu],
        &t_native,
    ));
    if let Ok(t_all) = t_native {
        // Where the native scan's time goes: each of its three launches alone (after the
        // check above: they leave the output scrambled).
        let t_tiles = ctx.time_native(|| {
            Ok(parallel_for_each_on(
                &native,
                Extent::new([n]).tile::<RT>(),
                scan_tiles(&n_in, &mut n_out, &mut n_sums),
            )?)
        })?;
        let t_sums = ctx.time_native(|| {
            Ok(parallel_for_each_on(
                &native,
                Extent::new([1024]).tile::<1024>(),
                scan_sums(&mut n_sums),
            )?)
        })?;
        let t_add = ctx.time_native(|| {
            Ok(parallel_for_each_on(
                &native,
                Extent::new([n]),
                scan_add(&mut n_out, &n_sums),
            )?)
        })?;
        let name = "exclusive scan (tile scan + scan of tile sums + add)";
        let size = format!("{} u32", count(n));
        for (variant, t) in [
            ("the three launches natively", Ok(t_all)),
            (
                "`scan_tiles` natively (Hillis-Steele over each 256-element tile: 8 steps, 16 barriers)",
                t_tiles,
            ),
            (
                "`scan_sums` natively (one tile of 1024 threads: one worker thread)",
                t_sums,
            ),
            ("`scan_add` natively (one add per element)", t_add),
            ("the CPU column: two-pass chunked scan over 64K-element chunks", Ok(t_cpu)),
        ] {
            if let Ok(secs) = t {
                ctx.diagnostics.push(Diagnostic {
                    workload: name.into(),
                    size: size.clone(),
                    variant: variant.into(),
                    secs,
                });
            }
        }
    }
    ctx.checks.push(check(
        "exclusive scan",
        &o_amp.to_vec()?,
        &o_glsl.to_vec()?,
        &cpu,
    ));
    Ok(())
}

/// The CPU column's exclusive scan: chunk totals in parallel, a scan of the totals, then each
/// chunk's exclusive scan from its offset in parallel.
fn cpu_exclusive_scan(xs: &[u32], out: &mut [u32]) {
    const CHUNK: usize = 1 << 16;
    let totals: Vec<u32> = xs
        .par_chunks(CHUNK)
        .map(|c| c.iter().fold(0u32, |s, &x| s.wrapping_add(x)))
        .collect();
    let mut offsets = Vec::with_capacity(totals.len());
    let mut acc = 0u32;
    for t in totals {
        offsets.push(acc);
        acc = acc.wrapping_add(t);
    }
    out.par_chunks_mut(CHUNK)
        .zip(xs.par_chunks(CHUNK))
        .zip(offsets)
        .for_each(|((out, inp), mut s)| {
            for (o, &x) in out.iter_mut().zip(inp) {
                *o = s;
                s = s.wrapping_add(x);
            }
        });
}

/// Round trip of an empty kernel over one thread: amp's launch against `RawKernel`'s.
fn launch_overhead(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let reps = match (ctx.cfg.count.is_some(), ctx.cfg.tiny) {
        (true, _) => 0,
        (false, true) => 5,
        (false, false) => 1000,
    };
    let k = raw(&ctx.acc, "empty", G_EMPTY, 0, 0)?;
    let words = compile_glsl("empty", G_EMPTY)?;
    // The floor: a loop written against ash alone, on its own device handle, timed in
    // alternation with the runtime's launches so both see the same machine state.
    let floor = raw_vulkan::RawLoop::new(ctx.acc.name(), &words)?;
    floor.round_trip()?;
    parallel_for_each(Extent::new([1]), empty())?;
    k.dispatch([1, 1, 1], Vec::new(), &[])?;
    let mut ta = Vec::new();
    let mut tg = Vec::new();
    let mut tr = Vec::new();
    let mut tn = Vec::new();
    let native = ctx.native.clone();
    let native_launch = || -> Result<(), BoxError> {
        Ok(parallel_for_each_on(&native, Extent::new([1]), empty())?)
    };
    let native_ok: Native = match native_launch() {
        Ok(()) => Ok(0.0),
        Err(e) => Err(native_unsupported(&e).ok_or(e)?),
    };
    if ctx.cfg.count.is_some() {
        // Instruction counting: the same two comparisons, as pairs.
        let raw_loop = || floor.round_trip();
        ctx.time_pair(
            || {
                parallel_for_each(Extent::new([1]), empty())?;
                settle()
            },
            raw_loop,
        )?;
        ctx.time_pair(
            || {
                k.dispatch([1, 1, 1], Vec::new(), &[])?;
                settle()
            },
            raw_loop,
        )?;
        (ta, tg, tr) = (vec![1.0], vec![1.0], vec![1.0]);
    }
    for _ in 0..reps {
        let t = Instant::now();
        floor.round_trip()?;
        tr.push(t.elapsed().as_secs_f64());
        // A round trip: the launch and the wait for it.
        let t = Instant::now();
        parallel_for_each(Extent::new([1]), empty())?;
        settle()?;
        ta.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        k.dispatch([1, 1, 1], Vec::new(), &[])?;
        settle()?;
        tg.push(t.elapsed().as_secs_f64());
        if native_ok.is_ok() {
            // Native launches finish before they return: the launch is the round trip.
            let t = Instant::now();
            native_launch()?;
            tn.push(t.elapsed().as_secs_f64());
        }
    }
    let cell = |v: &mut Vec<f64>| Cell::Time {
        secs: median(v),
        rate: None,
    };
    ctx.push_row(Row {
        name:
            "launch overhead, empty kernel (glslang column: minimal raw `ash` submit-and-wait loop)"
                .into(),
        size: "1 thread".into(),
        amp: cell(&mut ta),
        glsl: cell(&mut tr),
        cpu: Cell::None,
        native: match native_ok {
            Ok(_) if !tn.is_empty() => cell(&mut tn),
            Ok(_) => Cell::None,
            Err(why) => Cell::Unsupported(why),
        },
    });
    ctx.push_row(Row {
        name: "launch overhead, `RawKernel` empty dispatch (amp column) vs the raw `ash` loop"
            .into(),
        size: "1 thread".into(),
        amp: cell(&mut tg),
        glsl: cell(&mut tr),
        cpu: Cell::None,
        native: Cell::None,
    });
    Ok(())
}

/// A chain of dependent launches of a small kernel (`vadd` with an array of ones) over two
/// `Array`s (ping-pong: each launch reads what the previous one wrote) followed by one read, three ways: asynchronous
/// launches (batched by the runtime), the same launches each followed by a wait (the
/// synchronous launches of earlier versions: one submission and one fence wait per launch),
/// and the floor, the same dispatches recorded by hand into one command buffer with a barrier
/// between consecutive ones (`raw_vulkan::RawChain`).
fn launch_chain(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let (launches, n) = if ctx.cfg.tiny { (20, 64) } else { (1000, 64) };
    let floor = raw_vulkan::RawChain::new(ctx.acc.name(), &compile_glsl("chain", G_CHAIN)?, n)?;
    // The vector add with an array of ones: `b = a + 1` (the floor reads no ones).
    let ones = Array::from_slice_on(&ctx.acc, [n], &vec![1.0f32; n])?;
    let mut a = Array::<f32, 1>::new_on(&ctx.acc, [n])?;
    let mut b = Array::<f32, 1>::new_on(&ctx.acc, [n])?;
    let view = ctx.acc.default_view();
    let mut chain = |wait_each: bool| -> Result<Vec<u32>, BoxError> {
        a.copy_from_slice(&vec![0.0; n])?;
        for i in 0..launches {
            if i % 2 == 0 {
                parallel_for_each(a.extent(), vadd(&a, &ones, &mut b))?;
            } else {
                parallel_for_each(a.extent(), vadd(&b, &ones, &mut a))?;
            }
            if wait_each {
                view.wait()?;
            }
        }
        // One read (of `a`, as the floor reads its buffer 0), compared as bits.
        Ok(a.to_vec()?.into_iter().map(f32::to_bits).collect())
    };
    // Even launches write `b`, odd ones `a`: after an even number of launches `a` holds it.
    let want = vec![(launches as f32).to_bits(); n];
    let (mut got_async, mut got_sync, mut got_floor) = (Vec::new(), Vec::new(), Vec::new());
    let (t_async, t_floor) = ctx.time_pair(
        || {
            got_async = chain(false)?;
            Ok(())
        },
        || {
            floor.reset();
            got_floor = floor.run(launches)?;
            Ok(())
        },
    )?;
    let t_sync = ctx.time(|| {
        got_sync = chain(true)?;
        Ok(())
    })?;
    // The same chain on the native accelerator, its arrays in host memory.
    let native = ctx.native.clone();
    let n_ones = Array::from_slice_on(&native, [n], &vec![1.0f32; n])?;
    let mut na = Array::<f32, 1>::new_on(&native, [n])?;
    let mut nb = Array::<f32, 1>::new_on(&native, [n])?;
    let mut got_native = Vec::new();
    let t_native = ctx.time_native(|| {
        na.copy_from_slice(&vec![0.0; n])?;
        for i in 0..launches {
            if i % 2 == 0 {
                parallel_for_each_on(&native, na.extent(), vadd(&na, &n_ones, &mut nb))?;
            } else {
                parallel_for_each_on(&native, na.extent(), vadd(&nb, &n_ones, &mut na))?;
            }
        }
        got_native = na.to_vec()?.into_iter().map(f32::to_bits).collect();
        Ok(())
    })?;
    ctx.check_native("launch chain", &t_native, || Ok(got_native.clone()), &want)?;
    let per_launch = |t: &Native| match t {
        Ok(secs) => Cell::Time {
            secs: *secs,
            rate: Some(format!("{:.1} µs/launch", secs * 1e6 / launches as f64)),
        },
        Err(why) => Cell::Unsupported(why.clone()),
    };
    ctx.checks
        .push(check("launch chain", &got_async, &got_floor, &want));
    ctx.checks.push(check(
        "launch chain, synchronous",
        &got_sync,
        &got_floor,
        &want,
    ));
    let name = format!("chain of {launches} dependent launches over 2 `Array`s + 1 read");
    ctx.push_row(Row {
        name: format!("{name} (glslang column: the dispatches recorded by hand in raw `ash`)"),
        size: format!("{n} elements"),
        amp: Cell::Time {
            secs: t_async,
            rate: Some(format!("{:.1} µs/launch", t_async * 1e6 / launches as f64)),
        },
        glsl: Cell::Time {
            secs: t_floor,
            rate: Some(format!("{:.1} µs/launch", t_floor * 1e6 / launches as f64)),
        },
        cpu: Cell::None,
        native: per_launch(&t_native),
    });
    ctx.push_row(Row {
        name: format!("{name}, each launch waited for (synchronous) vs the same floor"),
        size: format!("{n} elements"),
        amp: Cell::Time {
            secs: t_sync,
            rate: Some(format!("{:.1} µs/launch", t_sync * 1e6 / launches as f64)),
        },
        glsl: Cell::Time {
            secs: t_floor,
            rate: Some(format!("{:.1} µs/launch", t_floor * 1e6 / launches as f64)),
        },
        cpu: Cell::None,
        // Native launches always finish before they return: the row above is synchronous.
        native: Cell::None,
    });
    Ok(())
}

/// Host-to-device (an `ArrayView`'s upload on its first launch) and device-to-host
/// (`ArrayViewMut::synchronize`) against a plain `memcpy` of the same bytes.
fn transfers(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let bytes = ctx.cfg.transfer_bytes();
    let n = bytes / 4;
    let src: Vec<u32> = (0..n as u32).collect();
    let mut out = Array::<u32, 1>::new([1])?;
    // The launch itself, to subtract: a one-element view.
    let one = [7u32];
    let t_launch = ctx.time(|| {
        let v = ArrayView::new([1], &one)?;
        Ok(parallel_for_each(Extent::new([1]), touch(&v, &mut out))?)
    })?;
    let t_up = ctx.time(|| {
        let v = ArrayView::new([n], &src)?;
        Ok(parallel_for_each(Extent::new([1]), touch(&v, &mut out))?)
    })?;
    let mut dst = vec![0u32; n];
    let mut sync_times = Vec::new();
    let reps = if ctx.cfg.tiny {
        1
    } else {
        ctx.cfg.reps.max(3) + 1
    };
    for _ in 0..reps {
        let mut v = ArrayViewMut::new([n], &mut dst)?;
        v.discard_data();
        parallel_for_each(Extent::new([1]), fill_one(&mut v))?;
        let t = Instant::now();
        v.synchronize()?;
        sync_times.push(t.elapsed().as_secs_f64());
    }
    if !ctx.cfg.tiny {
        sync_times.remove(0);
    }
    let t_down = median(&mut sync_times);
    let down_ok = dst[0] == 1;
    let mut copy = vec![0u32; n];
    let t_copy = ctx.time(|| {
        copy.copy_from_slice(&src);
        Ok(())
    })?;
    // Explicit copies between a host slice and a device array (`amp::copy`).
    let mut arr = Array::<u32, 1>::new([n])?;
    let t_to_array = ctx.time(|| Ok(amp::copy(&src[..], &mut arr)?))?;
    let mut back = vec![0u32; n];
    let t_from_array = ctx.time(|| Ok(amp::copy(&arr, &mut back[..])?))?;
    let copies_ok = back == src;
    // The native accelerator: views of host slices are used in place, arrays are host memory.
    let native = ctx.native.clone();
    let mut n_out = Array::<u32, 1>::new_on(&native, [1])?;
    let nt_launch = ctx.time_native(|| {
        let v = ArrayView::new([1], &one)?;
        Ok(parallel_for_each_on(
            &native,
            Extent::new([1]),
            touch(&v, &mut n_out),
        )?)
    })?;
    let nt_up = ctx.time_native(|| {
        let v = ArrayView::new([n], &src)?;
        Ok(parallel_for_each_on(
            &native,
            Extent::new([1]),
            touch(&v, &mut n_out),
        )?)
    })?;
    let mut n_dst = vec![0u32; n];
    let mut n_sync = Vec::new();
    for _ in 0..reps {
        let mut v = ArrayViewMut::new([n], &mut n_dst)?;
        v.discard_data();
        parallel_for_each_on(&native, Extent::new([1]), fill_one(&mut v))?;
        let t = Instant::now();
        v.synchronize()?;
        n_sync.push(t.elapsed().as_secs_f64());
    }
    if !ctx.cfg.tiny {
        n_sync.remove(0);
    }
    let nt_down = median(&mut n_sync);
    let mut n_arr = Array::<u32, 1>::new_on(&native, [n])?;
    let nt_to_array = ctx.time_native(|| Ok(amp::copy(&src[..], &mut n_arr)?))?;
    let mut n_back = vec![0u32; n];
    let nt_from_array = ctx.time_native(|| Ok(amp::copy(&n_arr, &mut n_back[..])?))?;
    let native_ok = n_back == src && n_dst[0] == 1 && n_out.to_vec()? == [0];
    // Overlap: a chain of steps, each an upload into its own device array and a kernel on
    // it, against the uploads alone plus the kernels alone. Uploads do not wait for their
    // copies and the host submits recorded work before it copies, so the chain takes less
    // than the sum of its parts where the device runs beside the host.
    let steps = 8;
    let chunk = (n / steps).max(1);
    let rounds = 2u32;
    let view = ctx.acc.default_view();
    let mut arrays = (0..steps)
        .map(|_| Array::<u32, 1>::new_with_access(&ctx.acc, [chunk], AccessType::None))
        .collect::<Result<Vec<_>, _>>()?;
    let piece = |k: usize| &src[k * chunk..(k + 1) * chunk];
    let t_uploads = ctx.time(|| {
        for (k, a) in arrays.iter_mut().enumerate() {
            amp::copy(piece(k), a)?;
        }
        Ok(view.wait()?)
    })?;
    let t_kernels = ctx.time(|| {
        for a in arrays.iter_mut() {
            parallel_for_each(a.extent(), churn(a, rounds))?;
        }
        Ok(view.wait()?)
    })?;
    let t_chain = ctx.time(|| {
        for (k, a) in arrays.iter_mut().enumerate() {
            amp::copy(piece(k), a)?;
            parallel_for_each(a.extent(), churn(a, rounds))?;
        }
        Ok(view.wait()?)
    })?;
    let lcg = |mut x: u32| {
        for _ in 0..rounds {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        x
    };
    let chain_ok =
        arrays[steps - 1].to_vec()? == piece(steps - 1).iter().map(|&x| lcg(x)).collect::<Vec<_>>();
    let work = Work::Bytes(bytes as f64);
    let mib = format!("{} MiB", bytes >> 20);
    ctx.push_row(Row {
        name: format!(
            "overlap: {steps} x (upload + kernel) chain (CPU column: the uploads alone plus the \
             kernels alone, {} + {})",
            fmt_time(t_uploads),
            fmt_time(t_kernels)
        ),
        size: mib.clone(),
        amp: timed(t_chain, work),
        glsl: Cell::None,
        cpu: timed(t_uploads + t_kernels, work),
        native: Cell::None,
    });
    // Where the device uses host memory in place, views move no bytes at all.
    let zero_copy = ctx.acc.supports_host_memory_import();
    let view_cell = |secs: f64| {
        if zero_copy {
            Cell::Text(format!(
                "zero-copy: kernels use the host slice in place ({} measured)",
                fmt_time(secs)
            ))
        } else {
            timed(secs, work)
        }
    };
    let up = (t_up - t_launch).max(1e-9);
    ctx.push_row(Row {
        name: "host to device: `ArrayView` upload on first launch (launch subtracted)".into(),
        size: mib.clone(),
        amp: view_cell(up),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: match (&nt_up, &nt_launch) {
            (Ok(up), Ok(launch)) => Cell::Text(format!(
                "zero-copy: kernels use the host slice in place ({} measured)",
                fmt_time((up - launch).max(1e-9))
            )),
            (Err(why), _) | (_, Err(why)) => Cell::Unsupported(why.clone()),
        },
    });
    ctx.push_row(Row {
        name: "device to host: `ArrayViewMut::synchronize`".into(),
        size: mib.clone(),
        amp: view_cell(t_down),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: Cell::Text(format!(
            "zero-copy: the kernel wrote the host slice ({} measured)",
            fmt_time(nt_down)
        )),
    });
    ctx.push_row(Row {
        name: "host to device: `amp::copy(&slice, &mut array)` (CPU column: memcpy)".into(),
        size: mib.clone(),
        amp: timed(t_to_array, work),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: native_cell(&nt_to_array, Some(work)),
    });
    ctx.push_row(Row {
        name: "device to host: `amp::copy(&array, &mut slice)` (CPU column: memcpy)".into(),
        size: mib,
        amp: timed(t_from_array, work),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: native_cell(&nt_from_array, Some(work)),
    });
    ctx.checks.push(Check {
        workload: "transfers".into(),
        agree: down_ok && copies_ok && chain_ok && out.to_vec()? == [0] && copy == src,
        detail: "synchronized view, copied array, the overlap chain and memcpy hold the data"
            .into(),
    });
    if ctx.cfg.native {
        ctx.checks.push(Check {
            workload: "transfers (native)".into(),
            agree: native_ok,
            detail: "on the native accelerator: synchronized view and copied array hold the data"
                .into(),
        });
    }
    Ok(())
}

/// A 50-line kernel for timing the compiler.
pub const BUILD_COST_KERNEL: &str = r#"
#[kernel(amp)]
fn blur_stats(
    t: TiledIndex<16, 16>,
    img: ArrayView<f32, 2>,
    out: ArrayViewMut<f32, 2>,
    hist: ArrayViewMut<u32, 1>,
    scale: f32,
    bias: f32,
) {
    #[tile_static]
    let mut tile: [[f32; 18]; 18];
    #[tile_static]
    let mut counts: [u32; 16];
    let (r, c) = (t.local[0], t.local[1]);
    let rows = img.extent()[0];
    let cols = img.extent()[1];
    if r == 0 {
        counts[c] = 0;
    }
    let gr = t.global[0];
    let gc = t.global[1];
    tile[r + 1][c + 1] = img[[gr, gc]];
    if r == 0 && gr > 0 {
        tile[0][c + 1] = img[[gr - 1, gc]];
    }
    if r == 15 && gr + 1 < rows {
        tile[17][c + 1] = img[[gr + 1, gc]];
    }
    if c == 0 && gc > 0 {
        tile[r + 1][0] = img[[gr, gc - 1]];
    }
    if c == 15 && gc + 1 < cols {
        tile[r + 1][17] = img[[gr, gc + 1]];
    }
    t.barrier.wait();
    let mut sum = 0.0;
    for dr in 0..3 {
        for dc in 0..3 {
            sum += tile[r + dr][c + dc];
        }
    }
    let v = max(min(sum / 9.0 * scale + bias, 1.0), 0.0);
    out[t.global] = v;
    let bucket = min((v * 16.0) as u32, 15);
    atomic_fetch_add(&mut counts[bucket as usize], 1);
    t.barrier.wait();
    if r == 0 {
        atomic_fetch_add(&mut hist[c], counts[c]);
    }
}
"#;

fn build_cost(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let func: syn::ItemFn = syn::parse_str(BUILD_COST_KERNEL)?;
    let reps = if ctx.cfg.tiny { 1 } else { 20 };
    let mut times = Vec::with_capacity(reps);
    let mut words = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let compiled = amp_spirv::compile(&func).map_err(|d| format!("{d:?}"))?;
        times.push(t.elapsed().as_secs_f64());
        words = compiled.spirv.len();
    }
    let t = Instant::now();
    compile_glsl("build_cost_reference", G_MM_TILED)?;
    let tool = t.elapsed().as_secs_f64();
    ctx.push_row(Row {
        name: format!(
            "build cost: `amp_spirv::compile`, {}-line kernel ({words} words); glslang column: \
             `glslangValidator` process on the tiled matmul shader",
            BUILD_COST_KERNEL.trim().lines().count()
        ),
        size: "-".into(),
        amp: Cell::Time {
            secs: median(&mut times),
            rate: None,
        },
        glsl: Cell::Text(format!("{} (whole process)", fmt_time(tool))),
        cpu: Cell::None,
        native: Cell::None,
    });
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

/// The profile's name in reports.
fn profile_name(cfg: &Config) -> &'static str {
    match (cfg.tiny, cfg.gpu) {
        (true, _) => "tiny",
        (false, true) => "gpu",
        (false, false) => "default",
    }
}

/// `s` as a JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number as JSON (`null` when absent or not finite).
fn json_num(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:e}"),
        _ => "null".into(),
    }
}

/// One cell as JSON: `{"seconds": s, "rate": "..."}`, a string, or `null`.
fn json_cell(c: &Cell) -> String {
    match c {
        Cell::None => "null".into(),
        Cell::Unsupported(why) => format!("{{\"not_run\": {}}}", json_str(why)),
        Cell::Text(t) => format!("{{\"text\": {}}}", json_str(t)),
        Cell::Time { secs, rate } => format!(
            "{{\"seconds\": {}, \"rate\": {}}}",
            json_num(Some(*secs)),
            rate.as_deref().map_or("null".into(), json_str)
        ),
    }
}

/// A JSON object of already-encoded values, on one line.
fn json_obj(fields: &[(&str, String)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}: {v}", json_str(k)))
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// A JSON array of already-encoded values, one per line.
fn json_list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.map(|i| format!("    {i}")).collect();
    format!("[\n{}\n  ]", items.join(",\n"))
}

/// The whole run as JSON: device, rows, GPU targets, kernel times, checks, failed sections.
fn report_json(report: &Report, targets: &[Target], cfg: &Config, elapsed: f64) -> String {
    let rows = json_list(report.rows.iter().map(|r| {
        json_obj(&[
            ("workload", json_str(&r.name)),
            ("size", json_str(&r.size)),
            ("amp", json_cell(&r.amp)),
            ("glslang", json_cell(&r.glsl)),
            ("cpu", json_cell(&r.cpu)),
            ("native", json_cell(&r.native)),
        ])
    }));
    let targets = json_list(targets.iter().map(|t| {
        json_obj(&[
            ("row", json_str(&t.row)),
            ("measure", json_str(&t.what)),
            ("op", json_str(t.op)),
            ("limit", json_num(Some(t.limit))),
            ("value", json_num(t.value)),
            ("met", t.met().map_or("null".into(), |m| m.to_string())),
        ])
    }));
    let kernels = json_list(report.kernel_rows.iter().map(|k| {
        let r = &report.rows[k.row];
        json_obj(&[
            ("workload", json_str(&r.name)),
            ("size", json_str(&r.size)),
            ("amp_wall_seconds", json_num(r.amp.secs())),
            ("amp_kernel_seconds", json_num(k.amp_kernel)),
            ("glslang_wall_seconds", json_num(r.glsl.secs())),
            ("glslang_kernel_seconds", json_num(k.glsl_kernel)),
        ])
    }));
    let checks = json_list(report.checks.iter().map(|c| {
        json_obj(&[
            ("workload", json_str(&c.workload)),
            ("agree", c.agree.to_string()),
            ("detail", json_str(&c.detail)),
        ])
    }));
    let failed: Vec<String> = report.failures.iter().map(|f| json_str(f)).collect();
    let top = [
        ("device", json_str(&report.device)),
        ("native_device", json_str(&report.native_device)),
        ("profile", json_str(profile_name(cfg))),
        ("seconds", json_num(Some(elapsed))),
        ("rows", rows),
        ("gpu_targets", targets),
        ("kernel_times", kernels),
        ("checks", checks),
        ("failed_sections", format!("[{}]", failed.join(", "))),
    ];
    let body: Vec<String> = top
        .iter()
        .map(|(k, v)| format!("  {}: {v}", json_str(k)))
        .collect();
    format!("{{\n{}\n}}\n", body.join(",\n"))
}

/// `--devices`: every accelerator with what a GPU report needs (name, kind, memory, limits).
fn list_devices() -> Result<(), BoxError> {
    for acc in Accelerator::all()? {
        let l = acc.limits();
        println!(
            "{}\n  path: {}\n  description: {}\n  type: {:?}; dedicated memory: {} MiB; \
             cpu-shared memory: {}; host-memory import: {}; f64: {}; validation layer: {}\n  \
             limits: workgroup count {:?}, workgroup size {:?}, {} threads per workgroup, {} B \
             shared memory, {} B push constants",
            acc.name(),
            acc.device_path(),
            acc.description(),
            acc.device_type(),
            acc.dedicated_memory() >> 20,
            acc.supports_cpu_shared_memory(),
            acc.supports_host_memory_import(),
            acc.supports_double_precision(),
            if acc.validation_enabled() {
                "on"
            } else {
                "off"
            },
            l.max_workgroup_count,
            l.max_workgroup_size,
            l.max_threads_per_workgroup,
            l.max_shared_memory_bytes,
            l.max_push_constants_size,
        );
    }
    Ok(())
}

const BEGIN: &str = "<!-- bench:begin (generated by `cargo run --release -p amp-bench`) -->";
const END: &str = "<!-- bench:end -->";

/// Replaces the marked section of `path` with `section` (creating the file or the markers).
pub fn write_section(path: &Path, section: &str) -> std::io::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_else(|_| "# Performance\n\n".into());
    let block = format!("{BEGIN}\n{section}{END}\n");
    let new = match (old.find(BEGIN), old.find(END)) {
        (Some(b), Some(e)) if e > b => format!(
            "{}{block}{}",
            &old[..b],
            &old[e + END.len()..].trim_start_matches('\n')
        ),
        _ => format!("{}\n{block}", old.trim_end()),
    };
    std::fs::write(path, new)
}

#[allow(dead_code)]
fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--devices") {
        return list_devices();
    }
    let gpu = args.iter().any(|a| a == "--gpu");
    let mut cfg = Config {
        tiny: args.iter().any(|a| a == "--tiny"),
        full: args.iter().any(|a| a == "--full"),
        gpu,
        native: !gpu || args.iter().any(|a| a == "--native"),
        // `--max-buffer-mib N` shrinks the GPU profile (to try it on a small device).
        max_buffer_bytes: match args.iter().position(|a| a == "--max-buffer-mib") {
            Some(i) => {
                args.get(i + 1)
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or("--max-buffer-mib needs a number")?
                    << 20
            }
            None => u64::MAX,
        },
        reps: 7,
        only: args
            .iter()
            .position(|a| a == "--only")
            .and_then(|i| args.get(i + 1).cloned()),
        count: instructions::CountRun::from_args(&args)?,
    };
    if cfg.count.is_some() {
        // A child of `--instructions`: run the chosen side, then name the pairs.
        let report = run(&cfg)?;
        for row in report.rows.iter().filter(|r| r.glsl.secs().is_some()) {
            println!("{}{}\t{}", instructions::PAIR_PREFIX, row.name, row.size);
        }
        return Ok(());
    }
    if args.iter().any(|a| a == "--instructions") {
        let write = !args.iter().any(|a| a == "--no-write");
        return instructions::count_all(cfg.only.as_deref(), write);
    }
    if let Some(i) = args.iter().position(|a| a == "--reps") {
        cfg.reps = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .ok_or("--reps needs a number")?;
    }
    let report_dir = args
        .iter()
        .position(|a| a == "--report-dir")
        .map(|i| args.get(i + 1).ok_or("--report-dir needs a folder"))
        .transpose()?
        .map(PathBuf::from);
    // The GPU profile and report folders never rewrite docs/performance.md.
    let write = !cfg.tiny
        && !cfg.gpu
        && report_dir.is_none()
        && cfg.only.is_none()
        && !args.iter().any(|a| a == "--no-write");
    let started = Instant::now();
    let report = run(&cfg)?;
    let table = report.table();
    let bounds = bounds_table(&report.bounds);
    let notes = report.native_notes();
    let targets = report.targets();
    let targets_md = targets_table(&targets);
    println!(
        "device: {}; native: {}",
        report.device, report.native_device
    );
    println!("{table}");
    if !notes.is_empty() {
        println!("Not run natively (–):\n{notes}");
    }
    println!("Native targets\n\n{targets_md}");
    let diagnostics = diagnostics_table(&report.diagnostics);
    if !report.diagnostics.is_empty() {
        println!("Native diagnostics\n\n{diagnostics}");
    }
    println!("Bounds checking cost\n\n{bounds}");
    let mut ok = report.failures.is_empty();
    for f in &report.failures {
        eprintln!("FAILED section {f}");
    }
    for c in &report.checks {
        if !c.agree {
            ok = false;
            eprintln!("MISMATCH in {}: {}", c.workload, c.detail);
        }
    }
    let gpu_targets = report.gpu_targets();
    let gpu_targets_md = targets_table(&gpu_targets);
    println!("GPU targets\n\n{gpu_targets_md}");
    let kernels_md = report.kernel_table();
    println!("Kernel time (timestamp queries) beside wall time\n\n{kernels_md}");
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{} of {} checks agree across amp, glslang, CPU and native ({elapsed:.1} s in all)",
        report.checks.iter().filter(|c| c.agree).count(),
        report.checks.len(),
    );
    if let Some(dir) = &report_dir {
        std::fs::create_dir_all(dir)?;
        let md = format!(
            "Device: `{}`; native: `{}`; profile: {}; {:.1} s.\n\n{table}\n\
             ### GPU targets\n\n{gpu_targets_md}\n\
             ### Kernel time beside wall time\n\n\
             Device time of one run from timestamp queries around each dispatch (summed over \
             a row's launches) beside the row's median wall time; the difference is what the \
             launches cost on the host.\n\n{kernels_md}\n\
             ### Bounds checking cost\n\n{bounds}\n\
             ### Checks\n\n{} of {} agree.\n{}{}",
            report.device,
            report.native_device,
            profile_name(&cfg),
            elapsed,
            report.checks.iter().filter(|c| c.agree).count(),
            report.checks.len(),
            report
                .checks
                .iter()
                .filter(|c| !c.agree)
                .map(|c| format!("- MISMATCH in {}: {}\n", c.workload, c.detail))
                .collect::<String>(),
            if report.failures.is_empty() {
                String::new()
            } else {
                format!(
                    "\n### Failed sections\n\n{}",
                    report
                        .failures
                        .iter()
                        .map(|f| format!("- {f}\n"))
                        .collect::<String>()
                )
            },
        );
        std::fs::write(dir.join("bench.md"), md)?;
        std::fs::write(
            dir.join("bench.json"),
            report_json(&report, &gpu_targets, &cfg, elapsed),
        )?;
        println!("wrote {}", dir.display());
    }
    if write {
        let date = Command::new("date")
            .arg("+%Y-%m-%d")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default();
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(
                "\nRows marked – in the native column did not run there: the native CPU \
                 accelerator returned `amp::Error::NativeUnsupported`. They pick the native \
                 column up as soon as the native back end translates them.\n\n{notes}"
            )
        };
        let met = targets.iter().filter(|t| t.met() == Some(true)).count();
        let missed = targets.iter().filter(|t| t.met() == Some(false)).count();
        let unmeasured = targets.iter().filter(|t| t.met().is_none()).count();
        let section = format!(
            "Measured {date} on `{}` ({cores} CPU cores), `cargo run --release -p amp-bench{}`. \
             Times are medians after a warm-up run; rates in parentheses; amp/glslang above 1 \
             means the amp kernel is slower.\n\n\
             Columns: **amp** is the `#[kernel(amp)]` kernel on the Vulkan device above, \
             **glslang** hand-written GLSL on the same device, **CPU** plain Rust (rayon where \
             it parallelises), **native** the same amp kernel on the native CPU accelerator \
             (`Accelerator::cpu()`, `{}`) with its data in arrays on that accelerator. \
             native/CPU below 1 means the native kernel beats the plain Rust; amp/native is how \
             many times faster the native accelerator runs the kernel than the Vulkan device.\n\n\
             {table}{notes}\n\
             ### Native targets\n\n\
             Every workload natively at most 1.5x the plain Rust/rayon time (vector add and \
             saxpy 1.2x); at least 10x faster than lavapipe on vector add, the simple matrix \
             product, the reductions and the scan; the first native launch of a kernel within \
             1 ms. This run: {met} met, {missed} missed, {unmeasured} not measured.\n\n\
             {targets_md}\n{}\
             ### Kernel time beside wall time\n\n\
             Device time of one run from timestamp queries around each dispatch (summed over a \
             row's launches) beside the row's median wall time; the difference is what the \
             launches cost on the host.\n\n{kernels_md}\n\
             ### Bounds checking cost\n\n\
             Kernels check every view and array access by default; `#[kernel(amp, unchecked)]` \
             turns the checks off. The same kernel body both ways, timed in alternation, on the \
             Vulkan device and on the native CPU accelerator:\n\n\
             {bounds}\n",
            report.device,
            if cfg.full { " -- --full" } else { "" },
            report.native_device,
            if report.diagnostics.is_empty() {
                String::new()
            } else {
                format!(
                    "Variants measured in the same run to explain the native results:\n\n\
                     {diagnostics}\n"
                )
            },
        );
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/performance.md");
        write_section(&path, &section)?;
        println!("wrote {}", path.display());
        let png = path.with_extension("png");
        match chart::ratio_chart(
            &png,
            &format!("amp vs hand-written GLSL on {}", report.device),
            &report.bars(),
        ) {
            Ok(()) => println!("wrote {}", png.display()),
            Err(e) => eprintln!("no chart: {e}"),
        }
    }
    if let Some(png) = args
        .iter()
        .position(|a| a == "--chart")
        .and_then(|i| args.get(i + 1))
    {
        let title = format!("amp vs hand-written GLSL on {}", report.device);
        chart::ratio_chart(Path::new(png), &title, &report.bars())?;
        println!("wrote {png}");
    }
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
