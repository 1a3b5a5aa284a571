//! The atomics, each operation the generated code performs, on buffer elements (shared by
//! threads) and on a local (a `tile_static` variable).

use amp_native_rt::{atom_f32, atom_i32, atom_u32, atomic_add_f32, Buf, RELAXED};

#[test]
fn every_i32_operation_returns_the_old_value() {
    let mut x = 10i32;
    let p: *mut i32 = &mut x;
    // SAFETY: `x` is live, aligned and accessed only through the atomic until the block ends.
    let olds = unsafe {
        let a = atom_i32(p);
        [
            a.fetch_add(5, RELAXED),      // 15
            a.fetch_sub(20, RELAXED),     // -5
            a.fetch_min(-7, RELAXED),     // -7
            a.fetch_max(3, RELAXED),      // 3
            a.fetch_and(0b110, RELAXED),  // 2
            a.fetch_or(0b1000, RELAXED),  // 10
            a.fetch_xor(0b1111, RELAXED), // 5
            a.swap(i32::MAX, RELAXED),    // MAX
            a.fetch_add(1, RELAXED),      // wraps to MIN
            a.fetch_sub(1, RELAXED),      // MAX
            match a.compare_exchange(0, 1, RELAXED, RELAXED) {
                Ok(o) | Err(o) => o, // fails: MAX stays
            },
            match a.compare_exchange(i32::MAX, 4, RELAXED, RELAXED) {
                Ok(o) | Err(o) => o, // 4
            },
        ]
    };
    assert_eq!(
        olds,
        [
            10,
            15,
            -5,
            -7,
            3,
            2,
            10,
            5,
            i32::MAX,
            i32::MIN,
            i32::MAX,
            i32::MAX
        ]
    );
    assert_eq!(x, 4);
}

#[test]
fn every_u32_operation_returns_the_old_value() {
    let mut x = 1u32;
    let p: *mut u32 = &mut x;
    // SAFETY: as above.
    let olds = unsafe {
        let a = atom_u32(p);
        [
            a.fetch_sub(2, RELAXED),     // wraps to MAX
            a.fetch_add(1, RELAXED),     // 0
            a.fetch_max(9, RELAXED),     // 9
            a.fetch_min(4, RELAXED),     // 4
            a.fetch_or(0b11, RELAXED),   // 7
            a.fetch_and(0b101, RELAXED), // 5
            a.fetch_xor(0b110, RELAXED), // 3
            a.swap(8, RELAXED),          // 8
        ]
    };
    assert_eq!(olds, [1, u32::MAX, 0, 9, 4, 7, 5, 3]);
    assert_eq!(x, 8);
}

#[test]
fn f32_atomics_work_on_the_bits() {
    let mut x = 1.5f32;
    let p: *mut f32 = &mut x;
    // SAFETY: as above.
    unsafe {
        assert_eq!(atomic_add_f32(p, 2.25), 1.5);
        let a = atom_f32(p);
        assert_eq!(f32::from_bits(a.swap((-0.0f32).to_bits(), RELAXED)), 3.75);
        // Bits, not values: `-0.0` does not match an expected `0.0`.
        assert!(a
            .compare_exchange(0.0f32.to_bits(), 1.0f32.to_bits(), RELAXED, RELAXED)
            .is_err());
        assert_eq!(atomic_add_f32(p, f32::NAN).to_bits(), (-0.0f32).to_bits());
    }
    assert!(x.is_nan());
}

#[test]
fn concurrent_updates_of_one_element_are_all_counted() {
    let (mut sum, mut count, mut low) = (vec![0.0f32], vec![0u32], vec![i32::MAX]);
    let sum = Buf::<f32, 1> {
        ptr: sum.as_mut_ptr(),
        extent: [1],
        offset: 0,
        strides: [1],
        covers: false,
    };
    let (count_p, low_p) = (count.as_mut_ptr() as usize, low.as_mut_ptr() as usize);
    std::thread::scope(|s| {
        for t in 0..4i32 {
            s.spawn(move || {
                for i in 0..1000 {
                    // SAFETY: the three elements outlive the scope and every thread accesses
                    // them only atomically.
                    unsafe {
                        atomic_add_f32(sum.at([0]), 1.0);
                        atom_u32(count_p as *mut u32).fetch_add(1, RELAXED);
                        atom_i32(low_p as *mut i32).fetch_min(t * 1000 - i, RELAXED);
                    }
                }
            });
        }
    });
    // SAFETY: the threads have finished.
    assert_eq!(unsafe { sum.load_unchecked([0]) }, 4000.0);
    assert_eq!(count, [4000]);
    assert_eq!(low, [-999]);
}
