//! Atomics (C++ AMP chapter 6) on views, arrays and `tile_static` memory, on the device.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

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

// ----- f32 atomics: `atomic_fetch_add` (VK_EXT_shader_atomic_float) and `atomic_exchange` -----

/// Threads in a launch of `f32` atomics (a multiple of every tile size below).
const FLOAT_THREADS: usize = 4096;
/// Bins the threads add into.
const FLOAT_BINS: usize = 8;

/// The value thread `i` adds: a positive multiple of 0.25, so every partial sum of a bin
/// (below 2^20 quarters) is exact in `f32` and the result does not depend on the order of the
/// adds.
fn quarter(i: usize) -> f32 {
    (i % 1000 + 1) as f32 * 0.25
}

/// The bins on the CPU, summed in `f64` (exact, as on the device).
fn quarter_bins() -> Vec<f32> {
    let mut bins = vec![0f64; FLOAT_BINS];
    for i in 0..FLOAT_THREADS {
        bins[i % FLOAT_BINS] += quarter(i) as f64;
    }
    bins.into_iter().map(|b| b as f32).collect()
}

/// Runs `launch`; on a device without `shaderBufferFloat32AtomicAdd` it must fail with
/// `MissingCapability` naming the feature, and `false` says the results are not to be checked.
fn float_add_ran(launch: Result<(), amp::Error>, feature: &str) -> Result<bool, amp::Error> {
    if Accelerator::default()?.supports_float_atomic_add() {
        launch?;
        return Ok(true);
    }
    match launch {
        Err(amp::Error::MissingCapability { capability, .. }) if capability == feature => Ok(false),
        other => panic!("expected MissingCapability({feature}), got {other:?}"),
    }
}

#[kernel(amp)]
fn add_f32_view(idx: Index<1>, values: ArrayView<f32, 1>, bins: ArrayViewMut<f32, 1>) {
    atomic_fetch_add(&mut bins[idx[0] % 8], values[idx]);
}

