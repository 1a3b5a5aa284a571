//! Local arrays' lengths and elements: a literal length, a `const` item's (read by its path
//! where the kernel is, or through a device function's public copy) or a const-generic
//! parameter's. Rust needs an array type's length at compile time, so a kernel with a
//! thread's array of a const-generic length has every generated function generic over its
//! const-generic parameters ([`native_generics`]); indices are clamped as docs/semantics.md
//! says, unless proven in range.

use super::{broken, index_lit, numbered, unsupported, Emitter, Invariant, Res};
use crate::back::plan::ArrayIndex;
use crate::diag::Span;
use crate::ir::*;
use crate::types::{Len, Scalar};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

/// The const-generic parameters of kernel `k` (by index in its constants) its generated
/// functions are generic over: all of them when a thread's local array takes one as its
/// length (a Rust array type needs it at compile time), else none. Each function then has
/// `const G<i>: T` (in this order, `T` the parameter's type) and its callers pass them on
/// (`::<G<i>, ..>`; the launcher's entry passes the kernel's own, and reads their values from
/// them rather than from the launch, so LLVM folds them as it does `const` items').
pub fn native_generics(k: &Kernel) -> Vec<u32> {
    let generic = |i: u32| k.consts.get(i as usize).is_some_and(|c| c.generic);
    match k.local_array_lengths().into_iter().any(generic) {
        true => (0..k.consts.len() as u32).filter(|&i| generic(i)).collect(),
        false => Vec::new(),
    }
}

