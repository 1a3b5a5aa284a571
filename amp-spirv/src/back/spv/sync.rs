//! Barriers and fences: `OpControlBarrier` for `t.barrier.wait*()`, and `OpMemoryBarrier` (or,
//! where the device needs it, an atomic addition) for the fences that do not wait.

use super::{Emitter, IfLabels, OrInternal};
use crate::back::spv::Invariant;
use crate::ir::Fence;
use crate::types::{Scalar, Ty};
use rspirv::spirv::{self, Op};

/// The memory scope and semantics of a fence: `tile_static` memory is the tile's (`Workgroup`),
/// views and arrays are device memory (`Uniform` memory class, `Device` scope).
fn fence_scope(fence: Fence) -> (spirv::Scope, spirv::MemorySemantics) {
    use spirv::MemorySemantics as M;
    match fence {
        Fence::TileStatic => (
            spirv::Scope::Workgroup,
            M::ACQUIRE_RELEASE | M::WORKGROUP_MEMORY,
        ),
        Fence::Global => (spirv::Scope::Device, M::ACQUIRE_RELEASE | M::UNIFORM_MEMORY),
        Fence::All => (
            spirv::Scope::Device,
            M::ACQUIRE_RELEASE | M::UNIFORM_MEMORY | M::WORKGROUP_MEMORY,
        ),
    }
}

impl Emitter<'_> {
    /// `OpControlBarrier` for `t.barrier.wait*()`: every thread of the tile waits, and the
    /// fenced memory's writes before the barrier are visible to the tile after it.
    pub(super) fn barrier(&mut self, fence: Fence) {
        let (memory_scope, semantics) = fence_scope(fence);
        let exec = self.const_u32(spirv::Scope::Workgroup as u32);
        let mem = self.const_u32(memory_scope as u32);
        let sem = self.const_u32(semantics.bits());
        self.b
            .control_barrier(exec, mem, sem)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
    }

    /// `OpMemoryBarrier` for `*_memory_fence(t.barrier)`: orders this thread's accesses.
    ///
    /// Both forms are emitted under a selection on the `FENCES_AS_ATOMICS` specialization
    /// constant, which the driver folds: where the runtime sets it (lavapipe), the fence is an
    /// atomic addition of 0 to a word of the tile's memory. That device's atomics are
    /// sequentially consistent, so the addition orders this thread's accesses as the fence
    /// does, and its own `OpMemoryBarrier` inside a loop entered by part of a tile ends the
    /// invocations that reach it ([`amp_abi::spec_id::FENCES_AS_ATOMICS`]).
    pub(super) fn memory_fence(&mut self, fence: Fence) {
        let (as_atomic, word) = match self.atomic_fence {
            Some(ids) => ids,
            None => {
                let spec = self.bool_spec_constant(
                    amp_abi::spec_id::FENCES_AS_ATOMICS,
                    "amp_fences_as_atomics",
                );
                let word = self.workgroup_var(&Ty::Scalar(Scalar::U32), "amp_fence_word");
                self.atomic_fence = Some((spec, word));
                (spec, word)
            }
        };
        let labels = IfLabels {
            merge: self.b.id(),
            then: Some(self.b.id()),
            otherwise: Some(self.b.id()),
        };
        self.structured_if(as_atomic, labels, &[], |e, atomic| {
            if atomic {
                let u = e.scalar_ty(Scalar::U32);
                let scope = e.const_u32(spirv::Scope::Workgroup as u32);
                let relaxed = e.const_u32(0);
                let zero = e.const_u32(0);
                e.op(Op::AtomicIAdd, u, &[word, scope, relaxed, zero]);
            } else {
                let (memory_scope, semantics) = fence_scope(fence);
                let mem = e.const_u32(memory_scope as u32);
                let sem = e.const_u32(semantics.bits());
                e.b.memory_barrier(mem, sem)
                    .or_internal(&mut e.internal, Invariant::BlockOpen);
            }
        });
    }
}
