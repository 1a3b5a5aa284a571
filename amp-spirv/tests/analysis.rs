//! The analyses (barrier uniformity, races, bank conflicts) through the library API (`compile_str`, `compile_with`):
//!
//! - each warning (`tile_static_race`, `write_conflict`, `flow_dependence`, `bank_conflict`):
//!   a kernel that triggers it, checked for the lint, the message and the line it points at, and
//!   near misses that must stay silent;
//! - `allow(...)` (`Options::allow`) removes exactly the lints it names;
//! - barrier uniformity: each reason a barrier is rejected, and the uniform counterparts that
//!   are accepted;
//! - the compile report of a simple and a tiled kernel;
//! - atomics as seen by the analyses.
//!
//! Kernels are written from column 0 of their first line, so line 1 is the `fn` line.
//! Bugs found here and since fixed stay as `regression_*` tests; the known gaps that remain are
//! listed in docs/restrictions.md.

use amp_spirv::{compile_str, compile_with, CompiledKernel, Lint, Options};

// ----- helpers -----

/// Compiles a kernel that must compile.
#[track_caller]
fn compile_ok(src: &str) -> CompiledKernel {
    match compile_str(src) {
        Ok(k) => k,
        Err(d) => panic!("this kernel should compile:\n{src}\nbut:\n{d}"),
    }
}

/// Compiles a kernel with `allow(...)`.
#[track_caller]
fn compile_allowing(src: &str, allow: &[Lint]) -> CompiledKernel {
    let func: syn::ItemFn = syn::parse_str(src).expect("a function");
    let options = Options {
        allow: allow.to_vec(),
        ..Options::default()
    };
    match compile_with(&func, &options) {
        Ok(k) => k,
        Err(d) => panic!("this kernel should compile:\n{src}\nbut:\n{d}"),
    }
}

/// The warnings of a kernel as `(lint, line)` pairs, in the order reported.
fn findings(k: &CompiledKernel) -> Vec<(Lint, usize)> {
    k.warnings
        .iter()
        .map(|w| (w.lint, w.span.start().line))
        .collect()
}

/// Asserts that the kernel compiles with exactly the warnings `expected` (`(lint, line)`,
/// order-independent), each message containing `message`.
#[track_caller]
fn assert_warns(src: &str, expected: &[(Lint, usize)], message: &str) -> CompiledKernel {
    let k = compile_ok(src);
    let mut got = findings(&k);
    let mut want = expected.to_vec();
    got.sort_by_key(|(l, line)| (l.name(), *line));
    want.sort_by_key(|(l, line)| (l.name(), *line));
    assert_eq!(
        got,
        want,
        "warnings of\n{src}\n{:#?}",
        k.warnings.iter().map(|w| &w.message).collect::<Vec<_>>()
    );
    for w in &k.warnings {
        assert!(
            w.message.contains(message),
            "expected {message:?} in {:?}",
            w.message
        );
        assert!(!w.help.is_empty(), "every warning says how to fix it");
    }
    k
}

/// Asserts that the kernel compiles without any warning.
#[track_caller]
fn assert_clean(src: &str) -> CompiledKernel {
    let k = compile_ok(src);
    assert!(
        k.warnings.is_empty(),
        "no warning expected for\n{src}\ngot: {:#?}",
        k.warnings
            .iter()
            .map(|w| (w.lint.name(), w.span.start().line, &w.message))
            .collect::<Vec<_>>()
    );
    k
}

/// Asserts that the kernel is rejected with one barrier-uniformity error per entry of
/// `expected`: `(line of the barrier, reason, line of the divergence)`.
#[track_caller]
fn assert_barrier_errors(src: &str, expected: &[(usize, &str, usize)]) {
    let diags = match compile_str(src) {
        Ok(_) => panic!("this kernel should be rejected:\n{src}"),
        Err(d) => d,
    };
    let got: Vec<(usize, String)> = diags
        .iter()
        .map(|d| (d.span.start().line, d.message.clone()))
        .collect();
    assert_eq!(got.len(), expected.len(), "errors of\n{src}\ngot: {got:#?}");
    for ((line, msg), (want_line, reason, at)) in got.iter().zip(expected) {
        assert_eq!(line, want_line, "barrier line in {msg:?}");
        assert!(
            msg.starts_with(
                "this barrier is not reached by every thread of the tile: it comes under "
            ),
            "{msg:?}"
        );
        assert!(msg.contains(reason), "expected {reason:?} in {msg:?}");
        assert!(
            msg.ends_with(&format!("(line {at})")),
            "expected the divergence at line {at}: {msg:?}"
        );
    }
    for d in diags.iter() {
        let help = d.help.as_deref().unwrap_or("");
        assert!(help.contains("C++ AMP 8.1.1"), "{help:?}");
        assert!(help.contains("`t.tile`"), "{help:?}");
    }
}

const IF_REASON: &str = "an `if` whose condition differs between threads";
const WHILE_REASON: &str = "a loop whose condition differs between threads";
const FOR_REASON: &str = "a `for` loop whose range differs between threads";
const RETURN_REASON: &str = "a `return` that only some threads take";
const EXIT_REASON: &str = "a loop that some threads leave early";
const LOGIC_REASON: &str = "the right side of `&&` / `||` after a per-thread left side";

// ----- tile_static_race -----

/// C++ AMP's tile sum without its barrier: thread 0 sums slots the others may not have written.
const TILE_SUM_NO_BARRIER: &str = r#"fn tile_sum(t: TiledIndex<64>, data: ArrayView<i32, 1>, sums: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut values: [i32; 64];
    values[t.local[0]] = data[t.global];
    if t.local[0] == 0 {
        let mut total = 0;
        for i in 0..64 {
            total += values[i];
        }
        sums[t.tile] = total;
    }
}"#;

