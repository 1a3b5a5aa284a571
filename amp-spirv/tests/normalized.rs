//! `Norm` / `Unorm` and their vectors in kernels: every form compiles to a module `spirv-val`
//! accepts, and the forms the host does not have are errors naming their rule and the fix.
//! Their results are checked on the device in `tests/device/normalized.rs`.

mod common;
use common::spirv_val_words;

fn validate(src: &str) -> amp_spirv::CompiledKernel {
    let kernel = match amp_spirv::compile_str(src) {
        Ok(k) => k,
        Err(d) => panic!("this kernel should compile:\n{src}\nbut:\n{d}"),
    };
    if let Err(msg) = spirv_val_words(&kernel.spirv) {
        panic!("spirv-val rejected the module of:\n{src}\n{msg}");
    }
    kernel
}

/// Compiles every kernel of a file (with its structs) and validates their modules.
fn validate_file(src: &str) {
    let parsed = syn::parse_file(src).expect("a Rust file");
    let options = amp_spirv::Options::from_file(&parsed);
    for kernel in amp_spirv::kernels_in_file(&parsed) {
        let compiled = match amp_spirv::compile_with(&kernel, &options) {
            Ok(k) => k,
            Err(d) => panic!("this kernel should compile:\n{src}\nbut:\n{d}"),
        };
        if let Err(msg) = spirv_val_words(&compiled.spirv) {
            panic!("spirv-val rejected the module of:\n{src}\n{msg}");
        }
    }
}

/// The diagnostics of a kernel that must not compile, as text.
fn errors(src: &str) -> String {
    match amp_spirv::compile_str(src) {
        Ok(_) => panic!("this kernel should not compile:\n{src}"),
        Err(d) => d.to_string(),
    }
}

macro_rules! valid {
    ($($name:ident: $src:expr;)*) => {
        $(
            #[test]
            fn $name() {
                validate($src);
            }
        )*
    };
}

valid! {
    scalars_convert_and_compute: r#"
        fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<Unorm, 1>, n: ArrayViewMut<Norm, 1>, s: Unorm) {
            let x = Unorm::new(a[idx]);
            let y = unorm::from(a[idx] * 2.0);
            let mut z = x + y * s - Unorm::ONE / Unorm::new(0.5);
            z += Unorm::ZERO;
            z *= Unorm::MIN;
            let m = -Norm::new(a[idx]) + Norm::from(x) - Norm::MIN;
            n[idx] = m;
            out[idx] = if z < x && x >= y || z == y && x != Unorm::from(m) { z } else { x };
            let f: f32 = f32::from(z) + z.get() + f32::from(a[idx]);
            out[idx] /= Unorm::new(f);
        }"#;
    vectors_in_two_dimensions: r#"
        fn k(idx: Index<2>, img: ArrayView<Unorm4, 2>, grey: ArrayViewMut<Unorm, 2>, o: ArrayViewMut<Unorm4, 2>) {
            let c = img[idx];
            let w = Unorm4::from_f32_array([0.299, 0.587, 0.114, 0.0]);
            let p = (c * w).to_f32_array();
            grey[idx] = Unorm::new(p[0] + p[1] + p[2]);
            let mut d = c - Unorm4::splat(Unorm::new(0.5)) + Unorm4::new(c.x, c.y, c.z, Unorm::ONE);
            d.w = Unorm::ZERO;
            d.x += c.w;
            d /= c;
            o[idx] = d;
            o[idx].y = c.x;
        }"#;
    norm_vectors_and_arrays: r#"
        fn k(idx: Index<1>, a: &Array<Norm2, 1>, b: &mut Array<Norm3, 1>, v: Norm3) {
            let p = a[idx];
            let arr = [p.x, p.y];
            let mut local = [Norm::ZERO; 4];
            local[1] = -arr[0];
            let f = [f32::from(local[1]), 2.0, -3.0];
            b[idx] = -Norm3::from_f32_array(f) + v * Norm3::new(p.x, p.y, Norm::ONE);
            b[idx] -= v;
        }"#;
    tile_static_normalized_arrays: r#"
        fn k(t: TiledIndex<16>, a: ArrayView<Unorm, 1>, o: ArrayViewMut<Unorm, 1>) {
            #[tile_static]
            let mut shared: [Unorm; 16];
            shared[t.local[0]] = a[t.global];
            t.barrier.wait();
            o[t.global] = shared[15 - t.local[0]] * shared[t.local[0]];
        }"#;
    kernel_language_example: r#"
        fn fade(idx: Index<2>, img: ArrayView<Unorm4, 2>, out: ArrayViewMut<Unorm4, 2>, k: Unorm) {
            let c = img[idx];
            let mut d = c * Unorm4::splat(k) + Unorm4::from_f32_array([0.1, 0.1, 0.1, 0.0]);
            d.w = c.w;
            out[idx] = d;
            let grey = c.to_f32_array();
            out[idx].x = Unorm::new(0.3 * grey[0] + 0.59 * grey[1] + 0.11 * grey[2]);
        }"#;
    textures_example: r#"
        fn to_grey(idx: Index<2>, img: ArrayView<Unorm4, 2>, grey: ArrayViewMut<Unorm, 2>) {
            let p = img[idx].to_f32_array();
            grey[idx] = Unorm::new(0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]);
        }"#;
}

