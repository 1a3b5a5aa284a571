//! Statements and structured control flow: blocks, `if`, short-circuit `&&` / `||`, and loops.

use super::OrInternal;
use super::{has_storage, Emitter, Foldable, IfLabels};
use crate::analysis::loops::breaks_out;
use crate::back::plan::{self, RangeStep, RangeTest, Step};
use crate::back::spv::Invariant;
use crate::ir::*;
use crate::types::Scalar;
use rspirv::spirv::{self, Op, Word};

/// What one arm of a structured `if` produced, and the label of its last block when it falls
/// through to the merge block (`None`: it terminated: a return, a break, ...).
pub(super) struct IfArm<R> {
    pub(super) value: R,
    pub(super) end: Option<Word>,
}

/// The arms of a structured `if`, after it: the builder is in the merge block.
pub(super) struct IfEnd<R> {
    pub(super) then: Option<IfArm<R>>,
    pub(super) otherwise: Option<IfArm<R>>,
}

impl<R> IfEnd<R> {
    /// Whether control reaches the merge block: an absent arm goes there directly.
    pub(super) fn reaches_merge(&self) -> bool {
        [&self.then, &self.otherwise]
            .into_iter()
            .any(|arm| !matches!(arm, Some(IfArm { end: None, .. })))
    }

    /// The one arm of an `if` without `else` (either way round); `None` only on a bug in the
    /// emitter (its callers record it).
    pub(super) fn only_arm(self) -> Option<IfArm<R>> {
        self.then.or(self.otherwise)
    }
}

/// The blocks a `break` and a `continue` of the innermost loop branch to.
pub(super) struct LoopTargets {
    pub(super) merge: Word,
    pub(super) cont: Word,
    /// A watched loop's own test, which `break` clears before it goes round once more
    /// (`loops.rs`).
    pub(super) more: Option<Word>,
}

