//! Matrix multiplication and other multi-dimensional launches, checked against the CPU:
//! rank-2 domains of odd shapes, f32 and i32 element types, a rank-3 domain, and a rank-1
//! domain too large for one row of workgroups.

use crate::common;
use amp::prelude::*;
use common::{assert_validation_clean, Rng};

/// `M x N x W`: C (M x N) = A (M x W) * B (W x N).
const SHAPES: [(usize, usize, usize); 4] = [(1, 1, 1), (17, 33, 9), (100, 3, 250), (64, 64, 64)];

#[kernel(amp)]
fn matmul_f32(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

#[kernel(amp)]
fn matmul_i32(idx: Index<2>, a: ArrayView<i32, 2>, b: ArrayView<i32, 2>, c: ArrayViewMut<i32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0;
    let w = a.extent()[1];
    let mut k = 0;
    while k < w {
        sum += a[[row, k]] * b[[k, col]];
        k += 1;
    }
    c[idx] = sum;
}

fn matmul_device_f32(
    a: &[f32],
    b: &[f32],
    m: usize,
    n: usize,
    w: usize,
) -> Result<Vec<f32>, amp::Error> {
    let mut c = vec![f32::NAN; m * n];
    {
        let av = ArrayView::new([m, w], a)?;
        let bv = ArrayView::new([w, n], b)?;
        let mut cv = ArrayViewMut::new([m, n], &mut c)?;
        cv.discard_data();
        parallel_for_each(cv.extent(), matmul_f32(&av, &bv, &mut cv))?;
        cv.synchronize()?;
    }
    Ok(c)
}

/// The CPU reference, accumulating in the kernel's order; also returns, per element,
/// `sum |a| * |b|`, the scale for the rounding error bound.
fn matmul_cpu_f32(a: &[f32], b: &[f32], m: usize, n: usize, w: usize) -> (Vec<f32>, Vec<f32>) {
    let mut c = vec![0.0f32; m * n];
    let mut scale = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let (mut sum, mut s) = (0.0f32, 0.0f32);
            for k in 0..w {
                sum += a[i * w + k] * b[k * n + j];
                s += (a[i * w + k] * b[k * n + j]).abs();
            }
            c[i * n + j] = sum;
            scale[i * n + j] = s;
        }
    }
    (c, scale)
}

fn matmul_cpu_i32(a: &[i32], b: &[i32], m: usize, n: usize, w: usize) -> Vec<i32> {
    let mut c = vec![0i32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0i32;
            for k in 0..w {
                sum = sum.wrapping_add(a[i * w + k].wrapping_mul(b[k * n + j]));
            }
            c[i * n + j] = sum;
        }
    }
    c
}

