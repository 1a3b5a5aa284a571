// label: race
// from: a double buffer whose read half was computed like the write half
// why: the tile reads half `step % 2` at other threads' elements while they write it
fn staged_wrong(t: TiledIndex<16>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut stage: [[f32; 16]; 2];
    let l = t.local[0];
    let steps = a.extent()[0] / 16;
    let mut acc = 0.0f32;
    let mut step = 0;
    while step < steps {
        stage[step % 2][l] = a[step * 16 + l];
        for k in 0..16 {
            acc += stage[step % 2][k];
        }
        t.barrier.wait();
        step += 1;
    }
    out[t.global] = acc;
}
