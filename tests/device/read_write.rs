//! Views a kernel both reads and writes: the host's data reaches the kernel, the kernel reads
//! back what it wrote, and what it does not write keeps the host's data, for host views,
//! arrays and sections at an offset. On a device whose memory the host cannot map (a discrete
//! GPU) each of these travels through staging buffers.

use crate::common::assert_validation_clean;
use amp::prelude::*;

#[kernel(amp)]
fn write_then_update(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = a[idx];
    out[idx] += 7;
}

#[kernel(amp, unchecked)]
fn write_then_update_unchecked(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = a[idx];
    out[idx] += 7;
}

/// The shape of a checked kernel's code, written out: each access in a conditional of its own.
#[kernel(amp, unchecked)]
fn write_then_update_in_ifs(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let n = out.extent()[0];
    if idx[0] < n {
        out[idx] = a[idx];
    }
    if idx[0] < n {
        out[idx] += 7;
    }
}

#[kernel(amp)]
fn update_in_place(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = out[idx] * 3 + a[idx];
}

#[kernel(amp)]
fn write_even(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    if idx[0] % 2 == 0 {
        out[idx] = a[idx];
    }
}

const N: usize = 1000;

fn inputs() -> (Vec<u32>, Vec<u32>) {
    let a: Vec<u32> = (0..N as u32).map(|i| i * 11 + 1).collect();
    let host: Vec<u32> = (0..N as u32).map(|i| 0x5000_0000 + i).collect();
    (a, host)
}

/// A kernel of this file, bound to its views.
/// Each kernel indexes its views at the thread's index only, over the output's extent (the
/// promise an `unchecked` kernel's `unsafe` launcher asks for; checked ones coerce too).
type Kernel = for<'a> unsafe fn(
    &'a ArrayView<'_, u32, 1>,
    &'a mut ArrayViewMut<'_, u32, 1>,
) -> amp::KernelCall<'a, 1>;

/// Runs `kernel` (named `which`) with `out` as a host view, an array, and a section at an
/// offset of a host view; the wrong results of each, in words.
fn check(
    which: &str,
    kernel: Kernel,
    expected: impl Fn(&[u32], &[u32]) -> Vec<u32>,
) -> Result<Vec<String>, amp::Error> {
    let (a, host) = inputs();
    let want = expected(&a, &host);
    let launch =
        |av: &ArrayView<u32, 1>, ov: &mut ArrayViewMut<u32, 1>| -> Result<(), amp::Error> {
            // SAFETY: `av` and `ov` have the same extent, the launch's; see `Kernel`.
            parallel_for_each(ov.extent(), unsafe { kernel(av, ov) })
        };
    let mut wrong = Vec::new();
    let mut compare = |form: &str, got: &[u32], want: &[u32]| {
        let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
        if let Some(&i) = bad.first() {
            wrong.push(format!(
                "{which}, {form}: {} of {} wrong, first at {i}: {:#x}, want {:#x}",
                bad.len(),
                want.len(),
                got[i],
                want[i]
            ));
        }
    };
    // A host view.
    let mut out = host.clone();
    {
        let av = ArrayView::new([N], &a)?;
        let mut ov = ArrayViewMut::new([N], &mut out)?;
        launch(&av, &mut ov)?;
    }
    compare("host view", &out, &want);
    // An array.
    let mut array = Array::from_slice([N], &host)?;
    {
        let av = ArrayView::new([N], &a)?;
        let mut ov = array.view_mut();
        launch(&av, &mut ov)?;
    }
    compare("array", &array.to_vec()?, &want);
    // A section at an offset of a host view: the elements before it keep the host's data.
    let mut out = host.clone();
    let off = 3;
    {
        let av = ArrayView::new([N - off], &a[..N - off])?;
        let mut whole = ArrayViewMut::new([N], &mut out)?;
        let mut section = whole.section_mut([off], [N - off])?;
        launch(&av, &mut section)?;
    }
    let mut want_section = host[..off].to_vec();
    want_section.extend(expected(&a[..N - off], &host[off..]));
    compare("section at an offset", &out, &want_section);
    Ok(wrong)
}

/// Each pattern, each kind of view: all wrong results are reported together.
#[test]
fn kernels_read_back_their_writes_and_keep_what_they_do_not_write() -> Result<(), amp::Error> {
    let mut wrong = Vec::new();
    let kernels: [(&str, Kernel); 3] = [
        ("write_then_update", write_then_update),
        ("write_then_update_unchecked", write_then_update_unchecked),
        ("write_then_update_in_ifs", write_then_update_in_ifs),
    ];
    for (which, kernel) in kernels {
        wrong.extend(check(which, kernel, |a, _| {
            a.iter().map(|x| x + 7).collect()
        })?);
    }
    wrong.extend(check("update_in_place", update_in_place, |a, h| {
        a.iter()
            .zip(h)
            .map(|(x, y)| y.wrapping_mul(3).wrapping_add(*x))
            .collect()
    })?);
    wrong.extend(check("write_even", write_even, |a, h| {
        (0..a.len())
            .map(|i| if i % 2 == 0 { a[i] } else { h[i] })
            .collect()
    })?);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_validation_clean();
    Ok(())
}
