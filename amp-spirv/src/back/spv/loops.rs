//! Watched loops: the lowering that lets a kernel tell a loop it ended from one the device
//! ended by itself (lavapipe leaves whichever loop is running after 65,535 iterations of a
//! group of threads, with no error; see `analysis/loops.rs`).
//!
//! A watched loop tests `more` (its own test: set before the loop, at the end of every
//! iteration, cleared by `break`) in its header, and leaves only there, clearing a second
//! flag, `go`, on the way out. A thread the device took out of the loop, at a back edge,
//! leaves with `go` still set; after the loop it notes the loop's number in a pending word,
//! sent to the report when the thread ends (one atomic per thread, as the out-of-bounds
//! report). Every end of the loop goes through one last back edge (`break` goes round once
//! more), so a cut inside an inner loop, which leaves the device's count spent, is seen by
//! the watched loop around it.
//!
//! The driver must not prove `go` clear after the loop, though to it the header is the only
//! way out: beside the clearing exit sits one that keeps `go` and runs only when the launch's
//! domain is empty, which a running thread never sees. Both it and the note are under the
//! specialization constant holding the device's limit, 0 on devices without one, where the
//! driver folds them away. (An exit on every back edge instead cost lavapipe a fifth of the
//! tiled matrix product; this one runs once per loop.)

use super::IfLabels;
use super::{Emitter, OrInternal};
use crate::analysis::loops::{covers_inner_loops, watches};
use crate::back::spv::Invariant;
use crate::ir::*;
use crate::types::Scalar;
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op, StorageClass, Word};

/// A kernel's loop watching.
pub(super) struct LoopWatch {
    /// The `u32` specialization constant holding the device's loop limit (0: none).
    limit: Word,
    /// The thread's pending note: the number of the first loop the device ended, plus one.
    pending: Word,
    /// Whether the device has a loop limit (`limit != 0`, computed once at the start of
    /// `main`; the driver folds it).
    limited: Word,
    /// `true` as a value the driver cannot fold (computed once at the start of `main`): the
    /// launch's domain is not empty.
    running: Word,
    /// `limited && !running`: false, but not to the driver where the device has a limit.
    never: Word,
    /// The source line of each watched loop, by number.
    pub(super) lines: Vec<u32>,
    /// How many watched loops around the current point cover the loops inside them
    /// (`analysis/loops.rs`, [`covers_inner_loops`]).
    covering: u32,
}

