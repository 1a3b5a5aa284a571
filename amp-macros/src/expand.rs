//! A kernel's instances (one per binding of its type parameters), each checked once and
//! compiled by both back ends.

use crate::{callback, native};
use amp_spirv::{CompiledKernel, Options, Rule, Scalar};
use proc_macro2::TokenStream as TokenStream2;

/// Compiles every instance of the kernel (one, unless it has type parameters); all errors of
/// all instances otherwise, each once, naming the instances it is limited to.
pub(crate) fn compile_instances(
    func: &syn::ItemFn,
    options: &Options,
) -> Result<Vec<Instance>, amp_spirv::Diagnostics> {
    let instances = match amp_spirv::instantiate(func) {
        Ok(i) => i,
        Err(mut diags) => {
            // Still report the rest of the kernel's errors in this build, checked as one
            // instance with the type parameters' bounds recovered (no error at every use of a
            // badly bounded parameter); the signature's own check would repeat the generics
            // ones.
            let recovered = amp_spirv::recovered_instance(func);
            if let Err(more) = amp_spirv::compile_with(recovered.as_ref().unwrap_or(func), options)
            {
                for d in more {
                    if d.rule != Rule::Generics {
                        diags.push(d);
                    }
                }
            }
            return Err(diags);
        }
    };
    // Each instance is checked once; both back ends start from that.
    let results: Vec<_> = instances
        .into_iter()
        .enumerate()
        .map(|(n, i)| {
            let compiled = amp_spirv::check(&i.func, options).and_then(|checked| {
                let mut kernel = checked.spirv()?;
                let native =
                    native::entry(&checked, &i.func, &i.bindings, kernel.tile.is_some(), n)?;
                kernel.report.push_str(&native.2);
                Ok((kernel, native))
            });
            (compiled, i)
        })
        .collect();
    if results.iter().all(|(r, _)| r.is_ok()) {
        return Ok(results
            .into_iter()
            .filter_map(|(r, i)| {
                let (kernel, (native_item, native_code, _)) = r.ok()?;
                Some(Instance {
                    bindings: i.bindings,
                    kernel,
                    native_item,
                    native_code,
                })
            })
            .collect());
    }
    Err(amp_spirv::merge_instance_errors(
        results
            .into_iter()
            .map(|(r, i)| (i.label(), r.err().unwrap_or_default()))
            .collect(),
    ))
}

/// One compiled instance of a kernel: the scalars its type parameters stand for (none for a
/// kernel without type parameters) and its module.
pub(crate) struct Instance {
    pub(crate) bindings: Vec<(syn::Ident, Scalar)>,
    pub(crate) kernel: CompiledKernel,
    /// The native entry function (an item; empty without native code).
    pub(crate) native_item: TokenStream2,
    /// The instance's `NativeCode`.
    pub(crate) native_code: TokenStream2,
}

/// The element type a parameter's written type names when it is one of the kernel's type
/// parameters (`x: ArrayView<T, 1>` or `a: T`): the launcher takes that parameter generically.
pub(crate) fn written_type_param(
    func: &syn::ItemFn,
    param: &str,
    type_params: &[syn::Ident],
) -> Option<TokenStream2> {
    let is_param = |ty: &TokenStream2| {
        let written = ty.to_string();
        type_params.iter().any(|t| t == written.as_str())
    };
    callback::written_elem_type(func, param)
        .or_else(|| callback::written_param_type(func, param))
        .filter(is_param)
}
