//! Watched loops: the lowering that lets a kernel tell a loop it ended from one the device
//! ended by itself (lavapipe leaves whichever loop is running after 65,535 iterations of a
//! group of threads, with no error; see `analysis/loops.rs`).
//!
//! A watched loop keeps "go on" in a `bool` variable that only the loop's own code writes:
//! set before the loop from the first test, at the end of every iteration from the next test,
//! and to `false` by `break`; the header branches on it. Only a thread the device took out of
//! the loop leaves with it still `true`, and after the loop that thread notes the loop's number
//! in a pending word, sent to the report when the thread ends (one atomic per thread, as the
//! out-of-bounds report). Two details keep the driver from proving the flag `false` after the
//! loop (it cannot see its own limit): the test sits at the end of the iteration, where the
//! flag is a loop-carried value rather than a value of the header, and the back edge may also
//! leave the loop when the launch's domain is empty, which a running thread never sees. Both
//! the note and that exit are under the specialization constant holding the device's limit,
//! which is 0 on devices without one: there the driver folds them away.

use super::control::IfLabels;
use super::{Emitter, OrInternal};
use crate::analysis::loops::{covers_inner_loops, watches, Trips};
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
    /// The source line of each watched loop, by number.
    pub(super) lines: Vec<u32>,
    /// How many watched loops around the current point confirm the end of literal loops
    /// inside them.
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
        if let Some(w) = self.watch.as_mut() {
            w.pending = pending;
            w.limited = limited;
            w.running = running;
        }
    }

    /// Whether the device has a loop limit (a specialization-constant test the driver folds).
    fn device_limits_loops(&self) -> Option<Word> {
        self.watch.as_ref().map(|w| w.limited)
    }

    /// A new watched loop's number, or `None` when the loop is not watched: the kernel's
    /// loops are not, or `trips` is literal and a watched loop around it confirms its end
    /// (`analysis/loops.rs`, [`watches`]).
    pub(super) fn watched_loop(&mut self, line: usize, trips: Trips) -> Option<u32> {
        let w = self.watch.as_mut()?;
        if !watches(trips, w.covering > 0) {
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

    /// Ends an iteration: back to `header`, or, in a watched loop on a device with a limit,
    /// out to `merge` when the domain is empty (never; the driver cannot know that).
    pub(super) fn back_edge(&mut self, header: Word, merge: Word, watched: bool) {
        let limited = if watched {
            self.device_limits_loops()
        } else {
            None
        };
        let Some(limited) = limited else {
            self.branch(header);
            return;
        };
        let b = self.scalar_ty(Scalar::Bool);
        let running = self.opaque_true();
        let empty = self.op(Op::LogicalNot, b, &[running]);
        let never = self.op(Op::LogicalAnd, b, &[limited, empty]);
        self.b
            .branch_conditional(never, merge, header, [])
            .or_internal(&mut self.internal, "open");
    }

    /// After watched loop `number`: a thread whose "go on" flag is still set was taken out of
    /// the loop by the device; the first such loop goes in its pending note.
    pub(super) fn note_loop_cut(&mut self, go: Word, number: u32) {
        let (Some(limited), Some(pending)) = (
            self.device_limits_loops(),
            self.watch.as_ref().map(|w| w.pending),
        ) else {
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
        let var = self.report_var;
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
            let ptr_u = e.ptr(u, StorageClass::StorageBuffer);
            let word = e.const_u32(amp_abi::LOOP_CUT_REPORT_WORD);
            let zero = e.const_u32(0);
            let slot = e.access(ptr_u, var, &[zero, word]);
            let device = e.const_u32(spirv::Scope::Device as u32);
            e.op(
                Op::AtomicCompareExchange,
                u,
                &[slot, device, zero, zero, note, zero],
            );
        });
    }

    /// `while cond { body }` (or `loop { body }` without `cond`) as watched loop `n`.
    pub(super) fn watched_while(&mut self, cond: Option<&Expr>, body: &Block, n: u32) {
        let first = match cond {
            Some(c) => match self.expr(c) {
                Some(v) => v,
                // The condition left the loop (`while (return) {}`): no loop follows.
                None => return,
            },
            None => self.const_scalar(Scalar::Bool, Lit::Bool(true)),
        };
        let w = self.watched_open(first);
        self.watched_body(&w, body);
        self.begin(w.cont);
        self.watched_next(&w, |e| match cond {
            Some(c) => e.expr(c),
            None => Some(e.const_scalar(Scalar::Bool, Lit::Bool(true))),
        });
        self.watched_close(&w, n);
    }

    /// Opens a watched loop whose first test gave `first`: declares its flags, branches into
    /// the header, and leaves the builder at the start of the body.
    ///
    /// The header goes on into the body while `more` (the loop's own test) holds and
    /// otherwise leaves, clearing `go`: the only exit of the loop's code. `break` clears
    /// `more` and goes round once more, so every end of the loop takes one last back edge; a
    /// device that ended a literal loop nested inside, out of iterations, ends this one at
    /// that back edge too, with `go` still set.
    pub(super) fn watched_open(&mut self, first: Word) -> WatchedLoop {
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
            .or_internal(&mut self.internal, "open");
        self.b
            .branch_conditional(m, body, leave, [])
            .or_internal(&mut self.internal, "open");
        self.begin(leave);
        let f = self.const_scalar(Scalar::Bool, Lit::Bool(false));
        self.store(go, f);
        self.branch(merge);
        self.begin(body);
        WatchedLoop {
            header,
            merge,
            cont,
            more,
            go,
        }
    }

    /// A watched loop's body: `break` clears `more` and goes to the continue block; literal
    /// loops inside are covered by this loop's last back edge unless the body can `return`.
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

    /// In the continue block: `more` becomes the next test (evaluated only while `more`
    /// holds: a `break` skips it), and `go` is stored again as a value of this iteration.
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
        self.back_edge(w.header, w.merge, true);
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
}
