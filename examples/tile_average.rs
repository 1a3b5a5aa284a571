//! C++ AMP's tiling sample: a 4 x 6 matrix cut into 2 x 2 tiles; every element becomes the
//! average of its tile, computed through `tile_static` memory.
//!
//! ```text
//! cargo run --release --example tile_average
//! ```
use amp::prelude::*;

#[kernel(amp)]
fn tile_average(t: TiledIndex<2, 2>, sample: ArrayView<i32, 2>, average: ArrayViewMut<i32, 2>) {
    #[tile_static]
    let mut nums: [[i32; 2]; 2];
    nums[t.local[1]][t.local[0]] = sample[t.global];
    t.barrier.wait();
    let sum = nums[0][0] + nums[0][1] + nums[1][0] + nums[1][1];
    average[t.global] = sum / 4;
}

/// The sample's data, row by row.
pub const SAMPLE: [i32; 24] = [
    2, 2, 9, 7, 1, 4, //
    4, 4, 8, 8, 3, 4, //
    1, 5, 1, 2, 5, 2, //
    6, 8, 3, 2, 7, 2,
];

/// Averages every 2 x 2 tile of [`SAMPLE`] on the device.
pub fn run() -> Result<Vec<i32>, amp::Error> {
    let mut out = vec![0; 24];
    {
        let sample = ArrayView::new([4, 6], &SAMPLE)?;
        let mut average = ArrayViewMut::new([4, 6], &mut out)?;
        average.discard_data();
        parallel_for_each(
            average.extent().tile::<2, 2>(),
            tile_average(&sample, &mut average),
        )?;
    }
    Ok(out)
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let out = run()?;
    let rows: Vec<String> = out
        .chunks(6)
        .map(|row| {
            row.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    println!("{}", rows.join(" / "));
    Ok(())
}
