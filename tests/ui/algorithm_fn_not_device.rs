use amp::prelude::*;

// The operator of `reduce!` must be an `#[amp::device]` function: a plain one is not compiled
// for the device.
fn plain_max(a: f32, b: f32) -> f32 {
    a.max(b)
}

fn main() -> Result<(), amp::Error> {
    let data = [1.0f32, 2.0];
    let view = ArrayView::new([2], &data)?;
    let _ = amp::algorithms::reduce!(f32, &view, 0.0, plain_max)?;
    Ok(())
}
