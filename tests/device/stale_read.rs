//! A checked kernel that reads back its own store (`out[i] = a[i]; out[i] += 7`), in four
//! SPIR-V forms, each launched as a `RawKernel` so that nothing but the module differs:
//!
//! - `amp`: the compiler's module as it is (one block type per buffer, `NonWritable` on the
//!   read-only block's member, as glslang emits);
//! - `one_block_type`: the same module with every storage buffer's variable of one shared block
//!   type and `NonWritable` on the read-only variable (the compiler's earlier interface);
//! - `one_block_type_coherent`: that, with `Coherent` on the written buffer;
//! - `glslang`: glslang's build of the same kernel written in GLSL (two guarded accesses).
//!
//! Each must give `a[i] + 7` everywhere. NVIDIA's 580 driver gave the old `out[i] + 7` for
//! checked kernels created without robust buffer access while every buffer shared one block
//! type; `AMP_PIPELINE_ROBUSTNESS=off` creates these pipelines without it, which is how the GPU
//! kit runs this file (its `stale-read` suite): one run tells a fault of the module's form from
//! the driver's.

use crate::common::{self, assert_validation_clean};
use amp::prelude::*;
use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op};

const KERNEL: &str = "fn write_then_update(idx: Index<1>, a: ArrayView<u32, 1>, \
    out: ArrayViewMut<u32, 1>) { out[idx] = a[idx]; out[idx] += 7; }";

const GLSL: &str = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint a[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(push_constant) uniform Push { uint n; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n) { o[i] = a[i]; }
    if (i < n) { o[i] += 7u; }
}
"#;

/// Elements: a whole number of 64-thread workgroups and a partial one.
const N: u32 = (1 << 20) + 37;

/// The id an `OpName` gives `name`.
fn named(module: &Module, name: &str) -> u32 {
    module
        .debug_names
        .iter()
        .find(|i| {
            i.class.opcode == Op::Name
                && matches!(&i.operands[1], Operand::LiteralString(s) if s == name)
        })
        .and_then(|i| i.operands[0].id_ref_any())
        .unwrap_or_else(|| panic!("the module names no `{name}`"))
}

/// The compiler's module with every storage-buffer variable of `out`'s block type, the
/// read-only `a` marked `NonWritable` as a variable, and (`coherent`) `out` marked `Coherent`.
fn one_block_type(spirv: &[u32], coherent: bool) -> Vec<u32> {
    let mut module = rspirv::dr::load_words(spirv).expect("the compiler's module parses");
    let out = named(&module, "out");
    let a = named(&module, "a");
    let report = named(&module, "amp_report");
    let shared = module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(out))
        .and_then(|i| i.result_type)
        .expect("`out` is a variable");
    // The other variables move after `out`, where the shared pointer type is declared.
    let (mut moved, mut rest): (Vec<_>, Vec<_>) = std::mem::take(&mut module.types_global_values)
        .into_iter()
        .partition(|i| i.result_id == Some(a) || i.result_id == Some(report));
    for var in &mut moved {
        var.result_type = Some(shared);
    }
    let at = 1 + rest
        .iter()
        .position(|i| i.result_id == Some(out))
        .expect("`out` is declared");
    rest.splice(at..at, moved);
    module.types_global_values = rest;
    let decorate = |target: u32, d: Decoration| {
        Instruction::new(
            Op::Decorate,
            None,
            None,
            vec![Operand::IdRef(target), Operand::Decoration(d)],
        )
    };
    module
        .annotations
        .push(decorate(a, Decoration::NonWritable));
    if coherent {
        module.annotations.push(decorate(out, Decoration::Coherent));
    }
    module.assemble()
}

/// Launches `spirv` over `N` threads with `a` and `out` (and the report buffer when
/// `report`), and counts the elements that are not `a[i] + 7`.
fn wrong_elements(
    acc: &Accelerator,
    spirv: &[u32],
    entry: &str,
    report: bool,
    push: &[u32],
) -> Result<usize, amp::Error> {
    let bindings = if report { 3 } else { 2 };
    let push_bytes: Vec<u8> = push.iter().flat_map(|w| w.to_le_bytes()).collect();
    let raw = amp::RawKernel::new(acc, spirv, entry, bindings, push_bytes.len() as u32)?;
    let host_a: Vec<u32> = (0..N).map(|i| i.wrapping_mul(11) + 1).collect();
    let a = Array::<u32, 1>::from_slice_on(acc, [N as usize], &host_a)?;
    let old: Vec<u32> = (0..N).map(|i| 0x5000_0000 + i).collect();
    let mut out = Array::<u32, 1>::from_slice_on(acc, [N as usize], &old)?;
    let mut words = Array::<u32, 1>::new_on(acc, [16])?;
    let mut args = vec![amp::KernelArg::read(&a), amp::KernelArg::write(&mut out)];
    if report {
        args.push(amp::KernelArg::write(&mut words));
    }
    raw.dispatch([N.div_ceil(64), 1, 1], args, &push_bytes)?;
    let got = out.to_vec()?;
    if report {
        assert_eq!(
            words.to_vec()?[0],
            0,
            "no access of an in-domain thread fails"
        );
    }
    Ok(host_a
        .iter()
        .zip(&got)
        .filter(|(a, o)| a.wrapping_add(7) != **o)
        .count())
}

#[test]
fn a_checked_kernel_reads_its_own_store_in_every_module_form() -> Result<(), amp::Error> {
    common::vulkan_only!("raw SPIR-V kernels need Vulkan");
    let f: syn::ItemFn = syn::parse_str(KERNEL).expect("parses");
    let k = amp_spirv::compile(&f).expect("compiles");
    assert_eq!(k.report_binding, Some(2), "the kernel is checked");
    let glslang = amp_test_support::compile_glsl("stale_read", GLSL).expect("glslang builds it");
    // The launch domain's extent, then each view's extent and element offset (amp-abi).
    let amp_push = [N, N, 0, N, 0];
    assert_eq!(k.push_constant_size, 4 * amp_push.len() as u32);
    let forms: [(&str, Vec<u32>, bool, &[u32]); 4] = [
        ("amp", k.spirv.clone(), true, &amp_push),
        (
            "one_block_type",
            one_block_type(&k.spirv, false),
            true,
            &amp_push,
        ),
        (
            "one_block_type_coherent",
            one_block_type(&k.spirv, true),
            true,
            &amp_push,
        ),
        ("glslang", glslang, false, &[N]),
    ];
    let acc = Accelerator::default()?;
    let mut failed = Vec::new();
    for (name, spirv, report, push) in &forms {
        // Where `spirv-val` is installed (not on a GPU machine that runs the kit).
        if amp_test_support::find_tool("spirv-val").is_ok() {
            amp_test_support::spirv_val(spirv).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let entry = if *report { k.entry_point } else { "main" };
        let wrong = wrong_elements(&acc, spirv, entry, *report, push)?;
        println!("stale read: {name}: {wrong} of {N} elements wrong");
        if wrong > 0 {
            failed.push(format!("{name} ({wrong} wrong)"));
        }
    }
    assert_validation_clean();
    assert!(failed.is_empty(), "stale reads in: {}", failed.join(", "));
    Ok(())
}
