//! Subgroup operations (`t.subgroup()`), checked against a host model of every subgroup: each
//! thread writes its lane, its subgroup's index and the results of every operation; the host
//! groups the threads by (tile, subgroup), orders them by lane and computes what each result
//! must be from the inputs, for the device's own subgroup size. Tiles of 64 threads fill their
//! subgroups on every device; tiles of 40 leave a partial last subgroup where the size is 16,
//! 32 or 64 (the native accelerator's is 32).

use crate::common;
use common::{assert_validation_clean, f64_result, Rng};

use amp::prelude::*;
use std::collections::BTreeMap;

/// Results per thread of the integer kernels.
const INT_RESULTS: usize = 29;

/// Every integer operation of a subgroup on `x`, into `out[t.global * INT_RESULTS + k]`.
macro_rules! integer_kernel {
    ($name:ident, $tile:literal) => {
        #[kernel(amp, allow(write_conflict))]
        fn $name(t: TiledIndex<$tile>, x: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
            let sg = t.subgroup();
            let v = x[t.global];
            let u = v as u32;
            let base = t.global[0] * 29;
            out[base] = sg.lane() as i32;
            out[base + 1] = sg.index() as i32;
            out[base + 2] = sg.size() as i32;
            out[base + 3] = sg.count() as i32;
            out[base + 4] = if sg.elect() { 1 } else { 0 };
            out[base + 5] = if sg.all(v > -90) { 1 } else { 0 };
            out[base + 6] = if sg.any(v > 90) { 1 } else { 0 };
            let ballot = sg.ballot(v % 2 == 0);
            out[base + 7] = ballot.x as i32;
            out[base + 8] = (ballot.y | ballot.z | ballot.w) as i32;
            out[base + 9] = sg.count_true(v % 2 == 0) as i32;
            out[base + 10] = sg.exclusive_count_true(v % 2 == 0) as i32;
            out[base + 11] = sg.broadcast(v, 3);
            out[base + 12] = sg.broadcast_first(v);
            out[base + 13] = sg.shuffle(v, sg.lane() + 1);
            out[base + 14] = sg.shuffle_xor(v, 1);
            out[base + 15] = sg.shuffle_xor(v, sg.size() + 2);
            out[base + 16] = sg.add(v);
            out[base + 17] = sg.min(v);
            out[base + 18] = sg.max(v);
            out[base + 19] = sg.and(v);
            out[base + 20] = sg.or(v);
            out[base + 21] = sg.xor(v);
            out[base + 22] = sg.inclusive_add(v);
            out[base + 23] = sg.exclusive_add(v);
            out[base + 24] = sg.inclusive_min(v);
            out[base + 25] = sg.exclusive_max(v);
            out[base + 26] = sg.max(u) as i32;
            out[base + 27] = sg.exclusive_min(u) as i32;
            out[base + 28] = if sg.xor(v > 0) { 1 } else { 0 };
        }
    };
}

integer_kernel!(subgroup_ints_64, 64);
integer_kernel!(subgroup_ints_40, 40);

/// The threads of each subgroup, by (tile, subgroup index), as (lane, thread) pairs sorted by
/// lane; asserts the lanes are distinct and below the size.
fn subgroups(out: &[i32], k: usize, tile: usize) -> BTreeMap<(usize, i32), Vec<(usize, usize)>> {
    let n = out.len() / k;
    let mut groups: BTreeMap<(usize, i32), Vec<(usize, usize)>> = BTreeMap::new();
    for i in 0..n {
        let (lane, index, size) = (out[i * k], out[i * k + 1], out[i * k + 2]);
        assert!(size > 0 && (size as u32).is_power_of_two(), "size {size}");
        assert!((0..size).contains(&lane), "lane {lane} of {size}");
        groups
            .entry((i / tile, index))
            .or_default()
            .push((lane as usize, i));
    }
    for g in groups.values_mut() {
        g.sort();
        for w in g.windows(2) {
            assert_ne!(w[0].0, w[1].0, "two threads in one lane");
        }
    }
    groups
}

