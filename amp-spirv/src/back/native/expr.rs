//! Expressions as Rust expressions: operators with the device's defined results, casts,
//! elements of locals, buffer accesses with their bounds checks, atomics, built-ins and math.
//! Every compound expression is parenthesized, so precedence never depends on the context.

use super::{broken, unsupported, Emitter, Res};
use crate::back::BoundsChecks;
use crate::diag::Span;
use crate::ir::*;
use crate::math::MathFn;
use crate::types::{Elem, Len, Scalar, Ty};

impl Emitter<'_> {
    /// An expression; its Rust type is the IR type's ([`Emitter::ty`]).
    pub(super) fn expr(&mut self, e: &Expr) -> Res<String> {
        let span = e.span;
        Ok(match &e.kind {
            ExprKind::Lit(l) => self.lit(*l, &e.ty, span)?,
            ExprKind::Local(id) if self.dyn_arrays.contains_key(id) => {
                return unsupported(
                    "a whole array whose length is a named constant (index it to its elements)",
                    span,
                )
            }
            ExprKind::Local(id) => self.local(*id),
            ExprKind::ScalarParam(p) => format!("p{p}"),
            ExprKind::OuterConst(k) => format!("c{k}"),
            ExprKind::Unary(op, a) => {
                let (s, n) = self.shape(&a.ty, span)?;
                let v = self.expr(a)?;
                let op = *op;
                self.lanes(n, &[v], |x| match (op, s.device()) {
                    (UnOp::Neg, s) if s.is_float() => format!("(-{})", x[0]),
                    (UnOp::Neg, _) => format!("({}.wrapping_neg())", x[0]),
                    (UnOp::Not, _) => format!("(!{})", x[0]),
                })?
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty, span)?,
            ExprKind::Logic(op, a, b) => {
                let (l, r) = (self.expr(a)?, self.expr(b)?);
                let o = match op {
                    LogicOp::And => "&&",
                    LogicOp::Or => "||",
                };
                format!("({l} {o} {r})")
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
                    (Scalar::Bool, _) => format!("(({v}) as u32 as {t})"),
                    _ => format!("(({v}) as {t})"),
                }
            }
            ExprKind::Bitcast(a) => {
                let from = self.scalar_of(&a.ty, span)?;
                let to = self.scalar_of(&e.ty, span)?;
                let v = self.expr(a)?;
                let bits = match from {
                    Scalar::F32 => format!("({v}).to_bits()"),
                    Scalar::I32 | Scalar::U32 | Scalar::Usize => format!("(({v}) as u32)"),
                    _ => return unsupported(format!("a bitcast from `{}`", from.name()), span),
                };
                match to {
                    Scalar::F32 => format!("f32::from_bits({bits})"),
                    Scalar::I32 => format!("({bits} as i32)"),
                    Scalar::U32 | Scalar::Usize => bits,
                    _ => return unsupported(format!("a bitcast to `{}`", to.name()), span),
                }
            }
            ExprKind::Element(..) if self.dyn_root(e).is_some() => self.dyn_element(e, span)?,
            ExprKind::Element(base, index) => {
                let len = match &base.ty {
                    Ty::Array(_, len) => len.clone(),
                    Ty::Vector(_, n) => Len::Lit(*n),
                    Ty::Struct(_) => {
                        let k = field_index(index, span)?;
                        return Ok(format!("({}.f{k})", self.expr(base)?));
                    }
                    other => return unsupported(format!("indexing `{other}`"), span),
                };
                let b = self.expr(base)?;
                self.array_element(&b, index, &len, false, span)?
            }
            ExprKind::BufferLoad(p, idx) => {
                self.buffer_elem(*p, span)?;
                match self.bounds_check(*p, idx)? {
                    (index, None) => format!("p{p}.load_unchecked({index})"),
                    (index, Some(ok)) => {
                        format!("{{ let bix = {index}; p{p}.load_if(bix, {ok}, {p}, oob) }}")
                    }
                }
            }
            ExprKind::BufferExtent(p) => format!("p{p}.extent"),
            ExprKind::ArrayList(items) if matches!(e.ty, Ty::Struct(_)) => {
                let name = self.ty(&e.ty, span)?;
                let mut fields = Vec::new();
                for (k, x) in items.iter().enumerate() {
                    fields.push(format!("f{k}: {}", self.expr(x)?));
                }
                format!("{name} {{ {} }}", fields.join(", "))
            }
            ExprKind::ArrayList(items) => {
                let parts = items
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Res<Vec<_>>>()?;
                format!("[{}]", parts.join(", "))
            }
            ExprKind::ArrayRepeat(item, n) => format!("[{}; {n}]", self.expr(item)?),
            ExprKind::Builtin(f, args) => self.builtin(*f, args, &e.ty, span)?,
            ExprKind::Math(f, args) => self.math(*f, args, span)?,
            ExprKind::If(cond, then, els) => {
                let c = self.expr(cond)?;
                let t = self.block(then)?;
                match els {
                    None => format!("(if {c} {t})"),
                    Some(x) => {
                        let x = match &x.kind {
                            ExprKind::Block(b) => self.block(b)?,
                            _ => format!("{{ {} }}", self.expr(x)?),
                        };
                        format!("(if {c} {t} else {x})")
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
                        format!("{{ let {tv} = {v}; {p} = {tv}; }}")
                    }
                    Place::Buffer(p, idx) => {
                        self.buffer_elem(*p, span)?;
                        match self.bounds_check(*p, idx)? {
                            (index, None) => {
                                format!(
                                    "{{ let {tv} = {v}; p{p}.store_unchecked({index}, {tv}); }}"
                                )
                            }
                            (index, Some(ok)) => format!(
                                "{{ let {tv} = {v}; let bix = {index}; \
                                 p{p}.store_if(bix, {ok}, {tv}, {p}, oob); }}"
                            ),
                        }
                    }
                }
            }
            ExprKind::CompoundAssign(op, place, value) => {
                let v = self.expr(value)?;
                let tv = self.temp();
                let ty = self.place_ty(place, span)?;
                let new = self.binary_value(*op, &ty, &value.ty, "(*ptr)", &tv, &ty, span)?;
                let ptr = match place {
                    Place::Local(..) => {
                        let p = self.local_place(place, span)?;
                        return Ok(format!(
                            "{{ let {tv} = {v}; let ptr = &mut {p}; *ptr = {new}; }}"
                        ));
                    }
                    Place::Buffer(p, idx) => self.checked_ptr(*p, idx)?,
                };
                format!("{{ let {tv} = {v}; if let Some(ptr) = {ptr} {{ *ptr = {new}; }} }}")
            }
            ExprKind::Atomic(a) => self.atomic(a, span)?,
            ExprKind::Texture(op, p, operands) => self.texture_op(*op, *p, operands)?,
            ExprKind::Barrier(_) => {
                return unsupported("a barrier inside an expression or a non-tiled kernel", span)
            }
            // The threads of a tile run one after another on one OS thread: a fence only
            // orders global memory for other tiles (tile_static memory is the tile's own).
            ExprKind::MemoryFence(Fence::TileStatic) => "()".to_string(),
            ExprKind::MemoryFence(_) => {
                "::core::sync::atomic::fence(::core::sync::atomic::Ordering::SeqCst)".to_string()
            }
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
    fn dyn_element(&mut self, e: &Expr, span: Span) -> Res<String> {
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
            (flat, true) => unchecked_element(&name, &flat, false),
            (flat, false) => format!("({name}[{flat}])"),
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
                    let k = field_index(i, span)?;
                    s = format!("({s}.f{k})");
                    ty = field_ty(&def, k, span)?;
                }
                Ty::Vector(c, n) => {
                    let ix = self.array_index(i, &Len::Lit(n), span)?;
                    s = format!("({s}[{ix}])");
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
    fn dyn_index(&mut self, id: LocalId, dims: &[String], idx: &[&Expr]) -> Res<(String, bool)> {
        let mut lens = Vec::new();
        let mut ty = &self.k.locals[id].ty;
        while let Ty::Array(elem, len) = ty {
            lens.push(len.clone());
            ty = elem;
        }
        let mut flat = String::new();
        let mut in_range = true;
        for (d, (n, i)) in dims.iter().zip(idx).enumerate() {
            let proven = match lens.get(d) {
                Some(len) if pure_index(i) => {
                    self.ranges.below_len(i, len)
                        || self.guard_below(i, &format!("(({n}) as u64)"))?
                }
                _ => false,
            };
            in_range &= proven;
            let i = self.as_u32(i)?;
            let c = match proven {
                true => format!("(({i}) as usize)"),
                false => format!("{}::ix({i}, {n})", self.rt),
            };
            flat = if d == 0 {
                c
            } else {
                format!("({flat} * ({n} as usize) + {c})")
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
    fn lanes(
        &mut self,
        n: Option<u32>,
        operands: &[String],
        f: impl Fn(&[String]) -> String,
    ) -> Res<String> {
        let Some(n) = n else {
            return Ok(f(operands));
        };
        let mut s = String::from("{ ");
        let mut names = Vec::new();
        for o in operands {
            let t = self.temp();
            s.push_str(&format!("let {t} = {o}; "));
            names.push(t);
        }
        let parts: Vec<String> = (0..n)
            .map(|k| {
                let x: Vec<String> = names.iter().map(|t| format!("{t}[{k}]")).collect();
                f(&x)
            })
            .collect();
        s.push_str(&format!("[{}] }}", parts.join(", ")));
        Ok(s)
    }

    /// `x` (an `f32` expression) clamped into normalized type `s` as the host's `new` does.
    fn clamp_normalized(&self, s: Scalar, x: &str) -> String {
        match s {
            Scalar::Norm => format!("{}::norm({x})", self.rt),
            Scalar::Unorm => format!("{}::unorm({x})", self.rt),
            _ => x.to_string(),
        }
    }

    /// A conversion from or to a normalized type (the SPIR-V back end's `normalized_cast`):
    /// into `Norm` / `Unorm` clamps, except `Unorm` to `Norm`; out of them is the `f32` itself.
    fn normalized_cast(&mut self, a: &Expr, to: &Ty, span: Span) -> Res<String> {
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
            return Ok(format!("(({v}) as {ty})"));
        }
        let from_f32 = f.device() == Scalar::F32;
        let conv = move |x: &str| {
            if from_f32 {
                x.to_string()
            } else {
                format!("(({x}) as f32)")
            }
        };
        let rt = self.rt.to_string();
        self.lanes(n, &[v], |x| {
            let c = conv(&x[0]);
            match t {
                Scalar::Norm => format!("{rt}::norm({c})"),
                _ => format!("{rt}::unorm({c})"),
            }
        })
    }

    /// The scalar type of a scalar value (`Norm` and `Unorm` are their `f32`s).
    fn scalar_of(&self, t: &Ty, span: Span) -> Res<Scalar> {
        match t {
            Ty::Scalar(s) => Ok(s.device()),
            Ty::Vector(..) => unsupported("short vectors", span),
            other => unsupported(format!("operators on `{other}`"), span),
        }
    }

    fn lit(&self, l: Lit, ty: &Ty, span: Span) -> Res<String> {
        let s = self.scalar_of(ty, span)?;
        Ok(match (s, l) {
            (_, Lit::Bool(b)) if s == Scalar::Bool => b.to_string(),
            (Scalar::F32, Lit::Float(_, v)) => format!("f32::from_bits({:#010x})", v.to_bits()),
            (Scalar::F64, Lit::Float(v, _)) => format!("f64::from_bits({:#018x})", v.to_bits()),
            (Scalar::F32, Lit::Int(v)) => {
                format!("f32::from_bits({:#010x})", (v as f32).to_bits())
            }
            (Scalar::F64, Lit::Int(v)) => {
                format!("f64::from_bits({:#018x})", (v as f64).to_bits())
            }
            (Scalar::I32, Lit::Int(v)) => i32_lit(v as u32 as i32),
            (Scalar::I32, Lit::Float(v, _)) => i32_lit(v as i64 as u32 as i32),
            (_, Lit::Int(v)) => format!("{}u32", v as u32),
            (_, Lit::Float(v, _)) => format!("{}u32", v as i64 as u32),
            (_, Lit::Bool(b)) => format!("{}u32", b as u32),
        })
    }

    /// A local array index, clamped into the array (the SPIR-V back end's rule: an index past
    /// the end reads and writes the last element).
    fn array_index(&mut self, index: &Expr, len: &Len, span: Span) -> Res<String> {
        let n = self.len(len, span)?;
        if let ExprKind::Lit(Lit::Int(v)) = index.kind {
            if v < n as u128 {
                return Ok(v.to_string());
            }
        }
        let i = self.as_u32(index)?;
        Ok(format!("{}::ix({i}, {n})", self.rt))
    }

    /// An element of a local array as a Rust place or value: `base[index]`, with the index
    /// clamped as docs/semantics.md says, or, where a guard proves it in range for the whole
    /// tile (`guard.rs`), unclamped and without Rust's own check, so the work-item loop
    /// around it can be vectorized.
    fn array_element(
        &mut self,
        base: &str,
        index: &Expr,
        len: &Len,
        place: bool,
        span: Span,
    ) -> Res<String> {
        if !matches!(index.kind, ExprKind::Lit(_)) && pure_index(index) {
            let n = self.len(len, span)?;
            // In range: the range analysis proves it, or the guard holding here does. Rust's
            // own check would be a branch to a panic LLVM cannot always remove, and a loop
            // with one is not vectorized.
            if self.ranges.below_len(index, len)
                || self.guard_below(index, &format!("({n} as u64)"))?
            {
                let i = self.as_u32(index)?;
                return Ok(unchecked_element(base, &format!("({i}) as usize"), place));
            }
        }
        let ix = self.array_index(index, len, span)?;
        Ok(format!("({base}[{ix}])"))
    }

    /// An index value as a `u32` (a `usize` is one already; an `i32` keeps its bits).
    fn as_u32(&mut self, e: &Expr) -> Res<String> {
        let v = self.expr(e)?;
        Ok(match e.ty {
            Ty::Scalar(Scalar::Usize | Scalar::U32) => v,
            _ => format!("(({v}) as u32)"),
        })
    }

    /// A local (or an element of one) as a Rust place.
    fn local_place(&mut self, place: &Place, span: Span) -> Res<String> {
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
                (flat, true) => unchecked_element(&s, &flat, true),
                (flat, false) => format!("{s}[{flat}]"),
            };
            ty = inner;
            idx = &idx[dims.len()..];
        }
        for i in idx {
            let (elem, len) = match ty {
                Ty::Array(elem, len) => (*elem, len),
                Ty::Vector(s, n) => (Ty::Scalar(s), Len::Lit(n)),
                Ty::Struct(def) => {
                    let k = field_index(i, span)?;
                    s = format!("{s}.f{k}");
                    ty = field_ty(&def, k, span)?;
                    continue;
                }
                other => return unsupported(format!("indexing `{other}`"), span),
            };
            s = self.array_element(&s, i, &len, true, span)?;
            ty = elem;
        }
        Ok(s)
    }

    fn place_ty(&self, place: &Place, span: Span) -> Res<Ty> {
        match place {
            Place::Local(id, idx) => {
                let mut ty = self.k.locals[*id].ty.clone();
                for i in idx {
                    ty = match ty {
                        Ty::Array(e, _) => *e,
                        Ty::Vector(s, _) => Ty::Scalar(s),
                        Ty::Struct(def) => field_ty(&def, field_index(i, span)?, span)?,
                        other => return unsupported(format!("indexing `{other}`"), span),
                    };
                }
                Ok(ty)
            }
            Place::Buffer(p, _) => self.buffer_elem(*p, span),
        }
    }

    /// The element type of buffer parameter `p`.
    pub(super) fn buffer_elem(&self, p: ParamId, span: Span) -> Res<Ty> {
        match &self.k.params[p].kind {
            ParamKind::Buffer { elem, .. } => Ok(elem.ty()),
            _ => unsupported("this parameter as a buffer", span),
        }
    }

    /// The scalar element type of buffer parameter `p` (for atomics).
    fn buffer_elem_ty(&self, p: ParamId, span: Span) -> Res<Scalar> {
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
    pub(super) fn indices(&mut self, idx: &[Expr]) -> Res<String> {
        let parts = idx
            .iter()
            .map(|x| self.as_u32(x))
            .collect::<Res<Vec<_>>>()?;
        Ok(format!("[{}]", parts.join(", ")))
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, result: &Ty, span: Span) -> Res<String> {
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
        l: &str,
        r: &str,
        result: &Ty,
        span: Span,
    ) -> Res<String> {
        let (s, n) = self.shape(lt, span)?;
        let (rs, _) = self.shape(rt, span)?;
        let (s, rs) = (s.device(), rs.device());
        let out = result.component().filter(|c| c.is_normalized());
        let one = |this: &Self, a: &str, b: &str| -> Res<String> {
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
        let (ta, tb) = (format!("va{}", self.temps), format!("vb{}", self.temps));
        let parts = (0..n)
            .map(|k| one(self, &format!("{ta}[{k}]"), &format!("{tb}[{k}]")))
            .collect::<Res<Vec<_>>>()?;
        Ok(format!(
            "{{ let {ta} = {l}; let {tb} = {r}; [{}] }}",
            parts.join(", ")
        ))
    }

    /// `l op r` with operands of type `s` (`rs` for the right one, which differs for shifts),
    /// with the device's defined results.
    fn binary_op(
        &self,
        op: BinOp,
        s: Scalar,
        rs: Scalar,
        l: &str,
        r: &str,
        span: Span,
    ) -> Res<String> {
        let rt = self.rt;
        let int = s.is_int();
        let t = self.scalar(s, span)?;
        Ok(match op {
            BinOp::Add if int => format!("({l}.wrapping_add({r}))"),
            BinOp::Sub if int => format!("({l}.wrapping_sub({r}))"),
            BinOp::Mul if int => format!("({l}.wrapping_mul({r}))"),
            BinOp::Div if int => format!("{rt}::div_{t}({l}, {r})"),
            BinOp::Rem if int => format!("{rt}::rem_{t}({l}, {r})"),
            BinOp::Shl | BinOp::Shr => {
                let amount = match rs {
                    Scalar::F32 | Scalar::F64 | Scalar::Bool => {
                        return unsupported("a shift by a non-integer", span)
                    }
                    _ => format!("(({r}) as u32)"),
                };
                let f = if op == BinOp::Shl {
                    "wrapping_shl"
                } else {
                    "wrapping_shr"
                };
                format!("({l}.{f}({amount}))")
            }
            _ => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                    BinOp::Rem => "%",
                    BinOp::BitAnd => "&",
                    BinOp::BitOr => "|",
                    BinOp::BitXor => "^",
                    BinOp::Eq => "==",
                    BinOp::Ne => "!=",
                    BinOp::Lt => "<",
                    BinOp::Le => "<=",
                    BinOp::Gt => ">",
                    BinOp::Ge => ">=",
                    BinOp::Shl | BinOp::Shr => return broken("shifts are emitted above", span),
                };
                format!("({l} {o} {r})")
            }
        })
    }

    fn builtin(&mut self, f: Builtin, args: &[Expr], ty: &Ty, span: Span) -> Res<String> {
        let vals = args.iter().map(|a| self.expr(a)).collect::<Res<Vec<_>>>()?;
        if matches!(
            f,
            Builtin::Dot | Builtin::Length | Builtin::Normalize | Builtin::Cross
        ) {
            return self.geometric(f, args, &vals, span);
        }
        let (s, n) = self.shape(ty, span)?;
        self.lanes(n, &vals, |x| match (f, s.device()) {
            (Builtin::Min, _) => format!("({}.min({}))", x[0], x[1]),
            (Builtin::Max, _) => format!("({}.max({}))", x[0], x[1]),
            (Builtin::Abs, s) if s.is_float() => format!("({}.abs())", x[0]),
            (Builtin::Abs, Scalar::I32) => format!("({}.wrapping_abs())", x[0]),
            // GLSL's SAbs reads the bits as signed.
            (_, _) => format!("((({}) as i32).wrapping_abs() as u32)", x[0]),
        })
    }

    /// `dot`, `length`, `normalize` and `cross` of float vectors, as GLSL defines them: the
    /// dot product summed from the first component, `sqrt(dot(v, v))`, `v / length(v)`.
    fn geometric(&mut self, f: Builtin, args: &[Expr], vals: &[String], span: Span) -> Res<String> {
        let (_, n) = self.shape(&args[0].ty, span)?;
        let Some(n) = n else {
            return unsupported("geometric functions of scalars", span);
        };
        let t = self.temp();
        let dot = |a: &str, b: &str| {
            (0..n)
                .map(|k| format!("({a}[{k}] * {b}[{k}])"))
                .reduce(|acc, x| format!("({acc} + {x})"))
                .unwrap_or_default()
        };
        Ok(match f {
            Builtin::Dot => {
                let u = self.temp();
                format!(
                    "{{ let {t} = {}; let {u} = {}; {} }}",
                    vals[0],
                    vals[1],
                    dot(&t, &u)
                )
            }
            Builtin::Length => format!("{{ let {t} = {}; ({}).sqrt() }}", vals[0], dot(&t, &t)),
            Builtin::Normalize => {
                let len = self.temp();
                let parts: Vec<String> = (0..n).map(|k| format!("({t}[{k}] / {len})")).collect();
                format!(
                    "{{ let {t} = {}; let {len} = ({}).sqrt(); [{}] }}",
                    vals[0],
                    dot(&t, &t),
                    parts.join(", ")
                )
            }
            _ => {
                if n != 3 {
                    return unsupported("`cross` of a vector of other than 3 components", span);
                }
                let u = self.temp();
                let c = |i: u32, j: u32| format!("({t}[{i}] * {u}[{j}] - {t}[{j}] * {u}[{i}])");
                format!(
                    "{{ let {t} = {}; let {u} = {}; [{}, {}, {}] }}",
                    vals[0],
                    vals[1],
                    c(1, 2),
                    c(2, 0),
                    c(0, 1)
                )
            }
        })
    }

    fn math(&mut self, f: MathFn, args: &[Expr], span: Span) -> Res<String> {
        use MathFn::*;
        let s = self.scalar_of(&args[0].ty, span)?;
        if !s.is_float() {
            return unsupported(format!("math on `{}`", s.name()), span);
        }
        let a = args.iter().map(|a| self.expr(a)).collect::<Res<Vec<_>>>()?;
        let m = format!(
            "{}::{}",
            self.rt,
            if s == Scalar::F32 { "m32" } else { "m64" }
        );
        let x = &a[0];
        let method = |name: &str| format!("({x}.{name}({}))", a[1..].join(", "));
        Ok(match f {
            Sqrt => method("sqrt"),
            Sin => method("sin"),
            Cos => method("cos"),
            Tan => method("tan"),
            Asin => method("asin"),
            Acos => method("acos"),
            Atan => method("atan"),
            Atan2 => method("atan2"),
            Sinh => method("sinh"),
            Cosh => method("cosh"),
            Tanh => method("tanh"),
            Asinh => method("asinh"),
            Acosh => format!("{m}::acosh({x})"),
            Atanh => format!("{m}::atanh({x})"),
            Exp => method("exp"),
            Exp2 => method("exp2"),
            Expm1 => method("exp_m1"),
            Log => method("ln"),
            Log2 => method("log2"),
            Log10 => method("log10"),
            Log1p => method("ln_1p"),
            Pow => method("powf"),
            // std's results without a libm call each (see `amp-native-rt`'s `float.rs`).
            Floor => format!("{m}::floor({x})"),
            Ceil => format!("{m}::ceil({x})"),
            Round => format!("{m}::round({x})"),
            Trunc => format!("{m}::trunc({x})"),
            // std's `fract` is `x - x.trunc()`.
            Fract => format!("{{ let v = {x}; v - {m}::trunc(v) }}"),
            Fma => method("mul_add"),
            Hypot => method("hypot"),
            Cbrt => method("cbrt"),
            Copysign => method("copysign"),
            IsNan => method("is_nan"),
            IsInf => method("is_infinite"),
            IsFinite => method("is_finite"),
            Signum => method("signum"),
            ToDegrees => method("to_degrees"),
            ToRadians => method("to_radians"),
            Fmod => format!("({x} % {})", a[1]),
            Rsqrt => format!("{m}::rsqrt({x})"),
            Rcp => format!("{m}::rcp({x})"),
            Exp10 => format!("{m}::exp10({x})"),
            Fdim => format!("{m}::fdim({x}, {})", a[1]),
            Clamp => format!("{m}::clamp({x}, {}, {})", a[1], a[2]),
            Ldexp => format!("{m}::ldexp({x}, {})", a[1]),
            FrexpMantissa => format!("{m}::frexp_mantissa({x})"),
            FrexpExponent => format!("{m}::frexp_exponent({x})"),
            ModfFrac => format!("{m}::modf_frac({x})"),
            ModfInt => format!("{m}::modf_int({x})"),
            Nextafter => format!("{m}::nextafter({x}, {})", a[1]),
        })
    }

    /// A buffer access's index (a `[u32; R]` expression) and, in a checked kernel, its bounds
    /// check over the index bound to `bix`, specialized as the SPIR-V back end's: a component
    /// the range analysis proves below the extent is not compared, one below the domain's
    /// extent in its dimension is compared only when the view does not cover the domain
    /// (`covers`, a launch-wide constant), the others are compared. `None`: nothing to check.
    fn bounds_check(&mut self, p: ParamId, idx: &[Expr]) -> Res<(String, Option<String>)> {
        let index = self.indices(idx)?;
        if self.checks == BoundsChecks::Off {
            return Ok((index, None));
        }
        let same_rank = idx.len() as u32 == self.k.rank;
        let mut terms = Vec::new();
        for (d, i) in idx.iter().enumerate() {
            let dim = d as u32;
            if self.ranges.below(i, crate::range::Sym::Extent(p, dim)) {
                continue;
            }
            let compare = format!("bix[{d}] < p{p}.extent[{d}]");
            let by_domain = same_rank && self.ranges.below_domain(i) == Some(dim);
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
                true => terms.push(format!("(p{p}.covers || {compare})")),
                false => terms.push(compare),
            }
        }
        Ok(match terms.is_empty() {
            true => (index, None),
            false => (index, Some(terms.join(" && "))),
        })
    }

    /// Whether the check of component `d` (index `i`) of an access to view `p` moves to a
    /// guard (`guard.rs`): the tile function's, when it is being generated in its guarded
    /// version and the tile's start knows the index's largest value, or else the work-item
    /// loop's, in its guarded version.
    fn guard_check(&mut self, p: ParamId, d: usize, i: &Expr) -> Res<bool> {
        self.guard_below(i, &format!("(p{p}.extent[{d}] as u64)"))
    }

    /// Whether a guard (`guard.rs`) takes over the comparison `i < limit` (`limit` a `u64`
    /// expression the guard can evaluate): see [`guard_check`](Self::guard_check).
    fn guard_below(&mut self, i: &Expr, limit: &str) -> Res<bool> {
        use super::guard::{bound, At};
        let Some(st) = self.tile.as_ref() else {
            return Ok(false);
        };
        let at_entry = self.entry_guards.is_some();
        let found = match at_entry.then(|| bound(i, &st.facts, At::Entry)).flatten() {
            Some(b) => Some((b, At::Entry)),
            None if st.guards.is_some() => {
                bound(i, &st.facts, At::WorkItemLoop).map(|b| (b, At::WorkItemLoop))
            }
            None => None,
        };
        let Some((b, at)) = found else {
            return Ok(false);
        };
        // Before a narrowed work-item loop: the largest `t.local[0]` it runs.
        let lane0_max = match at {
            At::WorkItemLoop => self.tile.as_ref().and_then(|st| st.lane_limit.clone()),
            At::Entry => None,
        };
        let mut sum = String::from("0u64");
        for part in &b.parts {
            use super::guard::Part;
            let v = match (part, &lane0_max) {
                (Part::Local(0), Some(max)) => max.clone(),
                (Part::Local(l), _) => format!("((d{l} - 1) as u64)"),
                (Part::Global(l), _) => format!("(o{l} as u64 + (d{l} - 1) as u64)"),
                (Part::Origin(l), _) => format!("(o{l} as u64)"),
                (Part::Tile(l), _) => format!("(tile[{l}] as u64)"),
                (Part::Dims(l), _) => format!("(d{l} as u64)"),
                (Part::LoopMax(end, inclusive), _) => {
                    let end = self.as_u32(end)?;
                    match inclusive {
                        true => format!("(({end}) as u64)"),
                        false => format!("(({end}) as u64).saturating_sub(1)"),
                    }
                }
            };
            sum.push_str(&format!(" + {v}"));
        }
        for term in &b.terms {
            let v = self.as_u32(term)?;
            sum.push_str(&format!(" + (({v}) as u64)"));
        }
        let guard = format!("({sum} < {limit})");
        let list = match at {
            At::Entry => self.entry_guards.as_mut(),
            At::WorkItemLoop => self.tile.as_mut().and_then(|st| st.guards.as_mut()),
        };
        if let Some(list) = list {
            if !list.contains(&guard) {
                list.push(guard);
            }
        }
        Ok(true)
    }

    /// `Some(pointer)` to a buffer element for a read-modify-write, `None` (recorded in the
    /// report) when the checked index is outside the view.
    fn checked_ptr(&mut self, p: ParamId, idx: &[Expr]) -> Res<String> {
        Ok(match self.bounds_check(p, idx)? {
            (index, None) => format!("Some(p{p}.at({index}))"),
            (index, Some(ok)) => {
                format!("{{ let bix = {index}; p{p}.checked_if(bix, {ok}, {p}, oob) }}")
            }
        })
    }

    /// An atomic on a buffer element, relaxed; in a checked kernel an element outside its view
    /// is a constant 0 (the operation does nothing and returns 0; a compare-exchange succeeds
    /// iff `expected` is 0), as on the device.
    fn atomic(&mut self, a: &Atomic, span: Span) -> Res<String> {
        let value = match &a.value {
            Some(v) => Some(self.expr(v)?),
            None => None,
        };
        let (s, ptr) = match &a.target {
            Place::Buffer(p, idx) => {
                let s = self.buffer_elem_ty(*p, span)?;
                (s, self.checked_ptr(*p, idx)?)
            }
            // `tile_static` memory: the tile's threads run one at a time on one OS thread, so
            // the atomic on the tile function's local is only a read-modify-write.
            place @ Place::Local(..) => {
                let ty = self.place_ty(place, span)?;
                let s = self.scalar_of(&ty, span)?;
                return self.local_atomic(a, s, value, place, span);
            }
        };
        let t = self.scalar(s, span)?;
        let rt = self.rt;
        let v = "tv";
        let zero = format!("(0 as {t})");
        let op = match (a.op, s) {
            (AtomicOp::Add, Scalar::F32) => format!("{rt}::atomic_add_f32(ptr, {v})"),
            (AtomicOp::Exchange, Scalar::F32) => {
                format!("f32::from_bits({rt}::atom_f32(ptr).swap(({v}).to_bits(), {rt}::RELAXED))")
            }
            (AtomicOp::CompareExchange, _) => {
                let Some(expected) = &a.expected else {
                    return unsupported("compare-exchange without an expected value", span);
                };
                let e = self.local_place(expected, span)?;
                let (atom, to, from) = if s == Scalar::F32 {
                    ("atom_f32", ".to_bits()", "f32::from_bits")
                } else {
                    (
                        if s == Scalar::I32 {
                            "atom_i32"
                        } else {
                            "atom_u32"
                        },
                        "",
                        "",
                    )
                };
                let value = value.unwrap_or_default();
                return Ok(format!(
                    "{{ let tv = {value}; let ptr = {ptr}; let ep: *mut {t} = &mut {e}; let ex = *ep; \
                     let old = match ptr {{ Some(ptr) => {from}(match {rt}::{atom}(ptr).compare_exchange(ex{to}, tv{to}, {rt}::RELAXED, {rt}::RELAXED) {{ Ok(o) | Err(o) => o }}), None => {zero} }}; \
                     *ep = old; old == ex }}"
                ));
            }
            (_, Scalar::F32) => {
                return unsupported(format!("{:?} on `f32`", a.op), span);
            }
            (op, _) => {
                let atom = if s == Scalar::I32 {
                    "atom_i32"
                } else {
                    "atom_u32"
                };
                let (method, arg) = match op {
                    AtomicOp::Add => ("fetch_add", v.to_string()),
                    AtomicOp::Sub => ("fetch_sub", v.to_string()),
                    AtomicOp::Min => ("fetch_min", v.to_string()),
                    AtomicOp::Max => ("fetch_max", v.to_string()),
                    AtomicOp::And => ("fetch_and", v.to_string()),
                    AtomicOp::Or => ("fetch_or", v.to_string()),
                    AtomicOp::Xor => ("fetch_xor", v.to_string()),
                    AtomicOp::Exchange => ("swap", v.to_string()),
                    AtomicOp::Inc => ("fetch_add", format!("(1 as {t})")),
                    AtomicOp::Dec => ("fetch_sub", format!("(1 as {t})")),
                    AtomicOp::CompareExchange => {
                        return broken("compare-exchange is emitted above", span)
                    }
                };
                format!("{rt}::{atom}(ptr).{method}({arg}, {rt}::RELAXED)")
            }
        };
        let bind = if let Some(value) = &value {
            format!("let tv = {value}; ")
        } else {
            String::new()
        };
        Ok(format!(
            "{{ {bind}match {ptr} {{ Some(ptr) => {op}, None => {zero} }} }}"
        ))
    }
}

impl Emitter<'_> {
    /// An atomic on `tile_static` memory (or another local): the tile's threads run one at a
    /// time on one OS thread, so it is a plain read-modify-write with the operation's result
    /// (wrapping integer arithmetic, `min`/`max` of the element type, an `f32` sum rounded
    /// once), returning the old value; a compare-exchange stores only on a match, and returns
    /// whether it did, the old value going to `expected`.
    fn local_atomic(
        &mut self,
        a: &Atomic,
        s: Scalar,
        value: Option<String>,
        place: &Place,
        span: Span,
    ) -> Res<String> {
        let t = self.scalar(s, span)?;
        let p = self.local_place(place, span)?;
        let value = value.unwrap_or_else(|| format!("(0 as {t})"));
        let new = match (a.op, s) {
            (AtomicOp::Add, Scalar::F32) => "old + tv".to_string(),
            (AtomicOp::Exchange, _) => "tv".to_string(),
            (AtomicOp::CompareExchange, _) => {
                let Some(expected) = &a.expected else {
                    return unsupported("compare-exchange without an expected value", span);
                };
                let e = self.local_place(expected, span)?;
                // Integers compare as values; an `f32` by its bits, as the device's
                // compare-exchange on the word does.
                let same = match s {
                    Scalar::F32 => "old.to_bits() == ex.to_bits()",
                    _ => "old == ex",
                };
                return Ok(format!(
                    "{{ let tv: {t} = {value}; let ptr: *mut {t} = &mut {p}; let ep: *mut {t} = &mut {e}; \
                     let ex = *ep; let old = *ptr; let hit = {same}; if hit {{ *ptr = tv; }} *ep = old; hit }}"
                ));
            }
            (_, Scalar::F32) => return unsupported(format!("{:?} on `f32`", a.op), span),
            (AtomicOp::Add, _) => "old.wrapping_add(tv)".to_string(),
            (AtomicOp::Sub, _) => "old.wrapping_sub(tv)".to_string(),
            (AtomicOp::Min, _) => "old.min(tv)".to_string(),
            (AtomicOp::Max, _) => "old.max(tv)".to_string(),
            (AtomicOp::And, _) => "old & tv".to_string(),
            (AtomicOp::Or, _) => "old | tv".to_string(),
            (AtomicOp::Xor, _) => "old ^ tv".to_string(),
            (AtomicOp::Inc, _) => format!("old.wrapping_add(1 as {t})"),
            (AtomicOp::Dec, _) => format!("old.wrapping_sub(1 as {t})"),
        };
        Ok(format!(
            "{{ let tv: {t} = {value}; let ptr: *mut {t} = &mut {p}; let old = *ptr; *ptr = {new}; old }}"
        ))
    }
}

