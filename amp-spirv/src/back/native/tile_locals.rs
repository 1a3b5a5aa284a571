//! Which thread-private locals of a tiled kernel need no per-thread frame:
//!
//! - **tile-uniform** locals: scalars assigned only by statements of tile-level code (the
//!   kernel body and the bodies of constructs that contain a barrier) from values every thread
//!   of the tile shares (literals, outer constants, scalar parameters, view extents, the tile's
//!   index fields and other such locals), like a reduction's stride `s`. They become locals of
//!   the tile function, and the statements that assign them run once per tile between the
//!   work-item loops. Cutting a run of statements there is what a barrier does, which changes
//!   nothing in a kernel without races.
//! - **rematerialized** locals: immutable locals the kernel body declares at its top level from
//!   the thread's own index and immutable tile-uniform locals (`let l = t.local[0];`,
//!   `let i = idx[0] + k + 1;`): each work-item loop recomputes them from its loop counters
//!   instead of keeping them in the frame.

use crate::ir::*;
use crate::pass::uniform::{has_barrier, uniform_expr};
use crate::types::Ty;
use std::collections::{HashMap, HashSet};

/// An assignment of a local: where it is and what it assigns.
struct Site<'a> {
    local: LocalId,
    value: Option<&'a Expr>,
    tile_level: bool,
}

/// The tile-uniform locals of `k` (see the module docs).
pub(super) fn tile_uniform(k: &Kernel, tiled: &Tiled) -> HashSet<LocalId> {
    let mut sites = Vec::new();
    let mut excluded = Excluded::default();
    collect_block(&k.body, true, &mut sites, &mut excluded);
    let mut set: HashSet<LocalId> = (0..k.locals.len())
        .filter(|&id| {
            let l = &k.locals[id];
            l.storage == Storage::Function
                && matches!(l.ty, Ty::Scalar(_))
                && !excluded.contains(&id)
                && ![tiled.global, tiled.local, k.index_local].contains(&id)
                && sites.iter().any(|s| s.local == id)
        })
        .collect();
    let shared = [tiled.tile, tiled.tile_origin, tiled.tile_extent];
    loop {
        let before = set.len();
        let keep: HashSet<LocalId> = set
            .iter()
            .copied()
            .filter(|id| {
                sites.iter().filter(|s| s.local == *id).all(|s| {
                    s.tile_level
                        && s.value.is_none_or(|v| {
                            uniform_expr(v, &|l| {
                                set.contains(&l)
                                    || shared.contains(&l)
                                    || excluded.tile_loop_vars.contains(&l)
                            })
                        })
                })
            })
            .collect();
        set = keep;
        if set.len() == before {
            return set;
        }
    }
}

/// The immutable locals the body declares at its top level from the thread's index (see the
/// module docs), in declaration order, with their initializers.
pub(super) fn rematerialized(
    k: &Kernel,
    tiled: &Tiled,
    uniform: &HashSet<LocalId>,
) -> Vec<(LocalId, Expr)> {
    let index = [
        tiled.global,
        tiled.local,
        tiled.tile,
        tiled.tile_origin,
        tiled.tile_extent,
        k.index_local,
    ];
    let mut sites = Vec::new();
    let mut excluded = Excluded::default();
    collect_block(&k.body, true, &mut sites, &mut excluded);
    let mut out: Vec<(LocalId, Expr)> = Vec::new();
    for st in &k.body.stmts {
        let Stmt::Let(id, Some(init)) = st else {
            continue;
        };
        let l = &k.locals[*id];
        let only_site = sites.iter().filter(|s| s.local == *id).count() == 1;
        // From the index, earlier such locals, and immutable tile-uniform locals (the same
        // value wherever the work-item loops read them): `let i = idx[0] + k + 1;` after
        // `let k = k as usize;`.
        let derived = uniform_expr(init, &|x| {
            index.contains(&x)
                || out.iter().any(|(r, _)| *r == x)
                || (uniform.contains(&x) && !k.locals[x].mutable)
        });
        if !l.mutable
            && l.storage == Storage::Function
            && matches!(l.ty, Ty::Scalar(_) | Ty::Array(..))
            && !uniform.contains(id)
            && !excluded.contains(id)
            && only_site
            && derived
        {
            out.push((*id, init.clone()));
        }
    }
    out
}

