//! Simple kernels batched: a run of [`LANES`] neighbouring threads as one call, with the loops
//! every thread runs the same way hoisted out of the work-item loops; and the same hoisting
//! in tiled kernels ([`hoisted_tiled`]).
//!
//! One thread per call makes a loop like a matrix product's `for k in 0..n` the inner loop of
//! every thread: one dependent chain of additions, and a column of `b` read with a stride,
//! where LLVM vectorizes nothing. When a loop's range is the same in every thread (built from
//! literals, constants, scalar parameters, view extents and locals of that kind), the threads
//! of a batch may run it together: the loop runs once per batch and its body is a work-item
//! loop over the batch's threads, which read neighbouring elements and keep independent sums.
//!
//! That is exactly what the tile back end does with a loop that contains a barrier, so a
//! batch is a *tile* `[1, .., 1, LANES]` of a tiled kernel made from the simple one: the
//! hoisted loops get a barrier at the end of their bodies (a boundary between work-item loops;
//! it emits no code), and `tile.rs` does the rest (frames for locals that live across the
//! loops, `return` through each thread's `done` flag). Reordering the threads of a simple
//! kernel this way changes nothing: they are unordered, and they share no `tile_static`
//! memory.
//!
//! A loop is hoisted only where it runs in the same control flow for every thread: a statement
//! of the kernel body, or of a hoisted loop's body; its range is uniform; no `break` or
//! `continue` leaves it (a thread could then leave it alone). In a batch, a loop under an `if`
//! whose condition differs between threads runs for all of them with a per-thread mask
//! ([`masked`], ISPC's model): a thread whose condition is false runs its iterations doing
//! nothing. Kernels that assign their index are not batched.

use super::uniform::{has_barrier, uniform_expr};
use crate::diag::Span;
use crate::ir::build::{logic, not};
use crate::ir::*;
use crate::types::{Scalar, Ty};
use std::collections::{HashSet, VecDeque};

/// Threads per batch, along the domain's last dimension.
pub const LANES: u32 = 32;

/// The tiled kernel whose tile `[t0, .., tn]` runs threads `[t0, .., tn * LANES + 0..LANES]`
/// of `k`, or `None` when `k` may not be batched, or would gain nothing: it has loops, none of
/// which it can hoist, or it has no loop and neither of these: a domain of rank 2 or 3 (a
/// batch runs 32 neighbours of one row, with no index division per thread, and LLVM
/// vectorizes its work-item loop: a stencil's neighbours), or a check to version
/// (`versioned`: some access compares an index with a view's extent, which the batch's guard
/// decides once for its threads, as for an offset index). A rank-1 element-wise kernel runs
/// as fast one thread at a time (measured: vector add 9 % slower batched).
pub(crate) fn batched_kernel(k: &Kernel, versioned: bool) -> Option<(Kernel, HashSet<LocalId>)> {
    if k.tiled.is_some() || assigns_local(&k.body, k.index_local) {
        return None;
    }
    let mut b = k.clone();
    let mut uniform = HashSet::new();
    let mut loops = HashSet::new();
    let hoisted = hoist_block(&mut b.body, &mut b.locals, &mut uniform, &mut loops, true);
    if hoisted == 0 && (has_loop(&k.body) || (k.rank == 1 && !versioned)) {
        return None;
    }
    let rank = k.rank as usize;
    let index_ty = Ty::Array(
        Box::new(Ty::Scalar(Scalar::Usize)),
        crate::types::Len::Lit(k.rank),
    );
    let mut field = |name: &str| {
        b.locals.push(Local {
            name: name.to_string(),
            ty: index_ty.clone(),
            mutable: false,
            storage: Storage::Function,
        });
        b.locals.len() - 1
    };
    let (local, tile, tile_origin, tile_extent) = (
        field("#lane"),
        field("#batch"),
        field("#batch_origin"),
        field("#batch_extent"),
    );
    let mut dims = vec![TileDim::Lit(1); rank - 1];
    dims.push(TileDim::Lit(LANES));
    b.tiled = Some(Tiled {
        dims,
        global: k.index_local,
        local,
        tile,
        tile_origin,
        tile_extent,
    });
    Some((b, loops))
}

