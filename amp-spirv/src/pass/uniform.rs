//! Which values every thread of a tile (or of a native batch) shares and can compute at tile
//! level, and which statements are tile-level code.
//!
//! This is a question of *placement*, and a different one from the analyses' uniformity
//! (`analysis/uniformity.rs`), which asks whether a barrier may be reached by some threads
//! only. Neither answer contains the other:
//!
//! - the analyses count a load at a uniform index as uniform; code placed at tile level computes
//!   its value once for the whole tile, without memory (no load is moved across another
//!   thread's store), so these rules accept only literals, outer constants, scalar parameters,
//!   view extents and locals the caller vouches for;
//! - the analyses count a `let` under control that differs between threads (after a `return`
//!   some threads take) as varying, since a barrier there is reached by some threads only;
//!   placement asks only whether its value is the same in every thread that computes it, and
//!   computing a value without side effects in threads that would not have changes nothing.

use crate::ir::*;

/// Whether `e` contains a barrier, or a subgroup operation that combines lanes (the
/// statements that do are tile-level code: every thread must have arrived at either).
pub(crate) fn has_barrier(e: &Expr) -> bool {
    any_expr(e, |x| match &x.kind {
        ExprKind::Barrier(_) => Probe::Hit,
        ExprKind::Subgroup(op, _) if op.is_collective() => Probe::Hit,
        _ => Probe::Descend,
    })
}

/// Whether `e` only combines values of locals `local_ok` accepts with literals, outer
/// constants, scalar parameters and view extents, by operators, built-in functions (`min`,
/// `leading_zeros`, ..) and math functions, without side effects.
pub(crate) fn uniform_expr(e: &Expr, local_ok: &dyn Fn(LocalId) -> bool) -> bool {
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::OuterConst(_) | ExprKind::ScalarParam(_) => true,
        ExprKind::BufferExtent(_) => true,
        ExprKind::Local(id) => local_ok(*id),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Bitcast(a) => {
            uniform_expr(a, local_ok)
        }
        ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
            uniform_expr(a, local_ok) && uniform_expr(b, local_ok)
        }
        ExprKind::ArrayList(items) | ExprKind::Builtin(_, items) | ExprKind::Math(_, items) => {
            items.iter().all(|i| uniform_expr(i, local_ok))
        }
        _ => false,
    }
}
