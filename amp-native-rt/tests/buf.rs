//! `Buf` and `OobReport`, used as generated code uses them: buffers over host memory, checked
//! and unchecked accesses, and the report of the first access outside a view.

use amp_native_rt::{Buf, OobReport};

/// A row-major buffer over all of `v`, viewed with `extent`.
fn buf<T, const R: usize>(v: &mut [T], extent: [u32; R]) -> Buf<T, R> {
    let mut strides = [1u32; R];
    for d in (0..R.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * extent[d + 1];
    }
    Buf {
        ptr: v.as_mut_ptr(),
        extent,
        offset: 0,
        strides,
        covers: false,
    }
}

#[test]
fn a_buf_is_copy_send_and_sync() {
    fn check<T: Copy + Send + Sync>() {}
    check::<Buf<f32, 1>>();
    check::<Buf<i32, 3>>();
}

#[test]
fn addresses_follow_offset_and_strides_and_the_last_stride_is_one() {
    let mut v = vec![0u32; 64];
    let base = v.as_mut_ptr();
    // A 3 x 4 section of an 8-wide matrix, from row 2, column 1; `strides[1]` is ignored.
    let b = Buf::<u32, 2> {
        ptr: base,
        extent: [3, 4],
        offset: 2 * 8 + 1,
        strides: [8, 99],
        covers: false,
    };
    for i in 0..3u32 {
        for j in 0..4u32 {
            // SAFETY: both pointers are into `v` (the section lies inside its 64 elements).
            let at = unsafe { b.at([i, j]).offset_from(base) };
            assert_eq!(at, ((2 + i) * 8 + 1 + j) as isize, "[{i}, {j}]");
        }
    }
    let r3 = Buf::<u32, 3> {
        ptr: base,
        extent: [2, 3, 4],
        offset: 5,
        strides: [12, 4, 0],
        covers: false,
    };
    // SAFETY: 5 + 12 + 2 * 4 + 3 = 28 < 64: inside `v`.
    assert_eq!(unsafe { r3.at([1, 2, 3]).offset_from(base) }, 28);
    // An address outside the buffer may be computed (it is never used).
    let far = b.at([u32::MAX, u32::MAX]);
    assert_ne!(far, base);
}

#[test]
fn inside_compares_every_component() {
    let mut v = vec![0i32; 12];
    let b = buf(&mut v, [3, 4]);
    assert!(b.inside([0, 0]));
    assert!(b.inside([2, 3]));
    assert!(!b.inside([3, 0]));
    assert!(!b.inside([0, 4]));
    assert!(!b.inside([u32::MAX, 0]));
    let mut empty: Vec<i32> = Vec::new();
    assert!(!buf(&mut empty, [0]).inside([0]));
}

#[test]
fn checked_accesses_inside_read_and_write_the_element() {
    let mut v: Vec<f32> = (0..12).map(|x| x as f32).collect();
    let b = buf(&mut v, [3, 4]);
    let oob = OobReport::new();
    // SAFETY: `b` covers `v`, which outlives it; one thread.
    unsafe {
        assert_eq!(b.load([1, 2], 0, &oob), 6.0);
        b.store([2, 3], -1.5, 0, &oob);
        assert_eq!(b.load([2, 3], 0, &oob), -1.5);
    }
    assert_eq!(oob.read(), [0; 9], "nothing recorded");
    assert_eq!(v[11], -1.5);
}

#[test]
fn checked_accesses_outside_read_zero_skip_the_write_and_record_the_first() {
    let mut v = vec![7i32; 6];
    let b = buf(&mut v, [2, 3]);
    let oob = OobReport::new();
    // SAFETY: as above; the accesses outside are checked.
    unsafe {
        assert_eq!(b.load([2, 0], 4, &oob), 0);
        b.store([0, 3], 1, 5, &oob);
    }
    assert_eq!(v, [7; 6], "the write outside was skipped");
    // The first access is the one recorded: parameter 4, rank 2, index [2, 0], extent [2, 3].
    assert_eq!(oob.read(), [1, 4, 2, 2, 0, 0, 2, 3, 0]);
}