/// `k` (a tiled kernel) with its loops that every thread of a tile runs the same way (and that
/// contain no barrier) run at tile level like the loops of a batch: `None` when there is none.
/// A tiled matrix product's `for k in 0..TS { sum += la[row][k] * lb[k][col]; }` then runs
/// once per tile with a work-item loop inside, over neighbouring elements of `lb`.
pub(crate) fn hoisted_tiled(k: &Kernel) -> Option<(Kernel, HashSet<LocalId>)> {
    let tiled = k.tiled.as_ref()?;
    let mut b = k.clone();
    let mut uniform: HashSet<LocalId> = [tiled.tile, tiled.tile_origin, tiled.tile_extent]
        .into_iter()
        .collect();
    if uniform.iter().any(|&id| assigns_local(&k.body, id)) {
        return None;
    }
    let mut loops = HashSet::new();
    let hoisted = hoist_block(&mut b.body, &mut b.locals, &mut uniform, &mut loops, false);
    (hoisted > 0).then_some((b, loops))
}

/// Hoists the loops of `b` (see the module docs), each with a barrier at the end of its body;
/// `uniform` holds the locals known to be the same in every thread. Returns how many (loops
/// that already contain a barrier run at tile level anyway: they are walked, not counted), and
/// adds the variables of the loops it hoisted to `loops`: their iterations are not ordered by
/// a barrier of the kernel, so the tile emitter may run several in one work-item loop.
fn hoist_block(
    b: &mut Block,
    locals: &mut Vec<Local>,
    uniform: &mut HashSet<LocalId>,
    loops: &mut HashSet<LocalId>,
    masks: bool,
) -> usize {
    let mut hoisted = 0;
    // A loop (or, in a batch, an `if`) ending the block without a `;` is hoisted (or masked)
    // as a statement.
    tail_as_statement(b);
    let mut pending: VecDeque<Stmt> = std::mem::take(&mut b.stmts).into();
    while let Some(st) = pending.pop_front() {
        let mut st = match flattened(st, locals) {
            Ok(flat) => {
                for s in flat.into_iter().rev() {
                    pending.push_front(s);
                }
                continue;
            }
            Err(st) => *st,
        };
        if masks {
            if let Some(expanded) = masked(&mut st, locals, uniform) {
                for s in expanded.into_iter().rev() {
                    pending.push_front(s);
                }
                continue;
            }
        }
        match &mut st {
            Stmt::Let(id, Some(init))
                if !locals[*id].mutable
                    && matches!(locals[*id].ty, Ty::Scalar(_))
                    && uniform_expr(init, &|l| uniform.contains(&l)) =>
            {
                uniform.insert(*id);
            }
            // Constructs with a barrier run at tile level already: their loops may be hoisted.
            Stmt::Expr(e) if !matches!(e.kind, ExprKind::For(_)) && has_barrier(e) => {
                match &mut e.kind {
                    ExprKind::While(_, body) | ExprKind::Loop(body) | ExprKind::Block(body) => {
                        hoisted += hoist_block(body, locals, &mut uniform.clone(), loops, masks);
                    }
                    ExprKind::If(_, then, els) => {
                        hoisted += hoist_block(then, locals, &mut uniform.clone(), loops, masks);
                        if let Some(ExprKind::Block(b)) = els.as_deref_mut().map(|x| &mut x.kind) {
                            hoisted += hoist_block(b, locals, &mut uniform.clone(), loops, masks);
                        }
                    }
                    _ => {}
                }
            }
            Stmt::Expr(e) => {
                let span = e.span;
                if let ExprKind::For(r) = &mut e.kind {
                    if hoistable(r, locals, uniform) {
                        uniform.insert(r.var);
                        let barrier = block_has(&r.body, has_barrier);
                        if !barrier {
                            // The body's tail as its last statement, so a loop there is
                            // hoisted like the others.
                            tail_as_statement(&mut r.body);
                        }
                        hoisted += usize::from(!barrier)
                            + hoist_block(&mut r.body, locals, uniform, loops, masks);
                        if !barrier {
                            loops.insert(r.var);
                            // The end of each iteration is a boundary between work-item loops.
                            r.body.stmts.push(Stmt::Expr(boundary(span)));
                        }
                    }
                }
            }
            Stmt::Let(..) => {}
        }
        b.stmts.push(st);
    }
    hoisted
}

