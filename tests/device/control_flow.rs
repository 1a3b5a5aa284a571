//! `match`, loop labels and `loop` with `break value` in kernels compute what the same Rust
//! computes on the host: each body is a device function, whose host copy is the reference.

use amp::prelude::*;

const LIMIT: i32 = 1000;

/// `match` as an expression: literals, negative literals, ranges of every kind, `|`, constants,
/// `T::MIN`/`T::MAX`, guards and bindings (`mut` and `@`).
#[amp::device]
fn classify(x: i32, y: i32) -> i32 {
    const SEVEN: i32 = 7;
    match x {
        0 => 100,
        -1 | 1 => 101,
        SEVEN => 107,
        LIMIT => 108,
        2..=6 => x * 3,
        8..16 if y > 0 => 200 + y % 5,
        8..16 => 300,
        i32::MIN..=-1000 => -5,
        n @ 16..=64 if n % 2 == 0 => n / 2,
        mut n @ (17 | 19 | 23) => {
            n = n.wrapping_add(y);
            n
        }
        65.. => {
            let r = x % 9;
            r - 4
        }
        n => n.wrapping_mul(y),
    }
}

/// `match` on `u32` and `usize` (ranges up to `MAX`), on `bool`, and as a statement that
/// assigns.
#[amp::device]
fn unsigned_and_bool(x: u32, flag: bool) -> u32 {
    let mut acc = match x {
        0 => 1u32,
        1..=9 => 2,
        10..=u32::MAX => 3,
    };
    match flag {
        true => acc += 10,
        false => acc *= 7,
    }
    match (x as usize) % 4 {
        0 => acc += 100,
        1 | 2 => {}
        _ => acc ^= 0xff,
    }
    let big = match x as usize {
        0..=255 => 0u32,
        256.. => 1,
    };
    acc + big
}

/// Labelled `break` and `continue` across two and three loops of every kind, and a
/// `continue 'outer` out of a `while` in a `for`.
#[amp::device]
fn labelled(x: u32, y: u32) -> u32 {
    let mut acc = 0u32;
    'rows: for i in 0..16u32 {
        let mut j = 0u32;
        'cols: while j < 16 {
            j += 1;
            if (i * j) % (x % 7 + 2) == 0 {
                continue 'cols;
            }
            for k in 0..8u32 {
                if k == y % 8 {
                    continue 'cols;
                }
                if i + j + k == x % 40 {
                    continue 'rows;
                }
                if acc > 500 + y % 300 {
                    break 'rows;
                }
                acc += i ^ j ^ k;
            }
            if j + i == y % 20 {
                break 'cols;
            }
        }
        acc = acc.wrapping_add(i);
    }
    let mut n = 0u32;
    'search: loop {
        let mut m = 0u32;
        loop {
            m += 1;
            if (n * 31 + m * 17) % 97 == x % 97 {
                break 'search;
            }
            if m > 12 {
                break;
            }
        }
        n += 1;
        if n > 40 {
            break 'search;
        }
    }
    acc.wrapping_mul(3).wrapping_add(n)
}

/// `loop` as a value: `break value`, also from nested loops by label, and `return` from loops
/// in a device function. (`'outer: loop { ..; break 0; }` is the labelled-block idiom: it
/// never loops, on purpose.)
#[amp::device]
#[allow(clippy::never_loop)]
fn loop_values(x: u32) -> u32 {
    let mut i = 0u32;
    let first_square_above = loop {
        if i * i > x % 5000 {
            break i;
        }
        i += 1;
    };
    let pair = 'outer: loop {
        for a in 1..20u32 {
            for b in a..20u32 {
                if a * b == x % 200 + 1 {
                    break 'outer a * 100 + b;
                }
            }
        }
        break 0;
    };
    let mut k = 0u32;
    let doubled = loop {
        k += 1;
        let v = match k % 3 {
            0 => k * 2,
            _ => continue,
        };
        if v > x % 50 {
            break v;
        }
    };
    first_square_above * 1_000_000 + pair * 100 + doubled + early(x)
}

/// `let` without a type or a value, settled by the assignments (rayon-demo's n-body writes
/// `let (speed_limit, attract_power);`).
#[amp::device]
fn untyped_lets(x: u32) -> u32 {
    let (speed_limit, attract_power);
    let mut scale;
    if x % 3 == 0 {
        speed_limit = 1.5;
        attract_power = 2;
        scale = (x as f32) * 0.25;
    } else {
        speed_limit = 4.0f32;
        attract_power = 3u32;
        scale = 1.0;
    }
    scale += speed_limit;
    (scale as u32).wrapping_mul(attract_power)
}

#[amp::device]
fn early(x: u32) -> u32 {
    for i in 0..10u32 {
        let mut j = 0u32;
        while j < 10 {
            if i * 10 + j == x % 150 {
                return i + j;
            }
            j += 1;
        }
    }
    7
}

// Each thread writes its own five consecutive elements, which the race checker proves.
#[kernel(amp)]
fn control_flow_kernel(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    b: ArrayView<i32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    let i = idx[0] * 5;
    out[[i]] = classify(x, y) as u32;
    out[[i + 1]] = unsigned_and_bool(x as u32, y > 0);
    out[[i + 2]] = labelled(x as u32, y as u32);
    out[[i + 3]] = loop_values(x as u32);
    out[[i + 4]] = untyped_lets(x as u32);
}

fn host(x: i32, y: i32) -> [u32; 5] {
    [
        classify(x, y) as u32,
        unsigned_and_bool(x as u32, y > 0),
        labelled(x as u32, y as u32),
        loop_values(x as u32),
        untyped_lets(x as u32),
    ]
}

#[test]
fn match_labels_and_loop_values_compute_what_rust_computes() -> Result<(), amp::Error> {
    let mut a: Vec<i32> = (-70..300).collect();
    a.extend([i32::MIN, i32::MAX, -1000, -999, LIMIT, 1 << 20, 65_535]);
    let mut state = 0x2545_f491u32;
    for _ in 0..600 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        a.push(state as i32);
    }
    let b: Vec<i32> = a
        .iter()
        .enumerate()
        .map(|(i, &x)| x.wrapping_mul(2_654_435_761u32 as i32) ^ (i as i32 * 7 - 300))
        .collect();
    let n = a.len();
    let mut out = vec![0u32; 5 * n];
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut ov = ArrayViewMut::new([5 * n], &mut out)?;
        parallel_for_each(av.extent(), control_flow_kernel(&av, &bv, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..n {
        assert_eq!(
            out[5 * i..5 * i + 5],
            host(a[i], b[i]),
            "x = {}, y = {}",
            a[i],
            b[i]
        );
    }
    crate::common::assert_validation_clean();
    Ok(())
}