/// The locals no frame-free form suits (see [`collect_block`]); and, among them, the variables
/// of the `for` loops run at tile level (loops that contain a barrier, whose ranges the
/// analyses prove the same in every thread of the tile). Such a variable holds the same value
/// in every thread at each iteration, so a `let m = BS - 2 - k;` of its loop's body is
/// tile-uniform, and a work-item loop under `if t.local[0] <= m` runs only the threads that
/// pass.
#[derive(Default)]
struct Excluded {
    locals: HashSet<LocalId>,
    tile_loop_vars: HashSet<LocalId>,
}

impl Excluded {
    fn insert(&mut self, id: LocalId) {
        self.locals.insert(id);
    }

    fn extend(&mut self, ids: impl IntoIterator<Item = LocalId>) {
        self.locals.extend(ids);
    }

    fn contains(&self, id: &LocalId) -> bool {
        self.locals.contains(id)
    }
}

/// Records every assignment of a local in `b` (statement-level ones at tile level when `tile`
/// and the statement is directly in the block), and the locals no frame-free form suits: loop
/// counters, and locals assigned element-wise or through anything but a plain statement.
fn collect_block<'a>(b: &'a Block, tile: bool, sites: &mut Vec<Site<'a>>, excluded: &mut Excluded) {
    for st in &b.stmts {
        match st {
            Stmt::Let(id, init) => {
                sites.push(Site {
                    local: *id,
                    value: init.as_ref(),
                    tile_level: tile,
                });
                if let Some(e) = init {
                    collect_expr(e, false, sites, excluded);
                }
            }
            Stmt::Expr(e) => collect_stmt_expr(e, tile, sites, excluded),
        }
    }
    // A tail runs in a work-item loop (its assignments are never tile-level sites).
    if let Some(t) = &b.tail {
        collect_stmt_expr(t, false, sites, excluded);
    }
}

/// Whether `st` assigns one of the tile-uniform locals `uniform` (it then runs at tile level).
pub(super) fn assigns_uniform(st: &Stmt, uniform: &HashSet<LocalId>) -> bool {
    match st {
        Stmt::Let(id, _) => uniform.contains(id),
        Stmt::Expr(e) => match &e.kind {
            ExprKind::Assign(Place::Local(id, idx), _)
            | ExprKind::CompoundAssign(_, Place::Local(id, idx), _) => {
                idx.is_empty() && uniform.contains(id)
            }
            _ => false,
        },
    }
}

/// An expression in statement position: a plain assignment there is a site at `tile` level;
/// a construct with a barrier keeps tile level for its bodies.
fn collect_stmt_expr<'a>(
    e: &'a Expr,
    tile: bool,
    sites: &mut Vec<Site<'a>>,
    excluded: &mut Excluded,
) {
    let tile_construct = tile && has_barrier(e);
    match &e.kind {
        ExprKind::Assign(Place::Local(id, idx), v) if idx.is_empty() => {
            sites.push(Site {
                local: *id,
                value: Some(v),
                tile_level: tile,
            });
            collect_expr(v, false, sites, excluded);
        }
        ExprKind::CompoundAssign(_, Place::Local(id, idx), v) if idx.is_empty() => {
            // `x op= v` reads `x` too: uniform when `x` and `v` are.
            sites.push(Site {
                local: *id,
                value: Some(v),
                tile_level: tile,
            });
            collect_expr(v, false, sites, excluded);
        }
        ExprKind::Block(b) => collect_block(b, tile_construct, sites, excluded),
        ExprKind::If(c, then, els) if tile_construct => {
            collect_expr(c, false, sites, excluded);
            collect_block(then, true, sites, excluded);
            if let Some(x) = els {
                collect_stmt_expr(x, true, sites, excluded);
            }
        }
        ExprKind::While(c, body) if tile_construct => {
            collect_expr(c, false, sites, excluded);
            collect_block(body, true, sites, excluded);
        }
        ExprKind::Loop(body) if tile_construct => collect_block(body, true, sites, excluded),
        ExprKind::For(r) if tile_construct => {
            excluded.extend([r.var, r.counter, r.done]);
            excluded.tile_loop_vars.insert(r.var);
            collect_expr(&r.start, false, sites, excluded);
            collect_expr(&r.end, false, sites, excluded);
            if let Some(s) = &r.step {
                collect_expr(s, false, sites, excluded);
            }
            collect_block(&r.body, true, sites, excluded);
        }
        _ => collect_expr(e, false, sites, excluded),
    }
}

