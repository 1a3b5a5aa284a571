// label: race-free
// from: C++ AMP tiled matrix multiplication
// why: tile_static loads fenced by barriers, c per thread
fn mm_tiled(t: TiledIndex<16, 16>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let (row, col) = (t.local[0], t.local[1]);
    #[tile_static] let mut la: [[f32; 16]; 16];
    #[tile_static] let mut lb: [[f32; 16]; 16];
    let mut sum = 0.0f32;
    let mut i = 0;
    while i < a.extent()[1] {
        la[row][col] = a[[t.global[0], col + i]];
        lb[row][col] = b[[row + i, t.global[1]]];
        t.barrier.wait();
        for k in 0..16 { sum += la[row][k] * lb[k][col]; }
        t.barrier.wait();
        i += 16;
    }
    c[t.global] = sum;
}
