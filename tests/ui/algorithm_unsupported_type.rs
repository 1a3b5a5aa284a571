use amp::prelude::*;

#[amp::device]
fn is_far(p: Float2) -> bool {
    p.x * p.x + p.y * p.y > 1.0
}

// The algorithms work on views of `i32`, `u32`, `f32` or `f64`, not of short vectors.
fn main() -> Result<(), amp::Error> {
    let data = [Float2::new(1.0, 2.0)];
    let view = ArrayView::new([1], &data)?;
    let _ = amp::algorithms::count_if!(Float2, &view, is_far)?;
    Ok(())
}