/// Every assignment inside `e`, none of them at tile level.
fn collect_expr<'a>(e: &'a Expr, _tile: bool, sites: &mut Vec<Site<'a>>, excluded: &mut Excluded) {
    match &e.kind {
        ExprKind::Assign(place, v) | ExprKind::CompoundAssign(_, place, v) => {
            if let Place::Local(id, idx) = place {
                if idx.is_empty() {
                    sites.push(Site {
                        local: *id,
                        value: Some(v),
                        tile_level: false,
                    });
                } else {
                    excluded.insert(*id);
                }
                for i in idx {
                    collect_expr(i, false, sites, excluded);
                }
            } else if let Place::Buffer(_, idx) = place {
                for i in idx {
                    collect_expr(i, false, sites, excluded);
                }
            }
            collect_expr(v, false, sites, excluded);
        }
        ExprKind::Atomic(a) => {
            if let Place::Local(id, _) = &a.target {
                excluded.insert(*id);
            }
            walk_children(e, sites, excluded);
        }
        ExprKind::For(r) => {
            excluded.extend([r.var, r.counter, r.done]);
            walk_children(e, sites, excluded);
        }
        _ => walk_children(e, sites, excluded),
    }
}

/// [`collect_expr`] on the children of `e`, and on the statements of its blocks.
fn walk_children<'a>(e: &'a Expr, sites: &mut Vec<Site<'a>>, excluded: &mut Excluded) {
    // Nothing below a non-tile-level expression is at tile level.
    let block = |b: &'a Block, sites: &mut Vec<Site<'a>>, excluded: &mut Excluded| {
        collect_block(b, false, sites, excluded)
    };
    match &e.kind {
        ExprKind::If(c, then, els) => {
            collect_expr(c, false, sites, excluded);
            block(then, sites, excluded);
            if let Some(x) = els {
                collect_expr(x, false, sites, excluded);
            }
        }
        ExprKind::Block(b) | ExprKind::Loop(b) => block(b, sites, excluded),
        ExprKind::While(c, b) => {
            collect_expr(c, false, sites, excluded);
            block(b, sites, excluded);
        }
        ExprKind::For(r) => {
            collect_expr(&r.start, false, sites, excluded);
            collect_expr(&r.end, false, sites, excluded);
            if let Some(s) = &r.step {
                collect_expr(s, false, sites, excluded);
            }
            block(&r.body, sites, excluded);
        }
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Bitcast(a) => {
            collect_expr(a, false, sites, excluded)
        }
        ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
            collect_expr(a, false, sites, excluded);
            collect_expr(b, false, sites, excluded);
        }
        ExprKind::BufferLoad(_, xs)
        | ExprKind::Texture(_, _, xs)
        | ExprKind::ArrayList(xs)
        | ExprKind::Builtin(_, xs)
        | ExprKind::Subgroup(_, xs)
        | ExprKind::Math(_, xs) => {
            for x in xs {
                collect_expr(x, false, sites, excluded);
            }
        }
        ExprKind::ArrayRepeat(x, _) => collect_expr(x, false, sites, excluded),
        ExprKind::Atomic(a) => {
            let (Place::Local(_, idx) | Place::Buffer(_, idx)) = &a.target;
            for i in idx {
                collect_expr(i, false, sites, excluded);
            }
            if let Some(x) = &a.value {
                collect_expr(x, false, sites, excluded);
            }
            if let Some(Place::Local(id, _)) = &a.expected {
                excluded.insert(*id);
            }
        }
        _ => {}
    }
}

