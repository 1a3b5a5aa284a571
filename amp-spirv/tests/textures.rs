//! Texture views and samplers in the compiler: the modules they give pass `spirv-val`, the
//! bindings follow the buffers in parameter order, and misuse is a `textures` error.

mod common;
use amp_spirv::{Options, ParamKind, Rule};
use common::assert_valid;

fn compile(kernel: &str) -> Result<amp_spirv::CompiledKernel, amp_spirv::Diagnostics> {
    let f: syn::ItemFn = syn::parse_str(kernel).expect("a function");
    amp_spirv::compile_with(&f, &Options::default())
}

fn errors(kernel: &str) -> Vec<(Rule, String)> {
    match compile(kernel) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d.iter().map(|d| (d.rule, d.message.clone())).collect(),
    }
}

#[test]
fn read_sample_and_write_validate() {
    let kernels = [
        "fn blur(idx: Index<2>, src: TextureView<Unorm4, 2>, s: Sampler, dst: WriteonlyTextureView<Unorm4, 2>) {
            let e = src.extent();
            let u = Float2::new((idx[1] as f32 + 0.5) / e[1] as f32, (idx[0] as f32 + 0.5) / e[0] as f32);
            let c = src.sample(&s, u);
            dst.set(idx, c);
        }",
        "fn copy1(idx: Index<1>, src: TextureView<f32, 1>, dst: WriteonlyTextureView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            dst.set(idx, src[idx] * 2.0);
            out[idx] = src[idx];
        }",
        "fn ints(idx: Index<3>, src: TextureView<Int2, 3>, dst: WriteonlyTextureView<UInt4, 3>) {
            let v = src[idx];
            dst.set(idx, UInt4::new(v.x as u32, v.y as u32, 0, 1));
        }",
        "fn grey(idx: Index<2>, src: TextureView<Unorm4, 2>, dst: WriteonlyTextureView<Unorm, 2>, n: WriteonlyTextureView<Norm2, 2>) {
            let c = src[idx];
            dst.set(idx, Unorm::new(0.25 * f32::from(c.x) + 0.5 * f32::from(c.y)));
            n.set(idx, Norm2::new(Norm::new(-0.5), Norm::from(c.z)));
        }",
        "fn sample1(idx: Index<1>, src: TextureView<Float2, 1>, s: Sampler, out: ArrayViewMut<Float2, 1>) {
            out[idx] = src.sample(&s, idx[0] as f32 / 16.0);
        }",
    ];
    for k in kernels {
        let compiled = compile(k).unwrap_or_else(|d| panic!("{k}\n{d}"));
        assert_valid(&compiled.spirv);
    }
}

#[test]
fn textures_and_samplers_bind_after_buffers_in_order() {
    let k = compile(
        "fn k(idx: Index<2>, t: TextureView<Float4, 2>, a: ArrayView<f32, 2>, s: Sampler, w: WriteonlyTextureView<f32, 2>, b: ArrayViewMut<f32, 2>) {
            b[idx] = a[idx] + t[idx].x + t.sample(&s, Float2::new(0.5, 0.5)).y;
            w.set(idx, 1.0);
        }",
    )
    .expect("compiles");
    let bindings: Vec<(String, Option<u32>)> = k
        .params
        .iter()
        .map(|p| (p.name.clone(), p.binding))
        .collect();
    assert_eq!(
        bindings,
        [
            ("t".to_owned(), Some(2)),
            ("a".to_owned(), Some(0)),
            ("s".to_owned(), Some(3)),
            ("w".to_owned(), Some(4)),
            ("b".to_owned(), Some(1)),
        ]
    );
    assert!(matches!(
        k.params[3].kind,
        ParamKind::Texture { rank: 2, .. }
    ));
    assert_eq!(k.report_binding, Some(5));
    assert_valid(&k.spirv);
}

#[test]
fn misuse_names_the_textures_rule() {
    let cases = [
        ("fn k(idx: Index<1>, t: TextureView<f32, 1>) { t[idx] = 1.0; }", "cannot assign to texture `t`"),
        ("fn k(idx: Index<1>, w: WriteonlyTextureView<f32, 1>, o: ArrayViewMut<f32, 1>) { o[idx] = w[idx]; }", "cannot read `w`"),
        ("fn k(idx: Index<1>, t: TextureView<i32, 1>, s: Sampler, o: ArrayViewMut<i32, 1>) { o[idx] = t.sample(&s, 0.5); }", "cannot sample `t`"),
        ("fn k(idx: Index<1>, t: TextureView<Float3, 1>) { }", "`Float3` is not supported as a texel type"),
        ("fn k(idx: Index<1>, t: TextureView<f64, 1>) { }", "`f64` is not supported as a texel type"),
        ("fn k(idx: Index<1>, t: TextureView<f32, 1>, o: ArrayViewMut<f32, 1>) { o[idx] = t.get(idx); }", "method `get` is not supported on texture `t`"),
        ("fn k(idx: Index<1>, t: TextureView<f32, 1>, s: f32, o: ArrayViewMut<f32, 1>) { o[idx] = t.sample(&s, 0.5); }", "the first argument of `sample` is a `Sampler`"),
        ("fn k(idx: Index<1>, s: Sampler, o: ArrayViewMut<f32, 1>) { let x = s; }", "`s` is a texture view or sampler"),
    ];
    for (k, want) in cases {
        let errs = errors(k);
        assert!(
            errs.iter()
                .any(|(r, m)| *r == Rule::Textures && m.contains(want)),
            "{k}: expected a textures error containing {want:?}, got {errs:?}"
        );
    }
}

#[test]
fn a_texture_written_at_a_shared_index_is_a_write_conflict() {
    let k = compile(
        "fn k(idx: Index<2>, w: WriteonlyTextureView<f32, 2>) {
            w.set([0, idx[1]], 1.0);
        }",
    )
    .expect("compiles");
    assert_eq!(k.warnings.len(), 1, "{:?}", k.warnings);
    assert_eq!(k.warnings[0].lint, amp_spirv::Lint::WriteConflict);
    assert!(
        k.warnings[0].message.contains("`w` is written"),
        "{}",
        k.warnings[0].message
    );
    let unique =
        compile("fn k(idx: Index<2>, w: WriteonlyTextureView<f32, 2>) { w.set(idx, 1.0); }")
            .expect("compiles");
    assert!(unique.warnings.is_empty(), "{:?}", unique.warnings);
}