#[test]
fn normalized_struct_fields() {
    validate_file(
        r#"
        #[repr(C)]
        #[derive(Clone, Copy, DeviceStruct)]
        struct Texel { colour: Unorm4, weight: Norm }

        #[kernel(amp)]
        fn k(idx: Index<1>, t: ArrayViewMut<Texel, 1>) {
            let mut x = t[idx];
            x.weight = -x.weight;
            x.colour.x += Unorm::new(0.25);
            t[idx] = x;
            t[idx].colour.w = Unorm::ONE;
        }"#,
    );
}

#[test]
fn normalized_buffers_and_params_have_their_abi_types() {
    use amp_spirv::abi::{ElemType, ScalarType};
    use amp_spirv::{Elem, ParamKind, Scalar};
    let k = validate(
        "fn k(idx: Index<1>, a: ArrayView<Unorm4, 1>, o: ArrayViewMut<Norm, 1>, s: Unorm, v: Norm2) {
            o[idx] = Norm::from(a[idx].x) + v.x * Norm::from(s);
        }",
    );
    let kinds: Vec<ParamKind> = k.params.iter().map(|p| p.kind.clone()).collect();
    assert!(matches!(
        kinds[0],
        ParamKind::Buffer {
            elem: Elem::Vector(Scalar::Unorm, 4),
            ..
        }
    ));
    assert!(matches!(
        kinds[1],
        ParamKind::Buffer {
            elem: Elem::Scalar(Scalar::Norm),
            ..
        }
    ));
    assert!(matches!(kinds[2], ParamKind::Scalar(Scalar::Unorm)));
    assert!(matches!(
        kinds[3],
        ParamKind::Value(Elem::Vector(Scalar::Norm, 2))
    ));
    assert_eq!(
        Elem::Vector(Scalar::Unorm, 4).abi(),
        Some(ElemType::Vector(ScalarType::Unorm, 4))
    );
    assert_eq!(ElemType::Vector(ScalarType::Unorm, 4).to_string(), "Unorm4");
}

#[test]
fn casts_to_and_from_normalized_types_name_the_conversion() {
    let e = errors("fn k(idx: Index<1>, a: ArrayView<f32, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx] as Unorm; }");
    assert!(e.contains("cannot cast `f32` as `Unorm`"), "{e}");
    assert!(e.contains("Unorm::new(x)"), "{e}");
    let rules: Vec<amp_spirv::Rule> =
        amp_spirv::compile_str("fn k(idx: Index<1>, a: ArrayView<f32, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx] as Unorm; }")
            .expect_err("a cast")
            .iter()
            .map(|d| d.rule)
            .collect();
    assert_eq!(rules, [amp_spirv::Rule::Casts]);
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Norm, 1>, o: ArrayViewMut<f32, 1>) { o[idx] = a[idx] as f32; }");
    assert!(e.contains("cannot cast `Norm` as `f32`"), "{e}");
    assert!(e.contains("f32::from(n)"), "{e}");
}

#[test]
fn normalized_operands_mix_only_with_their_own_type() {
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx] + 0.5; }");
    assert!(
        e.contains("cannot apply `+` to `Unorm` and `{float}`"),
        "{e}"
    );
    assert!(e.contains("Unorm::new(x)"), "{e}");
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm, 1>, b: ArrayView<Norm, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx] * b[idx]; }");
    assert!(e.contains("cannot apply `*` to `Unorm` and `Norm`"), "{e}");
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx] % a[idx]; }");
    assert!(
        e.contains("cannot apply `%` to values of type `Unorm`"),
        "{e}"
    );
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = -a[idx]; }");
    assert!(e.contains("cannot negate a value of type `Unorm`"), "{e}");
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm4, 1>, o: ArrayViewMut<Unorm4, 1>) { o[idx] = a[idx] * Unorm::ONE; }");
    assert!(e.contains("Unorm4::splat(x)"), "{e}");
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx].sqrt(); }");
    assert!(e.contains("Unorm"), "{e}");
    let e = errors("fn k(idx: Index<1>, a: ArrayView<f32, 1>, o: ArrayViewMut<f32, 1>) { o[idx] = a[idx].get(); }");
    assert!(
        e.contains("`.get()` is a method of `Norm` and `Unorm`"),
        "{e}"
    );
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm4, 1>, o: ArrayViewMut<Unorm4, 1>) { o[idx] = a[idx].wzyx(); }");
    assert!(e.contains("`Unorm4` has no swizzles"), "{e}");
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm4, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx].r; }");
    assert!(e.contains("has no field `r`"), "{e}");
    let e = errors("fn k(idx: Index<1>, a: ArrayView<Unorm4, 1>, o: ArrayViewMut<Unorm, 1>) { o[idx] = a[idx].x.min(a[idx].y); }");
    assert!(e.contains("Unorm"), "{e}");
    let e = errors("fn k(idx: Index<1>, o: ArrayViewMut<Unorm4, 1>) { o[idx] = Unorm4::new(0.1, 0.2, 0.3, 0.4); }");
    assert!(e.contains("expected `Unorm`"), "{e}");
}

#[test]
fn a_module_named_norm_still_holds_device_functions() {
    // `norm::half(x)` is a device function of a module `norm`; `unorm::new(x)` is the type's.
    let kernel: syn::ItemFn = syn::parse_str(
        "fn k(idx: Index<1>, out: ArrayViewMut<Unorm, 1>) { out[idx] = unorm::new(norm::half(1.0)); }",
    )
    .expect("a function");
    let (path, _) = amp_spirv::missing_device_fn(&kernel, &[]).expect("one is missing");
    assert_eq!(path, ["norm", "half"]);
}
