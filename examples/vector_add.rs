//! Vector addition, the first C++ AMP sample: `sum[i] = a[i] + b[i]` on the default device.
//!
//! ```text
//! cargo run --release --example vector_add
//! ```
use amp::prelude::*;

#[kernel(amp)]
fn add(idx: Index<1>, a: ArrayView<i32, 1>, b: ArrayView<i32, 1>, sum: ArrayViewMut<i32, 1>) {
    sum[idx] = a[idx] + b[idx];
}

/// Adds `[1, 2, 3, 4, 5]` and `[6, 7, 8, 9, 10]` on the device.
pub fn run() -> Result<Vec<i32>, amp::Error> {
    let a = vec![1, 2, 3, 4, 5];
    let b = vec![6, 7, 8, 9, 10];
    let mut out = vec![0; 5];
    {
        let a = ArrayView::new([5], &a)?;
        let b = ArrayView::new([5], &b)?;
        let mut sum = ArrayViewMut::new([5], &mut out)?;
        sum.discard_data();
        parallel_for_each(sum.extent(), add(&a, &b, &mut sum))?;
        sum.synchronize()?;
    }
    Ok(out)
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    println!("device: {} ({:?})", acc.name(), acc.device_type());
    let out = run()?;
    let text: Vec<String> = out.iter().map(|v| v.to_string()).collect();
    println!("{}", text.join(" "));
    Ok(())
}