/// The field number of a struct member access (a literal index in the IR).
fn field_index(index: &Expr, span: Span) -> Res<usize> {
    match index.kind {
        ExprKind::Lit(Lit::Int(k)) => Ok(k as usize),
        _ => unsupported("a struct field chosen at run time", span),
    }
}

/// The type of field `k` of a struct.
fn field_ty(def: &crate::types::StructDef, k: usize, span: Span) -> Res<Ty> {
    match def.fields.get(k) {
        Some(f) => Ok(f.ty.clone()),
        None => unsupported(format!("field {k} of `{}`", def.name), span),
    }
}

/// An `i32` literal.
fn i32_lit(v: i32) -> String {
    match v {
        i32::MIN => "i32::MIN".to_string(),
        v if v < 0 => format!("({v}i32)"),
        v => format!("{v}i32"),
    }
}

/// Element `index` (a `usize` expression known to be in range) of the array or slice `base`,
/// as a place (`place`) or a value, without Rust's check. The index is evaluated first, in a
/// block of its own, so it may read `base` itself.
fn unchecked_element(base: &str, index: &str, place: bool) -> String {
    let get = if place {
        "get_unchecked_mut"
    } else {
        "get_unchecked"
    };
    format!("(*{{ let ix_: usize = {index}; ({base}).{get}(ix_) }})")
}

/// Whether index expression `e` has no side effects (no atomics, assignments, buffer reads
/// that may record an out-of-bounds report, or statements), so computing it before or after
/// the indices around it changes nothing.
fn pure_index(e: &Expr) -> bool {
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
