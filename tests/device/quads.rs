//! The quad form of simple kernels (each invocation runs four consecutive indices and moves
//! the elements of its views 16 bytes at a time where every access of a view is the thread's
//! own element): results equal the host's for every length's last, partial quad, for views that
//! start off a 16-byte boundary or are shorter than the domain (which run one index at a time,
//! with the same out-of-bounds report), for elements read and written in place, written under
//! a condition or after an early `return`, and for views of other indices beside them.

use crate::common;
use amp::prelude::*;
use common::{assert_validation_clean, Rng};

#[kernel(amp)]
fn scale_in_place(idx: Index<1>, v: ArrayViewMut<f32, 1>, k: f32) {
    v[idx] = v[idx] * k + 1.0;
}

#[kernel(amp)]
fn triple_positive(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    if a[idx] > 0 {
        out[idx] = a[idx].wrapping_mul(3);
    }
}

#[kernel(amp)]
fn skip_multiples_of_three(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    if a[idx] % 3 == 0 {
        return;
    }
    out[idx] = a[idx] + 1;
}

#[kernel(amp)]
fn add_from_table(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    table: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    let i = idx[0];
    out[i] = a[i] + table[(i * 7) % table.extent()[0]];
}

#[kernel(amp, unchecked)]
fn accumulate(
    idx: Index<1>,
    a: ArrayView<u32, 1>,
    b: ArrayView<u32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    out[idx] += a[idx] - b[idx];
}

const LENGTHS: [usize; 12] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1023, 4097, 65_539];

/// Random `f32`s, NaN-free, some negative.
fn floats(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.next_u32() % 2001) as f32 * 0.37 - 370.0)
        .collect()
}

#[test]
fn quad_kernels_match_the_host_at_every_length_and_offset() {
    const NAME: &str = "quads::quad_kernels_match_the_host_at_every_length_and_offset";
    run_every_quad_kernel();
    // The same kernels with the quad form turned off at launch (one index per step).
    if !common::in_child(NAME) && !common::on_native() {
        common::run_child(NAME, &[("AMP_VECTOR_ACCESS", "0")], &[]);
    }
}

fn run_every_quad_kernel() {
    let mut rng = Rng(71);
    for &n in &LENGTHS {
        // Sections starting at each offset into their data: only offsets of whole quads of
        // every view take the 16-byte path.
        for start in 0..5 {
            let data = floats(&mut rng, n + start);
            let mut v = data.clone();
            {
                let mut all = ArrayViewMut::new([n + start], &mut v).unwrap();
                let mut section = all.section_mut([start], [n]).unwrap();
                parallel_for_each(section.extent(), scale_in_place(&mut section, 1.5)).unwrap();
                section.synchronize().unwrap();
            }
            for (i, (&got, &x)) in v.iter().zip(&data).enumerate() {
                let want = if i < start { x } else { x * 1.5 + 1.0 };
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "scale {n} from {start} at {i}"
                );
            }

            let a: Vec<i32> = (0..n + start).map(|_| rng.next_u32() as i32).collect();
            let mut out = vec![-7i32; n];
            {
                let av = ArrayView::new([n + start], &a).unwrap();
                let av = av.section([start], [n]).unwrap();
                let mut ov = ArrayViewMut::new([n], &mut out).unwrap();
                parallel_for_each(ov.extent(), triple_positive(&av, &mut ov)).unwrap();
                ov.synchronize().unwrap();
            }
            for i in 0..n {
                let x = a[start + i];
                let want = if x > 0 { x.wrapping_mul(3) } else { -7 };
                assert_eq!(out[i], want, "triple {n} from {start} at {i}");
            }

            let a: Vec<u32> = (0..n).map(|_| rng.next_u32() % 100).collect();
            let mut out = vec![9_999u32; n + start];
            {
                let av = ArrayView::new([n], &a).unwrap();
                let mut all = ArrayViewMut::new([n + start], &mut out).unwrap();
                let mut ov = all.section_mut([start], [n]).unwrap();
                parallel_for_each(ov.extent(), skip_multiples_of_three(&av, &mut ov)).unwrap();
                ov.synchronize().unwrap();
            }
            for (i, &got) in out.iter().enumerate() {
                let want = match i.checked_sub(start) {
                    Some(j) if !a[j].is_multiple_of(3) => a[j] + 1,
                    _ => 9_999,
                };
                assert_eq!(got, want, "skip {n} from {start} at {i}");
            }
        }

        let a = floats(&mut rng, n);
        let table = floats(&mut rng, 13);
        let mut out = vec![0.0f32; n];
        {
            let (av, tv) = (
                ArrayView::new([n], &a).unwrap(),
                ArrayView::new([13], &table).unwrap(),
            );
            let mut ov = ArrayViewMut::new([n], &mut out).unwrap();
            parallel_for_each(ov.extent(), add_from_table(&av, &tv, &mut ov)).unwrap();
            ov.synchronize().unwrap();
        }
        for i in 0..n {
            let want = a[i] + table[(i * 7) % 13];
            assert_eq!(out[i].to_bits(), want.to_bits(), "table {n} at {i}");
        }

        let (a, b): (Vec<u32>, Vec<u32>) = (0..n).map(|_| (rng.next_u32(), rng.next_u32())).unzip();
        let init: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let src_a = Array::from_slice([n], &a).unwrap();
        let src_b = Array::from_slice([n], &b).unwrap();
        let mut acc = Array::from_slice([n], &init).unwrap();
        // SAFETY: every view covers the launch's extent.
        let extent = acc.extent();
        parallel_for_each(extent, unsafe {
            accumulate(&src_a.view(), &src_b.view(), &mut acc.view_mut())
        })
        .unwrap();
        let got = acc.to_vec().unwrap();
        for i in 0..n {
            let want = init[i].wrapping_add(a[i].wrapping_sub(b[i]));
            assert_eq!(got[i], want, "accumulate {n} at {i}");
        }
    }
    assert_validation_clean();
}

