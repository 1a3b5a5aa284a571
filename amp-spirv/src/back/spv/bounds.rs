//! Bounds checks on buffer accesses, and the out-of-bounds report: each thread keeps its first
//! failing access in a pending report and sends it to the report buffer as it ends.

use super::Emitter;
use super::IfLabels;
use super::OrInternal;
use crate::back::plan::IndexCheck;
use crate::back::spv::Invariant;
use crate::ir::*;
use crate::types::Scalar;
use rspirv::spirv::{self, Op, StorageClass, Word};

/// Words of a thread's pending report: the failing parameter plus one (0: none), then the
/// failing index, padded to three components.
pub(super) const PENDING_REPORT_WORDS: u32 = 4;

/// The out-of-bounds report of a checked kernel: its storage buffer (the kernel's report) and
/// the function that records a failing access in it (emitted after `main`, once something
/// calls it).
pub(super) struct OobReport {
    pub(super) var: Word,
    pub(super) record: Word,
    /// The thread's own pending report, [`PENDING_REPORT_WORDS`] `u32` `Function` variables
    /// (the tag first), written by failing accesses and sent to the buffer when the thread
    /// ends. Separate scalars rather than an array: drivers keep those in registers, where a
    /// private array may live in memory.
    pub(super) pending: [Word; PENDING_REPORT_WORDS as usize],
}

/// Where an access goes, its index expressions already evaluated.
pub(super) enum Target {
    /// A pointer that needs no check: a local or `tile_static` element (indices clamped), or a
    /// buffer element in an unchecked kernel.
    Ptr(Word),
    /// A buffer element to check against the buffer's extent before it is touched, each index
    /// component as its [`IndexCheck`] says.
    Checked {
        param: ParamId,
        index: Vec<Word>,
        checks: Vec<IndexCheck>,
    },
}