#[test]
fn tile_static_race_in_the_tile_sum_without_barrier() {
    let k = assert_warns(
        TILE_SUM_NO_BARRIER,
        &[(Lint::TileStaticRace, 8)],
        "`values` is read here at an element another thread of the tile may have written, with no barrier since the write (a data race)",
    );
    let w = &k.warnings[0];
    assert_eq!(w.lint.name(), "tile_static_race");
    assert!(w.help.contains("t.barrier.wait()"), "{}", w.help);
    // The span is the read `values[i]`, not the whole statement.
    assert_eq!(w.span.start().column, 21);
}

#[test]
fn tile_sum_with_the_barrier_is_clean() {
    let fixed = TILE_SUM_NO_BARRIER.replace(
        "values[t.local[0]] = data[t.global];",
        "values[t.local[0]] = data[t.global];\n    t.barrier.wait();",
    );
    assert_clean(&fixed);
    // A barrier with the tile_static fence is enough, too.
    assert_clean(&TILE_SUM_NO_BARRIER.replace(
        "values[t.local[0]] = data[t.global];",
        "values[t.local[0]] = data[t.global];\n    t.barrier.wait_with_tile_static_memory_fence();",
    ));
    assert_clean(&TILE_SUM_NO_BARRIER.replace(
        "values[t.local[0]] = data[t.global];",
        "values[t.local[0]] = data[t.global];\n    t.barrier.wait_with_all_memory_fence();",
    ));
}

#[test]
fn tile_static_race_needs_a_barrier_that_fences_tile_static_memory() {
    // A fence alone does not wait for the other threads; a barrier with only the global fence
    // does not order tile_static memory.
    for sync in [
        "tile_static_memory_fence(t.barrier);",
        "all_memory_fence(t.barrier);",
        "t.barrier.wait_with_global_memory_fence();",
    ] {
        let src = format!(
            "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {{
    #[tile_static] let mut s: [f32; 64];
    s[t.local[0]] = 1.0;
    {sync}
    out[t.global] = s[(t.local[0] + 1) % 64];
}}"
        );
        assert_warns(&src, &[(Lint::TileStaticRace, 5)], "`s` is read here");
    }
}

#[test]
fn reading_back_the_own_element_is_not_a_race() {
    assert_clean(
        r#"fn k(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut s: [f32; 64];
    let l = t.local[0];
    s[t.local[0]] = a[t.global];
    s[l] += 1.0;
    out[t.global] = s[l];
}"#,
    );
    // 2-D, element by element.
    assert_clean(
        r#"fn k(t: TiledIndex<8, 8>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static] let mut s: [[f32; 8]; 8];
    let (r, c) = (t.local[0], t.local[1]);
    s[r][c] = a[t.global];
    out[t.global] = s[r][c] * 2.0;
}"#,
    );
}

#[test]
fn tile_static_race_carried_around_a_loop() {
    // Written at the end of one iteration, read at another element at the start of the next.
    assert_warns(
        r#"fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut s: [f32; 64];
    let mut acc = 0.0;
    for i in 0..4 {
        acc += s[(t.local[0] + 1) % 64];
        s[t.local[0]] = acc;
    }
    out[t.global] = acc;
}"#,
        &[(Lint::TileStaticRace, 5)],
        "`s` is read here",
    );
    // With the barrier at the end of the body, each read sees the previous iteration's writes.
    assert_clean(
        r#"fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut s: [f32; 64];
    s[t.local[0]] = 0.0;
    t.barrier.wait();
    let mut acc = 0.0;
    for i in 0..4 {
        acc += s[(t.local[0] + 1) % 64];
        t.barrier.wait();
        s[t.local[0]] = acc;
        t.barrier.wait();
    }
    out[t.global] = acc;
}"#,
    );
}

#[test]
fn tile_static_race_after_a_write_in_either_branch() {
    assert_warns(
        r#"fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut s: [f32; 64];
    if t.local[0] < 32 {
        s[t.local[0]] = 1.0;
    } else {
        out[t.global] = 0.0;
    }
    out[t.global] = s[63 - t.local[0]];
}"#,
        &[(Lint::TileStaticRace, 8)],
        "`s` is read here",
    );
}

#[test]
fn reduction_with_barriers_is_clean() {
    assert_clean(
        r#"fn k(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut s: [f32; 64];
    s[t.local[0]] = a[t.global];
    t.barrier.wait();
    let mut stride = 32;
    while stride > 0 {
        if t.local[0] < stride {
            s[t.local[0]] += s[t.local[0] + stride];
        }
        t.barrier.wait();
        stride /= 2;
    }
    if t.local[0] == 0 {
        out[t.tile] = s[0];
    }
}"#,
    );
}

// ----- write_conflict -----

#[test]
fn write_conflict_at_a_constant_index() {
    let k = assert_warns(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let x = a[idx];
    out[0] = x;
}",
        &[(Lint::WriteConflict, 3)],
        "`out` is written at an index that is not proven unique per thread: several threads may write the same element, and the last one wins (an output dependence)",
    );
    assert!(k.warnings[0].help.contains("atomic or a tile reduction"));
}

#[test]
fn write_conflict_at_indices_several_threads_share() {
    for (index, rank) in [
        ("idx[0] / 2", 1),
        ("idx[0] % 4", 1),
        ("idx[0] * 0", 1),
        ("[idx[0], idx[0]]", 2),
        ("[idx[0], 0]", 2),
        ("[idx[1], idx[1]]", 2),
    ] {
        let src = format!(
            "fn k(idx: Index<{rank}>, out: ArrayViewMut<f32, {rank}>) {{\n    out[{index}] = 1.0;\n}}"
        );
        assert_warns(&src, &[(Lint::WriteConflict, 2)], "`out` is written");
    }
}