#[kernel(amp)]
fn double(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx] * 2.0;
}

/// A view shorter than the domain: the quads it holds whole take the 16-byte path, the rest
/// run one index at a time, read zero past its end and report one of those indices, as
/// without quads.
#[test]
fn a_view_shorter_than_the_domain_reads_zero_past_its_end_and_reports_it() {
    let a: Vec<f32> = (0..10).map(|i| i as f32).collect();
    let mut out = vec![-1.0f32; 16];
    let result = {
        let av = ArrayView::new([10], &a).unwrap();
        let mut ov = ArrayViewMut::new([16], &mut out).unwrap();
        let extent = ov.extent();
        let r =
            crate::bounds::on_own_view(|v| parallel_for_each_on(v, extent, double(&av, &mut ov)));
        ov.synchronize().unwrap();
        r
    };
    let (kernel, param, index, extent) = crate::bounds::out_of_bounds(result);
    assert_eq!((kernel.as_str(), param.as_str()), ("double", "a"));
    // Any failing access may be the one reported (the first thread to report wins).
    assert!((10..16).contains(&index[0]), "reported index {index:?}");
    assert_eq!(extent, vec![10]);
    for (i, &v) in out.iter().enumerate() {
        // An out-of-bounds read gives zero.
        let want = if i < 10 { i as f32 * 2.0 } else { 0.0 };
        assert_eq!(v, want, "at {i}");
    }
    assert_validation_clean();
}

#[kernel(amp)]
fn threshold_bytes(idx: Index<1>, a: ArrayView<u8, 1>, out: ArrayViewMut<u8, 1>, t: u32) {
    out[idx] = if a[idx] as u32 > t { 255 } else { a[idx] / 2 };
}

#[kernel(amp)]
fn scale_signed_bytes(idx: Index<1>, v: ArrayViewMut<i8, 1>) {
    v[idx] = v[idx].wrapping_mul(3).wrapping_sub(5);
}

#[kernel(amp)]
fn bump_halves_not_of_three(idx: Index<1>, a: ArrayView<u16, 1>, out: ArrayViewMut<u16, 1>) {
    if a[idx] % 3 == 0 {
        return;
    }
    out[idx] = a[idx].wrapping_add(40_000);
}

#[kernel(amp)]
fn halve_signed_halves(
    idx: Index<1>,
    a: ArrayView<i16, 1>,
    keep: ArrayView<bool, 1>,
    out: ArrayViewMut<f32, 1>,
    negative: ArrayViewMut<bool, 1>,
) {
    if keep[idx] {
        out[idx] = a[idx] as f32 * 0.5;
    }
    negative[idx] = a[idx] < 0;
}

