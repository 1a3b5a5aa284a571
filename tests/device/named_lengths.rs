//! Local arrays whose length is a named constant: `[0.0; RUN]` and `[x; RUN]` with a `const`
//! item, nested in a literal-length array, from a device function, and with a const-generic
//! parameter (`[x; K]`, two instances), each against the same Rust on the host, on every
//! device.

use crate::common;
use common::assert_validation_clean;

use amp::prelude::*;

/// Elements per thread of the blocked kernels.
const RUN: usize = 6;

/// Thread `i` handles elements `i * RUN ..` of `a`: a zeroed accumulator (`[0.0; RUN]`), an
/// array filled with a value the thread computes (`[x; RUN]`), a literal-length array of
/// named-length rows, and a `bool` array.
#[kernel(amp)]
fn runs_of_named_length(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    sums: ArrayViewMut<f32, 1>,
    tags: ArrayViewMut<u32, 1>,
) {
    let base = idx[0] * RUN;
    let mut acc = [0.0f32; RUN];
    let bias = [a[base] * 0.5; RUN];
    let mut rows = [[idx[0] as u32; RUN]; 2];
    let mut seen = [false; RUN];
    for k in 0..RUN {
        acc[k] += a[base + k] + bias[k];
        rows[1][k] += k as u32;
        seen[k] = a[base + k] > 10.0;
    }
    for k in 0..RUN {
        sums[base + k] = acc[k];
        tags[base + k] = rows[0][k] * 1000 + rows[1][k] + if seen[k] { 7 } else { 0 };
    }
}

fn host_runs(a: &[f32]) -> (Vec<f32>, Vec<u32>) {
    let (mut sums, mut tags) = (vec![0.0; a.len()], vec![0; a.len()]);
    for i in 0..a.len() / RUN {
        let base = i * RUN;
        let mut acc = [0.0f32; RUN];
        let bias = [a[base] * 0.5; RUN];
        let mut rows = [[i as u32; RUN]; 2];
        let mut seen = [false; RUN];
        for k in 0..RUN {
            acc[k] += a[base + k] + bias[k];
            rows[1][k] += k as u32;
            seen[k] = a[base + k] > 10.0;
        }
        for k in 0..RUN {
            sums[base + k] = acc[k];
            tags[base + k] = rows[0][k] * 1000 + rows[1][k] + if seen[k] { 7 } else { 0 };
        }
    }
    (sums, tags)
}

#[test]
fn arrays_of_a_const_items_length_on_every_device() -> Result<(), amp::Error> {
    let threads = 257;
    let a: Vec<f32> = (0..threads * RUN)
        .map(|i| (i % 23) as f32 * 0.75 - 2.0)
        .collect();
    let av = ArrayView::new([a.len()], &a)?;
    let mut sums = vec![0.0f32; a.len()];
    let mut tags = vec![0u32; a.len()];
    {
        let mut sv = ArrayViewMut::new([a.len()], &mut sums)?;
        let mut tv = ArrayViewMut::new([a.len()], &mut tags)?;
        let call = runs_of_named_length(&av, &mut sv, &mut tv);
        parallel_for_each(Extent::new([threads]), call)?;
        sv.synchronize()?;
        tv.synchronize()?;
    }
    let (want_sums, want_tags) = host_runs(&a);
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&sums), bits(&want_sums));
    assert_eq!(tags, want_tags);
    assert_validation_clean();
    Ok(())
}

/// A running sum over each thread's `K` elements, in an array made by `[x; K]`.
#[kernel(amp)]
fn prefix_runs<const K: usize>(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    let base = idx[0] * K;
    let mut window = [a[base]; K];
    for k in 1..K {
        window[k] = window[k - 1].wrapping_add(a[base + k]);
    }
    for k in 0..K {
        out[base + k] = window[k];
    }
}

fn run_prefix<const K: usize>(a: &[i32]) -> Result<Vec<i32>, amp::Error> {
    let av = ArrayView::new([a.len()], a)?;
    let mut out = vec![0; a.len()];
    {
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        parallel_for_each(Extent::new([a.len() / K]), prefix_runs::<K>(&av, &mut ov))?;
        ov.synchronize()?;
    }
    Ok(out)
}

fn host_prefix(a: &[i32], k: usize) -> Vec<i32> {
    a.chunks(k)
        .flat_map(|run| {
            run.iter().scan(0i32, |s, &x| {
                *s = s.wrapping_add(x);
                Some(*s)
            })
        })
        .collect()
}

#[test]
fn arrays_of_a_const_generic_length() -> Result<(), amp::Error> {
    let a: Vec<i32> = (0..3 * 5 * 71).map(|i| (i * 7919) % 1001 - 500).collect();
    assert_eq!(run_prefix::<3>(&a)?, host_prefix(&a, 3));
    assert_eq!(run_prefix::<5>(&a)?, host_prefix(&a, 5));
    assert_validation_clean();
    Ok(())
}

/// The sum of `RUN` copies of `x`, each plus its position, through an array of a named length
/// in a device function.
// Written with indices, as kernels are: the host runs the same function.
#[allow(clippy::needless_range_loop)]
#[amp::device]
fn ramp_sum(x: f32) -> f32 {
    let mut r = [x; RUN];
    for k in 0..RUN {
        r[k] += k as f32;
    }
    let mut s = 0.0;
    for k in 0..RUN {
        s += r[k];
    }
    s
}

#[kernel(amp)]
fn ramp_sums(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = ramp_sum(a[idx]);
}

#[test]
fn a_device_functions_array_of_a_named_length() -> Result<(), amp::Error> {
    let a: Vec<f32> = (0..1000).map(|i| i as f32 * 0.125).collect();
    let av = ArrayView::new([a.len()], &a)?;
    let mut out = vec![0.0f32; a.len()];
    let result = {
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        parallel_for_each(ov.extent(), ramp_sums(&av, &mut ov)).and_then(|()| ov.synchronize())
    };
    result?;
    let want: Vec<f32> = a.iter().map(|&x| ramp_sum(x)).collect();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&out), bits(&want));
    assert_validation_clean();
    Ok(())
}
