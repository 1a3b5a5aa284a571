//! Bank conflicts: `tile_static` 2-D arrays walked down a column by neighbouring threads.

use super::{Lint, Walker};
use crate::diag::Span;
use crate::ir::*;
use crate::types::{Len, Ty};

impl Walker<'_> {
    /// The rank of the launch domain's fastest-varying component.
    fn fast_component(&self) -> u32 {
        self.k.rank - 1
    }

    /// Whether an expression reads the fastest-varying component of `t.local` (directly or
    /// through locals computed from it). Only arithmetic, casts, math and element reads are
    /// looked through: the index of a load or the arms of an `if` are other values.
    pub(super) fn mentions_fast(&self, e: &Expr) -> bool {
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
            | ExprKind::Bitcast(_)
            | ExprKind::Binary(..)
            | ExprKind::Builtin(..)
            | ExprKind::Math(..) => Probe::Descend,
            _ => Probe::Prune,
        })
    }

    /// Warns about a `tile_static` access walking down a column of a `[[T; 32k]; n]` array.
    pub(super) fn bank_check(&mut self, id: LocalId, indices: &[&Expr], span: Span) {
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
}
