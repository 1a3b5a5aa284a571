//! The kernel's signature: the index parameter, buffers and scalars, and the types the kernel
//! language accepts.

use crate::diag::Spanned;
use crate::diag::{Diagnostic, Diagnostics, Rule, Span};
use crate::ir::{Container, Param, ParamKind, TextureAccess, TileDim};
use crate::structs::StructTable;
use crate::types::{vector_from_name, Elem, Len, Scalar, Ty};

/// The checked signature of a kernel.
pub struct Signature {
    /// The name of the index parameter (`None` when it was malformed).
    pub index_name: Option<String>,
    /// Rank of the launch domain.
    pub rank: u32,
    /// Parameters after the index.
    pub params: Vec<Param>,
    /// Names of parameters (the index included) whose types were rejected.
    pub rejected: Vec<String>,
    /// The tile shape, for a kernel whose index is a `TiledIndex`.
    pub tile: Option<Vec<TileDim>>,
    /// The kernel's const-generic parameters and their types.
    pub const_generics: Vec<(proc_macro2::Ident, Scalar)>,
}

/// The largest number of threads in a tile on every Vulkan device C++ AMP targets (and the
/// limit the runtime checks against the actual device).
pub const MAX_TILE_THREADS: u64 = amp_abi::MAX_TILE_THREADS as u64;

/// Checks the signature (whose types may name `structs`), recording every problem.
pub fn check_signature(
    func: &syn::ItemFn,
    structs: &StructTable,
    diags: &mut Diagnostics,
) -> Signature {
    let sig = &func.sig;
    check_qualifiers(sig, diags);
    let const_generics = check_generics(&sig.generics, structs, diags);
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        if !matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty()) {
            diags.push(
                Diagnostic::error(
                    Rule::NoReturnType,
                    ty.span(),
                    "a kernel cannot return a value",
                )
                .with_help(
                    "write results into an `ArrayViewMut` parameter and remove the return type",
                ),
            );
        }
    }

    let mut out = Signature {
        index_name: None,
        rank: 1,
        params: Vec::new(),
        rejected: Vec::new(),
        tile: None,
        const_generics,
    };
    let mut inputs = sig.inputs.iter();
    match inputs.next() {
        Some(first) => match index_param(first) {
            Ok((name, IndexKind::Simple(rank))) => {
                out.index_name = Some(name);
                out.rank = rank;
            }
            Ok((name, IndexKind::Tiled(dims))) => {
                out.index_name = Some(name);
                out.rank = dims.len() as u32;
                out.tile = Some(dims);
            }
            Err(d) => {
                diags.push(d);
                out.rejected
                    .extend(param_name(first).ok().map(|(name, _)| name));
            }
        },
        None => diags.push(
            Diagnostic::error(
                Rule::IndexFirst,
                sig.ident.span(),
                "a kernel's first parameter must be its index",
            )
            .with_help("add a first parameter such as `idx: Index<1>`"),
        ),
    }
    for input in inputs {
        match buffer_or_scalar_param(input, structs) {
            Ok(p) => {
                // rustc would reject the launcher with the same parameters (E0415); say it here.
                if out.index_name.as_deref() == Some(p.name.as_str())
                    || out.params.iter().any(|q| q.name == p.name)
                {
                    let name = &p.name;
                    diags.push(
                        Diagnostic::error(
                            Rule::ParamNames,
                            p.span,
                            format!("parameter `{name}` is declared more than once"),
                        )
                        .with_help("give every parameter its own name"),
                    );
                }
                out.params.push(p);
            }
            Err(d) => {
                diags.push(d);
                out.rejected
                    .extend(param_name(input).ok().map(|(name, _)| name));
            }
        }
    }
    out
}

fn check_qualifiers(sig: &syn::Signature, diags: &mut Diagnostics) {
    if let Some(t) = &sig.asyncness {
        diags.push(
            Diagnostic::error(Rule::PlainFn, t.span(), "a kernel cannot be `async`")
                .with_help("remove `async`"),
        );
    }
    if let Some(t) = &sig.unsafety {
        diags.push(
            Diagnostic::error(
                Rule::PlainFn,
                t.span(),
                "a kernel cannot be `unsafe`: amp kernels are checked code",
            )
            .with_help("remove `unsafe`"),
        );
    }
    if let Some(t) = &sig.constness {
        diags.push(
            Diagnostic::error(Rule::PlainFn, t.span(), "a kernel cannot be `const fn`")
                .with_help("remove `const`"),
        );
    }
    if let Some(abi) = &sig.abi {
        diags.push(
            Diagnostic::error(
                Rule::PlainFn,
                abi.span(),
                "a kernel cannot have an `extern` ABI",
            )
            .with_help("remove it"),
        );
    }
    if let Some(v) = &sig.variadic {
        diags.push(Diagnostic::error(
            Rule::PlainFn,
            v.span(),
            "a kernel cannot be variadic",
        ));
    }
}

