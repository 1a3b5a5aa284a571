use amp::prelude::*;

#[kernel(amp)]
fn subgroup_uniformity(t: TiledIndex<64>, x: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    let sg = t.subgroup();
    let v = x[t.global];
    if v > 0 {
        out[t.global] = sg.add(v);
    }
    let first = t.local[0] == 0 && sg.all(v > 0);
    let mut n = 0;
    while sg.any(n < v) {
        n += 1;
    }
    let pick = if first { sg.max(v) } else { 0 };
    out[t.global] += n + pick;
}


#[kernel(amp)]
fn subgroup_placement(t: TiledIndex<64>, x: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    let sg = t.subgroup();
    let v = x[t.global];
    let tile0 = t.tile[0] == 0 && sg.all(v > 0);
    let total = {
        let s = sg.add(v);
        s * 2
    };
    #[tile_static]
    let mut m: [i32; 1];
    out[t.global] = atomic_fetch_add(&mut m[0], 1) + sg.max(v) + total + if tile0 { 1 } else { 0 };
}

fn main() {}
