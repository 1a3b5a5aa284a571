//! User structs in kernels: `#[derive(amp::DeviceStruct)]` structs of scalars, short vectors and
//! other such structs, as view and array elements and as kernel values.
//!
//! A proc macro cannot see items outside the function it decorates, so the definitions arrive
//! with the compilation ([`Options::structs`](crate::Options::structs)). Each compilation lays
//! them out into its own [`StructTable`], which the front end consults to resolve a struct's
//! name and the kernel keeps; a [`Ty::Struct`] carries its definition, so later passes need no
//! table.
//!
//! Layout: `#[repr(C)]`, with short vectors packed (a `Float3` field is 12 bytes, 4-aligned).
//! Every member's std430 alignment then equals its C alignment (a vector is declared as an
//! array of its scalars on the device), so the C layout *is* the device layout; the kernel
//! macro asserts `size_of` and every `offset_of` against it at compile time.

use crate::diag::{Diagnostic, Diagnostics, Rule, Span, Spanned};

use crate::types::{vector_from_name, Field, Scalar, StructDef, Ty};
use std::sync::Arc;

/// The device structs of one compilation, laid out, in the order they were given.
///
/// ```
/// let point: syn::ItemStruct = syn::parse_quote! {
///     #[repr(C)]
///     struct Point { x: f32, y: f32, tag: u32 }
/// };
/// let table = amp_spirv::StructTable::build(&[point]).expect("a valid struct");
/// assert_eq!(table.by_name("Point").map(|p| p.size), Some(12));
/// ```
#[derive(Clone, Debug, Default)]
pub struct StructTable {
    defs: Vec<Arc<StructDef>>,
}

impl StructTable {
    /// Checks and lays out the struct definitions a compilation received. A struct may name
    /// the others, in any order; each is laid out once all its field types are known.
    pub fn build(defs: &[syn::ItemStruct]) -> Result<StructTable, Diagnostics> {
        let mut table = StructTable::default();
        let mut diags = Diagnostics::default();
        for def in defs {
            for d in check_definition(def) {
                diags.push(d);
            }
        }
        if !diags.is_empty() {
            return Err(diags);
        }
        let mut pending: Vec<&syn::ItemStruct> = Vec::new();
        for def in defs {
            let name = def.ident.to_string();
            if table.by_name(&name).is_none() && !pending.iter().any(|p| p.ident == name) {
                pending.push(def);
            }
        }
        while !pending.is_empty() {
            let before = pending.len();
            pending.retain(|def| match table.lay_out(def) {
                Some(s) => {
                    table.defs.push(Arc::new(s));
                    false
                }
                None => true,
            });
            if pending.len() == before {
                for def in pending {
                    diags.push(
                        Diagnostic::error(
                            Rule::StructDerive,
                            def.ident.span(),
                            format!("`{}` contains itself or a type no definition arrived for", def.ident),
                        )
                        .with_help("device structs nest other `#[derive(DeviceStruct)]` structs, without cycles"),
                    );
                }
                return Err(diags);
            }
        }
        Ok(table)
    }

    /// The struct named `name`.
    pub fn by_name(&self, name: &str) -> Option<&Arc<StructDef>> {
        self.defs.iter().find(|s| s.name == name)
    }

    /// Every struct, in the order they were laid out.
    pub fn iter(&self) -> impl Iterator<Item = &StructDef> {
        self.defs.iter().map(|d| &**d)
    }

    /// The C layout of `def`, or `None` while a field's struct type is not in the table yet.
    fn lay_out(&self, def: &syn::ItemStruct) -> Option<StructDef> {
        let mut fields = Vec::new();
        let (mut offset, mut align) = (0u32, 1u32);
        for f in &def.fields {
            let ty = self.field_type(&f.ty)?;
            let (size, a) = ty.size_align();
            offset = offset.div_ceil(a) * a;
            fields.push(Field {
                name: f.ident.as_ref().map_or(String::new(), |i| i.to_string()),
                ty,
                offset,
            });
            offset += size;
            align = align.max(a);
        }
        Some(StructDef {
            name: def.ident.to_string(),
            fields,
            size: offset.div_ceil(align) * align,
            align,
        })
    }

    /// The type of a field, when it is known.
    fn field_type(&self, ty: &syn::Type) -> Option<Ty> {
        let name = last_ident(ty)?;
        if let Some(s) = Scalar::from_name(&name) {
            return Some(Ty::Scalar(s));
        }
        if let Some((s, n)) = vector_from_name(&name) {
            return Some(Ty::Vector(s, n));
        }
        self.by_name(&name).cloned().map(Ty::Struct)
    }
}

