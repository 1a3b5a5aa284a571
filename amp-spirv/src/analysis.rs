//! Analyses of the checked IR, in the user's terms and at the user's spans:
//!
//! - **barrier uniformity** (errors): a barrier must be reached by every thread of a tile or by
//!   none (C++ AMP spec 8.1.1), so it may not sit under control flow that differs between the
//!   threads of a tile;
//! - **races and dependences** (warnings): a `tile_static` element read with no barrier after
//!   another thread wrote it; writes to a view at an index not proven unique per thread; a view
//!   read at a neighbour's element while threads write their own;
//! - **bank conflicts** (warnings): a `tile_static` 2-D array whose rows are a multiple of 32
//!   elements long, walked down a column by neighbouring threads.
//!
//! Uniformity is computed by a forward walk that records which locals may differ between the
//! threads of a tile ("varying"), repeated until nothing changes, then walked once more to
//! report. Sources of variation are the thread's index (`idx`, `t.global`, `t.local`), and reads
//! of memory at a varying index or before a barrier made other threads' writes visible; literals,
//! constants, scalar arguments, extents, `t.tile`, `t.tile_origin` and `t.tile_extent` are uniform.

use crate::diag::{Diagnostic, Diagnostics, Rule, Span};
use crate::ir::*;
use crate::types::{Len, Ty};
use proc_macro2::LineColumn;
use std::collections::{HashMap, HashSet};

/// The kinds of warning, each of which a kernel can silence with
/// `#[kernel(amp, allow(<name>))]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lint {
    /// A `tile_static` element read that another thread may have written since the last barrier.
    TileStaticRace,
    /// A write to a view or array at an index not proven unique per thread.
    WriteConflict,
    /// A view or array read at another thread's element while the kernel writes it.
    FlowDependence,
    /// A `tile_static` column walk that hits one memory bank.
    BankConflict,
}

impl Lint {
    /// Every lint.
    pub const ALL: [Lint; 4] = [
        Lint::TileStaticRace,
        Lint::WriteConflict,
        Lint::FlowDependence,
        Lint::BankConflict,
    ];

