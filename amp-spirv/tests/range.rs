//! The range analysis in the generated code: array indices proven in range are not clamped
//! (`UMin`), buffer index components proven below the extent are not compared, and indices it
//! cannot prove keep their clamp or check. Every module still passes `spirv-val` (see
//! `validate.rs` for the validator; here the modules are also checked with it).

mod common;

const OP_EXT_INST: u32 = 12;
const OP_ULESS_THAN: u32 = 176;
const GLSL_UMIN: u32 = 38;
/// Unsigned compares of a checked kernel's failure report (index components past the rank).
const REPORT_COMPARES: usize = 3;

/// The instructions of a module after its header, as (opcode, operands) pairs.
fn instructions(words: &[u32]) -> Vec<(u32, &[u32])> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        out.push((words[at] & 0xffff, &words[at + 1..at + count]));
        at += count.max(1);
    }
    out
}

/// `UMin` clamps in the module.
fn clamps(words: &[u32]) -> usize {
    instructions(words)
        .iter()
        .filter(|(op, rest)| *op == OP_EXT_INST && rest.get(3) == Some(&GLSL_UMIN))
        .count()
}

/// Unsigned compares in the module (bounds checks, loop tests, the domain guard).
fn compares(words: &[u32]) -> usize {
    instructions(words)
        .iter()
        .filter(|(op, _)| *op == OP_ULESS_THAN)
        .count()
}

fn compile(source: &str) -> Vec<u32> {
    compile_with(source, false)
}

fn compile_with(source: &str, unchecked: bool) -> Vec<u32> {
    let func: syn::ItemFn = syn::parse_str(source).expect("a function");
    let options = amp_spirv::Options {
        unchecked,
        ..Default::default()
    };
    let words = amp_spirv::compile_with(&func, &options)
        .unwrap_or_else(|d| panic!("{d:?}"))
        .spirv;
    common::assert_valid(&words);
    words
}

#[test]
fn tile_local_and_constant_loops_index_tile_static_without_clamps() {
    let words = compile(amp_test_support::MATMUL_TILED);
    assert_eq!(clamps(&words), 0);
}

#[test]
fn literal_tiles_and_arithmetic_on_bounds() {
    let words = compile(
        "fn k(t: TiledIndex<8, 4>, out: &mut Array<u32, 2>) {
            #[tile_static]
            let mut sh: [u32; 32];
            sh[t.local[0] * 4 + t.local[1]] = 1;
            for j in 0..4 {
                sh[(t.local[0] + j) % 32] += 1;
                sh[(t.local[1] & 7) + 24] += 1;
                sh[min(t.local[0], 40)] += 1;
            }
            out[t.global] = sh[t.local[0] / 2];
        }",
    );
    // The one `UMin` is the `min` call itself.
    assert_eq!(clamps(&words), 1);
}

#[test]
fn unproven_indices_keep_their_clamps() {
    let words = compile(
        "fn k(t: TiledIndex<8>, data: &Array<u32, 1>, out: &mut Array<u32, 1>) {
            #[tile_static]
            let mut sh: [u32; 8];
            let mut s = 1;
            sh[t.local[0]] = 0;
            sh[t.local[0] + 1] = 0;          // up to 8: clamped
            sh[data[t.global] as usize] = 0; // anything: clamped
            sh[s] = 0;                       // assigned local: clamped
            s += 1;
            for j in 0..=8 {
                sh[j] += 1;                  // up to 8: clamped
            }
            let mut k = 0;
            while k < 8 {
                sh[k] += 1;                  // a while loop proves nothing: clamped
                k += 1;
            }
            out[t.global] = sh[s];
        }",
    );
    assert_eq!(clamps(&words), 6);
}

/// The simple matrix product: the loop bound is `a`'s extent, the other indices come from
/// the thread's index.
const SIMPLE_MM: &str =
    "fn mm(idx: Index<2>, a: &Array<f32, 2>, b: &Array<f32, 2>, c: &mut Array<f32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}";

/// `<` compares a kernel whose loops are watched for a device's loop limit has besides its
/// own: each watched loop's test, made before the loop and again at the end of every
/// iteration.
fn watch_compares(loops: usize) -> usize {
    loops
}

#[test]
fn loop_bound_by_extent_drops_that_dimension_of_the_check() {
    let checked = compile(SIMPLE_MM);
    let unchecked = compile_with(SIMPLE_MM, true);
    // Unchecked: the domain guard and the loop test. Checked adds a's row, b's row and
    // column, and c's two dimensions (`k < a.extent()[1]` needs no compare), and the three
    // of a failure report's rank padding at thread exit.
    assert_eq!(compares(&unchecked), 2 + watch_compares(1));
    assert_eq!(
        compares(&checked),
        2 + 1 + 2 + 2 + REPORT_COMPARES + watch_compares(1)
    );
}

