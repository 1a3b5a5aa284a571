//! A tile's sum by subgroups: an operation that combines a subgroup's lanes (`sg.add`) runs
//! between two work-item loops natively, like a barrier, after its operand has been computed
//! for every thread of the tile.
use amp::prelude::*;

#[kernel(amp)]
fn sum_unchecked(t: TiledIndex<256>, a: ArrayView<f32, 1>, sums: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut sh: [f32; 256];
    let sg = t.subgroup();
    let s = sg.add(a[t.global]);
    if sg.lane() == 0 {
        sh[sg.index() as usize] = s;
    }
    t.barrier.wait();
    if t.local[0] == 0 {
        let mut total = sh[0];
        for i in 1..sg.count() as usize {
            total += sh[i];
        }
        sums[t.tile] = total;
    }
}