/// The locals every thread of the tile writes before any thread reads them: the results of
/// subgroup operations that combine lanes (`let r = op(a, b);`, which writes every lane's
/// result) and their operands (the fresh locals `pass::collectives` computes just before, in a
/// work-item loop over every thread). Their frames need no fill where no thread can leave the
/// tile function early (no `done` flag), since then every thread reaches both.
pub(super) fn written_by_every_thread_first(k: &Kernel) -> HashSet<LocalId> {
    struct Search<'k> {
        k: &'k Kernel,
        found: HashSet<LocalId>,
    }
    impl<'a> Visitor<'a> for Search<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if let Stmt::Let(id, Some(e)) = stmt {
                let collective = matches!(&e.kind, ExprKind::Subgroup(op, _) if op.is_collective());
                if collective || self.k.locals[*id].name == crate::pass::collectives::OPERAND {
                    self.found.insert(*id);
                }
            }
            walk_stmt(self, stmt);
        }
    }
    let mut search = Search {
        k,
        found: HashSet::new(),
    };
    search.visit_block(&k.body);
    search.found
}

/// The immutable `usize`/`u32` locals of `k` with one site, which assigns a value: what a
/// work-item loop's guards may follow ([`region_lets`], which takes them from their `let`s).
pub(super) fn lets_once(k: &Kernel) -> HashSet<LocalId> {
    let mut sites = Vec::new();
    let mut excluded = Excluded::default();
    collect_block(&k.body, true, &mut sites, &mut excluded);
    let mut count: HashMap<LocalId, (usize, bool)> = HashMap::new();
    for s in &sites {
        let c = count.entry(s.local).or_default();
        c.0 += 1;
        c.1 |= s.value.is_some();
    }
    count
        .into_iter()
        .filter(|&(id, c)| {
            let l = &k.locals[id];
            c == (1, true)
                && !l.mutable
                && l.storage == Storage::Function
                && super::guard::is_index_scalar(&l.ty)
                && !excluded.contains(&id)
        })
        .map(|(id, _)| id)
        .collect()
}

/// The `let`s among a work-item loop's statements (at any depth) whose values are fixed for the
/// whole loop, in order, with their definitions (`guard::LaneFacts::region`): each one of
/// [`lets_once`], defined from the thread's index, tile-uniform and
/// rematerialized locals, a jammed loop's variable and earlier such `let`s. A work-item loop
/// has no barrier, so nothing it reads there changes while it runs (a jammed variable stays
/// within the range its guard assumes), and one site means each read of the local sees its
/// `let`'s value.
pub(super) fn region_lets(
    facts: &super::guard::LaneFacts,
    stmts: &[&Stmt],
    tail: Option<&Expr>,
) -> HashMap<LocalId, Expr> {
    struct Search<'f> {
        facts: &'f super::guard::LaneFacts,
        found: HashMap<LocalId, Expr>,
    }
    impl<'a> Visitor<'a> for Search<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if let Stmt::Let(id, Some(init)) = stmt {
                let f = self.facts;
                let fixed = |x: LocalId| {
                    [f.local, f.global, f.origin, f.tile, f.dims].contains(&x)
                        || f.uniform.contains(&x)
                        || f.remat.contains_key(&x)
                        || f.jammed.contains_key(&x)
                        || self.found.contains_key(&x)
                };
                if f.lets_once.contains(id) && uniform_expr(init, &fixed) {
                    self.found.insert(*id, init.clone());
                }
            }
            walk_stmt(self, stmt);
        }
    }
    let mut search = Search {
        facts,
        found: HashMap::new(),
    };
    for s in stmts {
        search.visit_stmt(s);
    }
    if let Some(t) = tail {
        search.visit_expr(t);
    }
    search.found
}
