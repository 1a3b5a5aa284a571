//! The native side of a kernel: amp-spirv's native back end turns the instance into Rust
//! source for one thread (or one tile), and this module wraps it in the entry the runtime's
//! native CPU accelerator calls (`amp::__private::NativeCode::Entry`).

use amp_spirv::{CheckedKernel, ParamKind, Scalar};
use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{format_ident, quote};

/// The path generated native code names the runtime's support module by.
const RT: &str = "::amp::__private::native";

/// The name of the generated thread (or tile) function inside the entry.
const THREAD_FN: &str = "__amp_thread";

/// The entry function of instance `i` (an item for the launcher's body), the
/// `NativeCode` expression that names it, and the compile report's line about it. Without
/// native code (a construct the back end does not translate), no item and a
/// `NativeCode::Unsupported` naming the construct; when the back end fails on its own (a
/// broken invariant, or code that is not well-formed Rust: a compiler bug), the internal-error
/// diagnostic at the kernel.
pub(crate) fn entry(
    checked: &CheckedKernel,
    func: &syn::ItemFn,
    bindings: &[(syn::Ident, Scalar)],
    tiled: bool,
    i: usize,
) -> Result<(TokenStream2, TokenStream2, String), amp_spirv::Diagnostics> {
    let unsupported = |why: String| {
        let line = format!("  native: Vulkan only: {why}\n");
        (
            TokenStream2::new(),
            quote!(::amp::__private::NativeCode::Unsupported(#why)),
            line,
        )
    };
    let kernel = match checked.native(RT, THREAD_FN) {
        Ok(k) => k,
        Err(amp_spirv::NativeError::Internal(diags)) => return Err(diags),
        Err(other) => return Ok(unsupported(other.to_string())),
    };
    if std::env::var_os("AMP_DUMP_NATIVE").is_some() {
        let source = kernel.source();
        crate::dump::dump(
            "AMP_DUMP_NATIVE",
            checked.name(),
            bindings,
            "rs",
            source.as_bytes(),
        );
    }
    let generated = |code: &TokenStream2| well_formed(code, &func.sig.ident, checked.name());
    let variant = |v: &amp_spirv::NativeVariant| {
        generated(&v.code).map(|t| (t, format_ident!("{}", v.fn_name)))
    };
    // A batched launch runs every thread through a batch function: its per-thread functions
    // are left out (rustc would check and compile them for nothing).
    let per_thread = tiled || kernel.batched.is_none();
    let (thread, covering) = if per_thread {
        let covering = kernel.covering.as_ref().map(variant).transpose()?;
        (generated(&kernel.code)?, covering)
    } else {
        (TokenStream2::new(), None)
    };
    let batched = match &kernel.batched {
        Some(b) => Some((
            (b.lanes, b.wide),
            variant(&b.plain)?,
            b.covering.as_ref().map(variant).transpose()?,
        )),
        None => None,
    };
    let status = match &batched {
        Some(((lanes, false), ..)) => {
            format!("  native: runs on the native CPU accelerator (batches of {lanes} threads)\n")
        }
        Some(((lanes, true), ..)) => {
            format!(
                "  native: runs on the native CPU accelerator (batches of {lanes} threads, \
                 a run of a row's batches in one call)\n"
            )
        }
        None => match &kernel.unbatched {
            Some(why) => format!(
                "  native: runs on the native CPU accelerator, one thread at a time: {why}\n"
            ),
            None => "  native: runs on the native CPU accelerator\n".to_string(),
        },
    };
    let entry = format_ident!("__amp_native_{i}");
    let thread_fn = format_ident!("{THREAD_FN}");
    // The const-generic parameters the generated functions are generic over (all of them
    // where a thread's array takes one as its length): so is the entry, which the launcher
    // instantiates with the kernel's own, and which passes their values from them.
    let generic_names: Vec<_> = kernel
        .generics
        .iter()
        .map(|i| format_ident!("G{i}"))
        .collect();
    let (generics, turbofish, instance) = match generic_names.is_empty() {
        true => (
            TokenStream2::new(),
            TokenStream2::new(),
            TokenStream2::new(),
        ),
        false => {
            let consts = kernel.generics.iter().map(|&i| &kernel.consts[i as usize]);
            let params = consts.clone().zip(&generic_names).map(|(c, g)| {
                let t = amp_spirv::native_generic_type(c.ty);
                quote!(const #g: #t)
            });
            let own = consts.map(|c| &c.ident);
            (
                quote!(<#(#params),*>),
                quote!(::<#(#generic_names),*>),
                quote!(::<#(#own),*>),
            )
        }
    };
    // The launch's arguments as `let`s (buffers, textures, samplers, values and
    // const-generic parameters, named `{prefix}{k}`) and the argument list that passes them.
    let reads = |prefix: &str| {
        let mut lets = Vec::new();
        let mut args = Vec::new();
        for (k, (_, kind)) in kernel.params.iter().enumerate() {
            let p = format_ident!("{prefix}{k}");
            let at = Literal::usize_unsuffixed(k);
            lets.push(match kind {
                ParamKind::Buffer { .. } => quote!(let #p = l.buf(#at);),
                ParamKind::Texture { .. } => quote!(let #p = l.tex(#at);),
                ParamKind::Sampler => quote!(let #p = l.sampler(#at);),
                _ => quote!(let #p = l.value(#at);),
            });
            args.push(quote!(#p));
        }
        let mut word = 0usize;
        for (k, c) in kernel.consts.iter().enumerate() {
            let name = format_ident!("{prefix}c{k}");
            let w = Literal::usize_unsuffixed(word);
            let w1 = Literal::usize_unsuffixed(word + 1);
            // A `const` item's value is known where the entry is compiled: LLVM then folds the
            // tile shape, `tile_static` lengths and loop bounds it sets into the code. A
            // const-generic parameter's comes with the launch, unless the entry is generic
            // over it (below).
            if !c.generic {
                let t = crate::tokens::scalar_tokens(c.ty);
                let read = crate::statics::outer_const_read(c, &t);
                let value = quote!({ let value: #t = #read; value });
                let value = match c.ty {
                    Scalar::Usize => quote!(#value as u32),
                    Scalar::Norm | Scalar::Unorm => quote!(#value.get()),
                    _ => value,
                };
                word += if c.ty == Scalar::F64 { 2 } else { 1 };
                // Read where the function is called, inside the executor's closure: a value
                // captured from outside reaches the code through the closure's environment, which
                // the executor calls through `dyn Fn`, and LLVM would not fold it.
                args.push(value);
                continue;
            }
            word += if c.ty == Scalar::F64 { 2 } else { 1 };
            // A parameter the entry is generic over: its value, which LLVM folds.
            if kernel.generics.contains(&(k as u32)) {
                let g = format_ident!("G{k}");
                args.push(match c.ty {
                    Scalar::Usize => quote!((#g as u32)),
                    _ => quote!(#g),
                });
                continue;
            }
            let value = match c.ty {
                Scalar::U32 | Scalar::Usize => quote!(l.spec(#w)),
                Scalar::I32 => quote!(l.spec(#w) as i32),
                Scalar::I8 => quote!(l.spec(#w) as i8),
                Scalar::U8 => quote!(l.spec(#w) as u8),
                Scalar::I16 => quote!(l.spec(#w) as i16),
                Scalar::U16 => quote!(l.spec(#w) as u16),
                Scalar::Bool => quote!(l.spec(#w) != 0),
                Scalar::F32 | Scalar::Norm | Scalar::Unorm => quote!(f32::from_bits(l.spec(#w))),
                Scalar::F64 => {
                    quote!(f64::from_bits(u64::from(l.spec(#w)) | (u64::from(l.spec(#w1)) << 32)))
                }
            };
            lets.push(quote!(let #name = #value;));
            args.push(quote!(#name));
        }
        (lets, args)
    };
    let (lets, args) = reads("p");
    // One thread's work in loop iterations, as the compiler estimates it: how finely the
    // launch is split among the pool's threads.
    let work = Literal::u32_suffixed(kernel.thread_work);
    // A batch function's struct twins are its own types, so it gets its own reads of the
    // arguments (a batched launch runs every thread through it, a row's last ones included).
    let (batch_lets, batch_args) = reads("b");
    // The arguments are read in each branch: a variant's struct twins are its own types.
    let run = |f: &syn::Ident, batch: Option<&syn::Ident>| match (tiled, batch) {
        (true, _) => {
            quote!({ #(#lets)* l.for_each_tile(#work, move |tile| unsafe { #f #turbofish (tile, #(#args,)* oob) }); })
        }
        (false, Some(b)) => {
            let (lanes, wide) = batched.as_ref().map_or((1, false), |(shape, ..)| *shape);
            // A wide batch's guard alone: may a run of the row's batches go in one call? A
            // batch of at most `lanes` threads has none.
            let fits = match wide {
                true => {
                    let fits = format_ident!("{b}_fits");
                    quote!(move |tile, lanes, rows| unsafe { #fits #turbofish (tile, lanes, rows, #(#batch_args,)* oob) })
                }
                false => quote!(|_, _, _| false),
            };
            quote!({
                #(#batch_lets)*
                l.for_each_batched(
                    #work,
                    #lanes,
                    #wide,
                    #fits,
                    move |tile, lanes, rows| unsafe { #b #turbofish (tile, lanes, rows, #(#batch_args,)* oob) },
                );
            })
        }
        (false, None) => {
            quote!({ #(#lets)* l.for_each(#work, move |idx| unsafe { #f #turbofish (idx, #(#args,)* oob) }); })
        }
    };
    let mut items = TokenStream2::new();
    let slow_batch = batched.as_ref().map(|(_, (item, f), _)| {
        items.extend(item.clone());
        f
    });
    let fast_batch = match &batched {
        Some((_, _, Some((item, f)))) => {
            items.extend(item.clone());
            Some(f)
        }
        _ => slow_batch,
    };
    // Where every view covers the domain, the variants without the checks that proves.
    let slow = run(&thread_fn, slow_batch);
    let run = match &covering {
        Some((item, f)) => {
            items.extend(item.clone());
            let fast = run(f, fast_batch);
            quote!(if l.all_buffers_cover() { #fast } else { #slow })
        }
        None if fast_batch != slow_batch => {
            let fast = run(&thread_fn, fast_batch);
            quote!(if l.all_buffers_cover() { #fast } else { #slow })
        }
        None => slow,
    };
    let item = quote! {
        #[allow(unused_variables, unused_unsafe, clippy::all)]
        unsafe fn #entry #generics (l: &::amp::__private::NativeLaunch<'_>) {
            #thread
            #items
            let oob = l.oob();
            // SAFETY: the runtime checked the arguments against the kernel's parameters.
            #[allow(unused_unsafe)]
            unsafe {
                #run
            }
        }
    };
    Ok((
        item,
        quote!(::amp::__private::NativeCode::Entry(#entry #instance)),
        status,
    ))
}

/// The generated code `code`, when it is a sequence of Rust items; when it is not (a bug of
/// the native back end, never of the user's kernel), the internal-error diagnostic at the
/// kernel `at` instead of rustc's syntax errors in code the user never wrote.
fn well_formed(
    code: &TokenStream2,
    at: &syn::Ident,
    kernel: &str,
) -> Result<TokenStream2, amp_spirv::Diagnostics> {
    match syn::parse2::<syn::File>(code.clone()) {
        Ok(_) => Ok(code.clone()),
        Err(e) => Err(amp_spirv::internal_error(
            kernel,
            "native Rust",
            &format!("the generated code is not well-formed Rust ({e})"),
            amp_spirv::Span::of(at),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Native code the back end got wrong is a compile error at the kernel that names the
    /// kernel and calls itself an internal error, not a kernel that builds and then returns
    /// `NativeUnsupported` at its first native launch.
    #[test]
    fn generated_code_that_is_not_well_formed_is_a_compile_error_at_the_kernel() {
        let at = format_ident!("blur");
        let err = well_formed(
            &quote!(pub unsafe fn __amp_thread(idx: [u32; 1]) -> {}),
            &at,
            "blur",
        )
        .expect_err("a return type missing");
        let d = err.iter().next().expect("one diagnostic");
        assert_eq!(d.rule, amp_spirv::Rule::InternalError);
        let text = d.to_string();
        assert!(text.contains("internal error in amp-rs"), "{text}");
        assert!(text.contains("kernel `blur`"), "{text}");
        assert!(text.contains("not well-formed"), "{text}");
        let ok = well_formed(
            &quote!(
                pub unsafe fn f() {}
            ),
            &at,
            "blur",
        )
        .expect("parses");
        assert!(ok.to_string().contains("fn f"));
    }
}
