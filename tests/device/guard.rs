//! Guard buffers around sections: a bounds-checked kernel whose writes run past the extent of
//! a section never touches the parent's elements around it (before or after it, and, at rank
//! 2, left and right of each of its rows, which the parent's row stride puts in between), and
//! the launch returns `Error::IndexOutOfBounds`. The contrast: an `unchecked` kernel writing
//! past the section's extent, but inside the parent's buffer, does clobber a neighbour. That
//! is why checks are on by default.

use crate::bounds::on_own_view;
use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// The value every guard element holds.
const GUARD: u32 = 0xdead_beef;

/// The value a kernel stamps for the index `(i, j)` of its domain.
fn stamp(i: usize, j: usize) -> u32 {
    (1000 + 100 * i + j) as u32
}

/// The parameter and extent of an `IndexOutOfBounds` error; panics on anything else.
fn out_of_bounds(result: Result<(), amp::Error>) -> (String, Vec<usize>, Vec<usize>) {
    match result {
        Err(amp::Error::IndexOutOfBounds {
            param,
            index,
            extent,
            ..
        }) => (param, index, extent),
        other => panic!("expected IndexOutOfBounds, got {other:?}"),
    }
}

#[kernel(amp)]
fn stamp_1d(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = (1000 + idx[0]) as u32;
}

#[kernel(amp)]
fn stamp_1d_next(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx[0] + 1] = (1000 + idx[0]) as u32;
}

/// The 1-D layout of the tests: 16 elements, the section is `[5, 11)`.
const LEN: usize = 16;
const START: usize = 5;
const SECTION: usize = 6;

/// `data` holds the guard outside the section and `inside(k)` at its element `k`.
fn assert_guarded_1d(data: &[u32], inside: impl Fn(usize) -> u32) {
    for (k, &v) in data.iter().enumerate() {
        let expected = if (START..START + SECTION).contains(&k) {
            inside(k - START)
        } else {
            GUARD
        };
        assert_eq!(v, expected, "element {k} of {data:?}");
    }
}

/// The checks of both 1-D kernels on a section of `parent`: a domain twice the section's
/// extent, and a write at `idx + 1` over the section's own extent.
fn check_1d_section(parent: &mut ArrayViewMut<'_, u32, 1>) -> Result<(), amp::Error> {
    let mut section = parent.section_mut([START], [SECTION])?;
    let result = on_own_view(|v| {
        parallel_for_each_on(v, Extent::new([2 * SECTION]), stamp_1d(&mut section))
    });
    let (param, index, extent) = out_of_bounds(result);
    assert_eq!((param.as_str(), extent), ("out", vec![SECTION]));
    assert!((SECTION..2 * SECTION).contains(&index[0]), "{index:?}");
    let result =
        on_own_view(|v| parallel_for_each_on(v, section.extent(), stamp_1d_next(&mut section)));
    let (_, index, _) = out_of_bounds(result);
    assert_eq!(index, [SECTION]);
    Ok(())
}

/// What the 1-D section holds after `check_1d_section`: element 0 from the first kernel,
/// element `k > 0` from the second (thread `k - 1`).
fn after_1d(k: usize) -> u32 {
    if k == 0 {
        1000
    } else {
        1000 + k as u32 - 1
    }
}

#[test]
fn checked_writes_past_a_1d_section_of_an_array_leave_the_guards() -> Result<(), amp::Error> {
    let mut array = Array::from_slice([LEN], &[GUARD; LEN])?;
    check_1d_section(&mut array.view_mut())?;
    assert_guarded_1d(&array.to_vec()?, after_1d);
    assert_validation_clean();
    Ok(())
}

