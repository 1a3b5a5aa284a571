//! Atomics (C++ AMP chapter 6) on views, arrays and `tile_static` memory, on the device.
use amp::prelude::*;

fn assert_validation_clean() {
    if std::env::var("AMP_VALIDATION").is_ok_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
}

#[kernel(amp)]
fn count_1(t: TiledIndex<1>, v: ArrayViewMut<u32, 1>) {
    atomic_fetch_inc(&mut v[t.tile]);
}

#[kernel(amp)]
fn count_2(t: TiledIndex<2>, v: ArrayViewMut<u32, 1>) {
    atomic_fetch_inc(&mut v[t.tile]);
}

#[kernel(amp)]
fn count_1024(t: TiledIndex<1024>, v: &mut Array<u32, 1>) {
    atomic_fetch_add(&mut v[t.tile], 1u32);
}

/// C++ AMP's thread count check: every tile's entry ends up equal to the tile size.
#[test]
fn every_thread_counts_once() -> Result<(), amp::Error> {
    let mut v = vec![0u32; 65535];
    {
        let mut view = ArrayViewMut::new([65535], &mut v)?;
        parallel_for_each(Extent::new([65535]).tile::<1>(), count_1(&mut view))?;
    }
    assert!(v.iter().all(|&n| n == 1));

    let mut v = vec![0u32; 65535];
    {
        let mut view = ArrayViewMut::new([65535], &mut v)?;
        parallel_for_each(Extent::new([2 * 65535]).tile::<2>(), count_2(&mut view))?;
    }
    assert!(v.iter().all(|&n| n == 2));

    let mut a = Array::<u32, 1>::new([65535])?;
    parallel_for_each(
        Extent::new([1024 * 65535]).tile::<1024>(),
        count_1024(&mut a),
    )?;
    assert!(a.to_vec()?.iter().all(|&n| n == 1024));
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn histogram(t: TiledIndex<256>, data: ArrayView<u32, 1>, bins: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut local: [u32; 256];
    local[t.local[0]] = 0;
    t.barrier.wait();
    let bin = data[t.global] % 256;
    atomic_fetch_add(&mut local[bin as usize], 1);
    t.barrier.wait();
    let n = local[t.local[0]];
    if n > 0 {
        atomic_fetch_add(&mut bins[t.local[0]], n);
    }
}

/// A 256-bin histogram: per-tile bins in `tile_static` memory, merged into the result.
#[test]
fn histogram_matches_the_cpu() -> Result<(), amp::Error> {
    let data: Vec<u32> = (0..256u32 * 97)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 9)
        .collect();
    let mut bins = vec![0u32; 256];
    {
        let d = ArrayView::new([data.len()], &data)?;
        let mut b = ArrayViewMut::new([256], &mut bins)?;
        parallel_for_each(d.extent().tile::<256>(), histogram(&d, &mut b))?;
    }
    let mut cpu = vec![0u32; 256];
    for x in &data {
        cpu[(x % 256) as usize] += 1;
    }
    assert_eq!(bins, cpu);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn set_even(idx: Index<1>, v: ArrayViewMut<i32, 1>, seen: ArrayViewMut<i32, 1>) {
    if idx[0] % 2 == 0 {
        let mut expected = idx[0] as i32;
        if atomic_compare_exchange(&mut v[idx], &mut expected, -1) {
            seen[idx] = 1;
        }
    } else {
        // Fails: the element is not 12345; `expected` receives its value.
        let mut expected = 12345;
        if !atomic_compare_exchange(&mut v[idx], &mut expected, -1) {
            seen[idx] = expected;
        }
    }
}

/// Compare-exchange sets the even entries and reports the current value on failure.
#[test]
fn compare_exchange_sets_even_entries() -> Result<(), amp::Error> {
    let mut v: Vec<i32> = (0..100).collect();
    let mut seen = vec![0; 100];
    {
        let mut vv = ArrayViewMut::new([100], &mut v)?;
        let mut sv = ArrayViewMut::new([100], &mut seen)?;
        parallel_for_each(vv.extent(), set_even(&mut vv, &mut sv))?;
    }
    for i in 0..100 {
        if i % 2 == 0 {
            assert_eq!((v[i], seen[i]), (-1, 1));
        } else {
            assert_eq!((v[i], seen[i]), (i as i32, i as i32));
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn all_ops(
    idx: Index<1>,
    ints: ArrayViewMut<i32, 1>,
    uints: ArrayViewMut<u32, 1>,
    old: ArrayViewMut<i32, 1>,
) {
    let i = idx[0] as i32;
    let a = atomic_fetch_add(&mut ints[0], i);
    let b = atomic_fetch_sub(&mut ints[1], i);
    let c = atomic_fetch_min(&mut ints[2], -i);
    let d = atomic_fetch_max(&mut ints[3], i);
    atomic_fetch_and(&mut uints[0], !(1u32 << (idx[0] as u32 % 32)));
    atomic_fetch_or(&mut uints[1], 1u32 << (idx[0] as u32 % 32));
    atomic_fetch_xor(&mut uints[2], 1u32 << (idx[0] as u32 % 32));
    atomic_fetch_dec(&mut ints[4]);
    atomic_exchange(&mut ints[5], 7);
    old[idx] = a + b + c + d;
}

/// Every read-modify-write operation, with enough threads that they collide.
#[test]
fn every_operation() -> Result<(), amp::Error> {
    let n = 64usize;
    let mut ints = vec![0, 10_000, 0, 0, 1000, 0];
    let mut uints = vec![u32::MAX, 0, 0];
    let mut old = vec![0; n];
    {
        let mut iv = ArrayViewMut::new([6], &mut ints)?;
        let mut uv = ArrayViewMut::new([3], &mut uints)?;
        let mut ov = ArrayViewMut::new([n], &mut old)?;
        parallel_for_each(Extent::new([n]), all_ops(&mut iv, &mut uv, &mut ov))?;
    }
    let sum: i32 = (0..n as i32).sum();
    assert_eq!(ints[0], sum);
    assert_eq!(ints[1], 10_000 - sum);
    assert_eq!(ints[2], -(n as i32 - 1));
    assert_eq!(ints[3], n as i32 - 1);
    assert_eq!(ints[4], 1000 - n as i32);
    assert_eq!(ints[5], 7);
    // 64 threads, bits modulo 32: each bit cleared / set twice, toggled twice.
    assert_eq!(uints, [0, u32::MAX, 0]);
    assert_validation_clean();
    Ok(())
}