fn check_generics(
    generics: &syn::Generics,
    structs: &StructTable,
    diags: &mut Diagnostics,
) -> Vec<(proc_macro2::Ident, Scalar)> {
    let mut out = Vec::new();
    for p in &generics.params {
        match p {
            syn::GenericParam::Const(c) => match value_type(&c.ty, structs, &mut literal_len) {
                Ok(Ty::Scalar(s)) if s != Scalar::F32 && s != Scalar::F64 => {
                    out.push((c.ident.clone(), s))
                }
                _ => diags.push(
                    Diagnostic::error(Rule::Generics, c.ty.span(), "const-generic parameters of kernels must be `usize`, `u32`, `i32` or `bool`")
                        .with_help("write for example `<const TS: usize>`"),
                ),
            },
            _ => diags.push(
                Diagnostic::error(Rule::Generics, p.span(), "generic type and lifetime parameters are not supported on kernels")
                    .with_help("use concrete types such as `ArrayView<f32, 1>`; const generics (`<const TS: usize>`) are supported"),
            ),
        }
    }
    if let Some(w) = &generics.where_clause {
        diags.push(Diagnostic::error(
            Rule::Generics,
            w.span(),
            "`where` clauses are not supported on kernels",
        ));
    }
    out
}

fn param_name(input: &syn::FnArg) -> Result<(String, &syn::Type), Diagnostic> {
    let pat_ty = match input {
        syn::FnArg::Typed(t) => t,
        syn::FnArg::Receiver(r) => {
            return Err(
                Diagnostic::error(Rule::PlainFn, r.span(), "a kernel cannot take `self`")
                    .with_help("kernels are free functions"),
            )
        }
    };
    match &*pat_ty.pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Ok((p.ident.to_string(), &pat_ty.ty))
        }
        other => Err(Diagnostic::error(
            Rule::ParamNames,
            other.span(),
            "kernel parameters must be plain names",
        )
        .with_help("write `name: Type`")),
    }
}

/// The kind of a kernel's index parameter.
enum IndexKind {
    /// `Index<N>`: the simple model.
    Simple(u32),
    /// `TiledIndex<T0, ..>`: the tiled model, with the tile shape.
    Tiled(Vec<TileDim>),
}

fn index_param(input: &syn::FnArg) -> Result<(String, IndexKind), Diagnostic> {
    let (name, ty) = param_name(input)?;
    let span = ty.span();
    let not_index = || {
        Diagnostic::error(
            Rule::IndexFirst,
            span,
            "a kernel's first parameter must be its index, of type `Index<N>` or `TiledIndex<T0, ..>`",
        )
        .with_help("write `idx: Index<1>` (rank 1, 2 or 3) or `t: TiledIndex<16, 16>` as the first parameter")
    };
    let (ident, args) = last_segment(ty).ok_or_else(not_index)?;
    if ident == "TiledIndex" {
        return Ok((name, IndexKind::Tiled(tile_dims(&args, span)?)));
    }
    if ident != "Index" {
        return Err(not_index());
    }
    let rank = rank_arg(args.first().copied(), span)?;
    if args.len() != 1 {
        return Err(not_index());
    }
    Ok((name, IndexKind::Simple(rank)))
}

