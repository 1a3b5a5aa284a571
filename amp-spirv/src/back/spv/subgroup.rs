//! Subgroup operations: Vulkan 1.1's `GroupNonUniform*` instructions at `Subgroup` scope, and
//! the built-in inputs behind `size()`, `lane()`, `index()` and `count()`.
//!
//! Every operation that combines lanes is reached by every thread of the tile (rule
//! `subgroup-uniformity`), so all of a subgroup's invocations are active at it; the results
//! are those docs/kernel-language.md defines, the same on the native accelerator:
//!
//! - a lane operand (`broadcast`, `shuffle`) and a `shuffle_xor` mask are taken modulo the
//!   subgroup size (which is a power of two), as CUDA's `__shfl_sync` does, so they always
//!   name a lane of the subgroup;
//! - float `min` and `max` combine from their identity (`+inf`, `-inf`) and pass over NaNs,
//!   as `f32::min` does; where every value combined is NaN, SPIR-V leaves the result undefined,
//!   so a count of the non-NaN values chooses the identity there.

use super::{Emitter, OrInternal};
use crate::back::spv::Invariant;
use crate::ir::*;
use crate::types::{Scalar, Ty};
use rspirv::dr::{self, Builder, Operand};
use rspirv::spirv::{self, Capability, GroupOperation, StorageClass, Word};

/// The built-in inputs of the subgroup: (operation, built-in, name).
const INPUTS: [(SubgroupOp, spirv::BuiltIn, &str); 4] = [
    (
        SubgroupOp::Size,
        spirv::BuiltIn::SubgroupSize,
        "gl_SubgroupSize",
    ),
    (
        SubgroupOp::Lane,
        spirv::BuiltIn::SubgroupLocalInvocationId,
        "gl_SubgroupInvocationID",
    ),
    (
        SubgroupOp::Index,
        spirv::BuiltIn::SubgroupId,
        "gl_SubgroupID",
    ),
    (
        SubgroupOp::Count,
        spirv::BuiltIn::NumSubgroups,
        "gl_NumSubgroups",
    ),
];

/// A `GroupNonUniform*` arithmetic instruction of `rspirv`'s builder: (result type, result
/// id, scope, operation, value, cluster size).
type GroupArith = fn(
    &mut Builder,
    Word,
    Option<Word>,
    Word,
    GroupOperation,
    Word,
    Option<Word>,
) -> Result<Word, dr::Error>;

/// Whether the kernel reads the built-in input of `op`: the size is also read by the
/// operations that take a lane or a mask.
fn uses(k: &Kernel, op: SubgroupOp) -> bool {
    struct Search(SubgroupOp, bool);
    impl<'a> Visitor<'a> for Search {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let ExprKind::Subgroup(o, _) = &expr.kind {
                let reads_size = matches!(
                    o,
                    SubgroupOp::Broadcast | SubgroupOp::Shuffle | SubgroupOp::ShuffleXor
                );
                self.1 |= *o == self.0 || (self.0 == SubgroupOp::Size && reads_size);
            }
            walk_expr(self, expr);
        }
    }
    let mut search = Search(op, false);
    search.visit_block(&k.body);
    search.1
}

