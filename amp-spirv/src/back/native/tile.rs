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

use super::tile_locals::{block_has, has_barrier};
use super::{broken, local, unsupported, Emitter, LoopLabel, RangeFlavour, Res};
use crate::diag::Span;
use crate::ir::*;
use crate::types::{Len, Scalar, Ty};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

/// The threads a narrowed work-item loop runs ([`Emitter::narrowed`]).
enum Lanes {
    /// `t.local[0] < n`: those below a bound.
    Below,
    /// `t.local[0] % m == 0`: every m-th from 0.
    Multiples,
}

/// Iterations of a hoisted loop one work-item loop runs ([`Emitter::jammed_for`]).
const JAM: u32 = 4;

/// The largest loop body (in expression nodes) that is jammed: a matrix product's or a
/// stencil's multiply-add is about 20.
const JAM_NODES: usize = 96;

/// The work-item loop state of a tiled kernel's emission.
pub(crate) struct TileState {
    /// The locals each thread keeps in its frame (chosen after the first run).
    frame: BTreeSet<LocalId>,
    /// Locals named plainly everywhere and never recorded: the tiled index's fields,
    /// `tile_static` variables, the counters of tile-level `for` loops.
    fixed: HashSet<LocalId>,
    /// Tile-level `for` counters, declared at the top of the tile function.
    tile_scalars: BTreeSet<LocalId>,
    /// The contexts in which each other local is named.
    uses: BTreeMap<LocalId, BTreeSet<u32>>,
    /// The contexts that are lead evaluations.
    lead_ctx: HashSet<u32>,
    /// The current context: a region or a lead evaluation (`None`: tile-level code).
    ctx: Option<u32>,
    /// Contexts numbered so far.
    contexts: u32,
    /// The label of the work-item loop being emitted.
    region: Option<u32>,
    /// Whether threads have a `done` flag: the kernel has a barrier and a `return`.
    done_flag: bool,
    /// Whether the kernel has a barrier (so a frame may be needed).
    barriers: bool,
    /// Whether the region being emitted leaves the innermost tile-level loop through its flag.
    flag_set: bool,
    /// Tile-uniform locals (`tile_locals`): tile-function locals assigned at tile level.
    uniform: HashSet<LocalId>,
    /// Rematerialized locals (`tile_locals`): defined again at the start of each work-item
    /// loop and lead evaluation, by `remat_defs`.
    remat: HashSet<LocalId>,
    /// The definitions of the rematerialized locals.
    remat_defs: String,
    /// Locals declared by the body of a jammed loop ([`Emitter::jammed_for`]): named in its
    /// jammed work-item loop and in the one-by-one rest, but each time assigned before use in
    /// the same iteration, so each work-item loop keeps its own (no frame).
    scoped: HashSet<LocalId>,
    /// What the guards of work-item loops know about the locals (`guard.rs`).
    pub(super) facts: super::guard::LaneFacts,
    /// While a work-item loop is emitted in its guarded version: the comparisons its guard
    /// makes (the bounds checks hoisted out of it).
    pub(super) guards: Option<Vec<String>>,
    /// While a narrowed work-item loop is emitted ([`Emitter::narrowed`]): the largest
    /// `t.local[0]` it runs, a `u64` expression (its guards bound the thread's index by it).
    pub(super) lane_limit: Option<String>,
}

impl TileState {
    /// The name of local `id`, recording its use in the current context.
    pub(super) fn name(&mut self, id: LocalId) -> String {
        if !self.fixed.contains(&id) {
            if let Some(c) = self.ctx {
                self.uses.entry(id).or_default().insert(c);
            }
        }
        if self.frame.contains(&id) {
            format!("(*fl{id}.add(lane))")
        } else {
            local(id)
        }
    }

    fn has_frame(&self) -> bool {
        self.barriers && (self.done_flag || !self.frame.is_empty())
    }
}

fn stmt_has_barrier(s: &Stmt) -> bool {
    match s {
        Stmt::Let(_, Some(e)) | Stmt::Expr(e) => has_barrier(e),
        Stmt::Let(_, None) => false,
    }
}

fn has_return(e: &Expr) -> bool {
    any_expr(e, |x| match x.kind {
        ExprKind::Return => Probe::Hit,
        _ => Probe::Descend,
    })
}

