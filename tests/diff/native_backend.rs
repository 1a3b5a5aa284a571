//! The native back end in the differential tester: each test function's one-line
//! kernel (the device's, `device::kernel_source`) translated by `amp_spirv::compile_native` to
//! the Rust source of one thread, compiled into the round's host program beside the oracle and
//! run over the same inputs; its results are compared with the oracle's as the device's are.
//!
//! Every other test function's native kernel calls it inside a loop every thread runs the same
//! way (`for _b in 0..1`), so the back end makes it a batched kernel (`NativeKernel::batched`):
//! it runs in batches of neighbouring rows, its call inside a work-item loop, and the rows
//! that do not fill a batch one at a time.

use crate::gen::{Program, TestFn};
use amp_spirv::{DeviceFnSource, Options};

/// The path the native kernels name their run-time support by, in the host program.
pub const RT: &str = "crate::amp_native";

/// The name of `t`'s native thread function.
pub fn fn_name(t: &TestFn) -> String {
    format!("native_{}", t.name)
}

/// A test function's native code.
pub struct NativeFns {
    /// The functions' source.
    pub source: String,
    /// For a batched kernel: its batch function and how many rows one call runs.
    pub batch: Option<(String, u32)>,
}

/// Whether `t`'s native kernel is the batched form (every other test function).
fn batched(t: &TestFn) -> bool {
    t.name.bytes().map(u32::from).sum::<u32>() % 2 == 0
}

/// `t`'s kernel with the call inside a loop all threads run the same way.
fn batched_kernel_source(t: &TestFn) -> String {
    let (params, args) = crate::device::kernel_params(t);
    let ty = t.ret.name();
    let zero = if ty.starts_with('f') { "0.0" } else { "0" };
    format!(
        "fn k_{name}(idx: Index<1>, {}) {{ let mut r: {ty} = {zero}; for _b in 0..1u32 {{ r = {name}({}); }} out[idx] = r; }}",
        params.join(", "),
        args.join(", "),
        name = t.name
    )
}

/// The native code of every test function's kernel, or why there is none (the compiler's
/// refusal, which the tester reports as a failure).
pub fn kernels(program: &Program) -> Vec<Result<NativeFns, String>> {
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
            let batched = batched(t);
            let source = match batched {
                true => batched_kernel_source(t),
                false => crate::device::kernel_source(t, false),
            };
            let kernel = parse(&source)?;
            let k = amp_spirv::compile_native(&kernel, &options, RT, &fn_name(t))
                .map_err(|e| format!("the native back end refused the kernel: {e}"))?;
            match (&k.batched, batched) {
                (Some(b), true) => Ok(NativeFns {
                    source: format!("{}{}", k.code, b.plain.code),
                    batch: Some((b.plain.fn_name.clone(), b.lanes)),
                }),
                (None, true) => Err(format!("the kernel was not batched:\n{source}")),
                _ => Ok(NativeFns {
                    source: k.code.to_string(),
                    batch: None,
                }),
            }
        })
        .collect()
}

/// The run-time support under the name the kernels use, and a `buf` helper, for the host
/// program (linked against amp-native-rt: `amp_native_rt::rustc_extern_args`).
pub fn runtime_support() -> String {
    "use amp_native_rt as amp_native;\n\
     fn native_buf<T>(v: &mut [T]) -> amp_native::Buf<T, 1> {\n\
     \x20   amp_native::Buf { ptr: v.as_mut_ptr(), extent: [v.len() as u32], offset: 0, strides: [1], covers: false }\n}\n"
        .to_string()
}