/// `TiledIndex<T0, T1, T2>`: one to three tile sizes, each a literal, a `const` item or a
/// const-generic parameter.
fn tile_dims(args: &[&syn::GenericArgument], span: Span) -> Result<Vec<TileDim>, Diagnostic> {
    if args.is_empty() || args.len() > 3 {
        return Err(
            Diagnostic::error(Rule::TileShape, span, "a tile has 1, 2 or 3 dimensions")
                .with_help("write for example `TiledIndex<16, 16>`"),
        );
    }
    let mut dims = Vec::new();
    for arg in args {
        let dim = match arg {
            syn::GenericArgument::Const(e) => match (literal_usize(e), strip_braces(e)) {
                (Some(n), _) => literal_tile_dim(n, e.span())?,
                (None, syn::Expr::Path(p)) => match p.path.get_ident() {
                    Some(ident) => TileDim::Named(ident.clone()),
                    None => return Err(tile_dim_error(arg.span())),
                },
                _ => return Err(tile_dim_error(arg.span())),
            },
            // A bare name (`TiledIndex<TS, TS>`) parses as a type argument.
            syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
                match p.path.get_ident() {
                    Some(ident) => TileDim::Named(ident.clone()),
                    None => return Err(tile_dim_error(arg.span())),
                }
            }
            _ => return Err(tile_dim_error(arg.span())),
        };
        dims.push(dim);
    }
    let literal: Option<u64> = dims
        .iter()
        .map(|d| match d {
            TileDim::Lit(n) => Some(*n as u64),
            TileDim::Named(_) => None,
        })
        .product();
    if let Some(threads) = literal {
        if threads > MAX_TILE_THREADS {
            return Err(Diagnostic::error(Rule::TileShape, span, format!("a tile of {threads} threads is too large: tiles have at most {MAX_TILE_THREADS} threads"))
                .with_help("use smaller tile dimensions, for example `TiledIndex<16, 16>`"));
        }
    }
    Ok(dims)
}

fn literal_tile_dim(n: u64, span: Span) -> Result<TileDim, Diagnostic> {
    match n {
        0 => Err(Diagnostic::error(Rule::TileShape, span, "a tile dimension must be at least 1")),
        n if n > MAX_TILE_THREADS => Err(Diagnostic::error(Rule::TileShape, span, format!("a tile dimension of {n} is too large: tiles have at most {MAX_TILE_THREADS} threads"))),
        n => Ok(TileDim::Lit(n as u32)),
    }
}

fn tile_dim_error(span: Span) -> Diagnostic {
    Diagnostic::error(
        Rule::TileShape,
        span,
        "a tile dimension must be an integer literal, a `const` item or a const-generic parameter",
    )
    .with_help("write for example `TiledIndex<16, 16>` or `TiledIndex<TS, TS>`")
}

fn strip_braces(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(inner, None) => strip_braces(inner),
            _ => e,
        },
        syn::Expr::Paren(p) => strip_braces(&p.expr),
        syn::Expr::Group(g) => strip_braces(&g.expr),
        _ => e,
    }
}

fn buffer_or_scalar_param(input: &syn::FnArg, structs: &StructTable) -> Result<Param, Diagnostic> {
    let span = input.span();
    let (name, ty) = param_name(input)?;
    let kind = match ty {
        syn::Type::Reference(r) => {
            let (ident, args) = last_segment(&r.elem).ok_or_else(|| reference_error(r.span()))?;
            if ident != "Array" {
                return Err(reference_error(r.span()));
            }
            let (elem, rank) = elem_and_rank(&args, structs, r.elem.span())?;
            ParamKind::Buffer {
                elem,
                rank,
                writable: r.mutability.is_some(),
                container: Container::Array,
            }
        }
        _ => match last_segment(ty) {
            Some((ident, args)) if ident == "ArrayView" || ident == "ArrayViewMut" => {
                let (elem, rank) = elem_and_rank(&args, structs, ty.span())?;
                ParamKind::Buffer {
                    elem,
                    rank,
                    writable: ident == "ArrayViewMut",
                    container: Container::View,
                }
            }
            Some((ident, args)) if ident == "TextureView" || ident == "WriteonlyTextureView" => {
                let args: Vec<_> = args
                    .into_iter()
                    .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
                    .collect();
                let (texel, rank) = texel_and_rank(&args, structs, ty.span())?;
                ParamKind::Texture {
                    texel,
                    rank,
                    access: if ident == "TextureView" {
                        TextureAccess::Read
                    } else {
                        TextureAccess::Write
                    },
                }
            }
            Some((ident, args)) if ident == "Sampler" && args.is_empty() => ParamKind::Sampler,
            Some((ident, _)) if ident == "Array" => {
                return Err(Diagnostic::error(
                    Rule::ParamTypes,
                    ty.span(),
                    "an `Array` parameter must be taken by reference",
                )
                .with_help("write `&Array<T, N>` to read it or `&mut Array<T, N>` to write it"))
            }
            Some((ident, _)) if ident == "Index" || ident == "TiledIndex" => {
                return Err(Diagnostic::error(
                    Rule::OneIndex,
                    ty.span(),
                    "a kernel has exactly one index parameter, and it comes first",
                ))
            }
            _ => match value_type(ty, structs, &mut literal_len)? {
                // A `usize` reaches the device as the kernel's 32-bit `usize`; the launch
                // refuses a value past `u32::MAX` (`Error::ArgumentMismatch`).
                Ty::Scalar(s) => ParamKind::Scalar(s),
                // Push constants carry vectors and structs as their scalars.
                Ty::Vector(s, n) if s != Scalar::Bool && s != Scalar::Usize => {
                    ParamKind::Value(Elem::Vector(s, n))
                }
                Ty::Struct(id) => ParamKind::Value(Elem::Struct(id)),
                Ty::Tuple(_) => {
                    return Err(Diagnostic::error(
                        Rule::TupleTypes,
                        ty.span(),
                        "a kernel parameter cannot be a tuple",
                    )
                    .with_help("pass the components as separate parameters, or a `DeviceStruct`"));
                }
                other => {
                    return Err(Diagnostic::error(
                        Rule::ParamTypes,
                        ty.span(),
                        format!("kernel parameters of type `{other}` are not supported"),
                    )
                    .with_help("pass arrays in an `ArrayView` or `Array`"));
                }
            },
        },
    };
    Ok(Param { name, span, kind })
}

