//! Expressions as Rust expressions: operators with the device's defined results, casts,
//! elements of locals, buffer accesses with their bounds checks, atomics, built-ins and math.
//! Every compound expression is parenthesized, so precedence never depends on the context.

use super::lengths::{pointed_element, pure_index, unchecked_element};
use super::{conjunction, index_lit, numbered, unsupported, Emitter, Res};
use crate::back::plan::{self, ArrayIndex, IndexCheck};
use crate::diag::Span;
use crate::ir::*;
use crate::pass::uniform::uniform_expr;
use crate::types::{Elem, Len, Scalar, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};

impl Emitter<'_> {
    /// An expression; its Rust type is the IR type's ([`Emitter::ty`]).
    pub(super) fn expr(&mut self, e: &Expr) -> Res<TokenStream> {
        let span = e.span;
        let at = self.at;
        // The condition a split work-item loop decides (`tile.rs`): a constant in each part.
        let folded = self.tile.as_ref().and_then(|st| st.folded);
        if let Some((cond, value)) = folded {
            if std::ptr::eq(cond as *const Expr, e) {
                return Ok(quote_spanned!(at=> #value));
            }
        }
        Ok(match &e.kind {
            ExprKind::Lit(l) => self.lit(*l, &e.ty, span)?,
            ExprKind::Local(id) if self.dyn_arrays.contains_key(id) => {
                return unsupported(
                    "a whole array whose length is a named constant (index it to its elements)",
                    span,
                )
            }
            ExprKind::Local(id) => self.local(*id),
            ExprKind::ScalarParam(p) => {
                let p = numbered("p", p);
                quote_spanned!(at=> #p)
            }
            ExprKind::OuterConst(k) => {
                let c = numbered("c", k);
                quote_spanned!(at=> #c)
            }
            ExprKind::Unary(op, a) => {
                let (s, n) = self.shape(&a.ty, span)?;
                let v = self.expr(a)?;
                let op = *op;
                self.lanes(n, &[v], |x| {
                    let x = &x[0];
                    match (op, s.native()) {
                        (UnOp::Neg, s) if s.is_float() => quote_spanned!(at=> (-#x)),
                        (UnOp::Neg, _) => quote_spanned!(at=> (#x.wrapping_neg())),
                        (UnOp::Not, _) => quote_spanned!(at=> (!#x)),
                    }
                })?
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty, span)?,
            ExprKind::Logic(op, a, b) => {
                let (l, r) = (self.expr(a)?, self.expr(b)?);
                match op {
                    LogicOp::And => quote_spanned!(at=> (#l && #r)),
                    LogicOp::Or => quote_spanned!(at=> (#l || #r)),
                }
            }
            ExprKind::Cast(a) if a.ty.is_normalized() || e.ty.is_normalized() => {
                self.normalized_cast(a, &e.ty, span)?
            }
            ExprKind::Cast(a) => {
                let from = self.scalar_of(&a.ty, span)?;
                let to = self.scalar_of(&e.ty, span)?;
                let v = self.expr(a)?;
                let t = self.scalar(to, span)?;
                match (from, to) {
                    (f, t) if f == t => v,
                    (Scalar::Bool, _) => quote_spanned!(at=> ((#v) as u32 as #t)),
                    _ => quote_spanned!(at=> ((#v) as #t)),
                }
            }
            ExprKind::Bitcast(a) => {
                let from = self.scalar_of(&a.ty, span)?;
                let to = self.scalar_of(&e.ty, span)?;
                let v = self.expr(a)?;
                let bits = match from {
                    Scalar::F32 => quote_spanned!(at=> (#v).to_bits()),
                    Scalar::I32 | Scalar::U32 | Scalar::Usize => quote_spanned!(at=> ((#v) as u32)),
                    _ => return unsupported(format!("a bitcast from `{}`", from.name()), span),
                };
                match to {
                    Scalar::F32 => quote_spanned!(at=> f32::from_bits(#bits)),
                    Scalar::I32 => quote_spanned!(at=> (#bits as i32)),
                    Scalar::U32 | Scalar::Usize => bits,
                    _ => return unsupported(format!("a bitcast to `{}`", to.name()), span),
                }
            }
            ExprKind::Element(..) if self.dyn_root(e).is_some() => self.dyn_element(e, span)?,
            ExprKind::Element(base, index) => {
                let len = match &base.ty {
                    Ty::Array(_, len) => len.clone(),
                    Ty::Vector(_, n) => Len::Lit(*n),
                    Ty::Struct(def) => {
                        let f = numbered("f", field(def, index, span)?.0);
                        let b = self.expr(base)?;
                        return Ok(quote_spanned!(at=> (#b.#f)));
                    }
                    Ty::Tuple(items) => {
                        let f = syn::Index::from(tuple_item(items, index, span)?.0);
                        let b = self.expr(base)?;
                        return Ok(quote_spanned!(at=> (#b.#f)));
                    }
                    other => return unsupported(format!("indexing `{other}`"), span),
                };
                let b = self.expr(base)?;
                self.array_element(&b, index, &len, false, span)?
            }
            ExprKind::BufferLoad(p, idx) if self.is_shared(*p) => {
                self.buffer_elem(*p, span)?;
                let (ptr, rt) = (self.checked_ptr(*p, idx)?, &self.rt);
                quote_spanned!(at=> match #ptr {
                    Some(ptr) => #rt::read_relaxed(ptr),
                    None => ::core::default::Default::default(),
                })
            }
            ExprKind::BufferLoad(p, idx) => {
                self.buffer_elem(*p, span)?;
                let (pn, pl) = (numbered("p", p), index_lit(*p));
                match self.bounds_check(*p, idx)? {
                    (index, None) => quote_spanned!(at=> #pn.load_unchecked(#index)),
                    (index, Some(ok)) => quote_spanned!(at=>
                        { let bix = #index; #pn.load_if(bix, #ok, #pl, oob) }
                    ),
                }
            }
            ExprKind::BufferExtent(p) => {
                let p = numbered("p", p);
                quote_spanned!(at=> #p.extent)
            }
            ExprKind::ArrayList(items) if matches!(e.ty, Ty::Struct(_)) => {
                let name = self.ty(&e.ty, span)?;
                let mut fields = Vec::new();
                for (k, x) in items.iter().enumerate() {
                    let (f, v) = (numbered("f", k), self.expr(x)?);
                    fields.push(quote_spanned!(at=> #f: #v));
                }
                quote_spanned!(at=> #name { #(#fields),* })
            }
            ExprKind::ArrayList(items) if matches!(e.ty, Ty::Tuple(_)) => {
                let parts = items
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Res<Vec<_>>>()?;
                quote_spanned!(at=> (#(#parts,)*))
            }
            ExprKind::ArrayList(items) => {
                let parts = items
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Res<Vec<_>>>()?;
                quote_spanned!(at=> [#(#parts),*])
            }
            ExprKind::ArrayRepeat(item, n) => {
                let (v, n) = (self.expr(item)?, index_lit(*n));
                quote_spanned!(at=> [#v; #n])
            }
            ExprKind::Builtin(f, args) => self.builtin(*f, args, &e.ty, span)?,
            ExprKind::Math(f, args) => self.math(*f, args, span)?,
            ExprKind::If(cond, then, els) => {
                let c = self.expr(cond)?;
                let t = self.block(then)?;
                match els {
                    None => quote_spanned!(at=> (if #c #t)),
                    Some(x) => {
                        let x = match &x.kind {
                            ExprKind::Block(b) => self.block(b)?,
                            _ => {
                                let x = self.expr(x)?;
                                quote_spanned!(at=> { #x })
                            }
                        };
                        quote_spanned!(at=> (if #c #t else #x))
                    }
                }
            }
            ExprKind::Block(b) => self.block(b)?,
            ExprKind::While(cond, body) => self.while_loop(Some(cond), body)?,
            ExprKind::Loop(body) => self.while_loop(None, body)?,
            ExprKind::For(r) => self.for_loop(r, span)?,
            ExprKind::Break => self.break_(span)?,
            ExprKind::Continue => self.continue_(span)?,
            ExprKind::Return => self.return_(),
            ExprKind::Assign(place, value) => {
                // The value first, then the place (Rust's order for primitive assignments).
                let v = self.expr(value)?;
                let tv = self.temp();
                match place {
                    Place::Local(..) => {
                        let p = self.local_place(place, span)?;
                        quote_spanned!(at=> { let #tv = #v; #p = #tv; })
                    }
                    Place::Buffer(p, idx) if self.is_shared(*p) => {
                        self.buffer_elem(*p, span)?;
                        let (ptr, rt) = (self.checked_ptr(*p, idx)?, &self.rt);
                        // Every thread stores to this one element (a flag): skipping the
                        // stores that change nothing keeps its cache line shared.
                        let write = match idx.iter().all(|x| uniform_expr(x, &|_| false)) {
                            true => quote_spanned!(at=> write_relaxed_changed),
                            false => quote_spanned!(at=> write_relaxed),
                        };
                        quote_spanned!(at=> {
                            let #tv = #v;
                            if let Some(ptr) = #ptr { #rt::#write(ptr, #tv); }
                        })
                    }
                    Place::Buffer(p, idx) => {
                        self.buffer_elem(*p, span)?;
                        let (pn, pl) = (numbered("p", p), index_lit(*p));
                        match self.bounds_check(*p, idx)? {
                            (index, None) => quote_spanned!(at=>
                                { let #tv = #v; #pn.store_unchecked(#index, #tv); }
                            ),
                            (index, Some(ok)) => quote_spanned!(at=> {
                                let #tv = #v; let bix = #index;
                                #pn.store_if(bix, #ok, #tv, #pl, oob);
                            }),
                        }
                    }
                }
            }
            ExprKind::CompoundAssign(op, place, value) => {
                let v = self.expr(value)?;
                let tv = self.temp();
                let ty = self.place_ty(place, span)?;
                let shared = matches!(place, Place::Buffer(p, _) if self.is_shared(*p));
                let rt = &self.rt;
                let old = match shared {
                    true => quote_spanned!(at=> #rt::read_relaxed(ptr)),
                    false => quote_spanned!(at=> (*ptr)),
                };
                let new = self.binary_value(
                    *op,
                    &ty,
                    &value.ty,
                    &old,
                    &quote_spanned!(at=> #tv),
                    &ty,
                    span,
                )?;
                let ptr = match place {
                    Place::Local(..) => {
                        let p = self.local_place(place, span)?;
                        return Ok(quote_spanned!(at=>
                            { let #tv = #v; let ptr = &mut #p; *ptr = #new; }
                        ));
                    }
                    Place::Buffer(p, idx) => self.checked_ptr(*p, idx)?,
                };
                match shared {
                    true => {
                        let rt = &self.rt;
                        quote_spanned!(at=> {
                            let #tv = #v;
                            if let Some(ptr) = #ptr { #rt::write_relaxed(ptr, #new); }
                        })
                    }
                    false => quote_spanned!(at=>
                        { let #tv = #v; if let Some(ptr) = #ptr { *ptr = #new; } }
                    ),
                }
            }
            ExprKind::Atomic(a) => self.atomic(a, span)?,
            ExprKind::Texture(op, p, operands) => self.texture_op(*op, *p, operands)?,
            ExprKind::Barrier(_) => {
                return unsupported("a barrier inside an expression or a non-tiled kernel", span)
            }
            ExprKind::Subgroup(op, _) => self.subgroup_fact(*op, span)?,
            // The threads of a tile run one after another on one OS thread: a fence only
            // orders global memory for other tiles (tile_static memory is the tile's own),
            // acquire-release as on the device.
            ExprKind::MemoryFence(Fence::TileStatic) => quote_spanned!(at=> ()),
            ExprKind::MemoryFence(_) => quote_spanned!(at=>
                ::core::sync::atomic::fence(::core::sync::atomic::Ordering::AcqRel)
            ),
        })
    }

    /// The local at the root of a chain of `Element`s, when it is a `tile_static` array whose
    /// length is a named constant (a flat vector, see `tile.rs`).
    fn dyn_root(&self, e: &Expr) -> Option<LocalId> {
        let mut e = e;
        while let ExprKind::Element(base, _) = &e.kind {
            e = base;
        }
        match e.kind {
            ExprKind::Local(id) if self.dyn_arrays.contains_key(&id) => Some(id),
            _ => None,
        }
    }

    /// An element of a flat `tile_static` array: the chain's indices, outermost first, make
    /// one clamped row-major index.
    fn dyn_element(&mut self, e: &Expr, span: Span) -> Res<TokenStream> {
        let at = self.at;
        let mut chain = Vec::new();
        let mut x = e;
        while let ExprKind::Element(base, index) = &x.kind {
            chain.push(&**index);
            x = base;
        }
        chain.reverse();
        let Some(id) = self.dyn_root(e) else {
            return unsupported("this element", span);
        };
        let (dims, _) = self.dyn_arrays[&id].clone();
        if chain.len() < dims.len() {
            return unsupported(
                "a part of an array whose length is a named constant (index it to its elements)",
                span,
            );
        }
        let name = self.local(id);
        let mut s = match self.dyn_index(id, &dims, &chain[..dims.len()])? {
            // `flat` is below the array's length: proven, or clamped (`dyn_index`).
            (flat, _) if self.unfilled.contains(&id) => pointed_element(at, &name, &flat),
            (flat, true) => unchecked_element(at, &name, &flat, false),
            (flat, false) => quote_spanned!(at=> (#name[#flat])),
        };
        // Components or fields below the element, as usual.
        let mut ty = self.k.locals[id].ty.clone();
        for _ in 0..dims.len() {
            ty = match ty {
                Ty::Array(e, _) => *e,
                other => other,
            };
        }
        for i in &chain[dims.len()..] {
            match ty {
                Ty::Struct(def) => {
                    let (k, field_ty) = field(&def, i, span)?;
                    let f = numbered("f", k);
                    s = quote_spanned!(at=> (#s.#f));
                    ty = field_ty;
                }
                Ty::Tuple(items) => {
                    let (k, item_ty) = tuple_item(&items, i, span)?;
                    let f = syn::Index::from(k);
                    s = quote_spanned!(at=> (#s.#f));
                    ty = item_ty;
                }
                Ty::Vector(c, n) => {
                    let ix = self.array_index(i, &Len::Lit(n), span)?;
                    s = quote_spanned!(at=> (#s[#ix]));
                    ty = Ty::Scalar(c);
                }
                other => return unsupported(format!("indexing `{other}`"), span),
            }
        }
        Ok(s)
    }

    /// The row-major index of `idx` (each clamped into its dimension) in flat array `id` of
    /// dimensions `dims` (`u32` expressions), and whether every component is known to be in
    /// range (proved by the range analysis, or by a guard holding here: `guard.rs`), so the
    /// index is the element's and needs neither clamps nor Rust's check.
    fn dyn_index(
        &mut self,
        id: LocalId,
        dims: &[TokenStream],
        idx: &[&Expr],
    ) -> Res<(TokenStream, bool)> {
        let at = self.at;
        let mut lens = Vec::new();
        let mut ty = &self.k.locals[id].ty;
        while let Ty::Array(elem, len) = ty {
            lens.push(len.clone());
            ty = elem;
        }
        let rt = self.rt.clone();
        let mut flat = TokenStream::new();
        let mut in_range = true;
        for (d, (n, i)) in dims.iter().zip(idx).enumerate() {
            let proven = match lens.get(d) {
                Some(len) if pure_index(i) => {
                    self.plan.array_index(i, len) != ArrayIndex::Clamped
                        || self.guard_below(i, &quote_spanned!(at=> ((#n) as u64)))?
                }
                _ => false,
            };
            in_range &= proven;
            let i = self.as_u32(i)?;
            let c = match proven {
                true => quote_spanned!(at=> ((#i) as usize)),
                false => quote_spanned!(at=> #rt::ix(#i, #n)),
            };
            flat = if d == 0 {
                c
            } else {
                quote_spanned!(at=> (#flat * (#n as usize) + #c))
            };
        }
        Ok((flat, in_range))
    }

    /// The component type of a scalar or vector, and the vector's length.
    pub(super) fn shape(&self, t: &Ty, span: Span) -> Res<(Scalar, Option<u32>)> {
        match t {
            Ty::Scalar(s) => Ok((*s, None)),
            Ty::Vector(s, n) => Ok((*s, Some(*n))),
            // `from_f32_array` / `to_f32_array` convert between arrays and vectors.
            Ty::Array(e, Len::Lit(n)) => match **e {
                Ty::Scalar(s) => Ok((s, Some(*n))),
                ref other => unsupported(format!("operators on `{other}`"), span),
            },
            other => unsupported(format!("operators on `{other}`"), span),
        }
    }

    /// `f` applied to the operands (Rust expressions of `n`-vectors, or scalars when `n` is
    /// `None`) component by component: each operand is evaluated once, in order.
    pub(super) fn lanes(
        &mut self,
        n: Option<u32>,
        operands: &[TokenStream],
        f: impl Fn(&[TokenStream]) -> TokenStream,
    ) -> Res<TokenStream> {
        let at = self.at;
        let Some(n) = n else {
            return Ok(f(operands));
        };
        let mut lets = Vec::new();
        let mut names = Vec::new();
        for o in operands {
            let t = self.temp();
            lets.push(quote_spanned!(at=> let #t = #o;));
            names.push(t);
        }
        let parts: Vec<TokenStream> = (0..n)
            .map(|k| {
                let k = index_lit(k);
                let x: Vec<TokenStream> =
                    names.iter().map(|t| quote_spanned!(at=> #t[#k])).collect();
                f(&x)
            })
            .collect();
        Ok(quote_spanned!(at=> { #(#lets)* [#(#parts),*] }))
    }

    /// `x` (an `f32` expression) clamped into normalized type `s` as the host's `new` does.
    fn clamp_normalized(&self, s: Scalar, x: &TokenStream) -> TokenStream {
        let (at, rt) = (self.at, &self.rt);
        match s {
            Scalar::Norm => quote_spanned!(at=> #rt::norm(#x)),
            Scalar::Unorm => quote_spanned!(at=> #rt::unorm(#x)),
            _ => x.clone(),
        }
    }

    /// A conversion from or to a normalized type (the SPIR-V back end's `normalized_cast`):
    /// into `Norm` / `Unorm` clamps, except `Unorm` to `Norm`; out of them is the `f32` itself.
    fn normalized_cast(&mut self, a: &Expr, to: &Ty, span: Span) -> Res<TokenStream> {
        let at = self.at;
        let (f, _) = self.shape(&a.ty, span)?;
        let (t, n) = self.shape(to, span)?;
        let v = self.expr(a)?;
        let exact = f == t || (f == Scalar::Unorm && t == Scalar::Norm);
        if exact {
            return Ok(v);
        }
        if !t.is_normalized() {
            if n.is_some() || t == Scalar::F32 {
                return Ok(v);
            }
            let ty = self.scalar(t, span)?;
            return Ok(quote_spanned!(at=> ((#v) as #ty)));
        }
        let from_f32 = f.native() == Scalar::F32;
        let rt = self.rt.clone();
        self.lanes(n, &[v], |x| {
            let x = &x[0];
            let c = match from_f32 {
                true => x.clone(),
                false => quote_spanned!(at=> ((#x) as f32)),
            };
            match t {
                Scalar::Norm => quote_spanned!(at=> #rt::norm(#c)),
                _ => quote_spanned!(at=> #rt::unorm(#c)),
            }
        })
    }

    /// The scalar type of a scalar value (`Norm` and `Unorm` are their `f32`s).
    pub(super) fn scalar_of(&self, t: &Ty, span: Span) -> Res<Scalar> {
        match t {
            Ty::Scalar(s) => Ok(s.native()),
            Ty::Vector(..) => unsupported("short vectors", span),
            other => unsupported(format!("operators on `{other}`"), span),
        }
    }

    fn lit(&self, l: Lit, ty: &Ty, span: Span) -> Res<TokenStream> {
        let at = self.at;
        let s = self.scalar_of(ty, span)?;
        let f32_bits = |v: f32| {
            let bits = syn::LitInt::new(&format!("{:#010x}", v.to_bits()), at);
            quote_spanned!(at=> f32::from_bits(#bits))
        };
        let f64_bits = |v: f64| {
            let bits = syn::LitInt::new(&format!("{:#018x}", v.to_bits()), at);
            quote_spanned!(at=> f64::from_bits(#bits))
        };
        let u32_lit = |v: u32| {
            let v = proc_macro2::Literal::u32_suffixed(v);
            quote_spanned!(at=> #v)
        };
        Ok(match (s, l) {
            (_, Lit::Bool(true)) if s == Scalar::Bool => quote_spanned!(at=> true),
            (_, Lit::Bool(false)) if s == Scalar::Bool => quote_spanned!(at=> false),
            (Scalar::F32, Lit::Float(_, v)) => f32_bits(v),
            (Scalar::F64, Lit::Float(v, _)) => f64_bits(v),
            (Scalar::F32, Lit::Int(v)) => f32_bits(v as f32),
            (Scalar::F64, Lit::Int(v)) => f64_bits(v as f64),
            (Scalar::I32, Lit::Int(v)) => i32_lit(at, v as u32 as i32),
            (Scalar::I32, Lit::Float(v, _)) => i32_lit(at, v as i64 as u32 as i32),
            // `128` under a negation is `i8::MIN`'s magnitude: its bits, as the type.
            (s, Lit::Int(v)) if s.is_small_int() => {
                let (v, t) = (u32_lit(v as u32), format_ident!("{}", s.name()));
                quote_spanned!(at=> (#v as #t))
            }
            (_, Lit::Int(v)) => u32_lit(v as u32),
            (_, Lit::Float(v, _)) => u32_lit(v as i64 as u32),
            (_, Lit::Bool(b)) => u32_lit(b as u32),
        })
    }

    /// An index value as a `u32` (a `usize` is one already; an `i32` keeps its bits).
    pub(super) fn as_u32(&mut self, e: &Expr) -> Res<TokenStream> {
        let at = self.at;
        let v = self.expr(e)?;
        Ok(match e.ty {
            Ty::Scalar(Scalar::Usize | Scalar::U32) => v,
            _ => quote_spanned!(at=> ((#v) as u32)),
        })
    }

    /// A local (or an element of one) as a Rust place.
    pub(super) fn local_place(&mut self, place: &Place, span: Span) -> Res<TokenStream> {
        let at = self.at;
        let Place::Local(id, idx) = place else {
            return unsupported("a buffer element here", span);
        };
        let mut s = self.local(*id);
        let mut ty = self.k.locals[*id].ty.clone();
        let mut idx = &idx[..];
        if let Some((dims, inner)) = self.dyn_arrays.get(id).cloned() {
            if idx.len() < dims.len() {
                return unsupported(
                    "a part of an array whose length is a named constant (index it to its elements)",
                    span,
                );
            }
            let first: Vec<&Expr> = idx[..dims.len()].iter().collect();
            s = match self.dyn_index(*id, &dims, &first)? {
                // As in `dyn_element`.
                (flat, _) if self.unfilled.contains(id) => pointed_element(at, &s, &flat),
                (flat, true) => unchecked_element(at, &s, &flat, true),
                (flat, false) => quote_spanned!(at=> #s[#flat]),
            };
            ty = inner;
            idx = &idx[dims.len()..];
        }
        for i in idx {
            let (elem, len) = match ty {
                Ty::Array(elem, len) => (*elem, len),
                Ty::Vector(s, n) => (Ty::Scalar(s), Len::Lit(n)),
                Ty::Struct(def) => {
                    let (k, field_ty) = field(&def, i, span)?;
                    let f = numbered("f", k);
                    s = quote_spanned!(at=> #s.#f);
                    ty = field_ty;
                    continue;
                }
                Ty::Tuple(items) => {
                    let (k, item_ty) = tuple_item(&items, i, span)?;
                    let f = syn::Index::from(k);
                    s = quote_spanned!(at=> #s.#f);
                    ty = item_ty;
                    continue;
                }
                other => return unsupported(format!("indexing `{other}`"), span),
            };
            s = self.array_element(&s, i, &len, true, span)?;
            ty = elem;
        }
        Ok(s)
    }

    pub(super) fn place_ty(&self, place: &Place, span: Span) -> Res<Ty> {
        plan::place_ty(self.k, place).or_else(|e| unsupported(e.to_string(), span))
    }

    /// The element type of buffer parameter `p`.
    pub(super) fn buffer_elem(&self, p: ParamId, span: Span) -> Res<Ty> {
        match &self.k.params[p].kind {
            ParamKind::Buffer { elem, .. } => Ok(elem.ty()),
            _ => unsupported("this parameter as a buffer", span),
        }
    }

    /// The scalar element type of buffer parameter `p` (for atomics).
    pub(super) fn buffer_elem_ty(&self, p: ParamId, span: Span) -> Res<Scalar> {
        match &self.k.params[p].kind {
            ParamKind::Buffer {
                elem: Elem::Scalar(s),
                ..
            } => Ok(*s),
            ParamKind::Buffer { elem, .. } => {
                unsupported(format!("buffers of `{}`", elem.name()), span)
            }
            _ => unsupported("this parameter as a buffer", span),
        }
    }

    /// A buffer index as a `[u32; R]` (components evaluated in order).
    pub(super) fn indices(&mut self, idx: &[Expr]) -> Res<TokenStream> {
        let at = self.at;
        let parts = idx
            .iter()
            .map(|x| self.as_u32(x))
            .collect::<Res<Vec<_>>>()?;
        Ok(quote_spanned!(at=> [#(#parts),*]))
    }

    fn binary(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        result: &Ty,
        span: Span,
    ) -> Res<TokenStream> {
        let (l, r) = (self.expr(a)?, self.expr(b)?);
        self.binary_value(op, &a.ty, &b.ty, &l, &r, result, span)
    }

    /// `l op r` for scalar or vector operands of types `lt`, `rt` (vectors component by
    /// component), the result clamped when its type `result` is normalized.
    #[allow(clippy::too_many_arguments)]
    fn binary_value(
        &mut self,
        op: BinOp,
        lt: &Ty,
        rt: &Ty,
        l: &TokenStream,
        r: &TokenStream,
        result: &Ty,
        span: Span,
    ) -> Res<TokenStream> {
        let at = self.at;
        let (s, n) = self.shape(lt, span)?;
        let (rs, _) = self.shape(rt, span)?;
        let (s, rs) = (s.native(), rs.native());
        let out = result.component().filter(|c| c.is_normalized());
        let one = |this: &Self, a: &TokenStream, b: &TokenStream| -> Res<TokenStream> {
            let v = this.binary_op(op, s, rs, a, b, span)?;
            Ok(match out {
                Some(c) => this.clamp_normalized(c, &v),
                None => v,
            })
        };
        let Some(n) = n else {
            return one(self, l, r);
        };
        self.temps += 1;
        let (ta, tb) = (numbered("va", self.temps), numbered("vb", self.temps));
        let parts = (0..n)
            .map(|k| {
                let k = index_lit(k);
                one(
                    self,
                    &quote_spanned!(at=> #ta[#k]),
                    &quote_spanned!(at=> #tb[#k]),
                )
            })
            .collect::<Res<Vec<_>>>()?;
        Ok(quote_spanned!(at=> { let #ta = #l; let #tb = #r; [#(#parts),*] }))
    }

    /// `l op r` with operands of type `s` (`rs` for the right one, which differs for shifts),
    /// with the device's defined results.
    fn binary_op(
        &self,
        op: BinOp,
        s: Scalar,
        rs: Scalar,
        l: &TokenStream,
        r: &TokenStream,
        span: Span,
    ) -> Res<TokenStream> {
        let (at, rt) = (self.at, &self.rt);
        let int = s.is_int();
        let t = Self::scalar_name(s);
        Ok(match op {
            BinOp::Add if int => quote_spanned!(at=> (#l.wrapping_add(#r))),
            BinOp::Sub if int => quote_spanned!(at=> (#l.wrapping_sub(#r))),
            BinOp::Mul if int => quote_spanned!(at=> (#l.wrapping_mul(#r))),
            // A small integer divides as its 32-bit value, narrowed: `i8::MIN / -1` wraps,
            // `x / 0` is all ones and `x % 0` is `x`, as for the 32-bit types.
            BinOp::Div | BinOp::Rem if s.is_small_int() => {
                let op = if op == BinOp::Div { "div" } else { "rem" };
                let wide = if s.is_signed_int() { "i32" } else { "u32" };
                let f = format_ident!("{}_{}", op, wide);
                let (w, t) = (format_ident!("{}", wide), format_ident!("{}", t));
                quote_spanned!(at=> (#rt::#f((#l) as #w, (#r) as #w) as #t))
            }
            BinOp::Div if int => {
                let f = format_ident!("div_{}", t);
                quote_spanned!(at=> #rt::#f(#l, #r))
            }
            BinOp::Rem if int => {
                let f = format_ident!("rem_{}", t);
                quote_spanned!(at=> #rt::#f(#l, #r))
            }
            BinOp::Shl | BinOp::Shr => {
                let amount = match rs {
                    Scalar::F32 | Scalar::F64 | Scalar::Bool => {
                        return unsupported("a shift by a non-integer", span)
                    }
                    _ => quote_spanned!(at=> ((#r) as u32)),
                };
                match op {
                    BinOp::Shl => quote_spanned!(at=> (#l.wrapping_shl(#amount))),
                    _ => quote_spanned!(at=> (#l.wrapping_shr(#amount))),
                }
            }
            BinOp::Add => quote_spanned!(at=> (#l + #r)),
            BinOp::Sub => quote_spanned!(at=> (#l - #r)),
            BinOp::Mul => quote_spanned!(at=> (#l * #r)),
            BinOp::Div => quote_spanned!(at=> (#l / #r)),
            BinOp::Rem => quote_spanned!(at=> (#l % #r)),
            BinOp::BitAnd => quote_spanned!(at=> (#l & #r)),
            BinOp::BitOr => quote_spanned!(at=> (#l | #r)),
            BinOp::BitXor => quote_spanned!(at=> (#l ^ #r)),
            BinOp::Eq => quote_spanned!(at=> (#l == #r)),
            BinOp::Ne => quote_spanned!(at=> (#l != #r)),
            BinOp::Lt => quote_spanned!(at=> (#l < #r)),
            BinOp::Le => quote_spanned!(at=> (#l <= #r)),
            BinOp::Gt => quote_spanned!(at=> (#l > #r)),
            BinOp::Ge => quote_spanned!(at=> (#l >= #r)),
        })
    }

    /// A buffer access's index (a `[u32; R]` expression) and, in a checked kernel, its bounds
    /// check over the index bound to `bix`, specialized as the SPIR-V back end's: a component
    /// the range analysis proves below the extent is not compared, one below the domain's
    /// extent in its dimension is compared only when the view does not cover the domain
    /// (`covers`, a launch-wide constant), the others are compared. `None`: nothing to check.
    fn bounds_check(
        &mut self,
        p: ParamId,
        idx: &[Expr],
    ) -> Res<(TokenStream, Option<TokenStream>)> {
        let at = self.at;
        let index = self.indices(idx)?;
        let Some(checks) = self.plan.buffer_checks(self.k.rank, p, idx) else {
            return Ok((index, None));
        };
        let pn = numbered("p", p);
        let mut terms = Vec::new();
        for (d, (i, check)) in idx.iter().zip(checks).enumerate() {
            if check == IndexCheck::Proven {
                continue;
            }
            let dl = index_lit(d);
            let compare = quote_spanned!(at=> bix[#dl] < #pn.extent[#dl]);
            let by_domain = check == IndexCheck::Covered;
            if by_domain {
                self.uses_covers = true;
                if self.assume_covers {
                    continue;
                }
            }
            if self.guard_check(p, d, i)? {
                continue;
            }
            match by_domain {
                true => terms.push(quote_spanned!(at=> (#pn.covers || #compare))),
                false => terms.push(compare),
            }
        }
        Ok(match terms.is_empty() {
            true => (index, None),
            false => (index, Some(conjunction(&terms))),
        })
    }

    /// Whether the check of component `d` (index `i`) of an access to view `p` moves to a
    /// guard (`guard.rs`): the tile function's, when it is being generated in its guarded
    /// version and the tile's start knows the index's largest value, or else the work-item
    /// loop's, in its guarded version.
    fn guard_check(&mut self, p: ParamId, d: usize, i: &Expr) -> Res<bool> {
        let at = self.at;
        let (pn, dl) = (numbered("p", p), index_lit(d));
        self.guard_below(i, &quote_spanned!(at=> (#pn.extent[#dl] as u64)))
    }

    /// Whether buffer `p`'s elements may be shared with a writer (accessed as relaxed atomics).
    fn is_shared(&self, p: ParamId) -> bool {
        self.shared.get(p).copied().unwrap_or(false)
    }

    /// `Some(pointer)` to a buffer element for a read-modify-write, `None` (recorded in the
    /// report) when the checked index is outside the view.
    pub(super) fn checked_ptr(&mut self, p: ParamId, idx: &[Expr]) -> Res<TokenStream> {
        let at = self.at;
        let (pn, pl) = (numbered("p", p), index_lit(p));
        Ok(match self.bounds_check(p, idx)? {
            (index, None) => quote_spanned!(at=> Some(#pn.at(#index))),
            (index, Some(ok)) => {
                quote_spanned!(at=> { let bix = #index; #pn.checked_if(bix, #ok, #pl, oob) })
            }
        })
    }
}

/// The number and type of the struct field a member access's index names.
pub(super) fn field(def: &crate::types::StructDef, index: &Expr, span: Span) -> Res<(usize, Ty)> {
    plan::field(def, index).or_else(|e| unsupported(e.to_string(), span))
}

/// The number and type of the tuple component an element access names.
pub(super) fn tuple_item(items: &[Ty], index: &Expr, span: Span) -> Res<(usize, Ty)> {
    plan::tuple_item(items, index).or_else(|e| unsupported(e.to_string(), span))
}

/// An `i32` literal (a negative one parenthesized, so a method call binds to all of it).
fn i32_lit(at: proc_macro2::Span, v: i32) -> TokenStream {
    match v {
        i32::MIN => quote_spanned!(at=> i32::MIN),
        v if v < 0 => {
            let v = proc_macro2::Literal::i32_suffixed(v.unsigned_abs() as i32);
            quote_spanned!(at=> (-#v))
        }
        v => {
            let v = proc_macro2::Literal::i32_suffixed(v);
            quote_spanned!(at=> #v)
        }
    }
}
