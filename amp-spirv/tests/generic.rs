//! Generic kernels and device functions in the compiler, without the macros: every instance
//! of a kernel compiles to a valid module, device functions are instantiated at their calls
//! (from a turbofish or the argument types), and an error only some instances have names them.

mod common;
use amp_spirv::{DeviceFnSource, Options, Rule};
use common::assert_valid;

fn parse(s: &str) -> syn::ItemFn {
    syn::parse_str(s).expect("a function")
}

fn with_fns(sources: &[&str]) -> Options {
    Options {
        device_fns: sources
            .iter()
            .map(|s| DeviceFnSource::new(&[], parse(s)))
            .collect(),
        ..Options::default()
    }
}

/// Compiles every instance; the labels and modules of those that compiled, or all errors.
fn compile_all(kernel: &str, options: &Options) -> Result<Vec<(String, Vec<u32>)>, String> {
    let instances = amp_spirv::instantiate(&parse(kernel)).map_err(|d| d.to_string())?;
    let mut ok = Vec::new();
    let mut results = Vec::new();
    for i in &instances {
        match amp_spirv::compile_with(&i.func, options) {
            Ok(k) => {
                ok.push((i.label(), k.spirv));
                results.push((i.label(), Default::default()));
            }
            Err(d) => results.push((i.label(), d)),
        }
    }
    let errors = amp_spirv::merge_instance_errors(results);
    if errors.is_empty() {
        Ok(ok)
    } else {
        Err(errors.to_string())
    }
}

#[test]
fn a_float_kernel_has_an_instance_per_float() {
    let kernel =
        "fn axpy<T: DeviceFloat>(idx: Index<1>, a: T, x: ArrayView<T, 1>, y: ArrayViewMut<T, 1>) {
        y[idx] = a * x[idx] + y[idx] + T::ZERO * T::ONE;
    }";
    let modules = compile_all(kernel, &Options::default()).expect("compiles");
    let labels: Vec<_> = modules.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["T = f32", "T = f64"]);
    for (_, words) in &modules {
        assert_valid(words);
    }
    assert_ne!(modules[0].1, modules[1].1);
}

#[test]
fn two_parameters_make_the_product_and_where_clauses_bound_too() {
    let kernel = "fn convert<S, D>(idx: Index<1>, src: ArrayView<S, 1>, dst: ArrayViewMut<D, 1>)
        where S: DeviceInt, D: amp::DeviceFloat {
        dst[idx] = src[idx] as D;
    }";
    let modules = compile_all(kernel, &Options::default()).expect("compiles");
    let labels: Vec<_> = modules.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(
        labels,
        [
            "S = i32, D = f32",
            "S = i32, D = f64",
            "S = u32, D = f32",
            "S = u32, D = f64"
        ]
    );
}

#[test]
fn an_error_of_one_instance_names_it() {
    // `%` by a float is fine, but `<<` is only for integers: wrong for f32 and f64 only.
    let kernel = "fn k<T: DeviceScalar>(idx: Index<1>, v: ArrayViewMut<T, 1>) {
        v[idx] = v[idx] << 1;
    }";
    let err = compile_all(kernel, &Options::default()).expect_err("floats cannot shift");
    assert!(err.contains("`f32` (when T = f32)"), "{err}");
    assert!(err.contains("`f64` (when T = f64)"), "{err}");
    assert!(!err.contains("T = i32"), "{err}");
    // An error every instance has is reported once, as it is.
    let kernel = "fn k<T: DeviceScalar>(idx: Index<1>, v: ArrayViewMut<T, 1>) { v[idx] = w; }";
    let err = compile_all(kernel, &Options::default()).expect_err("w is unknown");
    assert_eq!(err.matches("`w`").count(), 1, "{err}");
    assert!(!err.contains("when"), "{err}");
}

#[test]
fn bounds_outside_the_scalar_traits_are_refused() {
    for (kernel, says) in [
        ("fn k<T>(idx: Index<1>, v: ArrayViewMut<T, 1>) {}", "needs a bound"),
        ("fn k<T: Copy>(idx: Index<1>, v: ArrayViewMut<T, 1>) {}", "may only be bounded"),
        ("fn k<T: DeviceInt + DeviceFloat>(idx: Index<1>, v: ArrayViewMut<T, 1>) {}", "more than one"),
        ("fn k<'a>(idx: Index<1>, v: ArrayViewMut<i32, 1>) {}", "lifetime"),
        ("fn k<T: DeviceScalar = f32>(idx: Index<1>, v: ArrayViewMut<T, 1>) {}", "default"),
        ("fn k<A: DeviceScalar, B: DeviceScalar, C: DeviceInt>(idx: Index<1>, v: ArrayViewMut<A, 1>) {}", "instances"),
    ] {
        let diags = amp_spirv::instantiate(&parse(kernel)).expect_err(kernel);
        assert!(diags.iter().all(|d| d.rule == Rule::Generics), "{kernel}: {diags}");
        let err = diags.to_string();
        assert!(err.contains(says), "{kernel}: {err}");
    }
}