fn reference_error(span: Span) -> Diagnostic {
    Diagnostic::error(Rule::ParamTypes, span, "references are not allowed in kernel parameters, except `&Array<T, N>` and `&mut Array<T, N>`")
        .with_help("take views by value (`a: ArrayView<f32, 1>`) and scalars by value (`x: f32`)")
}

pub(super) fn elem_and_rank(
    args: &[&syn::GenericArgument],
    structs: &StructTable,
    span: Span,
) -> Result<(Elem, u32), Diagnostic> {
    let usage = || {
        Diagnostic::error(
            Rule::ViewTypes,
            span,
            "expected an element type and a rank, as in `ArrayView<f32, 2>`",
        )
    };
    if args.len() != 2 {
        return Err(usage());
    }
    let elem = match args[0] {
        syn::GenericArgument::Type(t) => match value_type(t, structs, &mut literal_len)? {
            Ty::Scalar(s)
                if matches!(s, Scalar::I32 | Scalar::U32 | Scalar::F32 | Scalar::F64)
                    || s.is_normalized()
                    || s.is_narrow_elem() =>
            {
                Elem::Scalar(s)
            }
            Ty::Vector(s, n) => Elem::Vector(s, n),
            Ty::Struct(id) => Elem::Struct(id),
            other => {
                return Err(Diagnostic::error(
                    Rule::ViewTypes,
                    t.span(),
                    format!("`{other}` is not supported as an element type of views and arrays"),
                )
                .with_help("use bool, i8, u8, i16, u16, i32, u32, f32, f64, Norm, Unorm or a short vector of the 32- and 64-bit ones (`Float3`, `int_2`, `Unorm4`)"))
            }
        },
        _ => return Err(usage()),
    };
    let rank = rank_arg(Some(args[1]), span)?;
    Ok((elem, rank))
}

/// The texel type and rank of `TextureView<T, N>` / `WriteonlyTextureView<T, N>`: `T` is
/// `i32`, `u32`, `f32`, `Norm` or `Unorm`, or a 2- or 4-component vector of one (formats with
/// three components are rarely images on Vulkan devices).
pub(crate) fn texel_and_rank(
    args: &[&syn::GenericArgument],
    structs: &StructTable,
    span: Span,
) -> Result<(Elem, u32), Diagnostic> {
    if args.len() != 2 {
        return Err(Diagnostic::error(
            Rule::Textures,
            span,
            "expected a texel type and a rank, as in `TextureView<Unorm4, 2>`",
        ));
    }
    let syn::GenericArgument::Type(t) = args[0] else {
        return Err(Diagnostic::error(
            Rule::Textures,
            span,
            "expected a texel type and a rank, as in `TextureView<Unorm4, 2>`",
        ));
    };
    let texel_scalar =
        |s: Scalar| !matches!(s, Scalar::Bool | Scalar::Usize | Scalar::F64) && !s.is_small_int();
    let texel = match value_type(t, structs, &mut literal_len)? {
        Ty::Scalar(s) if texel_scalar(s) => Elem::Scalar(s),
        Ty::Vector(s, n) if texel_scalar(s) && n != 3 => Elem::Vector(s, n),
        other => {
            return Err(Diagnostic::error(
                Rule::Textures,
                t.span(),
                format!("`{other}` is not supported as a texel type"),
            )
            .with_help("texels are i32, u32, f32, Norm or Unorm, or 2- or 4-component vectors of them (`Float4`, `Unorm4`); store three components in a 4-component texel"))
        }
    };
    let rank = rank_arg(Some(args[1]), span)?;
    Ok((texel, rank))
}