#[test]
fn writes_at_the_own_index_are_unique() {
    assert_clean(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = a[idx];
}",
    );
    // A transpose: both components, each once, in any order.
    assert_clean(
        "fn k(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    out[[idx[1], idx[0]]] = a[idx];
}",
    );
    assert_clean(
        "fn k(idx: Index<3>, out: ArrayViewMut<f32, 3>) {
    out[[idx[2], idx[0], idx[1]]] = 1.0;
}",
    );
    // Shifted by a launch-wide amount, through immutable locals, with casts.
    for index in [
        "i + 1",
        "idx[0] + s as usize",
        "idx[0] - 1",
        "idx[0] as u32 as usize",
        "j",
        "idx[0] + out.extent()[0] / 2",
    ] {
        assert_clean(&format!(
            "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, s: u32) {{
    let i = idx[0];
    let j = i + s as usize;
    out[{index}] = 1.0;
}}"
        ));
    }
    // A diagonal: one element per thread.
    assert_clean(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 2>) {
    out[[idx[0], idx[0]]] = 1.0;
}",
    );
    // Two elements per thread that no other thread writes.
    assert_clean(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 2>) {
    out[[idx[0], 0]] = 1.0;
    out[[idx[0], 1]] = out[[idx[0], 0]] + 1.0;
}",
    );
    // Rank-1 views indexed with a plain `usize`.
    assert_clean(
        "fn k(idx: Index<1>, out: &mut Array<i32, 1>) {
    out[idx[0]] = 1;
}",
    );
    // Tiled: `t.global`, under any control flow.
    assert_clean(
        "fn k(t: TiledIndex<8, 8>, out: ArrayViewMut<f32, 2>) {
    if t.local[0] == 1 {
        out[t.global] = 1.0;
    } else {
        out[[t.global[0], t.global[1]]] = 2.0;
    }
}",
    );
}

#[test]
fn two_writes_whose_elements_threads_share_conflict() {
    // Thread i's second element is thread i + 1's first.
    assert_warns(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0;
    out[idx[0] + 1] = 2.0;
}",
        &[(Lint::WriteConflict, 3)],
        "`out` is written here at another index than before in the same thread",
    );
    // A transpose pair: threads (a, b) and (b, a) both write both, unless a guard orders them.
    assert_warns(
        "fn k(idx: Index<2>, out: ArrayViewMut<f32, 2>) {
    out[[idx[0], idx[1]]] = 1.0;
    out[[idx[1], idx[0]]] = 2.0;
}",
        &[(Lint::WriteConflict, 3)],
        "`out` is written here at another index",
    );
    assert_clean(
        "fn k(idx: Index<2>, out: ArrayViewMut<f32, 2>) {
    let (i, j) = (idx[0], idx[1]);
    if j >= i {
        out[[i, j]] = 1.0;
        out[[j, i]] = 2.0;
    }
}",
    );
}

#[test]
fn a_shift_by_a_loop_variable_is_not_unique() {
    assert_warns(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    for j in 0..4 {
        out[idx[0] + j] = 1.0;
    }
}",
        &[(Lint::WriteConflict, 3)],
        "`out` is written at an index that is not proven unique per thread",
    );
}

#[test]
fn reads_of_elements_no_thread_writes_are_no_dependence() {
    // LU's update: row k and column k are never written (the guard), so reading them is safe.
    assert_clean(
        "fn k(idx: Index<2>, a: ArrayViewMut<f32, 2>, k: u32) {
    let (i, j) = (idx[0], idx[1]);
    let k = k as usize;
    if i > k && j > k {
        a[idx] -= a[[i, k]] * a[[k, j]];
    }
}",
    );
    // LU's row scale: the pivot `a[k][k]` is left of every written element.
    assert_clean(
        "fn k(idx: Index<1>, a: ArrayViewMut<f32, 2>, k: u32) {
    let k = k as usize;
    let j = idx[0] + k + 1;
    a[[k, j]] = a[[k, j]] / a[[k, k]];
}",
    );
    // Without the guard, column k is written by the threads that read it.
    assert_warns(
        "fn k(idx: Index<2>, a: ArrayViewMut<f32, 2>, k: u32) {
    let k = k as usize;
    a[idx] -= a[[idx[0], k]];
}",
        &[(Lint::FlowDependence, 3)],
        "`a` is read here at another thread's element",
    );
}

#[test]
fn a_mutated_index_is_no_longer_unique() {
    assert_warns(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let mut i = idx[0];
    i = i / 2;
    out[i] = 1.0;
}",
        &[(Lint::WriteConflict, 4)],
        "`out` is written",
    );
    // Shifted by a per-thread amount.
    assert_warns(
        "fn k(idx: Index<1>, d: ArrayView<u32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx[0] + d[idx] as usize] = 1.0;
}",
        &[(Lint::WriteConflict, 2)],
        "`out` is written",
    );
}

#[test]
fn write_per_tile_by_one_thread() {
    // `sums[t.tile]` by thread 0 of each tile: unique.
    assert_clean(
        "fn k(t: TiledIndex<64>, sums: ArrayViewMut<i32, 1>) {
    if t.local[0] == 0 {
        sums[t.tile] = 1;
    }
}",
    );
    assert_clean(
        "fn k(t: TiledIndex<8, 8>, sums: ArrayViewMut<i32, 2>) {
    if t.local[0] == 0 && t.local[1] == 3 {
        sums[t.tile] = 1;
    }
}",
    );
    // Every thread of the tile writes it.
    assert_warns(
        "fn k(t: TiledIndex<64>, sums: ArrayViewMut<i32, 1>) {
    sums[t.tile] = 1;
}",
        &[(Lint::WriteConflict, 2)],
        "`sums` is written",
    );
    // Only one of the two components pinned: a row of the tile writes it.
    assert_warns(
        "fn k(t: TiledIndex<8, 8>, sums: ArrayViewMut<i32, 2>) {
    if t.local[0] == 0 {
        sums[t.tile] = 1;
    }
}",
        &[(Lint::WriteConflict, 3)],
        "`sums` is written",
    );
    // Pinned to a per-thread value: not one thread.
    assert_warns(
        "fn k(t: TiledIndex<64>, sums: ArrayViewMut<i32, 1>) {
    if t.local[0] == t.global[0] {
        sums[t.tile] = 1;
    }
}",
        &[(Lint::WriteConflict, 3)],
        "`sums` is written",
    );
    // After the `if`, the pin no longer holds.
    assert_warns(
        "fn k(t: TiledIndex<64>, sums: ArrayViewMut<i32, 1>) {
    if t.local[0] == 0 {
        sums[t.tile] = 1;
    }
    sums[t.tile] = 2;
}",
        &[(Lint::WriteConflict, 5)],
        "`sums` is written",
    );
}