#[test]
fn the_if_variants_trust_ok_and_record_when_it_is_false() {
    let mut v = vec![1u32, 2, 3, 4];
    let b = buf(&mut v, [4]);
    let oob = OobReport::new();
    // SAFETY: every `ok = true` index is inside `b`.
    unsafe {
        assert_eq!(b.load_if([3], true, 0, &oob), 4);
        b.store_if([0], true, 10, 0, &oob);
        assert_eq!(oob.read()[0], 0);
        // `ok` false: zero, skipped, recorded (even for an index that is inside: `ok` decides).
        assert_eq!(b.load_if([1], false, 2, &oob), 0);
        b.store_if([1], false, 99, 3, &oob);
    }
    assert_eq!(v, [10, 2, 3, 4]);
    assert_eq!(oob.read(), [1, 2, 1, 1, 0, 0, 4, 0, 0]);
}

#[test]
fn checked_and_checked_if_give_the_address_or_none() {
    let mut v = vec![0u32; 8];
    let b = buf(&mut v, [2, 4]);
    let oob = OobReport::new();
    assert_eq!(b.checked([1, 1], 0, &oob), Some(b.at([1, 1])));
    assert_eq!(b.checked_if([1, 2], true, 0, &oob), Some(b.at([1, 2])));
    assert_eq!(oob.read()[0], 0);
    assert_eq!(b.checked([0, 4], 1, &oob), None);
    assert_eq!(b.checked_if([0, 0], false, 2, &oob), None);
    assert_eq!(oob.read()[..3], [1, 1, 2], "the first failure, parameter 1");
}

#[test]
fn unchecked_accesses_read_and_write_in_place() {
    let mut v = vec![0u64; 6];
    let b = Buf::<u64, 1> {
        ptr: v.as_mut_ptr(),
        extent: [3],
        offset: 2,
        strides: [1],
        covers: true,
    };
    // SAFETY: indices 0..3 of a view at offset 2 of six elements.
    unsafe {
        b.store_unchecked([0], 5);
        b.store_unchecked([2], 9);
        assert_eq!(b.load_unchecked([0]), 5);
        assert_eq!(b.load_unchecked([1]), 0);
    }
    assert_eq!(v, [0, 0, 5, 0, 9, 0]);
}

#[test]
fn threads_write_their_own_elements_of_one_buffer() {
    let mut v = vec![0u32; 1000];
    let b = buf(&mut v, [1000]);
    let oob = OobReport::new();
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let oob = &oob;
            s.spawn(move || {
                for i in (t..1000).step_by(4) {
                    // SAFETY: each element is written by one thread only, and `v` outlives
                    // the scope.
                    unsafe { b.store([i], i * 2, 0, oob) };
                }
            });
        }
    });
    assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 * 2));
    assert_eq!(oob.read()[0], 0);
}

#[test]
fn the_report_keeps_the_first_of_many_racing_failures_whole() {
    let oob = OobReport::new();
    std::thread::scope(|s| {
        for t in 1..=8u32 {
            let oob = &oob;
            s.spawn(move || oob.record(t, [t, t + 1, t + 2], [t + 3, t + 4, t + 5]));
        }
    });
    let w = oob.read();
    let t = w[1];
    assert!((1..=8).contains(&t));
    assert_eq!(w, [1, t, 3, t, t + 1, t + 2, t + 3, t + 4, t + 5]);
}

#[test]
fn the_report_pads_lower_ranks_with_zeros() {
    let oob = OobReport::default();
    assert_eq!(oob.read(), [0; 9]);
    oob.record(7, [9], [4]);
    assert_eq!(oob.read(), [1, 7, 1, 9, 0, 0, 4, 0, 0]);
    oob.record(8, [1, 2], [3, 4]);
    assert_eq!(oob.read()[1], 7, "only the first is kept");
}

#[test]
fn frames_hold_one_copy_per_thread() {
    assert_eq!(*amp_native_rt::frames([1.5f32, 2.0], 3), [[1.5, 2.0]; 3]);
    assert!(amp_native_rt::frames(0u8, 0).is_empty());
}