fn rank_arg(arg: Option<&syn::GenericArgument>, span: Span) -> Result<u32, Diagnostic> {
    let expr = match arg {
        Some(syn::GenericArgument::Const(e)) => e,
        // `Index<N>` with a bare name parses as a type argument.
        Some(syn::GenericArgument::Type(t)) => {
            return Err(Diagnostic::error(
                Rule::IndexRank,
                t.span(),
                "the rank must be an integer literal: 1, 2 or 3",
            ))
        }
        _ => {
            return Err(Diagnostic::error(
                Rule::IndexRank,
                span,
                "missing rank: write for example `Index<1>`",
            ))
        }
    };
    match literal_usize(expr) {
        Some(r @ 1..=3) => Ok(r as u32),
        Some(_) => Err(Diagnostic::error(
            Rule::IndexRank,
            expr.span(),
            "ranks 1, 2 and 3 are supported",
        )),
        None => Err(Diagnostic::error(
            Rule::IndexRank,
            expr.span(),
            "the rank must be an integer literal: 1, 2 or 3",
        )),
    }
}

/// The value of an unsuffixed or `usize`-suffixed integer literal.
pub fn literal_usize(expr: &syn::Expr) -> Option<u64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        syn::Expr::Group(g) => literal_usize(&g.expr),
        syn::Expr::Paren(p) => literal_usize(&p.expr),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => literal_usize(e),
            _ => None,
        },
        _ => None,
    }
}

/// The last segment of a type path, with its generic arguments.
pub(super) fn last_segment(ty: &syn::Type) -> Option<(String, Vec<&syn::GenericArgument>)> {
    let path = match ty {
        syn::Type::Path(p) if p.qself.is_none() => &p.path,
        syn::Type::Group(g) => return last_segment(&g.elem),
        syn::Type::Paren(p) => return last_segment(&p.elem),
        _ => return None,
    };
    let seg = path.segments.last()?;
    let args = match &seg.arguments {
        syn::PathArguments::None => Vec::new(),
        syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        syn::PathArguments::Parenthesized(_) => return None,
    };
    Some((seg.ident.to_string(), args))
}

/// An array length that must be a literal.
pub fn literal_len(len: &syn::Expr) -> Result<Len, Diagnostic> {
    match literal_usize(len) {
        Some(0) => Err(Diagnostic::error(
            Rule::ArrayLengths,
            len.span(),
            "zero-length arrays are not supported in kernels",
        )),
        Some(n) if n <= u64::from(amp_abi::MAX_LOCAL_ARRAY_LEN) => Ok(Len::Lit(n as u32)),
        Some(_) => Err(Diagnostic::error(
            Rule::ArrayLengths,
            len.span(),
            format!(
                "local arrays are limited to {} elements per dimension",
                amp_abi::MAX_LOCAL_ARRAY_LEN
            ),
        )
        .with_help("large data belongs in an `ArrayView` or an `Array`")),
        None => Err(Diagnostic::error(
            Rule::ArrayLengths,
            len.span(),
            "array lengths must be integer literals or constants",
        )),
    }
}