impl Emitter<'_> {
    /// Declares the subgroup built-ins the kernel reads (before `main` opens); their variables
    /// belong in the entry point's interface.
    pub(super) fn declare_subgroup_inputs(&mut self) -> Vec<Word> {
        let mut interface = Vec::new();
        for (op, builtin, name) in INPUTS {
            if !uses(self.k, op) {
                continue;
            }
            let u = self.scalar_ty(Scalar::U32);
            let ptr = self.ptr(u, StorageClass::Input);
            let var = self.b.variable(ptr, None, StorageClass::Input, None);
            self.b
                .decorate(var, spirv::Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
            self.b.name(var, name);
            self.subgroup_inputs.push((op, var));
            interface.push(var);
        }
        if !interface.is_empty() {
            self.require(Capability::GroupNonUniform);
        }
        interface
    }

    /// The variable of the built-in input `op` reads, if the kernel declared it.
    fn subgroup_input(&self, op: SubgroupOp) -> Option<Word> {
        self.subgroup_inputs
            .iter()
            .find(|(o, _)| *o == op)
            .map(|&(_, var)| var)
    }

    /// Declares `capability` once (at the end of emission).
    fn require(&mut self, capability: Capability) {
        if !self.capabilities.contains(&capability) {
            self.capabilities.push(capability);
        }
    }

    /// A subgroup operation `op` of type `ty` on `args`.
    pub(super) fn subgroup(&mut self, op: SubgroupOp, args: &[Expr], ty: &Ty) -> Option<Word> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        if let Some(var) = self.subgroup_input(op) {
            let u = self.scalar_ty(Scalar::U32);
            return Some(self.load(u, var));
        }
        self.require(Capability::GroupNonUniform);
        let scope = self.const_u32(spirv::Scope::Subgroup as u32);
        let t = self.ty(ty);
        let value = vals.first().copied().unwrap_or(0);
        let operand_scalar = args.first().and_then(|a| a.ty.scalar());
        let result = match op {
            SubgroupOp::Size | SubgroupOp::Lane | SubgroupOp::Index | SubgroupOp::Count => {
                return self.broken(Invariant::SubgroupInputs);
            }
            SubgroupOp::Elect => self.b.group_non_uniform_elect(t, None, scope),
            SubgroupOp::All => {
                self.require(Capability::GroupNonUniformVote);
                self.b.group_non_uniform_all(t, None, scope, value)
            }
            SubgroupOp::Any => {
                self.require(Capability::GroupNonUniformVote);
                self.b.group_non_uniform_any(t, None, scope, value)
            }
            SubgroupOp::Ballot => {
                self.require(Capability::GroupNonUniformBallot);
                self.b.group_non_uniform_ballot(t, None, scope, value)
            }
            SubgroupOp::CountTrue | SubgroupOp::ExclusiveCountTrue => {
                self.require(Capability::GroupNonUniformBallot);
                let u4 = self.ty(&Ty::Vector(Scalar::U32, 4));
                let ballot = self
                    .b
                    .group_non_uniform_ballot(u4, None, scope, value)
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                let operation = match op {
                    SubgroupOp::CountTrue => GroupOperation::Reduce,
                    _ => GroupOperation::ExclusiveScan,
                };
                self.b
                    .group_non_uniform_ballot_bit_count(t, None, scope, operation, ballot)
            }
            SubgroupOp::BroadcastFirst => {
                self.require(Capability::GroupNonUniformBallot);
                self.b
                    .group_non_uniform_broadcast_first(t, None, scope, value)
            }
            SubgroupOp::Broadcast | SubgroupOp::Shuffle | SubgroupOp::ShuffleXor => {
                self.require(Capability::GroupNonUniformShuffle);
                let lane = self.modulo_size(vals[1]);
                match op {
                    SubgroupOp::ShuffleXor => self
                        .b
                        .group_non_uniform_shuffle_xor(t, None, scope, value, lane),
                    _ => self
                        .b
                        .group_non_uniform_shuffle(t, None, scope, value, lane),
                }
            }
            SubgroupOp::Reduce(g) | SubgroupOp::InclusiveScan(g) | SubgroupOp::ExclusiveScan(g) => {
                self.require(Capability::GroupNonUniformArithmetic);
                let operation = match op {
                    SubgroupOp::Reduce(_) => GroupOperation::Reduce,
                    SubgroupOp::InclusiveScan(_) => GroupOperation::InclusiveScan,
                    _ => GroupOperation::ExclusiveScan,
                };
                let s = operand_scalar.unwrap_or(Scalar::I32);
                let Some(inst) = arithmetic(g, s) else {
                    return self.broken(Invariant::CheckedType);
                };
                let value = if s.is_float() && matches!(g, GroupOp::Min | GroupOp::Max) {
                    self.identity_for_nan(g, s, value)
                } else {
                    value
                };
                inst(&mut self.b, t, None, scope, operation, value, None)
            }
        };
        Some(result.or_internal(&mut self.internal, Invariant::BlockOpen))
    }

    /// `lane % gl_SubgroupSize` (the size is a power of two).
    fn modulo_size(&mut self, lane: Word) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let Some(var) = self.subgroup_input(SubgroupOp::Size) else {
            return self.broken(Invariant::SubgroupInputs);
        };
        let size = self.load(u, var);
        let one = self.const_u32(1);
        let mask = self
            .b
            .i_sub(u, None, size, one)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .bitwise_and(u, None, lane, mask)
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    /// `value`, or the identity of `g` (`+inf` for min, `-inf` for max) where it is NaN:
    /// Rust's `f32::min` and `max` pass over NaN, and a combination of NaNs alone is the
    /// identity. The device's `OpGroupNonUniformFMin` and `FMax` need not pass over NaN
    /// (NVIDIA's return it), so no NaN reaches them.
    fn identity_for_nan(&mut self, g: GroupOp, s: Scalar, value: Word) -> Word {
        let b = self.scalar_ty(Scalar::Bool);
        let t = self.scalar_ty(s);
        let nan = self
            .b
            .is_nan(b, None, value)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let inf = match g {
            GroupOp::Min => f64::INFINITY,
            _ => f64::NEG_INFINITY,
        };
        let identity = self.const_scalar(s, Lit::Float(inf, inf as f32));
        self.b
            .select(t, None, nan, identity, value)
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }
}

/// The instruction combining values of scalar type `s` with `g`.
fn arithmetic(g: GroupOp, s: Scalar) -> Option<GroupArith> {
    let float = s.is_float();
    let signed = s == Scalar::I32;
    let boolean = s == Scalar::Bool;
    Some(match g {
        GroupOp::Add if float => Builder::group_non_uniform_f_add,
        GroupOp::Add if !boolean => Builder::group_non_uniform_i_add,
        GroupOp::Min if float => Builder::group_non_uniform_f_min,
        GroupOp::Min if signed => Builder::group_non_uniform_s_min,
        GroupOp::Min if !boolean => Builder::group_non_uniform_u_min,
        GroupOp::Max if float => Builder::group_non_uniform_f_max,
        GroupOp::Max if signed => Builder::group_non_uniform_s_max,
        GroupOp::Max if !boolean => Builder::group_non_uniform_u_max,
        GroupOp::And if boolean => Builder::group_non_uniform_logical_and,
        GroupOp::Or if boolean => Builder::group_non_uniform_logical_or,
        GroupOp::Xor if boolean => Builder::group_non_uniform_logical_xor,
        GroupOp::And if !float => Builder::group_non_uniform_bitwise_and,
        GroupOp::Or if !float => Builder::group_non_uniform_bitwise_or,
        GroupOp::Xor if !float => Builder::group_non_uniform_bitwise_xor,
        _ => return None,
    })
}
