//! Barrier uniformity: the walk that tracks which values and which control differ between the
//! threads of a tile, and rejects a barrier that not every thread reaches. The walk also records
//! the memory accesses that the race and bank checks judge.

use super::index::IndexKey;
use super::races::Access;
use super::{Lint, Walker};
use crate::diag::{Diagnostic, Rule, Span};
use crate::ir::*;

/// Why control at some point differs between the threads of a tile.
#[derive(Clone, Debug)]
pub(super) struct Divergence {
    /// Where the per-thread control starts (the condition, the range, the early exit).
    span: Span,
    /// What the control is, in the error message's words.
    reason: &'static str,
}

/// What the walk knows of one enclosing loop.
#[derive(Default)]
pub(super) struct LoopState {
    /// A `break` some threads take: later iterations run on fewer threads.
    divergent_exit: Option<Divergence>,
    /// A `continue` some threads take: the rest of this iteration runs on fewer threads.
    skipped: Option<Divergence>,
}

impl Walker<'_> {
    /// Whether control here differs between the threads of a tile, and why.
    fn divergence(&self) -> Option<Divergence> {
        self.ctrl
            .clone()
            .or_else(|| self.returned.clone())
            .or_else(|| {
                self.loops
                    .iter()
                    .rev()
                    .find_map(|l| l.divergent_exit.clone().or_else(|| l.skipped.clone()))
            })
    }

    /// Walks a block; returns whether its value (its tail's) may differ between threads.
    pub(super) fn block(&mut self, b: &Block) -> bool {
        for s in &b.stmts {
            match s {
                Stmt::Let(id, init) => {
                    let v = init.as_ref().is_some_and(|e| self.expr(e));
                    if v || self.divergence().is_some() {
                        self.set_varying(*id);
                    }
                    if let Some(e) = init {
                        if self.mentions_fast(e) {
                            self.set_fast(*id);
                        }
                        if !self.k.locals[*id].mutable && !self.alias.contains_key(id) {
                            let key = self.key(e);
                            self.alias.insert(*id, key);
                        }
                    }
                }
                Stmt::Expr(e) => {
                    self.expr(e);
                }
            }
        }
        b.tail.as_deref().is_some_and(|t| self.expr(t))
    }

    /// Walks an expression; returns whether its value may differ between threads.
    ///
    /// Written out by hand rather than as a [`Visitor`]: every expression yields a result that
    /// its parent combines its own way (a block's is its tail's alone, an atomic's is always
    /// varying, a loop's never), and the walk orders and repeats operands differently from
    /// [`walk_expr`] (an element's indices before its base, a loop's body twice, the state
    /// saved and merged around each arm of an `if`, an atomic's `expected` place not at all).
    /// As a visitor it would override nearly every kind and pass its result through a field.
    fn expr(&mut self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_)
            | ExprKind::OuterConst(_)
            | ExprKind::ScalarParam(_)
            | ExprKind::BufferExtent(_) => false,
            // A `tile_static` scalar is shared memory, like an array element.
            ExprKind::Local(id) if self.is_tile_static(*id) => self.element(e),
            ExprKind::Local(id) => self.varying[*id],
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a)
            | ExprKind::Bitcast(a)
            | ExprKind::ArrayRepeat(a, _) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                let x = self.expr(a);
                self.expr(b) || x
            }
            ExprKind::Logic(_, a, b) => {
                let x = self.expr(a);
                let saved = self.ctrl.clone();
                if x && self.ctrl.is_none() {
                    self.ctrl = Some(Divergence {
                        span: a.span,
                        reason: "the right side of `&&` / `||` after a per-thread left side",
                    });
                }
                let y = self.expr(b);
                self.ctrl = saved;
                x || y
            }
            ExprKind::ArrayList(l) | ExprKind::Builtin(_, l) | ExprKind::Math(_, l) => {
                let mut v = false;
                for x in l {
                    v |= self.expr(x);
                }
                v
            }
            ExprKind::Element(..) => self.element(e),
            ExprKind::BufferLoad(p, idx) => {
                let mut v = false;
                for x in idx {
                    v |= self.expr(x);
                }
                let key = self.keys(idx);
                let blocked = self.unique_per_thread_blocked(idx);
                self.reads.push(Access {
                    param: *p,
                    key,
                    span: e.span,
                    unique: false,
                    blocked,
                    after_barrier: self.written_before(*p),
                    atomic: false,
                    guards: self.guards.clone(),
                });
                v || self.dirty_buffers.contains(p)
            }
            ExprKind::Texture(op, p, operands) => self.texture(*op, *p, operands, e.span),
            ExprKind::If(c, then, els) => self.if_expr(c, then, els.as_deref()),
            ExprKind::Block(b) => self.block(b),
            ExprKind::While(c, body) => {
                self.loop_(Some(c), None, body);
                false
            }
            ExprKind::Loop(body) => {
                self.loop_(None, None, body);
                false
            }
            ExprKind::For(r) => {
                let mut v = self.expr(&r.start) | self.expr(&r.end);
                if let Some(s) = &r.step {
                    v |= self.expr(s);
                }
                self.loop_(None, Some((r, v)), &r.body);
                false
            }
            ExprKind::Break => {
                if let Some(d) = self.divergence() {
                    if let Some(l) = self.loops.last_mut() {
                        if l.divergent_exit.is_none() {
                            l.divergent_exit = Some(Divergence {
                                span: d.span,
                                reason: "a loop that some threads leave early (a `break` under a per-thread condition)",
                            });
                        }
                    }
                }
                false
            }
            ExprKind::Continue => {
                if let Some(d) = self.divergence() {
                    if let Some(l) = self.loops.last_mut() {
                        if l.skipped.is_none() {
                            l.skipped = Some(Divergence {
                                span: d.span,
                                reason:
                                    "a `continue` that only some threads take in this iteration",
                            });
                        }
                    }
                }
                false
            }
            ExprKind::Return => {
                if let Some(d) = self.divergence() {
                    if self.returned.is_none() {
                        self.returned = Some(Divergence {
                            span: d.span,
                            reason: "a `return` that only some threads take",
                        });
                    }
                }
                false
            }
            ExprKind::Barrier(fence) => {
                self.barrier(e.span);
                match fence {
                    Fence::All => {
                        self.dirty_tile.clear();
                        self.dirty_buffers.clear();
                    }
                    Fence::TileStatic => self.dirty_tile.clear(),
                    Fence::Global => self.dirty_buffers.clear(),
                }
                false
            }
            ExprKind::MemoryFence(_) => false,
            // A subgroup's values differ between its lanes and between the tile's subgroups;
            // only the size and the number of subgroups are the tile's own.
            ExprKind::Subgroup(op, args) => {
                for a in args {
                    self.expr(a);
                }
                if op.is_collective() {
                    self.subgroup_operation(e.span);
                }
                !matches!(op, SubgroupOp::Size | SubgroupOp::Count)
            }
            // Atomics are how threads share an element safely: no race, no write conflict; the
            // old value they return differs between threads.
            ExprKind::Atomic(a) => {
                if let Some(v) = &a.value {
                    self.expr(v);
                }
                let idx = match &a.target {
                    Place::Local(_, idx) | Place::Buffer(_, idx) => idx,
                };
                for i in idx {
                    self.expr(i);
                }
                if let Place::Buffer(p, idx) = &a.target {
                    let key = self.keys(idx);
                    self.reads.push(Access {
                        param: *p,
                        key: key.clone(),
                        span: e.span,
                        unique: true,
                        blocked: false,
                        after_barrier: false,
                        atomic: true,
                        guards: self.guards.clone(),
                    });
                    self.writes.push(Access {
                        param: *p,
                        key,
                        span: e.span,
                        unique: true,
                        blocked: false,
                        after_barrier: false,
                        atomic: true,
                        guards: self.guards.clone(),
                    });
                }
                if let Place::Local(id, _) = &a.target {
                    if self.is_tile_static(*id) {
                        self.dirty_tile
                            .entry(*id)
                            .or_default()
                            .insert((vec![IndexKey::Atomic], false));
                    }
                }
                if let Some(Place::Local(id, _)) = &a.expected {
                    self.set_varying(*id);
                }
                true
            }
            ExprKind::Assign(place, value) => {
                let v = self.expr(value);
                let fast = self.mentions_fast(value);
                self.write(place, v, fast, e.span);
                false
            }
            ExprKind::CompoundAssign(_, place, value) => {
                let v = self.expr(value);
                let fast = self.mentions_fast(value);
                let old = self.read_place(place, e.span);
                self.write(place, v || old, fast, e.span);
                false
            }
        }
    }

    fn barrier(&mut self, span: Span) {
        self.unreached(
            span,
            Rule::BarrierUniformity,
            "this barrier",
            "every thread of a tile must reach each barrier (C++ AMP 8.1.1); move the barrier out of the per-thread control flow, or make the condition depend only on values that are the same for the whole tile (`t.tile`, constants, scalar arguments, extents)",
        );
    }

    /// A subgroup operation that combines lanes: the same rule as a barrier's. On a device its
    /// lanes would be the ones that happen to be active, which the language leaves to no
    /// driver; on the native accelerator it is where the tile's work-item loops meet.
    fn subgroup_operation(&mut self, span: Span) {
        self.unreached(
            span,
            Rule::SubgroupUniformity,
            "this subgroup operation",
            "every thread of a tile must reach each subgroup operation that combines lanes (all but `size`, `lane`, `index` and `count`), as it must reach a barrier: compute it in every thread before the condition and use its value under it, or make the condition depend only on values that are the same for the whole tile (`t.tile`, constants, scalar arguments, extents)",
        );
    }

    /// Reports `what` at `span` under the rule `rule` when not every thread of the tile gets
    /// there.
    fn unreached(&mut self, span: Span, rule: Rule, what: &str, help: &str) {
        let Some(d) = self.divergence() else { return };
        if !self.report {
            return;
        }
        if !self.error_spans.insert(span.start.start()) {
            return;
        }
        let line = d.span.start().line;
        let where_ = if line > 0 {
            format!(" (line {line})")
        } else {
            String::new()
        };
        self.errors.push(
            Diagnostic::error(
                rule,
                span,
                format!(
                    "{what} is not reached by every thread of the tile: it comes under {}{where_}",
                    d.reason
                ),
            )
            .with_help(help),
        );
    }

    fn if_expr(&mut self, c: &Expr, then: &Block, els: Option<&Expr>) -> bool {
        let cv = self.expr(c);
        let saved_ctrl = self.ctrl.clone();
        if cv && self.ctrl.is_none() {
            self.ctrl = Some(Divergence {
                span: c.span,
                reason: "an `if` whose condition differs between threads",
            });
        }
        let pins = self.pins_of(c);
        let pinned = pins.len();
        self.pins.extend(pins);
        let own_pins = self.own_pins_of(c);
        let own_pinned = own_pins.len();
        self.own_pins.extend(own_pins);
        let guards = self.guards.len();
        self.conjuncts(c);
        let before_tile = self.dirty_tile.clone();
        let before_buffers = self.dirty_buffers.clone();
        let tv = self.block(then);
        self.pins.truncate(self.pins.len() - pinned);
        self.own_pins.truncate(self.own_pins.len() - own_pinned);
        self.guards.truncate(guards);
        let (after_tile, after_buffers) = (
            std::mem::replace(&mut self.dirty_tile, before_tile),
            std::mem::replace(&mut self.dirty_buffers, before_buffers),
        );
        let ev = els.is_some_and(|e| self.expr(e));
        // After the `if`, writes of either branch may have happened.
        for (k, v) in after_tile {
            self.dirty_tile.entry(k).or_default().extend(v);
        }
        self.dirty_buffers.extend(after_buffers);
        self.ctrl = saved_ctrl;
        cv || tv || ev
    }

    fn loop_(&mut self, cond: Option<&Expr>, range: Option<(&RangeLoop, bool)>, body: &Block) {
        let saved_ctrl = self.ctrl.clone();
        self.loops.push(LoopState::default());
        // `for k in 0..n` (an immutable variable): `k` is below `n` in the body.
        let run = range.and_then(|(r, _)| {
            let from_zero = self.key(&r.start) == IndexKey::Int(0);
            (from_zero && !r.inclusive && !self.k.locals[r.var].mutable)
                .then(|| (r.var, self.key(&r.end)))
        });
        let runs = self.runs.len();
        self.runs.extend(run);
        // Twice, so that what the end of one iteration leaves (writes since the last barrier, a
        // per-thread exit) is seen by the start of the next.
        let mut loop_divergence: Option<Divergence> = None;
        for _ in 0..2 {
            if let Some(l) = self.loops.last_mut() {
                l.skipped = None;
            }
            let mut varying_trip = range.filter(|(_, v)| *v).map(|(r, _)| Divergence {
                span: r.start.span,
                reason: "a `for` loop whose range differs between threads",
            });
            if let Some(c) = cond {
                // The condition runs once per iteration: with a per-thread trip count, some
                // threads evaluate it more often than others.
                if self.ctrl.is_none() {
                    self.ctrl = loop_divergence.clone();
                }
                let varies = self.expr(c);
                self.ctrl = saved_ctrl.clone();
                if varies && varying_trip.is_none() {
                    varying_trip = Some(Divergence {
                        span: c.span,
                        reason: "a loop whose condition differs between threads",
                    });
                }
            }
            if self.ctrl.is_none() {
                self.ctrl = varying_trip;
            }
            if let Some((r, v)) = range {
                if v || self.divergence().is_some() {
                    self.set_varying(r.var);
                    self.set_varying(r.counter);
                }
            }
            loop_divergence = self.ctrl.clone();
            self.block(body);
            self.ctrl = saved_ctrl.clone();
            if loop_divergence.is_none() {
                loop_divergence = self.loops.last().and_then(|l| l.divergent_exit.clone());
            }
        }
        self.runs.truncate(runs);
        self.loops.pop();
    }

    /// A read of `tile_static` memory or of a local array element.
    fn element(&mut self, e: &Expr) -> bool {
        let mut indices = Vec::new();
        let mut base = e;
        while let ExprKind::Element(b, i) = &base.kind {
            indices.push(&**i);
            base = b;
        }
        indices.reverse();
        let mut v = false;
        for i in &indices {
            v |= self.expr(i);
        }
        match &base.kind {
            ExprKind::Local(id) if self.is_tile_static(*id) => {
                let key: Vec<IndexKey> = indices.iter().map(|i| self.key(i)).collect();
                self.bank_check(*id, &indices, e.span);
                let dirty = self.dirty_tile.get(id).cloned();
                if let Some(writes) = &dirty {
                    // Racy: a write at another element, or at this one when every thread writes
                    // the same element (the written slot is shared, not the thread's own).
                    if writes.iter().any(|(w, per_thread)| {
                        (*w != key || !per_thread) && !self.distinct_slots(*id, w, &key)
                    }) {
                        let name = self.k.locals[*id].name.clone();
                        self.warn(
                            Lint::TileStaticRace,
                            e.span,
                            format!("`{name}` is read here at an element another thread of the tile may have written, with no barrier since the write (a data race)"),
                            "call `t.barrier.wait()` (or `wait_with_tile_static_memory_fence()`) between the writes and this read".into(),
                        );
                    }
                }
                v || dirty.is_some()
            }
            _ => self.expr(base) || v,
        }
    }

    /// Reads the old value of a compound assignment's place; returns whether it may vary.
    fn read_place(&mut self, place: &Place, span: Span) -> bool {
        match place {
            Place::Local(id, idx) => {
                let mut v = self.varying[*id];
                for i in idx {
                    v |= self.expr(i);
                }
                if self.is_tile_static(*id) {
                    v |= self.dirty_tile.contains_key(id);
                }
                v
            }
            Place::Buffer(p, idx) => {
                let mut v = false;
                for i in idx {
                    v |= self.expr(i);
                }
                let key = self.keys(idx);
                let blocked = self.unique_per_thread_blocked(idx);
                self.reads.push(Access {
                    param: *p,
                    key,
                    span,
                    unique: false,
                    blocked,
                    after_barrier: self.written_before(*p),
                    atomic: false,
                    guards: self.guards.clone(),
                });
                v || self.dirty_buffers.contains(p)
            }
        }
    }

    /// A texture operation: a texel read is a buffer read, a store a buffer write (so the race
    /// and write-conflict lints cover textures), a sample varies with its coordinate.
    fn texture(&mut self, op: TextureOp, p: ParamId, operands: &[Expr], span: Span) -> bool {
        let mut v = false;
        for x in operands {
            v |= self.expr(x);
        }
        match op {
            TextureOp::Extent => false,
            TextureOp::Sample(_) | TextureOp::Gather(..) => v,
            TextureOp::Load => {
                let key = self.keys(operands);
                self.reads.push(Access {
                    param: p,
                    key,
                    span,
                    unique: false,
                    blocked: false,
                    after_barrier: self.written_before(p),
                    atomic: false,
                    guards: self.guards.clone(),
                });
                v || self.dirty_buffers.contains(&p)
            }
            TextureOp::Store => {
                let idx = &operands[..operands.len() - 1];
                let (unique, blocked) = self.write_ownership(idx);
                let key = self.keys(idx);
                self.writes.push(Access {
                    param: p,
                    key,
                    span,
                    unique,
                    blocked,
                    after_barrier: false,
                    atomic: false,
                    guards: self.guards.clone(),
                });
                self.dirty_buffers.insert(p);
                false
            }
        }
    }

    fn write(&mut self, place: &Place, value_varies: bool, fast: bool, span: Span) {
        let diverged = self.divergence().is_some();
        match place {
            Place::Local(id, idx) => {
                let mut index_varies = false;
                let refs: Vec<&Expr> = idx.iter().collect();
                for i in idx {
                    index_varies |= self.expr(i);
                }
                let v = value_varies || diverged || index_varies;
                if self.is_tile_static(*id) {
                    self.bank_check(*id, &refs, span);
                    let key = self.keys(idx);
                    self.dirty_tile
                        .entry(*id)
                        .or_default()
                        .insert((key, index_varies));
                } else if v {
                    self.set_varying(*id);
                }
                if fast {
                    self.set_fast(*id);
                }
                // An assigned local no longer stands for its initial value, nor do the
                // `tile_static` writes' indices that read it.
                self.alias.remove(id);
                self.forget_assigned(*id, span.start.start());
            }
            Place::Buffer(p, idx) => {
                for i in idx {
                    self.expr(i);
                }
                let (unique, blocked) = self.write_ownership(idx);
                let key = self.keys(idx);
                self.writes.push(Access {
                    param: *p,
                    key,
                    span,
                    unique,
                    blocked,
                    after_barrier: false,
                    atomic: false,
                    guards: self.guards.clone(),
                });
                self.dirty_buffers.insert(*p);
            }
        }
    }
}
