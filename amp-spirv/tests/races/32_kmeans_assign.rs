// label: race-free
// from: Rodinia kmeans (assignment)
// why: membership[p] per thread
fn assign(idx: Index<1>, points: ArrayView<f32, 2>, centers: ArrayView<f32, 2>, membership: ArrayViewMut<i32, 1>) {
    let p = idx[0];
    let mut best = 0i32;
    let mut best_d = 1.0e30f32;
    for c in 0..centers.extent()[0] {
        let mut d = 0.0f32;
        for f in 0..points.extent()[1] {
            let x = points[[p, f]] - centers[[c, f]];
            d += x * x;
        }
        if d < best_d { best_d = d; best = c as i32; }
    }
    membership[p] = best;
}