impl Emitter<'_> {
    /// Declares the limit's specialization constant and the pending note (cleared at the start
    /// of `main`) when the kernel's loops are watched.
    pub(super) fn declare_loop_watch(&mut self, watched: bool) {
        if !watched {
            return;
        }
        let u = self.scalar_ty(Scalar::U32);
        let limit = self.b.spec_constant_bit32(u, 0);
        self.b.decorate(
            limit,
            spirv::Decoration::SpecId,
            [Operand::LiteralBit32(amp_abi::spec_id::LOOP_LIMIT)],
        );
        self.b.name(limit, "amp_device_loop_limit");
        self.watch = Some(LoopWatch {
            limit,
            pending: 0,
            limited: 0,
            running: 0,
            never: 0,
            lines: Vec::new(),
            covering: 0,
        });
    }

    /// At the start of `main`: clears the pending note, and computes whether the device has
    /// a limit and the opaque `true`.
    pub(super) fn start_loop_watch(&mut self) {
        let Some(limit) = self.watch.as_ref().map(|w| w.limit) else {
            return;
        };
        let (b, u) = (self.scalar_ty(Scalar::Bool), self.scalar_ty(Scalar::U32));
        let pending = self.function_var(u, Some("amp_pending_loop_cut"));
        let zero = self.const_u32(0);
        self.store(pending, zero);
        let limited = self.op(Op::INotEqual, b, &[limit, zero]);
        let extent0 = self.push_member(0);
        let running = self.op(Op::INotEqual, b, &[extent0, zero]);
        let empty = self.op(Op::LogicalNot, b, &[running]);
        let never = self.op(Op::LogicalAnd, b, &[limited, empty]);
        if let Some(w) = self.watch.as_mut() {
            w.pending = pending;
            w.limited = limited;
            w.running = running;
            w.never = never;
        }
    }

    /// A new watched loop's number, or `None` when the loop is not watched: the kernel's
    /// loops are not, or a watched loop around it covers it and its code can end it (`ends`;
    /// `analysis/loops.rs`, [`watches`]).
    pub(super) fn watched_loop(&mut self, line: usize, ends: bool) -> Option<u32> {
        let w = self.watch.as_mut()?;
        if !watches(w.covering > 0, ends) {
            return None;
        }
        let number = w.lines.len() as u32;
        w.lines.push(u32::try_from(line).unwrap_or(0));
        Some(number)
    }

    /// `true`, as a value the driver cannot fold: the launch's domain is never empty while a
    /// thread runs. Keeps a `loop`'s flag loop-carried.
    fn opaque_true(&self) -> Word {
        self.watch.as_ref().map_or(0, |w| w.running)
    }

    /// `OpBranchConditional` to `merge` (a loop's merge block) when the device has a limit and
    /// the domain is empty (never; the driver cannot know that), else to `otherwise`: a way
    /// out of the loop that keeps the driver from proving what the loop's own exit stores.
    fn branch_out_never(&mut self, merge: Word, otherwise: Word) {
        let never = self.watch.as_ref().map_or(0, |w| w.never);
        self.b
            .branch_conditional(never, merge, otherwise, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
    }

    /// After watched loop `number`: a thread whose "go on" flag is still set was taken out of
    /// the loop by the device; the first such loop goes in its pending note.
    pub(super) fn note_loop_cut(&mut self, go: Word, number: u32) {
        let Some((limited, pending)) = self.watch.as_ref().map(|w| (w.limited, w.pending)) else {
            return;
        };
        let (b, u) = (self.scalar_ty(Scalar::Bool), self.scalar_ty(Scalar::U32));
        let still = self.load(b, go);
        let cut = self.op(Op::LogicalAnd, b, &[limited, still]);
        let old = self.load(u, pending);
        let zero = self.const_u32(0);
        let first = self.op(Op::IEqual, b, &[old, zero]);
        let record = self.op(Op::LogicalAnd, b, &[cut, first]);
        let tag = self.const_u32(number + 1);
        let new = self.op(Op::Select, u, &[record, tag, old]);
        self.store(pending, new);
    }

    /// Before `main` returns: sends a pending note to the report's loop word (the first
    /// thread's compare-exchange wins).
    pub(super) fn send_loop_cut(&mut self) {
        let Some(pending) = self.watch.as_ref().map(|w| w.pending) else {
            return;
        };
        let (b, u) = (self.scalar_ty(Scalar::Bool), self.scalar_ty(Scalar::U32));
        let note = self.load(u, pending);
        let zero = self.const_u32(0);
        let cut = self.op(Op::INotEqual, b, &[note, zero]);
        let (send, done) = (self.b.id(), self.b.id());
        let labels = IfLabels {
            merge: done,
            then: Some(send),
            otherwise: None,
        };
        self.structured_if(cut, labels, &[1, 255], |e, _| {
            let zero = e.const_u32(0);
            e.loop_word_atomic(Op::AtomicCompareExchange, &[zero, note, zero]);
        });
    }

    /// Atomic `op` on the report's loop word, at device scope with relaxed semantics, with
    /// `operands` after the scope and semantics (the second semantics of a compare-exchange,
    /// the value, ..).
    fn loop_word_atomic(&mut self, op: Op, operands: &[Word]) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let ptr_u = self.ptr(u, StorageClass::StorageBuffer);
        let (zero, word) = (
            self.const_u32(0),
            self.const_u32(amp_abi::LOOP_CUT_REPORT_WORD),
        );
        let slot = self.access(ptr_u, self.report_var, &[zero, word]);
        let device = self.const_u32(spirv::Scope::Device as u32);
        let args: Vec<Word> = [slot, device, zero]
            .into_iter()
            .chain(operands.iter().copied())
            .collect();
        self.op(op, u, &args)
    }

    /// `while cond { body }` (or `loop { body }` without `cond`) as watched loop `n`; `ends`
    /// when the loop's code can end it.
    ///
    /// A condition without control flow of its own is tested before the loop and again at
    /// the end of every iteration, in the continue block, as a range loop's; one with loops
    /// or `return`s (from inlined device functions) cannot stand in a continue block and is
    /// tested at the top of the body instead ([`Self::watched_test`]), which lavapipe runs
    /// slower around barriers.
    pub(super) fn watched_while(&mut self, cond: Option<&Expr>, body: &Block, ends: bool, n: u32) {
        let at_end = cond.filter(|c| !has_control_flow(c));
        let first = match at_end {
            Some(c) => match self.expr(c) {
                Some(v) => v,
                None => return,
            },
            None => self.const_scalar(Scalar::Bool, Lit::Bool(true)),
        };
        let w = self.watched_open(first, ends);
        let tested = match cond.filter(|_| at_end.is_none()) {
            Some(c) => self.expr(c).map(|v| self.watched_test(&w, v)).is_some(),
            None => true,
        };
        // A condition that left the loop (`while (return) {}`) leaves the body dead.
        if tested {
            self.watched_body(&w, body);
        }
        self.begin(w.cont);
        self.watched_next(&w, |e| at_end.and_then(|c| e.expr(c)));
        self.watched_close(&w, n);
    }

    /// Opens a watched loop whose test, before the loop, gave `first`: declares its flags,
    /// branches into the header, and leaves the builder at the start of the body.
    ///
    /// The header goes on into the body while `more` holds and otherwise leaves, clearing
    /// `go`: the only exit of the loop's code. A failed test and `break` clear `more` and go
    /// round once more, so every end of the loop takes one last back edge; a device that
    /// ended a loop nested inside, out of iterations, ends this one at that back edge too,
    /// with `go` still set.
    pub(super) fn watched_open(&mut self, first: Word, ends: bool) -> WatchedLoop {
        let b = self.scalar_ty(Scalar::Bool);
        let more = self.function_var(b, Some("amp_loop_more"));
        let go = self.function_var(b, Some("amp_loop_go_on"));
        self.store(more, first);
        let t = self.const_scalar(Scalar::Bool, Lit::Bool(true));
        self.store(go, t);
        let (header, merge, cont, body, leave) = (
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
            self.b.id(),
        );
        self.branch(header);
        self.begin(header);
        let m = self.load(b, more);
        self.b
            .loop_merge(merge, cont, spirv::LoopControl::NONE, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .branch_conditional(m, body, leave, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        // The loop's own way out clears `go`, and beside it a way out that never runs keeps
        // `go` as it is, so that the driver cannot prove `go` clear after the loop.
        self.begin(leave);
        let (clear, keep, unreached) = (self.b.id(), self.b.id(), self.b.id());
        let never = self.watch.as_ref().map_or(0, |w| w.never);
        self.b
            .selection_merge(unreached, spirv::SelectionControl::NONE)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .branch_conditional(never, keep, clear, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.begin(keep);
        let zero = self.const_u32(0);
        self.loop_word_atomic(Op::AtomicIAdd, &[zero]);
        self.branch(merge);
        self.begin(clear);
        let f = self.const_scalar(Scalar::Bool, Lit::Bool(false));
        self.store(go, f);
        self.branch(merge);
        self.begin(unreached);
        self.b
            .unreachable()
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.begin(body);
        WatchedLoop {
            header,
            merge,
            cont,
            more,
            go,
            ends,
        }
    }

    /// A watched loop's body: `break` clears `more` and goes to the continue block; loops
    /// inside are covered by this loop's last back edge unless the body can `return`.
    pub(super) fn watched_body(&mut self, w: &WatchedLoop, body: &Block) {
        self.loops.push(super::control::LoopTargets {
            merge: w.merge,
            cont: w.cont,
            more: Some(w.more),
        });
        let covers = covers_inner_loops(body);
        if let Some(watch) = self.watch.as_mut() {
            watch.covering += u32::from(covers);
        }
        self.block(body);
        if let Some(watch) = self.watch.as_mut() {
            watch.covering -= u32::from(covers);
        }
        self.loops.pop();
        if !self.terminated() {
            self.branch(w.cont);
        }
    }

    /// At the start of a watched loop's body, for a test that cannot stand in the continue
    /// block: where `holds` is false, clears `more` and goes to the continue block (round once
    /// more, out at the header).
    pub(super) fn watched_test(&mut self, w: &WatchedLoop, holds: Word) {
        let (rest, fail) = (self.b.id(), self.b.id());
        self.b
            .selection_merge(rest, spirv::SelectionControl::NONE)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .branch_conditional(holds, rest, fail, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.begin(fail);
        let f = self.const_scalar(Scalar::Bool, Lit::Bool(false));
        self.store(w.more, f);
        self.branch(w.cont);
        self.begin(rest);
    }

    /// In the continue block: `more` becomes the `next` test, if there is one (evaluated
    /// only while `more` holds: a `break` or a failed test skips it), and `go` is stored again
    /// as a value of this iteration, which keeps it a value the loop carries rather than one
    /// the driver can follow.
    pub(super) fn watched_next(
        &mut self,
        w: &WatchedLoop,
        next: impl FnOnce(&mut Self) -> Option<Word>,
    ) {
        let b = self.scalar_ty(Scalar::Bool);
        let m = self.load(b, w.more);
        let (test, done) = (self.b.id(), self.b.id());
        let labels = IfLabels {
            merge: done,
            then: Some(test),
            otherwise: None,
        };
        let more = w.more;
        let mut next = Some(next);
        self.structured_if(m, labels, &[], |e, _| {
            if let Some(v) = next.take().and_then(|f| f(e)) {
                e.store(more, v);
            }
        });
        let g = self.load(b, w.go);
        let running = self.opaque_true();
        let g = self.op(Op::LogicalAnd, b, &[g, running]);
        self.store(w.go, g);
    }

    /// Ends a watched loop's continue block with its back edge, and notes a cut after it.
    pub(super) fn watched_close(&mut self, w: &WatchedLoop, n: u32) {
        if w.ends {
            self.branch(w.header);
        } else {
            // A `loop` only a cut can end: its way out above is dead code to the driver, which
            // would then drop all that follows the loop; this one, at every back edge, is not.
            self.branch_out_never(w.merge, w.header);
        }
        self.begin(w.merge);
        self.note_loop_cut(w.go, n);
    }
}

/// The labels and flags of a watched loop (`Emitter::watched_open`).
pub(super) struct WatchedLoop {
    header: Word,
    pub(super) merge: Word,
    pub(super) cont: Word,
    /// The loop's own test: go into the body again.
    pub(super) more: Word,
    /// Cleared only where the loop's code leaves it: still set after the loop, the device
    /// ended it.
    go: Word,
    /// Whether the loop's code can end it (a `loop` without `break` cannot).
    ends: bool,
}

/// Whether a loop condition has control flow a continue block cannot hold: loops, or the
/// `return`s, `break`s and `continue`s of inlined device functions.
fn has_control_flow(cond: &Expr) -> bool {
    any_expr(cond, |e| match e.kind {
        ExprKind::While(..)
        | ExprKind::Loop(_)
        | ExprKind::For(_)
        | ExprKind::Return
        | ExprKind::Break
        | ExprKind::Continue => Probe::Hit,
        _ => Probe::Descend,
    })
}
