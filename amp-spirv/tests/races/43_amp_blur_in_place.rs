// label: race
// from: a box blur written back into its input
// why: neighbours read while every thread writes its own
fn blur(idx: Index<2>, img: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    if i > 0 && j > 0 && i + 1 < img.extent()[0] && j + 1 < img.extent()[1] {
        img[idx] = (img[[i - 1, j]] + img[[i + 1, j]] + img[[i, j - 1]] + img[[i, j + 1]] + img[idx]) * 0.2;
    }
}
