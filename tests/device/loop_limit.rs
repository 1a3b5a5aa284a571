//! A device that ends loops by itself (lavapipe: 65,535 iterations per group of threads,
//! counted over every loop) must make the launch fail with `Error::LoopLimit`, naming the
//! loop, never return its wrong results; every other device runs the loops to their end.
//! Kernels whose loops cannot reach the limit are not watched at all.

use crate::common;
use amp::prelude::*;

/// PolyBench's covariance, as its CUDA version is written: thread `j1` loops `j2` over
/// `j1..m` and, inside, `i` over `0..n` (all ones: the sum is the number of iterations).
#[kernel(amp)]
fn triangle(idx: Index<1>, m: u32, n: u32, out: &mut Array<u32, 1>) {
    let j1 = idx[0] as u32;
    let mut total = 0u32;
    for _j2 in j1..m {
        for _i in 0..n {
            total += 1;
        }
    }
    out[idx] = total;
}

/// One `while` loop of `n` iterations per thread, summing its counter.
#[kernel(amp)]
fn flat_sum(idx: Index<1>, n: u32, out: &mut Array<u32, 1>) {
    let mut i = 0u32;
    let mut sum = 0u32;
    while i < n {
        sum += i;
        i += 1;
    }
    out[idx] = sum;
}

/// A `loop` with `continue` and `break`: counts the even numbers below `n`.
#[kernel(amp, unchecked)]
fn evens_below(idx: Index<1>, n: u32, out: ArrayViewMut<u32, 1>) {
    let mut i = 0u32;
    let mut evens = 0u32;
    loop {
        i += 1;
        if i >= n {
            break;
        }
        if i % 2 == 1 {
            continue;
        }
        evens += 1;
    }
    out[idx] = evens;
}

/// A `loop` only `return` leaves: where the device ends it, the thread ends there too.
#[kernel(amp)]
fn count_to(idx: Index<1>, n: u32, out: &mut Array<u32, 1>) {
    let mut s = 0u32;
    loop {
        s += 1;
        if s == n {
            out[idx] = s;
            return;
        }
    }
}

/// Loops of different lengths per thread, with early `break`s and divergent branches, that
/// stay below the limit: never an error.
#[kernel(amp)]
fn below_the_limit(idx: Index<1>, n: u32, out: &mut Array<u32, 1>) {
    let t = idx[0] as u32;
    let mut acc = 0u32;
    if t % 2 == 0 {
        for k in 0..n {
            if k == n - t {
                break;
            }
            acc += k;
        }
    } else {
        let mut k = 0u32;
        while k < n / 10 {
            acc += 3;
            k += 1;
        }
    }
    out[idx] = acc;
}

/// Literal bounds: 16 x 16 iterations can never reach a limit, so nothing is watched.
#[kernel(amp)]
fn short_loops(idx: Index<1>, out: &mut Array<u32, 1>) {
    let mut acc = 0u32;
    for a in 0..16u32 {
        for b in 0..16u32 {
            acc += a * b;
        }
    }
    out[idx] = acc;
}

/// A literal loop inside a data-dependent one: the inner loop keeps its plain form (drivers
/// unroll short ones; lavapipe keeps one of 1,000) and the outer loop's last back edge sees a
/// cut inside it. The outer loop may also end early by `break` after the inner one.
#[kernel(amp)]
fn literal_inside(idx: Index<1>, n: u32, stop: u32, out: &mut Array<u32, 1>) {
    let mut acc = 0u32;
    for t in 0..n {
        for k in 0..1_000u32 {
            acc += k + t;
        }
        if t == stop {
            break;
        }
    }
    out[idx] = acc;
}

/// The launch's result: `Ok` with the host's result, or, on a device with a loop limit,
/// `LoopLimit` naming a loop of this file (the line of a `for`, `while` or `loop`).
fn exact_or_loop_limit(
    acc: &Accelerator,
    got: Result<Vec<u32>, amp::Error>,
    expected: &[u32],
    must_cut: bool,
) {
    let limit = acc.limits().max_loop_iterations;
    match got {
        Ok(got) => {
            assert!(
                !(must_cut && limit.is_some()),
                "a device with a loop limit returned Ok"
            );
            assert_eq!(got, expected);
        }
        Err(amp::Error::LoopLimit {
            line,
            limit: reported,
            ..
        }) => {
            assert_eq!(
                Some(reported),
                limit,
                "only a device with a limit cuts loops"
            );
            let source = include_str!("loop_limit.rs");
            let text = source.lines().nth(line as usize - 1).unwrap_or("");
            assert!(
                ["for ", "while ", "loop "]
                    .iter()
                    .any(|k| text.trim_start().starts_with(k)),
                "line {line} is no loop: {text:?}"
            );
        }
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[test]
fn a_loop_nest_past_the_limit_is_an_error_or_exact() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let (m, n) = (256u32, 256u32);
    let mut out = Array::<u32, 1>::new_on(&acc, [m as usize])?;
    let launched = parallel_for_each(out.extent(), triangle(m, n, &mut out));
    let got = launched.and_then(|()| out.to_vec());
    let expected: Vec<u32> = (0..m).map(|j| (m - j) * n).collect();
    exact_or_loop_limit(&acc, got, &expected, true);
    common::assert_validation_clean();
    Ok(())
}

#[test]
fn a_flat_loop_past_the_limit_is_an_error_or_exact() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let mut out = Array::<u32, 1>::new_on(&acc, [1])?;
    let launched = parallel_for_each(out.extent(), flat_sum(200_000, &mut out));
    let got = launched.and_then(|()| out.to_vec());
    let expected = (0..200_000u32).fold(0u32, |s, i| s.wrapping_add(i));
    assert_eq!(expected, 2_820_030_816);
    exact_or_loop_limit(&acc, got, &[expected], true);
    common::assert_validation_clean();
    Ok(())
}

