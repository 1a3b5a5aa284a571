//! `tile_static` arrays of a named length: natively zero when a tile starts, or, where every
//! thread writes its own element before any thread reads one, not filled at all. Tiles that
//! fill their array first give the host's results on every device; natively a tile that writes
//! only some elements reads zeros in the others, also right after tiles of another kernel left
//! their values in the same memory.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

const TS: usize = 64;

/// Every thread writes its own element first: no fill natively.
#[kernel(amp)]
fn reversed_in_tiles(t: TiledIndex<TS>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; TS];
    let l = t.local[0] as u32;
    sh[l as usize] = a[t.global] * 3 + 1;
    t.barrier.wait();
    out[t.global] = sh[TS - 1 - t.local[0]];
}

/// Every thread writes its own element of a 2-D array first: a transpose of each tile.
#[kernel(amp)]
fn transposed_tiles(t: TiledIndex<8, 8>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static]
    let mut sh: [[f32; EIGHT]; EIGHT];
    let (r, c) = (t.local[0], t.local[1]);
    sh[r][c] = a[t.global] - 0.5;
    t.barrier.wait();
    out[t.global] = sh[c][r];
}

const EIGHT: usize = 8;

/// Only every third thread writes: the others' elements stay as the tile found them.
#[kernel(amp)]
fn every_third(t: TiledIndex<TS>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut sh: [u32; TS];
    let l = t.local[0];
    if l % 3 == 0 {
        sh[l] = l as u32 + 1;
    }
    t.barrier.wait();
    out[t.global] = sh[TS - 1 - l];
}

#[test]
fn arrays_filled_by_their_threads_give_the_hosts_results() -> Result<(), amp::Error> {
    let n = TS * 37;
    let a: Vec<u32> = (0..n as u32)
        .map(|x| x.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut out = vec![0u32; n];
    {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(
            Extent::new([n]).tile::<TS>(),
            reversed_in_tiles(&av, &mut ov),
        )?;
        ov.synchronize()?;
    }
    for (i, got) in out.iter().enumerate() {
        let (tile, l) = (i / TS, i % TS);
        assert_eq!(*got, a[tile * TS + TS - 1 - l] * 3 + 1, "element {i}");
    }

    let (rows, cols) = (24usize, 40usize);
    let m: Vec<f32> = (0..rows * cols).map(|x| x as f32 * 0.25).collect();
    let mut t = vec![0f32; rows * cols];
    {
        let mv = ArrayView::new([rows, cols], &m)?;
        let mut tv = ArrayViewMut::new([rows, cols], &mut t)?;
        parallel_for_each(
            Extent::new([rows, cols]).tile::<8, 8>(),
            transposed_tiles(&mv, &mut tv),
        )?;
        tv.synchronize()?;
    }
    for i in 0..rows {
        for j in 0..cols {
            let (bi, bj, r, c) = (i / 8 * 8, j / 8 * 8, i % 8, j % 8);
            let want = m[(bi + c) * cols + bj + r] - 0.5;
            assert_eq!(t[i * cols + j].to_bits(), want.to_bits(), "[{i}, {j}]");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn natively_a_partly_written_array_reads_zero_after_other_tiles() -> Result<(), amp::Error> {
    let cpu = Accelerator::cpu()?;
    let n = TS * 200;
    let a: Vec<u32> = (0..n as u32).map(|x| x | 0x8000_0000).collect();
    for _ in 0..3 {
        // Tiles that leave large values in the thread's pool, then tiles that write a third.
        let mut big = vec![0u32; n];
        let mut out = vec![0u32; n];
        {
            let av = ArrayView::new([n], &a)?;
            let mut bv = ArrayViewMut::new([n], &mut big)?;
            let tiles = Extent::new([n]).tile::<TS>();
            parallel_for_each_on(&cpu, tiles, reversed_in_tiles(&av, &mut bv))?;
            let mut ov = ArrayViewMut::new([n], &mut out)?;
            parallel_for_each_on(&cpu, tiles, every_third(&mut ov))?;
            bv.synchronize()?;
            ov.synchronize()?;
        }
        for (i, got) in out.iter().enumerate() {
            let read = TS - 1 - i % TS;
            let want = if read.is_multiple_of(3) {
                read as u32 + 1
            } else {
                0
            };
            assert_eq!(*got, want, "element {i}");
        }
    }
    assert_validation_clean();
    Ok(())
}
