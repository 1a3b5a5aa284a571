//! The amp kernels of the workloads (those of the convolution and the texture rows live with
//! their workloads). The timed ones are `#[kernel(amp, unchecked)]`, like their hand-written GLSL
//! twins (`glsl`), so both run the same algorithm; the bounds-checked copies (the default) are
//! for the bounds-checking cost table.

use amp::prelude::*;

/// Threads per tile of the reductions, the histogram and the tile scan.
pub(crate) const RT: usize = 256;
/// Tile side of the tiled matrix product.
pub(crate) const TS: usize = 16;

#[kernel(amp)]
pub(crate) fn empty(_idx: Index<1>) {}

#[kernel(amp)]
pub(crate) fn touch(idx: Index<1>, a: ArrayView<u32, 1>, out: &mut Array<u32, 1>) {
    out[idx] = a[idx];
}

#[kernel(amp)]
pub(crate) fn fill_one(idx: Index<1>, v: ArrayViewMut<u32, 1>) {
    v[idx] = 1;
}

/// Steps a linear congruential generator `rounds` times per element: device work whose length
/// the overlap row sets.
#[kernel(amp, unchecked)]
pub(crate) fn churn(idx: Index<1>, a: &mut Array<u32, 1>, rounds: u32) {
    let mut x = a[idx];
    let mut r = 0u32;
    while r < rounds {
        x = x * 1_664_525 + 1_013_904_223;
        r += 1;
    }
    a[idx] = x;
}

#[kernel(amp, unchecked)]
pub(crate) fn vadd(idx: Index<1>, a: &Array<f32, 1>, b: &Array<f32, 1>, c: &mut Array<f32, 1>) {
    c[idx] = a[idx] + b[idx];
}

/// `vadd` again, launched once and only on the native CPU accelerator: the native first-launch
/// row times the first launch of a kernel not launched before in the process.
#[kernel(amp, unchecked)]
pub(crate) fn vadd_first_native(
    idx: Index<1>,
    a: &Array<f32, 1>,
    b: &Array<f32, 1>,
    c: &mut Array<f32, 1>,
) {
    c[idx] = a[idx] + b[idx];
}

/// `vadd` bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
pub(crate) fn vadd_checked(
    idx: Index<1>,
    a: &Array<f32, 1>,
    b: &Array<f32, 1>,
    c: &mut Array<f32, 1>,
) {
    c[idx] = a[idx] + b[idx];
}

/// `out = a`: the copy kernel whose bandwidth is the yardstick of the memory-bound rows.
#[kernel(amp, unchecked)]
pub(crate) fn vcopy(idx: Index<1>, a: &Array<f32, 1>, out: &mut Array<f32, 1>) {
    out[idx] = a[idx];
}

#[kernel(amp, unchecked)]
pub(crate) fn saxpy(
    idx: Index<1>,
    alpha: f32,
    x: &Array<f32, 1>,
    y: &Array<f32, 1>,
    z: &mut Array<f32, 1>,
) {
    z[idx] = alpha * x[idx] + y[idx];
}

#[kernel(amp, unchecked)]
pub(crate) fn mm_simple(
    idx: Index<2>,
    a: &Array<f32, 2>,
    b: &Array<f32, 2>,
    c: &mut Array<f32, 2>,
) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

#[kernel(amp, unchecked)]
pub(crate) fn mm_tiled(
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

/// `mm_simple` as written, bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
pub(crate) fn mm_simple_checked(
    idx: Index<2>,
    a: &Array<f32, 2>,
    b: &Array<f32, 2>,
    c: &mut Array<f32, 2>,
) {
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
pub(crate) fn mm_tiled_checked(
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
pub(crate) fn reduce_tree_i32(t: TiledIndex<RT>, a: &Array<i32, 1>, sums: &mut Array<i32, 1>) {
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
pub(crate) fn reduce_seq_i32(t: TiledIndex<RT>, a: &Array<i32, 1>, sums: &mut Array<i32, 1>) {
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
pub(crate) fn reduce_tree_f32(t: TiledIndex<RT>, a: &Array<f32, 1>, sums: &mut Array<f32, 1>) {
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
pub(crate) fn reduce_seq_f32(t: TiledIndex<RT>, a: &Array<f32, 1>, sums: &mut Array<f32, 1>) {
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

/// A tile's sum by subgroups: each subgroup adds its lanes, lane 0 of each stores the sum, and
/// thread 0 adds the subgroups' sums (one barrier, where the trees above wait at nine).
#[kernel(amp, unchecked)]
pub(crate) fn reduce_subgroup<T: DeviceScalar>(
    t: TiledIndex<RT>,
    a: &Array<T, 1>,
    sums: &mut Array<T, 1>,
) {
    #[tile_static]
    let mut sh: [T; RT];
    let sg = t.subgroup();
    let s = sg.add(a[t.global]);
    if sg.lane() == 0 {
        sh[sg.index() as usize] = s;
    }
    t.barrier.wait_with_tile_static_memory_fence();
    if t.local[0] == 0 {
        let mut total = sh[0];
        for i in 1..sg.count() as usize {
            total += sh[i];
        }
        sums[t.tile] = total;
    }
}

/// `reduce_tree_i32` bounds-checked (the default), for the bounds-checking cost table.
#[kernel(amp)]
pub(crate) fn reduce_tree_i32_checked(
    t: TiledIndex<RT>,
    a: &Array<i32, 1>,
    sums: &mut Array<i32, 1>,
) {
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
pub(crate) fn histogram_checked(t: TiledIndex<RT>, data: &Array<u32, 1>, bins: &mut Array<u32, 1>) {
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
#[kernel(amp)]
pub(crate) fn scan_tiles_checked(
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
#[kernel(amp, unchecked)]
pub(crate) fn transpose_padded(t: TiledIndex<32, 32>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 33]; 32];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    out[[t.tile_origin[1] + r, t.tile_origin[0] + c]] = block[c][r];
}

/// The same through a 32 x 32 tile: the column read `block[c][r]` hits one bank.
#[kernel(amp, unchecked, allow(bank_conflict))]
pub(crate) fn transpose_square(t: TiledIndex<32, 32>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
    #[tile_static]
    let mut block: [[f32; 32]; 32];
    let (r, c) = (t.local[0], t.local[1]);
    block[r][c] = a[t.global];
    t.barrier.wait_with_tile_static_memory_fence();
    out[[t.tile_origin[1] + r, t.tile_origin[0] + c]] = block[c][r];
}

/// 256 bins per tile in `tile_static` memory, merged into `bins` with one atomic per bin.
#[kernel(amp, unchecked)]
pub(crate) fn histogram(t: TiledIndex<RT>, data: &Array<u32, 1>, bins: &mut Array<u32, 1>) {
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
#[kernel(amp, unchecked)]
pub(crate) fn scan_tiles(
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
pub(crate) fn scan_sums(t: TiledIndex<1024>, sums: &mut Array<u32, 1>) {
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
pub(crate) fn scan_add(idx: Index<1>, out: &mut Array<u32, 1>, sums: &Array<u32, 1>) {
    out[idx] += sums[idx[0] / RT];
}
