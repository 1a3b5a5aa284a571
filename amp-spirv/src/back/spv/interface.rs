//! The module's interface: specialization constants, storage buffers and their layout facts,
//! the push-constant block, built-in inputs, `tile_static` variables, and the capabilities and
//! execution modes that follow from what the kernel uses.

use super::OrInternal;
use super::{BufferVar, Emitter, SIMPLE_WORKGROUP_SIZE};
use crate::back::spv::Invariant;
use crate::back::ParamSlot;
use crate::ir::*;
use crate::types::{Elem, Scalar, Ty};
use rspirv::dr::{self, InsertPoint, Operand};
use rspirv::spirv::{self, Op, StorageClass, Word};

impl Emitter<'_> {
    /// Declares the specialization constants: outer constants at `SpecId` 3.., and for tiled
    /// kernels the workgroup size at 0, 1, 2 (x is the last tile dimension), which the runtime
    /// sets from the launch's tile shape.
    pub(super) fn declare_spec_constants(&mut self) {
        for (k, c) in self.k.consts.iter().enumerate() {
            let t = self.scalar_ty(c.ty);
            let id = match c.ty {
                Scalar::Bool => self.b.spec_constant_false(t),
                Scalar::F64 => self.b.spec_constant_bit64(t, 0),
                Scalar::F32 => self.b.spec_constant_bit32(t, 0),
                // Array lengths must default to at least 1.
                _ => self.b.spec_constant_bit32(t, 1),
            };
            self.b.decorate(
                id,
                spirv::Decoration::SpecId,
                [Operand::LiteralBit32(
                    amp_abi::spec_id::FIRST_OUTER_CONST + k as u32,
                )],
            );
            self.b.name(id, c.ident.to_string());
            self.spec.push(id);
        }
        // The workgroup size: a tiled kernel's tile (x is its last dimension), or the simple
        // kernel's threads per workgroup, chosen by the runtime per device (default 64).
        let u = self.scalar_ty(Scalar::U32);
        for axis in 0..3 {
            let default = match &self.k.tiled {
                None if axis == 0 => SIMPLE_WORKGROUP_SIZE,
                None => 1,
                Some(tiled) => match tiled.dims.len().checked_sub(axis + 1) {
                    Some(d) => match &tiled.dims[d] {
                        TileDim::Lit(n) => *n,
                        _ => 1,
                    },
                    None => 1,
                },
            };
            let id = self.b.spec_constant_bit32(u, default);
            self.b.decorate(
                id,
                spirv::Decoration::SpecId,
                [Operand::LiteralBit32(
                    amp_abi::spec_id::WORKGROUP_SIZE[axis],
                )],
            );
            self.tile_size[axis] = id;
        }
        let v3 = self.b.type_vector(u, 3);
        let size = self.b.spec_constant_composite(v3, self.tile_size);
        self.b.decorate(
            size,
            spirv::Decoration::BuiltIn,
            [Operand::BuiltIn(spirv::BuiltIn::WorkgroupSize)],
        );
    }

    /// `OpAtomicFAddEXT` needs `SPV_EXT_shader_atomic_float_add`; the runtime finds the
    /// capability in the module and checks the device's `VK_EXT_shader_atomic_float` features
    /// before it builds the pipeline.
    pub(super) fn declare_atomic_float_add(&mut self) {
        if self.uses_atomic_float_add {
            self.b.extension("SPV_EXT_shader_atomic_float_add");
            self.b.capability(spirv::Capability::AtomicFloat32AddEXT);
        }
    }

    /// Rust's float semantics keep NaN, infinities and the sign of zero through every operation;
    /// Vulkan lets drivers fold `x * 0.0` to `0.0` and `x - x` to `0.0` unless the module asks for
    /// `SignedZeroInfNanPreserve` (the runtime drops the request on devices without it).
    pub(super) fn preserve_float_specials(&mut self) {
        let widths: Vec<u32> = [(self.uses_float32, 32), (self.uses_float64, 64)]
            .into_iter()
            .filter_map(|(used, w)| used.then_some(w))
            .collect();
        if widths.is_empty() {
            return;
        }
        self.b.extension("SPV_KHR_float_controls");
        self.b
            .capability(spirv::Capability::SignedZeroInfNanPreserve);
        for w in widths {
            self.b.execution_mode(
                self.main,
                spirv::ExecutionMode::SignedZeroInfNanPreserve,
                [w],
            );
        }
    }

    /// Declares every buffer parameter's variable and layout facts; a view of the quad form
    /// (`quads.rs`) also gets a second variable at its binding, its data as a runtime array of
    /// 4-component vectors (the same bytes: Vulkan lets two variables share a binding).
    pub(super) fn declare_buffers(&mut self, quad_form: Option<&super::quads::QuadForm>) {
        let device_fence = fences_device_memory(self.k);
        for (i, p) in self.k.params.iter().enumerate() {
            let ParamKind::Buffer { elem, writable, .. } = p.kind.clone() else {
                self.buffers.push(None);
                self.layout_facts.push(None);
                continue;
            };
            let ParamSlot::Buffer { binding, .. } = self.layout.params[i] else {
                self.broken::<()>(Invariant::LayoutFollowsParams);
                continue;
            };
            // The memory model (docs/kernel-language.md): a fence on views and arrays makes a
            // thread's earlier writes visible to every thread of the launch that synchronizes
            // with it (through an atomic), in any tile. Without `Coherent` a GPU may serve the
            // other tile's reads from a stale per-core cache (lavapipe has none to go stale).
            // Only writable buffers can hold data written during the launch, so read-only
            // views keep their caching.
            let qualifiers: &[spirv::Decoration] = if !writable {
                &[spirv::Decoration::NonWritable]
            } else if device_fence {
                &[spirv::Decoration::Coherent]
            } else {
                &[]
            };
            let var = self.storage_buffer(&elem, binding, &p.name, qualifiers);
            if let Some(vector) = quad_form.and_then(|f| f.vector_of(i)) {
                let name = format!("{}_quads", p.name);
                let quads = self.storage_buffer(&vector, binding, &name, qualifiers);
                self.quad_vars.insert(i, quads);
            }
            let elem_ty = self.storage_elem_ty(&elem);
            let elem_ptr = self.ptr(elem_ty, StorageClass::StorageBuffer);
            self.buffers.push(Some(BufferVar { var, elem_ptr }));
            // What the runtime knows of each launch's views (offset 0, row-major strides,
            // extents equal to the domain's) reaches the kernel as a specialization constant:
            // the driver then folds the general address arithmetic down to what a
            // hand-written shader has, and shares one value where GLSL would name one
            // (lavapipe ran vector add ~10 % and the simple matmul ~7 % slower without).
            let facts = self.binding_facts(binding, format!("{}_layout", p.name));
            self.layout_facts.push(Some(facts));
        }
        if let Some(binding) = self.report_binding {
            let var = self.storage_buffer(&Elem::Scalar(Scalar::U32), binding, "amp_report", &[]);
            self.report_var = var;
            let record = self.b.id();
            if let Some(oob) = self.oob.as_mut() {
                oob.var = var;
                oob.record = record;
            }
        }
    }

    /// The `u32` specialization constant of the facts of the resource at `binding` (`SpecId`
    /// [`crate::LAYOUT_SPEC_ID_BASE`] + binding, default 0), named `name`: a buffer's layout
    /// facts, a written texture's texture facts.
    pub(super) fn binding_facts(&mut self, binding: u32, name: String) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let facts = self.b.spec_constant_bit32(u, 0);
        self.b.decorate(
            facts,
            spirv::Decoration::SpecId,
            [Operand::LiteralBit32(crate::LAYOUT_SPEC_ID_BASE + binding)],
        );
        self.b.name(facts, name);
        facts
    }

    /// Whether buffer `p`'s layout facts have `bit` set: a boolean specialization constant
    /// (`(facts & bit) != 0`), folded by the driver when the pipeline is specialized.
    pub(super) fn layout_fact(&mut self, p: ParamId, bit: u32) -> Word {
        if let Some(&id) = self.fact_bools.get(&(p, bit)) {
            return id;
        }
        let facts = self.layout_facts[p].or_internal(&mut self.internal, Invariant::BufferDeclared);
        let (u, b) = (self.scalar_ty(Scalar::U32), self.scalar_ty(Scalar::Bool));
        let (mask, zero) = (self.const_u32(bit), self.const_u32(0));
        let masked = self.spec_constant_op(u, Op::BitwiseAnd, &[facts, mask]);
        let set = self.spec_constant_op(b, Op::INotEqual, &[masked, zero]);
        self.fact_bools.insert((p, bit), set);
        set
    }

    /// `OpSpecConstantOp`: `op` on specialization constants, evaluated when the pipeline is
    /// specialized.
    fn spec_constant_op(&mut self, ty: Word, op: Op, operands: &[Word]) -> Word {
        let id = self.b.spec_constant_op(ty, op);
        match self.b.module_mut().types_global_values.last_mut() {
            Some(inst) => inst
                .operands
                .extend(operands.iter().map(|&w| Operand::IdRef(w))),
            None => {
                let _: () = None.or_internal(&mut self.internal, Invariant::SpecConstantOp);
            }
        }
        id
    }

    /// A storage buffer in set 0 at `binding`: a block holding a runtime array of `elem`,
    /// shaped as glslang shapes a GLSL `buffer` block: a block type of its own (never shared
    /// with another buffer's, though their members are alike), its access qualifiers
    /// (`NonWritable`, `Coherent`) on the block's member.
    pub(super) fn storage_buffer(
        &mut self,
        elem: &Elem,
        binding: u32,
        name: &str,
        qualifiers: &[spirv::Decoration],
    ) -> Word {
        let elem_ty = self.storage_elem_ty(elem);
        let rta = self.b.type_runtime_array(elem_ty);
        let fresh = self.b.id();
        let block = self.b.type_struct_id(Some(fresh), [rta]);
        if self.decorated.insert(rta) {
            let stride = self.storage_elem_bytes(elem);
            self.b.decorate(
                rta,
                spirv::Decoration::ArrayStride,
                [Operand::LiteralBit32(stride)],
            );
        }
        self.b.decorate(block, spirv::Decoration::Block, []);
        self.b.member_decorate(
            block,
            0,
            spirv::Decoration::Offset,
            [Operand::LiteralBit32(0)],
        );
        for &q in qualifiers {
            self.b.member_decorate(block, 0, q, []);
        }
        self.b.name(block, format!("{name}_block"));
        let ptr = self.ptr(block, StorageClass::StorageBuffer);
        let var = self
            .b
            .variable(ptr, None, StorageClass::StorageBuffer, None);
        self.bind(var, binding);
        self.b.name(var, name);
        var
    }

    /// Decorates `var` as binding `binding` of descriptor set 0.
    pub(super) fn bind(&mut self, var: Word, binding: u32) {
        self.b.decorate(
            var,
            spirv::Decoration::DescriptorSet,
            [Operand::LiteralBit32(0)],
        );
        self.b.decorate(
            var,
            spirv::Decoration::Binding,
            [Operand::LiteralBit32(binding)],
        );
    }

    pub(super) fn declare_push_constants(&mut self) {
        if self.layout.members.is_empty() {
            return;
        }
        let members: Vec<Word> = self
            .layout
            .members
            .clone()
            .iter()
            .map(|m| self.scalar_ty(m.ty))
            .collect();
        let block = self.b.type_struct(members);
        self.b.decorate(block, spirv::Decoration::Block, []);
        for (i, m) in self.layout.members.iter().enumerate() {
            self.b.member_decorate(
                block,
                i as u32,
                spirv::Decoration::Offset,
                [Operand::LiteralBit32(m.offset)],
            );
        }
        let ptr = self.ptr(block, StorageClass::PushConstant);
        let var = self.b.variable(ptr, None, StorageClass::PushConstant, None);
        self.b.name(var, "launch");
        self.push = Some(var);
    }

    /// Loads push-constant member `member`.
    pub(super) fn push_member(&mut self, member: u32) -> Word {
        let m = self.layout.members[member as usize];
        let ty = self.scalar_ty(m.ty);
        let ptr_ty = self.ptr(ty, StorageClass::PushConstant);
        let idx = self.const_u32(member);
        let push = self
            .push
            .or_internal(&mut self.internal, Invariant::StorageType);
        let ptr = self.access(ptr_ty, push, &[idx]);
        self.load(ty, ptr)
    }

    /// Rebuilds a by-value vector or struct parameter from its scalar push-constant members,
    /// taken from `members` in [`leaves`](crate::back::layout::leaves) order.
    pub(super) fn push_value(&mut self, ty: &Ty, members: &mut std::ops::RangeFrom<u32>) -> Word {
        let parts: Vec<Word> = match ty {
            Ty::Scalar(_) => {
                let member = members
                    .next()
                    .or_internal(&mut self.internal, Invariant::StorageType);
                return self.push_member(member);
            }
            Ty::Vector(s, n) => (0..*n)
                .map(|_| self.push_value(&Ty::Scalar(*s), members))
                .collect(),
            Ty::Struct(def) => def
                .fields
                .iter()
                .map(|f| self.push_value(&f.ty, members))
                .collect(),
            other => {
                return self.broken(Invariant::ValueParamType(other.to_string()));
            }
        };
        let t = self.ty(ty);
        self.b
            .composite_construct(t, None, parts)
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    pub(super) fn builtin_input(&mut self, builtin: spirv::BuiltIn, name: &str) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let v3 = self.b.type_vector(u, 3);
        let ptr = self.ptr(v3, StorageClass::Input);
        let var = self.b.variable(ptr, None, StorageClass::Input, None);
        self.b
            .decorate(var, spirv::Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        self.b.name(var, name);
        var
    }

    /// A `tile_static` variable: `Workgroup` storage, shared by the tile, never initialised.
    pub(super) fn workgroup_var(&mut self, ty: &Ty, name: &str) -> Word {
        let t = self.ty(ty);
        let ptr = self.ptr(t, StorageClass::Workgroup);
        // Module-level variables live among the types and constants, outside the function.
        let inst = dr::Instruction::new(
            Op::Variable,
            Some(ptr),
            Some(self.b.id()),
            vec![Operand::StorageClass(StorageClass::Workgroup)],
        );
        let id = inst
            .result_id
            .or_internal(&mut self.internal, Invariant::ResultId);
        self.b.insert_types_global_values(InsertPoint::End, inst);
        self.b.name(id, name);
        id
    }
}

/// Whether the kernel fences views and arrays: a `global_memory_fence`, an `all_memory_fence`,
/// or a barrier that waits with one (`t.barrier.wait()` included).
fn fences_device_memory(k: &Kernel) -> bool {
    struct Search(bool);
    impl<'a> Visitor<'a> for Search {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let ExprKind::Barrier(f) | ExprKind::MemoryFence(f) = &expr.kind {
                self.0 |= matches!(f, Fence::Global | Fence::All);
            }
            walk_expr(self, expr);
        }
    }
    let mut search = Search(false);
    search.visit_block(&k.body);
    search.0
}
