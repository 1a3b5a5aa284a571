//! A 2-D heat stencil written for `ndarray`, ported to amp: the grid stays an
//! `ndarray::Array2<f32>`, and the device reads and writes it in place through views made from
//! `ndarray` views (`ArrayView::try_from(grid.view())`, no copy where the device can use host
//! memory). Each step replaces every interior point by the mean of its four neighbours; the
//! edges stay fixed. The result is compared with the same steps computed by `ndarray`'s own
//! arithmetic on slices.
//!
//! ```text
//! cargo run --release -p amp-examples --example ndarray_stencil --features ndarray
//! ```
use amp::prelude::*;
use ndarray::{s, Array2};

#[kernel(amp)]
fn jacobi_step(idx: Index<2>, src: ArrayView<f32, 2>, dst: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    let (rows, cols) = (src.extent()[0], src.extent()[1]);
    if i == 0 || j == 0 || i == rows - 1 || j == cols - 1 {
        dst[idx] = src[idx];
    } else {
        let up = src[[i - 1, j]];
        let down = src[[i + 1, j]];
        let left = src[[i, j - 1]];
        let right = src[[i, j + 1]];
        dst[idx] = (up + down + left + right) * 0.25;
    }
}

/// The starting grid: cold, with a hot top edge and a warm left edge.
pub fn initial(rows: usize, cols: usize) -> Array2<f32> {
    let mut grid = Array2::<f32>::zeros((rows, cols));
    grid.row_mut(0).fill(100.0);
    grid.column_mut(0).fill(50.0);
    grid
}

/// `steps` Jacobi steps with `ndarray` alone (the program being ported).
pub fn steps_ndarray(grid: &Array2<f32>, steps: usize) -> Array2<f32> {
    let mut a = grid.clone();
    let mut b = grid.clone();
    let (rows, cols) = grid.dim();
    for _ in 0..steps {
        let up = a.slice(s![0..rows - 2, 1..cols - 1]);
        let down = a.slice(s![2..rows, 1..cols - 1]);
        let left = a.slice(s![1..rows - 1, 0..cols - 2]);
        let right = a.slice(s![1..rows - 1, 2..cols]);
        let sum = &up + &down + left + right;
        b.slice_mut(s![1..rows - 1, 1..cols - 1])
            .assign(&(sum * 0.25));
        std::mem::swap(&mut a, &mut b);
    }
    a
}

/// The same steps on the default accelerator, over the `ndarray` grids in place.
pub fn steps_amp(grid: &Array2<f32>, steps: usize) -> Result<Array2<f32>, amp::Error> {
    let mut a = grid.clone();
    let mut b = grid.clone();
    for _ in 0..steps {
        {
            let src = ArrayView::try_from(a.view())?;
            let mut dst = ArrayViewMut::try_from(b.view_mut())?;
            dst.discard_data();
            parallel_for_each(dst.extent(), jacobi_step(&src, &mut dst))?;
            dst.synchronize()?;
        }
        std::mem::swap(&mut a, &mut b);
    }
    Ok(a)
}

/// The largest difference between two grids of one shape.
pub fn max_diff(a: &Array2<f32>, b: &Array2<f32>) -> f32 {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let (rows, cols, steps) = (128, 128, 150);
    let acc = Accelerator::default()?;
    println!("{rows} x {cols} grid, {steps} steps on {}", acc.name());
    let grid = initial(rows, cols);
    let expected = steps_ndarray(&grid, steps);
    let got = steps_amp(&grid, steps)?;
    let diff = max_diff(&got, &expected);
    println!(
        "mean {:.4} (ndarray {:.4}), at [8, 8] {:.4} (ndarray {:.4}), largest difference {diff:e}",
        got.mean().unwrap_or(0.0),
        expected.mean().unwrap_or(0.0),
        got[[8, 8]],
        expected[[8, 8]]
    );
    if diff > 1e-3 {
        eprintln!("the device result differs from ndarray's");
        std::process::exit(1);
    }
    Ok(())
}