#[test]
fn a_loop_with_break_and_continue_past_the_limit_is_an_error_or_exact() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let mut host = vec![0u32; 64];
    let launched = {
        let mut out = ArrayViewMut::new([64], &mut host)?;
        // SAFETY: one thread per element of the view it writes.
        parallel_for_each(out.extent(), unsafe { evens_below(100_001, &mut out) })
            .and_then(|()| out.synchronize())
    };
    exact_or_loop_limit(&acc, launched.map(|()| host), &[50_000; 64], true);
    common::assert_validation_clean();
    Ok(())
}

#[test]
fn a_cut_inside_a_literal_loop_is_seen_by_the_loop_around_it() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let host = |n: u32, stop: u32| {
        let mut acc = 0u32;
        for t in 0..n {
            for k in 0..1_000u32 {
                acc = acc.wrapping_add(k + t);
            }
            if t == stop {
                break;
            }
        }
        acc
    };
    // Around the limit (66 outer iterations of 1,001 back edges: the cut falls in the inner
    // loop of the last one), with an early `break` right after a cut inner loop, and well
    // past it.
    let cases = (60..72u32)
        .flat_map(|n| [(n, u32::MAX), (200, n)])
        .chain([(100, u32::MAX)]);
    for (n, stop) in cases {
        let mut out = Array::<u32, 1>::new_on(&acc, [64])?;
        let launched = parallel_for_each(out.extent(), literal_inside(n, stop, &mut out));
        let got = launched.and_then(|()| out.to_vec());
        exact_or_loop_limit(&acc, got, &[host(n, stop); 64], n == 100);
    }
    let mut one = Array::<u32, 1>::new_on(&acc, [1])?;
    let call = literal_inside(1, 0, &mut one);
    assert_eq!(
        call.kernel().loop_lines.len(),
        1,
        "the literal loop is not watched"
    );
    drop(call);
    common::assert_validation_clean();
    Ok(())
}

#[test]
fn a_loop_only_return_leaves_is_an_error_or_exact() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    for (n, must_cut) in [(1_000u32, false), (200_000, true)] {
        let mut out = Array::<u32, 1>::new_on(&acc, [16])?;
        let launched = parallel_for_each(out.extent(), count_to(n, &mut out));
        let got = launched.and_then(|()| out.to_vec());
        exact_or_loop_limit(&acc, got, &[n; 16], must_cut);
    }
    common::assert_validation_clean();
    Ok(())
}

#[test]
fn loops_below_the_limit_are_exact_on_every_device() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let n = 50_000u32;
    let threads = 256usize;
    let mut out = Array::<u32, 1>::new_on(&acc, [threads])?;
    parallel_for_each(out.extent(), below_the_limit(n, &mut out))?;
    let expected: Vec<u32> = (0..threads as u32)
        .map(|t| {
            if t % 2 == 0 {
                (0..n)
                    .take_while(|&k| k != n - t)
                    .fold(0u32, |s, k| s.wrapping_add(k))
            } else {
                3 * (n / 10)
            }
        })
        .collect();
    assert_eq!(out.to_vec()?, expected);
    common::assert_validation_clean();
    Ok(())
}

#[test]
fn only_loops_that_could_reach_a_limit_are_watched() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let mut out = Array::<u32, 1>::new_on(&acc, [8])?;
    let extent = out.extent();
    let call = short_loops(&mut out);
    assert!(call.kernel().loop_lines.is_empty());
    parallel_for_each(extent, call)?;
    let expected = (0..16u32)
        .flat_map(|a| (0..16u32).map(move |b| a * b))
        .sum::<u32>();
    assert_eq!(out.to_vec()?, vec![expected; 8]);
    let call = triangle(1, 1, &mut out);
    assert_eq!(
        call.kernel().loop_lines.len(),
        1,
        "the inner loop is covered by the outer"
    );
    drop(call);
    common::assert_validation_clean();
    Ok(())
}