const SQUARE: &str = "fn square<T: DeviceScalar>(x: T) -> T { x * x }";
const TOTAL: &str = "fn total<T: DeviceScalar>(v: ArrayView<T, 1>) -> T {
    let mut s = T::ZERO;
    for i in 0..v.extent()[0] { s += v[i]; }
    s
}";

#[test]
fn device_functions_are_instantiated_at_their_calls() {
    let options = with_fns(&[SQUARE, TOTAL]);
    let kernel = "fn k<T: DeviceFloat>(idx: Index<1>, v: ArrayView<T, 1>, out: ArrayViewMut<T, 1>) {
        let n = idx[0] as i32;
        out[idx] = square(v[idx]) + total(v) + square(n) as T + square::<u32>(3) as T + square(2.5) as T;
    }";
    let modules = compile_all(kernel, &options).expect("compiles");
    for (_, words) in &modules {
        assert_valid(words);
    }
}

#[test]
fn device_function_calls_that_cannot_be_instantiated_are_errors() {
    let options = with_fns(&[
        SQUARE,
        "fn half<T: DeviceFloat>(x: T) -> T { x / (T::ONE + T::ONE) }",
    ]);
    let kernel = "fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) { out[idx] = half(out[idx]); }";
    let err = compile_all(kernel, &options).expect_err("half of an i32");
    assert!(
        err.contains("`half` needs `T: DeviceFloat`, but this argument makes it `i32`"),
        "{err}"
    );
    let kernel = "fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) { out[idx] = square::<bool>(true) as i32; }";
    let err = compile_all(kernel, &options).expect_err("bool is no DeviceScalar");
    assert!(err.contains("`bool` is not a `DeviceScalar`"), "{err}");
}

#[test]
fn a_generic_device_function_is_checked_for_every_member() {
    let f = parse("fn bits<T: DeviceScalar>(x: T) -> T { x & x }");
    let err = amp_spirv::check_device_fn(&f)
        .expect_err("floats have no `&`")
        .to_string();
    assert!(
        err.contains("(when T = f32)") && err.contains("(when T = f64)"),
        "{err}"
    );
    assert!(!err.contains("i32"), "{err}");
    amp_spirv::check_device_fn(&parse(SQUARE)).expect("square is fine for all");
}

#[test]
fn what_the_traits_offer_compiles_for_every_member() {
    let options = with_fns(&[
        "fn inner<T: DeviceScalar>(x: T) -> T { x.abs() }",
        "fn outer<T: DeviceScalar>(x: T, y: T) -> T { inner(x) + inner::<T>(y) + T::max(x, y) + T::min(x, y) }",
    ]);
    let kernel = "fn k<T: DeviceScalar>(idx: Index<1>, v: ArrayViewMut<T, 1>) {
        let mut local: [T; 4] = [T::ZERO; 4];
        local[1] = T::MAX;
        local[2] = T::MIN;
        local[3] = outer(v[idx], T::ONE);
        let mut acc = T::ZERO;
        for i in 0..4 { acc += local[i] / (T::ONE + T::ONE) % T::MAX; }
        acc -= v[idx] * (idx[0] as T);
        acc *= T::ONE;
        if acc < T::ZERO || acc == T::ONE || acc >= T::MAX { acc = acc.max(T::ONE).min(T::MAX); }
        v[idx] = acc;
    }";
    let modules = compile_all(kernel, &options).expect("compiles for i32, u32, f32 and f64");
    assert_eq!(modules.len(), 4);
    for (_, words) in &modules {
        assert_valid(words);
    }
    let floats = "fn f<T: DeviceFloat>(idx: Index<1>, v: ArrayViewMut<T, 1>) {
        let x = v[idx];
        v[idx] = -x.sqrt().exp().ln().powf(T::ONE).sin().mul_add(x, T::EPSILON) + T::INFINITY.min(x.hypot(x));
    }";
    for (_, words) in compile_all(floats, &Options::default()).expect("float methods") {
        assert_valid(&words);
    }
    let ints = "fn f<T: DeviceInt>(idx: Index<1>, v: ArrayViewMut<T, 1>) {
        v[idx] = (v[idx] << 2u32) >> 1u32 & !v[idx] | T::ONE ^ T::MAX;
    }";
    for (_, words) in compile_all(ints, &Options::default()).expect("int operators") {
        assert_valid(&words);
    }
}