fn last_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last()?;
            seg.arguments.is_empty().then(|| seg.ident.to_string())
        }
        syn::Type::Group(g) => last_ident(&g.elem),
        syn::Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

/// The last identifier of a type's path, generic arguments or not (`Vec` of `Vec<u8>`).
fn head_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => Some(p.path.segments.last()?.ident.to_string()),
        syn::Type::Group(g) => head_ident(&g.elem),
        syn::Type::Paren(p) => head_ident(&p.elem),
        _ => None,
    }
}

/// The path of a field's type when it names another struct (not a scalar or a vector): its
/// definition has to be fetched too.
pub fn struct_field_paths(def: &syn::ItemStruct) -> Vec<syn::Path> {
    def.fields
        .iter()
        .filter_map(|f| match &f.ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let name = last_ident(&f.ty)?;
                let builtin =
                    Scalar::from_name(&name).is_some() || vector_from_name(&name).is_some();
                (!builtin).then(|| p.path.clone())
            }
            _ => None,
        })
        .collect()
}

/// Checks a struct for use on the device, from its definition alone: `#[repr(C)]`, named
/// fields, no generics, and field types the device has (`i32`, `u32`, `f32`, `f64`, short
/// vectors, or other structs, whose own derive checks them). The derive reports these at the
/// struct.
pub fn check_definition(def: &syn::ItemStruct) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let name = &def.ident;
    let repr_c = def.attrs.iter().any(|a| {
        a.path().is_ident("repr")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|ids| ids.iter().any(|i| i == "C"))
    });
    if !repr_c {
        errors.push(
            Diagnostic::error(
                Rule::StructDefinition,
                name.span(),
                format!("device struct `{name}` needs `#[repr(C)]`"),
            )
            .with_help(
                "add `#[repr(C)]`: the device reads the struct with C's field order and offsets",
            ),
        );
    }
    if !def.generics.params.is_empty() {
        errors.push(
            Diagnostic::error(
                Rule::StructDefinition,
                def.generics.span(),
                "device structs cannot be generic",
            )
            .with_help("write one struct per field type: the device layout is fixed"),
        );
    }
    if !matches!(def.fields, syn::Fields::Named(_)) {
        errors.push(
            Diagnostic::error(
                Rule::StructDefinition,
                name.span(),
                format!("device struct `{name}` needs named fields"),
            )
            .with_help("write `struct Name { a: f32, b: u32 }`; kernels access fields by name"),
        );
    }
    if matches!(&def.fields, syn::Fields::Named(f) if f.named.is_empty()) {
        errors.push(
            Diagnostic::error(
                Rule::StructDefinition,
                name.span(),
                format!("device struct `{name}` has no fields"),
            )
            .with_help(
                "give it at least one field: an element of zero bytes has no place in device memory",
            ),
        );
    }
    for f in &def.fields {
        if let Some(d) = check_field_type(&f.ty) {
            errors.push(d);
        }
    }
    errors
}

/// The error for a field type the device cannot hold, if it is one.
fn check_field_type(ty: &syn::Type) -> Option<Diagnostic> {
    let help = "device struct fields are i32, u32, f32, f64, short vectors (`Float3`, `int_2`, ...) or other `#[derive(DeviceStruct)]` structs";
    let Some(name) = head_ident(ty) else {
        let text = quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(' ', "");
        return Some(
            Diagnostic::error(
                Rule::StructFields,
                Span::of(ty),
                format!("field type `{text}` is not supported on the device"),
            )
            .with_help(help),
        );
    };
    let specific = match name.as_str() {
        "bool" => "a struct's bytes may be any bytes, and a `bool`'s only 0 or 1; use a `u32` 0 or 1 (views and arrays of `bool` are fine)",
        "usize" | "isize" => "use `u32` or `i32`: the device's integers are 32-bit",
        "i8" | "i16" | "u8" | "u16" => {
            "struct fields are 32 or 64 bits wide; use `i32` or `u32`, or keep the small values in a view of their own (`ArrayView<u8, 1>`)"
        }
        "i64" | "i128" => "use `i32`",
        "u64" | "u128" => "use `u32`",
        "char" | "String" | "str" => {
            "text cannot be processed on the device; encode characters as `u32`"
        }
        "Vec" | "Box" | "Rc" | "Arc" | "Option" | "Result" => {
            "heap memory and enums do not exist on the device; use fixed fields"
        }
        _ => return None,
    };
    Some(
        Diagnostic::error(
            Rule::StructFields,
            Span::of(ty),
            format!("field type `{name}` is not supported on the device"),
        )
        .with_help(format!("{specific}; {help}")),
    )
}