    /// The name used in `allow(...)` and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Lint::TileStaticRace => "tile_static_race",
            Lint::WriteConflict => "write_conflict",
            Lint::FlowDependence => "flow_dependence",
            Lint::BankConflict => "bank_conflict",
        }
    }

    /// The lint with this name.
    pub fn from_name(name: &str) -> Option<Lint> {
        Lint::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// One warning.
#[derive(Clone, Debug)]
pub struct Warning {
    /// Its kind.
    pub lint: Lint,
    /// The tokens it is about.
    pub span: Span,
    /// What may go wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// What the analyses found.
#[derive(Debug, Default)]
pub struct Findings {
    /// Barriers that not every thread of a tile reaches.
    pub errors: Diagnostics,
    /// Races, dependences and bank conflicts.
    pub warnings: Vec<Warning>,
    /// Per parameter: whether the body reads it and whether it writes it.
    pub access: Vec<(bool, bool)>,
}

/// Runs every analysis on a checked kernel.
pub fn analyse(kernel: &Kernel) -> Findings {
    let mut w = Walker::new(kernel);
    for _ in 0..16 {
        w.changed = false;
        w.run();
        if !w.changed {
            break;
        }
    }
    w.report = true;
    w.run();
    w.finish()
}

/// Why control at some point differs between the threads of a tile.
#[derive(Clone, Debug)]
struct Divergence {
    span: Span,
    reason: &'static str,
}

#[derive(Default)]
struct LoopState {
    /// A `break` some threads take: later iterations run on fewer threads.
    divergent_exit: Option<Divergence>,
    /// A `continue` some threads take: the rest of this iteration runs on fewer threads.
    skipped: Option<Divergence>,
}

/// The structure of an index expression, to compare indices: two expressions with equal keys
/// have equal values in a thread. An immutable local stands for its initializer's key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum IndexKey {
    /// An integer literal.
    Int(u128),
    /// A `bool` literal.
    Bool(bool),
    /// A float literal, by the bits of its `f64` and `f32` values.
    Float(u64, u32),
    /// A local (not aliased to a known value).
    Local(LocalId),
    /// A by-value parameter.
    Param(ParamId),
    /// An outer constant.
    Const(usize),
    /// `base[index]`.
    Element(Box<IndexKey>, Box<IndexKey>),
    /// A binary operator.
    Binary(BinOp, Box<IndexKey>, Box<IndexKey>),
    /// A unary operator.
    Unary(UnOp, Box<IndexKey>),
    /// A cast to the type.
    Cast(Box<IndexKey>, Ty),
    /// A buffer's extent.
    Extent(ParamId),
    /// Anything else, known only by where it starts in the source.
    Opaque(LineColumn),
    /// The slot of an atomic on `tile_static` memory: equal to no index.
    Atomic,
}

impl IndexKey {
    /// `local[d]`.
    fn component(local: LocalId, d: u32) -> IndexKey {
        IndexKey::Element(
            Box::new(IndexKey::Local(local)),
            Box::new(IndexKey::Int(u128::from(d))),
        )
    }
}

/// A write or read of a buffer, for the dependence checks.
struct Access {
    param: ParamId,
    key: Vec<IndexKey>,
    span: Span,
    unique: bool,
    /// For reads: the buffer was written earlier and a barrier fencing global memory came
    /// since, so the threads of a tile see each other's writes (communication through global
    /// memory within a tile).
    after_barrier: bool,
    /// An atomic operation: never a conflict or a dependence.
    atomic: bool,
}

struct Walker<'k> {
    k: &'k Kernel,
    /// Per local: may differ between threads.
    varying: Vec<bool>,
    /// Per local: derived from the fastest-varying component of `t.local`.
    fast: Vec<bool>,
    /// Per immutable local: the key of its value, for recognising `let row = idx[0];`.
    alias: HashMap<LocalId, IndexKey>,
    changed: bool,
    report: bool,
    ctrl: Option<Divergence>,
    returned: Option<Divergence>,
    loops: Vec<LoopState>,
    /// `tile_static` locals written since the last barrier, with the keys of the indices.
    /// (whether each index is per-thread: a slot every thread writes alike is shared).
    dirty_tile: HashMap<LocalId, HashSet<(Vec<IndexKey>, bool)>>,
    /// Buffers written since the last barrier.
    dirty_buffers: HashSet<ParamId>,
    /// Components of `t.local` fixed to a constant by the enclosing conditions.
    pins: Vec<u32>,
    errors: Diagnostics,
    /// Where the reported barriers start (an inlined device function repeats its spans).
    error_spans: HashSet<LineColumn>,
    warnings: Vec<Warning>,
    warning_spans: HashSet<(Lint, LineColumn)>,
    writes: Vec<Access>,
    reads: Vec<Access>,
}

impl<'k> Walker<'k> {
    fn new(k: &'k Kernel) -> Self {
        let n = k.locals.len();
        let mut varying = vec![false; n];
        varying[k.index_local] = true;
        if let Some(t) = &k.tiled {
            varying[t.global] = true;
            varying[t.local] = true;
        }
        Walker {
            k,
            varying,
            fast: vec![false; n],
            alias: HashMap::new(),
            changed: false,
            report: false,
            ctrl: None,
            returned: None,
            loops: Vec::new(),
            dirty_tile: HashMap::new(),
            dirty_buffers: HashSet::new(),
            pins: Vec::new(),
            errors: Diagnostics::default(),
            error_spans: HashSet::new(),
            warnings: Vec::new(),
            warning_spans: HashSet::new(),
            writes: Vec::new(),
            reads: Vec::new(),
        }
    }

    fn run(&mut self) {
        self.ctrl = None;
        self.returned = None;
        self.loops.clear();
        self.dirty_tile.clear();
        self.dirty_buffers.clear();
        self.pins.clear();
        self.writes.clear();
        self.reads.clear();
        let body = &self.k.body;
        self.block(body);
    }

    fn finish(mut self) -> Findings {
        let mut access = vec![(false, false); self.k.params.len()];
        for r in &self.reads {
            access[r.param].0 = true;
        }
        for w in &self.writes {
            access[w.param].1 = true;
        }
        self.dependences();
        Findings {
            errors: self.errors,
            warnings: self.warnings,
            access,
        }
    }

