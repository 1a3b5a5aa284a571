//! A reproducer kept for investigation: lavapipe (Mesa 22.3) computes this kernel wrong where
//! the native accelerator computes it right. It is the single-pass scan's first form: thread 0
//! of each tile looks back over earlier blocks in a `while` loop (with a polling loop nested in
//! it) inside `if l == 0`, inside a tile-uniform loop that holds barriers. With 0 polls, a tile
//! of block 2 leaves most of its outputs unwritten, as if its threads met different barriers.
//! Replacing that `while` with an `if` (one step per outer iteration) makes it right, which
//! is the form the library's scan uses (`src/algorithms/lookback.rs`). Whether the SPIR-V
//! (valid by `spirv-val`) or the driver is at fault is not known yet: a GPU run, or lavapipe
//! with the loop-limit watch off, would tell. Ignored in normal runs (it fails on lavapipe):
//! `AMP_DEVICE=vulkan cargo test --test device repro:: -- --ignored --nocapture`.

use amp::prelude::*;

#[kernel(amp, unchecked, allow(write_conflict))]
#[allow(clippy::too_many_arguments)]
fn scan_single_pass<const ITEMS: usize>(
    t: TiledIndex<256>,
    input: ArrayView<u32, 1>,
    output: ArrayViewMut<u32, 1>,
    status: ArrayViewMut<u32, 1>,
    aggregates: ArrayViewMut<u32, 1>,
    prefixes: ArrayViewMut<u32, 1>,
    exclusive: u32,
    polls: u32,
    staged: u32,
) {
    #[tile_static]
    let mut staging: [u32; 4224];
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
    if staged == 1 {
        for k in 0..ITEMS {
            let i = base + k * 256 + l;
            let j = k * 256 + l;
            staging[j + j / 32] = if i < n { input[i] } else { 0u32 };
        }
        t.barrier.wait();
        for k in 0..ITEMS {
            let j = l * ITEMS + k;
            total += staging[j + j / 32];
        }
    } else {
        for i in start..end {
            total += input[i];
        }
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
    if staged == 1 {
        for k in 0..ITEMS {
            let j = l * ITEMS + k;
            let x = staging[j + j / 32];
            if exclusive == 1 {
                staging[j + j / 32] = run;
                run += x;
            } else {
                run += x;
                staging[j + j / 32] = run;
            }
        }
        t.barrier.wait();
        for k in 0..ITEMS {
            let i = base + k * 256 + l;
            let j = k * 256 + l;
            if i < n {
                output[i] = staging[j + j / 32];
            }
        }
    } else {
        for i in start..end {
            let x = input[i];
            if exclusive == 1 {
                output[i] = run;
                run += x;
            } else {
                run += x;
                output[i] = run;
            }
        }
    }
}

fn run(n: usize, polls: u32) -> usize {
    let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let mut out = vec![0u32; n];
    let blocks = n.div_ceil(8192);
    let mut status = vec![0u32; blocks + 1];
    let mut agg = vec![0u32; blocks];
    let mut pre = vec![0u32; blocks];
    {
        let iv = ArrayView::new([n], &input).unwrap();
        let mut ov = ArrayViewMut::new([n], &mut out).unwrap();
        let mut sv = ArrayViewMut::new([blocks + 1], &mut status).unwrap();
        let mut av = ArrayViewMut::new([blocks], &mut agg).unwrap();
        let mut pv = ArrayViewMut::new([blocks], &mut pre).unwrap();
        parallel_for_each(Extent::new([blocks * 256]).tile::<256>(), unsafe {
            scan_single_pass::<32>(&iv, &mut ov, &mut sv, &mut av, &mut pv, 0, polls, 0)
        })
        .unwrap();
    }
    let mut run = 0u32;
    let mut bad = 0;
    for i in 0..n {
        run = run.wrapping_add(input[i]);
        if out[i] != run {
            bad += 1;
        }
    }
    bad
}

#[test]
#[ignore = "a reproducer of a wrong result on lavapipe, under investigation (see the module's comment)"]
fn a_look_back_loop_in_thread_zeros_branch_of_a_barrier_loop() {
    for (n, polls) in [(20480usize, 0u32), (20480, 64), (69664, 64)] {
        assert_eq!(run(n, polls), 0, "elements wrong of {n} with {polls} polls");
    }
}
