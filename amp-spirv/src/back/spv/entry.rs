//! The entry point. A tiled kernel's `main` holds its locals, the prologue that turns the
//! invocation ids into the tiled index (and leaves threads outside the domain), the body and
//! the epilogue. A simple kernel's body is a function of one linear index, which `main` calls
//! for each index of its thread (`grid_loop`).

use super::quads::QuadForm;
use super::IfLabels;
use super::OrInternal;
use super::{has_storage, Emitter, SIMPLE_WORKGROUP_SIZE};
use crate::back::spv::Invariant;
use crate::ir::*;
use crate::types::Scalar;
use rspirv::spirv::{self, Op, StorageClass, Word};

impl Emitter<'_> {
    /// The kernel's module; `quad_form`, where the kernel has one, steps a simple kernel over
    /// quads (`quads.rs`).
    pub(super) fn kernel(&mut self, quad_form: Option<&QuadForm>) {
        self.declare_spec_constants();
        self.declare_buffers(quad_form);
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

        self.main = self.b.id();
        let name = self.k.name.clone();
        if tiled {
            self.begin_function(self.main, &name, None);
            self.declare_locals();
            self.tiled_prologue(interface[0], interface[1], interface[2]);
            self.body_and_return();
        } else {
            // The body runs in a function of its own, for one linear index: `main` calls it for
            // each index of the invocation (one, or several on a grid-stride loop), and a
            // `return` in the body ends that index only.
            let u = self.scalar_ty(Scalar::U32);
            let run = self.b.id();
            let linear = self.begin_function(run, &format!("{name}_at"), Some(u));
            self.declare_locals();
            self.index_from_linear(linear);
            self.body_and_return();
            // In the quad form `main` calls the quad's function for each quad of the
            // invocation, which runs the lanes or, at an edge, the function above.
            let quad = quad_form.map(|form| {
                let lane = self.lane_function(form, &name);
                (self.quad_function(form, &name, run, lane), form)
            });
            self.begin_function(self.main, &name, None);
            self.grid_loop(run, quad, interface[0], interface[1]);
            self.return_and_end_function();
        }
        self.record_out_of_bounds_function();
        self.rounded_functions();
        let interface: Vec<Word> = interface.into_iter().chain(subgroup_inputs).collect();
        self.b.entry_point(
            spirv::ExecutionModel::GLCompute,
            self.main,
            "main",
            interface,
        );
        if !tiled {
            // The default; the `WorkgroupSize` constant (`declare_spec_constants`) is what
            // the runtime specializes per device.
            self.b.execution_mode(
                self.main,
                spirv::ExecutionMode::LocalSize,
                [SIMPLE_WORKGROUP_SIZE, 1, 1],
            );
        }
    }

    /// Opens function `id` named `name`, with no result and one parameter of type `param` or
    /// none, and begins its first block; returns the parameter's id (0 without one).
    pub(super) fn begin_function(&mut self, id: Word, name: &str, param: Option<Word>) -> Word {
        let void = self.b.type_void();
        let ty = self.b.type_function(void, param);
        self.b
            .begin_function(void, Some(id), spirv::FunctionControl::NONE, ty)
            .or_internal(&mut self.internal, Invariant::NoFunctionOpen);
        self.b.name(id, name);
        let value = match param {
            Some(t) => self
                .b
                .function_parameter(t)
                .or_internal(&mut self.internal, Invariant::FunctionOpen),
            None => 0,
        };
        let entry = self.b.id();
        self.begin(entry);
        value
    }

    /// The kernel's locals (function variables, or workgroup variables for `tile_static`) and
    /// the per-thread report state, at the top of the function that runs the body.
    pub(super) fn declare_locals(&mut self) {
        self.locals.clear();
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
    }

    /// The body, then the return (with the thread's reports) where the body falls off its end.
    pub(super) fn body_and_return(&mut self) {
        self.block(&self.k.body);
        if !self.terminated() {
            self.return_from_main();
        }
        self.end_function();
    }

    /// `OpReturn` from the current block, then the end of the function.
    pub(super) fn return_and_end_function(&mut self) {
        self.b
            .ret()
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.end_function();
    }

    fn end_function(&mut self) {
        self.b
            .end_function()
            .or_internal(&mut self.internal, Invariant::FunctionOpen);
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

    /// The tiled index: `local` from the invocation id, `tile` from the workgroup id (its
    /// component 0 folded onto y for rank 1, onto z for rank 2), `global = tile * size +
    /// local`, `tile_origin = tile * size`.
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
        if rank <= 2 {
            // Component 0 may be folded onto the next axis when there are more tiles than
            // workgroups along its own (rank 1: x onto y; rank 2: y onto z, where GPUs allow
            // 65,535); whole workgroups past the last tile leave at once, so barriers stay
            // uniform.
            let own = axis(0);
            let nwg = self.load(v3, nwg_var);
            let n_own = self
                .b
                .composite_extract(u, None, nwg, [own])
                .or_internal(&mut self.internal, Invariant::BlockOpen);
            let w_next = self
                .b
                .composite_extract(u, None, wid, [own + 1])
                .or_internal(&mut self.internal, Invariant::BlockOpen);
            let row = self.op(Op::IMul, u, &[w_next, n_own]);
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

    /// `main` of a simple kernel: the invocation's first linear index from the folded grid,
    /// then a call of the body (`run`) for each of its indices below the domain's size: the
    /// first, then every `stride` (the invocations of the whole grid) after it while the
    /// `GRID_STRIDE` specialization constant is on (the runtime dispatches fewer invocations
    /// than indices only then; off, the loop folds away and each invocation runs one index).
    /// Consecutive invocations take consecutive indices on every pass, so accesses stay
    /// coalesced. With `quad`, the quad form's function, the loop's indices are quads,
    /// `ceil(size / 4)` of them, unless the `SCALAR_ACCESS` specialization constant turns the
    /// form off.
    fn grid_loop(
        &mut self,
        run: Word,
        quad: Option<(Word, &QuadForm)>,
        gid_var: Word,
        nwg_var: Word,
    ) {
        let u = self.scalar_ty(Scalar::U32);
        let bool_ty = self.scalar_ty(Scalar::Bool);
        let v3 = self.b.type_vector(u, 3);
        let gid = self.load(v3, gid_var);
        let nwg = self.load(v3, nwg_var);
        let [gx, gy] = [0, 1].map(|c| {
            self.b
                .composite_extract(u, None, gid, [c])
                .or_internal(&mut self.internal, Invariant::BlockOpen)
        });
        let [nx, ny] = [0, 1].map(|c| {
            self.b
                .composite_extract(u, None, nwg, [c])
                .or_internal(&mut self.internal, Invariant::BlockOpen)
        });
        let wg = self.tile_size[0];
        // `(gy * nx) * wg`, not `gy * (nx * wg)`: lavapipe runs the first (the order GLSL's
        // `gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u` gives) in 0.4 % fewer
        // instructions on vector add.
        let rows = self.op(Op::IMul, u, &[gy, nx]);
        let y_off = self.op(Op::IMul, u, &[rows, wg]);
        let first = self.op(Op::IAdd, u, &[gx, y_off]);
        let groups = self.op(Op::IMul, u, &[nx, ny]);
        let stride = self.op(Op::IMul, u, &[groups, wg]);
        let mut total = self.domain_size();
        let scalar = quad
            .map(|_| self.bool_spec_constant(amp_abi::spec_id::SCALAR_ACCESS, "amp_scalar_access"));
        if let (Some(scalar), Some((_, form))) = (scalar, quad) {
            // `ceil((total + shift) / QUAD)` without the wrap of `total + shift + 3`: quads
            // start `shift` indices before index 0 (`quads.rs`).
            let (two, three) = (self.const_u32(2), self.const_u32(3));
            let whole = self.op(Op::ShiftRightLogical, u, &[total, two]);
            let low = self.op(Op::BitwiseAnd, u, &[total, three]);
            let shift = self.quad_shift(form);
            let low = self.op(Op::IAdd, u, &[low, shift]);
            let low = self.op(Op::IAdd, u, &[low, three]);
            let extra = self.op(Op::ShiftRightLogical, u, &[low, two]);
            let quads = self.op(Op::IAdd, u, &[whole, extra]);
            total = self.op(Op::Select, u, &[scalar, total, quads]);
        }
        let striding = self.bool_spec_constant(amp_abi::spec_id::GRID_STRIDE, "amp_grid_stride");
        let inside = self.op(Op::ULessThan, bool_ty, &[first, total]);
        let labels = IfLabels {
            merge: self.b.id(),
            then: Some(self.b.id()),
            otherwise: None,
        };
        self.structured_if(inside, labels, &[], |e, _| {
            let entry = e.label;
            let [header, body, step, done, next] = [(); 5].map(|()| e.b.id());
            e.branch(header);
            e.begin(header);
            let index =
                e.b.phi(u, None, [(first, entry), (next, step)])
                    .or_internal(&mut e.internal, Invariant::BlockOpen);
            e.b.loop_merge(done, step, spirv::LoopControl::NONE, [])
                .or_internal(&mut e.internal, Invariant::BlockOpen);
            e.branch(body);
            e.begin(body);
            let void = e.b.type_void();
            match (quad, scalar) {
                (Some(quad), Some(scalar)) => {
                    let labels = IfLabels {
                        merge: e.b.id(),
                        then: Some(e.b.id()),
                        otherwise: Some(e.b.id()),
                    };
                    e.structured_if(scalar, labels, &[], |e, holds| {
                        let f = if holds { run } else { quad.0 };
                        e.b.function_call(void, None, f, [index])
                            .or_internal(&mut e.internal, Invariant::BlockOpen);
                    });
                }
                _ => {
                    e.b.function_call(void, None, run, [index])
                        .or_internal(&mut e.internal, Invariant::BlockOpen);
                }
            }
            e.branch(step);
            e.begin(step);
            // `index + stride < total` as `total - index > stride`: no wrap near `u32::MAX`.
            let rest = e.op(Op::ISub, u, &[total, index]);
            let more = e.op(Op::UGreaterThan, bool_ty, &[rest, stride]);
            let again = e.op(Op::LogicalAnd, bool_ty, &[striding, more]);
            e.b.i_add(u, Some(next), index, stride)
                .or_internal(&mut e.internal, Invariant::BlockOpen);
            e.b.branch_conditional(again, header, done, [])
                .or_internal(&mut e.internal, Invariant::BlockOpen);
            e.begin(done);
        });
    }

    /// The kernel's index from its linear index `linear` (below the domain's size).
    pub(super) fn index_from_linear(&mut self, linear: Word) {
        let components = self.domain_index(linear);
        self.store_index(&components);
    }

    /// Stores `components` into the kernel's index.
    pub(super) fn store_index(&mut self, components: &[Word]) {
        let u = self.scalar_ty(Scalar::U32);
        let idx_var =
            self.locals[self.k.index_local].or_internal(&mut self.internal, Invariant::Sized);
        let ptr_u = self.ptr(u, StorageClass::Function);
        for (d, &component) in (0..).zip(components) {
            let k = self.const_u32(d);
            let ptr = self.access(ptr_u, idx_var, &[k]);
            self.store(ptr, component);
        }
    }

    /// The launch domain's extent, one value per dimension, from the push constants.
    pub(super) fn domain_extents(&mut self) -> Vec<Word> {
        (0..self.k.rank).map(|d| self.push_member(d)).collect()
    }

    /// The number of indices in the launch domain: the product of its extents.
    pub(super) fn domain_size(&mut self) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let extents = self.domain_extents();
        let mut total = extents[0];
        for &e in &extents[1..] {
            total = self.op(Op::IMul, u, &[total, e]);
        }
        total
    }

    /// The components of the domain's index number `linear` in row-major order (the last
    /// dimension varies fastest).
    pub(super) fn domain_index(&mut self, linear: Word) -> Vec<Word> {
        let u = self.scalar_ty(Scalar::U32);
        let rank = self.k.rank as usize;
        let extents = self.domain_extents();
        let mut components = vec![linear; rank];
        let mut rest = linear;
        for d in (1..rank).rev() {
            components[d] = self.op(Op::UMod, u, &[rest, extents[d]]);
            rest = self.op(Op::UDiv, u, &[rest, extents[d]]);
        }
        components[0] = rest;
        components
    }
}
