//! Repeated and near-identical launches (batched: descriptor sets written with the same buffers
//! are reused within a batch): these launches must still do all their work, and any change
//! (data, buffers, scalars, grid, kernel, a copy in between, a buffer destroyed and another
//! created in its place) must be seen.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

// Unchecked: a checked launch binds a fresh out-of-bounds report buffer each time, so it is
// never the same launch twice.
#[kernel(amp, unchecked)]
fn add_to(idx: Index<1>, step: u32, a: &mut Array<u32, 1>) {
    a[idx] += step;
}

#[kernel(amp, unchecked)]
fn double(idx: Index<1>, a: &mut Array<u32, 1>) {
    a[idx] *= 2;
}

/// [`add_to`] for the test that counts plans alone: a device keeps a few plans per kernel,
/// and the other tests' launches of `add_to` on other threads could evict this one's.
#[kernel(amp, unchecked)]
fn add_counted(idx: Index<1>, step: u32, a: &mut Array<u32, 1>) {
    a[idx] += step;
}

#[test]
fn repeated_identical_launches_all_run() -> Result<(), amp::Error> {
    let mut a = Array::from_slice([37], &[0u32; 37])?;
    for _ in 0..5 {
        // SAFETY: one thread per element of `a`.
        parallel_for_each(a.extent(), unsafe { add_to(3, &mut a) })?;
    }
    assert_eq!(a.to_vec()?, vec![15u32; 37]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn changed_scalar_kernel_or_grid_is_recorded_again() -> Result<(), amp::Error> {
    let mut a = Array::from_slice([100], &[1u32; 100])?;
    // SAFETY (every launch here): one thread per element of `a`, or of its first half.
    unsafe {
        parallel_for_each(a.extent(), add_to(1, &mut a))?; // 2
        parallel_for_each(a.extent(), add_to(10, &mut a))?; // 12
        parallel_for_each(a.extent(), double(&mut a))?; // 24
        parallel_for_each(a.extent(), add_to(10, &mut a))?; // 34
                                                            // Half the domain: the other half keeps 34.
        parallel_for_each(Extent::new([50]), add_to(10, &mut a))?;
        parallel_for_each(Extent::new([50]), add_to(10, &mut a))?;
    }
    let v = a.to_vec()?;
    assert_eq!(&v[..50], &[54u32; 50][..]);
    assert_eq!(&v[50..], &[34u32; 50][..]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn host_writes_between_identical_launches_are_seen() -> Result<(), amp::Error> {
    let mut a = Array::from_slice([64], &[0u32; 64])?;
    // SAFETY: one thread per element of `a`.
    parallel_for_each(a.extent(), unsafe { add_to(1, &mut a) })?;
    // A copy on the same (default) view in between, then the same launch again.
    a.copy_from_slice(&[100u32; 64])?;
    // SAFETY: one thread per element of `a`.
    parallel_for_each(a.extent(), unsafe { add_to(1, &mut a) })?;
    assert_eq!(a.to_vec()?, vec![101u32; 64]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn a_buffer_replaced_between_identical_launches_is_bound() -> Result<(), amp::Error> {
    // Same size every round, so the new buffer may well get the old one's handle.
    for round in 0..4u32 {
        let mut a = Array::from_slice([256], &vec![round; 256])?;
        // SAFETY: one thread per element of `a`.
        parallel_for_each(a.extent(), unsafe { add_to(7, &mut a) })?;
        // SAFETY: one thread per element of `a`.
        parallel_for_each(a.extent(), unsafe { add_to(7, &mut a) })?;
        assert_eq!(a.to_vec()?, vec![round + 14; 256], "round {round}");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn add_checked(idx: Index<1>, step: u32, a: &mut Array<u32, 1>) {
    a[idx] += step;
}

#[test]
fn checked_and_unchecked_launches_interleave() -> Result<(), amp::Error> {
    let mut a = Array::from_slice([16], &[0u32; 16])?;
    for _ in 0..3 {
        // SAFETY: one thread per element of `a`.
        parallel_for_each(a.extent(), unsafe { add_to(1, &mut a) })?;
        parallel_for_each(a.extent(), add_checked(10, &mut a))?;
        parallel_for_each(a.extent(), add_checked(10, &mut a))?;
    }
    assert_eq!(a.to_vec()?, vec![63u32; 16]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn views_alternate_between_two_arrays() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let view = acc.create_view()?;
    let mut a = Array::from_slice([10], &[0u32; 10])?;
    let mut b = Array::from_slice([10], &[0u32; 10])?;
    for _ in 0..3 {
        // SAFETY: one thread per element of `a`.
        parallel_for_each_on(&view, a.extent(), unsafe { add_to(1, &mut a) })?;
        // SAFETY: one thread per element of `a`.
        parallel_for_each_on(&view, b.extent(), unsafe { add_to(2, &mut b) })?;
        // SAFETY: one thread per element of `a`.
        parallel_for_each_on(&view, b.extent(), unsafe { add_to(2, &mut b) })?;
    }
    assert_eq!(a.to_vec()?, vec![3u32; 10]);
    assert_eq!(b.to_vec()?, vec![12u32; 10]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn a_repeated_launch_reuses_its_plan() -> Result<(), amp::Error> {
    common::vulkan_only!("launch plans are what a Vulkan launch encodes");
    // Plans are counted per thread: the launches below are this test's own.
    let mut a = Array::from_slice([300], &[0u32; 300])?;
    let mut b = Array::from_slice([300], &[0u32; 300])?;
    // SAFETY: one thread per element of `a`.
    parallel_for_each(a.extent(), unsafe { add_counted(1, &mut a) })?;
    let (built, reused) = amp::launch_plan_counts();
    for _ in 0..10 {
        // SAFETY: one thread per element of `a`.
        parallel_for_each(a.extent(), unsafe { add_counted(1, &mut a) })?;
    }
    // Another array of the same layout: the same plan.
    // SAFETY: one thread per element of `a`.
    parallel_for_each(b.extent(), unsafe { add_counted(1, &mut b) })?;
    assert_eq!(amp::launch_plan_counts(), (built, reused + 11));
    // A new scalar, a new domain, another kernel: new plans, each reused the next time.
    // SAFETY: one thread per element of `a`.
    parallel_for_each(a.extent(), unsafe { add_counted(2, &mut a) })?;
    // SAFETY: one thread per element of `a`.
    parallel_for_each(Extent::new([100]), unsafe { add_counted(1, &mut a) })?;
    // SAFETY: one thread per element of `a`.
    parallel_for_each(a.extent(), unsafe { double(&mut a) })?;
    assert_eq!(amp::launch_plan_counts(), (built + 3, reused + 11));
    // SAFETY: one thread per element of `a`.
    parallel_for_each(a.extent(), unsafe { add_counted(2, &mut a) })?;
    // SAFETY: one thread per element of `a`.
    parallel_for_each(Extent::new([100]), unsafe { add_counted(1, &mut a) })?;
    // SAFETY: one thread per element of `a`.
    parallel_for_each(a.extent(), unsafe { double(&mut a) })?;
    assert_eq!(amp::launch_plan_counts(), (built + 3, reused + 14));
    let v = a.to_vec()?;
    // 11 + 2, +1 on the first 100, doubled; +2, +1 on the first 100, doubled.
    assert_eq!(&v[..100], &[((14 * 2) + 3) * 2; 100][..]);
    assert_eq!(&v[100..], &[((13 * 2) + 2) * 2; 200][..]);
    assert_eq!(b.to_vec()?, vec![1u32; 300]);
    // Many repeated launches (several batches) on one plan.
    for _ in 0..500 {
        // SAFETY: one thread per element of `a`.
        parallel_for_each(b.extent(), unsafe { add_counted(1, &mut b) })?;
    }
    assert_eq!(b.to_vec()?, vec![501u32; 300]);
    assert_eq!(amp::launch_plan_counts(), (built + 3, reused + 514));
    assert_validation_clean();
    Ok(())
}