/// The Rust type of a const-generic parameter the kernel uses as scalar `s` (a `usize` is
/// itself here: the parameter is the user's).
pub fn generic_type(s: Scalar) -> TokenStream {
    match s {
        Scalar::Usize => quote!(usize),
        other => {
            let t = format_ident!("{}", Emitter::scalar_name(other));
            quote!(#t)
        }
    }
}

impl Emitter<'_> {
    /// An array's length as a Rust constant expression of type `usize`, fit for an array
    /// type: a literal, a `const` item read by its path where the kernel is or through a
    /// device function's public copy, or a const-generic parameter as the generated
    /// functions' own ([`native_generics`]). The launcher checked it is from 1 to
    /// `MAX_LOCAL_ARRAY_LEN`.
    pub(super) fn len(&self, len: &Len, span: Span) -> Res<TokenStream> {
        match len {
            Len::Lit(0) => unsupported("arrays of length 0", span),
            Len::Lit(n) => {
                let n = index_lit(*n);
                Ok(quote!(#n))
            }
            Len::Const(k, _) => match self.k.consts.get(*k as usize) {
                Some(c) if !c.generic => {
                    let (path, ident, rt) = (&c.path, &c.ident, &self.rt);
                    Ok(match c.accessor {
                        true => quote!({ #rt::outer_const_len(#path #ident()) }),
                        // Converted: the launcher reports a constant that is not a `usize`
                        // (`spec_words`), once.
                        false => quote!({ #path #ident as usize }),
                    })
                }
                Some(_) => {
                    let g = numbered("G", k);
                    Ok(quote!(#g))
                }
                None => broken(Invariant::OuterConstIndex, span),
            },
        }
    }

    /// `<const G<i>: T, ..>` of [`native_generics`], for a generated function's item
    /// (nothing for a kernel without them).
    pub(super) fn generic_params(&self) -> TokenStream {
        let params: Vec<TokenStream> = self
            .generics
            .iter()
            .map(|&i| {
                let (g, t) = (numbered("G", i), generic_type(self.k.consts[i as usize].ty));
                quote!(const #g: #t)
            })
            .collect();
        match params.is_empty() {
            true => TokenStream::new(),
            false => quote!(<#(#params),*>),
        }
    }

    /// `::<G<i>, ..>`: a generated function's call from another, passing them on.
    pub(super) fn generic_args(&self) -> TokenStream {
        let names: Vec<Ident> = self.generics.iter().map(|&i| numbered("G", i)).collect();
        match names.is_empty() {
            true => TokenStream::new(),
            false => quote!(::<#(#names),*>),
        }
    }

    /// A local array index, clamped into the array (the SPIR-V back end's rule: an index past
    /// the end reads and writes the last element).
    pub(super) fn array_index(&mut self, index: &Expr, len: &Len, span: Span) -> Res<TokenStream> {
        let at = self.at;
        let n = self.len_u32(len, span)?;
        if let ArrayIndex::Literal(v) = self.plan.array_index(index, len) {
            let v = index_lit(v);
            return Ok(quote_spanned!(at=> #v));
        }
        let i = self.as_u32(index)?;
        let rt = &self.rt;
        Ok(quote_spanned!(at=> #rt::ix(#i, #n)))
    }

    /// A local array's length as a `u32` expression: `4u32`, or a named length converted.
    pub(super) fn len_u32(&self, len: &Len, span: Span) -> Res<TokenStream> {
        let at = self.at;
        let n = self.len(len, span)?;
        Ok(match len {
            Len::Lit(n) => proc_macro2::Literal::u32_suffixed(*n).into_token_stream(),
            Len::Const(..) => quote_spanned!(at=> (#n as u32)),
        })
    }

    /// An element of a local array as a Rust place or value: `base[index]`, with the index
    /// clamped as docs/semantics.md says, or, where a guard proves it in range for the whole
    /// tile (`guard.rs`), unclamped and without Rust's own check, so the work-item loop
    /// around it can be vectorized.
    pub(super) fn array_element(
        &mut self,
        base: &TokenStream,
        index: &Expr,
        len: &Len,
        place: bool,
        span: Span,
    ) -> Res<TokenStream> {
        let at = self.at;
        if !matches!(index.kind, ExprKind::Lit(_)) && pure_index(index) {
            let n = self.len_u32(len, span)?;
            // In range: the range analysis proves it, or the guard holding here does. Rust's
            // own check would be a branch to a panic LLVM cannot always remove, and a loop
            // with one is not vectorized.
            if self.plan.array_index(index, len) == ArrayIndex::Proven
                || self.guard_below(index, &quote_spanned!(at=> (#n as u64)))?
            {
                let i = self.as_u32(index)?;
                return Ok(unchecked_element(
                    at,
                    base,
                    &quote_spanned!(at=> (#i) as usize),
                    place,
                ));
            }
        }
        let ix = self.array_index(index, len, span)?;
        Ok(quote_spanned!(at=> (#base[#ix])))
    }
}

/// Element `index` (a `usize` expression known to be in range) of the array or slice `base`,
/// as a place (`place`) or a value, without Rust's check. The index is evaluated first, in a
/// block of its own, so it may read `base` itself.
pub(super) fn unchecked_element(
    at: proc_macro2::Span,
    base: &TokenStream,
    index: &TokenStream,
    place: bool,
) -> TokenStream {
    match place {
        true => quote_spanned!(at=> (*{ let ix_: usize = #index; (#base).get_unchecked_mut(ix_) })),
        false => quote_spanned!(at=> (*{ let ix_: usize = #index; (#base).get_unchecked(ix_) })),
    }
}

/// Element `index` (a `usize` below the region's length) of a tile call's region that `base`,
/// a `*mut` pointer to its first element, names (`tile_frames.rs`): a place.
pub(super) fn pointed_element(
    at: proc_macro2::Span,
    base: &TokenStream,
    index: &TokenStream,
) -> TokenStream {
    quote_spanned!(at=> (*{ let ix_: usize = #index; #base.add(ix_) }))
}

/// Whether index expression `e` has no side effects (no atomics, assignments, buffer reads
/// that may record an out-of-bounds report, or statements), so computing it before or after
/// the indices around it changes nothing.
pub(super) fn pure_index(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::ScalarParam(_)
        | ExprKind::OuterConst(_)
        | ExprKind::BufferExtent(_) => true,
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Bitcast(a) => pure_index(a),
        ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
            pure_index(a) && pure_index(b)
        }
        ExprKind::Builtin(_, args) | ExprKind::Math(_, args) => args.iter().all(pure_index),
        _ => false,
    }
}