/// Statement `st` as the statements of the block it evaluates first, when it does (an inlined
/// device function's body, most often): `let x = { a; t };` becomes `a; let x = t;`,
/// `v[i] = { a; t } as u32;` becomes `a; v[i] = t as u32;` (Rust evaluates an assignment's
/// value before its place), and a block statement its statements. The block may stand first
/// on the left of operators (`{ a; t } + y` is `a; t + y`: `y` is evaluated after the block
/// either way), or after operands of operators that evaluate both sides: `y + { a; t }` is
/// `let y1 = y; a; y1 + t`, each operand evaluated before the block kept in a new local, so
/// everything is still evaluated once and in Rust's order (left operand, right operand, then
/// the operator). The statements run in the same order in the same loops, and locals are
/// numbered apart, so nothing changes but that a loop in the block now stands in the body,
/// where it may run for a batch of threads (a device function's `for k in 0..n`). `Err` gives
/// the statement back as it is.
fn flattened(mut st: Stmt, locals: &mut Vec<Local>) -> Result<Vec<Stmt>, Box<Stmt>> {
    // The block `e` evaluates first of its blocks, with a tail, and (in `before`) the
    // operands evaluated before it.
    fn first_block<'e>(e: &'e mut Expr, before: &mut Vec<&'e mut Expr>) -> Option<&'e mut Expr> {
        if matches!(&e.kind, ExprKind::Block(b) if b.tail.is_some()) {
            return Some(e);
        }
        match &mut e.kind {
            ExprKind::Cast(a) | ExprKind::Unary(_, a) | ExprKind::Bitcast(a) => {
                first_block(a, before)
            }
            ExprKind::Logic(_, a, _) => first_block(a, before),
            ExprKind::Binary(_, a, b) => {
                if contains_block(a) {
                    return first_block(a, before);
                }
                let mark = before.len();
                before.push(a);
                let found = first_block(b, before);
                if found.is_none() {
                    before.truncate(mark);
                }
                found
            }
            _ => None,
        }
    }
    // Whether `e` holds a block anywhere (an operand that does is not moved before another
    // block: its own statements would move with it).
    fn contains_block(e: &Expr) -> bool {
        any_expr(e, |x| match x.kind {
            ExprKind::Block(_) => Probe::Hit,
            _ => Probe::Descend,
        })
    }
    // The statements of block `e`, which becomes its tail.
    fn splice(e: &mut Expr) -> Vec<Stmt> {
        let ExprKind::Block(b) = std::mem::replace(&mut e.kind, ExprKind::Block(Block::default()))
        else {
            unreachable!("`first_block` found a block");
        };
        let Some(tail) = b.tail else {
            unreachable!("`first_block` found a block with a tail");
        };
        *e = *tail;
        b.stmts
    }
    let mut before = Vec::new();
    let first = match &mut st {
        Stmt::Let(_, Some(init)) => first_block(init, &mut before),
        Stmt::Expr(e) => match &mut e.kind {
            ExprKind::Assign(_, v) | ExprKind::CompoundAssign(_, _, v) => {
                first_block(v, &mut before)
            }
            ExprKind::Block(b) => {
                let Block { mut stmts, tail } = std::mem::take(b);
                stmts.extend(tail.map(|t| Stmt::Expr(*t)));
                return Ok(stmts);
            }
            _ => None,
        },
        Stmt::Let(_, None) => None,
    };
    let Some(block) = first else {
        return Err(Box::new(st));
    };
    let mut stmts = Vec::new();
    for operand in before {
        let id = new_local(locals, "#operand", operand.ty.clone());
        let kept = Expr {
            kind: ExprKind::Local(id),
            ty: operand.ty.clone(),
            span: operand.span,
        };
        stmts.push(Stmt::Let(id, Some(std::mem::replace(operand, kept))));
    }
    stmts.extend(splice(block));
    stmts.push(st);
    Ok(stmts)
}

/// Statement `st` with per-lane masks, when it is an `if` whose block (or `else` block) holds
/// a loop that may run for the whole batch (directly, or under more such `if`s): ISPC's
/// model, where a condition that differs between threads does not stop the loops inside it
/// from running for all of them. `if c { a; for i in r { b } d }` becomes
/// `let m = c; if m { a } for i in r { if m { b } } if m { d }`: each thread runs the same
/// statements in the same order as before, and a thread whose `m` is false runs the loop's
/// iterations doing nothing. An `else` block follows under `let n = !m` (an `else if` is an
/// `else` block holding that `if`), so a thread runs the statements of one branch, as before.
/// The loop's range is uniform (made of values every thread has before the `if`), so
/// computing it for every thread changes nothing; the blocks may not `return` or leave an
/// enclosing loop. `None` leaves the statement as it is.
fn masked(st: &mut Stmt, locals: &mut Vec<Local>, uniform: &HashSet<LocalId>) -> Option<Vec<Stmt>> {
    let Stmt::Expr(e) = st else {
        return None;
    };
    if !maskable(e, locals, uniform) {
        return None;
    }
    let span = e.span;
    let ExprKind::If(cond, then, els) =
        std::mem::replace(&mut e.kind, ExprKind::Block(Block::default()))
    else {
        unreachable!("`maskable` matched an `if`");
    };
    let mask = new_mask(locals);
    let mut out = vec![Stmt::Let(mask, Some(*cond))];
    expand(then, mask, span, locals, uniform, &mut out);
    if let Some(els) = els {
        let other = new_mask(locals);
        let not_mask = not(local(mask, span));
        out.push(Stmt::Let(other, Some(not_mask)));
        expand(else_block(els), other, span, locals, uniform, &mut out);
    }
    Some(out)
}

