//! The loop analysis as the compile report and the kernel's watched loops show it: which
//! loops a device's loop limit could cut, which of them the kernel watches, and what the
//! report says of each loop's trip count.

mod common;

use amp_spirv::{compile_str, CompiledKernel};

#[track_caller]
fn compile_ok(src: &str) -> CompiledKernel {
    match compile_str(src) {
        Ok(k) => k,
        Err(d) => panic!("this kernel should compile:\n{src}\nbut:\n{d}"),
    }
}

fn loop_lines(report: &str) -> Vec<&str> {
    report
        .lines()
        .filter(|l| l.trim_start().starts_with("loop"))
        .collect()
}

#[test]
fn literal_loops_that_cannot_reach_a_limit_are_not_watched() {
    let k = compile_ok(
        "fn k(idx: Index<1>, out: &mut Array<u32, 1>) {
    let mut s = 0u32;
    for a in 0..100u32 {
        for b in (0..=200u32).step_by(2) {
            s += a * b;
        }
    }
    out[idx] = s;
}",
    );
    assert!(k.loop_lines.is_empty());
    assert_eq!(
        loop_lines(&k.report),
        [
            "  loops: `for` at line 3 (100 trips), `for` at line 4 (101 trips)",
            "  loop limit (65535 iterations per thread group on lavapipe): never reach a device's loop limit",
        ]
    );
}

#[test]
fn data_dependent_loops_are_watched_and_literal_ones_inside_them_covered() {
    let k = compile_ok(
        "fn k(idx: Index<1>, n: u32, out: &mut Array<u32, 1>) {
    let mut s = 0u32;
    for a in 0..n {
        for b in 0..16u32 {
            s += a * b;
        }
    }
    let mut i = 0u32;
    while i < 8 {
        i += 1;
    }
    for c in 0..4u32 {
        s += c;
    }
    out[idx] = s + i;
}",
    );
    // The literal loop inside the watched one is covered by it; the one after is not.
    assert_eq!(k.loop_lines, [3, 9, 12]);
    assert_eq!(
        loop_lines(&k.report)[0],
        "  loops: `for` at line 3 (data-dependent trips, watched), `for` at line 4 (16 trips), \
         `while` at line 9 (unbounded, watched), `for` at line 12 (4 trips, watched)"
    );
    assert!(k.report_binding.is_some() && k.bounds_checked);
}

#[test]
fn only_the_outermost_loops_are_watched_and_a_loop_only_a_cut_can_end() {
    let k = compile_ok(
        "fn k(idx: Index<1>, m: u32, n: u32, out: &mut Array<u32, 1>) {
    let mut s = 0u32;
    for a in 0..m {
        let mut b = 0u32;
        while b < n {
            s += a * b;
            b += 1;
        }
        if s == 7 {
            loop {
                s += 1;
            }
        }
    }
    out[idx] = s;
}",
    );
    assert_eq!(k.loop_lines, [3, 10]);
}

#[test]
fn a_return_inside_a_watched_loop_leaves_its_literal_loops_watched() {
    let k = compile_ok(
        "fn k(idx: Index<1>, n: u32, out: &mut Array<u32, 1>) {
    let mut s = 0u32;
    for a in 0..n {
        for b in 0..16u32 {
            s += a * b;
        }
        if s > 100 {
            out[idx] = s;
            return;
        }
    }
    out[idx] = s;
}",
    );
    assert_eq!(k.loop_lines, [3, 4]);
}

#[test]
fn an_unchecked_kernel_with_watched_loops_has_a_report_but_checks_nothing() {
    let func: syn::ItemFn = syn::parse_str(
        "fn k(idx: Index<1>, n: u32, out: &mut Array<u32, 1>) {
    let mut s = 0u32;
    loop {
        s += 1;
        if s >= n { break; }
    }
    out[idx] = s;
}",
    )
    .expect("a function");
    let options = amp_spirv::Options {
        unchecked: true,
        ..Default::default()
    };
    let k = amp_spirv::compile_with(&func, &options).expect("it compiles");
    assert_eq!(k.loop_lines, [3]);
    assert_eq!(k.report_binding, Some(1));
    assert!(!k.bounds_checked);
}

#[test]
fn every_shape_of_watched_loop_validates() {
    // `loop` ended only by `return` (only a cut ends it otherwise), `loop` with `break`,
    // `while` with a call in its condition, `continue`, nested loops covered by the outer.
    let k = compile_ok(
        "fn k(idx: Index<1>, n: u32, v: ArrayView<u32, 1>, out: &mut Array<u32, 1>) {
    let mut s = 0u32;
    let mut i = 0u32;
    while i < n && v[[(i % 4) as usize]] != 7 {
        i += 1;
        if i % 3 == 0 {
            continue;
        }
        for j in 0..i {
            s += j;
        }
    }
    loop {
        s += 1;
        if s > n {
            break;
        }
    }
    loop {
        s += 2;
        if s > 2 * n {
            out[idx] = s;
            return;
        }
    }
}",
    );
    assert_eq!(k.loop_lines, [4, 13, 19]);
    common::assert_valid(&k.spirv);
}
