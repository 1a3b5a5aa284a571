//! Kernels at the edge of each warning that must not trigger it.
#![deny(deprecated)]

use amp::prelude::*;

// Each thread writes its own element, reads its own element of the view it writes.
#[kernel(amp)]
fn own(idx: Index<1>, data: ArrayViewMut<f32, 1>, inp: ArrayView<f32, 1>) {
    let i = idx[0];
    data[idx] = data[idx] + inp[i + 1] + inp[i - 1];
    data[idx] += 1.0;
}

// A transpose writes every element once.
#[kernel(amp)]
fn transpose(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    out[[idx[1], idx[0]]] = a[idx];
}

// One thread per tile writes the tile's result.
#[kernel(amp)]
fn per_tile(t: TiledIndex<8, 8>, a: ArrayView<f32, 2>, sums: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut s: [[f32; 8]; 8];
    s[t.local[0]][t.local[1]] = a[t.global];
    t.barrier.wait();
    if t.local[0] == 0 && t.local[1] == 0 {
        let mut total = 0.0;
        for r in 0..8 {
            for c in 0..8 {
                total += s[r][c];
            }
        }
        sums[t.tile] = total;
    }
}

// Rows padded to 33 elements: a column walk spreads over the banks.
#[kernel(amp)]
fn padded(t: TiledIndex<32, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut tile: [[f32; 33]; 32];
    tile[t.local[1]][t.local[0]] = a[t.global];
    t.barrier.wait();
    out[t.global] = tile[t.local[1]][t.local[0]];
}
