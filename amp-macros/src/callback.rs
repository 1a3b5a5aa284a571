//! User structs for kernels, through the "macro callback" trick.
//!
//! A proc macro sees only the item it decorates, so `#[kernel(amp)]` cannot read the
//! definition of a struct declared elsewhere. `#[derive(DeviceStruct)]` therefore emits, next
//! to the struct, a `macro_rules!` named `__amp_device_struct_<Name>` that carries the
//! struct's definition. When the kernel attribute meets a view or array element type it has no
//! definition for, it expands to a call of that macro, by the same path as the type
//! (`shapes::Particle` -> `shapes::__amp_device_struct_Particle!`); the macro re-applies the
//! kernel attribute with the definition appended as a `__device_structs(..)` argument. Nested
//! structs chain the same way, one round per struct.

use amp_spirv::{CompiledKernel, Scalar};
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote, quote_spanned};

/// The attribute argument that carries struct definitions back to the kernel attribute.
pub const DEFINITIONS_ARG: &str = "__device_structs";

/// The name of the definition-carrying macro of struct `name`.
fn definition_macro(name: &syn::Ident) -> syn::Ident {
    format_ident!("__amp_device_struct_{}", name, span = name.span())
}

/// `#[derive(DeviceStruct)]`: the seal and element type for views, and the definition macro.
pub fn derive_device_struct(input: TokenStream2) -> TokenStream2 {
    let def: syn::ItemStruct = match syn::parse2(input) {
        Ok(d) => d,
        Err(e) => {
            let msg = format!("#[derive(DeviceStruct)] applies to structs: {e}");
            return syn::Error::new(e.span(), msg).to_compile_error();
        }
    };
    let errors = amp_spirv::check_struct_definition(&def);
    if !errors.is_empty() {
        return errors
            .iter()
            .map(crate::diagnostics::error_tokens)
            .collect();
    }
    let name = &def.ident;
    let name_str = name.to_string();
    let mac = definition_macro(name);
    let fields: Vec<TokenStream2> = def
        .fields
        .iter()
        .map(|f| {
            let (ident, ty) = (&f.ident, &f.ty);
            quote!(#ident: #ty)
        })
        .collect();
    let fields = &fields;
    // Each field must be a device element (a type the kernel knows by name could still be a
    // user's look-alike), checked at the field's type.
    let field_checks = def.fields.iter().map(|f| {
        let ty = &f.ty;
        quote_spanned!(syn::spanned::Spanned::span(ty)=> ::amp::__private::assert_device_field::<#ty>();)
    });
    let field_sizes = def.fields.iter().map(|f| {
        let ty = &f.ty;
        quote!(::core::mem::size_of::<#ty>())
    });
    let padding_msg = format!(
        "device struct `{name_str}` has padding: its fields' sizes do not add up to its size; \
         help: write the padding out as a field (`_pad: u32`) so that every byte the device \
         reads is defined, or reorder the fields from the largest alignment down"
    );
    let checks = quote_spanned! {name.span()=>
        const _: () = {
            #(#field_checks)*
            ::core::assert!(
                ::core::mem::size_of::<#name>() == 0 #(+ #field_sizes)*,
                #padding_msg
            );
        };
    };
    let export = callback_export(
        &mac,
        &def,
        quote! {
            (device ($($attr:tt)*) $($item:tt)*) => {
                // `#[amp::device]` has no arguments: the device attribute accepts `(, ..)`.
                #[::amp::device($($attr)*, __device_structs(#[repr(C)] struct #name { #(#fields),* }))]
                $($item)*
            };
            (($($attr:tt)*) $($item:tt)*) => {
                #[::amp::kernel($($attr)*, __device_structs(#[repr(C)] struct #name { #(#fields),* }))]
                $($item)*
            };
        },
    );
    quote! {
        #checks

        impl ::amp::DeviceStructSeal for #name {}

        // SAFETY: `#[repr(C)]` (checked by the derive), every field a `DeviceElement` (no
        // padding, any bit pattern) and no padding between or after them (the `const` above).
        unsafe impl ::amp::DeviceElement for #name {
            const TYPE: ::amp::ScalarType = ::amp::ScalarType::U32;
            const ELEM: ::amp::ElemType = ::amp::ElemType::Struct {
                name: #name_str,
                size: ::core::mem::size_of::<#name>() as u32,
            };
        }

        #export
    }
}

/// The callback macro `name` with the rules `rules`, placed next to `item` so that the item's
/// path reaches it, from this crate and from crates that depend on it, by path or through `use`.
///
/// A `macro_rules!` macro leaves its crate only through `#[macro_export]`, which puts it at the
/// crate root: so it is exported under a name unique in the crate (`<name>_<hash>`) and
/// re-exported here as `name` by a `pub use` of that one-segment name. (rustc rejects, inside the
/// defining crate, a path of more than one segment to a macro-expanded exported macro; the
/// one-segment `use` is not such a path, and other crates may use any path.) Every item's
/// callback is exported, private ones included: a public device function's source calls its
/// module's private helpers by path, and a dependent crate's kernel fetches those too. One
/// declared inside a function body is a "non-local definition", allowed: it is exported all the
/// same, and only reached by the re-export.
pub fn callback_export(
    name: &syn::Ident,
    item: &impl quote::ToTokens,
    rules: TokenStream2,
) -> TokenStream2 {
    let unique = unique_export_name(name, item);
    quote! {
        #[doc(hidden)]
        #[macro_export]
        #[allow(non_local_definitions)]
        macro_rules! #unique { #rules }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub use #unique as #name;
    }
}

/// A name for an exported (`#[macro_export]`) callback macro that is unique in its crate, where
/// every exported macro lives: `base` with a hash of the item's tokens and of where it is, so
/// that same-named device functions or structs of different modules do not collide.
pub fn unique_export_name(base: &syn::Ident, item: &impl quote::ToTokens) -> syn::Ident {
    let text = format!(
        "{} {:?}",
        item.to_token_stream(),
        syn::spanned::Spanned::span(item)
    );
    // FNV-1a: stable across builds and toolchains, unlike `DefaultHasher`.
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format_ident!("{}_{:016x}", base, hash, span = base.span())
}

/// Parses the struct definitions of a `__device_structs(..)` argument.
pub fn parse_definitions(tokens: TokenStream2) -> syn::Result<Vec<syn::ItemStruct>> {
    let file: syn::File = syn::parse2(tokens)?;
    Ok(file
        .items
        .into_iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(s),
            _ => None,
        })
        .collect())
}

