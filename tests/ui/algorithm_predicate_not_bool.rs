use amp::prelude::*;

/// Returns the digit, not whether to keep the element.
#[amp::device]
fn digit(x: u32) -> u32 {
    x % 10
}

// A predicate returns `bool`; an operator takes and returns the element type.
#[amp::device]
fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn main() -> Result<(), amp::Error> {
    let data = [1u32, 2];
    let view = ArrayView::new([2], &data)?;
    let _ = amp::algorithms::count_if!(u32, &view, digit)?;
    let _ = amp::algorithms::reduce!(u32, &view, 0, add)?;
    Ok(())
}
