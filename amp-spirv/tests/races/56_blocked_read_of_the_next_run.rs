// label: race
// from: a coarsened smoothing step written in place
// why: thread i reads element (i + 1) * K, thread i + 1's first, which that thread writes
fn smooth_runs(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let base = idx[0] * K;
    for k in 0..K {
        out[base + k] = out[base + k + 1] * 0.5;
    }
}
