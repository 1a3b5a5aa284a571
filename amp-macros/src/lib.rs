#![doc = include_str!("../README.md")]
//!
//! How: [`amp_spirv::check`] checks a kernel once (per instance of a generic kernel), both
//! back ends run on that check, and the expansion holds the SPIR-V as a static, the native CPU
//! accelerator's entry (or why there is none) and the launcher with the kernel's name.

mod callback;
mod device_fn;
mod diagnostics;
mod dump;
mod expand;
mod imports;
mod launcher;
mod native;
mod options;
mod source_file;
mod statics;
mod tokens;

use diagnostics::error_tokens;
use dump::dump_spirv;
use expand::compile_instances;
use launcher::launcher;
use options::{build_flag, parse_options};

use amp_spirv::Options;
use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;

/// `#[derive(DeviceStruct)]` on a `#[repr(C)]` struct (which also derives `Clone`, `Copy`,
/// `Debug`, `bytemuck::Pod` and `bytemuck::Zeroable`) makes it a view and array element type
/// whose fields kernels read and write; see `docs/kernel-language.md`.
#[proc_macro_derive(DeviceStruct)]
pub fn device_struct(input: TokenStream) -> TokenStream {
    callback::derive_device_struct(input.into()).into()
}

/// Compiles a Rust function to a GPU kernel at build time.
///
/// The function must take an `Index<N>` first, then views, arrays and scalars; its body must stay
/// within the kernel language (see `docs/kernel-language.md`). The attribute replaces the
/// function with a launcher of the same name that takes `&` views and arrays (`&mut` for the
/// writable ones) and scalars by value, and returns a call to pass to `parallel_for_each`.
///
/// Set the environment variable `AMP_DUMP_SPIRV=<dir>` while building to get every kernel's
/// module as `<dir>/<kernel>.spv`, and `AMP_DUMP_NATIVE=<dir>` to get the Rust each kernel
/// became for the native CPU accelerator, formatted, as `<dir>/<kernel>.rs`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let (attr, mut imported) = imports::take_arg(TokenStream2::from(attr));
    let mut func = match syn::parse::<syn::ItemFn>(item) {
        Ok(f) => f,
        Err(e) => {
            let msg = format!("#[kernel(amp)] applies to free functions: {e}");
            return syn::Error::new(e.span(), msg).to_compile_error().into();
        }
    };
    // What the kernel imports with `use`, named by path: in the first round only (later ones
    // carry device function or struct sources, and the rewritten kernel).
    let first_round =
        !imports::has_arg(&attr, "__device") && !imports::has_arg(&attr, callback::DEFINITIONS_ARG);
    if first_round {
        imported.extend(source_file::resolve_imports(&mut func));
    }
    // The arguments the callbacks re-invoke the attribute with.
    let original_attr = imports::with_arg(attr.clone(), &imported);
    let mut errors = TokenStream2::new();
    let options = match parse_options(attr.clone()) {
        Ok(o) => o,
        Err(d) => {
            errors.extend(error_tokens(&d));
            Options::default()
        }
    };
    if errors.is_empty() {
        if let Some(path) = callback::missing_struct(&func, &options.structs) {
            return callback::request_definition(&path, original_attr, &func).into();
        }
        if let Some(fetch) = device_fn::fetch_missing(&original_attr, &func, &options.device_fns) {
            return fetch.into();
        }
    }
    // The launcher is generated inside the guard too: its code relies on facts of the compiled
    // kernels (bindings, type names), and a bug there is an internal error like one in the
    // compiler.
    let expanded = guarded(&func, || {
        let instances = compile_instances(&func, &options)?;
        let code = errors.is_empty().then(|| {
            let mut out = launcher(&func, &instances, options.unchecked);
            out.extend(callback::layout_assertions(
                &func,
                &options.structs,
                &instances[0].kernel,
            ));
            out
        });
        Ok((instances, code))
    });
    match expanded {
        Ok((instances, Some(mut out))) => {
            let report = match build_flag("AMP_REPORT") {
                Ok(on) => on,
                Err(message) => {
                    return syn::Error::new(func.sig.ident.span(), message)
                        .to_compile_error()
                        .into()
                }
            };
            for i in &instances {
                dump_spirv(&i.kernel, &i.bindings);
                if report {
                    eprint!("{}", i.kernel.report);
                }
            }
            out.extend(imports::markers(&imported));
            out.into()
        }
        Ok((_, None)) => errors.into(),
        Err(diags) => {
            for d in diags.iter() {
                errors.extend(error_tokens(d));
            }
            errors.into()
        }
    }
}