// ----- flow_dependence -----

#[test]
fn flow_dependence_of_an_in_place_stencil() {
    let k = assert_warns(
        "fn k(idx: Index<1>, data: ArrayViewMut<f32, 1>) {
    let i = idx[0];
    data[idx] = data[i + 1];
}",
        &[(Lint::FlowDependence, 3)],
        "`data` is read here at another thread's element while every thread writes its own: the value read depends on the order the threads run (a flow or anti dependence)",
    );
    assert!(k.warnings[0].help.contains("double buffering"));
    // The span is the read.
    assert_eq!(k.warnings[0].span.start().column, 16);
}

#[test]
fn flow_dependence_through_an_array_and_in_2d() {
    assert_warns(
        "fn k(idx: Index<1>, a: &mut Array<f32, 1>) {
    a[idx] = a[0];
}",
        &[(Lint::FlowDependence, 2)],
        "`a` is read here",
    );
    assert_warns(
        "fn k(idx: Index<2>, m: ArrayViewMut<f32, 2>) {
    let up = m[[idx[0] - 1, idx[1]]];
    m[idx] = up;
}",
        &[(Lint::FlowDependence, 2)],
        "`m` is read here",
    );
    // Read in a compound assignment's right side.
    assert_warns(
        "fn k(idx: Index<2>, m: ArrayViewMut<f32, 2>) {
    m[idx] += m[[idx[1], idx[0]]];
}",
        &[(Lint::FlowDependence, 2)],
        "`m` is read here",
    );
}

#[test]
fn reads_at_the_own_index_are_not_dependences() {
    assert_clean(
        "fn k(idx: Index<1>, data: ArrayViewMut<f32, 1>) {
    data[idx] = data[idx] + 1.0;
    data[idx] += 1.0;
    let x = data[[idx[0]]];
    let i = idx[0];
    data[idx] = x * data[i];
}",
    );
    assert_clean(
        "fn k(idx: Index<2>, data: &mut Array<f32, 2>) {
    data[[idx[0], idx[1]]] *= data[idx];
}",
    );
    // Neighbours of another view: double buffering.
    assert_clean(
        "fn k(idx: Index<1>, inp: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let i = idx[0];
    out[idx] = inp[i - 1] + inp[i] + inp[i + 1];
}",
    );
}

#[test]
fn no_flow_dependence_without_a_unique_write() {
    // The view is only written at a conflicting index: that is the write conflict alone.
    assert_warns(
        "fn k(idx: Index<1>, data: ArrayViewMut<f32, 1>) {
    let x = data[idx[0] + 1];
    data[0] = x;
}",
        &[(Lint::WriteConflict, 3)],
        "`data` is written",
    );
}

// ----- bank_conflict -----

const COLUMN_WALK: &str = r#"fn k(t: TiledIndex<32, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static] let mut tile: [[f32; 32]; 32];
    tile[t.local[1]][t.local[0]] = a[t.global];
    t.barrier.wait();
    out[t.global] = tile[t.local[1]][t.local[0]];
}"#;

#[test]
fn bank_conflict_walking_down_a_column() {
    let k = assert_warns(
        COLUMN_WALK,
        &[(Lint::BankConflict, 3), (Lint::BankConflict, 5)],
        "neighbouring threads access `tile` down a column: its rows are 32 elements long, so they hit the same memory bank (a bank conflict)",
    );
    assert!(
        k.warnings[0]
            .help
            .contains("declare it with rows of 33 elements"),
        "{}",
        k.warnings[0].help
    );
}

#[test]
fn bank_conflict_with_rows_of_any_multiple_of_32() {
    assert_warns(
        r#"fn k(t: TiledIndex<16, 16>, out: ArrayViewMut<f32, 2>) {
    #[tile_static] let mut tile: [[f32; 64]; 16];
    let c = t.local[1];
    tile[c][0] = 1.0;
    t.barrier.wait();
    out[t.global] = tile[0][0];
}"#,
        &[(Lint::BankConflict, 4)],
        "its rows are 64 elements long",
    );
}

#[test]
fn padded_rows_and_row_walks_have_no_bank_conflict() {
    // The fix: one element of padding per row.
    assert_clean(&COLUMN_WALK.replace("[[f32; 32]; 32]", "[[f32; 33]; 32]"));
    // Walking along a row: neighbours hit neighbouring banks.
    assert_clean(
        r#"fn k(t: TiledIndex<32, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static] let mut tile: [[f32; 32]; 32];
    tile[t.local[0]][t.local[1]] = a[t.global];
    t.barrier.wait();
    out[t.global] = tile[t.local[0]][t.local[1]];
}"#,
    );
    // Rows that are not a multiple of 32 elements.
    assert_clean(
        r#"fn k(t: TiledIndex<16, 16>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
    #[tile_static] let mut tile: [[f32; 16]; 16];
    tile[t.local[1]][t.local[0]] = a[t.global];
    t.barrier.wait();
    out[t.global] = tile[t.local[1]][t.local[0]];
}"#,
    );
    // 1-D tile_static arrays have no columns.
    assert_clean(
        r#"fn k(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut s: [f32; 64];
    s[t.local[0]] = a[t.global];
    t.barrier.wait();
    out[t.global] = s[t.local[0]];
}"#,
    );
    // Function-local 2-D arrays are private to the thread.
    assert_clean(
        r#"fn k(t: TiledIndex<32, 32>, out: ArrayViewMut<f32, 2>) {
    let mut m = [[0.0f32; 32]; 32];
    m[t.local[1]][t.local[0]] = 1.0;
    out[t.global] = m[t.local[1]][t.local[0]];
}"#,
    );
}

