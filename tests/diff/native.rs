//! The native back end in the differential tester (issue 13): each test function's one-line
//! kernel (the device's, `device::kernel_source`) translated by `amp_spirv::compile_native` to
//! the Rust source of one thread, compiled into the round's host program beside the oracle and
//! run over the same inputs; its results are compared with the oracle's as the device's are.

use crate::gen::{Program, TestFn};
use amp_spirv::{DeviceFnSource, Options};

/// The path the native kernels name the prelude by, in the host program.
pub const RT: &str = "crate::amp_native";

/// The name of `t`'s native thread function.
pub fn fn_name(t: &TestFn) -> String {
    format!("native_{}", t.name)
}

/// The native source of every test function's kernel, or why there is none (the compiler's
/// refusal, which the tester reports as a failure).
pub fn kernels(program: &Program) -> Vec<Result<String, String>> {
    let parse = |s: &str| syn::parse_str::<syn::ItemFn>(s).map_err(|e| format!("syn: {e}\n{s}"));
    program
        .tests
        .iter()
        .map(|t| {
            let mut device_fns = Vec::new();
            for h in &program.helpers {
                device_fns.push(DeviceFnSource::new(&[], parse(&h.source)?));
            }
            device_fns.push(DeviceFnSource::new(&[], parse(&t.source)?));
            let options = Options {
                device_fns,
                ..Options::default()
            };
            let kernel = parse(&crate::device::kernel_source(t, false))?;
            amp_spirv::compile_native(&kernel, &options, RT, &fn_name(t))
                .map(|k| k.source)
                .map_err(|e| format!("the native back end refused the kernel: {e}"))
        })
        .collect()
}

/// The prelude module and a `buf` helper, for the host program.
pub fn prelude() -> String {
    format!(
        "mod amp_native {{\n{}\n}}\n\
         fn native_buf<T>(v: &mut [T]) -> amp_native::Buf<T, 1> {{\n\
         \x20   amp_native::Buf {{ ptr: v.as_mut_ptr(), extent: [v.len() as u32], offset: 0, strides: [1], covers: false }}\n}}\n",
        amp_spirv::NATIVE_PRELUDE
    )
}
