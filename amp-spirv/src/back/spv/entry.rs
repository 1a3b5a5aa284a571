//! The entry point: `main` with its locals, the prologue that turns the invocation ids into
//! the kernel's index (and leaves threads outside the domain), the body, and the epilogue.

use super::IfLabels;
use super::OrInternal;
use super::{has_storage, Emitter, SIMPLE_WORKGROUP_SIZE};
use crate::back::spv::Invariant;
use crate::ir::*;
use crate::types::Scalar;
use rspirv::spirv::{self, Op, StorageClass, Word};

impl Emitter<'_> {
    pub(super) fn kernel(&mut self) {
        self.declare_spec_constants();
        self.declare_buffers();
        self.declare_textures();
        self.declare_push_constants();
        let tiled = self.k.tiled.is_some();
        let subgroup_inputs = self.declare_subgroup_inputs();
        let interface: Vec<Word> = if tiled {
            vec![
                self.builtin_input(spirv::BuiltIn::LocalInvocationId, "gl_LocalInvocationID"),
                self.builtin_input(spirv::BuiltIn::WorkgroupId, "gl_WorkGroupID"),
                self.builtin_input(spirv::BuiltIn::NumWorkgroups, "gl_NumWorkgroups"),
            ]
        } else {
            vec![
                self.builtin_input(spirv::BuiltIn::GlobalInvocationId, "gl_GlobalInvocationID"),
                self.builtin_input(spirv::BuiltIn::NumWorkgroups, "gl_NumWorkgroups"),
            ]
        };

        let void = self.b.type_void();
        let fn_ty = self.b.type_function(void, []);
        let main = self
            .b
            .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
            .or_internal(&mut self.internal, Invariant::NoFunctionOpen);
        self.b.name(main, self.k.name.clone());
        self.main = main;
        let entry = self.b.id();
        self.begin(entry);
        for local in &self.k.locals {
            let var = if !has_storage(&local.ty) {
                None
            } else if local.storage == Storage::TileStatic {
                Some(self.workgroup_var(&local.ty, &local.name))
            } else {
                let t = self.ty(&local.ty);
                Some(self.function_var(t, Some(&local.name)))
            };
            self.locals.push(var);
        }
        self.declare_pending_report();
        self.start_loop_watch();
        if tiled {
            self.tiled_prologue(interface[0], interface[1], interface[2]);
        } else {
            self.prologue(interface[0], interface[1]);
        }
        self.block(&self.k.body);
        if !self.terminated() {
            self.return_from_main();
        }
        self.b
            .end_function()
            .or_internal(&mut self.internal, Invariant::FunctionOpen);
        self.record_out_of_bounds_function();
        self.rounded_functions();
        let interface: Vec<Word> = interface.into_iter().chain(subgroup_inputs).collect();
        self.b
            .entry_point(spirv::ExecutionModel::GLCompute, main, "main", interface);
        if !tiled {
            self.b.execution_mode(
                main,
                spirv::ExecutionMode::LocalSize,
                [SIMPLE_WORKGROUP_SIZE, 1, 1],
            );
        }
    }

    /// The storage class of a local's variable.
    pub(super) fn local_class(&self, id: LocalId) -> StorageClass {
        match self.k.locals[id].storage {
            Storage::Function => StorageClass::Function,
            Storage::TileStatic => StorageClass::Workgroup,
        }
    }

    /// Ends the threads for which `inside` is false (outside the launch domain) with an
    /// `OpReturn`; the others go on in the merge block. The return skips the out-of-bounds
    /// report: nothing was accessed yet.
    fn leave_unless(&mut self, inside: Word) {
        let (cont, out) = (self.b.id(), self.b.id());
        let labels = IfLabels {
            merge: cont,
            then: None,
            otherwise: Some(out),
        };
        self.structured_if(inside, labels, &[], |e, _| {
            e.b.ret().or_internal(&mut e.internal, Invariant::BlockOpen)
        });
    }

    /// The tiled index: `local` from the invocation id, `tile` from the workgroup id (folded
    /// onto y for rank 1), `global = tile * size + local`, `tile_origin = tile * size`.
    fn tiled_prologue(&mut self, lid_var: Word, wid_var: Word, nwg_var: Word) {
        let Some(tiled) = self.k.tiled.clone() else {
            return None.or_internal(&mut self.internal, Invariant::TiledIndex);
        };
        let rank = tiled.dims.len();
        let u = self.scalar_ty(Scalar::U32);
        let v3 = self.b.type_vector(u, 3);
        let lid = self.load(v3, lid_var);
        let wid = self.load(v3, wid_var);
        // Component d of the C++ AMP index lives on axis rank - 1 - d.
        let axis = |d: usize| (rank - 1 - d) as u32;
        let size: Vec<Word> = (0..rank)
            .map(|d| self.tile_size[axis(d) as usize])
            .collect();
        let local: Vec<Word> = (0..rank)
            .map(|d| {
                self.b
                    .composite_extract(u, None, lid, [axis(d)])
                    .or_internal(&mut self.internal, Invariant::BlockOpen)
            })
            .collect();
        let mut tile: Vec<Word> = (0..rank)
            .map(|d| {
                self.b
                    .composite_extract(u, None, wid, [axis(d)])
                    .or_internal(&mut self.internal, Invariant::BlockOpen)
            })
            .collect();
        if rank == 1 {
            // Rank 1 may be folded onto y when there are more tiles than workgroups along x;
            // whole workgroups past the last tile leave at once, so barriers stay uniform.
            let nwg = self.load(v3, nwg_var);
            let nx = self
                .b
                .composite_extract(u, None, nwg, [0])
                .or_internal(&mut self.internal, Invariant::BlockOpen);
            let wy = self
                .b
                .composite_extract(u, None, wid, [1])
                .or_internal(&mut self.internal, Invariant::BlockOpen);
            let row = self.op(Op::IMul, u, &[wy, nx]);
            tile[0] = self.op(Op::IAdd, u, &[tile[0], row]);
            // `tile < extent / size` as `tile * size < extent`: no division per thread
            // (lavapipe lowers one to a long sequence, ~1.5 % of a tree reduction). The
            // runtime folds the grid so that `tile * size` never exceeds `u32::MAX`.
            let extent = self.push_member(0);
            let bool_ty = self.scalar_ty(Scalar::Bool);
            let origin = self.op(Op::IMul, u, &[tile[0], size[0]]);
            let inside = self.op(Op::ULessThan, bool_ty, &[origin, extent]);
            self.leave_unless(inside);
        }
        let origin: Vec<Word> = (0..rank)
            .map(|d| self.op(Op::IMul, u, &[tile[d], size[d]]))
            .collect();
        let global: Vec<Word> = (0..rank)
            .map(|d| self.op(Op::IAdd, u, &[origin[d], local[d]]))
            .collect();
        let fields = [
            (tiled.global, &global),
            (tiled.local, &local),
            (tiled.tile, &tile),
            (tiled.tile_origin, &origin),
            (tiled.tile_extent, &size),
        ];
        let ptr_u = self.ptr(u, StorageClass::Function);
        for (id, values) in fields {
            let Some(var) = self.locals[id] else { continue };
            for (d, &v) in values.iter().enumerate() {
                let k = self.const_u32(d as u32);
                let p = self.access(ptr_u, var, &[k]);
                self.store(p, v);
            }
        }
    }

    /// Linear thread id from the folded dispatch grid, the out-of-domain guard, and the index.
    fn prologue(&mut self, gid_var: Word, nwg_var: Word) {
        let u = self.scalar_ty(Scalar::U32);
        let v3 = self.b.type_vector(u, 3);
        let gid = self.load(v3, gid_var);
        let nwg = self.load(v3, nwg_var);
        let gx = self
            .b
            .composite_extract(u, None, gid, [0])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let gy = self
            .b
            .composite_extract(u, None, gid, [1])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let nx = self
            .b
            .composite_extract(u, None, nwg, [0])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let wg = self.const_u32(SIMPLE_WORKGROUP_SIZE);
        // `(gy * nx) * wg`, not `gy * (nx * wg)`: lavapipe runs the first (the order GLSL's
        // `gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u` gives) in 0.4 % fewer
        // instructions on vector add.
        let rows = self.op(Op::IMul, u, &[gy, nx]);
        let y_off = self.op(Op::IMul, u, &[rows, wg]);
        let linear = self.op(Op::IAdd, u, &[gx, y_off]);
        let rank = self.k.rank;
        let extents: Vec<Word> = (0..rank).map(|d| self.push_member(d)).collect();
        let mut total = extents[0];
        for &e in &extents[1..] {
            total = self.op(Op::IMul, u, &[total, e]);
        }
        let bool_ty = self.scalar_ty(Scalar::Bool);
        let inside = self.op(Op::ULessThan, bool_ty, &[linear, total]);
        self.leave_unless(inside);

        // Row-major unflattening: the last dimension varies fastest.
        let idx_var =
            self.locals[self.k.index_local].or_internal(&mut self.internal, Invariant::Sized);
        let ptr_u = self.ptr(u, StorageClass::Function);
        let mut rest = linear;
        for d in (0..rank).rev() {
            let component = if d == 0 {
                rest
            } else {
                let c = self.op(Op::UMod, u, &[rest, extents[d as usize]]);
                rest = self.op(Op::UDiv, u, &[rest, extents[d as usize]]);
                c
            };
            let k = self.const_u32(d);
            let ptr = self.access(ptr_u, idx_var, &[k]);
            self.store(ptr, component);
        }
    }
}