/// Views of `u8`, `i8`, `u16`, `i16` and `bool` in the quad form (a quad of bytes is one
/// 32-bit word, of 16-bit integers two): the host's results at every length and section
/// offset, read and written in place, written under a condition or after an early `return`,
/// and mixed with 4-byte views; again with one index per step, and with the small integers
/// packed into words (where a quad's store is a plain store of its word and one index per step
/// an atomic).
#[test]
fn small_element_quads_match_the_host_at_every_length_and_offset() {
    const NAME: &str = "quads::small_element_quads_match_the_host_at_every_length_and_offset";
    run_every_small_quad_kernel();
    if !common::in_child(NAME) && !common::on_native() {
        for env in [("AMP_VECTOR_ACCESS", "0"), ("AMP_PACKED_SMALL_INTS", "1")] {
            common::run_child(NAME, &[env], &[]);
        }
    }
}

fn run_every_small_quad_kernel() {
    let mut rng = Rng(72);
    for &n in &LENGTHS {
        for start in 0..5 {
            let a: Vec<u8> = (0..n + start).map(|_| rng.next_u32() as u8).collect();
            let mut out = vec![7u8; n + start];
            {
                let av = ArrayView::new([n + start], &a).unwrap();
                let av = av.section([start], [n]).unwrap();
                let mut all = ArrayViewMut::new([n + start], &mut out).unwrap();
                let mut ov = all.section_mut([start], [n]).unwrap();
                parallel_for_each(ov.extent(), threshold_bytes(&av, &mut ov, 100)).unwrap();
                ov.synchronize().unwrap();
            }
            for (i, &got) in out.iter().enumerate() {
                let want = match a[i] {
                    _ if i < start => 7,
                    x if u32::from(x) > 100 => 255,
                    x => x / 2,
                };
                assert_eq!(got, want, "threshold {n} from {start} at {i}");
            }

            let data: Vec<i8> = (0..n + start).map(|_| rng.next_u32() as i8).collect();
            let mut v = data.clone();
            {
                let mut all = ArrayViewMut::new([n + start], &mut v).unwrap();
                let mut section = all.section_mut([start], [n]).unwrap();
                parallel_for_each(section.extent(), scale_signed_bytes(&mut section)).unwrap();
                section.synchronize().unwrap();
            }
            for (i, (&got, &x)) in v.iter().zip(&data).enumerate() {
                let want = if i < start {
                    x
                } else {
                    x.wrapping_mul(3).wrapping_sub(5)
                };
                assert_eq!(got, want, "signed bytes {n} from {start} at {i}");
            }

            let a: Vec<u16> = (0..n).map(|_| rng.next_u32() as u16).collect();
            let mut out = vec![9_999u16; n + start];
            {
                let av = ArrayView::new([n], &a).unwrap();
                let mut all = ArrayViewMut::new([n + start], &mut out).unwrap();
                let mut ov = all.section_mut([start], [n]).unwrap();
                parallel_for_each(ov.extent(), bump_halves_not_of_three(&av, &mut ov)).unwrap();
                ov.synchronize().unwrap();
            }
            for (i, &got) in out.iter().enumerate() {
                let want = match i.checked_sub(start) {
                    Some(j) if !a[j].is_multiple_of(3) => a[j].wrapping_add(40_000),
                    _ => 9_999,
                };
                assert_eq!(got, want, "u16 {n} from {start} at {i}");
            }

            let a: Vec<i16> = (0..n + start).map(|_| rng.next_u32() as i16).collect();
            let keep: Vec<bool> = (0..n).map(|_| !rng.next_u32().is_multiple_of(3)).collect();
            let mut out = vec![-1.0f32; n];
            let mut negative = vec![true; n + start];
            {
                let av = ArrayView::new([n + start], &a).unwrap();
                let av = av.section([start], [n]).unwrap();
                let kv = ArrayView::new([n], &keep).unwrap();
                let mut ov = ArrayViewMut::new([n], &mut out).unwrap();
                let mut all = ArrayViewMut::new([n + start], &mut negative).unwrap();
                let mut nv = all.section_mut([start], [n]).unwrap();
                parallel_for_each(ov.extent(), halve_signed_halves(&av, &kv, &mut ov, &mut nv))
                    .unwrap();
                ov.synchronize().unwrap();
                nv.synchronize().unwrap();
            }
            for i in 0..n {
                let x = a[start + i];
                let want = if keep[i] { f32::from(x) * 0.5 } else { -1.0 };
                assert_eq!(
                    out[i].to_bits(),
                    want.to_bits(),
                    "i16 {n} from {start} at {i}"
                );
            }
            for (i, &got) in negative.iter().enumerate() {
                let want = i < start || a[i] < 0;
                assert_eq!(got, want, "bool {n} from {start} at {i}");
            }
        }
    }
    assert_validation_clean();
}

