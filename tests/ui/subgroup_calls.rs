use amp::prelude::*;

#[kernel(amp)]
fn subgroup_calls(t: TiledIndex<64>, x: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let sg = t.subgroup();
    let a = sg.sum(x[t.global]);
    let b = sg.and(x[t.global]);
    let c = sg.shuffle(x[t.global]);
    let d = sg.broadcast(x[t.global], t.local[0]);
    let e = sg;
    out[t.global] = a + b + c + d;
}

#[kernel(amp)]
fn subgroup_in_simple_kernel(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = idx.subgroup().lane();
}

fn main() {}