impl Emitter<'_> {
    /// A structured `if` on `cond`: `OpSelectionMerge` and `OpBranchConditional` (with
    /// `weights`, true then false, or none), then each arm in turn (`then` first), filled by
    /// `arm(self, holds)` and branching to the merge block unless it terminated; leaves the
    /// builder in the merge block.
    pub(super) fn structured_if<R>(
        &mut self,
        cond: Word,
        labels: IfLabels,
        weights: &[u32],
        mut arm: impl FnMut(&mut Self, bool) -> R,
    ) -> IfEnd<R> {
        let IfLabels {
            merge,
            then,
            otherwise,
        } = labels;
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .branch_conditional(
                cond,
                then.unwrap_or(merge),
                otherwise.unwrap_or(merge),
                weights.iter().copied(),
            )
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let mut fill = |e: &mut Self, label: Option<Word>, holds: bool| {
            let label = label?;
            e.begin(label);
            let value = arm(e, holds);
            let end = (!e.terminated()).then_some(e.label);
            if end.is_some() {
                e.branch(merge);
            }
            Some(IfArm { value, end })
        };
        let then = fill(self, then, true);
        let otherwise = fill(self, otherwise, false);
        self.begin(merge);
        IfEnd { then, otherwise }
    }

    pub(super) fn block(&mut self, block: &Block) -> Option<Word> {
        for s in &block.stmts {
            if self.terminated() {
                return None;
            }
            match s {
                // `tile_static` memory is undefined until written (C++ AMP's semantics).
                Stmt::Let(id, None) if self.k.locals[*id].storage == Storage::TileStatic => {}
                Stmt::Let(id, init) => {
                    if let Some(e) = init {
                        let kind = self.foldable(e);
                        if !self.k.locals[*id].mutable && kind != Foldable::No {
                            self.foldable_locals.insert(*id, kind);
                        }
                        if !self.k.locals[*id].mutable && self.opaque_value(e) {
                            self.opaque_locals.insert(*id);
                        }
                    }
                    let value = match init {
                        Some(e) => self.expr(e),
                        None => {
                            let ty = &self.k.locals[*id].ty;
                            if !has_storage(ty) {
                                None
                            } else {
                                let t = self.ty(ty);
                                Some(self.b.constant_null(t))
                            }
                        }
                    };
                    if let (Some(v), Some(var)) = (value, self.locals[*id]) {
                        if !self.terminated() {
                            self.store(var, v);
                        }
                    }
                }
                Stmt::Expr(e) => {
                    self.expr(e);
                }
            }
        }
        if self.terminated() {
            return None;
        }
        block.tail.as_ref().and_then(|t| self.expr(t))
    }

    pub(super) fn logic(&mut self, op: LogicOp, a: &Expr, b: &Expr) -> Option<Word> {
        let l = self.expr(a)?;
        let from = self.label;
        let (rhs, merge) = (self.b.id(), self.b.id());
        // `&&` evaluates its right operand when the left holds, `||` when it does not.
        let labels = match op {
            LogicOp::And => IfLabels {
                merge,
                then: Some(rhs),
                otherwise: None,
            },
            LogicOp::Or => IfLabels {
                merge,
                then: None,
                otherwise: Some(rhs),
            },
        };
        let Some(arm) = self
            .structured_if(l, labels, &[], |e, _| {
                let r = e.expr(b);
                let short = e.const_scalar(Scalar::Bool, Lit::Bool(op == LogicOp::Or));
                (r, short)
            })
            .only_arm()
        else {
            return self.broken(Invariant::IfArm);
        };
        let (r, short) = arm.value;
        let mut incoming = vec![(short, from)];
        if let (Some(r), Some(end)) = (r, arm.end) {
            incoming.push((r, end));
        }
        let bt = self.scalar_ty(Scalar::Bool);
        Some(
            self.b
                .phi(bt, None, incoming)
                .or_internal(&mut self.internal, Invariant::BlockOpen),
        )
    }

    pub(super) fn if_expr(
        &mut self,
        e: &Expr,
        cond: &Expr,
        then: &Block,
        els: Option<&Expr>,
    ) -> Option<Word> {
        let c = self.expr(cond)?;
        let result = if !has_storage(&e.ty) {
            None
        } else {
            let t = self.ty(&e.ty);
            Some(self.function_var(t, None))
        };
        let merge = self.b.id();
        let then_label = self.b.id();
        let else_label = if els.is_some() { self.b.id() } else { merge };
        let labels = IfLabels {
            merge,
            then: Some(then_label),
            otherwise: els.is_some().then_some(else_label),
        };
        let arms = self.structured_if(c, labels, &[], |e, holds| {
            let v = match (holds, els) {
                (true, _) => e.block(then),
                (false, Some(els)) => e.expr(els),
                (false, None) => e.broken(Invariant::IfArm),
            };
            if !e.terminated() {
                if let (Some(var), Some(v)) = (result, v) {
                    e.store(var, v);
                }
            }
        });
        if !arms.reaches_merge() {
            self.b
                .unreachable()
                .or_internal(&mut self.internal, Invariant::BlockOpen);
            return None;
        }
        let var = result?;
        let t = self.ty(&e.ty);
        Some(self.load(t, var))
    }

    /// Opens a loop: branches into a new header, declares the merge and continue blocks, and
    /// leaves the builder in the block right after the header.
    fn loop_header(&mut self) -> (Word, LoopTargets) {
        let (header, merge, cont, first) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.branch(header);
        self.begin(header);
        self.b
            .loop_merge(merge, cont, spirv::LoopControl::NONE, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.branch(first);
        self.begin(first);
        (
            header,
            LoopTargets {
                merge,
                cont,
                more: None,
            },
        )
    }

    fn loop_body(&mut self, targets: &LoopTargets, body: &Block) {
        self.loops.push(LoopTargets {
            merge: targets.merge,
            cont: targets.cont,
            more: None,
        });
        self.block(body);
        self.loops.pop();
        if !self.terminated() {
            self.branch(targets.cont);
        }
    }

    /// Branches to the body when `cond` holds, else leaves the loop; returns false when the
    /// condition itself left the loop.
    fn loop_test(&mut self, cond: Word, merge: Word) -> Word {
        let body = self.b.id();
        self.b
            .branch_conditional(cond, body, merge, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        body
    }

    pub(super) fn while_loop(&mut self, line: usize, cond: Option<&Expr>, body: &Block) {
        let ends = cond.is_some() || breaks_out(body);
        if let Some(n) = self.watched_loop(line, ends) {
            self.watched_while(cond, body, ends, n);
            if !self.terminated() && !ends {
                // A `loop` without `break` ends only where the device ended it: the thread
                // ends there too, its note sent.
                self.return_from_main();
            }
            return;
        }
        let (header, targets) = self.loop_header();
        if let Some(cond) = cond {
            match self.expr(cond) {
                Some(c) => {
                    let body_label = self.loop_test(c, targets.merge);
                    self.begin(body_label);
                }
                None => {
                    // The condition left the loop (e.g. `while (return) {}`): the body is dead and
                    // is not emitted (a dead block branching to the continue target would not be
                    // inside the loop construct); close the loop with its continue and merge blocks.
                    self.begin(targets.cont);
                    self.branch(header);
                    self.begin(targets.merge);
                    return;
                }
            }
        }
        self.loop_body(&targets, body);
        self.begin(targets.cont);
        self.branch(header);
        self.begin(targets.merge);
        let reaches_merge = cond.is_some() || breaks_out(body);
        if !reaches_merge {
            self.b
                .unreachable()
                .or_internal(&mut self.internal, Invariant::BlockOpen);
        }
    }

    pub(super) fn for_loop(&mut self, line: usize, r: &RangeLoop) {
        let Some(s) = self.k.locals[r.counter].ty.scalar() else {
            return;
        };
        let Some(start) = self.expr(&r.start) else {
            return;
        };
        let Some(end) = self.expr(&r.end) else { return };
        let t = self.scalar_ty(s);
        let bt = self.scalar_ty(Scalar::Bool);
        let shape = plan::range_shape(r);
        let step = match shape.step {
            RangeStep::By(Step::Given(step)) => {
                let Some(v) = self.expr(step) else { return };
                Some(self.cast(v, Scalar::Usize, s))
            }
            RangeStep::By(Step::Unit) => Some(self.const_scalar(s, Lit::Int(1))),
            RangeStep::One => None,
        };
        let counter =
            self.locals[r.counter].or_internal(&mut self.internal, Invariant::ScalarLocal);
        let done = self.locals[r.done].or_internal(&mut self.internal, Invariant::ScalarLocal);
        self.store(counter, start);
        if let Some(step) = step {
            // `step_by(0)` panics in Rust; on the device the loop runs zero times.
            let zero = self.const_scalar(s, Lit::Int(0));
            let no_step = self.op(Op::IEqual, bt, &[step, zero]);
            self.store(done, no_step);
        }
        let less = match (shape.test, s.is_signed_int()) {
            (RangeTest::Below, true) => Op::SLessThan,
            (RangeTest::Below, false) => Op::ULessThan,
            (RangeTest::UpTo, true) => Op::SLessThanEqual,
            (RangeTest::UpTo, false) => Op::ULessThanEqual,
        };
        // Whether the counter's value is in the range (and a step is left).
        let test = |e: &mut Self| {
            let i = e.load(t, counter);
            let mut go = e.op(less, bt, &[i, end]);
            if step.is_some() {
                let d = e.load(bt, done);
                let not_done = e.op(Op::LogicalNot, bt, &[d]);
                go = e.op(Op::LogicalAnd, bt, &[go, not_done]);
            }
            go
        };
        let range = RangeCounter {
            counter,
            done,
            step,
            end,
            test: shape.test,
            s,
        };

        // The loop variable takes the counter's value at the start of each iteration.
        let bind_var = |e: &mut Self| {
            if let Some(var) = e.locals[r.var] {
                let i = e.load(t, counter);
                e.store(var, i);
            }
        };
        if let Some(n) = self.watched_loop(line, true) {
            let first = test(self);
            let w = self.watched_open(first, true);
            bind_var(self);
            self.watched_body(&w, &r.body);
            self.begin(w.cont);
            self.range_step(&range);
            self.watched_next(&w, |e| Some(test(e)));
            self.watched_close(&w, n);
            return;
        }
        let (header, targets) = self.loop_header();
        let go = test(self);
        let body_label = self.loop_test(go, targets.merge);
        self.begin(body_label);
        bind_var(self);
        self.loop_body(&targets, &r.body);
        self.begin(targets.cont);
        self.range_step(&range);
        self.branch(header);
        self.begin(targets.merge);
    }

    /// A range loop's step, in its continue block: the counter moves on (by `step`, noting in
    /// `done` when no value is left).
    fn range_step(&mut self, r: &RangeCounter) {
        let t = self.scalar_ty(r.s);
        let bt = self.scalar_ty(Scalar::Bool);
        let i = self.load(t, r.counter);
        match r.step {
            None => {
                let one = self.const_scalar(r.s, Lit::Int(1));
                let next = self.op(Op::IAdd, t, &[i, one]);
                self.store(r.counter, next);
            }
            Some(step) => {
                // The next value is in range iff step < end - i (exclusive) or step <= end - i
                // (inclusive); comparing the distance avoids overflowing past the type's end.
                let remaining = self.op(Op::ISub, t, &[r.end, i]);
                let finished = self.op(
                    match r.test {
                        RangeTest::UpTo => Op::UGreaterThan,
                        RangeTest::Below => Op::UGreaterThanEqual,
                    },
                    bt,
                    &[step, remaining],
                );
                self.store(r.done, finished);
                let next = self.op(Op::IAdd, t, &[i, step]);
                self.store(r.counter, next);
            }
        }
    }
}

/// What a range loop's continue block needs to step its counter.
struct RangeCounter {
    counter: Word,
    done: Word,
    step: Option<Word>,
    end: Word,
    test: RangeTest,
    s: Scalar,
}