/// The element type of a view or array parameter, as written (`Particle` of
/// `ArrayView<Particle, 1>`, of `&Array<shapes::Particle, 1>`).
fn buffer_elem_type(ty: &syn::Type) -> Option<&syn::Type> {
    let ty = match ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if !matches!(
        seg.ident.to_string().as_str(),
        "ArrayView" | "ArrayViewMut" | "Array"
    ) {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// The path of a type that may name a device struct: a plain path whose last segment is
/// capitalised and is neither a short vector nor a std type the compiler reports itself.
fn struct_candidate(ty: &syn::Type) -> Option<&syn::Path> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let seg = p.path.segments.last()?;
    let name = seg.ident.to_string();
    let capitalised = name.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    let std_type = matches!(
        name.as_str(),
        "Vec"
            | "Box"
            | "Rc"
            | "Arc"
            | "Option"
            | "Result"
            | "String"
            | "Index"
            | "Extent"
            | "Sampler"
    );
    let builtin =
        Scalar::from_name(&name).is_some() || amp_spirv::vector_from_name(&name).is_some();
    (capitalised && !std_type && !builtin && seg.arguments.is_empty()).then_some(&p.path)
}

/// The first struct the kernel needs whose definition has not arrived: from its view and
/// array element types, then from the fields of the structs that did arrive.
pub fn missing_struct<'a>(
    func: &'a syn::ItemFn,
    known: &'a [syn::ItemStruct],
) -> Option<syn::Path> {
    let is_known = |path: &syn::Path| {
        let name = &path.segments.last().expect("non-empty").ident;
        known.iter().any(|k| k.ident == *name)
    };
    // A generic parameter (`ArrayView<T, 1>`) is no struct: the compiler reports generics.
    let is_generic = |path: &syn::Path| {
        func.sig.generics.params.iter().any(|g| match g {
            syn::GenericParam::Type(t) => path.is_ident(&t.ident),
            _ => false,
        })
    };
    struct_paths(func, known)
        .into_iter()
        .find(|p| !is_known(p) && !is_generic(p))
}

