// label: race-free
// from: a double-buffered tiled loop (CUTLASS-style staging, the register-tiled product)
// why: each step stages half `step % 2` while reading half `(step - 1) % 2`, a barrier apart
fn staged(t: TiledIndex<16>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut stage: [[f32; 16]; 2];
    let l = t.local[0];
    let steps = a.extent()[0] / 16;
    let mut acc = 0.0f32;
    let mut step = 0;
    while step <= steps {
        if step < steps {
            let buf = step % 2;
            stage[buf][l] = a[step * 16 + l];
        }
        if step > 0 {
            let buf = (step - 1) % 2;
            for k in 0..16 {
                acc += stage[buf][k];
            }
        }
        t.barrier.wait();
        step += 1;
    }
    out[t.global] = acc;
}
