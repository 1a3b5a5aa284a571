//! C++ AMP's tile sum: each tile adds up its elements in `tile_static` memory. Without the
//! barrier, thread 0 would read slots other threads have not written yet (the seed's bug); with
//! `t.barrier.wait()` every write is visible before the sum starts.
//!
//! ```text
//! cargo run --release --example tile_sum
//! ```
use amp::prelude::*;

const TILE: usize = 64;

#[kernel(amp)]
fn tile_sum(t: TiledIndex<TILE>, data: ArrayView<i32, 1>, sums: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut values: [i32; TILE];
    values[t.local[0]] = data[t.global];
    t.barrier.wait();
    if t.local[0] == 0 {
        let mut total = 0;
        for i in 0..TILE {
            total += values[i];
        }
        sums[t.tile] = total;
    }
}

/// Sums each tile of `TILE` elements of `data` (its length must be a multiple of `TILE`).
pub fn run(data: &[i32]) -> Result<Vec<i32>, amp::Error> {
    let mut sums = vec![0; data.len() / TILE];
    {
        let d = ArrayView::new([data.len()], data)?;
        let mut s = ArrayViewMut::new([sums.len()], &mut sums)?;
        s.discard_data();
        parallel_for_each(d.extent().tile::<TILE>(), tile_sum(&d, &mut s))?;
    }
    Ok(sums)
}

/// The same sums on the CPU.
pub fn run_cpu(data: &[i32]) -> Vec<i32> {
    data.chunks(TILE).map(|c| c.iter().sum()).collect()
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let data: Vec<i32> = (0..TILE as i32 * 8).map(|i| i % 10).collect();
    let sums = run(&data)?;
    println!("tile sums: {sums:?}");
    println!("cpu:       {:?}", run_cpu(&data));
    assert_eq!(sums, run_cpu(&data));
    Ok(())
}