/// An `else` branch as a block: its own, or one holding its `if` (an `else if`).
fn else_block(e: Box<Expr>) -> Block {
    match e.kind {
        ExprKind::Block(b) => b,
        _ => Block {
            stmts: Vec::new(),
            tail: Some(e),
        },
    }
}

/// Whether `e` is an `if` [`masked`] applies to.
fn maskable(e: &Expr, locals: &[Local], uniform: &HashSet<LocalId>) -> bool {
    let ExprKind::If(_, then, els) = &e.kind else {
        return false;
    };
    // An `if` with an `else` is masked as a statement only (not as a value).
    if els.is_some() && e.ty != Ty::Unit {
        return false;
    }
    let returns = has_return(e);
    let block_runs_for_all = |b: &Block| {
        b.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Expr(x) => Some(x),
                Stmt::Let(..) => None,
            })
            .chain(b.tail.as_deref())
            .any(|x| runs_for_all(x, locals, uniform))
    };
    let else_runs_for_all = els.as_deref().is_some_and(|x| match &x.kind {
        ExprKind::Block(b) => block_runs_for_all(b),
        _ => runs_for_all(x, locals, uniform),
    });
    !has_barrier(e)
        && !leaves_loop(e)
        && !returns
        && (block_runs_for_all(then) || else_runs_for_all)
}

/// Whether `e`, a statement of a masked block, is a loop the batch runs once, or an `if` that
/// holds one.
fn runs_for_all(e: &Expr, locals: &[Local], uniform: &HashSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::For(r) => hoistable(r, locals, uniform),
        ExprKind::If(..) => maskable(e, locals, uniform),
        _ => false,
    }
}

/// The statements of block `b` run under mask `m` (see [`masked`]), appended to `out`.
fn expand(
    mut b: Block,
    m: LocalId,
    span: Span,
    locals: &mut Vec<Local>,
    uniform: &HashSet<LocalId>,
    out: &mut Vec<Stmt>,
) {
    tail_as_statement(&mut b);
    let mut group = Vec::new();
    for st in b.stmts {
        match st {
            Stmt::Expr(mut x) if runs_for_all(&x, locals, uniform) => {
                flush(&mut group, m, span, out);
                match &mut x.kind {
                    ExprKind::For(r) => {
                        let mut body = std::mem::take(&mut r.body);
                        tail_as_statement(&mut body);
                        r.body.stmts.push(Stmt::Expr(under(m, body, span)));
                        out.push(Stmt::Expr(x));
                    }
                    ExprKind::If(..) => {
                        let ExprKind::If(cond, then, els) =
                            std::mem::replace(&mut x.kind, ExprKind::Block(Block::default()))
                        else {
                            unreachable!("`runs_for_all` matched an `if`");
                        };
                        // `m && c`: `c` is evaluated only where `m` holds, as before.
                        let inner = new_mask(locals);
                        out.push(Stmt::Let(
                            inner,
                            Some(logic(LogicOp::And, local(m, span), *cond)),
                        ));
                        expand(then, inner, span, locals, uniform, out);
                        if let Some(els) = els {
                            // `m && !(m && c)`: where `m` holds and `c` did not.
                            let other = new_mask(locals);
                            let rest = logic(LogicOp::And, local(m, span), not(local(inner, span)));
                            out.push(Stmt::Let(other, Some(rest)));
                            expand(else_block(els), other, span, locals, uniform, out);
                        }
                    }
                    _ => unreachable!("`runs_for_all` matched a loop or an `if`"),
                }
            }
            other => group.push(other),
        }
    }
    flush(&mut group, m, span, out);
}

/// The statements of `group` as one `if m { .. }` statement of `out`.
fn flush(group: &mut Vec<Stmt>, m: LocalId, span: Span, out: &mut Vec<Stmt>) {
    if !group.is_empty() {
        let body = Block {
            stmts: std::mem::take(group),
            tail: None,
        };
        out.push(Stmt::Expr(under(m, body, span)));
    }
}

