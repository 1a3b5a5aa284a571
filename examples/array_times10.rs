//! C++ AMP's `array` sample: data moved into an `Array` on the device, every element multiplied
//! by 10 in place by a kernel, and copied back.
//!
//! ```text
//! cargo run --release --example array_times10
//! ```
use amp::prelude::*;

#[kernel(amp)]
fn times10(idx: Index<1>, a: &mut Array<i32, 1>) {
    a[idx] *= 10;
}

/// Multiplies `[1, 2, 3, 4, 5]` by 10 on the device.
pub fn run() -> Result<Vec<i32>, amp::Error> {
    let data = vec![1, 2, 3, 4, 5];
    let mut a = Array::from_slice([5], &data)?;
    parallel_for_each(a.extent(), times10(&mut a))?;
    a.to_vec()
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let out = run()?;
    let text: Vec<String> = out.iter().map(|v| v.to_string()).collect();
    println!("{}", text.join(" "));
    Ok(())
}
