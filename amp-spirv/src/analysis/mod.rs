//! Analyses of the checked IR, in the user's terms and at the user's spans:
//!
//! - **barrier uniformity** (errors): a barrier must be reached by every thread of a tile or by
//!   none (C++ AMP spec 8.1.1), so it may not sit under control flow that differs between the
//!   threads of a tile;
//! - **races and dependences** (warnings): a `tile_static` element read with no barrier after
//!   another thread wrote it; writes to a view at an index not proven unique per thread; a view
//!   read at a neighbour's element while threads write their own;
//! - **subgroup placement** (errors): an operation that combines a subgroup's lanes stands
//!   where it can be evaluated ahead of its statement (`subgroup.rs`);
//! - **loop trip counts** (`loops.rs`): which loops a device's loop limit could cut short;
//! - **bank conflicts** (warnings): a `tile_static` 2-D array whose rows are a multiple of 32
//!   elements long, walked down a column by neighbouring threads.
//!
//! Uniformity is computed by a forward walk that records which locals may differ between the
//! threads of a tile ("varying"), repeated until nothing changes, then walked once more to
//! report. Sources of variation are the thread's index (`idx`, `t.global`, `t.local`), and reads
//! of memory at a varying index or before a barrier made other threads' writes visible; literals,
//! constants, scalar arguments, extents, `t.tile`, `t.tile_origin` and `t.tile_extent` are uniform.
//!
//! The analyses share one walk, `uniformity`, which records on the way what the others need:
//! `races` checks the buffer accesses it collected, `banks` the `tile_static` accesses as
//! it meets them, and `index` says what an index expression is (its key, whether it varies,
//! whether it is unique per thread).

mod banks;
mod index;
pub mod loops;
mod races;
mod radix;
mod subgroup;
mod tile_slots;
mod uniformity;

use crate::diag::{Diagnostics, Span};
use crate::ir::*;
use index::IndexKey;
use proc_macro2::LineColumn;
use races::Access;
use std::collections::{HashMap, HashSet};
use uniformity::{Divergence, LoopState};

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
    /// Per parameter: whether two threads of a launch may access one of its elements at the
    /// same time, one of them writing (what the race analysis cannot prove private). The native back end
    /// accesses such a buffer with relaxed atomics, so a race the kernel's author allowed (or
    /// the race lints missed) has device-like results there instead of undefined behaviour.
    pub shared: Vec<bool>,
    /// The kernel's loops, their trip counts, and whether a device's loop limit could cut one.
    pub loops: loops::Loops,
    /// Per parameter: a buffer of a simple kernel whose every access is a plain load or store
    /// of the thread's own element (`v[idx]`, `v[idx[0]]`, `v[[i, j]]` with `i` and `j` the
    /// index's components, through immutable locals), never an atomic: each element belongs to one thread, which may then keep it in a
    /// register between one load and one store.
    pub own_element_only: Vec<bool>,
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
    let mut findings = w.finish();
    subgroup::check_placement(kernel, &mut findings.errors);
    findings.loops = loops::Loops::of(kernel);
    findings
}

/// The state of the analyses' walk over one kernel.
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
    /// Equalities of the enclosing conditions between a component of the thread's own index
    /// and a launch-wide value (`if i == 0`), as keys `(own, value)`: inside, an index
    /// component that is the value is the own component (`ey[[0, j]]` is `ey[[i, j]]`).
    own_pins: Vec<(IndexKey, IndexKey)>,
    /// The conjuncts of the enclosing `if` conditions (then-branches), as keys: facts a write
    /// happens under (`if i > k { a[idx] = .. }`).
    guards: Vec<IndexKey>,
    /// The variables of the enclosing `for v in 0..n` loops (immutable `v`), with the key of
    /// their `n`: each is below its `n` in the loop.
    runs: Vec<(LocalId, IndexKey)>,
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
            own_pins: Vec::new(),
            guards: Vec::new(),
            runs: Vec::new(),
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
        self.own_pins.clear();
        self.guards.clear();
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
        let shared = (0..self.k.params.len())
            .map(|p| !self.private_elements(p))
            .collect();
        let own_element_only = (0..self.k.params.len())
            .map(|p| self.own_element_only(p))
            .collect();
        self.dependences();
        Findings {
            errors: self.errors,
            warnings: self.warnings,
            access,
            shared,
            loops: loops::Loops::default(),
            own_element_only,
        }
    }

    /// See [`Findings::own_element_only`].
    fn own_element_only(&self, p: ParamId) -> bool {
        if self.k.tiled.is_some() {
            return false;
        }
        let mut accesses = self
            .reads
            .iter()
            .chain(&self.writes)
            .filter(|a| a.param == p)
            .peekable();
        accesses.peek().is_some()
            && accesses.all(|a| {
                !a.atomic
                    && a.key.len() == self.k.rank as usize
                    && (0..).zip(&a.key).all(|(d, k)| {
                        self.own_key(k)
                            .is_some_and(|(own, terms)| own == d && terms.is_empty())
                    })
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
}