#[kernel(amp)]
fn brighten(idx: Index<2>, img: ArrayView<u8, 2>, out: ArrayViewMut<f32, 2>, k: f32) {
    out[idx] = img[idx] as f32 * k;
}

#[kernel(amp)]
fn add_rows_in_place(idx: Index<2>, a: ArrayView<i32, 2>, v: ArrayViewMut<i32, 2>) {
    let i = idx[0];
    let j = idx[1];
    if a[[i, j]] != 0 {
        v[[i, j]] = v[[i, j]].wrapping_add(a[idx]);
    }
}

#[kernel(amp)]
fn negate_cells(idx: Index<3>, v: ArrayViewMut<f32, 3>) {
    v[idx] = -v[idx] * 0.75;
}

/// 2-D and 3-D kernels in the quad form, whose quads run on across a row's end: whole arrays,
/// whose rows follow each other, and sections of wider arrays at every small offset, whose
/// quads across a row's end (and off a 16-byte boundary) run one index at a time.
#[test]
fn quads_of_two_and_three_dimensional_kernels_match_the_host() {
    const NAME: &str = "quads::quads_of_two_and_three_dimensional_kernels_match_the_host";
    let mut rng = Rng(73);
    for (h, w) in [
        (1, 1),
        (1, 5),
        (2, 2),
        (3, 3),
        (3, 4),
        (5, 7),
        (4, 8),
        (3, 13),
        (9, 64),
    ] {
        for (r0, c0, wider) in [
            (0, 0, 0),
            (0, 0, 1),
            (0, 1, 0),
            (1, 0, 4),
            (1, 3, 2),
            (2, 2, 3),
        ] {
            let (ph, pw) = (h + r0 + 1, w + c0 + wider);
            let img: Vec<u8> = (0..ph * pw).map(|_| rng.next_u32() as u8).collect();
            let mut out = vec![-2.0f32; ph * pw];
            {
                let iv = ArrayView::new([ph, pw], &img).unwrap();
                let iv = iv.section([r0, c0], [h, w]).unwrap();
                let mut all = ArrayViewMut::new([ph, pw], &mut out).unwrap();
                let mut ov = all.section_mut([r0, c0], [h, w]).unwrap();
                parallel_for_each(ov.extent(), brighten(&iv, &mut ov, 1.25)).unwrap();
                ov.synchronize().unwrap();
            }
            let inside = |i: usize| {
                let (r, c) = (i / pw, i % pw);
                (r0..r0 + h).contains(&r) && (c0..c0 + w).contains(&c)
            };
            for (i, &got) in out.iter().enumerate() {
                let want = if inside(i) {
                    f32::from(img[i]) * 1.25
                } else {
                    -2.0
                };
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "brighten {h}x{w} at {r0},{c0} (+{wider}): {i}"
                );
            }

            let a: Vec<i32> = (0..h * w).map(|_| rng.next_u32() as i32 % 3).collect();
            let data: Vec<i32> = (0..ph * pw).map(|_| rng.next_u32() as i32).collect();
            let mut v = data.clone();
            {
                let av = ArrayView::new([h, w], &a).unwrap();
                let mut all = ArrayViewMut::new([ph, pw], &mut v).unwrap();
                let mut vv = all.section_mut([r0, c0], [h, w]).unwrap();
                parallel_for_each(vv.extent(), add_rows_in_place(&av, &mut vv)).unwrap();
                vv.synchronize().unwrap();
            }
            for (i, (&got, &x)) in v.iter().zip(&data).enumerate() {
                let (r, c) = (i / pw, i % pw);
                let want = if inside(i) {
                    x.wrapping_add(a[(r - r0) * w + c - c0])
                } else {
                    x
                };
                assert_eq!(got, want, "add rows {h}x{w} at {r0},{c0} (+{wider}): {i}");
            }
        }
    }
    for [d0, d1, d2] in [[1, 1, 3], [2, 3, 5], [3, 4, 4], [2, 5, 9]] {
        let data: Vec<f32> = floats(&mut rng, d0 * d1 * d2);
        let mut v = data.clone();
        {
            let mut vv = ArrayViewMut::new([d0, d1, d2], &mut v).unwrap();
            parallel_for_each(vv.extent(), negate_cells(&mut vv)).unwrap();
            vv.synchronize().unwrap();
        }
        for (i, (&got, &x)) in v.iter().zip(&data).enumerate() {
            assert_eq!(
                got.to_bits(),
                (-x * 0.75).to_bits(),
                "3-D {d0}x{d1}x{d2} at {i}"
            );
        }
    }
    assert_validation_clean();
    if !common::in_child(NAME) && !common::on_native() {
        common::run_child(NAME, &[("AMP_VECTOR_ACCESS", "0")], &[]);
    }
}