// ----- allow(...) -----

/// One kernel with every warning: a tile_static race (line 5), a bank conflict (line 7), a
/// write conflict (line 8) and a flow dependence (line 10).
const ALL_FOUR: &str = r#"fn k(t: TiledIndex<32, 32>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>, m: ArrayViewMut<f32, 2>) {
    #[tile_static] let mut row: [f32; 32];
    #[tile_static] let mut tile: [[f32; 32]; 32];
    row[t.local[1]] = 1.0;
    let x = row[0];
    t.barrier.wait();
    tile[t.local[1]][0] = x;
    out[[0, 0]] = x;
    m[t.global] = 1.0;
    let y = m[[t.global[1], 0]];
}"#;

#[test]
fn a_kernel_with_every_warning() {
    let k = compile_ok(ALL_FOUR);
    let mut got = findings(&k);
    got.sort_by_key(|(l, line)| (*line, l.name()));
    assert_eq!(
        got,
        [
            (Lint::TileStaticRace, 5),
            (Lint::BankConflict, 7),
            (Lint::WriteConflict, 8),
            (Lint::FlowDependence, 10),
        ]
    );
}

#[test]
fn allow_removes_exactly_the_named_lint() {
    for lint in Lint::ALL {
        let k = compile_allowing(ALL_FOUR, &[lint]);
        let mut got: Vec<Lint> = k.warnings.iter().map(|w| w.lint).collect();
        got.sort_by_key(|l| l.name());
        let mut want: Vec<Lint> = Lint::ALL.into_iter().filter(|l| *l != lint).collect();
        want.sort_by_key(|l| l.name());
        assert_eq!(got, want, "allow({})", lint.name());
        // The report lists what is left.
        assert!(
            !k.report.contains(&format!("[{}]", lint.name())),
            "{}",
            k.report
        );
        for other in &want {
            assert!(k
                .report
                .contains(&format!("warning [{}] at ", other.name())));
        }
    }
    let none = compile_allowing(ALL_FOUR, &Lint::ALL);
    assert!(none.warnings.is_empty());
    assert!(
        none.report.contains("  findings: none\n"),
        "{}",
        none.report
    );
    // The module does not depend on what is allowed.
    assert_eq!(none.spirv, compile_ok(ALL_FOUR).spirv);
}

#[test]
fn allow_of_a_lint_that_does_not_fire_changes_nothing() {
    let k = compile_allowing(COLUMN_WALK, &[Lint::WriteConflict, Lint::TileStaticRace]);
    assert_eq!(
        findings(&k),
        [(Lint::BankConflict, 3), (Lint::BankConflict, 5)]
    );
    let k = compile_allowing(COLUMN_WALK, &[Lint::BankConflict]);
    assert!(k.warnings.is_empty());
}

#[test]
fn lint_names_round_trip() {
    let names: Vec<&str> = Lint::ALL.iter().map(|l| l.name()).collect();
    assert_eq!(
        names,
        [
            "tile_static_race",
            "write_conflict",
            "flow_dependence",
            "bank_conflict"
        ]
    );
    for lint in Lint::ALL {
        assert_eq!(Lint::from_name(lint.name()), Some(lint));
    }
    assert_eq!(Lint::from_name("bank_conflicts"), None);
    assert_eq!(Lint::from_name("BankConflict"), None);
    assert_eq!(Lint::from_name(""), None);
}

// ----- barrier uniformity: rejected -----

#[test]
fn barrier_under_a_per_thread_if() {
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    if t.local[0] == 0 {
        t.barrier.wait();
    }
}",
        &[(3, IF_REASON, 2)],
    );
    // In the `else` branch, and in an `else if` chain.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>, n: u32) {
    if data[t.global] == 0 {
    } else {
        t.barrier.wait();
    }
    if n == 0 {
    } else if t.global[0] > 4 {
        t.barrier.wait_with_global_memory_fence();
    }
}",
        &[(4, IF_REASON, 2), (8, IF_REASON, 7)],
    );
    // In an `if` used as a value.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    let x = if t.local[0] == 0 { t.barrier.wait(); 1 } else { 2 };
    out[t.global] = x;
}",
        &[(2, IF_REASON, 2)],
    );
}

#[test]
fn barrier_in_a_loop_with_a_per_thread_trip_count() {
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>) {
    let mut i = 0;
    while i < data[t.global] {
        t.barrier.wait();
        i += 1;
    }
}",
        &[(4, WHILE_REASON, 3)],
    );
    // The counter becomes per-thread inside the loop.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>) {
    let mut i = 0u32;
    while i < 4 {
        t.barrier.wait();
        i += data[t.global];
    }
}",
        &[(4, WHILE_REASON, 3)],
    );
}

#[test]
fn barrier_in_a_for_over_a_per_thread_range() {
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    for i in 0..t.global[0] {
        t.barrier.wait();
    }
    for i in t.local[0]..=64 {
        t.barrier.wait_with_tile_static_memory_fence();
    }
    for i in (0..64).step_by(t.local[0] + 1) {
        t.barrier.wait();
    }
}",
        &[(3, FOR_REASON, 2), (6, FOR_REASON, 5), (9, FOR_REASON, 8)],
    );
}

#[test]
fn barrier_after_a_per_thread_return() {
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    if data[t.global] == 0 {
        return;
    }
    t.barrier.wait();
    out[t.global] = 1;
}",
        &[(5, RETURN_REASON, 2)],
    );
    // From inside a loop, and every later barrier.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    for i in 0..4 {
        if t.local[0] == i {
            return;
        }
    }
    t.barrier.wait();
    t.barrier.wait();
}",
        &[(7, RETURN_REASON, 3), (8, RETURN_REASON, 3)],
    );
}

