//! Integer division and remainder are defined for every operand on the device: `x / 0` is all
//! ones, `x % 0` is `x`, and `i32::MIN / -1` wraps (docs/kernel-language.md, numeric semantics).
use amp::prelude::*;

#[kernel(amp)]
fn div_rem_i32(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    b: ArrayView<i32, 1>,
    q: ArrayViewMut<i32, 1>,
    r: ArrayViewMut<i32, 1>,
) {
    q[idx] = a[idx] / b[idx];
    let mut x = a[idx];
    x %= b[idx];
    r[idx] = x;
}

#[kernel(amp)]
fn div_rem_u32(
    idx: Index<1>,
    a: ArrayView<u32, 1>,
    b: ArrayView<u32, 1>,
    q: ArrayViewMut<u32, 1>,
    r: ArrayViewMut<u32, 1>,
) {
    q[idx] = a[idx] / b[idx];
    r[idx] = a[idx] % b[idx];
}

fn expected_i32(a: i32, b: i32) -> (i32, i32) {
    if b == 0 {
        (-1, a)
    } else {
        (a.wrapping_div(b), a.wrapping_rem(b))
    }
}

fn expected_u32(a: u32, b: u32) -> (u32, u32) {
    (
        a.checked_div(b).unwrap_or(u32::MAX),
        a.checked_rem(b).unwrap_or(a),
    )
}

#[test]
fn integer_division_is_defined_everywhere() -> Result<(), amp::Error> {
    let values = [0, 1, -1, 7, -7, 2, -3, i32::MIN, i32::MAX, i32::MIN + 1];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &values {
        for &y in &values {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let (mut q, mut r) = (vec![0; n], vec![0; n]);
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut qv = ArrayViewMut::new([n], &mut q)?;
        let mut rv = ArrayViewMut::new([n], &mut r)?;
        parallel_for_each(av.extent(), div_rem_i32(&av, &bv, &mut qv, &mut rv))?;
    }
    for i in 0..n {
        assert_eq!(
            (q[i], r[i]),
            expected_i32(a[i], b[i]),
            "{} / {}",
            a[i],
            b[i]
        );
    }

    let ua: Vec<u32> = a.iter().map(|&x| x as u32).collect();
    let ub: Vec<u32> = b.iter().map(|&x| x as u32).collect();
    let (mut uq, mut ur) = (vec![0; n], vec![0; n]);
    {
        let av = ArrayView::new([n], &ua)?;
        let bv = ArrayView::new([n], &ub)?;
        let mut qv = ArrayViewMut::new([n], &mut uq)?;
        let mut rv = ArrayViewMut::new([n], &mut ur)?;
        parallel_for_each(av.extent(), div_rem_u32(&av, &bv, &mut qv, &mut rv))?;
    }
    for i in 0..n {
        assert_eq!(
            (uq[i], ur[i]),
            expected_u32(ua[i], ub[i]),
            "{} / {}",
            ua[i],
            ub[i]
        );
    }
    if std::env::var("AMP_VALIDATION").is_ok_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}

#[kernel(amp)]
fn float_bits(
    idx: Index<1>,
    x: ArrayView<f32, 1>,
    bits: ArrayViewMut<u32, 1>,
    back: ArrayViewMut<f32, 1>,
) {
    let b = x[idx].to_bits();
    bits[idx] = b;
    back[idx] = f32::from_bits(f32::to_bits(x[idx]) ^ 0x8000_0000);
}

/// `to_bits`/`from_bits` move the bits as they are: NaN payloads, signed zeros and denormals.
#[test]
fn float_bits_are_exact() {
    let x = [
        0.0f32,
        -0.0,
        1.5,
        -2.25,
        f32::MIN_POSITIVE / 8.0,
        f32::INFINITY,
        f32::from_bits(0x7fc0_1234),
        f32::from_bits(0xffc0_0001),
    ];
    let mut bits = vec![0u32; x.len()];
    let mut back = vec![0f32; x.len()];
    {
        let xv = ArrayView::new([x.len()], &x[..]).unwrap();
        let mut bv = ArrayViewMut::new([x.len()], &mut bits).unwrap();
        let mut fv = ArrayViewMut::new([x.len()], &mut back).unwrap();
        parallel_for_each(xv.extent(), float_bits(&xv, &mut bv, &mut fv)).unwrap();
        bv.synchronize().unwrap();
        fv.synchronize().unwrap();
    }
    for i in 0..x.len() {
        assert_eq!(bits[i], x[i].to_bits(), "element {i}");
        assert_eq!(
            back[i].to_bits(),
            x[i].to_bits() ^ 0x8000_0000,
            "element {i}"
        );
    }
    crate::common::assert_validation_clean();
}