/// Runs `compile` (the compiler, on `func`), turning a panic in it, which can only be a bug in
/// amp-rs, into an internal-error diagnostic at the function's name: the user never sees
/// "proc macro panicked".
pub(crate) fn guarded<T>(
    func: &syn::ItemFn,
    compile: impl FnOnce() -> Result<T, amp_spirv::Diagnostics>,
) -> Result<T, amp_spirv::Diagnostics> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(compile)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(amp_spirv::internal_error(
                &func.sig.ident.to_string(),
                "SPIR-V and native code",
                &format!("the compiler panicked: {message}"),
                amp_spirv::Span::of(&func.sig.ident),
            ))
        }
    }
}

/// Marks a function for use in kernels (C++ AMP's `restrict(cpu, amp)`).
///
/// The function stays an ordinary Rust function for the host, is checked against the kernel
/// language's rules, and can be called from `#[kernel(amp)]` kernels and from other device
/// functions, in the same module or another module of the crate (by path: `util::square(x)`).
/// `#[amp::device(amp)]` makes it device-only (C++ AMP's `restrict(amp)`): no host function is
/// left. Calls are inlined; recursion is a compile error. See "Device functions" in
/// `docs/kernel-language.md`.
///
/// ```ignore
/// #[amp::device]
/// fn square(x: f32) -> f32 {
///     x * x
/// }
///
/// #[kernel(amp)]
/// fn squares(idx: Index<1>, v: ArrayViewMut<f32, 1>) {
///     v[idx] = square(v[idx]);
/// }
/// ```
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device_fn::device(attr.into(), item.into()).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use amp_spirv::Rule;
    use quote::quote;

    /// A panic in the compiler (a bug in amp-rs) reaches the user as an internal error at the
    /// kernel's name that asks for a report.
    #[test]
    fn a_panic_in_the_compiler_is_an_internal_error() {
        let func: syn::ItemFn = syn::parse_quote!(
            fn k(idx: Index<1>) {}
        );
        let result: Result<(), _> = guarded(&func, || panic!("a broken invariant"));
        let diags = result.expect_err("the panic is an error");
        let d = diags.iter().next().expect("one diagnostic");
        assert_eq!(d.rule, Rule::InternalError);
        assert!(d.message.contains("`k`"), "{}", d.message);
        assert!(d.message.contains("a broken invariant"), "{}", d.message);
        assert!(d.help.as_deref().is_some_and(|h| h.contains("report")));
    }

    /// The rule of the error `#[kernel(attr)]` gets.
    fn rule_of(attr: TokenStream2) -> Rule {
        match parse_options(attr) {
            Ok(_) => panic!("the attribute was accepted"),
            Err(d) => d.rule,
        }
    }

    /// The attribute errors of the ui cases (`rule_attr_*.rs`) carry the rules their sections
    /// of docs/restrictions.md name; the messages alone cannot tell them apart.
    #[test]
    fn attribute_errors_carry_their_rule() {
        assert_eq!(rule_of(quote!(cuda)), Rule::AttributeIsAmp);
        assert_eq!(rule_of(quote!()), Rule::AttributeIsAmp);
        assert_eq!(
            rule_of(quote!(amp, deny(write_conflict))),
            Rule::AttributeOptions
        );
        assert_eq!(
            rule_of(quote!(amp, allow = "write_conflict")),
            Rule::AttributeOptions
        );
        assert_eq!(
            rule_of(quote!(amp, unchecked, unchecked)),
            Rule::UncheckedOnce
        );
        assert_eq!(
            rule_of(quote!(amp, allow(bank_conflicts))),
            Rule::AllowKnownLint
        );
        assert!(parse_options(quote!(amp, unchecked, allow(write_conflict))).is_ok());
    }
}
