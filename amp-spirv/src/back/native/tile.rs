//! Tiled kernels: one function per tile, whose threads run in work-item loops (the MCUDA /
//! PoCL transformation; see the module docs of `back::native` for the ABI).
//!
//! The body is cut at its barriers. A statement without a barrier belongs to a *region*: a run
//! of such statements is one work-item loop over the tile's threads in row-major local-index
//! order. A statement with a barrier is a control construct (or the barrier itself), run once
//! per tile: the uniformity analysis proves that its conditions and loop bounds are the same in
//! every thread, so they are evaluated for one thread (the *lead*: thread 0, or with `return`s
//! the first thread that has not returned).
//!
//! Locals: a thread-private local used in more than one region (or in a tile-level condition)
//! lives in the thread's *frame*: its element of an array with one element per thread,
//! allocated once per tile call (structure of arrays, so neighbouring threads of a work-item
//! loop touch neighbouring elements and LLVM can vectorize it); a local used in one region only is a plain local of that work-item loop. `tile_static`
//! variables, the tile's index fields and the counters of tile-level `for` loops are plain
//! locals of the tile function.
//!
//! The emitter runs twice over the body: the first run records which contexts (regions and
//! lead evaluations) name each local, the second emits with the frame chosen from that.

use super::invariant::Invariant;
use super::{
    broken, conjunction, generated_fn, index_lit, item_name, label, local, numbered, unsupported,
    Emitter, Res,
};
use crate::diag::Span;
use crate::ir::*;
use crate::pass::uniform::has_barrier;
use crate::types::{Len, Scalar, Ty};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The threads a narrowed work-item loop runs ([`Emitter::narrowed`]).
enum Lanes {
    /// `t.local[0] < n`: those below a bound.
    Below,
    /// `t.local[0] <= m`: those up to a bound.
    AtMost,
    /// `t.local[0] % m == 0`: every m-th from 0.
    Multiples,
}

/// A condition a part of a split work-item loop decides: its address, and its value there
/// ([`Emitter::split_condition`]).
type Folded = Option<(usize, bool)>;

/// The work-item loop state of a tiled kernel's emission.
pub(crate) struct TileState {
    /// The locals each thread keeps in its frame (chosen after the first run).
    frame: BTreeSet<LocalId>,
    /// Locals named plainly everywhere and never recorded: the tiled index's fields,
    /// `tile_static` variables, the counters of tile-level `for` loops.
    pub(super) fixed: HashSet<LocalId>,
    /// Tile-level `for` counters, declared at the top of the tile function.
    pub(super) tile_scalars: BTreeSet<LocalId>,
    /// The contexts in which each other local is named.
    uses: BTreeMap<LocalId, BTreeSet<u32>>,
    /// The contexts that are lead evaluations (or subgroup operations, `subgroup.rs`): every
    /// local they name lives in the frames.
    pub(super) lead_ctx: HashSet<u32>,
    /// The current context: a region or a lead evaluation (`None`: tile-level code).
    pub(super) ctx: Option<u32>,
    /// Contexts numbered so far.
    pub(super) contexts: u32,
    /// The label of the work-item loop being emitted.
    region: Option<u32>,
    /// Whether threads have a `done` flag: the kernel has a barrier and a `return`.
    done_flag: bool,
    /// Whether the kernel has a barrier (so a frame may be needed).
    barriers: bool,
    /// Whether the region being emitted leaves the innermost tile-level loop through its flag.
    flag_set: bool,
    /// Tile-uniform locals (`tile_locals`): tile-function locals assigned at tile level.
    pub(super) uniform: HashSet<LocalId>,
    /// Rematerialized locals (`tile_locals`): defined again at the start of each work-item
    /// loop and lead evaluation, by `remat_defs`.
    pub(super) remat: HashSet<LocalId>,
    /// The definitions of the rematerialized locals.
    remat_defs: TokenStream,
    /// Locals declared by the body of a jammed loop ([`Emitter::jammed_for`]): named in its
    /// jammed work-item loop and in the one-by-one rest, but each time assigned before use in
    /// the same iteration, so each work-item loop keeps its own (no frame).
    pub(super) scoped: HashSet<LocalId>,
    /// What the guards of work-item loops know about the locals (`guard.rs`).
    pub(super) facts: super::guard::LaneFacts,
    /// While a work-item loop is emitted in its guarded version: the comparisons its guard
    /// makes (the bounds checks hoisted out of it).
    pub(super) guards: Option<Vec<TokenStream>>,
    /// While a narrowed work-item loop is emitted ([`Emitter::narrowed`]): the largest
    /// `t.local[0]` it runs, a `u64` expression (its guards bound the thread's index by it).
    pub(super) lane_limit: Option<TokenStream>,
    /// While a batch's work-item loop narrowed to lanes `lo..hi` of its last dimension is
    /// emitted ([`Emitter::batch_interior`]): the names of `lo` and `hi` (`lo < hi`).
    pub(super) last_lanes: Option<(Ident, Ident)>,
    /// While one part of a split work-item loop is emitted ([`Emitter::split_condition`]):
    /// the address of the condition it decides, and its value there.
    pub(super) folded: Folded,
}

