// label: race-free
// from: PolyBench gemm
// why: each thread writes its own c[i][j]
fn gemm(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>, alpha: f32, beta: f32) {
    let (i, j) = (idx[0], idx[1]);
    let mut sum = 0.0f32;
    for k in 0..a.extent()[1] {
        sum += a[[i, k]] * b[[k, j]];
    }
    c[idx] = alpha * sum + beta * c[idx];
}