#[test]
fn barrier_after_a_per_thread_break_in_the_same_loop() {
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>) {
    for i in 0..4u32 {
        if data[t.global] == i {
            break;
        }
        t.barrier.wait();
    }
}",
        &[(6, EXIT_REASON, 3)],
    );
    // Before the `break` in the body: the next iteration's barrier is missed.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>) {
    let mut i = 0u32;
    loop {
        t.barrier.wait();
        if data[t.global] == i {
            break;
        }
        i += 1;
    }
}",
        &[(4, EXIT_REASON, 5)],
    );
}

#[test]
fn barrier_on_the_right_of_a_short_circuit() {
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    let a = t.local[0] == 0 && { t.barrier.wait(); true };
    let b = t.local[0] == 0 || { t.barrier.wait(); true };
    out[t.global] = a as u32 + b as u32;
}",
        &[(2, LOGIC_REASON, 2), (3, LOGIC_REASON, 3)],
    );
}

#[test]
fn barrier_under_values_that_became_per_thread() {
    // A local assigned under a per-thread condition.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    let mut c = 0;
    if t.local[0] == 0 {
        c = 1;
    }
    if c == 1 {
        t.barrier.wait();
    }
}",
        &[(7, IF_REASON, 6)],
    );
    // tile_static memory read before a barrier made the other threads' writes visible.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut flag: [u32; 1];
    if t.local[0] == 0 {
        flag[0] = 1;
    }
    if flag[0] == 1 {
        t.barrier.wait();
    }
}",
        &[(7, IF_REASON, 6)],
    );
    // tile_static memory read at a per-thread index, even after a barrier.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut s: [f32; 64];
    s[t.local[0]] = 1.0;
    t.barrier.wait();
    if s[t.local[0]] > 0.0 {
        t.barrier.wait();
    }
}",
        &[(6, IF_REASON, 5)],
    );
    // A view this kernel writes, read before a barrier.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, data: ArrayViewMut<u32, 1>) {
    data[t.global] = 1;
    if data[0] == 0 {
        t.barrier.wait();
    }
}",
        &[(4, IF_REASON, 3)],
    );
    // A function-local array with one per-thread element.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    let mut a = [0usize; 2];
    a[0] = t.local[0];
    if a[1] == 0 {
        t.barrier.wait();
    }
}",
        &[(5, IF_REASON, 4)],
    );
}

#[test]
fn each_misplaced_barrier_is_reported_once() {
    // Two barriers under one `if`, and one in a loop walked twice by the analysis.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    if t.local[0] == 0 {
        t.barrier.wait();
        t.barrier.wait();
    }
    for i in 0..t.local[0] {
        t.barrier.wait();
    }
}",
        &[(3, IF_REASON, 2), (4, IF_REASON, 2), (7, FOR_REASON, 6)],
    );
}

// ----- barrier uniformity: accepted -----

#[test]
fn barriers_under_uniform_conditions() {
    let k = compile_ok(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<f32, 1>, n: u32, flag: bool) {
    if t.tile[0] == 0 { t.barrier.wait(); }
    if t.tile_origin[0] > 64 { t.barrier.wait(); }
    if t.tile_extent[0] == 64 { t.barrier.wait(); }
    if n > 3 { t.barrier.wait(); }
    if flag && n < 10 { t.barrier.wait(); }
    if TS > 8 { t.barrier.wait(); }
    if out.extent()[0] > 128 { t.barrier.wait(); }
    if data[t.tile] == 0 { t.barrier.wait(); }
    if data[0] == 1 { t.barrier.wait(); }
    let m = n * 2 + 1;
    if m % 3 == 0 { t.barrier.wait(); }
    const LIMIT: u32 = 5;
    if n < LIMIT { t.barrier.wait(); }
    let half = if n > 4 { 2 } else { 3 };
    if half == 2 { t.barrier.wait(); }
    out[t.global] = 1.0;
}",
    );
    assert!(k.warnings.is_empty());
}

#[test]
fn barriers_in_uniform_loops() {
    assert_clean(
        "fn k(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>, n: u32) {
    for i in 0..TS { t.barrier.wait(); }
    for i in 0..t.tile[0] { t.barrier.wait(); }
    for i in (0..a.extent()[0]).step_by(64) { t.barrier.wait(); }
    let mut j = 0;
    while j < n { t.barrier.wait(); j += 1; }
    let mut k = 0u32;
    loop {
        if k == n { break; }
        t.barrier.wait();
        k += 1;
    }
    out[t.global] = 1.0;
}",
    );
}

#[test]
fn barriers_after_uniform_exits_and_after_per_thread_loops() {
    // A uniform `return`.
    assert_clean(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>, n: u32) {
    if n == 0 { return; }
    t.barrier.wait();
    out[t.global] = 1.0;
}",
    );
    // After a loop that threads leave at different times: they all get there.
    assert_clean(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let mut found = 0u32;
    for i in 0..8u32 {
        if data[t.global] == i { found = i; break; }
    }
    let mut j = 0u32;
    while j < data[t.global] { j += 1; }
    t.barrier.wait();
    out[t.global] = found + j;
}",
    );
    // A per-thread `if` without barriers inside, then a barrier.
    assert_clean(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    let mut x = 0.0;
    if t.local[0] == 0 { x = 1.0; }
    t.barrier.wait();
    out[t.global] = x;
}",
    );
}

#[test]
fn tile_static_values_are_uniform_after_a_barrier() {
    assert_clean(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    #[tile_static] let mut count: u32;
    #[tile_static] let mut s: [u32; 64];
    if t.local[0] == 0 { count = data[t.tile]; }
    s[t.local[0]] = data[t.global];
    t.barrier.wait();
    if count > 0 { t.barrier.wait(); }
    if s[0] > 0 { t.barrier.wait(); }
    let mut i = 0;
    while i < count { t.barrier.wait(); i += 1; }
    out[t.global] = s[t.local[0]];
}",
    );
}

