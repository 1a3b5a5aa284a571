//! Device functions in the compiler, without the macros: calls inlined in every position the
//! kernel language allows (conditions of `while`, the right side of `&&`, inside loops, nested
//! calls with early returns) produce modules `spirv-val` accepts, and the rules (recursion, the
//! standalone check of a device function, the analyses seeing through calls) hold.

mod common;
use amp_spirv::{DeviceFnSource, Options};
use common::assert_valid;

/// Device functions at the kernel's module.
fn helpers(sources: &[&str]) -> Options {
    let device_fns = sources
        .iter()
        .map(|s| DeviceFnSource::new(&[], syn::parse_str(s).expect("a function")))
        .collect();
    Options {
        device_fns,
        ..Options::default()
    }
}

fn compile(kernel: &str, options: &Options) -> Result<amp_spirv::CompiledKernel, String> {
    let func: syn::ItemFn = syn::parse_str(kernel).expect("a function");
    amp_spirv::compile_with(&func, options).map_err(|d| d.to_string())
}

const FIND: &str = "fn find(v: ArrayView<i32, 1>, x: i32) -> i32 {
    for i in 0..v.extent()[0] {
        let mut k = 0;
        while k < 2 {
            if v[i] == x && k == 1 { return i as i32; }
            k += 1;
        }
    }
    -1
}";
const POSITIVE: &str = "fn positive(x: i32) -> bool { if x > 0 { return true; } false }";
const TWICE: &str = "fn twice(x: i32) -> i32 { let mut y = x; for _ in 0..1 { y += positive(x) as i32 * x; if y > 100 { return 100; } } y }";

#[test]
fn calls_in_every_position_validate() {
    let options = helpers(&[FIND, POSITIVE, TWICE]);
    let kernel = "fn k(idx: Index<1>, v: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
        let mut n = 0;
        while positive(10 - n) && find(v, n) != -1 { n += 1; }
        for j in 0..4 { if positive(j) || positive(twice(find(v, j))) { n += twice(j); } }
        out[idx] = if positive(v[idx]) { twice(twice(v[idx])) } else { find(v, v[idx]) } + n;
    }";
    let compiled = compile(kernel, &options).expect("compiles");
    assert_valid(&compiled.spirv);
}

#[test]
fn missing_device_fns_are_found_transitively() {
    let kernel: syn::ItemFn = syn::parse_str(
        "fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) { out[idx] = util::twice(min(1, 2)); }",
    )
    .unwrap();
    let (path, _) = amp_spirv::missing_device_fn(&kernel, &[]).expect("one is missing");
    assert_eq!(path, ["util", "twice"]);
    let twice = DeviceFnSource::new(&["util"], syn::parse_str(TWICE).unwrap());
    let (path, _) =
        amp_spirv::missing_device_fn(&kernel, std::slice::from_ref(&twice)).expect("positive");
    // `positive(x)` in `util::twice` is `util::positive` from the kernel's module.
    assert_eq!(path, ["util", "positive"]);
    let positive = DeviceFnSource::new(&["util"], syn::parse_str(POSITIVE).unwrap());
    assert!(amp_spirv::missing_device_fn(&kernel, &[twice, positive]).is_none());
}

#[test]
fn callee_paths_are_relative_to_the_callers_module() {
    let path = |module: &[&str], call: &str| {
        let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        amp_spirv::callee_path(&module, &syn::parse_str(call).unwrap())
    };
    assert_eq!(path(&["a", "b"], "super::f"), ["a", "f"]);
    assert_eq!(path(&["a"], "self::g::f"), ["a", "g", "f"]);
    assert_eq!(path(&[], "super::f"), ["super", "f"]);
    assert_eq!(path(&["super"], "super::f"), ["super", "super", "f"]);
    assert_eq!(path(&["a"], "crate::b::f"), ["crate", "b", "f"]);
}

#[test]
fn recursion_through_helpers_is_an_error_naming_the_cycle() {
    let options = helpers(&[
        "fn ping(n: u32) -> u32 { if n == 0 { return 0; } pong(n - 1) }",
        "fn pong(n: u32) -> u32 { ping(n) + 1 }",
    ]);
    let err = compile(
        "fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { out[idx] = pong(3); }",
        &options,
    )
    .expect_err("recursion");
    assert!(
        err.contains("`pong` -> `ping` -> `pong` form a cycle"),
        "{err}"
    );
}

#[test]
fn a_device_fn_is_checked_on_its_own() {
    let check = |src: &str| amp_spirv::check_device_fn(&syn::parse_str(src).unwrap());
    assert!(check("fn f(v: &ArrayView<f32, 2>, i: usize) -> f32 { v[[i, 0]] * 2.0 }").is_ok());
    // Calls to other device functions are checked where a kernel uses them.
    assert!(check("fn f(x: f32) -> f32 { g(x) + 1.0 }").is_ok());
    let err = check("fn f(x: f32) -> f32 { f(x) }")
        .unwrap_err()
        .to_string();
    assert!(err.contains("`f` calls itself"), "{err}");
    let err = check("fn f(x: f32) -> i32 { x }").unwrap_err().to_string();
    assert!(
        err.contains("in the value of `f`: expected `i32`, found `f32`"),
        "{err}"
    );
    let err = check("fn f(x: f32) -> f32 { return 1; }")
        .unwrap_err()
        .to_string();
    assert!(err.contains("in this `return`"), "{err}");
    let err = check("fn f(t: TiledIndex<4>) {}").unwrap_err().to_string();
    assert!(err.contains("cannot take a `TiledIndex`"), "{err}");
    let err = check("fn f<T>(x: T) {}").unwrap_err().to_string();
    assert!(err.contains("needs a bound"), "{err}");
}

#[test]
fn the_race_analysis_sees_through_calls() {
    let options = helpers(&["fn put(out: ArrayViewMut<i32, 1>, i: usize, x: i32) { out[i] = x; }"]);
    let racy = compile(
        "fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) { put(out, 0, 1); }",
        &options,
    )
    .expect("compiles");
    assert!(
        racy.warnings
            .iter()
            .any(|w| w.lint.name() == "write_conflict"),
        "{:?}",
        racy.warnings
    );
    let own = compile(
        "fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) { put(out, idx[0], 1); }",
        &options,
    )
    .expect("compiles");
    assert!(own.warnings.is_empty(), "{:?}", own.warnings);
}