    // ----- helpers -----

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

    fn set_varying(&mut self, id: LocalId) {
        if !self.varying[id] {
            self.varying[id] = true;
            self.changed = true;
        }
    }

    fn set_fast(&mut self, id: LocalId) {
        if !self.fast[id] {
            self.fast[id] = true;
            self.changed = true;
        }
    }

    fn warn(&mut self, lint: Lint, span: Span, message: String, help: String) {
        if !self.report {
            return;
        }
        if self.warning_spans.insert((lint, span.start.start())) {
            self.warnings.push(Warning {
                lint,
                span,
                message,
                help,
            });
        }
    }

    fn is_tile_static(&self, id: LocalId) -> bool {
        self.k.locals[id].storage == Storage::TileStatic
    }

    /// The rank of the launch domain's fastest-varying component.
    fn fast_component(&self) -> u32 {
        self.k.rank - 1
    }

    /// The key of an index expression, to compare indices.
    fn key(&self, e: &Expr) -> IndexKey {
        let key = |e| Box::new(self.key(e));
        match &e.kind {
            ExprKind::Lit(Lit::Int(v)) => IndexKey::Int(*v),
            ExprKind::Lit(Lit::Bool(v)) => IndexKey::Bool(*v),
            ExprKind::Lit(Lit::Float(v, v32)) => IndexKey::Float(v.to_bits(), v32.to_bits()),
            ExprKind::Local(id) => self.alias.get(id).cloned().unwrap_or(IndexKey::Local(*id)),
            ExprKind::ScalarParam(p) => IndexKey::Param(*p),
            ExprKind::OuterConst(c) => IndexKey::Const(*c),
            ExprKind::Element(b, i) => IndexKey::Element(key(b), key(i)),
            ExprKind::Binary(op, a, b) => IndexKey::Binary(*op, key(a), key(b)),
            ExprKind::Unary(op, a) => IndexKey::Unary(*op, key(a)),
            ExprKind::Cast(a) => IndexKey::Cast(key(a), e.ty.clone()),
            ExprKind::BufferExtent(p) => IndexKey::Extent(*p),
            _ => IndexKey::Opaque(e.span.start.start()),
        }
    }

    fn keys(&self, list: &[Expr]) -> Vec<IndexKey> {
        list.iter().map(|e| self.key(e)).collect()
    }

    /// Whether an expression reads the fastest-varying component of `t.local` (directly or
    /// through locals computed from it). Only arithmetic, casts, math and element reads are
    /// looked through: the index of a load or the arms of an `if` are other values.
    fn mentions_fast(&self, e: &Expr) -> bool {
        let Some(t) = &self.k.tiled else { return false };
        let fast = self.fast_component() as u128;
        let is_fast_component = |base: &Expr, index: &Expr| match (&base.kind, &index.kind) {
            (ExprKind::Local(id), ExprKind::Lit(Lit::Int(k))) => *id == t.local && *k == fast,
            _ => false,
        };
        any_expr(e, |e| match &e.kind {
            ExprKind::Element(b, i) if is_fast_component(b, i) => Probe::Hit,
            ExprKind::Local(id) if self.fast[*id] => Probe::Hit,
            ExprKind::Element(..)
            | ExprKind::Unary(..)
            | ExprKind::Cast(_)
            | ExprKind::Binary(..)
            | ExprKind::Builtin(..)
            | ExprKind::Math(..) => Probe::Descend,
            _ => Probe::Prune,
        })
    }

