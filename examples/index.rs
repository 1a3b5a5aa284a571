//! C++ AMP's index and extent samples: reading elements of rank 1, 2 and 3 views by `Index<N>`,
//! on the host and inside a kernel, and printing extents.
//!
//! ```text
//! cargo run --release --example index
//! ```
use amp::prelude::*;

/// Copies `a[[i, j]]` of a rank-2 view into every element of `out`.
#[kernel(amp)]
fn pick2(idx: Index<1>, a: ArrayView<i32, 2>, out: ArrayViewMut<i32, 1>, i: u32, j: u32) {
    out[idx] = a[[i as usize, j as usize]];
}

/// Copies `a[[i, j, k]]` of a rank-3 view into every element of `out`.
#[kernel(amp)]
fn pick3(idx: Index<1>, a: ArrayView<i32, 3>, out: ArrayViewMut<i32, 1>, i: u32, j: u32, k: u32) {
    out[idx] = a[[i as usize, j as usize, k as usize]];
}

/// What the sample prints.
#[derive(Debug, PartialEq)]
pub struct Results {
    /// Rank 1, element 2 (the third): 3.
    pub rank1: i32,
    /// Rank 2 (2 x 3), element (1, 2): 6.
    pub rank2: i32,
    /// Rank 3 (2 x 3 x 4), element (0, 1, 3): 8.
    pub rank3: i32,
    /// The same two elements read by kernels.
    pub rank2_device: i32,
    /// See `rank2_device`.
    pub rank3_device: i32,
    /// The extent `[3, 2, 2]`, dimension by dimension, and its size.
    pub extent: ([usize; 3], usize),
}

/// Runs the sample.
pub fn run() -> Result<Results, amp::Error> {
    let data1 = [1, 2, 3, 4, 5];
    let a1 = ArrayView::new([5], &data1)?;
    let rank1 = a1[Index::new([2])];

    let data2 = [1, 2, 3, 4, 5, 6];
    let a2 = ArrayView::new([2, 3], &data2)?;
    let rank2 = a2[Index::new([1, 2])];

    let data3: Vec<i32> = (1..=24).collect();
    let a3 = ArrayView::new([2, 3, 4], &data3)?;
    let rank3 = a3[Index::new([0, 1, 3])];

    let mut out = [0; 4];
    {
        let mut o = ArrayViewMut::new([4], &mut out)?;
        parallel_for_each(o.extent(), pick2(&a2, &mut o, 1, 2))?;
    }
    let rank2_device = out[0];
    {
        let mut o = ArrayViewMut::new([4], &mut out)?;
        parallel_for_each(o.extent(), pick3(&a3, &mut o, 0, 1, 3))?;
    }
    let rank3_device = out[3];

    let e = Extent::new([3, 2, 2]);
    Ok(Results {
        rank1,
        rank2,
        rank3,
        rank2_device,
        rank3_device,
        extent: ([e[0], e[1], e[2]], e.size()),
    })
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let r = run()?;
    println!("rank 1, index [2]: {}", r.rank1);
    println!(
        "rank 2, index [1, 2]: {} (on the device: {})",
        r.rank2, r.rank2_device
    );
    println!(
        "rank 3, index [0, 1, 3]: {} (on the device: {})",
        r.rank3, r.rank3_device
    );
    let ([e0, e1, e2], size) = r.extent;
    println!("extent [3, 2, 2]: e[0] = {e0}, e[1] = {e1}, e[2] = {e2}, size = {size}");
    Ok(())
}