#[test]
fn fully_proven_buffer_access_is_unchecked() {
    let words = compile(
        "fn k(idx: Index<1>, a: &Array<u32, 1>, out: &mut Array<u32, 1>) {
            let mut s = 0;
            for i in 0..a.extent()[0] {
                s += a[i];
            }
            let n = out.extent()[0];
            for j in 0..n {
                out[j] = s;
            }
        }",
    );
    // The domain guard and two loop tests (and the report's); no access is compared.
    assert_eq!(compares(&words), 3 + REPORT_COMPARES + watch_compares(2));
}

#[test]
fn a_chunk_clamped_to_the_extent_with_min_is_proven() {
    // One thread per chunk of `chunk` elements, its end clamped to the extent: `a[i]` can
    // never fail, whatever the chunk's start. `b[i]` (another buffer's extent) keeps its check.
    let chunked = "fn k(idx: Index<1>, a: ArrayView<u32, 1>, b: ArrayView<u32, 1>,
                        out: &mut Array<u32, 1>, chunk: u32) {
            let n = a.extent()[0];
            let start = idx[0] * chunk as usize;
            let end = min(start + chunk as usize, n);
            let mut s = 0u32;
            for i in start..end {
                s += a[i];
            }
            for i in start..min(a.extent()[0], start + 4) {
                s += a[i] + b[i];
            }
            out[idx] = s;
        }";
    let checked = compile(chunked);
    let unchecked = compile_with(chunked, true);
    // Only `b[i]` and `out[idx]` are compared (the latter folds away where the launch's
    // specialization says `out` covers the domain).
    assert_eq!(
        compares(&checked),
        compares(&unchecked) + 2 + REPORT_COMPARES
    );
}

const OP_SPEC_CONSTANT: u32 = 50;
const OP_DECORATE: u32 = 71;
const OP_LOGICAL_OR: u32 = 166;
const DECORATION_SPEC_ID: u32 = 1;

/// The `SpecId`s of the module's integer specialization constants, sorted.
fn spec_ids(words: &[u32]) -> Vec<u32> {
    let insts = instructions(words);
    let ids_of: Vec<u32> = insts
        .iter()
        .filter(|(op, _)| *op == OP_SPEC_CONSTANT)
        .map(|(_, rest)| rest[1])
        .collect();
    let mut ids: Vec<u32> = insts
        .iter()
        .filter(|(op, rest)| {
            *op == OP_DECORATE && rest[1] == DECORATION_SPEC_ID && ids_of.contains(&rest[0])
        })
        .map(|(_, rest)| rest[2])
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn thread_index_components_are_covered_by_the_layout_specialization() {
    let checked = compile(SIMPLE_MM);
    // a's row, b's column and both of c's dimensions come from the thread's index: their
    // compares are or-ed with "the buffer covers the domain"; b's row (`k`) is compared alone.
    let ors = instructions(&checked)
        .iter()
        .filter(|(op, _)| *op == OP_LOGICAL_OR)
        .count();
    assert_eq!(ors, 4);
    // The workgroup size x, y, z the runtime chooses; one layout-facts constant per buffer, at
    // its binding, checked or not; and the device's loop limit: the loop over `k` is watched.
    let base = amp_spirv::LAYOUT_SPEC_ID_BASE;
    let limit = amp_spirv::abi::spec_id::LOOP_LIMIT;
    let expected = [0, 1, 2, base, base + 1, base + 2, limit];
    assert_eq!(spec_ids(&checked), expected);
    assert_eq!(spec_ids(&compile_with(SIMPLE_MM, true)), expected);
}

#[test]
fn other_ranks_and_shifted_indices_are_compared() {
    // A rank-1 view in a rank-2 domain, and an index past the thread's own: no covering.
    let words = compile(
        "fn k(idx: Index<2>, row: &Array<f32, 1>, a: &Array<f32, 1>, out: &mut Array<f32, 2>) {
            out[idx] = row[idx[1]] + a[idx[0] + 1];
        }",
    );
    let ors = instructions(&words)
        .iter()
        .filter(|(op, _)| *op == OP_LOGICAL_OR)
        .count();
    // Out's two dimensions, and the quad form's test of a quad (`out` is its view): in one
    // row, or `out`'s rows follow each other.
    assert_eq!(ors, 3, "only out's two dimensions and its quads");
}

#[test]
fn an_offset_taken_back_is_the_thread_index_again() {
    // `i - 1` after `let i = idx[0] + 1;` is `idx[0]`, covered by the domain like it; `i` and
    // `i + 1` stay compared. The same for `j`, and `(idx[1] + 2) - 2` written out.
    let words = compile(
        "fn k(idx: Index<2>, a: &Array<f32, 2>, out: &mut Array<f32, 2>) {
            let (i, j) = (idx[0] + 1, idx[1] + 1);
            out[[i - 1, j - 1]] = a[[i - 1, j - 1]] + a[[i + 1, (idx[1] + 2) - 2]];
        }",
    );
    let ors = instructions(&words)
        .iter()
        .filter(|(op, _)| *op == OP_LOGICAL_OR)
        .count();
    assert_eq!(
        ors, 5,
        "out's two components, a's first access, a's second column"
    );
}