#[test]
fn the_tiled_matmul_is_accepted_without_findings() {
    assert_clean(amp_test_support::MATMUL_TILED);
}

// ----- the compile report -----

#[test]
fn report_of_a_simple_kernel() {
    let k = compile_ok(
        "fn saxpy(idx: Index<2>, x: ArrayView<f32, 2>, y: ArrayViewMut<f32, 2>, acc: &mut Array<f64, 1>, spare: &Array<u32, 3>, log: ArrayViewMut<i32, 1>, a: f32, n: i32) {
    y[idx] = a * x[idx] + y[idx];
    acc[idx[0]] += 1.0;
}",
    );
    let lines: Vec<&str> = k.report.lines().collect();
    assert_eq!(
        lines,
        [
            "kernel `saxpy`: simple, rank 2, the device's launch shape",
            "  binding 0: `x` f32, rank 2, read-only, read",
            "  binding 1: `y` f32, rank 2, writable, read and written",
            "  binding 2: `acc` f64, rank 1, writable, read and written",
            "  binding 3: `spare` u32, rank 3, read-only, unused",
            "  binding 4: `log` i32, rank 1, writable, unused",
            "  scalar `a`: f32 at push-constant byte 80",
            "  scalar `n`: i32 at push-constant byte 84",
            "  push constants: 88 bytes",
            "  capabilities: Shader, Float64, SignedZeroInfNanPreserve",
            &format!("  SPIR-V: {} words", k.spirv.len()),
            "  elements threads may share with a writer (relaxed atomics natively): acc",
            "  warning [write_conflict] at 3:5: `acc` is written at an index that is not proven unique per thread: several threads may write the same element, and the last one wins (an output dependence)",
        ],
        "{}",
        k.report
    );
    // The domain's extent (8 bytes), then each buffer's layout (extent, offset, strides:
    // 16 + 16 + 8 + 24 + 8), then the scalars.
    assert_eq!(k.push_constant_size, 88);
    assert_eq!(k.params[5].offset, 80);
    assert_eq!(k.params[6].offset, 84);
}

#[test]
fn report_of_an_integer_kernel_without_findings() {
    let k = compile_ok(
        "fn k(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = a[idx] * 2;
}",
    );
    assert_eq!(
        k.report,
        format!(
            "kernel `k`: simple, rank 1, the device's launch shape
  binding 0: `a` i32, rank 1, read-only, read
  binding 1: `out` i32, rank 1, writable, written
  push constants: 20 bytes
  capabilities: Shader
  SPIR-V: {} words
  findings: none
",
            k.spirv.len()
        )
    );
}

#[test]
fn report_of_a_tiled_kernel() {
    let k = compile_ok(
        "fn k(t: TiledIndex<16, 16>, a: ArrayView<f64, 2>, b: &mut Array<f32, 2>, s: f64) {
    #[tile_static] let mut loc: [[f32; 16]; 16];
    #[tile_static] let mut total: f64;
    loc[t.local[0]][t.local[1]] = a[t.global] as f32;
    t.barrier.wait();
    b[t.global] += loc[t.local[1]][t.local[0]] + s as f32;
    total = s;
}",
    );
    let lines: Vec<&str> = k.report.lines().collect();
    assert_eq!(
        lines,
        [
            "kernel `k`: tiled, rank 2, tiles of 16 x 16 = 256 threads",
            "  tile_static: 1032 bytes (`loc`: [[f32; 16]; 16], `total`: f64)",
            "  binding 0: `a` f64, rank 2, read-only, read",
            "  binding 1: `b` f32, rank 2, writable, read and written",
            "  scalar `s`: f64 at push-constant byte 40",
            "  push constants: 48 bytes",
            "  capabilities: Shader, Float64, SignedZeroInfNanPreserve",
            &format!("  SPIR-V: {} words", k.spirv.len()),
            "  findings: none",
        ],
        "{}",
        k.report
    );
}

#[test]
fn report_of_a_tiled_kernel_with_named_sizes_and_findings() {
    let k = compile_ok(
        "fn k(t: TiledIndex<TS, 32>, out: ArrayViewMut<u32, 2>) {
    #[tile_static] let mut s: [[u32; 32]; TS];
    s[t.local[1]][0] = 1;
    out[[0, 0]] = s[0][0];
}",
    );
    let lines: Vec<&str> = k.report.lines().collect();
    assert_eq!(lines[0], "kernel `k`: tiled, rank 2, tiles of TS x 32");
    assert_eq!(
        lines[1],
        "  tile_static: depends on constants (`s`: [[u32; 32]; TS])"
    );
    assert_eq!(
        lines[2],
        "  binding 0: `out` u32, rank 2, writable, written"
    );
    assert_eq!(lines[3], "  push constants: 24 bytes");
    assert_eq!(lines[4], "  specialization constant 3: `TS` (usize)");
    assert_eq!(lines[5], "  capabilities: Shader");
    let findings: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("  warning ["))
        .collect();
    assert_eq!(findings.len(), 3, "{}", k.report);
    assert!(findings[0].starts_with(
        "  warning [bank_conflict] at 3:5: neighbouring threads access `s` down a column"
    ));
    assert!(findings[1].starts_with("  warning [tile_static_race] at 4:19: `s` is read here"));
    assert!(findings[2].starts_with("  warning [write_conflict] at 4:5: `out` is written"));
    assert!(!k.report.contains("findings: none"));
}

#[test]
fn report_lists_allowed_findings_no_more() {
    let k = compile_allowing(TILE_SUM_NO_BARRIER, &[Lint::TileStaticRace]);
    assert!(k.report.ends_with("  findings: none\n"), "{}", k.report);
    let k = compile_ok(TILE_SUM_NO_BARRIER);
    assert!(
        k.report
            .contains("  warning [tile_static_race] at 8:22: `values` is read here"),
        "{}",
        k.report
    );
    assert!(k
        .report
        .starts_with("kernel `tile_sum`: tiled, rank 1, tiles of 64 = 64 threads\n  tile_static: 256 bytes (`values`: [i32; 64])\n"));
}