#[test]
fn checked_writes_past_a_1d_section_of_a_host_vec_leave_the_guards() -> Result<(), amp::Error> {
    let mut data = vec![GUARD; LEN];
    {
        let mut view = ArrayViewMut::new([LEN], &mut data)?;
        check_1d_section(&mut view)?;
    }
    assert_guarded_1d(&data, after_1d);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn stamp_2d(idx: Index<2>, out: ArrayViewMut<u32, 2>) {
    out[idx] = (1000 + 100 * idx[0] + idx[1]) as u32;
}

#[kernel(amp)]
fn stamp_2d_right(idx: Index<2>, out: ArrayViewMut<u32, 2>) {
    out[[idx[0], idx[1] + 1]] = (1000 + 100 * idx[0] + idx[1]) as u32;
}

#[kernel(amp, unchecked)]
fn stamp_2d_right_unchecked(idx: Index<2>, out: ArrayViewMut<u32, 2>) {
    out[[idx[0], idx[1] + 1]] = (1000 + 100 * idx[0] + idx[1]) as u32;
}

/// The 2-D layout: a 6 x 8 matrix, the section is rows 1..4, columns 2..6. The elements left
/// and right of each section row lie between its rows in memory.
const ROWS: usize = 6;
const COLS: usize = 8;
const ORIGIN: [usize; 2] = [1, 2];
const SHAPE: [usize; 2] = [3, 4];

/// `data` (row-major `ROWS x COLS`) holds `inside(i, j)` at element `(i, j)` of the section
/// and `outside(r, c)` at element `(r, c)` of the matrix elsewhere.
fn assert_matrix(
    data: &[u32],
    inside: impl Fn(usize, usize) -> u32,
    outside: impl Fn(usize, usize) -> u32,
) {
    for r in 0..ROWS {
        for c in 0..COLS {
            let (i, j) = (r.wrapping_sub(ORIGIN[0]), c.wrapping_sub(ORIGIN[1]));
            let expected = if i < SHAPE[0] && j < SHAPE[1] {
                inside(i, j)
            } else {
                outside(r, c)
            };
            assert_eq!(data[r * COLS + c], expected, "element ({r}, {c})");
        }
    }
}

/// The checked 2-D kernels on a section of `parent`: a domain two rows and two columns larger
/// than the section, then a write one column to the right over the section's extent.
fn check_2d_section(parent: &mut ArrayViewMut<'_, u32, 2>) -> Result<(), amp::Error> {
    let mut section = parent.section_mut(ORIGIN, SHAPE)?;
    let larger = Extent::new([SHAPE[0] + 2, SHAPE[1] + 2]);
    let result = on_own_view(|v| parallel_for_each_on(v, larger, stamp_2d(&mut section)));
    let (param, index, extent) = out_of_bounds(result);
    assert_eq!((param.as_str(), extent), ("out", SHAPE.to_vec()));
    assert!(index[0] >= SHAPE[0] || index[1] >= SHAPE[1], "{index:?}");
    let result =
        on_own_view(|v| parallel_for_each_on(v, section.extent(), stamp_2d_right(&mut section)));
    let (_, index, _) = out_of_bounds(result);
    assert!(index[0] < SHAPE[0] && index[1] == SHAPE[1], "{index:?}");
    Ok(())
}

/// What the 2-D section holds after `check_2d_section`: column 0 from the first kernel, column
/// `j > 0` from the second (thread `(i, j - 1)`).
fn after_2d(i: usize, j: usize) -> u32 {
    if j == 0 {
        stamp(i, 0)
    } else {
        stamp(i, j - 1)
    }
}

#[test]
fn checked_writes_past_a_2d_section_of_an_array_leave_the_guards() -> Result<(), amp::Error> {
    let mut array = Array::from_slice([ROWS, COLS], &[GUARD; ROWS * COLS])?;
    check_2d_section(&mut array.view_mut())?;
    assert_matrix(&array.to_vec()?, after_2d, |_, _| GUARD);
    assert_validation_clean();
    Ok(())
}

#[test]
fn checked_writes_past_a_2d_section_of_a_host_vec_leave_the_guards() -> Result<(), amp::Error> {
    let mut data = vec![GUARD; ROWS * COLS];
    {
        let mut view = ArrayViewMut::new([ROWS, COLS], &mut data)?;
        check_2d_section(&mut view)?;
    }
    assert_matrix(&data, after_2d, |_, _| GUARD);
    assert_validation_clean();
    Ok(())
}

/// What the matrix holds outside the section after the unchecked kernel: each row's stray
/// write (column `SHAPE[1]` of the section) lands on the guard right of that row.
fn clobbered(r: usize, c: usize) -> u32 {
    let i = r.wrapping_sub(ORIGIN[0]);
    if i < SHAPE[0] && c == ORIGIN[1] + SHAPE[1] {
        stamp(i, SHAPE[1] - 1)
    } else {
        GUARD
    }
}

/// The contrast: without checks, the write one column right of each section row is an
/// ordinary store into the parent's buffer (the whole parent is bound, so the device's
/// robust buffer access does not stop it) and overwrites the element right of the section.
/// Every such write has its own target, so the outcome is deterministic.
#[test]
fn unchecked_writes_past_a_section_clobber_the_neighbour() -> Result<(), amp::Error> {
    let unchecked_inside = |i: usize, j: usize| {
        if j == 0 {
            GUARD
        } else {
            stamp(i, j - 1)
        }
    };
    let mut array = Array::from_slice([ROWS, COLS], &[GUARD; ROWS * COLS])?;
    {
        let mut section = array.section_mut(ORIGIN, SHAPE)?;
        // SAFETY: each row's one stray write lands one column right of the section, inside the
        // parent's memory (the whole matrix, which the test owns): what the test shows.
        parallel_for_each(section.extent(), unsafe {
            stamp_2d_right_unchecked(&mut section)
        })?;
    }
    assert_matrix(&array.to_vec()?, unchecked_inside, clobbered);

    let mut data = vec![GUARD; ROWS * COLS];
    {
        let mut view = ArrayViewMut::new([ROWS, COLS], &mut data)?;
        let mut section = view.section_mut(ORIGIN, SHAPE)?;
        // SAFETY: each row's one stray write lands one column right of the section, inside the
        // parent's memory (the whole matrix, which the test owns): what the test shows.
        parallel_for_each(section.extent(), unsafe {
            stamp_2d_right_unchecked(&mut section)
        })?;
    }
    assert_matrix(&data, unchecked_inside, clobbered);
    assert_validation_clean();
    Ok(())
}