impl TileState {
    /// The name of local `id`, recording its use in the current context.
    pub(super) fn name(&mut self, id: LocalId) -> TokenStream {
        if !self.fixed.contains(&id) {
            if let Some(c) = self.ctx {
                self.uses.entry(id).or_default().insert(c);
            }
        }
        if self.frame.contains(&id) {
            let frame = numbered("fl", id);
            quote!((*#frame.add(lane)))
        } else {
            let l = local(id);
            quote!(#l)
        }
    }

    /// Whether threads keep frames: for their `done` flags, or for locals that live across
    /// work-item loops (a batch without barriers has several too where a nested block or a
    /// block-valued operand splits its statements).
    fn has_frame(&self) -> bool {
        (self.barriers && self.done_flag) || !self.frame.is_empty()
    }
}

pub(super) fn stmt_has_barrier(s: &Stmt) -> bool {
    match s {
        Stmt::Let(_, Some(e)) | Stmt::Expr(e) => has_barrier(e),
        Stmt::Let(_, None) => false,
    }
}

impl Emitter<'_> {
    /// The work-item loop state: only a tiled kernel's emission has one.
    pub(super) fn st(&mut self) -> Res<&mut TileState> {
        let span = self.whole_kernel();
        match self.tile.as_mut() {
            Some(st) => Ok(st),
            None => broken(Invariant::TileLevelInTiledKernels, span),
        }
    }

    /// The function of one tile (the module docs' tile ABI), with the bounds checks (in a
    /// checked kernel) and local-array clamps the tile's start decides moved to a guard when
    /// there are any (`guard.rs`): a wrapper that runs the tile without them when the guard
    /// holds, checked otherwise.
    pub(super) fn guarded_tiled_function(&mut self, name: &Ident) -> Res<TokenStream> {
        self.entry_guards = Some(Vec::new());
        let guarded = self.tile_code();
        let guards = self.entry_guards.take().unwrap_or_default();
        let (args, guarded) = guarded?;
        let span = self.whole_kernel();
        let guard = conjunction(&guards);
        let dims = self.entry_dims(span)?;
        // A batch that takes any count of threads gets its guard alone, for the executor to
        // ask before it runs a whole row's batches in one call (`NativeSource::lane_frames`).
        let generics = self.generic_params();
        let fits = match self.batch && !self.lane_frames {
            true => {
                let fits = item_name(&format!("{name}_fits"), span)?;
                let doc = format!(
                    " Whether a call of `{name}` with these arguments passes its guard: it runs \
                     none of the checks the guard decides."
                );
                quote! {
                    #[doc = #doc]
                    #[inline]
                    #[allow(warnings, clippy::all, unused_unsafe)]
                    pub unsafe fn #fits #generics (#(#args),*) -> bool { #(#dims)* #guard }
                }
            }
            false => TokenStream::new(),
        };
        if guards.is_empty() {
            // Nothing to decide at the start: the guarded version is the function.
            let mut f = self.tile_item(name, &args, &guarded);
            f.extend(fits);
            return Ok(f);
        }
        let (guarded_fn, checked_fn) = (
            item_name("__amp_guarded", span)?,
            item_name("__amp_checked", span)?,
        );
        let guarded = self.tile_item(&guarded_fn, &args, &guarded);
        let checked = self.tiled_function(&checked_fn)?;
        let names = self.arg_names("tile");
        let turbofish = self.generic_args();
        let doc = format!(
            " One tile of kernel `{}` (generated by amp-spirv's native back end): the tile \
             without the bounds checks its guard proves, or checked.",
            self.k.name
        );
        let mut f = generated_fn(
            &doc,
            name,
            &generics,
            &args,
            quote! {
                #guarded
                #checked
                #(#dims)*
                if #guard {
                    #guarded_fn #turbofish (#(#names),*)
                } else {
                    #checked_fn #turbofish (#(#names),*)
                }
            },
        );
        f.extend(fits);
        Ok(f)
    }

    /// Each tile dimension's size `d<d>` and origin `o<d>` in a tile function's entry, where
    /// its guard is decided.
    fn entry_dims(&self, span: Span) -> Res<Vec<TokenStream>> {
        let Some(tiled) = &self.k.tiled else {
            return unsupported("a tiled kernel without its tiled index", span);
        };
        let mut dims = Vec::new();
        let wide = self.wide_batch();
        for (d, dim) in tiled.dims.iter().enumerate() {
            let (dim, stride) = self.tile_dim_and_stride(d, dim, wide, span)?;
            let (dn, on, dl) = (numbered("d", d), numbered("o", d), index_lit(d));
            dims.push(quote!(let #dn: u32 = #dim; let #on: u32 = tile[#dl].wrapping_mul(#stride);));
        }
        Ok(dims)
    }

    /// The function of one tile (the module docs' tile ABI), called `name`.
    pub(super) fn tiled_function(&mut self, name: &Ident) -> Res<TokenStream> {
        let (args, code) = self.tile_code()?;
        Ok(self.tile_item(name, &args, &code))
    }

    /// The item of a tile function called `name` with arguments `args` and body `code` (from
    /// [`Emitter::tile_code`]).
    fn tile_item(&self, name: &Ident, args: &[TokenStream], code: &TokenStream) -> TokenStream {
        let doc = format!(
            " One tile of kernel `{}` (generated by amp-spirv's native back end).",
            self.k.name
        );
        generated_fn(&doc, name, &self.generic_params(), args, code.clone())
    }

    /// The body of one tile's function (the module docs' tile ABI), and its arguments: see
    /// [`Emitter::tile_item`].
    fn tile_code(&mut self) -> Res<(Vec<TokenStream>, TokenStream)> {
        let k = self.k;
        let span = self.whole_kernel();
        let Some(tiled) = &k.tiled else {
            return unsupported("a tiled kernel without its tiled index", span);
        };
        let rank = k.rank as usize;
        if tiled.dims.len() != rank {
            return unsupported("a tile shape of another rank than the kernel", span);
        }
        let barriers = block_has(&k.body, has_barrier);
        let mut fixed: HashSet<LocalId> = [
            tiled.global,
            tiled.local,
            tiled.tile,
            tiled.tile_origin,
            tiled.tile_extent,
        ]
        .into_iter()
        .collect();
        let statics: Vec<LocalId> = (0..k.locals.len())
            .filter(|&id| k.locals[id].storage == Storage::TileStatic)
            .collect();
        fixed.extend(statics.iter().copied());
        let uniform = super::tile_locals::tile_uniform(k, tiled);
        let remat = super::tile_locals::rematerialized(k, tiled, &uniform);
        fixed.extend(uniform.iter().copied());
        fixed.extend(remat.iter().map(|(id, _)| *id));
        // `tile_static` arrays whose length is a named constant: flat arrays, taken once per
        // tile call from the thread's pool (`<rt>::frames`).
        for &id in &statics {
            let mut ty = k.locals[id].ty.clone();
            let mut lens = Vec::new();
            let mut dynamic = false;
            while let Ty::Array(elem, len) = ty {
                lens.push(match &len {
                    Len::Lit(n) => {
                        let n = proc_macro2::Literal::u32_suffixed(*n);
                        quote!(#n)
                    }
                    Len::Const(i, _) => {
                        dynamic = true;
                        let c = numbered("c", i);
                        quote!((#c as u32))
                    }
                });
                ty = *elem;
            }
            if dynamic {
                self.dyn_arrays.insert(id, (lens, ty));
            }
        }
        self.unfilled = super::tile_statics::overwritten_first(k, tiled)
            .into_iter()
            .filter(|id| self.dyn_arrays.contains_key(id))
            .collect();
        let facts = super::guard::LaneFacts {
            local: tiled.local,
            global: tiled.global,
            origin: tiled.tile_origin,
            tile: tiled.tile,
            dims: tiled.tile_extent,
            uniform: uniform.iter().copied().collect(),
            remat: remat.iter().cloned().collect(),
            loop_ends: Default::default(),
            lets_once: super::tile_locals::lets_once(k),
            region: Default::default(),
            jammed: Default::default(),
        };
        self.tile = Some(TileState {
            scoped: HashSet::new(),
            facts,
            guards: None,
            lane_limit: None,
            last_lanes: None,
            folded: None,
            frame: BTreeSet::new(),
            fixed,
            tile_scalars: uniform.iter().copied().collect(),
            uniform,
            remat: remat.iter().map(|(id, _)| *id).collect(),
            remat_defs: TokenStream::new(),
            uses: BTreeMap::new(),
            lead_ctx: HashSet::new(),
            ctx: None,
            contexts: 0,
            region: None,
            done_flag: barriers && block_has(&k.body, has_return),
            barriers,
            flag_set: false,
        });
        let mut defs = TokenStream::new();
        for (id, init) in &remat {
            let v = self.expr(init)?;
            let (l, t) = (local(*id), self.ty(&k.locals[*id].ty, span)?);
            defs.extend(quote!(let mut #l: #t = #v;));
        }
        self.st()?.remat_defs = defs;

        // First run: which contexts name which locals.
        self.tile_block(&k.body)?;
        let st = self.st()?;
        st.frame = st
            .uses
            .iter()
            .filter(|(id, cs)| {
                (cs.len() > 1 || cs.iter().any(|c| st.lead_ctx.contains(c)))
                    && !st.scoped.contains(id)
            })
            .map(|(&id, _)| id)
            .collect();
        st.uses.clear();
        st.lead_ctx.clear();
        st.contexts = 0;
        self.labels = 0;
        self.temps = 0;
        // Second run: the code.
        let body = self.tile_block(&k.body)?;

        let wide = self.wide_batch();
        let (dims, strides): (Vec<_>, Vec<_>) = tiled
            .dims
            .iter()
            .enumerate()
            .map(|(d, dim)| self.tile_dim_and_stride(d, dim, wide, span))
            .collect::<Res<Vec<_>>>()?
            .into_iter()
            .unzip();
        let args = self.args("tile")?;
        let mut s = TokenStream::new();
        for (d, dim) in dims.iter().enumerate() {
            let dn = numbered("d", d);
            s.extend(quote!(let #dn: u32 = #dim;));
        }
        let nt = (1..rank).fold(quote!((d0 as usize)), |nt, d| {
            let dn = numbered("d", d);
            quote!(#nt * (#dn as usize))
        });
        s.extend(quote!(let nt: usize = #nt;));
        for (d, stride) in strides.iter().enumerate() {
            let (on, dl) = (numbered("o", d), index_lit(d));
            s.extend(quote!(let #on: u32 = tile[#dl].wrapping_mul(#stride);));
        }
        let (os, ds): (Vec<Ident>, Vec<Ident>) = (0..rank)
            .map(|d| (numbered("o", d), numbered("d", d)))
            .unzip();
        let (lt, lo, le, rl) = (
            local(tiled.tile),
            local(tiled.tile_origin),
            local(tiled.tile_extent),
            index_lit(rank),
        );
        s.extend(quote! {
            let mut #lt: [u32; #rl] = tile;
            let mut #lo: [u32; #rl] = [#(#os),*];
            let mut #le: [u32; #rl] = [#(#ds),*];
        });
        let st = self.st()?;
        let scalars: Vec<LocalId> = statics
            .iter()
            .copied()
            .chain(st.tile_scalars.iter().copied())
            .collect();
        let frame: Vec<LocalId> = st.frame.iter().copied().collect();
        let (has_frame, done_flag) = (st.has_frame(), st.done_flag);
        s.extend(self.call_memory(&scalars, has_frame.then_some(&frame[..]), done_flag, span)?);
        s.extend(quote!(unsafe { #body }));
        Ok((args, s))
    }

    /// Tile dimension `d`'s size in this call (`d<d>`) and the distance between the origins
    /// of neighbouring tiles along it: both the dimension's value, except in a batch. A
    /// batch's last dimension has `lanes` threads (any count in a `wide` batch, one without
    /// frames; at most `LANES`, fewer at a row's end, in another) that start at
    /// `tile[d] * LANES`; the one before it, in a wide batch, `rows` rows from `tile[d]`; the
    /// others one thread at `tile[d]`.
    fn tile_dim_and_stride(
        &self,
        d: usize,
        dim: &TileDim,
        wide: bool,
        span: Span,
    ) -> Res<(TokenStream, TokenStream)> {
        let rank = self.k.rank as usize;
        Ok(match self.batch {
            true if d + 1 == rank => {
                let full = proc_macro2::Literal::u32_suffixed(crate::pass::batch::LANES);
                (quote!(lanes), quote!(#full))
            }
            true if wide && d + 2 == rank => (quote!(rows), quote!(1u32)),
            true => (self.tile_dim(dim, span)?, quote!(1u32)),
            false => {
                let dn = numbered("d", d);
                (self.tile_dim(dim, span)?, quote!(#dn))
            }
        })
    }

    /// Whether the tile function being generated is a batch without per-thread frames: one
    /// that runs any count of a row's threads, in a block of rows (`NativeSource::lane_frames`).
    /// Decided once its body is emitted (its frames are known then).
    fn wide_batch(&self) -> bool {
        self.batch && self.tile.as_ref().is_some_and(|st| !st.has_frame())
    }

    /// A tile dimension's value: its literal, or the outer constant it names.
    fn tile_dim(&self, d: &TileDim, span: Span) -> Res<TokenStream> {
        match d {
            TileDim::Lit(n) => {
                let n = proc_macro2::Literal::u32_suffixed(*n);
                Ok(quote!(#n))
            }
            TileDim::Named(ident) => match self.k.consts.iter().position(|c| c.ident == *ident) {
                Some(i) => {
                    let c = numbered("c", i);
                    Ok(quote!((#c as u32)))
                }
                None => unsupported(format!("the tile dimension `{ident}`"), span),
            },
        }
    }

    /// A block of tile-level code: runs of barrier-free statements as work-item loops, the
    /// statements with barriers as tile-level code.
    pub(super) fn tile_block(&mut self, b: &Block) -> Res<TokenStream> {
        let mut out = TokenStream::new();
        let mut run: Vec<&Stmt> = Vec::new();
        for st in &b.stmts {
            if let Stmt::Let(id, _) = st {
                if self.st()?.remat.contains(id) {
                    continue; // defined by every work-item loop
                }
            }
            if super::tile_locals::assigns_uniform(st, &self.st()?.uniform) {
                // Once per tile, between the work-item loops.
                out.extend(self.region(&run, None)?);
                run.clear();
                out.extend(self.stmt(st)?);
                continue;
            }
            if stmt_has_barrier(st) {
                out.extend(self.region(&run, None)?);
                run.clear();
                match st {
                    Stmt::Expr(e) => {
                        let code = self.located(e.span, |e2| e2.tile_expr(e))?;
                        out.extend(code)
                    }
                    Stmt::Let(id, Some(e)) if matches!(e.kind, ExprKind::Subgroup(..)) => {
                        let ExprKind::Subgroup(op, operands) = &e.kind else {
                            return broken(Invariant::MatchedAbove, e.span);
                        };
                        let code =
                            self.located(e.span, |e2| e2.collective(*id, *op, operands, e))?;
                        out.extend(code)
                    }
                    Stmt::Let(_, Some(e)) => {
                        return unsupported("a barrier in a `let` initializer", e.span)
                    }
                    Stmt::Let(_, None) => {}
                }
            } else {
                run.push(st);
            }
        }
        match b.tail.as_deref() {
            Some(t) if has_barrier(t) => {
                out.extend(self.region(&run, None)?);
                out.extend(self.located(t.span, |e| e.tile_expr(t))?);
            }
            tail => out.extend(self.region(&run, tail)?),
        }
        Ok(quote!({ #out }))
    }

    /// A tile-level expression statement.
    fn tile_expr(&mut self, e: &Expr) -> Res<TokenStream> {
        if !has_barrier(e) {
            return self.region(&[], Some(e));
        }
        let (span, at) = (e.span, self.at);
        Ok(match &e.kind {
            // The boundary between the regions around it. The tile's threads run on one OS
            // thread, so only a fence of views and arrays needs a fence: it orders the tile's
            // accesses against other tiles' (docs/kernel-language.md, the memory model), with
            // the device's acquire-release semantics (an `mfence` on x86 for a `SeqCst` one, a
            // cost at every barrier that the model does not ask for).
            ExprKind::Barrier(Fence::TileStatic) => TokenStream::new(),
            ExprKind::Barrier(_) => quote_spanned!(at=>
                ::core::sync::atomic::fence(::core::sync::atomic::Ordering::AcqRel);
            ),
            ExprKind::Block(b) => self.tile_block(b)?,
            ExprKind::If(cond, then, els) => {
                let c = self.lead(cond)?;
                let t = self.tile_block(then)?;
                match els {
                    None => quote_spanned!(at=> if #c #t),
                    Some(x) => {
                        let x = match &x.kind {
                            ExprKind::Block(b) => self.tile_block(b)?,
                            _ => {
                                let x = self.tile_expr(x)?;
                                quote_spanned!(at=> { #x })
                            }
                        };
                        quote_spanned!(at=> if #c #t else #x)
                    }
                }
            }
            ExprKind::While(cond, body) => self.tile_loop(Some(cond), body)?,
            ExprKind::Loop(body) => self.tile_loop(None, body)?,
            ExprKind::For(r) => self.tile_for(r, span)?,
            _ => return unsupported("a barrier inside an expression", span),
        })
    }

    /// `e` evaluated for the lead thread, as a block expression.
    pub(super) fn lead(&mut self, e: &Expr) -> Res<TokenStream> {
        let at = self.at;
        let st = self.st()?;
        st.contexts += 1;
        let ctx = st.contexts;
        st.ctx = Some(ctx);
        st.lead_ctx.insert(ctx);
        let v = self.expr(e);
        let st = self.st()?;
        st.ctx = None;
        let v = v?;
        let (has_frame, done_flag) = (st.has_frame(), st.done_flag);
        let mut s = match done_flag {
            true => quote_spanned!(at=>
                let mut lead: usize = 0;
                while lead < nt && *fdone.add(lead) { lead += 1; }
                if lead == nt { return; }
            ),
            false => quote_spanned!(at=> let lead: usize = 0;),
        };
        s.extend(quote_spanned!(at=> let mut rest = lead;));
        for d in (0..self.k.rank as usize).rev() {
            let (i, dn) = (numbered("i", d), numbered("d", d));
            s.extend(quote_spanned!(at=>
                let #i: u32 = (rest % (#dn as usize)) as u32; rest /= #dn as usize;
            ));
        }
        if has_frame {
            s.extend(quote_spanned!(at=> let lane: usize = lead;));
        }
        s.extend(self.thread_prologue()?);
        Ok(quote_spanned!(at=> { #s #v }))
    }

    /// The thread's `t.local` and `t.global` from its local index `i0, ..`.
    fn thread_prologue(&mut self) -> Res<TokenStream> {
        let span = self.whole_kernel();
        let remat = self.st()?.remat_defs.clone();
        let Some(tiled) = self.k.tiled.as_ref() else {
            return broken(Invariant::TiledIndex, span);
        };
        let rank = self.k.rank as usize;
        let is: Vec<Ident> = (0..rank).map(|d| numbered("i", d)).collect();
        let os: Vec<Ident> = (0..rank).map(|d| numbered("o", d)).collect();
        let (ll, lg, rl) = (local(tiled.local), local(tiled.global), index_lit(rank));
        Ok(quote! {
            let mut #ll: [u32; #rl] = [#(#is),*];
            let mut #lg: [u32; #rl] = [#(#os.wrapping_add(#is)),*];
            #remat
        })
    }

    /// A work-item loop running `stmts` and `tail` (no barrier among them) for every thread of
    /// the tile; empty when there is nothing to run.
    pub(super) fn region(&mut self, stmts: &[&Stmt], tail: Option<&Expr>) -> Res<TokenStream> {
        if stmts.is_empty() && tail.is_none() {
            return Ok(TokenStream::new());
        }
        // A region that is one `if t.local[0] < n { .. }` (or `<= m`, below `m + 1`; `== 0`,
        // below 1): its work-item loop stops at `n`;
        // one `if t.local[0] % m == 0 { .. }`: it runs every m-th thread. `n` and `m` name
        // tile-level values only, so they are evaluated before the loop, outside any context.
        let (limit, stmts, tail): (Option<(Lanes, TokenStream)>, Vec<&Stmt>, Option<&Expr>) =
            match self.narrowed(stmts, tail) {
                Some((lanes, n, then)) => (
                    Some((lanes, self.expr(&n)?)),
                    then.stmts.iter().collect(),
                    then.tail.as_deref(),
                ),
                None => (None, stmts.to_vec(), tail),
            };
        // In a batch, a region that is one `if` comparing the thread's global components with
        // batch-uniform values (a stencil's `if i >= 1 && i < n - 1 && ..`): the loop runs the
        // lanes whose last component passes, after the other comparisons passed for the batch.
        let interior = match (self.batch, &limit) {
            (true, None) => self.batch_interior(&stmts, tail)?,
            _ => None,
        };
        let (stmts, tail) = match &interior {
            Some(i) => (i.then.stmts.iter().collect(), i.then.tail.as_deref()),
            None => (stmts, tail),
        };
        // Otherwise a condition `t.local[0] < u` (or `>= u`) splits the loop in two, each
        // with the condition a constant; `u` is evaluated before the loops, as `n` above.
        let split = match (limit.is_none() && interior.is_none())
            .then(|| self.split_condition(&stmts, tail))
        {
            Some(Some((cond, u, below))) => Some((cond, self.expr(u)?, below)),
            _ => None,
        };
        let w = self.new_label();
        let (nw, qw, wl) = (numbered("n", w), numbered("q", w), label("w", w));
        let (lw, hw) = (numbered("lo", w), numbered("hi", w));
        let (lr, hr) = (numbered("row_lo", w), numbered("row_hi", w));
        let st = self.st()?;
        st.contexts += 1;
        let ctx = st.contexts;
        st.ctx = Some(ctx);
        st.region = Some(w);
        st.flag_set = false;
        st.last_lanes = interior.as_ref().map(|_| (lw.clone(), hw.clone()));
        st.lane_limit = limit.as_ref().map(|(lanes, _)| match lanes {
            Lanes::Below | Lanes::AtMost => quote!(((#nw as u64).saturating_sub(1))),
            // The last multiple of the step below the tile's size (`n<w>` is at least 1).
            Lanes::Multiples => quote!(((((d0 - 1) / #nw) * #nw) as u64)),
        });
        // Each part: the threads it runs (`lo..hi` of `t.local[0]`), and the condition's
        // value there.
        let parts: Vec<(TokenStream, TokenStream, Folded)> = match &split {
            None => vec![(quote!(0), quote!(d0), None)],
            Some((cond, _, below)) => vec![
                (quote!(0), quote!(#qw), Some((*cond, *below))),
                (quote!(#qw), quote!(d0), Some((*cond, !*below))),
            ],
        };
        let region_lets = super::tile_locals::region_lets(&self.st()?.facts, &stmts, tail);
        self.st()?.facts.region = region_lets;
        let mut codes = Vec::new();
        for (_, _, folded) in &parts {
            self.st()?.folded = *folded;
            // The guarded version first (`guard.rs`): if it hoists no check, it is the only
            // one.
            self.st()?.guards = Some(Vec::new());
            let body = self.region_body(&stmts, tail);
            let guards = self.st()?.guards.take().unwrap_or_default();
            let checked = match (&body, guards.is_empty()) {
                (Ok(_), false) => Some(self.region_body(&stmts, tail)),
                _ => None,
            };
            codes.push((body, guards, checked));
        }
        let st = self.st()?;
        st.ctx = None;
        st.region = None;
        st.facts.region.clear();
        st.lane_limit = None;
        st.last_lanes = None;
        st.folded = None;
        let mut bodies = Vec::new();
        for (body, guards, checked) in codes {
            bodies.push((body?, guards, checked.transpose()?));
        }
        let st = self.st()?;
        let (has_frame, done_flag, flag_set) = (st.has_frame(), st.done_flag, st.flag_set);
        let scalars: Vec<LocalId> = st
            .uses
            .iter()
            .filter(|(id, cs)| cs.contains(&ctx) && !st.frame.contains(id))
            .map(|(&id, _)| id)
            .collect();
        let span = self.whole_kernel();
        let mut decls = TokenStream::new();
        for id in scalars {
            let ty = &self.k.locals[id].ty;
            let (l, t, zero) = (local(id), self.ty(ty, span)?, self.zero(ty, span)?);
            decls.extend(quote!(let mut #l: #t = #zero;));
        }
        let rank = self.k.rank as usize;
        let prologue = self.thread_prologue()?;
        let work_item_loop = |body: &TokenStream, lo: &TokenStream, hi: &TokenStream| {
            let lane = (1..rank).fold(quote!((i0 as usize)), |lin, d| {
                let (dn, i) = (numbered("d", d), numbered("i", d));
                quote!((#lin * (#dn as usize) + (#i as usize)))
            });
            let mut code = TokenStream::new();
            if has_frame {
                code.extend(quote!(let lane: usize = #lane;));
                if done_flag {
                    code.extend(quote!(if *fdone.add(lane) { continue #wl; }));
                }
            }
            code.extend(prologue.clone());
            code.extend(decls.clone());
            code.extend(body.clone());
            // The loops from the innermost out: the innermost is the one a thread's `return`
            // continues.
            for d in (0..rank).rev() {
                let (i, dn) = (numbered("i", d), numbered("d", d));
                let head = match (d, &limit) {
                    _ if interior.is_some() && d + 1 == rank => {
                        quote!(for #i in #lw..#hw)
                    }
                    _ if interior.is_some() && d + 2 == rank => {
                        quote!(for #i in #lr..#hr)
                    }
                    (0, Some((Lanes::Below | Lanes::AtMost, _))) => quote!(for i0 in 0..#nw),
                    (0, Some((Lanes::Multiples, _))) => {
                        quote!(for i0 in (0..d0).step_by(#nw as usize))
                    }
                    (0, None) => quote!(for i0 in #lo..#hi),
                    _ => quote!(for #i in 0..#dn),
                };
                code = match d + 1 == rank {
                    true => quote!(#wl: #head { #code }),
                    false => quote!(#head { #code }),
                };
            }
            code
        };
        let mut s = match &limit {
            // The threads below `n` (all of them when `n` is larger).
            Some((Lanes::Below, n)) => {
                quote!(let #nw: u32 = { let n: u32 = #n; if n < d0 { n } else { d0 } };)
            }
            // The threads up to `m` (all of them when `m` is the last one or past it; `m + 1`
            // is computed only below `d0`, so it does not wrap).
            Some((Lanes::AtMost, m)) => {
                quote!(let #nw: u32 = { let m: u32 = #m; if m < d0 { m + 1 } else { d0 } };)
            }
            // Every m-th thread from 0; `l % 0` is `l` (docs/semantics.md), so `m == 0`
            // leaves thread 0 alone: a step of the whole tile.
            Some((Lanes::Multiples, m)) => {
                quote!(let #nw: u32 = { let m: u32 = #m; if m == 0 { d0 } else { m } };)
            }
            None => TokenStream::new(),
        };
        if let Some((_, u, _)) = &split {
            // The threads below `u` (all of them when `u` is larger).
            s.extend(quote!(let #qw: u32 = { let u: u32 = #u; if u < d0 { u } else { d0 } };));
        }
        let mut loops = TokenStream::new();
        for ((lo, hi, _), (body, guards, checked)) in parts.iter().zip(bodies) {
            loops.extend(match checked {
                None => work_item_loop(&body, lo, hi),
                Some(checked) => {
                    let guard = conjunction(&guards);
                    let fast = work_item_loop(&body, lo, hi);
                    let slow = work_item_loop(&checked, lo, hi);
                    quote!(if #guard { #fast } else { #slow })
                }
            });
        }
        match &interior {
            None => s.extend(loops),
            Some(i) => s.extend(i.narrowed_loops(rank, (&lw, &hw), (&lr, &hr), loops)),
        }
        if flag_set {
            if let Some(l) = self.loops.last() {
                let (b, ll, cl) = (numbered("b", l.id), label("l", l.id), label("c", l.id));
                s.extend(quote!(if #b == 1 { break #ll; } if #b == 2 { break #cl; }));
            }
        }
        Ok(s)
    }

    /// A condition of a rank-1 region that splits its work-item loop in two (index-set
    /// splitting): `t.local[0] < u` or `t.local[0] >= u` (or `u > ..`, `u <= ..`) with `u` a
    /// `u32`/`usize` value the same for every thread of the region. Each thread's value of such
    /// a condition is fixed for the whole region, so the threads below `u` run the region with
    /// it a constant, then the others with the opposite constant: the same threads, in the same
    /// order, each running the same code, and two loops without the branch, which LLVM can
    /// vectorize (a Hillis-Steele scan's `if l >= off { sh[l - off] } else { 0 }` becomes a
    /// fill and a copy). The condition (its address), `u`, and whether the condition holds
    /// below `u`; the first one found, in the order the code runs.
    fn split_condition<'b>(
        &self,
        stmts: &[&'b Stmt],
        tail: Option<&'b Expr>,
    ) -> Option<(usize, &'b Expr, bool)> {
        if self.k.rank != 1 {
            return None;
        }
        let st = self.tile.as_ref()?;
        let is_lane = |x: &Expr| is_lane0(st, x);
        let uniform = |x: &Expr| is_uniform_index(st, x);
        let mut found = None;
        let mut probe = |x: &'b Expr| {
            let hit = match &x.kind {
                ExprKind::Binary(BinOp::Lt, a, b) if is_lane(a) && uniform(b) => Some((&**b, true)),
                ExprKind::Binary(BinOp::Ge, a, b) if is_lane(a) && uniform(b) => {
                    Some((&**b, false))
                }
                ExprKind::Binary(BinOp::Gt, a, b) if uniform(a) && is_lane(b) => Some((&**a, true)),
                ExprKind::Binary(BinOp::Le, a, b) if uniform(a) && is_lane(b) => {
                    Some((&**a, false))
                }
                _ => None,
            };
            match hit {
                Some((u, below)) => {
                    found = Some((x as *const Expr as usize, u, below));
                    Probe::Hit
                }
                None => Probe::Descend,
            }
        };
        let exprs = stmts.iter().filter_map(|s| match s {
            Stmt::Let(_, Some(e)) | Stmt::Expr(e) => Some(e),
            Stmt::Let(_, None) => None,
        });
        for e in exprs.chain(tail) {
            if any_expr(e, &mut probe) {
                break;
            }
        }
        found
    }

    /// When the region `stmts` + `tail` of a rank-1 tile is one `if t.local[0] < n { .. }`,
    /// `if t.local[0] <= m { .. }` (either way round), `if t.local[0] % m == 0 { .. }` or
    /// `if sg.lane() == 0 { .. }` with `n` or `m` the same for every thread (the reductions'
    /// `if l < s` and `if l % (2 * s) == 0`, a wavefront's `if tx <= m`): which, the bound or step, and the
    /// `if`'s block. The work-item loop then runs only the threads that pass the test, and the
    /// block without it: the same threads run the same code in the same order.
    fn narrowed<'b>(
        &self,
        stmts: &[&'b Stmt],
        tail: Option<&'b Expr>,
    ) -> Option<(Lanes, Expr, &'b Block)> {
        if self.k.rank != 1 {
            return None;
        }
        let e = match (stmts, tail) {
            ([Stmt::Expr(e)], None) | ([], Some(e)) => e,
            _ => return None,
        };
        let ExprKind::If(cond, then, None) = &e.kind else {
            return None;
        };
        let st = self.tile.as_ref()?;
        let is_lane = |x: &Expr| is_lane0(st, x);
        let uniform = |x: &Expr| is_uniform_index(st, x);
        let zero = |x: &Expr| matches!(x.kind, ExprKind::Lit(Lit::Int(0)));
        match &cond.kind {
            ExprKind::Binary(BinOp::Lt, lane, n) | ExprKind::Binary(BinOp::Gt, n, lane)
                if is_lane(lane) && uniform(n) =>
            {
                Some((Lanes::Below, (**n).clone(), then))
            }
            // `t.local[0] <= m` (a wavefront's `if tx <= m`).
            ExprKind::Binary(BinOp::Le, lane, m) | ExprKind::Binary(BinOp::Ge, m, lane)
                if is_lane(lane) && uniform(m) =>
            {
                Some((Lanes::AtMost, (**m).clone(), then))
            }
            // `t.local[0] == 0` (a tile's result written by its first thread): the threads
            // below 1.
            ExprKind::Binary(BinOp::Eq, lane, z) | ExprKind::Binary(BinOp::Eq, z, lane)
                if zero(z) && is_lane(lane) =>
            {
                let one = Expr {
                    kind: ExprKind::Lit(Lit::Int(1)),
                    ..(**z).clone()
                };
                Some((Lanes::Below, one, then))
            }
            ExprKind::Binary(BinOp::Eq, rem, z) if zero(z) => match &rem.kind {
                ExprKind::Binary(BinOp::Rem, lane, m) if is_lane(lane) && uniform(m) => {
                    Some((Lanes::Multiples, (**m).clone(), then))
                }
                // `sg.lane() == 0` (each subgroup's result written by its first lane): a rank-1
                // tile's subgroups are runs of `sg.size()` threads, so every `size`-th one.
                ExprKind::Subgroup(SubgroupOp::Lane, _) => {
                    let size = Expr {
                        kind: ExprKind::Subgroup(SubgroupOp::Size, Vec::new()),
                        ..(**rem).clone()
                    };
                    Some((Lanes::Multiples, size, then))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The code of one thread in a work-item loop: `stmts`, then `tail`.
    fn region_body(&mut self, stmts: &[&Stmt], tail: Option<&Expr>) -> Res<TokenStream> {
        let mut body = TokenStream::new();
        for s in stmts {
            body.extend(self.stmt(s)?);
        }
        if let Some(t) = tail {
            let v = self.located(t.span, |e| e.expr(t))?;
            body.extend(quote!(let _ = #v;));
        }
        Ok(body)
    }

    /// `return` in a work-item loop: the thread does nothing more (its later regions skip it).
    pub(super) fn return_(&mut self) -> TokenStream {
        let at = self.at;
        match &self.tile {
            Some(TileState {
                region: Some(w),
                done_flag,
                ..
            }) => {
                let wl = label("w", *w);
                match done_flag {
                    true => quote_spanned!(at=> { *fdone.add(lane) = true; continue #wl; }),
                    false => quote_spanned!(at=> (continue #wl)),
                }
            }
            _ => quote_spanned!(at=> (return)),
        }
    }

    /// `break` (`code` 1) or `continue` (2) of tile-level loop `id` in a work-item loop: the
    /// thread sets the loop's flag and ends its region; the tile leaves or continues the loop
    /// after the region.
    pub(super) fn leave_tile_loop(&mut self, id: u32, code: u8) -> Res<TokenStream> {
        let at = self.at;
        let st = self.st()?;
        let (b, ll, cl) = (numbered("b", id), label("l", id), label("c", id));
        Ok(match st.region {
            Some(w) => {
                st.flag_set = true;
                let (wl, code) = (label("w", w), proc_macro2::Literal::u8_unsuffixed(code));
                quote_spanned!(at=> { #b = #code; continue #wl; })
            }
            None if code == 1 => quote_spanned!(at=> (break #ll)),
            None => quote_spanned!(at=> (break #cl)),
        })
    }
}

/// Whether `x` is the thread's `t.local[0]` (or a local defined as it).
fn is_lane0(st: &TileState, x: &Expr) -> bool {
    super::guard::bound(x, &st.facts, super::guard::At::WorkItemLoop)
        .is_some_and(|b| matches!(b.single_part(), Some(super::guard::Part::Local(0))))
}

/// Whether `x` is a `u32`/`usize` value the same for every thread of a work-item loop.
pub(super) fn is_uniform_index(st: &TileState, x: &Expr) -> bool {
    crate::pass::uniform::uniform_expr(x, &|l| st.facts.uniform.contains(&l))
        && matches!(x.ty, Ty::Scalar(Scalar::U32 | Scalar::Usize))
}
