//! Test helpers: validation on, GLSL compiled with glslangValidator at test time, hand-built
//! `KernelInfo`s.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Mutex, Once};

use amp_runtime::{KernelInfo, ParamInfo, ParamKind, ScalarType};

static INIT: Once = Once::new();

/// Turns validation on before the first device use. Every test calls this first.
pub fn init() {
    INIT.call_once(|| {
        amp_runtime::Config::new()
            .validation(true)
            .apply()
            .expect("validation is set before the first device use");
    });
}

/// The largest domain the grid-fold tests launch: a GPU allows 2^31 - 1 workgroups in x (its
/// grid folds only past 2^37 threads); lavapipe's 65,535 fold at 4M.
#[allow(dead_code)] // not every test binary that includes this module folds grids
pub const FOLD_TEST_MAX_ELEMENTS: usize = 1 << 26;

/// Asserts validation is active and reported nothing.
pub fn assert_clean() {
    assert!(
        amp_runtime::validation_enabled(),
        "validation layer not active"
    );
    assert_eq!(
        amp_runtime::validation_message_count(),
        0,
        "validation messages were reported"
    );
}

static CACHE: Mutex<Option<HashMap<String, &'static [u32]>>> = Mutex::new(None);

/// Compiles GLSL compute source to SPIR-V 1.3 words (cached by name).
pub fn compile(name: &str, source: &str) -> &'static [u32] {
    let mut cache = CACHE.lock().unwrap();
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(w) = cache.get(name) {
        return w;
    }
    let words = amp_test_support::compile_glsl(name, source).unwrap_or_else(|e| panic!("{e}"));
    let words: &'static [u32] = Box::leak(words.into_boxed_slice());
    cache.insert(name.to_owned(), words);
    words
}

pub fn buffer(
    name: &'static str,
    binding: u32,
    elem: ScalarType,
    rank: u32,
    writable: bool,
    extent_offset: u32,
) -> ParamInfo {
    ParamInfo {
        name,
        kind: ParamKind::Buffer {
            binding,
            elem: elem.into(),
            rank,
            writable,
            extent_offset,
        },
    }
}

pub fn scalar(name: &'static str, ty: ScalarType, offset: u32) -> ParamInfo {
    ParamInfo {
        name,
        kind: ParamKind::Scalar { ty, offset },
    }
}

#[allow(clippy::too_many_arguments)]
pub fn info(
    name: &'static str,
    spirv: &'static [u32],
    rank: u32,
    params: Vec<ParamInfo>,
    push_constant_size: u32,
    workgroup: u32,
    uses_float64: bool,
) -> &'static KernelInfo {
    Box::leak(Box::new(KernelInfo {
        name,
        spirv,
        spirv_narrow_storage: &[],
        entry_point: "main",
        rank,
        params: Box::leak(params.into_boxed_slice()),
        push_constant_size,
        workgroup_size: [workgroup, 1, 1],
        shape: amp_runtime::Shape::Fixed,
        uses_float64,
        hash: spirv.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
            (h ^ u64::from(w)).wrapping_mul(0x0100_0000_01b3)
        }),
        tile_rank: 0,
        spec_constants: &[],
        report: "",
        report_binding: None,
        bounds_checked: false,
        loop_lines: &[],
    }))
}

/// `s[i] = a[i] + b[i] * scale` over a rank-1 domain, workgroup 64.
/// Push constants: domain @0, a @4, b @8, s @12, scale @16.
pub const ADD_SRC: &str = r#"
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer S { float s[]; };
layout(push_constant) uniform P { uint domain0; uint a0; uint a_off; uint b0; uint b_off; uint s0; uint s_off; float scale; } pc;
void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
    if (id >= pc.domain0) return;
    s[id] = a[id] + b[id] * pc.scale;
}
"#;

pub fn add_kernel() -> &'static KernelInfo {
    use std::sync::OnceLock;
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        info(
            "add",
            compile("add", ADD_SRC),
            1,
            vec![
                buffer("a", 0, ScalarType::F32, 1, false, 4),
                buffer("b", 1, ScalarType::F32, 1, false, 12),
                buffer("sum", 2, ScalarType::F32, 1, true, 20),
                scalar("scale", ScalarType::F32, 28),
            ],
            32,
            64,
            false,
        )
    })
}

/// The launcher `#[kernel(amp)]` would generate for `add`.
pub fn add<'k>(
    a: &'k impl amp_runtime::DeviceBuffer,
    b: &'k impl amp_runtime::DeviceBuffer,
    sum: &'k mut impl amp_runtime::DeviceBufferMut,
    scale: f32,
) -> amp_runtime::KernelCall<'k, 1> {
    amp_runtime::KernelCall::new(
        add_kernel(),
        vec![
            amp_runtime::KernelArg::read(a),
            amp_runtime::KernelArg::read(b),
            amp_runtime::KernelArg::write(sum),
            amp_runtime::KernelArg::scalar(scale),
        ],
    )
}