/// Re-applies the `#[amp::device(attr)]` attribute of `func` through the definition macro of
/// the struct at `path`, as [`request_definition`] does for kernels.
pub fn request_device_definition(
    path: &syn::Path,
    attr: TokenStream2,
    func: &syn::ItemFn,
) -> TokenStream2 {
    through_definition_macro(path, quote::quote!(device (#attr) #func))
}

/// The first struct a device function names (in its signature, its annotations, its struct
/// expressions) whose definition has not arrived; its standalone check needs their layouts.
pub fn missing_device_fn_struct(
    func: &syn::ItemFn,
    known: &[syn::ItemStruct],
) -> Option<syn::Path> {
    struct Named(Vec<syn::Path>);
    impl<'ast> syn::visit::Visit<'ast> for Named {
        fn visit_type(&mut self, ty: &'ast syn::Type) {
            if let Some(path) = struct_candidate(ty) {
                self.0.push(path.clone());
            }
            syn::visit::visit_type(self, ty);
        }
        fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
            self.0.push(e.path.clone());
            syn::visit::visit_expr_struct(self, e);
        }
    }
    let mut named = Named(Vec::new());
    syn::visit::Visit::visit_item_fn(&mut named, func);
    // A type parameter (`x: T`) is no struct.
    let is_type_param = |path: &syn::Path| {
        func.sig.generics.params.iter().any(|g| match g {
            syn::GenericParam::Type(t) => path.is_ident(&t.ident),
            _ => false,
        })
    };
    named.0.into_iter().find(|path| {
        let name = &path.segments.last().expect("non-empty").ident;
        !known.iter().any(|k| k.ident == *name) && !is_type_param(path)
    })
}

/// Re-applies the kernel attribute through the definition macro of the struct at `path`.
pub fn request_definition(
    path: &syn::Path,
    attr: TokenStream2,
    func: &syn::ItemFn,
) -> TokenStream2 {
    through_definition_macro(path, quote::quote!((#attr) #func))
}

/// `Path::__amp_device_struct_Name! { input }`: the definition macro of the struct at `path`,
/// called with `input`.
fn through_definition_macro(path: &syn::Path, input: TokenStream2) -> TokenStream2 {
    let mut mac = path.clone();
    let last = mac.segments.last_mut().expect("non-empty");
    last.ident = definition_macro(&last.ident);
    let span = syn::spanned::Spanned::span(path);
    quote_spanned!(span=> #mac! { #input })
}

/// The element type tokens of buffer parameter `name` as the user wrote them.
pub fn written_elem_type(func: &syn::ItemFn, name: &str) -> Option<TokenStream2> {
    func.sig.inputs.iter().find_map(|input| match input {
        syn::FnArg::Typed(t) => match &*t.pat {
            syn::Pat::Ident(id) if id.ident == name => {
                buffer_elem_type(&t.ty).map(|ty| quote!(#ty))
            }
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    })
}

/// The type of parameter `name` as the user wrote it (a struct passed by value).
pub fn written_param_type(func: &syn::ItemFn, name: &str) -> Option<TokenStream2> {
    func.sig.inputs.iter().find_map(|input| match input {
        syn::FnArg::Typed(t) => match &*t.pat {
            syn::Pat::Ident(id) if id.ident == name => {
                let ty = &t.ty;
                Some(quote!(#ty))
            }
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    })
}

/// The path each struct is named by in the kernel's signature or in its parent's fields.
fn struct_paths(func: &syn::ItemFn, known: &[syn::ItemStruct]) -> Vec<syn::Path> {
    let from_params = func.sig.inputs.iter().filter_map(|input| match input {
        // A view's element type, or the parameter's own type (a struct by value).
        syn::FnArg::Typed(t) => struct_candidate(buffer_elem_type(&t.ty).unwrap_or(&t.ty)),
        syn::FnArg::Receiver(_) => None,
    });
    let from_fields = known
        .iter()
        .flat_map(|def| def.fields.iter().filter_map(|f| struct_candidate(&f.ty)));
    from_params.chain(from_fields).cloned().collect()
}

/// Compile-time assertions that each struct's host layout is the one the kernel was compiled
/// for: size and every field offset. A mismatch (a missing `#[repr(C)]`, a field reordered
/// since) fails the build at the kernel.
pub fn layout_assertions(
    func: &syn::ItemFn,
    known: &[syn::ItemStruct],
    kernel: &CompiledKernel,
) -> TokenStream2 {
    let paths = struct_paths(func, known);
    let mut out = TokenStream2::new();
    for def in &kernel.structs {
        let Some(path) = paths
            .iter()
            .find(|p| p.segments.last().is_some_and(|s| s.ident == def.name))
        else {
            continue;
        };
        let size = def.size as usize;
        let size_msg = format!(
            "the host layout of `{}` differs from the kernel's: it should be {size} bytes",
            def.name
        );
        let offsets = def.fields.iter().map(|f| {
            let field = format_ident!("{}", f.name);
            let offset = f.offset as usize;
            let msg = format!(
                "the host layout of `{}` differs from the kernel's: `{}` should be at byte {offset}",
                def.name, f.name
            );
            quote!(::core::assert!(::core::mem::offset_of!(#path, #field) == #offset, #msg);)
        });
        out.extend(quote! {
            const _: () = {
                ::core::assert!(::core::mem::size_of::<#path>() == #size, #size_msg);
                #(#offsets)*
            };
        });
    }
    out
}
