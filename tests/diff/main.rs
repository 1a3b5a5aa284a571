//! The differential tester: random device functions, each run through a one-line
//! kernel on the Vulkan device and natively as plain Rust on the host, compared bit for bit.
//!
//! A round generates a program of random `#[amp::device]` functions over `i32`, `u32`, `f32` and
//! `f64` (`gen.rs`: statements, `if`, the three loops with `break`/`continue`/`return`, local
//! arrays, casts, calls of generated helper functions, `let y: T;` assigned per branch, tuple
//! lets, every float method of the kernel language). Then, side by side:
//! - **device**: each test function gets a kernel `out[idx] = f(a[idx], b[idx], ..)`, compiled
//!   by `amp_spirv` with the helpers as device functions (exactly what `#[kernel(amp)]` does at
//!   build time), checked by `spirv-val` and launched over 96 inputs;
//! - **host** (the oracle): the same source text, compiled by rustc as a program of its own with
//!   release arithmetic (`-C overflow-checks=off`), run on the same inputs.
//!
//! Results must be equal bit for bit (any NaN equals any NaN: Rust leaves NaN bits open), except
//! for functions that end in a transcendental function, compared within the tolerance of
//! `gen::APPROX` (neither Rust nor Vulkan rounds those correctly). An input for which the host
//! panics (integer division by zero, `i32::MIN / -1`) has no Rust value and is skipped.
//! What else Rust leaves open the generator avoids (see `gen.rs`).
//!
//! A failure prints the seed, the function, its inputs and both results. Environment:
//! - `AMP_DIFF_FUNCTIONS=n`: test functions in all (default 160, 2 rounds; CI runs this);
//! - `AMP_DIFF_SEED=s`: replay a run (default: a random seed, printed);
//! - `AMP_DIFF_KEEP=dir`: keep each round's host program and inputs in `dir` (the program is
//!   linked against amp-native-rt: rustc's `--extern amp_native_rt=<its .rlib>`);
//! - `AMP_DIFF_STALL=s`: seconds without progress before a function counts as hung (30; a
//!   function compiles and runs in about 0.1 s).
//!
//! `AMP_DIFF_REPLAY=file cargo test --test diff replay -- --ignored --nocapture` runs
//! hand-reduced functions (see `replay`).
//! A long run: `AMP_DIFF_FUNCTIONS=10000 cargo test --release --test diff -- --nocapture`.

mod child;
#[path = "../common/mod.rs"]
mod common;
mod device;
mod gen;
mod host;
mod native_backend;
mod opaque;
mod small;
mod tuple_match;

use gen::{Check, Program, Rng, TestFn, Ty};
use std::time::Instant;

/// Inputs per test function.
const ROWS: usize = 96;
/// Test functions per round (one host program, one fresh device).
const PER_ROUND: usize = 80;