impl Emitter<'_> {
    /// The work-item loop state: only a tiled kernel's emission has one.
    fn st(&mut self) -> Res<&mut TileState> {
        let span = self.whole_kernel();
        match self.tile.as_mut() {
            Some(st) => Ok(st),
            None => broken("tile-level code is emitted for tiled kernels only", span),
        }
    }

    /// The function of one tile (the module docs' tile ABI), with the bounds checks (in a
    /// checked kernel) and local-array clamps the tile's start decides moved to a guard when
    /// there are any (`guard.rs`): a wrapper that runs the tile without them when the guard
    /// holds, checked otherwise.
    pub(super) fn guarded_tiled_function(&mut self, name: &str) -> Res<String> {
        self.entry_guards = Some(Vec::new());
        let guarded = self.tile_code();
        let guards = self.entry_guards.take().unwrap_or_default();
        let (args, guarded) = guarded?;
        if guards.is_empty() {
            // Nothing to decide at the start: the guarded version is the function.
            return Ok(self.tile_item(name, &args, &guarded));
        }
        let guarded = self.tile_item("__amp_guarded", &args, &guarded);
        let checked = self.tiled_function("__amp_checked")?;
        let k = self.k;
        let span = self.whole_kernel();
        let Some(tiled) = &k.tiled else {
            return unsupported("a tiled kernel without its tiled index", span);
        };
        let names = self.arg_names("tile").join(", ");
        let mut s = String::new();
        let _ = writeln!(
            s,
            "/// One tile of kernel `{}` (generated by amp-spirv's native back end): the tile \
             without the bounds checks its guard proves, or checked.",
            k.name
        );
        s.push_str("#[inline]\n#[allow(warnings, clippy::all, unused_unsafe)]\n");
        let _ = writeln!(s, "pub unsafe fn {name}({}) {{", args.join(", "));
        s.push_str(&guarded);
        s.push_str(&checked);
        for (d, dim) in tiled.dims.iter().enumerate() {
            let dim = self.tile_dim(dim, span)?;
            let _ = writeln!(
                s,
                "    let d{d}: u32 = {dim}; let o{d}: u32 = tile[{d}].wrapping_mul(d{d});"
            );
        }
        let _ = writeln!(
            s,
            "    if {} {{ __amp_guarded({names}) }} else {{ __amp_checked({names}) }}\n}}",
            guards.join(" && ")
        );
        Ok(s)
    }

    /// The function of one tile (the module docs' tile ABI), called `name`.
    pub(super) fn tiled_function(&mut self, name: &str) -> Res<String> {
        let (args, code) = self.tile_code()?;
        Ok(self.tile_item(name, &args, &code))
    }

    /// The item of a tile function called `name` with arguments `args` and code `code` (from
    /// [`Emitter::tile_code`]).
    fn tile_item(&self, name: &str, args: &[String], code: &str) -> String {
        format!(
            "/// One tile of kernel `{}` (generated by amp-spirv's native back end).\n\
             #[inline]\n#[allow(warnings, clippy::all, unused_unsafe)]\n\
             pub unsafe fn {name}({}) {{\n{code}",
            self.k.name,
            args.join(", ")
        )
    }

    /// The code of one tile's function (the module docs' tile ABI) after its signature, and
    /// its arguments: see [`Emitter::tile_item`].
    fn tile_code(&mut self) -> Res<(Vec<String>, String)> {
        let k = self.k;
        let span = self.whole_kernel();
        let Some(tiled) = &k.tiled else {
            return unsupported("a tiled kernel without its tiled index", span);
        };
        let rank = k.rank as usize;
        if tiled.dims.len() != rank {
            return unsupported("a tile shape of another rank than the kernel", span);
        }
        let dims = tiled
            .dims
            .iter()
            .map(|d| self.tile_dim(d, span))
            .collect::<Res<Vec<_>>>()?;
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
        // `tile_static` arrays whose length is a named constant: flat vectors, allocated once
        // per tile call.
        for &id in &statics {
            let mut ty = k.locals[id].ty.clone();
            let mut dims = Vec::new();
            let mut dynamic = false;
            while let Ty::Array(elem, len) = ty {
                dims.push(match &len {
                    Len::Lit(n) => format!("{n}u32"),
                    Len::Const(i, _) => {
                        dynamic = true;
                        format!("(c{i} as u32)")
                    }
                });
                ty = *elem;
            }
            if dynamic {
                self.dyn_arrays.insert(id, (dims, ty));
            }
        }
        let facts = super::guard::LaneFacts {
            local: tiled.local,
            global: tiled.global,
            origin: tiled.tile_origin,
            tile: tiled.tile,
            dims: tiled.tile_extent,
            uniform: uniform.iter().copied().collect(),
            remat: remat.iter().cloned().collect(),
            loop_ends: Default::default(),
        };
        self.tile = Some(TileState {
            scoped: HashSet::new(),
            facts,
            guards: None,
            lane_limit: None,
            frame: BTreeSet::new(),
            fixed,
            tile_scalars: uniform.iter().copied().collect(),
            uniform,
            remat: remat.iter().map(|(id, _)| *id).collect(),
            remat_defs: String::new(),
            uses: BTreeMap::new(),
            lead_ctx: HashSet::new(),
            ctx: None,
            contexts: 0,
            region: None,
            done_flag: barriers && block_has(&k.body, has_return),
            barriers,
            flag_set: false,
        });
        let mut defs = String::new();
        for (id, init) in &remat {
            let v = self.expr(init)?;
            let t = self.ty(&k.locals[*id].ty, span)?;
            let _ = write!(defs, "let mut {}: {t} = {v}; ", local(*id));
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

        let rt = self.rt;
        let args = self.args("tile")?;
        let mut s = String::new();
        for (d, dim) in dims.iter().enumerate() {
            let _ = writeln!(s, "    let d{d}: u32 = {dim};");
        }
        let nt = (0..rank)
            .map(|d| format!("(d{d} as usize)"))
            .collect::<Vec<_>>()
            .join(" * ");
        let _ = writeln!(s, "    let nt: usize = {nt};");
        for d in 0..rank {
            let _ = writeln!(s, "    let o{d}: u32 = tile[{d}].wrapping_mul(d{d});");
        }
        let list = |p: &str| {
            (0..rank)
                .map(|d| format!("{p}{d}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "    let mut {}: [u32; {rank}] = tile;\n    let mut {}: [u32; {rank}] = [{}];\n    let mut {}: [u32; {rank}] = [{}];",
            local(tiled.tile),
            local(tiled.tile_origin),
            list("o"),
            local(tiled.tile_extent),
            list("d"),
        );
        let st = self.st()?;
        let scalars: Vec<LocalId> = statics
            .iter()
            .copied()
            .chain(st.tile_scalars.iter().copied())
            .collect();
        let frame: Vec<LocalId> = st.frame.iter().copied().collect();
        let (has_frame, done_flag) = (st.has_frame(), st.done_flag);
        for id in scalars {
            let l = &k.locals[id];
            if let Some((dims, inner)) = self.dyn_arrays.get(&id) {
                let total = dims
                    .iter()
                    .map(|d| format!("({d} as usize)"))
                    .collect::<Vec<_>>()
                    .join(" * ");
                let _ = writeln!(
                    s,
                    "    let mut {}: ::std::vec::Vec<{}> = {rt}::frames({}, {total}); // {}",
                    local(id),
                    self.ty(inner, span)?,
                    self.zero(inner, span)?,
                    l.name
                );
                continue;
            }
            let _ = writeln!(
                s,
                "    let mut {}: {} = {}; // {}",
                local(id),
                self.ty(&l.ty, span)?,
                self.zero(&l.ty, span)?,
                l.name
            );
        }
        if has_frame {
            // The frames, one array per local (structure of arrays): lane `i` of a work-item
            // loop reads `fl<id>[i]`, so neighbouring lanes touch neighbouring elements and
            // LLVM can vectorize the loop. A batch's frames are few (`batch::LANES`): on the
            // stack, no allocation; a tile's are allocated once per call.
            let mut frames: Vec<(String, String, String)> = Vec::new();
            if done_flag {
                frames.push(("done".into(), "bool".into(), "false".into()));
            }
            for &id in &frame {
                let l = &k.locals[id];
                frames.push((
                    format!("l{id}"),
                    self.ty(&l.ty, span)?,
                    self.zero(&l.ty, span)?,
                ));
            }
            for (name, ty, zero) in frames {
                let storage = if self.batch {
                    format!("[{zero}; {}]", super::LANES)
                } else {
                    format!("{rt}::frames::<{ty}>({zero}, nt)")
                };
                let _ = writeln!(
                    s,
                    "    let mut v{name} = {storage};\n    let f{name}: *mut {ty} = v{name}.as_mut_ptr();"
                );
            }
        }
        let _ = done_flag;
        let _ = writeln!(s, "    unsafe {{ {body} }}\n}}");
        Ok((args, s))
    }

    /// A tile dimension's value: its literal, or the outer constant it names.
    fn tile_dim(&self, d: &TileDim, span: Span) -> Res<String> {
        match d {
            TileDim::Lit(n) => Ok(format!("{n}u32")),
            TileDim::Named(ident) => match self.k.consts.iter().position(|c| c.ident == *ident) {
                Some(i) => Ok(format!("(c{i} as u32)")),
                None => unsupported(format!("the tile dimension `{ident}`"), span),
            },
        }
    }

    /// A block of tile-level code: runs of barrier-free statements as work-item loops, the
    /// statements with barriers as tile-level code.
    pub(super) fn tile_block(&mut self, b: &Block) -> Res<String> {
        let mut out = String::from("{ ");
        let mut run: Vec<&Stmt> = Vec::new();
        for st in &b.stmts {
            if let Stmt::Let(id, _) = st {
                if self.st()?.remat.contains(id) {
                    continue; // defined by every work-item loop
                }
            }
            if super::tile_locals::assigns_uniform(st, &self.st()?.uniform) {
                // Once per tile, between the work-item loops.
                out.push_str(&self.region(&run, None)?);
                run.clear();
                out.push_str(&self.stmt(st)?);
                continue;
            }
            if stmt_has_barrier(st) {
                out.push_str(&self.region(&run, None)?);
                run.clear();
                match st {
                    Stmt::Expr(e) => out.push_str(&self.tile_expr(e)?),
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
                out.push_str(&self.region(&run, None)?);
                out.push_str(&self.tile_expr(t)?);
            }
            tail => out.push_str(&self.region(&run, tail)?),
        }
        out.push_str(" }");
        Ok(out)
    }

    /// A tile-level expression statement.
    fn tile_expr(&mut self, e: &Expr) -> Res<String> {
        if !has_barrier(e) {
            return self.region(&[], Some(e));
        }
        let span = e.span;
        Ok(match &e.kind {
            // The boundary between the regions around it. The tile's threads run on one OS
            // thread, so only a fence of views and arrays needs an instruction: it orders the
            // tile's accesses against other tiles' (docs/kernel-language.md, the memory model).
            ExprKind::Barrier(Fence::TileStatic) => String::new(),
            ExprKind::Barrier(_) => {
                "::core::sync::atomic::fence(::core::sync::atomic::Ordering::SeqCst);".to_string()
            }
            ExprKind::Block(b) => self.tile_block(b)?,
            ExprKind::If(cond, then, els) => {
                let c = self.lead(cond)?;
                let t = self.tile_block(then)?;
                match els {
                    None => format!("if {c} {t} "),
                    Some(x) => {
                        let x = match &x.kind {
                            ExprKind::Block(b) => self.tile_block(b)?,
                            _ => format!("{{ {} }}", self.tile_expr(x)?),
                        };
                        format!("if {c} {t} else {x} ")
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
    pub(super) fn lead(&mut self, e: &Expr) -> Res<String> {
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
        let mut s = String::from("{ ");
        if done_flag {
            s.push_str(
                "let mut lead: usize = 0; while lead < nt && *fdone.add(lead) { lead += 1; } \
                 if lead == nt { return; } ",
            );
        } else {
            s.push_str("let lead: usize = 0; ");
        }
        let rank = self.k.rank as usize;
        s.push_str("let mut rest = lead; ");
        for d in (0..rank).rev() {
            let _ = write!(
                s,
                "let i{d}: u32 = (rest % (d{d} as usize)) as u32; rest /= d{d} as usize; "
            );
        }
        if has_frame {
            s.push_str("let lane: usize = lead; ");
        }
        s.push_str(&self.thread_prologue()?);
        let _ = write!(s, "{v} }}");
        Ok(s)
    }

    /// The thread's `t.local` and `t.global` from its local index `i0, ..`.
    fn thread_prologue(&mut self) -> Res<String> {
        let span = self.whole_kernel();
        let remat = &self.st()?.remat_defs.clone();
        let Some(tiled) = self.k.tiled.as_ref() else {
            return broken("a tiled kernel has its tiled index", span);
        };
        let rank = self.k.rank as usize;
        let l = (0..rank)
            .map(|d| format!("i{d}"))
            .collect::<Vec<_>>()
            .join(", ");
        let g = (0..rank)
            .map(|d| format!("o{d}.wrapping_add(i{d})"))
            .collect::<Vec<_>>()
            .join(", ");
        Ok(format!(
            "let mut {}: [u32; {rank}] = [{l}]; let mut {}: [u32; {rank}] = [{g}]; {remat}",
            local(tiled.local),
            local(tiled.global)
        ))
    }

    /// A work-item loop running `stmts` and `tail` (no barrier among them) for every thread of
    /// the tile; empty when there is nothing to run.
    fn region(&mut self, stmts: &[&Stmt], tail: Option<&Expr>) -> Res<String> {
        if stmts.is_empty() && tail.is_none() {
            return Ok(String::new());
        }
        // A region that is one `if t.local[0] < n { .. }`: its work-item loop stops at `n`;
        // one `if t.local[0] % m == 0 { .. }`: it runs every m-th thread. `n` and `m` name
        // tile-level values only, so they are evaluated before the loop, outside any context.
        let (limit, stmts, tail): (Option<(Lanes, String)>, Vec<&Stmt>, Option<&Expr>) =
            match self.narrowed(stmts, tail) {
                Some((lanes, n, then)) => (
                    Some((lanes, self.expr(n)?)),
                    then.stmts.iter().collect(),
                    then.tail.as_deref(),
                ),
                None => (None, stmts.to_vec(), tail),
            };
        let w = self.new_label();
        let st = self.st()?;
        st.contexts += 1;
        let ctx = st.contexts;
        st.ctx = Some(ctx);
        st.region = Some(w);
        st.flag_set = false;
        st.lane_limit = limit.as_ref().map(|(lanes, _)| match lanes {
            Lanes::Below => format!("((n{w} as u64).saturating_sub(1))"),
            // The last multiple of the step below the tile's size (`n{w}` is at least 1).
            Lanes::Multiples => format!("((((d0 - 1) / n{w}) * n{w}) as u64)"),
        });
        // The guarded version first (`guard.rs`): if it hoists no check, it is the only one.
        self.st()?.guards = Some(Vec::new());
        let body = self.region_body(&stmts, tail);
        let guards = self.st()?.guards.take().unwrap_or_default();
        let checked = match (&body, guards.is_empty()) {
            (Ok(_), false) => Some(self.region_body(&stmts, tail)),
            _ => None,
        };
        let st = self.st()?;
        st.ctx = None;
        st.region = None;
        st.lane_limit = None;
        let body = body?;
        let checked = checked.transpose()?;
        let st = self.st()?;
        let (has_frame, done_flag, flag_set) = (st.has_frame(), st.done_flag, st.flag_set);
        let scalars: Vec<LocalId> = st
            .uses
            .iter()
            .filter(|(id, cs)| cs.contains(&ctx) && !st.frame.contains(id))
            .map(|(&id, _)| id)
            .collect();
        let span = self.whole_kernel();
        let mut decls = String::new();
        for id in scalars {
            let l = &self.k.locals[id];
            let _ = write!(
                decls,
                "let mut {}: {} = {}; ",
                local(id),
                self.ty(&l.ty, span)?,
                self.zero(&l.ty, span)?
            );
        }
        let rank = self.k.rank as usize;
        let prologue = self.thread_prologue()?;
        let work_item_loop = |body: &str| {
            let mut s = String::new();
            for d in 0..rank {
                if d + 1 == rank {
                    let _ = write!(s, "'w{w}: ");
                }
                match (d, &limit) {
                    (0, Some((Lanes::Below, _))) => {
                        let _ = write!(s, "for i0 in 0..n{w} {{ ");
                    }
                    (0, Some((Lanes::Multiples, _))) => {
                        let _ = write!(s, "for i0 in (0..d0).step_by(n{w} as usize) {{ ");
                    }
                    _ => {
                        let _ = write!(s, "for i{d} in 0..d{d} {{ ");
                    }
                }
            }
            let mut lin = String::from("(i0 as usize)");
            for d in 1..rank {
                lin = format!("({lin} * (d{d} as usize) + (i{d} as usize))");
            }
            if has_frame {
                let _ = write!(s, "let lane: usize = {lin}; ");
                if done_flag {
                    let _ = write!(s, "if *fdone.add(lane) {{ continue 'w{w}; }} ");
                }
            }
            s.push_str(&prologue);
            s.push_str(&decls);
            s.push_str(body);
            s.push_str(&"} ".repeat(rank));
            s
        };
        let mut s = match &limit {
            // The threads below `n` (all of them when `n` is larger).
            Some((Lanes::Below, n)) => {
                format!("let n{w}: u32 = {{ let n: u32 = {n}; if n < d0 {{ n }} else {{ d0 }} }}; ")
            }
            // Every m-th thread from 0; `l % 0` is `l` (docs/semantics.md), so `m == 0`
            // leaves thread 0 alone: a step of the whole tile.
            Some((Lanes::Multiples, m)) => {
                format!("let n{w}: u32 = {{ let m: u32 = {m}; if m == 0 {{ d0 }} else {{ m }} }}; ")
            }
            None => String::new(),
        };
        s += &match checked {
            None => work_item_loop(&body),
            Some(checked) => format!(
                "if {} {{ {} }} else {{ {} }} ",
                guards.join(" && "),
                work_item_loop(&body),
                work_item_loop(&checked)
            ),
        };
        if flag_set {
            if let Some(l) = self.loops.last() {
                let id = l.id;
                let _ = write!(
                    s,
                    "if b{id} == 1 {{ break 'l{id}; }} if b{id} == 2 {{ break 'c{id}; }} "
                );
            }
        }
        Ok(s)
    }

    /// When the region `stmts` + `tail` of a rank-1 tile is one `if t.local[0] < n { .. }`
    /// or `if t.local[0] % m == 0 { .. }` with `n` or `m` the same for every thread (the
    /// reductions' `if l < s` and `if l % (2 * s) == 0`): which, the bound or step, and the
    /// `if`'s block. The work-item loop then runs only the threads that pass the test, and the
    /// block without it: the same threads run the same code in the same order.
    fn narrowed<'b>(
        &self,
        stmts: &[&'b Stmt],
        tail: Option<&'b Expr>,
    ) -> Option<(Lanes, &'b Expr, &'b Block)> {
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
        let is_lane = |x: &Expr| {
            super::guard::bound(x, &st.facts, super::guard::At::WorkItemLoop).is_some_and(|b| {
                matches!(b.parts[..], [super::guard::Part::Local(0)]) && b.terms.is_empty()
            })
        };
        let uniform = |x: &Expr| {
            super::tile_locals::uniform_expr(x, &|l| st.facts.uniform.contains(&l))
                && matches!(x.ty, Ty::Scalar(Scalar::U32 | Scalar::Usize))
        };
        let zero = |x: &Expr| matches!(x.kind, ExprKind::Lit(Lit::Int(0)));
        match &cond.kind {
            ExprKind::Binary(BinOp::Lt, lane, n) if is_lane(lane) && uniform(n) => {
                Some((Lanes::Below, &**n, then))
            }
            ExprKind::Binary(BinOp::Eq, rem, z) if zero(z) => match &rem.kind {
                ExprKind::Binary(BinOp::Rem, lane, m) if is_lane(lane) && uniform(m) => {
                    Some((Lanes::Multiples, &**m, then))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The code of one thread in a work-item loop: `stmts`, then `tail`.
    fn region_body(&mut self, stmts: &[&Stmt], tail: Option<&Expr>) -> Res<String> {
        let mut body = String::new();
        for s in stmts {
            body.push_str(&self.stmt(s)?);
        }
        if let Some(t) = tail {
            let v = self.expr(t)?;
            let _ = write!(body, "let _ = {v}; ");
        }
        Ok(body)
    }

    /// A tile-level `while` (`cond`) or `loop`: its condition evaluated for the lead thread,
    /// its `break`s and `continue`s (taken in work-item loops) through its flag `b<id>`.
    fn tile_loop(&mut self, cond: Option<&Expr>, body: &Block) -> Res<String> {
        let id = self.new_label();
        let test = match cond {
            Some(c) => format!("if !{} {{ break 'l{id}; }} ", self.lead(c)?),
            None => String::new(),
        };
        self.loops.push(LoopLabel {
            id,
            body_block: true,
            tile: true,
        });
        let body = self.tile_block(body);
        self.loops.pop();
        let body = body?;
        Ok(format!(
            "let mut b{id}: u8 = 0; 'l{id}: loop {{ {test}b{id} = 0; 'c{id}: {body} }} "
        ))
    }

    /// A tile-level range `for`: as [`Emitter::for_loop`], with its counters plain locals of
    /// the tile function and its bounds evaluated for the lead thread.
    fn tile_for(&mut self, r: &RangeLoop, span: Span) -> Res<String> {
        if self.k.locals[r.var].mutable {
            return unsupported(
                "a mutable loop variable of a `for` loop containing a barrier",
                span,
            );
        }
        let Some(s) = self.k.locals[r.counter].ty.scalar() else {
            return unsupported("a range loop over a non-scalar", span);
        };
        let st = self.st()?;
        for id in [r.counter, r.done, r.var] {
            st.fixed.insert(id);
            st.tile_scalars.insert(id);
        }
        // Assigned at tile level only, so the same in every thread of a work-item loop; at
        // most the range's end (`guard.rs`) when the range ascends.
        st.facts.uniform.extend([r.counter, r.var]);
        if r.step.is_none() {
            st.facts
                .loop_ends
                .insert(r.var, ((*r.end).clone(), r.inclusive));
        }
        if let Some(body) = self.jam_body(r, s) {
            self.scope_lets(&body)?;
            return self.jammed_for(r, s, span, &body);
        }
        let names = (local(r.counter), local(r.done), local(r.var));
        self.range_loop(r, s, span, names, RangeFlavour::Tile)
    }

    /// The body of hoisted loop `r` (`batch.rs`) without its closing boundary, when
    /// [`JAM`] of its iterations may run in one work-item loop: an ascending `u32`/`usize`
    /// range with step 1, a body of barrier-free statements that neither return nor assign a
    /// tile-uniform local. No barrier of the kernel orders the iterations of such a loop, so
    /// each thread running several before the next thread starts is one of the orders the
    /// kernel allows, and each thread still runs its own iterations in order.
    fn jam_body(&self, r: &RangeLoop, s: Scalar) -> Option<Vec<Stmt>> {
        let plain = r.step.is_none() && !r.inclusive && matches!(s, Scalar::U32 | Scalar::Usize);
        if !plain || !self.hoisted.contains(&r.var) || r.body.tail.is_some() {
            return None;
        }
        let (last, body) = r.body.stmts.split_last()?;
        let boundary = matches!(last, Stmt::Expr(e) if matches!(e.kind, ExprKind::Barrier(_)));
        let st = self.tile.as_ref()?;
        let simple = |x: &Stmt| {
            !stmt_has_barrier(x)
                && !super::tile_locals::assigns_uniform(x, &st.uniform)
                && !matches!(x, Stmt::Let(id, _) if st.remat.contains(id))
                && match x {
                    Stmt::Let(_, Some(e)) | Stmt::Expr(e) => !has_return(e),
                    Stmt::Let(_, None) => true,
                }
        };
        // A literal range too short to jam, or a body too large to copy JAM times (code size
        // and build time: device functions are inlined into it), runs one by one.
        let literal = |e: &Expr| match e.kind {
            ExprKind::Lit(Lit::Int(v)) => Some(v),
            _ => None,
        };
        if let (Some(a), Some(b)) = (literal(&r.start), literal(&r.end)) {
            if b.saturating_sub(a) < u128::from(JAM) {
                return None;
            }
        }
        let mut nodes = 0usize;
        for x in body {
            if let Stmt::Let(_, Some(e)) | Stmt::Expr(e) = x {
                any_expr(e, |_| {
                    nodes += 1;
                    Probe::Descend
                });
            }
        }
        (boundary && !body.is_empty() && nodes <= JAM_NODES && body.iter().all(simple))
            .then(|| body.to_vec())
    }

    /// Records the locals the statements of a jammed body declare ([`TileState::scoped`]).
    fn scope_lets(&mut self, body: &[Stmt]) -> Res<()> {
        let st = self.st()?;
        for x in body {
            if let Stmt::Let(id, _) = x {
                st.scoped.insert(*id);
            }
        }
        Ok(())
    }

    /// Hoisted loop `r` with [`JAM`] iterations per work-item loop (unroll and jam): each
    /// thread runs `var = counter + j; body` for `j` in `0..JAM`, so a value it carries from
    /// one iteration to the next (a running sum in its frame) stays in a register across
    /// them; the iterations left over run one per work-item loop, as before.
    fn jammed_for(&mut self, r: &RangeLoop, s: Scalar, span: Span, body: &[Stmt]) -> Res<String> {
        let t = self.scalar(s, span)?;
        let counter_ty = self.k.locals[r.counter].ty.clone();
        let expr = |kind: ExprKind, ty: &Ty| Expr {
            kind,
            ty: ty.clone(),
            span,
        };
        let mut stmts = Vec::new();
        for j in 0..JAM {
            let value = expr(
                ExprKind::Binary(
                    BinOp::Add,
                    Box::new(expr(ExprKind::Local(r.counter), &counter_ty)),
                    Box::new(expr(ExprKind::Lit(Lit::Int(u128::from(j))), &counter_ty)),
                ),
                &counter_ty,
            );
            let assign = ExprKind::Assign(Place::Local(r.var, Vec::new()), Box::new(value));
            stmts.push(Stmt::Expr(expr(assign, &Ty::Unit)));
            stmts.extend(body.iter().cloned());
        }
        let (start, end) = (self.lead(&r.start)?, self.lead(&r.end)?);
        // `var` takes JAM values in the work-item loop: no guard of it may assume one.
        self.st()?.facts.uniform.remove(&r.var);
        let refs: Vec<&Stmt> = stmts.iter().collect();
        let jammed = self.region(&refs, None);
        self.st()?.facts.uniform.insert(r.var);
        let jammed = jammed?;
        // The rest: the ordinary loop, from where the jammed one stopped.
        let mut rest = r.clone();
        *rest.start = expr(ExprKind::Local(r.counter), &counter_ty);
        let names = (local(r.counter), local(r.done), local(r.var));
        let tail = self.range_loop(&rest, s, span, names, RangeFlavour::Tile)?;
        let (c, id) = (local(r.counter), self.new_label());
        Ok(format!(
            "{{ {c} = {start}; let j{id}: {t} = {end}; \
             'j{id}: loop {{ if !({c} < j{id} && j{id}.wrapping_sub({c}) >= {JAM}) {{ break 'j{id}; }} \
             {jammed} {c} = {c}.wrapping_add({JAM}); }} }} {tail}"
        ))
    }

    /// `return` in a work-item loop: the thread does nothing more (its later regions skip it).
    pub(super) fn return_(&mut self) -> String {
        match &self.tile {
            Some(TileState {
                region: Some(w),
                done_flag,
                ..
            }) => {
                if *done_flag {
                    format!("{{ *fdone.add(lane) = true; continue 'w{w}; }}")
                } else {
                    format!("(continue 'w{w})")
                }
            }
            _ => "(return)".to_string(),
        }
    }

    /// `break` (`code` 1) or `continue` (2) of tile-level loop `id` in a work-item loop: the
    /// thread sets the loop's flag and ends its region; the tile leaves or continues the loop
    /// after the region.
    pub(super) fn leave_tile_loop(&mut self, id: u32, code: u8) -> Res<String> {
        let st = self.st()?;
        Ok(match st.region {
            Some(w) => {
                st.flag_set = true;
                format!("{{ b{id} = {code}; continue 'w{w}; }}")
            }
            None if code == 1 => format!("(break 'l{id})"),
            None => format!("(break 'c{id})"),
        })
    }
}