    /// The dimension `d` when `e` is the thread's own index component `d`, possibly shifted by
    /// a uniform amount (`idx[0]`, `t.global[1] + 1`, `row` bound to `idx[0]`).
    fn own_component(&mut self, e: &Expr) -> Option<u32> {
        let own = match &self.k.tiled {
            Some(t) => t.global,
            None => self.k.index_local,
        };
        match &e.kind {
            ExprKind::Element(b, i) => match (&b.kind, &i.kind) {
                // `idx[k]`, or `g[k]` after `let g = t.global;`.
                (ExprKind::Local(id), ExprKind::Lit(Lit::Int(k)))
                    if *id == own || self.alias.get(id) == Some(&IndexKey::Local(own)) =>
                {
                    Some(*k as u32)
                }
                _ => None,
            },
            ExprKind::Local(id) => {
                let key = self.alias.get(id)?;
                (0..self.k.rank).find(|&d| *key == IndexKey::component(own, d))
            }
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
                if let Some(d) = self.own_component(a) {
                    return (!self.may_vary(b)).then_some(d);
                }
                if let (ExprKind::Binary(BinOp::Add, ..), Some(d)) =
                    (&e.kind, self.own_component(b))
                {
                    return (!self.may_vary(a)).then_some(d);
                }
                None
            }
            ExprKind::Cast(a) => self.own_component(a),
            _ => None,
        }
    }

    /// Whether an expression (without side effects) may differ between threads, from what the
    /// walk knows so far; used by the index checks (the walk itself tracks memory, too). Any
    /// expression other than a pure computation on locals and uniform values counts as varying.
    fn may_vary(&self, e: &Expr) -> bool {
        any_expr(e, |e| match &e.kind {
            ExprKind::Local(id) if self.varying[*id] => Probe::Hit,
            ExprKind::Lit(_)
            | ExprKind::OuterConst(_)
            | ExprKind::ScalarParam(_)
            | ExprKind::BufferExtent(_)
            | ExprKind::Local(_)
            | ExprKind::Unary(..)
            | ExprKind::Cast(_)
            | ExprKind::Binary(..)
            | ExprKind::Logic(..)
            | ExprKind::Element(..)
            | ExprKind::Builtin(..)
            | ExprKind::Math(..) => Probe::Descend,
            _ => Probe::Hit,
        })
    }

    /// Whether the write indices are one own index component each, every dimension once: a
    /// different element for every thread (transposes and uniform shifts included).
    fn unique_per_thread(&mut self, idx: &[Expr]) -> bool {
        let mut seen = vec![false; self.k.rank as usize];
        for e in idx {
            match self.own_component(e) {
                Some(d) if !seen[d as usize] => seen[d as usize] = true,
                // A component the same for every thread keeps the map injective.
                None if !self.may_vary(e) => {}
                _ => return false,
            }
        }
        seen.iter().all(|&s| s)
    }

    /// Whether the write is `v[t.tile]` by one thread of the tile (all of `t.local` pinned).
    fn unique_per_tile(&self, idx: &[Expr]) -> bool {
        let Some(t) = &self.k.tiled else { return false };
        let rank = self.k.rank;
        idx.len() as u32 == rank
            && idx
                .iter()
                .enumerate()
                .all(|(d, e)| self.key(e) == IndexKey::component(t.tile, d as u32))
            && (0..rank).all(|d| self.pins.contains(&d))
    }

    /// `t.local[d] == c` conditions (joined by `&&`) pin components of `t.local`.
    fn pins_of(&self, cond: &Expr, out: &mut Vec<u32>) {
        let Some(t) = &self.k.tiled else { return };
        match &cond.kind {
            ExprKind::Logic(LogicOp::And, a, b) => {
                self.pins_of(a, out);
                self.pins_of(b, out);
            }
            ExprKind::Binary(BinOp::Eq, a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if self.may_vary(y) {
                        continue;
                    }
                    // `t.local[k]`, or a local bound to it.
                    let key = self.key(x);
                    if let Some(k) =
                        (0..self.k.rank).find(|&k| key == IndexKey::component(t.local, k))
                    {
                        out.push(k);
                    }
                }
            }
            _ => {}
        }
    }

    // ----- the walk -----

    fn block(&mut self, b: &Block) -> bool {
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
            ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::ArrayRepeat(a, _) => self.expr(a),
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
                self.reads.push(Access {
                    param: *p,
                    key,
                    span: e.span,
                    unique: false,
                    after_barrier: self.written_before(*p),
                    atomic: false,
                });
                v || self.dirty_buffers.contains(p)
            }
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
                        after_barrier: false,
                        atomic: true,
                    });
                    self.writes.push(Access {
                        param: *p,
                        key,
                        span: e.span,
                        unique: true,
                        after_barrier: false,
                        atomic: true,
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
                Rule::BarrierUniformity,
                span,
                format!(
                    "this barrier is not reached by every thread of the tile: it comes under {}{where_}",
                    d.reason
                ),
            )
            .with_help(
                "every thread of a tile must reach each barrier (C++ AMP 8.1.1); move the barrier out of the per-thread control flow, or make the condition depend only on values that are the same for the whole tile (`t.tile`, constants, scalar arguments, extents)",
            ),
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
        let mut pins = Vec::new();
        self.pins_of(c, &mut pins);
        let pinned = pins.len();
        self.pins.extend(pins);
        let before_tile = self.dirty_tile.clone();
        let before_buffers = self.dirty_buffers.clone();
        let tv = self.block(then);
        self.pins.truncate(self.pins.len() - pinned);
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
                    if writes
                        .iter()
                        .any(|(w, per_thread)| *w != key || !per_thread)
                    {
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
                self.reads.push(Access {
                    param: *p,
                    key,
                    span,
                    unique: false,
                    after_barrier: self.written_before(*p),
                    atomic: false,
                });
                v || self.dirty_buffers.contains(p)
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
                // An assigned local no longer stands for its initial value.
                self.alias.remove(id);
            }
            Place::Buffer(p, idx) => {
                for i in idx {
                    self.expr(i);
                }
                let unique = self.unique_per_thread(idx) || self.unique_per_tile(idx);
                let key = self.keys(idx);
                self.writes.push(Access {
                    param: *p,
                    key,
                    span,
                    unique,
                    after_barrier: false,
                    atomic: false,
                });
                self.dirty_buffers.insert(*p);
            }
        }
    }

    /// Whether `p` was written earlier in this walk and a barrier fencing global memory came
    /// since.
    fn written_before(&self, p: ParamId) -> bool {
        self.writes.iter().any(|w| w.param == p) && !self.dirty_buffers.contains(&p)
    }

    /// Warns about a `tile_static` access walking down a column of a `[[T; 32k]; n]` array.
    fn bank_check(&mut self, id: LocalId, indices: &[&Expr], span: Span) {
        let Ty::Array(row, _) = &self.k.locals[id].ty else {
            return;
        };
        let Ty::Array(_, Len::Lit(width)) = &**row else {
            return;
        };
        if indices.len() < 2 || width % 32 != 0 {
            return;
        }
        if self.mentions_fast(indices[0]) && !self.mentions_fast(indices[1]) {
            let name = self.k.locals[id].name.clone();
            self.warn(
                Lint::BankConflict,
                span,
                format!("neighbouring threads access `{name}` down a column: its rows are {width} elements long, so they hit the same memory bank (a bank conflict)"),
                format!("pad each row by one element: declare it with rows of {} elements", width + 1),
            );
        }
    }

    /// Write conflicts and flow dependences, from the accesses of the last walk.
    fn dependences(&mut self) {
        let writes = std::mem::take(&mut self.writes);
        let reads = std::mem::take(&mut self.reads);
        for w in &writes {
            let name = self.k.params[w.param].name.clone();
            if !w.unique {
                self.warn(
                    Lint::WriteConflict,
                    w.span,
                    format!("`{name}` is written at an index that is not proven unique per thread: several threads may write the same element, and the last one wins (an output dependence)"),
                    "write each thread's result to its own element (index with the thread's index), or combine the values with an atomic or a tile reduction".into(),
                );
            }
        }
        for r in &reads {
            if r.after_barrier {
                continue;
            }
            if r.atomic {
                continue;
            }
            let own_write = writes
                .iter()
                .find(|w| w.param == r.param && w.unique && !w.atomic);
            if let Some(w) = own_write {
                if w.key != r.key {
                    let name = self.k.params[r.param].name.clone();
                    self.warn(
                        Lint::FlowDependence,
                        r.span,
                        format!("`{name}` is read here at another thread's element while every thread writes its own: the value read depends on the order the threads run (a flow or anti dependence)"),
                        "read from one view and write to another (double buffering), or split the work into two kernels".into(),
                    );
                }
            }
        }
    }
}
