// label: race-free
// from: C++ AMP n-body sample (one body per thread)
// why: reads positions, writes its own velocity
fn nbody(idx: Index<1>, pos: ArrayView<f32, 2>, vel: ArrayViewMut<f32, 2>, dt: f32) {
    let i = idx[0];
    let (mut ax, mut ay) = (0.0f32, 0.0f32);
    for j in 0..pos.extent()[0] {
        let dx = pos[[j, 0]] - pos[[i, 0]];
        let dy = pos[[j, 1]] - pos[[i, 1]];
        let inv = 1.0 / (dx * dx + dy * dy + 0.01).sqrt();
        ax += dx * inv;
        ay += dy * inv;
    }
    vel[[i, 0]] += ax * dt;
    vel[[i, 1]] += ay * dt;
}
