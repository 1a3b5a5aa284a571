//! Simple kernels under every launch shape a Vulkan device can be given (`AMP_WORKGROUP_SIZE`,
//! `AMP_ITEMS_PER_THREAD`): the results are the host's, bit for bit, whatever the workgroup
//! size and however many indices each thread runs on its grid-stride loop; a `return` ends one
//! index, not the thread's others; atomics count every index once; an out-of-bounds access
//! is reported as it is with one index per thread. Each shape runs in a process of its own
//! (the shape is chosen once per device).

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// The shapes tried: (threads per workgroup, indices per thread).
const SHAPES: [(u32, u32); 5] = [(32, 1), (64, 2), (256, 4), (1024, 16), (32, 16)];

#[kernel(amp)]
fn hash_or_skip(idx: Index<1>, seed: u32, out: ArrayViewMut<u32, 1>) {
    let i = idx[0] as u32;
    if i % 7 == 3 {
        return; // ends this index only: the thread's next index still runs
    }
    let mut h = i ^ seed;
    h = h.wrapping_mul(0x9E37_79B9);
    out[idx] = h ^ (h >> 15);
}

fn hash_or_skip_host(i: u32, seed: u32, old: u32) -> u32 {
    if i % 7 == 3 {
        return old;
    }
    let h = (i ^ seed).wrapping_mul(0x9E37_79B9);
    h ^ (h >> 15)
}

#[kernel(amp)]
fn planes(idx: Index<3>, a: ArrayView<f32, 3>, out: ArrayViewMut<f32, 3>) {
    out[idx] = a[idx] * 0.5 + (idx[0] * 100 + idx[1] * 10 + idx[2]) as f32;
}

#[kernel(amp)]
fn digit_sums(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    let mut n = idx[0] as u32;
    let mut s = 0u32;
    while n > 0 {
        s += n % 10;
        n /= 10;
    }
    out[idx] = s;
}

#[kernel(amp)]
fn count_by_residue(idx: Index<1>, counts: ArrayViewMut<u32, 1>) {
    let r = idx[0] % 16;
    atomic_fetch_add(&mut counts[r], 1);
}

#[kernel(amp)]
fn shifted_read(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = a[idx[0] + 1];
}

/// Every kernel above at sizes around the shapes' boundaries, against the host.
fn run_every_kernel() -> Result<(), amp::Error> {
    for n in [1usize, 31, 32, 33, 1000, 4096, 100_003] {
        let mut out = vec![5u32; n];
        {
            let mut view = ArrayViewMut::new([n], &mut out)?;
            parallel_for_each(view.extent(), hash_or_skip(77, &mut view))?;
            view.synchronize()?;
        }
        for (i, &v) in out.iter().enumerate() {
            assert_eq!(
                v,
                hash_or_skip_host(i as u32, 77, 5),
                "hash_or_skip n={n} i={i}"
            );
        }

        let mut sums = vec![0u32; n];
        {
            let mut view = ArrayViewMut::new([n], &mut sums)?;
            parallel_for_each(view.extent(), digit_sums(&mut view))?;
            view.synchronize()?;
        }
        for (i, &v) in sums.iter().enumerate() {
            let host: u32 = i.to_string().bytes().map(|b| u32::from(b - b'0')).sum();
            assert_eq!(v, host, "digit_sums n={n} i={i}");
        }

        let mut counts = vec![0u32; 16];
        {
            let mut view = ArrayViewMut::new([16], &mut counts)?;
            parallel_for_each(Extent::new([n]), count_by_residue(&mut view))?;
            view.synchronize()?;
        }
        for (r, &c) in counts.iter().enumerate() {
            assert_eq!(c as usize, (0..n).filter(|i| i % 16 == r).count(), "n={n}");
        }

        let a: Vec<u32> = (0..n as u32).map(|i| i * 3).collect();
        let mut shifted = vec![0u32; n];
        let launched = {
            let mut view = ArrayViewMut::new([n], &mut shifted)?;
            let input = ArrayView::new([n], &a)?;
            parallel_for_each(view.extent(), shifted_read(&input, &mut view))
                .and_then(|()| view.synchronize())
        };
        match launched {
            Err(amp::Error::IndexOutOfBounds { param, index, .. }) => {
                assert_eq!((param.as_str(), index), ("a", vec![n]), "n={n}");
            }
            other => panic!("n={n}: expected the read of a[{n}] reported, got {other:?}"),
        }
    }
    for dims in [[1usize, 1, 1], [3, 5, 7], [4, 33, 65]] {
        let len = dims.iter().product::<usize>();
        let a: Vec<f32> = (0..len).map(|i| i as f32 * 0.25).collect();
        let mut out = vec![0f32; len];
        {
            let mut view = ArrayViewMut::new(dims, &mut out)?;
            let input = ArrayView::new(dims, &a)?;
            parallel_for_each(view.extent(), planes(&input, &mut view))?;
            view.synchronize()?;
        }
        for (i, &v) in out.iter().enumerate() {
            let (d0, d1, d2) = (i / (dims[1] * dims[2]), i / dims[2] % dims[1], i % dims[2]);
            let host = a[i] * 0.5 + (d0 * 100 + d1 * 10 + d2) as f32;
            assert_eq!(v.to_bits(), host.to_bits(), "planes {dims:?} at {i}");
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn every_launch_shape_computes_what_the_host_does() -> Result<(), amp::Error> {
    const NAME: &str = "launch_shapes::every_launch_shape_computes_what_the_host_does";
    if common::in_child(NAME) {
        let acc = Accelerator::default()?;
        let shape = acc
            .launch_shape()
            .expect("a Vulkan device has a launch shape");
        let wanted = |var: &str| std::env::var(var).ok().and_then(|v| v.parse::<u32>().ok());
        assert_eq!(Some(shape.items_per_thread), wanted("AMP_ITEMS_PER_THREAD"));
        let most = acc.limits().max_threads_per_workgroup;
        assert_eq!(
            Some(shape.workgroup_size),
            wanted("AMP_WORKGROUP_SIZE").map(|w| w.min(most))
        );
        return run_every_kernel();
    }
    if common::on_native() {
        // The native accelerator has no launch shape: its own batches.
        return run_every_kernel();
    }
    for (threads, items) in SHAPES {
        let (threads, items) = (threads.to_string(), items.to_string());
        common::run_child(
            NAME,
            &[
                ("AMP_WORKGROUP_SIZE", threads.as_str()),
                ("AMP_ITEMS_PER_THREAD", items.as_str()),
            ],
            &[],
        );
    }
    Ok(())
}

#[test]
fn the_default_shape_is_the_devices() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let Some(shape) = acc.launch_shape() else {
        assert!(acc.is_native());
        return Ok(());
    };
    let gpu = acc.device_type() != amp::DeviceType::Cpu
        || std::env::var("AMP_SIMULATE_DISCRETE").is_ok_and(|v| v == "1");
    if std::env::var_os("AMP_WORKGROUP_SIZE").is_none() {
        assert_eq!(shape.workgroup_size, if gpu { 256 } else { 64 });
    }
    if std::env::var_os("AMP_ITEMS_PER_THREAD").is_none() {
        assert_eq!(shape.items_per_thread, 4);
    }
    Ok(())
}