fn check_integers(x: &[i32], out: &[i32], tile: usize, native: bool) {
    let k = INT_RESULTS;
    let groups = subgroups(out, k, tile);
    let count = groups.keys().filter(|(t, _)| *t == 0).count() as i32;
    for members in groups.values() {
        let size = out[members[0].1 * k + 2] as usize;
        let by_lane: BTreeMap<usize, i32> = members.iter().map(|&(l, i)| (l, x[i])).collect();
        let lanes: Vec<i32> = members.iter().map(|&(_, i)| x[i]).collect();
        let even = |v: i32| v % 2 == 0;
        let ballot: u128 = members
            .iter()
            .filter(|&&(_, i)| even(x[i]))
            .map(|&(l, _)| 1u128 << l)
            .sum();
        // A lane operand names lane `l % size`; one past a partial subgroup's end is
        // unspecified on a GPU and zero natively.
        let at = |l: usize| -> Option<i32> {
            match by_lane.get(&(l % size)) {
                Some(&v) => Some(v),
                None if native => Some(0),
                None => None,
            }
        };
        for (pos, &(lane, i)) in members.iter().enumerate() {
            let r = |j: usize| out[i * k + j];
            let upto = &lanes[..=pos];
            let below = &lanes[..pos];
            assert_eq!(r(2) as usize, size);
            assert_eq!(r(3), count, "count");
            assert_eq!(r(4), i32::from(pos == 0), "elect");
            assert_eq!(r(5), i32::from(lanes.iter().all(|&v| v > -90)), "all");
            assert_eq!(r(6), i32::from(lanes.iter().any(|&v| v > 90)), "any");
            assert_eq!(r(7) as u32, ballot as u32, "ballot.x");
            assert_eq!(
                r(8) as u32,
                (ballot >> 32) as u32 | (ballot >> 64) as u32 | (ballot >> 96) as u32,
                "ballot.yzw"
            );
            assert_eq!(
                r(9),
                lanes.iter().filter(|&&v| even(v)).count() as i32,
                "count_true"
            );
            assert_eq!(
                r(10),
                below.iter().filter(|&&v| even(v)).count() as i32,
                "exclusive_count_true"
            );
            if let Some(v) = at(3) {
                assert_eq!(r(11), v, "broadcast");
            }
            assert_eq!(r(12), lanes[0], "broadcast_first");
            if let Some(v) = at(lane + 1) {
                assert_eq!(r(13), v, "shuffle");
            }
            if let Some(v) = at(lane ^ 1) {
                assert_eq!(r(14), v, "shuffle_xor 1");
            }
            if let Some(v) = at(lane ^ 2) {
                assert_eq!(r(15), v, "shuffle_xor size + 2");
            }
            let wsum = |s: &[i32]| s.iter().fold(0i32, |a, &v| a.wrapping_add(v));
            assert_eq!(r(16), wsum(&lanes), "add");
            assert_eq!(r(17), *lanes.iter().min().unwrap(), "min");
            assert_eq!(r(18), *lanes.iter().max().unwrap(), "max");
            assert_eq!(r(19), lanes.iter().fold(!0, |a, &v| a & v), "and");
            assert_eq!(r(20), lanes.iter().fold(0, |a, &v| a | v), "or");
            assert_eq!(r(21), lanes.iter().fold(0, |a, &v| a ^ v), "xor");
            assert_eq!(r(22), wsum(upto), "inclusive_add");
            assert_eq!(r(23), wsum(below), "exclusive_add");
            assert_eq!(r(24), *upto.iter().min().unwrap(), "inclusive_min");
            assert_eq!(
                r(25),
                below.iter().copied().fold(i32::MIN, Ord::max),
                "exclusive_max"
            );
            let unsigned = lanes.iter().map(|&v| v as u32);
            assert_eq!(r(26) as u32, unsigned.clone().max().unwrap(), "max of u32");
            let below_u = below.iter().map(|&v| v as u32);
            assert_eq!(
                r(27) as u32,
                below_u.fold(u32::MAX, Ord::min),
                "exclusive_min of u32"
            );
            let odd = lanes.iter().filter(|&&v| v > 0).count() % 2 == 1;
            assert_eq!(r(28), i32::from(odd), "xor of bool");
        }
    }
}

fn run_integers(tile: usize, n: usize, seed: u64) -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let x = Rng(seed).vec_i32(n, -100, 100);
    let mut out = vec![0i32; n * INT_RESULTS];
    let xv = ArrayView::new([n], &x)?;
    let mut ov = ArrayViewMut::new([out.len()], &mut out)?;
    match tile {
        64 => parallel_for_each(xv.extent().tile::<64>(), subgroup_ints_64(&xv, &mut ov))?,
        _ => parallel_for_each(xv.extent().tile::<40>(), subgroup_ints_40(&xv, &mut ov))?,
    }
    ov.synchronize()?;
    drop(ov);
    check_integers(&x, &out, tile, acc.is_native());
    assert_eq!(
        out[2] as u32,
        acc.limits().subgroup_size,
        "size() is the limit the accelerator reports"
    );
    Ok(())
}

