// label: race
// from: a port's off-by-one in a loop coarsened by hand
// why: thread i writes i * K ..= i * K + K, whose last element is thread i + 1's first
fn runs_overlap(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let base = idx[0] * K;
    for k in 0..K + 1 {
        out[base + k] = a[idx] * k as f32;
    }
}
