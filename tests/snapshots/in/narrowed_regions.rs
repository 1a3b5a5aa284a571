//! Work-item loops narrowed to the threads a region's one `if` lets through (natively): below
//! a bound (`l < s`), up to one (`l <= m`, a wavefront's step), every m-th (`l % m == 0`).
use amp::prelude::*;

#[kernel(amp)]
fn steps(t: TiledIndex<16>, out: ArrayViewMut<u32, 1>, m: usize) {
    #[tile_static]
    let mut sh: [u32; 16];
    let l = t.local[0];
    sh[l] = l as u32;
    t.barrier.wait();
    if l <= m {
        sh[l] += 1;
    }
    t.barrier.wait();
    if l < m {
        sh[l] += 2;
    }
    t.barrier.wait();
    if l % 4 == 0 {
        sh[l] += 3;
    }
    t.barrier.wait();
    out[t.global] = sh[l];
}
