//! The tiled model's contract, exactly as a C++ AMP user writes it: the `tile_static` matrix
//! multiplication (16 x 16 tiles staged through shared memory, two barriers per step), launched
//! over `c.extent().tile::<TS, TS>()` and checked against the CPU bit for bit.

use crate::common;
use amp::prelude::*;
use common::{assert_validation_clean, Rng};

const TS: usize = 16;

include!("../support/fixtures/matmul_tiled.rs");

fn matmul_cpu(a: &[f32], b: &[f32], m: usize, n: usize, w: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for k in 0..w {
                sum += a[i * w + k] * b[k * n + j];
            }
            c[i * n + j] = sum;
        }
    }
    c
}

#[test]
fn tiled_matmul_contract() -> Result<(), amp::Error> {
    let (m, n, w) = (64, 64, 64);
    let mut rng = Rng(0x5eed_0fa3);
    let a_data: Vec<f32> = (0..m * w).map(|_| rng.small_f32()).collect();
    let b_data: Vec<f32> = (0..w * n).map(|_| rng.small_f32()).collect();
    let mut c_data = vec![f32::NAN; m * n];
    {
        let a = ArrayView::new([m, w], &a_data)?;
        let b = ArrayView::new([w, n], &b_data)?;
        let mut c = ArrayViewMut::new([m, n], &mut c_data)?;
        c.discard_data();
        parallel_for_each(c.extent().tile::<TS, TS>(), matmul_tiled(&a, &b, &mut c))?;
        c.synchronize()?;
    }
    let expected = matmul_cpu(&a_data, &b_data, m, n, w);
    if let Some(i) = (0..m * n).find(|&i| c_data[i] != expected[i]) {
        panic!(
            "c[{}][{}] = {}, expected {}",
            i / n,
            i % n,
            c_data[i],
            expected[i]
        );
    }
    assert_validation_clean();
    Ok(())
}