/// A 2-D view narrower than the domain, whose rows would pass for the domain's quads by their
/// addresses alone: its quads run one index at a time, read zero past each row's end and
/// report one of those indices.
#[test]
fn a_two_dimensional_view_narrower_than_the_domain_reads_zero_past_its_rows_and_reports_it() {
    let img: Vec<u8> = (0..12).map(|i| i as u8 + 1).collect();
    let mut out = vec![-1.0f32; 16];
    let result = {
        let iv = ArrayView::new([4, 3], &img).unwrap();
        let mut ov = ArrayViewMut::new([4, 4], &mut out).unwrap();
        let extent = ov.extent();
        let r = crate::bounds::on_own_view(|v| {
            parallel_for_each_on(v, extent, brighten(&iv, &mut ov, 2.0))
        });
        ov.synchronize().unwrap();
        r
    };
    let (kernel, param, index, extent) = crate::bounds::out_of_bounds(result);
    assert_eq!((kernel.as_str(), param.as_str()), ("brighten", "img"));
    assert_eq!(index[1], 3, "reported index {index:?}");
    assert_eq!(extent, vec![4, 3]);
    for (i, &v) in out.iter().enumerate() {
        let (r, c) = (i / 4, i % 4);
        let want = if c < 3 {
            f32::from(img[r * 3 + c]) * 2.0
        } else {
            0.0
        };
        assert_eq!(v, want, "at {i}");
    }
    assert_validation_clean();
}

#[kernel(amp)]
fn halve_doubles(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) {
    if a[idx] != 0.0 {
        out[idx] = a[idx] * 0.5 + 1.0;
    }
}

/// `f64` views in the quad form (a quad is 32 bytes), at every length and section offset,
/// where the device has `shaderFloat64`.
#[test]
fn double_quads_match_the_host_at_every_length_and_offset() {
    let mut rng = Rng(74);
    for &n in &LENGTHS {
        for start in 0..5 {
            let a: Vec<f64> = (0..n + start)
                .map(|_| f64::from(rng.next_u32() % 7) * 1.1 - 3.3)
                .collect();
            let mut out = vec![-9.0f64; n + start];
            let result = {
                let av = ArrayView::new([n + start], &a).unwrap();
                let av = av.section([start], [n]).unwrap();
                let mut all = ArrayViewMut::new([n + start], &mut out).unwrap();
                let mut ov = all.section_mut([start], [n]).unwrap();
                let r = parallel_for_each(ov.extent(), halve_doubles(&av, &mut ov))
                    .and_then(|()| ov.synchronize());
                common::f64_result(r)
            };
            if result.is_none() {
                assert!(!Accelerator::default().unwrap().supports_double_precision());
                return;
            }
            for (i, &got) in out.iter().enumerate() {
                let want = match a[i] {
                    _ if i < start => -9.0,
                    0.0 => -9.0,
                    x => x * 0.5 + 1.0,
                };
                assert_eq!(got.to_bits(), want.to_bits(), "f64 {n} from {start} at {i}");
            }
        }
    }
    assert_validation_clean();
}