#[test]
fn matmul_f32_random_inputs() -> Result<(), amp::Error> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (m, n, w) in SHAPES {
        let a: Vec<f32> = (0..m * w).map(|_| rng.unit_f32()).collect();
        let b: Vec<f32> = (0..w * n).map(|_| rng.unit_f32()).collect();
        let c = matmul_device_f32(&a, &b, m, n, w)?;
        let (expected, scale) = matmul_cpu_f32(&a, &b, m, n, w);
        for (i, ((&got, &want), &s)) in c.iter().zip(&expected).zip(&scale).enumerate() {
            // The device may contract a * b + sum into one fma, so allow a few rounding errors
            // per term, relative to the magnitude of the terms.
            let tol = 4.0 * w as f32 * f32::EPSILON * s + f32::MIN_POSITIVE;
            assert!(
                (got - want).abs() <= tol,
                "{m}x{n}x{w}: c[{}][{}] = {got}, expected {want} (tolerance {tol})",
                i / n,
                i % n
            );
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn matmul_f32_integer_inputs_exact() -> Result<(), amp::Error> {
    let mut rng = Rng(42);
    for (m, n, w) in SHAPES {
        // Integers in [-8, 8]: every product and partial sum is exact in f32.
        let a: Vec<f32> = (0..m * w)
            .map(|_| (rng.next_u32() % 17) as f32 - 8.0)
            .collect();
        let b: Vec<f32> = (0..w * n)
            .map(|_| (rng.next_u32() % 17) as f32 - 8.0)
            .collect();
        let c = matmul_device_f32(&a, &b, m, n, w)?;
        let (expected, _) = matmul_cpu_f32(&a, &b, m, n, w);
        assert!(
            c == expected,
            "{m}x{n}x{w}: device result differs from the CPU"
        );
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn matmul_i32_wrapping() -> Result<(), amp::Error> {
    let mut rng = Rng(7);
    for (m, n, w) in SHAPES {
        for full_range in [false, true] {
            let draw = |rng: &mut Rng| {
                if full_range {
                    rng.next_u32() as i32
                } else {
                    (rng.next_u32() % 201) as i32 - 100
                }
            };
            let a: Vec<i32> = (0..m * w).map(|_| draw(&mut rng)).collect();
            let b: Vec<i32> = (0..w * n).map(|_| draw(&mut rng)).collect();
            let mut c = vec![0; m * n];
            {
                let av = ArrayView::new([m, w], &a)?;
                let bv = ArrayView::new([w, n], &b)?;
                let mut cv = ArrayViewMut::new([m, n], &mut c)?;
                cv.discard_data();
                parallel_for_each(cv.extent(), matmul_i32(&av, &bv, &mut cv))?;
                cv.synchronize()?;
            }
            assert_eq!(
                c,
                matmul_cpu_i32(&a, &b, m, n, w),
                "{m}x{n}x{w}, full range: {full_range}"
            );
        }
    }
    assert_validation_clean();
    Ok(())
}

/// The same product with the inputs in device `Array`s rather than views.
#[kernel(amp)]
fn matmul_arrays(idx: Index<2>, a: &Array<i32, 2>, b: &Array<i32, 2>, c: &mut Array<i32, 2>) {
    let mut sum = 0;
    for k in 0..a.extent()[1] {
        sum += a[[idx[0], k]] * b[[k, idx[1]]];
    }
    c[idx] = sum;
}

#[test]
fn matmul_i32_on_device_arrays() -> Result<(), amp::Error> {
    let mut rng = Rng(99);
    let (m, n, w) = (17, 33, 9);
    let a: Vec<i32> = (0..m * w)
        .map(|_| (rng.next_u32() % 1000) as i32 - 500)
        .collect();
    let b: Vec<i32> = (0..w * n)
        .map(|_| (rng.next_u32() % 1000) as i32 - 500)
        .collect();
    let av = Array::from_slice([m, w], &a)?;
    let bv = Array::from_slice([w, n], &b)?;
    let mut cv = Array::new([m, n])?;
    parallel_for_each(cv.extent(), matmul_arrays(&av, &bv, &mut cv))?;
    assert_eq!(cv.to_vec()?, matmul_cpu_i32(&a, &b, m, n, w));
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn rank3_positions(idx: Index<3>, out: ArrayViewMut<u32, 3>) {
    out[idx] = (idx[0] * 100 + idx[1] * 10 + idx[2]) as u32;
}

#[kernel(amp)]
fn rank3_extents(idx: Index<3>, out: ArrayViewMut<i32, 3>) {
    let e = out.extent();
    let linear = (idx[0] * e[1] + idx[1]) * e[2] + idx[2];
    out[[idx[0], idx[1], idx[2]]] = linear as i32 * 1000 + (e[0] * 100 + e[1] * 10 + e[2]) as i32;
}

#[test]
fn rank3_domain() -> Result<(), amp::Error> {
    let mut out = vec![u32::MAX; 3 * 4 * 5];
    {
        let mut v = ArrayViewMut::new([3, 4, 5], &mut out)?;
        v.discard_data();
        parallel_for_each(v.extent(), rank3_positions(&mut v))?;
        v.synchronize()?;
    }
    let mut expected = Vec::new();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                expected.push(i * 100 + j * 10 + k);
            }
        }
    }
    assert_eq!(out, expected);

    let mut out = vec![0; 2 * 7 * 3];
    {
        let mut v = ArrayViewMut::new([2, 7, 3], &mut out)?;
        parallel_for_each(v.extent(), rank3_extents(&mut v))?;
        v.synchronize()?;
    }
    let expected: Vec<i32> = (0..42).map(|l| l * 1000 + 273).collect();
    assert_eq!(out, expected);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn times3(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = idx[0] as u32 * 3;
}

/// 5,000,000 threads: more than 65535 workgroups of 64, so the runtime folds the grid onto a
/// second dimension and the kernel must map it back (and skip the padding threads).
#[test]
fn domain_larger_than_one_grid_row() -> Result<(), amp::Error> {
    const N: usize = 5_000_000;
    let mut out = vec![u32::MAX; N];
    {
        let mut v = ArrayViewMut::new([N], &mut out)?;
        v.discard_data();
        parallel_for_each(v.extent(), times3(&mut v))?;
        v.synchronize()?;
    }
    if let Some(i) = (0..N).find(|&i| out[i] != i as u32 * 3) {
        panic!("out[{i}] = {}, expected {}", out[i], i as u32 * 3);
    }
    assert_validation_clean();
    Ok(())
}

/// A rank-2 domain that also needs more than one row of workgroups, with a width that is not a
/// multiple of the workgroup size.
#[kernel(amp)]
fn rank2_positions(idx: Index<2>, out: ArrayViewMut<u32, 2>) {
    out[idx] = (idx[0] * out.extent()[1] + idx[1]) as u32 ^ 0x5555_5555;
}

#[test]
fn large_rank2_domain() -> Result<(), amp::Error> {
    let (rows, cols) = (4099, 1031);
    let mut out = vec![0u32; rows * cols];
    {
        let mut v = ArrayViewMut::new([rows, cols], &mut out)?;
        v.discard_data();
        parallel_for_each(v.extent(), rank2_positions(&mut v))?;
        v.synchronize()?;
    }
    if let Some(i) = (0..rows * cols).find(|&i| out[i] != i as u32 ^ 0x5555_5555) {
        panic!(
            "out[{}][{}] = {:#x}, expected {:#x}",
            i / cols,
            i % cols,
            out[i],
            i as u32 ^ 0x5555_5555
        );
    }
    assert_validation_clean();
    Ok(())
}

/// Writes through computed rank-2 indices: `out[[j, i]] = a[[i, j]]`.
#[kernel(amp)]
fn transpose(idx: Index<2>, a: ArrayView<i32, 2>, out: ArrayViewMut<i32, 2>) {
    out[[idx[1], idx[0]]] = a[idx];
}

/// Writes only every third element of a view whose data was not discarded, then a second
/// launch reads what the first wrote before anything returns to the host.
#[kernel(amp)]
fn every_third(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    if idx[0] % 3 == 0 {
        out[idx] = -(idx[0] as i32);
    }
}

#[kernel(amp)]
fn add_neighbour(idx: Index<1>, src: ArrayViewMut<i32, 1>, dst: ArrayViewMut<i32, 1>) {
    let i = idx[0];
    let next = if i + 1 < src.extent()[0] {
        src[[i + 1]]
    } else {
        0
    };
    dst[idx] = src[idx] + next;
}

#[test]
fn transpose_odd_shape() -> Result<(), amp::Error> {
    let (rows, cols) = (37, 129);
    let a: Vec<i32> = (0..(rows * cols) as i32).collect();
    let mut out = vec![0; rows * cols];
    {
        let av = ArrayView::new([rows, cols], &a)?;
        let mut ov = ArrayViewMut::new([cols, rows], &mut out)?;
        ov.discard_data();
        parallel_for_each(av.extent(), transpose(&av, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..rows {
        for j in 0..cols {
            assert_eq!(out[j * rows + i], a[i * cols + j], "element ({i}, {j})");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn partial_writes_keep_host_data_and_chain_on_the_device() -> Result<(), amp::Error> {
    let n = 1000;
    let mut data: Vec<i32> = (0..n as i32).map(|v| v * 10).collect();
    let mut sums = vec![0; n];
    {
        let mut view = ArrayViewMut::new([n], &mut data)?;
        parallel_for_each(view.extent(), every_third(&mut view))?;
        let mut sv = ArrayViewMut::new([n], &mut sums)?;
        sv.discard_data();
        // The second launch reads `view` while its newest copy is on the device.
        parallel_for_each(sv.extent(), add_neighbour(&mut view, &mut sv))?;
        view.synchronize()?;
        sv.synchronize()?;
    }
    let expected: Vec<i32> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                -(i as i32)
            } else {
                i as i32 * 10
            }
        })
        .collect();
    assert_eq!(data, expected);
    for i in 0..n {
        let next = if i + 1 < n { expected[i + 1] } else { 0 };
        assert_eq!(sums[i], expected[i] + next, "sums[{i}]");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn rank3_linear(idx: Index<3>, out: ArrayViewMut<u32, 3>) {
    let e = out.extent();
    out[idx] = ((idx[0] * e[1] + idx[1]) * e[2] + idx[2]) as u32;
}

/// A rank-3 domain of 5,168,000 threads (more than one row of workgroups), with dimensions that
/// are not multiples of the workgroup size: every thread must recover its own (i, j, k).
#[test]
fn large_rank3_domain() -> Result<(), amp::Error> {
    let dims = [170, 190, 160];
    let n = dims.iter().product::<usize>();
    let mut out = vec![u32::MAX; n];
    {
        let mut v = ArrayViewMut::new(dims, &mut out)?;
        v.discard_data();
        parallel_for_each(v.extent(), rank3_linear(&mut v))?;
        v.synchronize()?;
    }
    if let Some(i) = (0..n).find(|&i| out[i] != i as u32) {
        panic!("element {i} (of {dims:?}) holds {}", out[i]);
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn negate_prefix(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = -out[idx];
}

/// A launch domain smaller than the view it writes: the elements outside keep their data.
#[test]
fn domain_smaller_than_view() -> Result<(), amp::Error> {
    let mut data: Vec<i32> = (1..=20).collect();
    {
        let mut v = ArrayViewMut::new([20], &mut data)?;
        parallel_for_each(Extent::new([7]), negate_prefix(&mut v))?;
        v.synchronize()?;
    }
    let expected: Vec<i32> = (1..=20).map(|v| if v <= 7 { -v } else { v }).collect();
    assert_eq!(data, expected);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn carried_sum(idx: Index<2>, a: ArrayView<f32, 2>, n: u32, out: ArrayViewMut<f32, 2>) {
    let mut acc = 0.0f32;
    for k in 0..n as usize {
        let x = a[[idx[0], k]] * 0.5;
        acc = acc * 0.75 + x - a[[k % 9, idx[1]]];
    }
    out[idx] = acc;
}

/// A loop every thread runs the same way, with a value carried from one iteration to the
/// next, for every trip count from 0 to 13: natively its iterations run several per
/// work-item loop, then one by one for the rest, and each thread's order of operations stays
/// its own (bit-for-bit equal to the host's), batches and the threads beyond them alike.
#[test]
fn a_loop_carried_value_for_every_trip_count() -> Result<(), amp::Error> {
    let (rows, cols) = (9usize, 40usize);
    let a: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919) % 97) as f32 / 13.0 - 3.0)
        .collect();
    for n in 0..14u32 {
        let mut out = vec![0f32; rows * cols];
        {
            let av = ArrayView::new([rows, cols], &a)?;
            let mut ov = ArrayViewMut::new([rows, cols], &mut out)?;
            parallel_for_each(ov.extent(), carried_sum(&av, n, &mut ov))?;
        }
        for r in 0..rows {
            for c in 0..cols {
                let mut acc = 0.0f32;
                for k in 0..n as usize {
                    let x = a[r * cols + k] * 0.5;
                    acc = acc * 0.75 + x - a[(k % 9) * cols + c];
                }
                assert_eq!(
                    out[r * cols + c].to_bits(),
                    acc.to_bits(),
                    "n {n}, [{r}, {c}]"
                );
            }
        }
    }
    assert_validation_clean();
    Ok(())
}
