//! `tile_static` arrays of a named length natively: zero when a tile call starts, except an
//! array every thread writes (its own element, unconditionally, before any barrier) before any
//! thread reads it, which is reached through a pointer and not filled (`transpose_block`,
//! `own_rows`). A partial write, a read first, a length other than the tile's, or a `return`
//! before the write keeps the fill.
use amp::prelude::*;

const TS: usize = 16;

#[kernel(amp)]
fn transpose_block(t: TiledIndex<TS>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; TS];
    let l = t.local[0] as u32;
    sh[l as usize] = a[t.global] + 1;
    t.barrier.wait();
    out[t.global] = sh[TS - 1 - t.local[0]];
}

#[kernel(amp)]
fn own_rows(t: TiledIndex<TS, TS>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut sh: [[f32; TS]; TS];
    let (r, c) = (t.local[0], t.local[1]);
    sh[r][c] = a[t.global];
    t.barrier.wait();
    out[t.global] = sh[c][r];
}

#[kernel(amp)]
fn some_threads(t: TiledIndex<TS>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; TS];
    let l = t.local[0];
    if l % 3 == 0 {
        sh[l] = l as u32 + 1;
    }
    t.barrier.wait();
    out[t.global] = sh[TS - 1 - l];
}

#[kernel(amp)]
fn read_first(t: TiledIndex<TS>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; TS];
    let l = t.local[0];
    let before = sh[(l + 1) % TS];
    sh[l] = 5;
    t.barrier.wait();
    out[t.global] = before + sh[TS - 1 - l];
}

#[kernel(amp)]
fn half_the_array(t: TiledIndex<TS>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; 32];
    let l = t.local[0];
    sh[l] = 7;
    t.barrier.wait();
    out[t.global] = sh[31 - l];
}