impl Emitter<'_> {
    /// Evaluates a buffer access's index components (in order); in an unchecked kernel, or when
    /// the range analysis proves every component below the buffer's extent, also forms the
    /// element's pointer.
    pub(super) fn buffer_target(&mut self, p: ParamId, idx: &[Expr]) -> Option<Target> {
        // A lane of the quad form: the view's element is the lane's variable, and the quad
        // holds it (`quads.rs`); its index is the thread's own, which has no side effects.
        if let Some(&elem) = self.lane_elems.get(&p) {
            return Some(Target::Ptr(elem));
        }
        let mut index = Vec::with_capacity(idx.len());
        for i in idx {
            index.push(self.expr(i)?);
        }
        let checks = match self.plan.buffer_checks(self.k.rank, p, idx) {
            Some(checks) if self.oob.is_some() => checks,
            _ => return Some(Target::Ptr(self.buffer_element_ptr(p, &index))),
        };
        Some(Target::Checked {
            param: p,
            index,
            checks,
        })
    }

    /// The target of an assignment or atomic.
    pub(super) fn target(&mut self, place: &Place) -> Option<Target> {
        match place {
            Place::Local(id, idx) => Some(Target::Ptr(self.local_ptr(*id, idx)?)),
            Place::Buffer(p, idx) => self.buffer_target(*p, idx),
        }
    }

    /// Emits `access` on the target's pointer. A checked buffer element is accessed only when
    /// every index component is below the buffer's extent (as `u32`, so a negative `i32` index
    /// cast to `usize` fails too); otherwise the access is recorded in the out-of-bounds report
    /// and skipped, and the value (of type `result`, if any) is zero. The check is one
    /// structured selection with no barrier inside, so uniformity is unaffected.
    pub(super) fn access_target(
        &mut self,
        target: Target,
        result: Option<Word>,
        access: impl FnOnce(&mut Self, Word) -> Option<Word>,
    ) -> Option<Word> {
        let (param, index, checks) = match target {
            Target::Ptr(ptr) => return access(self, ptr),
            Target::Checked {
                param,
                index,
                checks,
            } => (param, index, checks),
        };
        let extent = self.buffer_extent(param);
        let inside = self.in_bounds(param, &index, &extent, &checks);
        self.record_out_of_bounds(param, &index, inside);
        let skipped_end = self.label;
        let (accessed, merge) = (self.b.id(), self.b.id());
        let labels = IfLabels {
            merge,
            then: Some(accessed),
            otherwise: None,
        };
        let mut access = Some(access);
        // Branch weights: the in-bounds path is the likely one.
        let Some(arm) = self
            .structured_if(inside, labels, &[255, 1], |e, _| {
                let ptr = e.buffer_element_ptr(param, &index);
                match access.take() {
                    Some(access) => access(e, ptr),
                    None => e.broken(Invariant::IfArm),
                }
            })
            .only_arm()
        else {
            return self.broken(Invariant::IfArm);
        };
        let (value, accessed_end, t) = (arm.value?, arm.end?, result?);
        let zero = self.b.constant_null(t);
        Some(
            self.b
                .phi(t, None, [(value, accessed_end), (zero, skipped_end)])
                .or_internal(&mut self.internal, Invariant::BlockOpen),
        )
    }

    /// Whether every component of `index` is below `extent`: one unsigned compare per
    /// dimension not proven in range (or-ed with "the buffer covers the domain" where that
    /// suffices), and-ed together (at least one is not proven).
    pub(super) fn in_bounds(
        &mut self,
        p: ParamId,
        index: &[Word],
        extent: &[Word],
        checks: &[IndexCheck],
    ) -> Word {
        let b = self.scalar_ty(Scalar::Bool);
        let mut all: Option<Word> = None;
        for ((&i, &e), &check) in index
            .iter()
            .zip(extent)
            .zip(checks)
            .filter(|(_, &c)| c != IndexCheck::Proven)
        {
            let mut fits = self.op(Op::ULessThan, b, &[i, e]);
            if check == IndexCheck::Covered {
                let covers = self.layout_fact(p, crate::layout_fact::COVERS_DOMAIN);
                fits = self.op(Op::LogicalOr, b, &[covers, fits]);
            }
            all = Some(match all {
                None => fits,
                Some(prev) => self.op(Op::LogicalAnd, b, &[prev, fits]),
            });
        }
        all.or_internal(&mut self.internal, Invariant::CheckedComponent)
    }

    /// Notes a failed access (where `inside` is false) in the thread's pending report: the
    /// parameter plus one, and the index. Straight-line selects, no branch: SIMD drivers such
    /// as lavapipe run both sides of a divergent branch under a mask, so a branch around the
    /// recording would cost every access anyway. The rank and the extent follow from the
    /// parameter when the report is sent ([`Self::return_from_main`]), where the atomic that
    /// publishes it runs once per thread.
    pub(super) fn record_out_of_bounds(&mut self, p: ParamId, index: &[Word], inside: Word) {
        let pending = self
            .oob
            .as_ref()
            .map(|o| o.pending)
            .or_internal(&mut self.internal, Invariant::ReportDeclared);
        let u = self.scalar_ty(Scalar::U32);
        let words = std::iter::once(self.const_u32(p as u32 + 1)).chain(index.iter().copied());
        for (ptr, w) in pending.into_iter().zip(words.collect::<Vec<_>>()) {
            let old = self.load(u, ptr);
            let new = self.op(Op::Select, u, &[inside, old, w]);
            self.store(ptr, new);
        }
    }

    /// The thread's pending report, its tag cleared at the start of `main`.
    pub(super) fn declare_pending_report(&mut self) {
        if self.oob.is_none() {
            return;
        }
        let u = self.scalar_ty(Scalar::U32);
        let names = [
            "amp_pending_out_of_bounds_tag",
            "amp_pending_out_of_bounds_i0",
            "amp_pending_out_of_bounds_i1",
            "amp_pending_out_of_bounds_i2",
        ];
        let pending = names.map(|n| self.function_var(u, Some(n)));
        let zero = self.const_u32(0);
        self.store(pending[0], zero);
        if let Some(oob) = self.oob.as_mut() {
            oob.pending = pending;
        }
    }

    /// `OpReturn` from `main`, sending the thread's pending out-of-bounds report (if any) to the
    /// report buffer first: one branch per thread instead of an atomic behind every access.
    pub(super) fn return_from_main(&mut self) {
        self.send_loop_cut();
        if let Some(OobReport {
            pending, record, ..
        }) = self.oob
        {
            let u = self.scalar_ty(Scalar::U32);
            let b = self.scalar_ty(Scalar::Bool);
            let zero = self.const_u32(0);
            let flag = self.load(u, pending[0]);
            let failed = self.op(Op::INotEqual, b, &[flag, zero]);
            let (send, done) = (self.b.id(), self.b.id());
            let labels = IfLabels {
                merge: done,
                then: Some(send),
                otherwise: None,
            };
            self.structured_if(failed, labels, &[1, 255], |e, _| {
                let args = e.pending_report_details(flag);
                let void = e.b.type_void();
                e.b.function_call(void, None, record, args)
                    .or_internal(&mut e.internal, Invariant::BlockOpen);
            });
        }
        self.b
            .ret()
            .or_internal(&mut self.internal, Invariant::BlockOpen);
    }

    /// The eight detail words of the report (param, rank, index[3], extent[3]) from the pending
    /// report whose first word is `tag` (the failing parameter plus one): the rank and extent
    /// are the parameter's, chosen by a select per buffer parameter; index components past the
    /// rank are 0.
    fn pending_report_details(&mut self, tag: Word) -> Vec<Word> {
        let u = self.scalar_ty(Scalar::U32);
        let b = self.scalar_ty(Scalar::Bool);
        let pending = self
            .oob
            .as_ref()
            .map(|o| o.pending)
            .or_internal(&mut self.internal, Invariant::ReportDeclared);
        let (zero, one) = (self.const_u32(0), self.const_u32(1));
        let param = self.op(Op::ISub, u, &[tag, one]);
        let (mut rank, mut extent) = (zero, [zero; 3]);
        for (q, p) in self.k.params.iter().enumerate() {
            let (r, texture) = match p.kind {
                ParamKind::Buffer { rank, .. } => (rank, false),
                ParamKind::Texture { rank, .. } => (rank, true),
                _ => continue,
            };
            let q_id = self.const_u32(q as u32);
            let is_q = self.op(Op::IEqual, b, &[param, q_id]);
            let r_id = self.const_u32(r);
            rank = self.op(Op::Select, u, &[is_q, r_id, rank]);
            let extent_q = if texture {
                self.texture_extent(q)
            } else {
                self.buffer_extent(q)
            };
            for (d, e) in extent_q.into_iter().enumerate().take(3) {
                extent[d] = self.op(Op::Select, u, &[is_q, e, extent[d]]);
            }
        }
        let index: Vec<Word> = (0..3u32)
            .map(|d| {
                let word = self.load(u, pending[d as usize + 1]);
                let d_id = self.const_u32(d);
                let used = self.op(Op::ULessThan, b, &[d_id, rank]);
                self.op(Op::Select, u, &[used, word, zero])
            })
            .collect();
        let mut args = vec![param, rank];
        args.extend(index);
        args.extend(extent);
        args
    }

    /// Emits `void amp_record_out_of_bounds(param, rank, i0, i1, i2, e0, e1, e2)`, which a
    /// thread with a pending report calls as it ends: the thread whose compare-exchange moves
    /// the buffer's flag from 0 to 1 writes the other eight words; later ones change nothing.
    pub(super) fn record_out_of_bounds_function(&mut self) {
        let Some(OobReport { var, record, .. }) = self.oob else {
            return;
        };
        let u = self.scalar_ty(Scalar::U32);
        let void = self.b.type_void();
        let fn_ty = self.b.type_function(void, vec![u; 8]);
        self.b
            .begin_function(void, Some(record), spirv::FunctionControl::NONE, fn_ty)
            .or_internal(&mut self.internal, Invariant::MainClosed);
        self.b.name(record, "amp_record_out_of_bounds");
        let details: Vec<Word> = (0..8)
            .map(|_| {
                self.b
                    .function_parameter(u)
                    .or_internal(&mut self.internal, Invariant::FunctionOpen)
            })
            .collect();
        let entry = self.b.id();
        self.begin(entry);
        let ptr_u = self.ptr(u, StorageClass::StorageBuffer);
        let (zero, one) = (self.const_u32(0), self.const_u32(1));
        let flag = self.access(ptr_u, var, &[zero, zero]);
        let device = self.const_u32(spirv::Scope::Device as u32);
        let old = self.op(
            Op::AtomicCompareExchange,
            u,
            &[flag, device, zero, zero, one, zero],
        );
        let b = self.scalar_ty(Scalar::Bool);
        let first = self.op(Op::IEqual, b, &[old, zero]);
        let (write, done) = (self.b.id(), self.b.id());
        let labels = IfLabels {
            merge: done,
            then: Some(write),
            otherwise: None,
        };
        self.structured_if(first, labels, &[], |e, _| {
            for (k, &value) in details.iter().enumerate() {
                let slot = e.const_u32(k as u32 + 1);
                let ptr = e.access(ptr_u, var, &[zero, slot]);
                e.store(ptr, value);
            }
        });
        self.return_and_end_function();
    }

    /// A checked read without a branch around it, so the hot path stays straight-line code
    /// that drivers vectorise: an out-of-bounds index reads the view's first element instead
    /// (always inside the buffer: extents are at least 1) and the value is replaced by zero;
    /// only the recording of the failure sits behind a (rarely taken) branch.
    pub(super) fn checked_load(
        &mut self,
        p: ParamId,
        index: &[Word],
        checks: &[IndexCheck],
        s: Scalar,
    ) -> Word {
        let extent = self.buffer_extent(p);
        let inside = self.in_bounds(p, index, &extent, checks);
        let (linear, offset) = self.buffer_linear(p, index);
        let u = self.scalar_ty(Scalar::U32);
        let safe = self.op(Op::Select, u, &[inside, linear, offset]);
        let ptr = self.buffer_ptr_at(p, safe);
        let t = self.scalar_ty(s);
        let loaded = self.load_buffer_elem(&crate::types::Ty::Scalar(s), ptr);
        let zero = if s == Scalar::Bool {
            self.const_scalar(s, Lit::Bool(false))
        } else {
            self.constant(t, 0, s == Scalar::F64)
        };
        let value = self.op(Op::Select, t, &[inside, loaded, zero]);
        self.record_out_of_bounds(p, index, inside);
        value
    }
}