#[test]
fn integer_operations_match_a_host_model_in_full_subgroups() -> Result<(), amp::Error> {
    run_integers(64, 64 * 6, 11)?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn integer_operations_match_a_host_model_with_a_partial_subgroup() -> Result<(), amp::Error> {
    run_integers(40, 40 * 5, 12)?;
    assert_validation_clean();
    Ok(())
}

/// Float reductions and scans: sums of small integers (exact in any order), min and max over
/// NaNs and signed zeros, and subgroups of NaNs only, which give the identity.
#[kernel(amp)]
fn subgroup_floats(t: TiledIndex<64>, x: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let sg = t.subgroup();
    let v = x[t.global];
    let base = t.global[0] * 7;
    out[base] = sg.index() as f32;
    out[base + 1] = sg.add(v);
    out[base + 2] = sg.min(v);
    out[base + 3] = sg.max(v);
    out[base + 4] = sg.inclusive_add(v);
    out[base + 5] = sg.exclusive_min(v);
    out[base + 6] = sg.inclusive_max(v);
}

#[kernel(amp)]
fn subgroup_doubles(t: TiledIndex<64>, x: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) {
    let sg = t.subgroup();
    let v = x[t.global];
    out[t.global] = sg.add(v) + sg.min(v) * 1000.0;
}

#[test]
fn float_reductions_pass_over_nan_and_sum_exactly() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let size = acc.limits().subgroup_size as usize;
    let n = 64 * 4;
    let mut rng = Rng(5);
    let mut x: Vec<f32> = (0..n).map(|_| rng.small_f32()).collect();
    // Tile 1 has NaNs in every other thread, tile 2 only NaNs, tile 3 NaN in its first thread.
    for (i, v) in x.iter_mut().enumerate() {
        if (64..128).contains(&i) && i % 2 == 0 || (128..192).contains(&i) || i == 192 {
            *v = f32::NAN;
        }
    }
    let mut out = vec![0f32; n * 7];
    let xv = ArrayView::new([n], &x)?;
    let mut ov = ArrayViewMut::new([out.len()], &mut out)?;
    parallel_for_each(xv.extent().tile::<64>(), subgroup_floats(&xv, &mut ov))?;
    ov.synchronize()?;
    drop(ov);
    let same = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
    for i in 0..n {
        // Tiles of 64 are whole subgroups of every size up to 64: the lanes are the threads of
        // one aligned block of `size` (checked by the integer tests' model on this device).
        let tile = i / 64;
        let index = out[i * 7] as usize;
        let members: Vec<usize> = (0..64)
            .map(|l| tile * 64 + l)
            .filter(|&j| out[j * 7] as usize == index)
            .collect();
        let lanes: Vec<f32> = members.iter().map(|&j| x[j]).collect();
        let pos = members.iter().position(|&j| j == i).unwrap();
        let numbers = |s: &[f32]| {
            s.iter()
                .copied()
                .filter(|v| !v.is_nan())
                .collect::<Vec<_>>()
        };
        let sum = |s: &[f32]| s.iter().copied().fold(0.0f32, |a, v| a + v);
        let r = |k: usize| out[i * 7 + k];
        assert!(
            same(r(1), sum(&lanes)),
            "add at {i}: {} vs {}",
            r(1),
            sum(&lanes)
        );
        let min = numbers(&lanes).into_iter().fold(f32::INFINITY, f32::min);
        let max = numbers(&lanes)
            .into_iter()
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(r(2), min, "min at {i}");
        assert_eq!(r(3), max, "max at {i}");
        assert!(same(r(4), sum(&lanes[..=pos])), "inclusive_add at {i}");
        let below = numbers(&lanes[..pos])
            .into_iter()
            .fold(f32::INFINITY, f32::min);
        assert_eq!(r(5), below, "exclusive_min at {i}");
        let upto = numbers(&lanes[..=pos])
            .into_iter()
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(r(6), upto, "inclusive_max at {i}");
        assert!(members.len() <= size);
    }
    assert_validation_clean();

    let xd: Vec<f64> = (0..64 * 2).map(|i| (i % 13) as f64 - 6.0).collect();
    let mut outd = vec![0f64; xd.len()];
    let xdv = ArrayView::new([xd.len()], &xd)?;
    let mut odv = ArrayViewMut::new([outd.len()], &mut outd)?;
    let launched = parallel_for_each(xdv.extent().tile::<64>(), subgroup_doubles(&xdv, &mut odv))
        .and_then(|()| odv.synchronize());
    if f64_result(launched).is_some() {
        drop(odv);
        for (i, &got) in outd.iter().enumerate() {
            let start = i / size.min(64) * size.min(64);
            let lanes = &xd[start..start + size.min(64)];
            let want = lanes.iter().sum::<f64>()
                + lanes.iter().copied().fold(f64::INFINITY, f64::min) * 1000.0;
            assert_eq!(got, want, "f64 at {i}");
        }
    }
    assert_validation_clean();
    Ok(())
}