/// Parses the type of a kernel value (a local's annotation, a cast target, a scalar parameter);
/// `lens` resolves array lengths.
pub fn value_type(
    ty: &syn::Type,
    structs: &StructTable,
    lens: &mut dyn FnMut(&syn::Expr) -> Result<Len, Diagnostic>,
) -> Result<Ty, Diagnostic> {
    match ty {
        syn::Type::Array(a) => {
            let elem = value_type(&a.elem, structs, lens)?;
            Ok(Ty::Array(Box::new(elem), lens(&a.len)?))
        }
        syn::Type::Group(g) => value_type(&g.elem, structs, lens),
        syn::Type::Paren(p) => value_type(&p.elem, structs, lens),
        syn::Type::Tuple(t) if t.elems.is_empty() => Ok(Ty::Unit),
        syn::Type::Path(p) if p.qself.is_none() => {
            let (ident, args) = last_segment(ty).ok_or_else(|| unsupported_type(ty))?;
            if let Some(s) = Scalar::from_name(&ident) {
                if args.is_empty() && p.path.segments.len() == 1 {
                    return Ok(Ty::Scalar(s));
                }
            }
            if let Some((s, n)) = vector_from_name(&ident) {
                if args.is_empty() {
                    return Ok(Ty::Vector(s, n));
                }
            }
            if let Some(def) = structs.by_name(&ident) {
                if args.is_empty() {
                    return Ok(Ty::Struct(def.clone()));
                }
            }
            if ident == "Index" || ident == "Extent" {
                let rank = rank_arg(args.first().copied(), ty.span())?;
                return Ok(Ty::array(Ty::USIZE, rank));
            }
            Err(unsupported_type(ty))
        }
        syn::Type::Reference(r) => Err(Diagnostic::error(
            Rule::NoPointers,
            r.span(),
            "references are not allowed in kernels",
        )
        .with_help("use the value itself; views and arrays are the only data passed by reference")),
        syn::Type::Ptr(p) => Err(Diagnostic::error(
            Rule::NoPointers,
            p.span(),
            "raw pointers are not allowed in kernels",
        )
        .with_help("index an `ArrayView` or `ArrayViewMut` instead")),
        syn::Type::Slice(s) => Err(Diagnostic::error(
            Rule::NoPointers,
            s.span(),
            "slices are not allowed in kernels",
        )
        .with_help("use a fixed-size array `[T; N]` or an `ArrayView`")),
        syn::Type::BareFn(f) => Err(Diagnostic::error(
            Rule::NoPointers,
            f.span(),
            "function pointers are not allowed in kernels",
        )),
        syn::Type::TraitObject(t) => Err(Diagnostic::error(
            Rule::NoPointers,
            t.span(),
            "trait objects are not allowed in kernels",
        )),
        syn::Type::ImplTrait(t) => Err(Diagnostic::error(
            Rule::NoPointers,
            t.span(),
            "`impl Trait` is not allowed in kernels",
        )),
        syn::Type::Tuple(t) => {
            let mut items = Vec::with_capacity(t.elems.len());
            for elem in &t.elems {
                let item = value_type(elem, structs, lens)?;
                if item.is_zero_sized() {
                    return Err(Diagnostic::error(
                        Rule::TupleTypes,
                        elem.span(),
                        "a tuple in a kernel holds values, not `()`",
                    )
                    .with_help("leave the `()` out"));
                }
                items.push(item);
            }
            Ok(Ty::Tuple(items))
        }
        _ => Err(unsupported_type(ty)),
    }
}

fn unsupported_type(ty: &syn::Type) -> Diagnostic {
    let text = quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(' ', "");
    let first = text.split(['<', ':']).next().unwrap_or("").to_string();
    let (rule, help) = match first.as_str() {
        "i64" | "i128" | "isize" => (Rule::ScalarTypes, "use `i32`"),
        "u64" | "u128" => (Rule::ScalarTypes, "use `u32`"),
        "char" | "str" | "String" => (Rule::NoText, "text cannot be processed on the device; encode characters as `u32`"),
        "Vec" | "Box" | "Rc" | "Arc" => (Rule::NoHeap, "heap memory does not exist on the device; use a fixed-size array `[T; N]` or an `ArrayView`"),
        "Option" | "Result" => (Rule::NoOptionResult, "use a `bool` flag next to the value"),
        _ => (Rule::ScalarTypes, "kernels support i8, u8, i16, u16, i32, u32, f32, f64, bool, usize, short vectors (`Float3`, `int_2`, ...), fixed-size arrays of them, Index<N>, Extent<N> and `#[derive(DeviceStruct)]` structs"),
    };
    Diagnostic::error(
        rule,
        ty.span(),
        format!("type `{text}` is not supported in amp kernels"),
    )
    .with_help(help)
}