#[test]
fn device_functions_compute_what_rust_computes() {
    let total: usize = std::env::var("AMP_DIFF_FUNCTIONS")
        .ok()
        .map(|s| s.parse().expect("AMP_DIFF_FUNCTIONS is a number"))
        .unwrap_or(160);
    let seed: u64 = match std::env::var("AMP_DIFF_SEED") {
        Ok(s) => s.parse().expect("AMP_DIFF_SEED is a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    };
    eprintln!("differential tester: {total} functions, AMP_DIFF_SEED={seed}");
    let work = host::work_dir(seed);
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    let rounds = total.div_ceil(PER_ROUND);
    let device_side = |round, n, opaque, only: Option<&[usize]>| {
        child::run(&work, seed, round, n, opaque, only).unwrap_or_else(|e| panic!("{e}"))
    };
    for round in 0..rounds {
        let n = PER_ROUND.min(total - round * PER_ROUND);
        let (program, inputs) = child::round(seed, round, n);
        let started = Instant::now();
        // rustc compiles the oracle while the device runs (in a child process, see child.rs).
        let oracle = std::thread::scope(|s| {
            let host = s.spawn(|| host::run(&work, round, &program, &inputs));
            let device = device_side(round, n, false, None);
            (host.join().expect("the host side does not panic"), device)
        });
        let (host_results, device_results) = oracle;
        let host::HostResults {
            oracle: host_results,
            native: native_results,
        } = host_results.unwrap_or_else(|e| {
            panic!("seed {seed}, round {round}: the host program failed:\n{e}")
        });
        // First pass: every function as written.
        let mut mismatched: Vec<(usize, String)> = Vec::new();
        for (i, t) in program.tests.iter().enumerate() {
            stats.functions += 1;
            // The native back end against the oracle: no driver in between, so any difference
            // is a failure.
            match &native_results[i] {
                Err(e) => failures.push(report(seed, round, &program, t, &format!("native: {e}"))),
                Ok(values) => match compare(t, values, &host_results[i], &inputs[i]).2 {
                    None => stats.native += 1,
                    Some(m) => {
                        let what = format!("the native back end disagrees with Rust: {m}")
                            .replace(": device ", ": native ");
                        failures.push(report(seed, round, &program, t, &what));
                    }
                },
            }
            match &device_results[i] {
                Err(e) if e.starts_with("hung") => {
                    stats.hung += 1;
                    eprintln!("{}", report(seed, round, &program, t, e));
                }
                Err(e) => failures.push(report(seed, round, &program, t, e)),
                Ok(values) => {
                    let (compared, skipped, mismatch) =
                        compare(t, values, &host_results[i], &inputs[i]);
                    stats.compared += compared;
                    stats.skipped += skipped;
                    if let Some(m) = mismatch {
                        mismatched.push((i, m));
                    }
                }
            }
        }
        // Second pass: the mismatched ones with opaque constants. Agreement there means the
        // difference came from the driver's compile-time folding only.
        if !mismatched.is_empty() {
            let only: Vec<usize> = mismatched.iter().map(|m| m.0).collect();
            let opaque_results = device_side(round, n, true, Some(&only));
            for (i, m) in mismatched {
                let t = &program.tests[i];
                match &opaque_results[i] {
                    Ok(values) if compare(t, values, &host_results[i], &inputs[i]).2.is_none() => {
                        stats.driver_folding += 1;
                        if stats.driver_folding <= 3 {
                            eprintln!(
                                "driver folding (agrees with opaque constants): {m}\n{}",
                                gen::numbered(&t.source)
                            );
                        }
                    }
                    Ok(values) => {
                        let again = compare(t, values, &host_results[i], &inputs[i]).2;
                        let what = format!(
                            "{m}\nwith opaque constants too: {}",
                            again.unwrap_or_default()
                        );
                        failures.push(report(seed, round, &program, t, &what));
                    }
                    Err(e) if e.starts_with("hung") => {
                        // Inconclusive: counted and shown, not a failure (see child.rs).
                        stats.hung += 1;
                        let what = format!("{m}\nwith opaque constants: {e}");
                        eprintln!("{}", report(seed, round, &program, t, &what));
                    }
                    Err(e) => {
                        let what = format!("{m}\nwith opaque constants: {e}");
                        failures.push(report(seed, round, &program, t, &what));
                    }
                }
            }
        }
        eprintln!(
            "round {round}: {n} functions in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        if failures.len() >= 5 {
            break;
        }
    }
    eprintln!(
        "differential tester: {} functions, {} inputs compared, {} skipped (host panicked), \
         {} differ only through the driver's folding, {} hung in the driver, \
         {} agree natively (amp-spirv's native back end), {} failures",
        stats.functions,
        stats.compared,
        stats.skipped,
        stats.driver_folding,
        stats.hung,
        stats.native,
        failures.len()
    );
    if !failures.is_empty() {
        panic!(
            "{} of {} functions disagree with Rust (replay with AMP_DIFF_SEED={seed}):\n\n{}",
            failures.len(),
            stats.functions,
            failures.join("\n\n")
        );
    }
    if std::env::var_os("AMP_DIFF_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    common::assert_validation_clean();
}

/// The device side of a round, run by `child::run` in a process of its own (not a test: an
/// entry point, so it is ignored in normal runs).
#[test]
#[ignore = "the device-side process of device_functions_compute_what_rust_computes"]
fn device_side_child() {
    child::child_main();
}

/// Generated functions must compile for the device, in every form the generator has: a quick
/// check with no device, so that a generator change that leaves the kernel language shows here.
#[test]
fn generated_functions_compile() {
    let mut rng = Rng::new(17);
    let program = gen::program(&mut rng, "c", 60);
    let failures: Vec<String> = program
        .tests
        .iter()
        .filter_map(|t| {
            let e = device::compile(&program, t, false).err()?;
            Some(report(17, 0, &program, t, &e))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Replays hand-written functions: `AMP_DIFF_REPLAY=file` holds `#[amp::device]` functions;
/// those whose name starts with `t` are tested (on the generator's inputs for their parameter
/// types, `AMP_DIFF_SEED` as above), the others are helpers they may call. For reducing a
/// failure by hand: `AMP_DIFF_REPLAY=file cargo test --test diff replay -- --ignored
/// --nocapture` prints, per function, its first mismatch as written and with opaque
/// constants (a tool, not a test: ignored in normal runs).
#[test]
#[ignore = "a tool: set AMP_DIFF_REPLAY=file and run with --ignored"]
fn replay() {
    let path = std::env::var_os("AMP_DIFF_REPLAY").expect("AMP_DIFF_REPLAY names a file");
    let text = std::fs::read_to_string(&path).expect("the replay file");
    let file: syn::File = syn::parse_str(&text).expect("Rust functions");
    let mut program = Program {
        helpers: Vec::new(),
        tests: Vec::new(),
    };
    let ty = |t: &syn::Type| -> Ty {
        let name = quote_type(t);
        Ty::PARAMS
            .into_iter()
            .find(|p| p.name() == name)
            .unwrap_or_else(|| panic!("parameter type {name} is not one of i32, u32, f32, f64"))
    };
    for item in file.items {
        let syn::Item::Fn(f) = item else { continue };
        let name = f.sig.ident.to_string();
        let params: Vec<Ty> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(p) => ty(&p.ty),
                syn::FnArg::Receiver(_) => panic!("no methods"),
            })
            .collect();
        let ret = match &f.sig.output {
            syn::ReturnType::Type(_, t) => ty(t),
            syn::ReturnType::Default => panic!("{name} returns nothing"),
        };
        let source = format!("#[amp::device]\n{}\n", quote::ToTokens::to_token_stream(&f));
        if name.starts_with('t') {
            program.tests.push(TestFn {
                name,
                params,
                ret,
                source,
                check: Check::Exact,
            });
        } else {
            program
                .helpers
                .push(gen::Helper::new(name, params, ret, source));
        }
    }
    let seed = std::env::var("AMP_DIFF_SEED").map_or(1, |s| s.parse().unwrap());
    let mut rng = Rng::new(seed);
    let inputs = host::inputs_of(&mut rng, &program);
    let work = host::work_dir(seed);
    let acc = amp::Accelerator::default().expect("a Vulkan device");
    let host::HostResults {
        oracle: host_results,
        native: native_results,
    } = host::run(&work, 0, &program, &inputs).expect("the host program");
    let plain = device::run(&acc, &program, &inputs, false);
    let opaque = device::run(&acc, &opaque::program(&program), &inputs, true);
    for (i, t) in program.tests.iter().enumerate() {
        for (form, results) in [
            ("as written", &plain),
            ("opaque constants", &opaque),
            ("native back end", &native_results),
        ] {
            let verdict = match &results[i] {
                Err(e) => format!("device error: {e}"),
                Ok(values) => compare(t, values, &host_results[i], &inputs[i])
                    .2
                    .unwrap_or_else(|| "agrees with Rust".into()),
            };
            eprintln!("{} ({form}): {verdict}", t.name);
        }
    }
}

fn quote_type(t: &syn::Type) -> String {
    quote::ToTokens::to_token_stream(t).to_string()
}

#[derive(Default)]
struct Stats {
    native: usize,
    driver_folding: usize,
    hung: usize,
    functions: usize,
    compared: usize,
    skipped: usize,
}

/// Compares `t`'s device results with the host's: (rows compared, rows skipped because the
/// host panicked, the first mismatch).
fn compare(
    t: &TestFn,
    values: &[u64],
    host: &[Option<u64>],
    inputs: &[Vec<u64>],
) -> (usize, usize, Option<String>) {
    let (mut compared, mut skipped) = (0, 0);
    for row in 0..ROWS {
        let Some(h) = host[row] else {
            skipped += 1;
            continue;
        };
        compared += 1;
        let d = values[row];
        if !agrees(t, d, h) {
            let args: Vec<String> = t
                .params
                .iter()
                .enumerate()
                .map(|(p, &ty)| show(ty, inputs[p][row]))
                .collect();
            let m = format!(
                "{}({}): device {}, host {}",
                t.name,
                args.join(", "),
                show(t.ret, d),
                show(t.ret, h)
            );
            return (compared, skipped, Some(m));
        }
    }
    (compared, skipped, None)
}

/// Whether the device's result `d` is the host's `h` (both as bits in a `u64`).
fn agrees(t: &TestFn, d: u64, h: u64) -> bool {
    match t.ret {
        Ty::F32 => {
            let (d, h) = (
                f32::from_bits(d as u32) as f64,
                f32::from_bits(h as u32) as f64,
            );
            float_agrees(t.check, d, h, |x| (x as f32).to_bits() as i32 as i64)
        }
        Ty::F64 => {
            let (d, h) = (f64::from_bits(d), f64::from_bits(h));
            float_agrees(t.check, d, h, |x| x.to_bits() as i64)
        }
        _ => d == h,
    }
}

fn float_agrees(check: Check, d: f64, h: f64, bits: impl Fn(f64) -> i64) -> bool {
    if d.is_nan() && h.is_nan() {
        return true;
    }
    if d.to_bits() == h.to_bits() {
        return true;
    }
    match check {
        Check::Exact => false,
        Check::Approx { ulps, abs, .. } => {
            if d.is_nan() || h.is_nan() {
                return false;
            }
            if (d - h).abs() <= abs {
                return true;
            }
            // Distance in units in the last place, across zero (two's-complement ordering).
            let key = |x: f64| {
                let b = bits(x);
                if b < 0 {
                    i64::MIN - b
                } else {
                    b
                }
            };
            key(d).abs_diff(key(h)) <= ulps
        }
    }
}

fn show(ty: Ty, bits: u64) -> String {
    match ty {
        Ty::I32 => format!("{}i32", bits as u32 as i32),
        Ty::U32 => format!("{}u32", bits as u32),
        Ty::F32 => {
            let x = f32::from_bits(bits as u32);
            format!("{x:e}f32 ({:#010x})", x.to_bits())
        }
        Ty::F64 => {
            let x = f64::from_bits(bits);
            format!("{x:e}f64 ({:#018x})", x.to_bits())
        }
        Ty::Bool => format!("{}", bits != 0),
    }
}

fn report(seed: u64, round: usize, program: &Program, t: &TestFn, what: &str) -> String {
    let mut s = format!(
        "seed {seed}, round {round}, {} ({:?}):\n{what}\n{}",
        t.name,
        t.check,
        gen::numbered(&t.source)
    );
    let called: Vec<&gen::Helper> = program
        .helpers
        .iter()
        .filter(|h| program_calls(program, t, &h.name))
        .collect();
    for h in called {
        s.push_str(&gen::numbered(&h.source));
    }
    s
}

/// Whether `t` calls `name`, directly or through other helpers.
fn program_calls(program: &Program, t: &TestFn, name: &str) -> bool {
    let mut seen = vec![t.source.as_str()];
    let mut i = 0;
    while i < seen.len() {
        let src = seen[i];
        if src.contains(&format!("{name}(")) {
            return true;
        }
        for h in &program.helpers {
            if src.contains(&format!("{}(", h.name)) && !seen.contains(&h.source.as_str()) {
                seen.push(&h.source);
            }
        }
        i += 1;
    }
    false
}