/// Thousands of threads add into 8 `f32` bins of a view.
#[test]
fn f32_add_into_view_bins() -> Result<(), amp::Error> {
    let values: Vec<f32> = (0..FLOAT_THREADS).map(quarter).collect();
    let mut bins = vec![0f32; FLOAT_BINS];
    let launch = {
        let v = ArrayView::new([FLOAT_THREADS], &values)?;
        let mut b = ArrayViewMut::new([FLOAT_BINS], &mut bins)?;
        parallel_for_each(v.extent(), add_f32_view(&v, &mut b))
    };
    if float_add_ran(launch, "shaderBufferFloat32AtomicAdd")? {
        assert_eq!(bins, quarter_bins());
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn add_f32_array(idx: Index<1>, bins: &mut Array<f32, 1>, olds: &mut Array<f32, 1>) {
    olds[idx] = atomic_fetch_add(&mut bins[idx[0] % 8], (idx[0] % 1000 + 1) as f32 * 0.25);
}

/// The same sums into an `Array`. The old values a bin returns are its partial sums: sorted,
/// each is the previous one plus the value of the thread that got the previous one.
#[test]
fn f32_add_into_array_bins_returns_partial_sums() -> Result<(), amp::Error> {
    let mut bins = Array::<f32, 1>::new([FLOAT_BINS])?;
    let mut olds = Array::<f32, 1>::new([FLOAT_THREADS])?;
    let launch = parallel_for_each(
        Extent::new([FLOAT_THREADS]),
        add_f32_array(&mut bins, &mut olds),
    );
    if float_add_ran(launch, "shaderBufferFloat32AtomicAdd")? {
        let totals = bins.to_vec()?;
        assert_eq!(totals, quarter_bins());
        let olds = olds.to_vec()?;
        for (bin, &total) in totals.iter().enumerate() {
            let mut order: Vec<usize> = (bin..FLOAT_THREADS).step_by(FLOAT_BINS).collect();
            order.sort_by(|&a, &b| olds[a].total_cmp(&olds[b]));
            let mut sum = 0f32;
            for &i in &order {
                assert_eq!(olds[i], sum, "bin {bin}, thread {i}");
                sum += quarter(i);
            }
            assert_eq!(sum, total);
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn add_f32_tile_static(t: TiledIndex<256>, values: ArrayView<f32, 1>, bins: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut local: [f32; 8];
    if t.local[0] < 8 {
        local[t.local[0]] = 0.0;
    }
    t.barrier.wait();
    atomic_fetch_add(&mut local[t.global[0] % 8], values[t.global]);
    t.barrier.wait();
    if t.local[0] < 8 {
        atomic_fetch_add(&mut bins[t.local[0]], local[t.local[0]]);
    }
}

/// Per-tile bins in `tile_static` memory, merged into the result with atomics.
#[test]
fn f32_add_into_tile_static_bins() -> Result<(), amp::Error> {
    let values: Vec<f32> = (0..FLOAT_THREADS).map(quarter).collect();
    let mut bins = vec![0f32; FLOAT_BINS];
    let launch = {
        let v = ArrayView::new([FLOAT_THREADS], &values)?;
        let mut b = ArrayViewMut::new([FLOAT_BINS], &mut bins)?;
        parallel_for_each(v.extent().tile::<256>(), add_f32_tile_static(&v, &mut b))
    };
    let device = Accelerator::default()?;
    if device.supports_float_atomic_add() {
        let shared_add = "shaderSharedFloat32AtomicAdd";
        match launch {
            Err(amp::Error::MissingCapability { capability, .. }) if capability == shared_add => {}
            other => {
                other?;
                assert_eq!(bins, quarter_bins());
            }
        }
    } else {
        assert!(matches!(launch, Err(amp::Error::MissingCapability { .. })));
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn exchange_f32(idx: Index<1>, slot: ArrayViewMut<f32, 1>, old: ArrayViewMut<f32, 1>) {
    old[idx] = atomic_exchange(&mut slot[0], idx[0] as f32 + 0.5);
}

/// Every thread swaps its value into one `f32` slot: the old values and the final one are the
/// initial value and every thread's value, each exactly once.
#[test]
fn f32_exchange_passes_every_value_on_once() -> Result<(), amp::Error> {
    let n = 1000;
    let mut slot = vec![-7.25f32];
    let mut old = vec![0f32; n];
    {
        let mut s = ArrayViewMut::new([1], &mut slot)?;
        let mut o = ArrayViewMut::new([n], &mut old)?;
        parallel_for_each(Extent::new([n]), exchange_f32(&mut s, &mut o))?;
    }
    let mut seen: Vec<f32> = old.iter().copied().chain(slot).collect();
    seen.sort_by(f32::total_cmp);
    let mut expected: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
    expected.push(-7.25);
    expected.sort_by(f32::total_cmp);
    assert_eq!(seen, expected);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn exchange_f32_tile_static(
    t: TiledIndex<64>,
    old: ArrayViewMut<f32, 1>,
    last: ArrayViewMut<f32, 1>,
) {
    #[tile_static]
    let mut slot: [f32; 1];
    if t.local[0] == 0 {
        slot[0] = -1.0;
    }
    t.barrier.wait();
    old[t.global] = atomic_exchange(&mut slot[0], t.local[0] as f32);
    t.barrier.wait();
    if t.local[0] == 0 {
        last[t.tile] = slot[0];
    }
}

/// `atomic_exchange` on `tile_static` memory: per tile, the old values and the last one are
/// -1 and the 64 local indices.
#[test]
fn f32_exchange_in_tile_static_memory() -> Result<(), amp::Error> {
    let tiles = 4;
    let mut old = vec![0f32; tiles * 64];
    let mut last = vec![0f32; tiles];
    {
        let mut o = ArrayViewMut::new([old.len()], &mut old)?;
        let mut l = ArrayViewMut::new([tiles], &mut last)?;
        parallel_for_each(
            o.extent().tile::<64>(),
            exchange_f32_tile_static(&mut o, &mut l),
        )?;
    }
    let mut expected: Vec<f32> = (0..64).map(|i| i as f32).collect();
    expected.push(-1.0);
    expected.sort_by(f32::total_cmp);
    for tile in 0..tiles {
        let mut seen = old[tile * 64..tile * 64 + 64].to_vec();
        seen.push(last[tile]);
        seen.sort_by(f32::total_cmp);
        assert_eq!(seen, expected, "tile {tile}");
    }
    assert_validation_clean();
    Ok(())
}

// `out[[tile, local]]` is unique per thread, which the analysis does not see through the
// branches.
#[kernel(amp, allow(write_conflict))]
fn tile_static_ops(t: TiledIndex<64>, v: ArrayView<i32, 1>, out: ArrayViewMut<i32, 2>) {
    #[tile_static]
    let mut acc: [i32; 10];
    #[tile_static]
    let mut bits: [u32; 3];
    if t.local[0] == 0 {
        acc = [0, 10_000, i32::MAX, i32::MIN, 1000, 0, 0, 0, 0, 0];
        bits = [u32::MAX, 0, 0];
    }
    t.barrier.wait();
    let x = v[t.global];
    let l = t.local[0] as u32;
    atomic_fetch_add(&mut acc[0], x);
    atomic_fetch_sub(&mut acc[1], x);
    atomic_fetch_min(&mut acc[2], x);
    atomic_fetch_max(&mut acc[3], x);
    atomic_fetch_dec(&mut acc[4]);
    atomic_exchange(&mut acc[5], 7);
    atomic_fetch_and(&mut bits[0], !(1u32 << (l % 32)));
    atomic_fetch_or(&mut bits[1], 1u32 << (l % 32));
    atomic_fetch_xor(&mut bits[2], 1u32 << (l % 32));
    // One thread's compare-exchange finds 0 and stores its index + 1; the others fail.
    let mut expected = 0;
    let won = atomic_compare_exchange(&mut acc[6], &mut expected, t.local[0] as i32 + 1);
    if won {
        atomic_fetch_add(&mut acc[7], 1);
    }
    // The old values come back: 64 increments return 0 ..= 63 in some order, so the largest
    // is 63 whatever the order.
    let k = atomic_fetch_add(&mut acc[8], 1);
    atomic_fetch_max(&mut acc[9], k);
    t.barrier.wait();
    if t.local[0] < 10 {
        out[[t.tile[0], t.local[0]]] = acc[t.local[0]];
    } else if t.local[0] < 13 {
        out[[t.tile[0], t.local[0]]] = bits[t.local[0] - 10] as i32;
    }
}

/// Every read-modify-write operation on `tile_static` memory (natively plain
/// read-modify-writes: a tile's threads run one at a time), with every thread of the tile on
/// the same element, and compare-exchange electing exactly one thread.
#[test]
fn every_operation_on_tile_static_memory() -> Result<(), amp::Error> {
    let tiles = 3usize;
    let v: Vec<i32> = (0..64 * tiles as i32).map(|i| i * 37 % 101 - 50).collect();
    let mut out = vec![0i32; tiles * 13];
    {
        let vv = ArrayView::new([v.len()], &v)?;
        let mut ov = ArrayViewMut::new([tiles, 13], &mut out)?;
        parallel_for_each(
            Extent::new([v.len()]).tile::<64>(),
            tile_static_ops(&vv, &mut ov),
        )?;
    }
    for t in 0..tiles {
        let xs = &v[t * 64..(t + 1) * 64];
        let sum = xs.iter().fold(0i32, |s, &x| s.wrapping_add(x));
        let row = &out[t * 13..(t + 1) * 13];
        assert_eq!(row[0], sum, "tile {t}: add");
        assert_eq!(row[1], 10_000i32.wrapping_sub(sum), "tile {t}: sub");
        assert_eq!(row[2], *xs.iter().min().unwrap(), "tile {t}: min");
        assert_eq!(row[3], *xs.iter().max().unwrap(), "tile {t}: max");
        assert_eq!(row[4], 1000 - 64, "tile {t}: dec");
        assert_eq!(row[5], 7, "tile {t}: exchange");
        assert!(
            (1..=64).contains(&row[6]),
            "tile {t}: compare-exchange stored {}",
            row[6]
        );
        assert_eq!(row[7], 1, "tile {t}: exactly one compare-exchange succeeds");
        assert_eq!(row[8], 64, "tile {t}: add");
        assert_eq!(row[9], 63, "tile {t}: the old values an add returns");
        // 64 threads, bits modulo 32: each bit cleared / set twice, toggled twice.
        assert_eq!(&row[10..], [0, -1, 0], "tile {t}: and, or, xor");
    }
    assert_validation_clean();
    Ok(())
}