/// A tree reduction of a tile: each subgroup sums its lanes with `shuffle_xor` (the butterfly
/// every warp reduction uses), lane 0 of each writes the subgroup's sum to `tile_static`
/// memory, and thread 0 adds the subgroups' sums: the worked example of
/// docs/kernel-language.md.
#[kernel(amp)]
fn tile_sums_by_subgroup(t: TiledIndex<256>, x: ArrayView<u32, 1>, sums: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut partial: [u32; 256];
    let sg = t.subgroup();
    let mut v = x[t.global];
    let mut offset = 1;
    while offset < sg.size() {
        v += sg.shuffle_xor(v, offset);
        offset *= 2;
    }
    if sg.lane() == 0 {
        partial[sg.index() as usize] = v;
    }
    t.barrier.wait();
    if t.local[0] == 0 {
        let mut total = 0;
        for i in 0..sg.count() as usize {
            total += partial[i];
        }
        sums[t.tile] = total;
    }
}

#[test]
fn a_butterfly_reduction_sums_each_tile() -> Result<(), amp::Error> {
    let n = 256 * 9;
    let x: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let mut sums = vec![0u32; n / 256];
    let xv = ArrayView::new([n], &x)?;
    let mut sv = ArrayViewMut::new([sums.len()], &mut sums)?;
    parallel_for_each(
        xv.extent().tile::<256>(),
        tile_sums_by_subgroup(&xv, &mut sv),
    )?;
    sv.synchronize()?;
    drop(sv);
    let want: Vec<u32> = x.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(sums, want);
    assert_validation_clean();
    Ok(())
}

/// Subgroups of a 2-D tile (12 x 16 threads: the last dimension a multiple of every subgroup
/// size up to 16, and the thread count of every size up to 64, so every subgroup is whole), in
/// a kernel whose second tile row returns before the operations (every thread of those tiles
/// returns together, so the rule holds): each thread writes its lane, its subgroup and the
/// subgroup's count of lanes, which must agree with the lanes seen.
#[kernel(amp)]
fn subgroups_of_a_2d_tile(t: TiledIndex<12, 16>, out: ArrayViewMut<u32, 2>) {
    if t.tile[0] == 1 {
        return;
    }
    let sg = t.subgroup();
    let lanes = sg.add(1u32);
    let first = sg.broadcast_first(t.local[0] as u32 * 16 + t.local[1] as u32);
    out[[t.global[0], t.global[1] * 4]] = sg.lane();
    out[[t.global[0], t.global[1] * 4 + 1]] = sg.index();
    out[[t.global[0], t.global[1] * 4 + 2]] = lanes;
    out[[t.global[0], t.global[1] * 4 + 3]] = first;
}

#[test]
fn a_2d_tile_has_whole_subgroups_and_a_returned_tile_writes_nothing() -> Result<(), amp::Error> {
    let (rows, cols) = (36, 32);
    let mut out = vec![u32::MAX; rows * cols * 4];
    let mut ov = ArrayViewMut::new([rows, cols * 4], &mut out)?;
    let domain = Extent::new([rows, cols]).tile::<12, 16>();
    parallel_for_each(domain, subgroups_of_a_2d_tile(&mut ov))?;
    ov.synchronize()?;
    drop(ov);
    let at = |r: usize, c: usize, k: usize| out[(r * cols + c) * 4 + k];
    for tile_r in 0..rows / 12 {
        for tile_c in 0..cols / 16 {
            let mut groups: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
            for lr in 0..12 {
                for lc in 0..16 {
                    let (r, c) = (tile_r * 12 + lr, tile_c * 16 + lc);
                    if tile_r == 1 {
                        assert_eq!(at(r, c, 0), u32::MAX, "a returned thread wrote");
                        continue;
                    }
                    let linear = (lr * 16 + lc) as u32;
                    groups
                        .entry(at(r, c, 1))
                        .or_default()
                        .push((at(r, c, 0), linear));
                }
            }
            let mut seen = 0;
            for (index, members) in &groups {
                let first_linear = members.iter().min_by_key(|m| m.0).unwrap().1;
                for &(lane, linear) in members {
                    let (r, c) = (
                        tile_r * 12 + linear as usize / 16,
                        tile_c * 16 + linear as usize % 16,
                    );
                    assert_eq!(
                        at(r, c, 2) as usize,
                        members.len(),
                        "lanes of subgroup {index}"
                    );
                    assert_eq!(
                        at(r, c, 3),
                        first_linear,
                        "broadcast_first in subgroup {index}"
                    );
                    assert!(lane < 128);
                }
                seen += members.len();
            }
            if tile_r != 1 {
                assert_eq!(seen, 12 * 16, "every thread in one subgroup");
            }
        }
    }
    assert_validation_clean();
    Ok(())
}