/// Block `b`'s tail, when it is a `()` expression (a loop or an `if` ending the block), as its
/// last statement.
fn tail_as_statement(b: &mut Block) {
    if b.tail.as_ref().is_some_and(|t| t.ty == Ty::Unit) {
        if let Some(tail) = b.tail.take() {
            b.stmts.push(Stmt::Expr(*tail));
        }
    }
}

/// `if m { body }`.
fn under(m: LocalId, body: Block, span: Span) -> Expr {
    Expr {
        kind: ExprKind::If(Box::new(local(m, span)), body, None),
        ty: Ty::Unit,
        span,
    }
}

fn local(id: LocalId, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Local(id),
        ty: Ty::Scalar(Scalar::Bool),
        span,
    }
}

/// A new immutable `bool` local for a mask.
fn new_mask(locals: &mut Vec<Local>) -> LocalId {
    new_local(locals, "#mask", Ty::Scalar(Scalar::Bool))
}

/// A new immutable thread-private local `name` of type `ty` (the pass's own: masks, kept
/// operands).
fn new_local(locals: &mut Vec<Local>, name: &str, ty: Ty) -> LocalId {
    locals.push(Local {
        name: name.to_string(),
        ty,
        mutable: false,
        storage: Storage::Function,
    });
    locals.len() - 1
}

/// Whether every thread runs range loop `r` the same way.
fn hoistable(r: &RangeLoop, locals: &[Local], uniform: &HashSet<LocalId>) -> bool {
    let same = |e: &Expr| uniform_expr(e, &|l| uniform.contains(&l));
    !locals[r.var].mutable
        && matches!(locals[r.counter].ty, Ty::Scalar(_))
        && same(&r.start)
        && same(&r.end)
        && r.step.as_deref().is_none_or(same)
        && !block_has(&r.body, leaves_loop)
}

/// A barrier with no code of its own: the boundary between two work-item loops.
fn boundary(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Barrier(Fence::All),
        ty: Ty::Unit,
        span,
    }
}

/// Whether `e` has a `break` or `continue` outside the loops inside it.
fn leaves_loop(e: &Expr) -> bool {
    any_expr(e, |x| match &x.kind {
        ExprKind::Break | ExprKind::Continue => Probe::Hit,
        // A nested loop's body belongs to that loop; its condition and range do not.
        ExprKind::While(c, _) if leaves_loop(c) => Probe::Hit,
        ExprKind::For(r)
            if leaves_loop(&r.start)
                || leaves_loop(&r.end)
                || r.step.as_deref().is_some_and(leaves_loop) =>
        {
            Probe::Hit
        }
        ExprKind::While(..) | ExprKind::Loop(_) | ExprKind::For(_) => Probe::Prune,
        _ => Probe::Descend,
    })
}

/// Why a simple kernel with loops runs one thread at a time natively, when its batched form
/// was not `emitted`; `None` for tiled kernels and kernels without loops (a batch gains
/// nothing).
pub(crate) fn unbatched_reason(k: &Kernel, emitted: bool) -> Option<&'static str> {
    if emitted || k.tiled.is_some() || !has_loop(&k.body) {
        return None;
    }
    if assigns_local(&k.body, k.index_local) {
        return Some("the kernel assigns to its index");
    }
    if batched_kernel(k, false).is_some() {
        return Some("a construct in its loops has no batched form yet");
    }
    Some(
        "none of its loops can run for a batch of threads at once: only a `for` over a range \
         that is the same in every thread, standing in the kernel's body, in such a loop or in \
         an `if` or `else` without a `return` there (not under a `while` that differs between \
         threads), and left by no `break` or `continue`, can (a device function's loop \
         stands where its call does when the call is evaluated first in a `let`'s or an \
         assignment's value)",
    )
}

/// Whether anything in `b` assigns local `id` (or a part of it).
fn assigns_local(b: &Block, id: LocalId) -> bool {
    let target = |p: &Place| matches!(p, Place::Local(l, _) if *l == id);
    let hit = |e: &Expr| {
        any_expr(e, |x| match &x.kind {
            ExprKind::Assign(p, _) | ExprKind::CompoundAssign(_, p, _) if target(p) => Probe::Hit,
            ExprKind::Atomic(a) if target(&a.target) || a.expected.as_ref().is_some_and(target) => {
                Probe::Hit
            }
            _ => Probe::Descend,
        })
    };
    block_has(b, hit)
}
