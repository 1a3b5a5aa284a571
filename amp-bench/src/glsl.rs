//! The same kernels in GLSL: the hand-written baselines of the glslang column, compiled at run
//! time by `glslangValidator` (through `amp-test-support`, as the tests compile theirs) and
//! launched with `RawKernel` on the same device buffers.

use amp::prelude::*;
use amp::RawKernel;

use crate::BoxError;

/// Simple 1-D kernels: 64 threads per workgroup, groups folded onto x and y as amp does.
pub(crate) const GLSL_1D: &str = "#version 450
layout(local_size_x = 64) in;
uint gid() { return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u; }
";

/// Tiled 1-D kernels of 256 threads; tiles folded onto x and y as amp does.
pub(crate) const GLSL_T256: &str = "#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint tiles; } pc;
uint tile_id() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
";

pub(crate) const G_CHAIN: &str = "#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) b[i] = a[i] + 1.0;
}
";

pub(crate) const G_EMPTY: &str = "#version 450
layout(local_size_x = 64) in;
void main() {}
";

pub(crate) const G_VADD: &str = "
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

pub(crate) const G_COPY: &str = "
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint i = gid();
    if (i >= pc.n) return;
    c[i] = a[i];
}
";

pub(crate) const G_SAXPY: &str = "
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

pub(crate) const G_MM_SIMPLE: &str = "
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

pub(crate) const G_MM_TILED: &str = "#version 450
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
pub(crate) const G_REDUCE: &str = "
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

/// A tile's sum by subgroups: `subgroupAdd`, one value per subgroup in shared memory, thread 0
/// adds them (appended to [`GLSL_T256`], whose `#version` line the caller follows with the
/// extensions).
pub(crate) const G_REDUCE_SUBGROUP: &str = "
layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) writeonly buffer S { T sums[]; };
shared T sh[256];
void main() {
    uint tile = tile_id();
    if (tile >= pc.tiles) return;
    uint l = gl_LocalInvocationID.x;
    T s = subgroupAdd(a[tile * 256u + l]);
    if (subgroupElect()) sh[gl_SubgroupID] = s;
    barrier();
    if (l == 0u) {
        T t = sh[0];
        for (uint i = 1u; i < gl_NumSubgroups; i++) t += sh[i];
        sums[tile] = t;
    }
}
";

/// The extensions [`G_REDUCE_SUBGROUP`] needs, after the `#version` line.
pub(crate) const SUBGROUP_EXTENSIONS: &str = "#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
";

/// Transpose; `W` is the tile row length (33 padded, 32 square).
pub(crate) const G_TRANSPOSE: &str = "#version 450
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

pub(crate) const G_HISTOGRAM: &str = "
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

pub(crate) const G_SCAN_TILES: &str = "
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

pub(crate) const G_SCAN_SUMS: &str = "#version 450
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

pub(crate) const G_SCAN_ADD: &str = "
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

pub(crate) fn raw(
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

pub(crate) fn push(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// `groups` workgroups folded onto x and y, as the runtime does for amp launches: balanced
/// rows, so both sides dispatch the same (nearly no) surplus workgroups.
pub(crate) fn fold(acc: &Accelerator, groups: usize) -> [u32; 3] {
    let max = acc.limits().max_workgroup_count[0] as usize;
    let y = groups.div_ceil(max).max(1);
    [groups.div_ceil(y).max(1) as u32, y as u32, 1]
}
