//! Memory fences inside loops that only some threads of a tile enter. lavapipe (Mesa 22.3)
//! ends the invocations that reach an `OpMemoryBarrier` there, without an error: their later
//! writes never happen and the tile's barriers pair up wrong. amp-rs runs fences as atomic
//! additions on that driver (`amp_abi::spec_id::FENCES_AS_ATOMICS`); these kernels compute the
//! same on every accelerator.

use crate::common;
use common::assert_validation_clean;

use amp::prelude::*;

/// Threads whose `local` is a multiple of 64 run `rounds` rounds of a loop holding `fence`
/// (0: global, 1: tile_static, 2: both) and count them; thread 0 then leaves a note in
/// `tile_static` memory, which every thread reads after the barrier.
#[kernel(amp)]
fn fenced_rounds(
    t: TiledIndex<256>,
    out: ArrayViewMut<u32, 1>,
    data: ArrayViewMut<u32, 1>,
    rounds: u32,
    fence: u32,
) {
    #[tile_static]
    let mut note: u32;
    let l = t.local[0];
    if l == 0 {
        note = 0;
    }
    t.barrier.wait();
    let mut mine = 1u32;
    if l % 64 == 0 {
        let mut i = 0u32;
        while i < rounds {
            data[t.global] += i;
            if fence == 0 {
                global_memory_fence(t.barrier);
            } else if fence == 1 {
                tile_static_memory_fence(t.barrier);
            } else {
                all_memory_fence(t.barrier);
            }
            mine += 1;
            i += 1;
        }
        if l == 0 {
            note = 5;
        }
    }
    t.barrier.wait();
    out[t.global] = note * 100 + mine;
}

#[test]
fn fences_in_a_loop_under_a_per_thread_branch() -> Result<(), amp::Error> {
    let n = 1024;
    for fence in 0..3u32 {
        for rounds in [0u32, 1, 3] {
            let mut out = vec![0u32; n];
            let mut data = vec![0u32; n];
            {
                let mut ov = ArrayViewMut::new([n], &mut out)?;
                let mut dv = ArrayViewMut::new([n], &mut data)?;
                parallel_for_each(
                    Extent::new([n]).tile::<256>(),
                    fenced_rounds(&mut ov, &mut dv, rounds, fence),
                )?;
            }
            for (g, (&o, &d)) in out.iter().zip(&data).enumerate() {
                let entered = g % 64 == 0;
                let mine = if entered { 1 + rounds } else { 1 };
                assert_eq!(o, 500 + mine, "thread {g}, fence {fence}, {rounds} rounds");
                let sum = if entered {
                    rounds * rounds.saturating_sub(1) / 2
                } else {
                    0
                };
                assert_eq!(d, sum, "thread {g}, fence {fence}, {rounds} rounds");
            }
        }
    }
    assert_validation_clean();
    Ok(())
}

/// Elements per thread of the look-back scan below (blocks of 8,192).
const ITEMS: usize = 32;