// ----- known false positives and negatives -----

/// Found by this suite, fixed in 50410c8: kept as a regression test.
#[test]
fn index_copied_into_a_variable_is_unique() {
    assert_clean(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    let i = idx;
    out[i] = 1.0;
}",
    );
    assert_clean(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    let g = t.global;
    out[g] = 1.0;
}",
    );
}

/// Found by this suite, fixed in 50410c8: kept as a regression test.
#[test]
fn pin_through_a_local() {
    assert_clean(
        "fn k(t: TiledIndex<64>, sums: ArrayViewMut<i32, 1>) {
    let l = t.local[0];
    if l == 0 {
        sums[t.tile] = 1;
    }
}",
    );
}

#[test]
fn regression_barrier_in_a_per_thread_while_condition() {
    let r = compile_str(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>) {
    let mut i = 0u32;
    while { t.barrier.wait(); i < data[t.global] } {
        i += 1;
    }
}",
    );
    assert!(r.is_err(), "the barrier in the condition must be rejected");
}

#[test]
fn regression_continue_after_the_barrier() {
    compile_ok(
        "fn k(t: TiledIndex<64>, data: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let mut x = 0u32;
    for i in 0..4u32 {
        t.barrier.wait();
        if data[t.global] == i { continue; }
        x += 1;
    }
    out[t.global] = x;
}",
    );
}

#[test]
fn regression_unique_write_into_a_higher_rank_view() {
    assert_clean(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 2>) {
    out[[idx[0], 0]] = 1.0;
}",
    );
}

#[test]
fn regression_scalar_tile_static_is_not_analysed() {
    assert_warns(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    #[tile_static] let mut flag: u32;
    if t.local[0] == 0 { flag = 1; }
    out[t.global] = flag;
}",
        &[(Lint::TileStaticRace, 4)],
        "`flag` is read here",
    );
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>) {
    #[tile_static] let mut flag: u32;
    if t.local[0] == 0 { flag = 1; }
    if flag == 1 {
        t.barrier.wait();
    }
}",
        &[(5, IF_REASON, 4)],
    );
}

#[test]
fn regression_analysis_blows_up_on_many_ifs() {
    let ifs = "if c {} ".repeat(23);
    let src = format!(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<f32, 1>, c: bool) {{
    #[tile_static] let mut s: [f32; 64];
    s[t.local[0]] = 1.0;
    {ifs}
    t.barrier.wait();
    out[t.global] = s[t.local[0]];
}}"
    );
    let start = std::time::Instant::now();
    assert_clean(&src);
    let took = start.elapsed();
    // Linear work is well under a millisecond per `if`.
    assert!(
        took < std::time::Duration::from_millis(200),
        "23 `if`s took {took:?}"
    );
}

// ----- front-end findings (met while writing docs/restrictions.md) -----

/// The messages of a kernel that must fail.
fn messages(src: &str) -> Vec<String> {
    match compile_str(src) {
        Ok(_) => panic!("this kernel should be rejected:\n{src}"),
        Err(d) => d.iter().map(|d| d.message.clone()).collect(),
    }
}

/// Found while writing docs/restrictions.md, fixed in 50410c8: kept as a regression test.
#[test]
fn rejected_tile_shapes_and_tile_static_do_not_cascade() {
    // A tile too large, then `t.global`.
    assert_eq!(
        messages(
            "fn k(t: TiledIndex<64, 64>, out: ArrayViewMut<f32, 2>) {
    out[t.global] = 1.0;
}"
        ),
        ["a tile of 4096 threads is too large: tiles have at most 1024 threads"]
    );
    // `#[tile_static]` in a simple kernel, then its uses.
    assert_eq!(
        messages(
            "fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
    #[tile_static] let mut shared: [i32; 64];
    shared[0] = 1;
    out[idx] = shared[0];
}"
        ),
        ["`#[tile_static]` is only allowed in tiled kernels"]
    );
}

// ----- atomics -----

#[test]
fn atomics_are_not_write_conflicts() {
    // A histogram: many threads hit one bin, atomically.
    assert_clean(
        "fn k(idx: Index<1>, hist: ArrayViewMut<u32, 1>, data: ArrayView<u32, 1>) {
    atomic_fetch_inc(&mut hist[data[idx] as usize]);
}",
    );
    // A tile-wide counter in tile_static memory, read after a barrier.
    assert_clean(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    #[tile_static] let mut count: [u32; 1];
    if t.local[0] == 0 { count[0] = 0; }
    t.barrier.wait();
    atomic_fetch_add(&mut count[0], 1u32);
    t.barrier.wait();
    if t.local[0] == 0 { out[t.tile] = count[0]; }
}",
    );
    // The old value an atomic returns differs between threads.
    assert_barrier_errors(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    let old = atomic_fetch_add(&mut out[0], 1u32);
    if old == 0 {
        t.barrier.wait();
    }
}",
        &[(4, IF_REASON, 3)],
    );
}

#[test]
fn regression_atomics_are_flow_dependences() {
    assert_clean(
        "fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    atomic_fetch_add(&mut out[idx], 1u32);
    atomic_fetch_add(&mut out[0], 1u32);
}",
    );
}

#[test]
fn regression_read_after_tile_static_atomic() {
    assert_warns(
        "fn k(t: TiledIndex<64>, out: ArrayViewMut<u32, 1>) {
    #[tile_static] let mut s: [u32; 1];
    atomic_fetch_add(&mut s[0], 1u32);
    let x = s[0];
    out[t.global] = x;
}",
        &[(Lint::TileStaticRace, 4)],
        "`s` is read here",
    );
}
