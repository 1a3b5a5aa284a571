//! `amp::copy` and `amp::copy_async` between two arrays on one accelerator: the kernel of
//! 16-byte loads and stores (`AMP_DEVICE_COPY=kernel`, and GPUs' default for large copies)
//! copies exactly what the driver's copy does, for every tail of words past the last 16-byte
//! vector, element sizes of 1 to 16 bytes, byte counts that are not whole words (which take
//! the driver's copy) and arrays of rank 2 and 3.

use crate::common;
use common::{assert_validation_clean, Rng};

use amp::prelude::*;

/// Copies `data` into an array, then array to array with `copy` and `copy_async`, and
/// compares the bytes with the source's.
fn check<T: amp::DeviceElement, const N: usize>(dims: [usize; N], data: &[T]) {
    let src = Array::from_slice(dims, data).unwrap();
    let mut dst = Array::<T, N>::new(dims).unwrap();
    amp::copy(&src, &mut dst).unwrap();
    let got = dst.to_vec().unwrap();
    let same = |a: &[T], b: &[T]| bytemuck_bytes(a) == bytemuck_bytes(b);
    assert!(
        same(&got, data),
        "copy of {dims:?} {}",
        std::any::type_name::<T>()
    );
    let mut again = Array::<T, N>::new(dims).unwrap();
    amp::copy_async(&dst, &mut again).unwrap().wait().unwrap();
    let got = again.to_vec().unwrap();
    assert!(
        same(&got, data),
        "copy_async of {dims:?} {}",
        std::any::type_name::<T>()
    );
}

fn bytemuck_bytes<T>(s: &[T]) -> &[u8] {
    // SAFETY: device scalars are plain data without padding; the bytes live as long as `s`.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

fn copy_everything() {
    let mut rng = Rng(67);
    for n in [
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        9,
        1023,
        4096 + 3,
        (1 << 18) + 1,
        (1 << 18) + 4,
    ] {
        let words: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        check([n], &words);
        let floats: Vec<f32> = words.iter().map(|&w| f32::from_bits(w)).collect();
        check([n], &floats);
    }
    for n in [1, 3, 4, 5, 8, 13, 16, 4099, 65_536] {
        let bytes: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
        check([n], &bytes);
        let halves: Vec<i16> = (0..n).map(|_| rng.next_u32() as i16).collect();
        check([n], &halves);
    }
    let doubles: Vec<f64> = (0..3 * 333).map(|_| rng.next_u32() as f64 / 7.0).collect();
    check([3, 333], &doubles);
    let ints: Vec<i32> = (0..5 * 7 * 1031).map(|_| rng.next_u32() as i32).collect();
    check([5, 7, 1031], &ints);
    let vectors: Vec<UInt4> = (0..1001)
        .map(|_| {
            UInt4::new(
                rng.next_u32(),
                rng.next_u32(),
                rng.next_u32(),
                rng.next_u32(),
            )
        })
        .collect();
    check([1001], &vectors);
    // A copy into an array of another shape with as many elements is refused, as the
    // driver's copy refuses it.
    let src = Array::<u32, 1>::new([64]).unwrap();
    let mut dst = Array::<u32, 2>::new([8, 8]).unwrap();
    assert!(matches!(
        amp::copy(&src, &mut dst),
        Err(Error::CopyExtentMismatch { .. })
    ));
    assert_validation_clean();
}

#[test]
fn array_copies_by_kernel_equal_the_drivers() {
    const NAME: &str = "device_copy::array_copies_by_kernel_equal_the_drivers";
    let acc = Accelerator::default().unwrap();
    if common::in_child(NAME) {
        assert!(
            acc.__copies_by_kernel(4),
            "AMP_DEVICE_COPY=kernel on a Vulkan device"
        );
        return copy_everything();
    }
    // The process's own policy: the driver's copy on CPU devices, a kernel for large copies
    // on GPUs and the simulated discrete GPU.
    let gpu = !acc.is_native()
        && (acc.device_type() != amp::DeviceType::Cpu
            || std::env::var("AMP_SIMULATE_DISCRETE").is_ok_and(|v| v == "1"));
    assert_eq!(acc.__copies_by_kernel(amp::KERNEL_COPY_MIN_BYTES), gpu);
    assert!(!acc.__copies_by_kernel(amp::KERNEL_COPY_MIN_BYTES - 4));
    copy_everything();
    if !acc.is_native() {
        common::run_child(NAME, &[("AMP_DEVICE_COPY", "kernel")], &[]);
    }
}