/// A decoupled look-back scan in the form that met the fault: thread 0 looks back over
/// earlier blocks in a `while` loop (with a polling loop nested in it, a fence in each round)
/// inside `if l == 0`, inside a tile-uniform loop that holds barriers; an inclusive scan of
/// blocks of `ITEMS * 256` elements, each thread's run read in place. With 0 polls every tile
/// sums every earlier block itself.
#[kernel(amp, unchecked, allow(write_conflict))]
fn look_back_in_a_while_loop(
    t: TiledIndex<256>,
    input: ArrayView<u32, 1>,
    output: ArrayViewMut<u32, 1>,
    status: ArrayViewMut<u32, 1>,
    aggregates: ArrayViewMut<u32, 1>,
    prefixes: ArrayViewMut<u32, 1>,
    polls: u32,
) {
    #[tile_static]
    let mut sums: [u32; 256];
    #[tile_static]
    let mut others: [u32; 256];
    #[tile_static]
    let mut block: u32;
    #[tile_static]
    let mut found: u32;
    #[tile_static]
    let mut next: u32;
    let sg = t.subgroup();
    let n = input.extent()[0];
    let l = t.local[0];
    if l == 0 {
        block = atomic_fetch_add(&mut status[0], 1u32);
    }
    t.barrier.wait();
    let b = block as usize;
    let base = b * 256 * ITEMS;
    let start = base + l * ITEMS;
    let end = if start + ITEMS < n { start + ITEMS } else { n };
    let mut total = 0u32;
    for i in start..end {
        total += input[i];
    }
    // The threads' totals: scanned within each subgroup, then the subgroups' sums.
    let before = sg.exclusive_add(total);
    let whole = sg.add(total);
    let index = sg.index() as usize;
    let count = sg.count() as usize;
    if sg.lane() == 0 {
        sums[index] = whole;
    }
    t.barrier.wait();
    // Thread 0 publishes the block's sum at once, so that later blocks need not look past
    // it, then looks back; it hands the tile a block to sum when one has published nothing.
    // Thread 0's sum of the blocks looked at so far, and the block's own sum.
    let mut prefix = 0u32;
    let mut sum = 0u32;
    let mut p = b;
    loop {
        if l == 0 {
            if p == b {
                for k in 0..count {
                    sum += sums[k];
                }
                if b == 0 {
                    prefixes[0] = sum;
                } else {
                    aggregates[b] = sum;
                }
                global_memory_fence(t.barrier);
                if b == 0 {
                    atomic_exchange(&mut status[1], 2u32);
                } else {
                    atomic_exchange(&mut status[1 + b], 1u32);
                }
            }
            let mut q = p;
            let mut unpublished = false;
            while q > 0 && !unpublished {
                let mut s = 0u32;
                let mut k = 0u32;
                while s == 0 && k < polls {
                    s = atomic_fetch_or(&mut status[q], 0u32);
                    k += 1;
                }
                global_memory_fence(t.barrier);
                if s == 0 {
                    unpublished = true;
                } else if s == 2 {
                    prefix += prefixes[q - 1];
                    q = 0;
                } else {
                    prefix += aggregates[q - 1];
                    q -= 1;
                }
            }
            found = prefix;
            next = q as u32;
        }
        t.barrier.wait();
        p = next as usize;
        if p == 0 {
            break;
        }
        // The fallback: block `p - 1` has published nothing, so the tile sums it (a whole
        // block: only the last block is partial).
        let first = (p - 1) * 256 * ITEMS;
        let mut part = 0u32;
        for k in 0..ITEMS {
            part += input[first + k * 256 + l];
        }
        others[l] = part;
        t.barrier.wait();
        if l == 0 {
            for k in 0..256 {
                prefix += others[k];
            }
        }
        p -= 1;
    }
    if l == 0 && b > 0 {
        prefixes[b] = prefix + sum;
        global_memory_fence(t.barrier);
        atomic_exchange(&mut status[1 + b], 2u32);
    }
    let mut run = found + before;
    for k in 0..index {
        run += sums[k];
    }
    for i in start..end {
        run += input[i];
        output[i] = run;
    }
}

/// The elements of an inclusive scan of `n` elements the kernel gets wrong, with `polls`
/// polls per block.
fn wrong_elements(n: usize, polls: u32) -> Result<usize, amp::Error> {
    let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let mut out = vec![0u32; n];
    let blocks = n.div_ceil(ITEMS * 256);
    let mut status = vec![0u32; blocks + 1];
    let mut agg = vec![0u32; blocks];
    let mut pre = vec![0u32; blocks];
    {
        let iv = ArrayView::new([n], &input)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let mut sv = ArrayViewMut::new([blocks + 1], &mut status)?;
        let mut av = ArrayViewMut::new([blocks], &mut agg)?;
        let mut pv = ArrayViewMut::new([blocks], &mut pre)?;
        parallel_for_each(Extent::new([blocks * 256]).tile::<256>(), unsafe {
            look_back_in_a_while_loop(&iv, &mut ov, &mut sv, &mut av, &mut pv, polls)
        })?;
    }
    let mut run = 0u32;
    let mut bad = 0;
    for (&x, &o) in input.iter().zip(&out) {
        run = run.wrapping_add(x);
        bad += usize::from(o != run);
    }
    Ok(bad)
}

#[test]
fn a_look_back_loop_with_fences_in_thread_zeros_branch() -> Result<(), amp::Error> {
    for (n, polls) in [(20480usize, 0u32), (20480, 64), (69664, 64)] {
        assert_eq!(
            wrong_elements(n, polls)?,
            0,
            "elements wrong of {n} with {polls} polls"
        );
    }
    assert_validation_clean();
    Ok(())
}
