// label: race-free
// from: a thread coarsened by hand: each thread `K` consecutive outputs
// why: thread i writes i * K + k for k below K, its own run; it reads back its own run only
fn runs(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let base = idx[0] * K;
    for k in 0..K {
        out[base + k] = a[base + k] * 2.0;
    }
    for j in 0..K {
        out[base + j] += 1.0;
    }
}
