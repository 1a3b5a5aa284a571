//! The SPIR-V back end: lowers the typed IR to a SPIR-V 1.3 compute module with `rspirv`.
//!
//! Locals live in `Function`-storage variables (drivers promote them to registers), control
//! flow is structured (`OpSelectionMerge` / `OpLoopMerge`), and the module follows the kernel ABI
//! written down in `amp-runtime`'s `kernel.rs`.

mod layout;
mod math64;
mod vector;

pub use layout::{Layout, ParamSlot};

use crate::ir::*;
use crate::math::MathFn;
use crate::range::{Ranges, Sym};
use crate::types::{Elem, Len, Scalar, Ty};
use rspirv::binary::Assemble;
use rspirv::dr::{self, Builder, InsertPoint, Operand};
use rspirv::spirv::{self, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

/// Threads per workgroup of simple (untiled) kernels.
pub const SIMPLE_WORKGROUP_SIZE: u32 = 64;

/// `GLSL.std.450` instruction numbers used here.
mod glsl {
    pub const FABS: u32 = 4;
    pub const SABS: u32 = 5;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
}

/// The result of lowering a kernel.
pub struct Module {
    /// The SPIR-V words.
    pub words: Vec<u32>,
    /// Whether the module declares `Float64`.
    pub uses_float64: bool,
    /// Threads per workgroup.
    pub workgroup_size: [u32; 3],
}

/// Whether buffer accesses are checked against the buffer's extent on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsChecks {
    /// Every view and array access compares its index with the extent: out-of-bounds reads
    /// yield zero, writes and atomics are skipped, and the first such access is recorded in the
    /// out-of-bounds report buffer (see [`OOB_REPORT_WORDS`]).
    On,
    /// Accesses go straight to memory (`#[kernel(amp, unchecked)]`); out-of-bounds accesses are
    /// left to the device's `robustBufferAccess`.
    Off,
}

/// Size in `u32` words of the out-of-bounds report buffer of a checked kernel: `[flag,
/// param, rank, index[3], extent[3]]`. The first failing access sets `flag` from 0 to 1 with a
/// compare-exchange and writes the rest; unused index and extent entries are 0.
pub const OOB_REPORT_WORDS: u32 = 9;

/// Words of a thread's pending report: the failing parameter plus one (0: none), then the
/// failing index, padded to three components.
const PENDING_REPORT_WORDS: u32 = 4;

/// The binding of the out-of-bounds report buffer when `kernel` is compiled with bounds checks:
/// right after its buffer parameters; `None` when it has no buffers (nothing to check).
pub fn oob_report_binding(kernel: &Kernel, checks: BoundsChecks) -> Option<u32> {
    let buffers = kernel
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Buffer { .. }))
        .count() as u32;
    (checks == BoundsChecks::On && buffers > 0).then_some(buffers)
}

/// Lowers a type-checked kernel.
pub fn emit(kernel: &Kernel, layout: &Layout, checks: BoundsChecks) -> Module {
    let mut e = Emitter::new(kernel, layout);
    e.oob = oob_report_binding(kernel, checks).map(|binding| OobReport {
        binding,
        var: 0,
        record: 0,
        pending: [0; PENDING_REPORT_WORDS as usize],
    });
    e.kernel();
    let uses_float64 = e.uses_float64;
    if uses_float64 {
        e.b.capability(spirv::Capability::Float64);
    }
    e.preserve_float_specials();
    e.declare_atomic_float_add();
    Module {
        words: e.b.module().assemble(),
        uses_float64,
        workgroup_size: [SIMPLE_WORKGROUP_SIZE, 1, 1],
    }
}

/// How a binary operator's operands are treated: it picks the SPIR-V instruction.
#[derive(Clone, Copy)]
enum OperandKind {
    Float,
    Signed,
    Unsigned,
    Bool,
}

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

/// Whether values of `ty` occupy storage: `()`, `!` and arrays of them (`[(); 4]`, or the
/// `[!; 2]` of `[return; 2]`) have no SPIR-V type to live in.
/// The type of the field of struct `id` that the literal `index` selects.
fn struct_field_ty(id: u32, index: &Expr) -> Ty {
    let ExprKind::Lit(Lit::Int(k)) = index.kind else {
        unreachable!("struct fields are selected by literal indices")
    };
    crate::structs::get(id).fields[k as usize].ty.clone()
}

fn has_storage(ty: &Ty) -> bool {
    match ty {
        Ty::Array(elem, _) => has_storage(elem),
        other => !other.is_zero_sized(),
    }
}

struct BufferVar {
    var: Word,
    elem_ptr: Word,
}

struct LoopTargets {
    merge: Word,
    cont: Word,
}

/// The out-of-bounds report of a checked kernel: its storage buffer and the function that
/// records a failing access in it (emitted after `main`, once something calls it).
struct OobReport {
    binding: u32,
    var: Word,
    record: Word,
    /// The thread's own pending report, [`PENDING_REPORT_WORDS`] `u32` `Function` variables
    /// (the tag first), written by failing accesses and sent to the buffer when the thread
    /// ends. Separate scalars rather than an array: drivers keep those in registers, where a
    /// private array may live in memory.
    pending: [Word; PENDING_REPORT_WORDS as usize],
}

/// Where an access goes, its index expressions already evaluated.
enum Target {
    /// A pointer that needs no check: a local or `tile_static` element (indices clamped), or a
    /// buffer element in an unchecked kernel.
    Ptr(Word),
    /// A buffer element to check against the buffer's extent before it is touched, each index
    /// component as its [`Check`] says.
    Checked {
        param: ParamId,
        index: Vec<Word>,
        checks: Vec<Check>,
    },
}

/// How one component of a buffer index is checked against the buffer's extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// The range analysis proved it in range: no check.
    Proven,
    /// It is below the launch domain's extent in the same dimension: in range whenever the
    /// buffer covers the domain, which the runtime states with a specialization constant (the
    /// compare folds away in the specialized pipeline); compared otherwise.
    Covered,
    /// Compared with the extent.
    Compared,
}

struct Emitter<'k> {
    b: Builder,
    k: &'k Kernel,
    layout: &'k Layout,
    glsl: Word,
    types: HashMap<Ty, Word>,
    /// Buffer element types with an explicit layout (short vectors, structs), by kernel type.
    storage_types: HashMap<Ty, Word>,
    pointers: HashMap<(Word, StorageClass), Word>,
    constants: HashMap<(Word, u64), Word>,
    /// The bits of each scalar constant, by id.
    constant_bits: HashMap<Word, u64>,
    decorated: HashSet<Word>,
    locals: Vec<Option<Word>>,
    buffers: Vec<Option<BufferVar>>,
    /// Per buffer parameter, its layout facts: a `u32` specialization constant (`SpecId`
    /// [`crate::LAYOUT_SPEC_ID_BASE`] + binding) whose bits ([`crate::layout_fact`]) the
    /// runtime sets per launch.
    layout_facts: Vec<Option<Word>>,
    /// One fact of one buffer as a boolean specialization constant, by (param, bit).
    fact_bools: HashMap<(ParamId, u32), Word>,
    push: Option<Word>,
    loops: Vec<LoopTargets>,
    label: Word,
    main: Word,
    /// Specialization constants of the outer constants (`SpecId` 3, 4, ...).
    spec: Vec<Word>,
    /// The workgroup-size specialization constants x, y, z of a tiled kernel.
    tile_size: [Word; 3],
    uses_float32: bool,
    uses_float64: bool,
    /// Whether an `atomic_fetch_add` on an `f32` element was emitted (`OpAtomicFAddEXT`).
    uses_atomic_float_add: bool,
    /// Set when buffer accesses are bounds-checked.
    oob: Option<OobReport>,
    /// Index ranges the range analysis proved: clamps and checks they make redundant are left
    /// out.
    ranges: Ranges,
}

impl<'k> Emitter<'k> {
    fn new(k: &'k Kernel, layout: &'k Layout) -> Self {
        let mut b = Builder::new();
        b.set_version(1, 3);
        b.capability(spirv::Capability::Shader);
        let glsl = b.ext_inst_import("GLSL.std.450");
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        Emitter {
            b,
            k,
            layout,
            glsl,
            types: HashMap::new(),
            storage_types: HashMap::new(),
            pointers: HashMap::new(),
            constants: HashMap::new(),
            constant_bits: HashMap::new(),
            decorated: HashSet::new(),
            locals: Vec::new(),
            buffers: Vec::new(),
            layout_facts: Vec::new(),
            fact_bools: HashMap::new(),
            push: None,
            loops: Vec::new(),
            label: 0,
            main: 0,
            spec: Vec::new(),
            tile_size: [0; 3],
            uses_float32: false,
            uses_float64: false,
            uses_atomic_float_add: false,
            oob: None,
            ranges: Ranges::of(k),
        }
    }

    // ----- types and constants -----

    fn ty(&mut self, ty: &Ty) -> Word {
        if let Some(&id) = self.types.get(ty) {
            return id;
        }
        let id = match ty {
            Ty::Scalar(s) => match s {
                Scalar::Bool => self.b.type_bool(),
                Scalar::I32 => self.b.type_int(32, 1),
                Scalar::U32 | Scalar::Usize => self.b.type_int(32, 0),
                Scalar::F32 => {
                    self.uses_float32 = true;
                    self.b.type_float(32, None)
                }
                Scalar::F64 => {
                    self.uses_float64 = true;
                    self.b.type_float(64, None)
                }
            },
            Ty::Array(elem, n) => {
                let e = self.ty(elem);
                let len = self.len(n);
                self.b.type_array(e, len)
            }
            Ty::Vector(s, n) => {
                let e = self.scalar_ty(*s);
                self.b.type_vector(e, *n)
            }
            Ty::Struct(id) => self.struct_ty(*id),
            Ty::Unit | Ty::Never | Ty::Var(_) => self.b.type_void(),
        };
        self.types.insert(ty.clone(), id);
        id
    }

    /// The id of an array length: a constant, or an outer constant's specialization constant.
    fn len(&mut self, len: &Len) -> Word {
        match len {
            Len::Lit(n) => self.const_u32(*n),
            Len::Const(k, _) => self.spec[*k as usize],
        }
    }

    /// Declares the specialization constants: outer constants at `SpecId` 3.., and for tiled
    /// kernels the workgroup size at 0, 1, 2 (x is the last tile dimension), which the runtime
    /// sets from the launch's tile shape.
    fn declare_spec_constants(&mut self) {
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
                [Operand::LiteralBit32(3 + k as u32)],
            );
            self.b.name(id, c.ident.to_string());
            self.spec.push(id);
        }
        let Some(tiled) = &self.k.tiled else { return };
        let rank = tiled.dims.len();
        let u = self.scalar_ty(Scalar::U32);
        for axis in 0..3 {
            let default = match rank.checked_sub(axis + 1).map(|d| &tiled.dims[d]) {
                Some(TileDim::Lit(n)) => *n,
                _ => 1,
            };
            let id = self.b.spec_constant_bit32(u, default);
            self.b.decorate(
                id,
                spirv::Decoration::SpecId,
                [Operand::LiteralBit32(axis as u32)],
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

    fn scalar_ty(&mut self, s: Scalar) -> Word {
        self.ty(&Ty::Scalar(s))
    }

    fn ptr(&mut self, pointee: Word, class: StorageClass) -> Word {
        *self
            .pointers
            .entry((pointee, class))
            .or_insert_with(|| self.b.type_pointer(None, class, pointee))
    }

    fn constant(&mut self, ty: Word, bits: u64, wide: bool) -> Word {
        if let Some(&id) = self.constants.get(&(ty, bits)) {
            return id;
        }
        let id = if wide {
            self.b.constant_bit64(ty, bits)
        } else {
            self.b.constant_bit32(ty, bits as u32)
        };
        self.constants.insert((ty, bits), id);
        self.constant_bits.insert(id, bits);
        id
    }

    fn const_u32(&mut self, v: u32) -> Word {
        let t = self.scalar_ty(Scalar::U32);
        self.constant(t, v as u64, false)
    }

    fn const_scalar(&mut self, s: Scalar, lit: Lit) -> Word {
        let t = self.scalar_ty(s);
        match (s, lit) {
            (Scalar::Bool, Lit::Bool(v)) => {
                let key = (t, v as u64);
                if let Some(&id) = self.constants.get(&key) {
                    return id;
                }
                let id = if v {
                    self.b.constant_true(t)
                } else {
                    self.b.constant_false(t)
                };
                self.constants.insert(key, id);
                id
            }
            (Scalar::F32, Lit::Float(_, v)) => self.constant(t, v.to_bits() as u64, false),
            (Scalar::F64, Lit::Float(v, _)) => self.constant(t, v.to_bits(), true),
            (Scalar::F32, Lit::Int(v)) => self.constant(t, (v as f32).to_bits() as u64, false),
            (Scalar::F64, Lit::Int(v)) => self.constant(t, (v as f64).to_bits(), true),
            (_, Lit::Int(v)) => self.constant(t, v as u32 as u64, false),
            (_, Lit::Float(v, _)) => self.constant(t, v as i64 as u32 as u64, false),
            (_, Lit::Bool(v)) => self.constant(t, v as u64, false),
        }
    }

    /// `OpAtomicFAddEXT` needs `SPV_EXT_shader_atomic_float_add`; the runtime finds the
    /// capability in the module and checks the device's `VK_EXT_shader_atomic_float` features
    /// before it builds the pipeline.
    fn declare_atomic_float_add(&mut self) {
        if self.uses_atomic_float_add {
            self.b.extension("SPV_EXT_shader_atomic_float_add");
            self.b.capability(spirv::Capability::AtomicFloat32AddEXT);
        }
    }

    /// Rust's float semantics keep NaN, infinities and the sign of zero through every operation;
    /// Vulkan lets drivers fold `x * 0.0` to `0.0` and `x - x` to `0.0` unless the module asks for
    /// `SignedZeroInfNanPreserve` (the runtime drops the request on devices without it).
    fn preserve_float_specials(&mut self) {
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

    /// Marks a float operation `NoContraction`: Rust rounds every operation on its own (no fused
    /// multiply-add unless the kernel asks for it), and drivers treat such operations as exact,
    /// so they do not rewrite `x * 0.0` to `0.0` either.
    fn exact(&mut self, id: Word) {
        self.b.decorate(id, spirv::Decoration::NoContraction, []);
    }

    // ----- instructions -----

    fn op(&mut self, op: Op, ty: Word, operands: &[Word]) -> Word {
        let id = self.b.id();
        let inst = dr::Instruction::new(
            op,
            Some(ty),
            Some(id),
            operands.iter().map(|&w| Operand::IdRef(w)).collect(),
        );
        self.b
            .insert_into_block(InsertPoint::End, inst)
            .expect("a block is open while emitting values");
        id
    }

    fn ext(&mut self, inst: u32, ty: Word, args: &[Word]) -> Word {
        let glsl = self.glsl;
        self.b
            .ext_inst(
                ty,
                None,
                glsl,
                inst,
                args.iter().map(|&w| Operand::IdRef(w)),
            )
            .expect("a block is open")
    }

    fn load(&mut self, ty: Word, ptr: Word) -> Word {
        self.b
            .load(ty, None, ptr, None, [])
            .expect("a block is open")
    }

    fn store(&mut self, ptr: Word, value: Word) {
        self.b.store(ptr, value, None, []).expect("a block is open");
    }

    fn access(&mut self, ptr_ty: Word, base: Word, indices: &[Word]) -> Word {
        self.b
            .access_chain(ptr_ty, None, base, indices.iter().copied())
            .expect("a block is open")
    }

    fn terminated(&self) -> bool {
        self.b.selected_block().is_none()
    }

    fn begin(&mut self, label: Word) {
        self.b
            .begin_block(Some(label))
            .expect("the previous block was terminated");
        self.label = label;
    }

    fn branch(&mut self, target: Word) {
        self.b.branch(target).expect("a block is open");
    }

    /// A `Function` variable, declared at the top of the entry block as SPIR-V requires.
    fn function_var(&mut self, ty: Word, name: Option<&str>) -> Word {
        let ptr = self.ptr(ty, StorageClass::Function);
        let id = self.b.id();
        let current = self.b.selected_block();
        self.b
            .select_block(Some(0))
            .expect("the entry block exists");
        let inst = dr::Instruction::new(
            Op::Variable,
            Some(ptr),
            Some(id),
            vec![Operand::StorageClass(StorageClass::Function)],
        );
        self.b
            .insert_into_block(InsertPoint::Begin, inst)
            .expect("entry block selected");
        self.b
            .select_block(current)
            .expect("restoring the selected block");
        if let Some(n) = name {
            self.b.name(id, n);
        }
        id
    }

    // ----- interface -----

    fn declare_buffers(&mut self) {
        for (i, p) in self.k.params.iter().enumerate() {
            let ParamKind::Buffer { elem, writable, .. } = p.kind else {
                self.buffers.push(None);
                self.layout_facts.push(None);
                continue;
            };
            let ParamSlot::Buffer { binding, .. } = self.layout.params[i] else {
                unreachable!("layout follows params")
            };
            let var = self.storage_buffer(elem, binding, &p.name);
            if !writable {
                self.b.decorate(var, spirv::Decoration::NonWritable, []);
            }
            let elem_ty = self.storage_elem_ty(elem);
            let elem_ptr = self.ptr(elem_ty, StorageClass::StorageBuffer);
            self.buffers.push(Some(BufferVar { var, elem_ptr }));
            // What the runtime knows of each launch's views (offset 0, row-major strides,
            // extents equal to the domain's) reaches the kernel as a specialization constant:
            // the driver then folds the general address arithmetic down to what a
            // hand-written shader has, and shares one value where GLSL would name one
            // (lavapipe ran vector add ~10 % and the simple matmul ~7 % slower without).
            let u = self.scalar_ty(Scalar::U32);
            let facts = self.b.spec_constant_bit32(u, 0);
            self.b.decorate(
                facts,
                spirv::Decoration::SpecId,
                [Operand::LiteralBit32(crate::LAYOUT_SPEC_ID_BASE + binding)],
            );
            self.b.name(facts, format!("{}_layout", p.name));
            self.layout_facts.push(Some(facts));
        }
        if let Some(binding) = self.oob.as_ref().map(|o| o.binding) {
            let var = self.storage_buffer(
                Elem::Scalar(Scalar::U32),
                binding,
                "amp_out_of_bounds_report",
            );
            let record = self.b.id();
            let oob = self.oob.as_mut().expect("checked above");
            oob.var = var;
            oob.record = record;
        }
    }

    /// Whether buffer `p`'s layout facts have `bit` set: a boolean specialization constant
    /// (`(facts & bit) != 0`), folded by the driver when the pipeline is specialized.
    fn layout_fact(&mut self, p: ParamId, bit: u32) -> Word {
        if let Some(&id) = self.fact_bools.get(&(p, bit)) {
            return id;
        }
        let facts = self.layout_facts[p].expect("buffer params have layout facts");
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
        let inst = self
            .b
            .module_mut()
            .types_global_values
            .last_mut()
            .expect("just appended");
        inst.operands
            .extend(operands.iter().map(|&w| Operand::IdRef(w)));
        id
    }

    /// A storage buffer in set 0 at `binding`: a block holding a runtime array of `elem`.
    fn storage_buffer(&mut self, elem: Elem, binding: u32, name: &str) -> Word {
        let elem_ty = self.storage_elem_ty(elem);
        let rta = self.b.type_runtime_array(elem_ty);
        let block = self.b.type_struct([rta]);
        if self.decorated.insert(rta) {
            self.b.decorate(
                rta,
                spirv::Decoration::ArrayStride,
                [Operand::LiteralBit32(Self::storage_elem_bytes(elem))],
            );
        }
        if self.decorated.insert(block) {
            self.b.decorate(block, spirv::Decoration::Block, []);
            self.b.member_decorate(
                block,
                0,
                spirv::Decoration::Offset,
                [Operand::LiteralBit32(0)],
            );
        }
        let ptr = self.ptr(block, StorageClass::StorageBuffer);
        let var = self
            .b
            .variable(ptr, None, StorageClass::StorageBuffer, None);
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
        self.b.name(var, name);
        var
    }

    fn declare_push_constants(&mut self) {
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
    fn push_member(&mut self, member: u32) -> Word {
        let m = self.layout.members[member as usize];
        let ty = self.scalar_ty(m.ty);
        let ptr_ty = self.ptr(ty, StorageClass::PushConstant);
        let idx = self.const_u32(member);
        let push = self.push.expect("members exist, so the block was declared");
        let ptr = self.access(ptr_ty, push, &[idx]);
        self.load(ty, ptr)
    }

    /// Rebuilds a by-value vector or struct parameter from its scalar push-constant members,
    /// taken from `members` in [`layout::leaves`] order.
    fn push_value(&mut self, ty: &Ty, members: &mut std::ops::RangeFrom<u32>) -> Word {
        let parts: Vec<Word> = match ty {
            Ty::Scalar(_) => {
                let member = members.next().expect("one member per scalar");
                return self.push_member(member);
            }
            Ty::Vector(s, n) => (0..*n)
                .map(|_| self.push_value(&Ty::Scalar(*s), members))
                .collect(),
            Ty::Struct(id) => crate::structs::get(*id)
                .fields
                .iter()
                .map(|f| self.push_value(&f.ty, members))
                .collect(),
            other => {
                unreachable!("by-value parameters are scalars, vectors or structs, not {other}")
            }
        };
        let t = self.ty(ty);
        self.b.composite_construct(t, None, parts).expect("open")
    }

    fn builtin_input(&mut self, builtin: spirv::BuiltIn, name: &str) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let v3 = self.b.type_vector(u, 3);
        let ptr = self.ptr(v3, StorageClass::Input);
        let var = self.b.variable(ptr, None, StorageClass::Input, None);
        self.b
            .decorate(var, spirv::Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        self.b.name(var, name);
        var
    }

    // ----- the kernel -----

    fn kernel(&mut self) {
        self.declare_spec_constants();
        self.declare_buffers();
        self.declare_push_constants();
        let tiled = self.k.tiled.is_some();
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
            .expect("no function is open");
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
        if tiled {
            self.tiled_prologue(interface[0], interface[1], interface[2]);
        } else {
            self.prologue(interface[0], interface[1]);
        }
        self.block(&self.k.body);
        if !self.terminated() {
            self.return_from_main();
        }
        self.b.end_function().expect("the function is open");
        self.record_out_of_bounds_function();
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

    /// A `tile_static` variable: `Workgroup` storage, shared by the tile, never initialised.
    fn workgroup_var(&mut self, ty: &Ty, name: &str) -> Word {
        let t = self.ty(ty);
        let ptr = self.ptr(t, StorageClass::Workgroup);
        // Module-level variables live among the types and constants, outside the function.
        let inst = dr::Instruction::new(
            Op::Variable,
            Some(ptr),
            Some(self.b.id()),
            vec![Operand::StorageClass(StorageClass::Workgroup)],
        );
        let id = inst.result_id.expect("set above");
        self.b.insert_types_global_values(InsertPoint::End, inst);
        self.b.name(id, name);
        id
    }

    /// The storage class of a local's variable.
    fn local_class(&self, id: LocalId) -> StorageClass {
        match self.k.locals[id].storage {
            Storage::Function => StorageClass::Function,
            Storage::TileStatic => StorageClass::Workgroup,
        }
    }

    /// The tiled index: `local` from the invocation id, `tile` from the workgroup id (folded
    /// onto y for rank 1), `global = tile * size + local`, `tile_origin = tile * size`.
    fn tiled_prologue(&mut self, lid_var: Word, wid_var: Word, nwg_var: Word) {
        let tiled = self.k.tiled.clone().expect("tiled kernel");
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
                    .expect("open")
            })
            .collect();
        let mut tile: Vec<Word> = (0..rank)
            .map(|d| {
                self.b
                    .composite_extract(u, None, wid, [axis(d)])
                    .expect("open")
            })
            .collect();
        if rank == 1 {
            // Rank 1 may be folded onto y when there are more tiles than workgroups along x;
            // whole workgroups past the last tile leave at once, so barriers stay uniform.
            let nwg = self.load(v3, nwg_var);
            let nx = self.b.composite_extract(u, None, nwg, [0]).expect("open");
            let wy = self.b.composite_extract(u, None, wid, [1]).expect("open");
            let row = self.op(Op::IMul, u, &[wy, nx]);
            tile[0] = self.op(Op::IAdd, u, &[tile[0], row]);
            // `tile < extent / size` as `tile * size < extent`: no division per thread
            // (lavapipe lowers one to a long sequence, ~1.5 % of a tree reduction). The
            // runtime folds the grid so that `tile * size` never exceeds `u32::MAX`.
            let extent = self.push_member(0);
            let bool_ty = self.scalar_ty(Scalar::Bool);
            let origin = self.op(Op::IMul, u, &[tile[0], size[0]]);
            let inside = self.op(Op::ULessThan, bool_ty, &[origin, extent]);
            let (cont, out) = (self.b.id(), self.b.id());
            self.b
                .selection_merge(cont, spirv::SelectionControl::NONE)
                .expect("open");
            self.b
                .branch_conditional(inside, cont, out, [])
                .expect("open");
            self.begin(out);
            self.b.ret().expect("open");
            self.begin(cont);
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

    /// An atomic operation, relaxed, at the scope of the memory it touches: the device for views
    /// and arrays, the tile for `tile_static` memory.
    ///
    /// In a checked kernel an atomic on an out-of-bounds element does nothing and returns 0,
    /// as if the element were a constant 0 (a compare-exchange then succeeds iff `expected` is
    /// 0 and stores 0 into `expected` otherwise, so compare-exchange loops still end).
    fn atomic(&mut self, a: &Atomic) -> Option<Word> {
        let value = match &a.value {
            Some(v) => Some(self.expr(v)?),
            None => None,
        };
        let target = self.target(&a.target)?;
        let s = self.place_ty(&a.target).scalar()?;
        let t = self.scalar_ty(s);
        let scope = match &a.target {
            Place::Buffer(..) => spirv::Scope::Device,
            Place::Local(..) => spirv::Scope::Workgroup,
        };
        let scope = self.const_u32(scope as u32);
        let relaxed = self.const_u32(0);
        let signed = s.is_signed_int();
        let binary = |op| (op, true);
        let (opcode, with_value) = match a.op {
            // The front end allows only add and exchange on `f32`.
            AtomicOp::Add if s == Scalar::F32 => {
                self.uses_atomic_float_add = true;
                binary(Op::AtomicFAddEXT)
            }
            AtomicOp::Add => binary(Op::AtomicIAdd),
            AtomicOp::Sub => binary(Op::AtomicISub),
            AtomicOp::Min => binary(if signed {
                Op::AtomicSMin
            } else {
                Op::AtomicUMin
            }),
            AtomicOp::Max => binary(if signed {
                Op::AtomicSMax
            } else {
                Op::AtomicUMax
            }),
            AtomicOp::And => binary(Op::AtomicAnd),
            AtomicOp::Or => binary(Op::AtomicOr),
            AtomicOp::Xor => binary(Op::AtomicXor),
            AtomicOp::Exchange => binary(Op::AtomicExchange),
            AtomicOp::Inc => (Op::AtomicIIncrement, false),
            AtomicOp::Dec => (Op::AtomicIDecrement, false),
            AtomicOp::CompareExchange => {
                let expected_ptr = match a.expected.as_ref()? {
                    Place::Local(id, idx) => self.local_ptr(*id, idx)?,
                    Place::Buffer(..) => return None, // rejected by the front end
                };
                let expected = self.load(t, expected_ptr);
                let new = value?;
                let result_ty = self.scalar_ty(s);
                let old = self.access_target(target, Some(result_ty), |e, ptr| {
                    Some(e.op(
                        Op::AtomicCompareExchange,
                        t,
                        &[ptr, scope, relaxed, relaxed, new, expected],
                    ))
                })?;
                // C++ AMP: on failure `expected` receives the current value; on success it
                // already holds it.
                self.store(expected_ptr, old);
                let b = self.scalar_ty(Scalar::Bool);
                return Some(self.op(Op::IEqual, b, &[old, expected]));
            }
        };
        let operands = match (with_value, value) {
            (true, Some(v)) => vec![scope, relaxed, v],
            (true, None) => return None,
            (false, _) => vec![scope, relaxed],
        };
        let result_ty = self.scalar_ty(s);
        self.access_target(target, Some(result_ty), |e, ptr| {
            let mut all = vec![ptr];
            all.extend(operands);
            Some(e.op(opcode, t, &all))
        })
    }

    /// `OpControlBarrier` for `t.barrier.wait*()`: every thread of the tile waits, and the
    /// fenced memory's writes before the barrier are visible to the tile after it.
    fn barrier(&mut self, fence: Fence) {
        let (memory_scope, semantics) = fence_scope(fence);
        let exec = self.const_u32(spirv::Scope::Workgroup as u32);
        let mem = self.const_u32(memory_scope as u32);
        let sem = self.const_u32(semantics.bits());
        self.b.control_barrier(exec, mem, sem).expect("open");
    }

    /// `OpMemoryBarrier` for `*_memory_fence(t.barrier)`: orders this thread's accesses.
    fn memory_fence(&mut self, fence: Fence) {
        let (memory_scope, semantics) = fence_scope(fence);
        let mem = self.const_u32(memory_scope as u32);
        let sem = self.const_u32(semantics.bits());
        self.b.memory_barrier(mem, sem).expect("open");
    }

    /// Linear thread id from the folded dispatch grid, the out-of-domain guard, and the index.
    fn prologue(&mut self, gid_var: Word, nwg_var: Word) {
        let u = self.scalar_ty(Scalar::U32);
        let v3 = self.b.type_vector(u, 3);
        let gid = self.load(v3, gid_var);
        let nwg = self.load(v3, nwg_var);
        let gx = self.b.composite_extract(u, None, gid, [0]).expect("open");
        let gy = self.b.composite_extract(u, None, gid, [1]).expect("open");
        let nx = self.b.composite_extract(u, None, nwg, [0]).expect("open");
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
        let (cont, out) = (self.b.id(), self.b.id());
        self.b
            .selection_merge(cont, spirv::SelectionControl::NONE)
            .expect("open");
        self.b
            .branch_conditional(inside, cont, out, [])
            .expect("open");
        self.begin(out);
        self.b.ret().expect("open");
        self.begin(cont);

        // Row-major unflattening: the last dimension varies fastest.
        let idx_var = self.locals[self.k.index_local].expect("the index is not zero-sized");
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

    // ----- blocks and statements -----

    fn block(&mut self, block: &Block) -> Option<Word> {
        for s in &block.stmts {
            if self.terminated() {
                return None;
            }
            match s {
                // `tile_static` memory is undefined until written (C++ AMP's semantics).
                Stmt::Let(id, None) if self.k.locals[*id].storage == Storage::TileStatic => {}
                Stmt::Let(id, init) => {
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

    // ----- expressions -----

    /// Emits an expression; `None` for `()` values and when control left the block.
    fn expr(&mut self, e: &Expr) -> Option<Word> {
        if self.terminated() {
            return None;
        }
        match &e.kind {
            ExprKind::Lit(l) => {
                let s = e.ty.scalar()?;
                Some(self.const_scalar(s, *l))
            }
            ExprKind::Local(id) => {
                let var = self.locals[*id]?;
                let t = self.ty(&e.ty);
                Some(self.load(t, var))
            }
            ExprKind::ScalarParam(id) => {
                let member = match self.layout.params[*id] {
                    ParamSlot::Scalar { member } => member,
                    ParamSlot::Value { first_member, .. } => {
                        return Some(self.push_value(&e.ty, &mut (first_member..)));
                    }
                    ParamSlot::Buffer { .. } => unreachable!("value params have value slots"),
                };
                let raw = self.push_member(member);
                if e.ty == Ty::BOOL {
                    let (b, u) = (self.scalar_ty(Scalar::Bool), self.scalar_ty(Scalar::U32));
                    let zero = self.constant(u, 0, false);
                    Some(self.op(Op::INotEqual, b, &[raw, zero]))
                } else {
                    Some(raw)
                }
            }
            ExprKind::Unary(op, a) => {
                let v = self.expr(a)?;
                let t = self.ty(&e.ty);
                let s = e.ty.component()?;
                let opcode = match (op, s) {
                    (UnOp::Neg, s) if s.is_float() => Op::FNegate,
                    (UnOp::Neg, _) => Op::SNegate,
                    (UnOp::Not, Scalar::Bool) => Op::LogicalNot,
                    (UnOp::Not, _) => Op::Not,
                };
                let id = self.op(opcode, t, &[v]);
                if opcode == Op::FNegate {
                    self.exact(id);
                }
                Some(id)
            }
            ExprKind::Binary(op, a, b) => {
                let l = self.expr(a)?;
                let r = self.expr(b)?;
                let operand = a.ty.component()?;
                Some(self.binary(*op, operand, &b.ty, l, r, &e.ty))
            }
            ExprKind::Logic(op, a, b) => self.logic(*op, a, b),
            ExprKind::Cast(a) => {
                let v = self.expr(a)?;
                let (from, to) = (a.ty.scalar()?, e.ty.scalar()?);
                Some(self.cast(v, from, to))
            }
            ExprKind::Element(base, index) => self.element(e, base, index),
            ExprKind::BufferLoad(p, idx) => {
                let target = self.buffer_target(*p, idx)?;
                match target {
                    Target::Checked {
                        param,
                        index,
                        checks,
                    } if e.ty.scalar().is_some() => {
                        let s = e.ty.scalar()?;
                        Some(self.checked_load(param, &index, &checks, s))
                    }
                    target => {
                        let ty = e.ty.clone();
                        let zero = self.ty(&ty);
                        self.access_target(target, Some(zero), |e, ptr| {
                            Some(e.load_buffer_elem(&ty, ptr))
                        })
                    }
                }
            }
            ExprKind::BufferExtent(p) => {
                let parts = self.buffer_extent(*p);
                let t = self.ty(&e.ty);
                Some(self.b.composite_construct(t, None, parts).expect("open"))
            }
            ExprKind::ArrayList(list) => {
                let mut parts = Vec::with_capacity(list.len());
                for item in list {
                    parts.push(self.expr(item)?);
                }
                let t = self.ty(&e.ty);
                Some(self.b.composite_construct(t, None, parts).expect("open"))
            }
            ExprKind::ArrayRepeat(item, n) => {
                let v = self.expr(item)?;
                let t = self.ty(&e.ty);
                Some(
                    self.b
                        .composite_construct(t, None, vec![v; *n as usize])
                        .expect("open"),
                )
            }
            ExprKind::Builtin(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                let s = e.ty.component()?;
                let t = self.ty(&e.ty);
                if let Some(id) = self.geometric(*f, t, &vals) {
                    return Some(id);
                }
                let inst = match (f, s) {
                    (Builtin::Min, s) if s.is_float() => glsl::NMIN,
                    (Builtin::Min, Scalar::I32) => glsl::SMIN,
                    (Builtin::Min, _) => glsl::UMIN,
                    (Builtin::Max, s) if s.is_float() => glsl::NMAX,
                    (Builtin::Max, Scalar::I32) => glsl::SMAX,
                    (Builtin::Max, _) => glsl::UMAX,
                    (Builtin::Abs, s) if s.is_float() => glsl::FABS,
                    (Builtin::Abs, _) => glsl::SABS,
                    (Builtin::Dot | Builtin::Length | Builtin::Normalize | Builtin::Cross, _) => {
                        unreachable!("geometric() lowered them")
                    }
                };
                Some(self.ext(inst, t, &vals))
            }
            ExprKind::Math(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                let s = args[0].ty.scalar()?;
                Some(self.math(*f, s, &vals))
            }
            ExprKind::If(cond, then, els) => self.if_expr(e, cond, then, els.as_deref()),
            ExprKind::Block(b) => self.block(b),
            ExprKind::While(cond, body) => {
                self.while_loop(Some(cond), body);
                None
            }
            ExprKind::Loop(body) => {
                self.while_loop(None, body);
                None
            }
            ExprKind::For(r) => {
                self.for_loop(r);
                None
            }
            ExprKind::OuterConst(k) => Some(self.spec[*k]),
            ExprKind::Atomic(a) => self.atomic(a),
            ExprKind::Barrier(fence) => {
                self.barrier(*fence);
                None
            }
            ExprKind::MemoryFence(fence) => {
                self.memory_fence(*fence);
                None
            }
            ExprKind::Break => {
                let target = self
                    .loops
                    .last()
                    .expect("checked: break inside a loop")
                    .merge;
                self.branch(target);
                None
            }
            ExprKind::Continue => {
                let target = self
                    .loops
                    .last()
                    .expect("checked: continue inside a loop")
                    .cont;
                self.branch(target);
                None
            }
            ExprKind::Return => {
                self.return_from_main();
                None
            }
            ExprKind::Assign(place, value) => {
                let v = self.expr(value)?;
                let target = self.target(place)?;
                let place_ty = self.place_ty(place);
                let buffer = matches!(place, Place::Buffer(..));
                self.access_target(target, None, |e, ptr| {
                    if buffer {
                        e.store_buffer_elem(&place_ty, ptr, v);
                    } else {
                        e.store(ptr, v);
                    }
                    None
                })
            }
            ExprKind::CompoundAssign(op, place, value) => {
                // Rust evaluates the right operand first for primitive compound assignment.
                let r = self.expr(value)?;
                let target = self.target(place)?;
                let ty = self.place_ty(place);
                let t = self.ty(&ty);
                let s = ty.component()?;
                let rhs_ty = &value.ty;
                let buffer = matches!(place, Place::Buffer(..));
                self.access_target(target, None, |e, ptr| {
                    let cur = if buffer {
                        e.load_buffer_elem(&ty, ptr)
                    } else {
                        e.load(t, ptr)
                    };
                    let v = e.binary(*op, s, rhs_ty, cur, r, &ty);
                    if buffer {
                        e.store_buffer_elem(&ty, ptr, v);
                    } else {
                        e.store(ptr, v);
                    }
                    None
                })
            }
        }
    }

    fn binary(
        &mut self,
        op: BinOp,
        operand: Scalar,
        rhs_ty: &Ty,
        l: Word,
        r: Word,
        result: &Ty,
    ) -> Word {
        let t = self.ty(result);
        let float = operand.is_float();
        let signed = operand.is_signed_int();
        let boolean = operand == Scalar::Bool;
        use OperandKind::{Bool, Float, Signed, Unsigned};
        let kind = if float {
            Float
        } else if signed {
            Signed
        } else if boolean {
            Bool
        } else {
            Unsigned
        };
        let opcode = match (op, kind) {
            (BinOp::Add, Float) => Op::FAdd,
            (BinOp::Add, _) => Op::IAdd,
            (BinOp::Sub, Float) => Op::FSub,
            (BinOp::Sub, _) => Op::ISub,
            (BinOp::Mul, Float) => Op::FMul,
            (BinOp::Mul, _) => Op::IMul,
            (BinOp::Div, Float) => Op::FDiv,
            (BinOp::Div, Signed) => Op::SDiv,
            (BinOp::Div, _) => Op::UDiv,
            (BinOp::Rem, Float) => Op::FRem,
            (BinOp::Rem, Signed) => Op::SRem,
            (BinOp::Rem, _) => Op::UMod,
            (BinOp::BitAnd, Bool) => Op::LogicalAnd,
            (BinOp::BitAnd, _) => Op::BitwiseAnd,
            (BinOp::BitOr, Bool) => Op::LogicalOr,
            (BinOp::BitOr, _) => Op::BitwiseOr,
            (BinOp::BitXor, Bool) => Op::LogicalNotEqual,
            (BinOp::BitXor, _) => Op::BitwiseXor,
            (BinOp::Eq, Float) => Op::FOrdEqual,
            (BinOp::Eq, Bool) => Op::LogicalEqual,
            (BinOp::Eq, _) => Op::IEqual,
            // NaN != NaN is true in Rust.
            (BinOp::Ne, Float) => Op::FUnordNotEqual,
            (BinOp::Ne, Bool) => Op::LogicalNotEqual,
            (BinOp::Ne, _) => Op::INotEqual,
            (BinOp::Lt, Float) => Op::FOrdLessThan,
            (BinOp::Lt, Signed) => Op::SLessThan,
            (BinOp::Lt, _) => Op::ULessThan,
            (BinOp::Le, Float) => Op::FOrdLessThanEqual,
            (BinOp::Le, Signed) => Op::SLessThanEqual,
            (BinOp::Le, _) => Op::ULessThanEqual,
            (BinOp::Gt, Float) => Op::FOrdGreaterThan,
            (BinOp::Gt, Signed) => Op::SGreaterThan,
            (BinOp::Gt, _) => Op::UGreaterThan,
            (BinOp::Ge, Float) => Op::FOrdGreaterThanEqual,
            (BinOp::Ge, Signed) => Op::SGreaterThanEqual,
            (BinOp::Ge, _) => Op::UGreaterThanEqual,
            (BinOp::Shl | BinOp::Shr, _) => {
                // Rust's release-mode shifts use the amount modulo the width; SPIR-V leaves
                // larger amounts undefined, so mask explicitly.
                let lt = self.scalar_ty(operand);
                let r = match rhs_ty.scalar() {
                    Some(rs) if self.scalar_ty(rs) != lt => self.op(Op::Bitcast, lt, &[r]),
                    _ => r,
                };
                let mask = self.constant(lt, 31, false);
                let amount = self.op(Op::BitwiseAnd, lt, &[r, mask]);
                let opcode = match (op, signed) {
                    (BinOp::Shl, _) => Op::ShiftLeftLogical,
                    (_, true) => Op::ShiftRightArithmetic,
                    _ => Op::ShiftRightLogical,
                };
                return self.op(opcode, t, &[l, amount]);
            }
        };
        if let (Ty::Vector(_, n), BinOp::Div | BinOp::Rem, Signed | Unsigned) = (result, op, kind) {
            return self.componentwise(op, operand, *n, l, r);
        }
        // A constant divisor other than 0 (and -1 for `i32`) needs no guard.
        let safe_divisor = self
            .constant_bits
            .get(&r)
            .is_some_and(|&d| d != 0 && !(matches!(kind, Signed) && d == u32::MAX as u64));
        if matches!(op, BinOp::Div | BinOp::Rem)
            && matches!(kind, Signed | Unsigned)
            && !safe_divisor
        {
            return self.integer_division(op, kind, t, l, r);
        }
        let id = self.op(opcode, t, &[l, r]);
        if float && !op.is_comparison() {
            self.exact(id);
        }
        id
    }

    /// Integer `/` and `%` with every case defined (SPIR-V leaves division by zero and
    /// `i32::MIN / -1` undefined, and a GPU cannot panic as Rust does): `x / 0` is all ones (`-1`,
    /// `u32::MAX`), `x % 0` is `x` (RISC-V's choice), and `i32::MIN / -1` wraps to `i32::MIN`
    /// with remainder 0 (Rust's `wrapping_div` / `wrapping_rem`).
    fn integer_division(
        &mut self,
        op: BinOp,
        kind: OperandKind,
        t: Word,
        l: Word,
        r: Word,
    ) -> Word {
        let b = self.scalar_ty(Scalar::Bool);
        let zero = self.constant(t, 0, false);
        let one = self.constant(t, 1, false);
        let by_zero = self.op(Op::IEqual, b, &[r, zero]);
        let mut unsafe_divisor = by_zero;
        if matches!(kind, OperandKind::Signed) {
            let min = self.constant(t, 1 << 31, false);
            let minus_one = self.constant(t, u32::MAX as u64, false);
            let is_min = self.op(Op::IEqual, b, &[l, min]);
            let is_minus_one = self.op(Op::IEqual, b, &[r, minus_one]);
            let overflow = self.op(Op::LogicalAnd, b, &[is_min, is_minus_one]);
            unsafe_divisor = self.op(Op::LogicalOr, b, &[by_zero, overflow]);
        }
        // Divide by 1 where the real divisor is undefined; fix the result up below.
        let divisor = self.op(Op::Select, t, &[unsafe_divisor, one, r]);
        let signed = matches!(kind, OperandKind::Signed);
        let (opcode, when_zero) = match (op, signed) {
            (BinOp::Div, true) => (Op::SDiv, self.constant(t, u32::MAX as u64, false)),
            (BinOp::Div, false) => (Op::UDiv, self.constant(t, u32::MAX as u64, false)),
            (_, true) => (Op::SRem, l),
            (_, false) => (Op::UMod, l),
        };
        // `MIN / 1` is MIN and `MIN % 1` is 0: the wrapping results, as they should be.
        let q = self.op(opcode, t, &[l, divisor]);
        self.op(Op::Select, t, &[by_zero, when_zero, q])
    }

    /// A math function on `s` (`f32` or `f64`) arguments.
    fn math(&mut self, f: MathFn, s: Scalar, a: &[Word]) -> Word {
        use MathFn::*;
        let t = self.scalar_ty(s);
        let b = self.scalar_ty(Scalar::Bool);
        let c = |e: &mut Self, v: f64| e.const_scalar(s, Lit::Float(v, v as f32));
        let glsl_op = |f: MathFn| -> Option<u32> {
            Some(match f {
                Sin => 13,
                Cos => 14,
                Tan => 15,
                Asin => 16,
                Acos => 17,
                Atan => 18,
                Sinh => 19,
                Cosh => 20,
                Tanh => 21,
                Asinh => 22,
                Acosh => 23,
                Atanh => 24,
                Atan2 => 25,
                Exp => 27,
                Log => 28,
                Exp2 => 29,
                Log2 => 30,
                Sqrt => 31,
                Rsqrt => 32,
                Floor => 8,
                Ceil => 9,
                Trunc => 3,
                _ => return None,
            })
        };
        if let Some(v) = self.math_any_width(f, s, a) {
            return v;
        }
        if s == Scalar::F64 {
            if let Some(v) = self.math_f64(f, a) {
                return v;
            }
        }
        if let Some(inst) = glsl_op(f) {
            return self.ext(inst, t, a);
        }
        let x = a[0];
        match f {
            Exp10 => {
                let k = c(self, std::f64::consts::LOG2_10);
                let y = self.op(Op::FMul, t, &[x, k]);
                self.ext(29, t, &[y])
            }
            Expm1 => {
                let e = self.ext(27, t, &[x]);
                let one = c(self, 1.0);
                self.op(Op::FSub, t, &[e, one])
            }
            Log10 => {
                let l = self.ext(30, t, &[x]);
                let k = c(self, std::f64::consts::LOG10_2);
                self.op(Op::FMul, t, &[l, k])
            }
            Log1p => {
                let one = c(self, 1.0);
                let y = self.op(Op::FAdd, t, &[x, one]);
                self.ext(28, t, &[y])
            }
            Pow => self.pow(s, x, a[1]),
            // Rust and C round halfway cases away from zero; GLSL's Round leaves them to the
            // implementation.
            Round => {
                let tr = self.ext(3, t, &[x]);
                let diff = self.op(Op::FSub, t, &[x, tr]);
                let ad = self.ext(4, t, &[diff]);
                let half = c(self, 0.5);
                let up = self.op(Op::FOrdGreaterThanEqual, b, &[ad, half]);
                let sign = self.ext(6, t, &[x]);
                // Select rather than add 0.0: `trunc(-0.25) + 0.0` would lose the sign of -0.0.
                let stepped = self.op(Op::FAdd, t, &[tr, sign]);
                self.op(Op::Select, t, &[up, stepped, tr])
            }
            // Rust's `fract` keeps the sign of `x` (GLSL's Fract is `x - floor(x)`).
            Fract => {
                let tr = self.ext(3, t, &[x]);
                self.op(Op::FSub, t, &[x, tr])
            }
            Fmod => self.op(Op::FRem, t, &[x, a[1]]),
            Hypot => {
                let xx = self.op(Op::FMul, t, &[x, x]);
                let yy = self.op(Op::FMul, t, &[a[1], a[1]]);
                let sum = self.op(Op::FAdd, t, &[xx, yy]);
                self.ext(31, t, &[sum])
            }
            Cbrt => {
                let ax = self.ext(4, t, &[x]);
                let third = c(self, 1.0 / 3.0);
                let r = self.ext(26, t, &[ax, third]);
                self.copysign(s, r, x)
            }
            Copysign => self.copysign(s, x, a[1]),
            Fdim => {
                let d = self.op(Op::FSub, t, &[x, a[1]]);
                let zero = c(self, 0.0);
                let gt = self.op(Op::FOrdGreaterThan, b, &[x, a[1]]);
                let nan = self.op(Op::IsNan, b, &[d]);
                let r = self.op(Op::Select, t, &[gt, d, zero]);
                self.op(Op::Select, t, &[nan, d, r])
            }
            Rcp => {
                let one = c(self, 1.0);
                self.op(Op::FDiv, t, &[one, x])
            }
            IsNan => self.op(Op::IsNan, b, &[x]),
            IsInf => self.op(Op::IsInf, b, &[x]),
            IsFinite => {
                let n = self.op(Op::IsNan, b, &[x]);
                let i = self.op(Op::IsInf, b, &[x]);
                let either = self.op(Op::LogicalOr, b, &[n, i]);
                self.op(Op::LogicalNot, b, &[either])
            }
            // Rust: 1.0 for +0.0 and positives, -1.0 for -0.0 and negatives, NaN for NaN.
            Signum => {
                let one = c(self, 1.0);
                let r = self.copysign(s, one, x);
                let nan = self.op(Op::IsNan, b, &[x]);
                self.op(Op::Select, t, &[nan, x, r])
            }
            ToDegrees => {
                let k = c(self, 180.0 / std::f64::consts::PI);
                self.op(Op::FMul, t, &[x, k])
            }
            ToRadians => {
                let k = c(self, std::f64::consts::PI / 180.0);
                self.op(Op::FMul, t, &[x, k])
            }
            // Rust's `clamp` keeps a NaN `x`.
            Clamp => {
                let lo = self.ext(glsl::NMAX, t, &[x, a[1]]);
                let r = self.ext(glsl::NMIN, t, &[lo, a[2]]);
                let nan = self.op(Op::IsNan, b, &[x]);
                self.op(Op::Select, t, &[nan, x, r])
            }
            _ => unreachable!("handled by GLSL.std.450 above"),
        }
    }

    /// `|x|` with the sign of `y`, through the sign bit (f32) or a comparison (f64, which has no
    /// 64-bit integer to hold its bits without the `Int64` capability).
    fn copysign(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        let t = self.scalar_ty(s);
        if s == Scalar::F32 {
            let u = self.scalar_ty(Scalar::U32);
            let xb = self.op(Op::Bitcast, u, &[x]);
            let yb = self.op(Op::Bitcast, u, &[y]);
            let magnitude = self.constant(u, 0x7fff_ffff, false);
            let sign = self.constant(u, 0x8000_0000, false);
            let xm = self.op(Op::BitwiseAnd, u, &[xb, magnitude]);
            let ys = self.op(Op::BitwiseAnd, u, &[yb, sign]);
            let r = self.op(Op::BitwiseOr, u, &[xm, ys]);
            return self.op(Op::Bitcast, t, &[r]);
        }
        let b = self.scalar_ty(Scalar::Bool);
        let ax = self.ext(4, t, &[x]);
        let neg = self.op(Op::FNegate, t, &[ax]);
        let zero = self.const_scalar(s, Lit::Float(0.0, 0.0));
        let one = self.const_scalar(s, Lit::Float(1.0, 1.0));
        // A negative y, or -0.0 (1 / -0.0 is -inf).
        let below = self.op(Op::FOrdLessThan, b, &[y, zero]);
        let inv = self.op(Op::FDiv, t, &[one, y]);
        let neg_zero = self.op(Op::FOrdLessThan, b, &[inv, zero]);
        let negative = self.op(Op::LogicalOr, b, &[below, neg_zero]);
        self.op(Op::Select, t, &[negative, neg, ax])
    }

    /// Rust's `powf` (and C's `pow`) on every input: GLSL's Pow is undefined for `x < 0` and for
    /// `x == 0, y <= 0`, so those cases are computed here (negative `x` with an integer `y`
    /// takes the sign of the odd power; otherwise NaN; `pow(x, 0)` is 1 even for NaN).
    fn pow(&mut self, s: Scalar, x: Word, y: Word) -> Word {
        let t = self.scalar_ty(s);
        let b = self.scalar_ty(Scalar::Bool);
        let k = |e: &mut Self, v: f64| e.const_scalar(s, Lit::Float(v, v as f32));
        let (zero, one, two) = (k(self, 0.0), k(self, 1.0), k(self, 2.0));
        let inf = k(self, f64::INFINITY);
        let nan = k(self, f64::NAN);
        let ax = self.ext(4, t, &[x]);
        let p = if s == Scalar::F64 {
            self.pow_abs64(ax, y)
        } else {
            self.ext(26, t, &[ax, y])
        };
        // |x| == 0: 0 for y > 0, +inf for y < 0.
        let x_zero = self.op(Op::FOrdEqual, b, &[ax, zero]);
        let y_neg = self.op(Op::FOrdLessThan, b, &[y, zero]);
        let at_zero = self.op(Op::Select, t, &[y_neg, inf, zero]);
        let p = self.op(Op::Select, t, &[x_zero, at_zero, p]);
        // x < 0: an integer y keeps the magnitude, negated for odd y; otherwise NaN.
        let y_trunc = self.ext(3, t, &[y]);
        let y_int = self.op(Op::FOrdEqual, b, &[y_trunc, y]);
        let half = self.op(Op::FRem, t, &[y, two]);
        let odd_rem = self.op(Op::FUnordNotEqual, b, &[half, zero]);
        let odd = self.op(Op::LogicalAnd, b, &[odd_rem, y_int]);
        let negp = self.op(Op::FNegate, t, &[p]);
        let signed = self.op(Op::Select, t, &[odd, negp, p]);
        // (-inf)^y is +inf or +0 for a y that is not an odd integer (C's pow, Rust's powf).
        let neg_inf = k(self, f64::NEG_INFINITY);
        let x_neg_inf = self.op(Op::FOrdEqual, b, &[x, neg_inf]);
        let signed_or_inf = self.op(Op::LogicalOr, b, &[y_int, x_neg_inf]);
        let for_neg = self.op(Op::Select, t, &[signed_or_inf, signed, nan]);
        let x_neg = self.op(Op::FOrdLessThan, b, &[x, zero]);
        let r = self.op(Op::Select, t, &[x_neg, for_neg, p]);
        let y_zero = self.op(Op::FOrdEqual, b, &[y, zero]);
        self.op(Op::Select, t, &[y_zero, one, r])
    }

    fn cast(&mut self, v: Word, from: Scalar, to: Scalar) -> Word {
        let (ft, tt) = (self.scalar_ty(from), self.scalar_ty(to));
        if ft == tt {
            return v;
        }
        match (from, to) {
            (Scalar::Bool, _) => {
                let one = self.const_scalar(to, Lit::Int(1));
                let zero = self.const_scalar(to, Lit::Int(0));
                self.op(Op::Select, tt, &[v, one, zero])
            }
            (f, t) if f.is_int() && t.is_int() => self.op(Op::Bitcast, tt, &[v]),
            (f, t) if f.is_int() && t.is_float() => self.op(
                if f.is_signed_int() {
                    Op::ConvertSToF
                } else {
                    Op::ConvertUToF
                },
                tt,
                &[v],
            ),
            (f, t) if f.is_float() && t.is_float() => self.op(Op::FConvert, tt, &[v]),
            _ => self.saturating_float_to_int(v, from, to),
        }
    }

    /// Rust's `as` from float to integer: truncate, saturate at the bounds, NaN to 0. SPIR-V
    /// leaves out-of-range conversions undefined, so the bounds are checked explicitly.
    fn saturating_float_to_int(&mut self, v: Word, from: Scalar, to: Scalar) -> Word {
        let tt = self.scalar_ty(to);
        let b = self.scalar_ty(Scalar::Bool);
        let signed = to.is_signed_int();
        let (lo, hi_excl, min, max): (f64, f64, u128, u128) = if signed {
            (-2147483648.0, 2147483648.0, 1 << 31, i32::MAX as u128)
        } else {
            (0.0, 4294967296.0, 0, u32::MAX as u128)
        };
        let converted = self.op(
            if signed {
                Op::ConvertFToS
            } else {
                Op::ConvertFToU
            },
            tt,
            &[v],
        );
        let lo_c = self.const_scalar(from, Lit::Float(lo, lo as f32));
        let hi_c = self.const_scalar(from, Lit::Float(hi_excl, hi_excl as f32));
        let below = self.op(Op::FOrdLessThan, b, &[v, lo_c]);
        let above = self.op(Op::FOrdGreaterThanEqual, b, &[v, hi_c]);
        let nan = self.op(Op::IsNan, b, &[v]);
        let (min_c, max_c, zero) = (
            self.const_scalar(to, Lit::Int(min)),
            self.const_scalar(to, Lit::Int(max)),
            self.const_scalar(to, Lit::Int(0)),
        );
        let r = self.op(Op::Select, tt, &[above, max_c, converted]);
        let r = self.op(Op::Select, tt, &[below, min_c, r]);
        self.op(Op::Select, tt, &[nan, zero, r])
    }

    fn logic(&mut self, op: LogicOp, a: &Expr, b: &Expr) -> Option<Word> {
        let l = self.expr(a)?;
        let from = self.label;
        let (rhs, merge) = (self.b.id(), self.b.id());
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)
            .expect("open");
        match op {
            LogicOp::And => self.b.branch_conditional(l, rhs, merge, []),
            LogicOp::Or => self.b.branch_conditional(l, merge, rhs, []),
        }
        .expect("open");
        self.begin(rhs);
        let r = self.expr(b);
        let mut incoming = vec![(
            self.const_scalar(Scalar::Bool, Lit::Bool(op == LogicOp::Or)),
            from,
        )];
        if let Some(r) = r {
            if !self.terminated() {
                incoming.push((r, self.label));
                self.branch(merge);
            }
        }
        self.begin(merge);
        let bt = self.scalar_ty(Scalar::Bool);
        Some(self.b.phi(bt, None, incoming).expect("open"))
    }

    /// A pointer to the local-array element `e`, when `e` is `local[i][j]...`.
    fn local_chain<'e>(e: &'e Expr, indices: &mut Vec<&'e Expr>) -> Option<LocalId> {
        match &e.kind {
            ExprKind::Local(id) => Some(*id),
            ExprKind::Element(base, index) => {
                let id = Self::local_chain(base, indices)?;
                indices.push(index);
                Some(id)
            }
            _ => None,
        }
    }

    /// Evaluates an array index, clamped into bounds: an out-of-bounds index on a local array
    /// would be undefined behaviour on the device, so it reads or writes the last element.
    /// Indices the range analysis proves in range need no clamp.
    fn array_index(&mut self, index: &Expr, len: &Len) -> Option<Word> {
        if let (ExprKind::Lit(Lit::Int(v)), Len::Lit(_)) = (&index.kind, len) {
            return Some(self.const_u32(*v as u32));
        }
        let i = self.expr(index)?;
        if self.ranges.below_len(index, len) {
            return Some(i);
        }
        let u = self.scalar_ty(Scalar::U32);
        let last = match len {
            Len::Lit(n) => self.const_u32(n - 1),
            Len::Const(..) => {
                let n = self.len(len);
                let one = self.const_u32(1);
                self.op(Op::ISub, u, &[n, one])
            }
        };
        Some(self.ext(glsl::UMIN, u, &[i, last]))
    }

    fn element_ptr(
        &mut self,
        var: Word,
        class: StorageClass,
        mut ty: Ty,
        indices: &[&Expr],
    ) -> Option<(Word, Ty)> {
        let mut ids = Vec::new();
        for index in indices {
            let (elem, len) = match ty {
                Ty::Array(elem, len) => (*elem, len),
                // A vector component (`v.x`) or a struct field: always a literal index.
                Ty::Vector(s, n) => (Ty::Scalar(s), Len::Lit(n)),
                Ty::Struct(id) => {
                    let n = crate::structs::get(id).fields.len() as u32;
                    (struct_field_ty(id, index), Len::Lit(n))
                }
                _ => unreachable!("checked: indexing an array"),
            };
            ids.push(self.array_index(index, &len)?);
            ty = elem;
        }
        if ids.is_empty() {
            return Some((var, ty));
        }
        let t = self.ty(&ty);
        let p = self.ptr(t, class);
        Some((self.access(p, var, &ids), ty))
    }

    fn element(&mut self, e: &Expr, base: &Expr, index: &Expr) -> Option<Word> {
        if !has_storage(&e.ty) {
            // An element of an array of `()` (or of `!`): nothing to load, only effects to run.
            self.expr(base);
            self.expr(index);
            return None;
        }
        let mut indices = Vec::new();
        let t = self.ty(&e.ty);
        if let Some(id) = Self::local_chain(e, &mut indices) {
            let var = self.locals[id]?;
            let ty = self.k.locals[id].ty.clone();
            let class = self.local_class(id);
            let (ptr, _) = self.element_ptr(var, class, ty, &indices)?;
            return Some(self.load(t, ptr));
        }
        let value = self.expr(base)?;
        let len = match &base.ty {
            Ty::Array(_, len) => len.clone(),
            Ty::Vector(_, n) => Len::Lit(*n),
            Ty::Struct(id) => Len::Lit(crate::structs::get(*id).fields.len() as u32),
            _ => unreachable!("checked: indexing an array"),
        };
        let len = &len;
        if let ExprKind::Lit(Lit::Int(k)) = index.kind {
            return Some(
                self.b
                    .composite_extract(t, None, value, [k as u32])
                    .expect("open"),
            );
        }
        // Dynamic index into a value: spill it to a variable and index that.
        let bt = self.ty(&base.ty);
        let tmp = self.function_var(bt, None);
        self.store(tmp, value);
        let i = self.array_index(index, len)?;
        let p = self.ptr(t, StorageClass::Function);
        let ptr = self.access(p, tmp, &[i]);
        Some(self.load(t, ptr))
    }

    /// Evaluates a buffer access's index components (in order); in an unchecked kernel, or when
    /// the range analysis proves every component below the buffer's extent, also forms the
    /// element's pointer.
    fn buffer_target(&mut self, p: ParamId, idx: &[Expr]) -> Option<Target> {
        let mut index = Vec::with_capacity(idx.len());
        for i in idx {
            index.push(self.expr(i)?);
        }
        let same_rank = idx.len() as u32 == self.k.rank;
        let checks: Vec<Check> = idx
            .iter()
            .enumerate()
            .map(|(d, i)| {
                let d = d as u32;
                if self.ranges.below(i, Sym::Extent(p, d)) {
                    Check::Proven
                } else if same_rank && self.ranges.below_domain(i) == Some(d) {
                    Check::Covered
                } else {
                    Check::Compared
                }
            })
            .collect();
        if self.oob.is_none() || checks.iter().all(|&c| c == Check::Proven) {
            return Some(Target::Ptr(self.buffer_element_ptr(p, &index)));
        }
        Some(Target::Checked {
            param: p,
            index,
            checks,
        })
    }

    /// The target of an assignment or atomic.
    fn target(&mut self, place: &Place) -> Option<Target> {
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
    fn access_target(
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
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)
            .expect("open");
        // Branch weights: the in-bounds path is the likely one.
        self.b
            .branch_conditional(inside, accessed, merge, [255, 1])
            .expect("open");
        self.begin(accessed);
        let ptr = self.buffer_element_ptr(param, &index);
        let value = access(self, ptr);
        let accessed_end = self.label;
        self.branch(merge);
        self.begin(merge);
        let (value, t) = (value?, result?);
        let zero = self.b.constant_null(t);
        Some(
            self.b
                .phi(t, None, [(value, accessed_end), (zero, skipped_end)])
                .expect("open"),
        )
    }

    /// Buffer `p`'s extent, one `u32` per dimension, from the push-constant block: the
    /// domain's own member where the layout facts say the two are equal, so that both are one
    /// value to the driver.
    fn buffer_extent(&mut self, p: ParamId) -> Vec<Word> {
        let first_member = self.buffer_first_member(p);
        let ParamKind::Buffer { rank, .. } = self.k.params[p].kind else {
            unreachable!("buffer param")
        };
        let u = self.scalar_ty(Scalar::U32);
        (0..rank)
            .map(|d| {
                let own = self.push_member(first_member + d);
                if rank != self.k.rank {
                    return own;
                }
                let equal = self.layout_fact(p, crate::layout_fact::EQUALS_DOMAIN_DIM0 << d);
                let domain = self.push_member(d);
                self.op(Op::Select, u, &[equal, domain, own])
            })
            .collect()
    }

    /// Whether every component of `index` is below `extent`: one unsigned compare per
    /// dimension not proven in range (or-ed with "the buffer covers the domain" where that
    /// suffices), and-ed together (at least one is not proven).
    fn in_bounds(&mut self, p: ParamId, index: &[Word], extent: &[Word], checks: &[Check]) -> Word {
        let b = self.scalar_ty(Scalar::Bool);
        let mut all: Option<Word> = None;
        for ((&i, &e), &check) in index
            .iter()
            .zip(extent)
            .zip(checks)
            .filter(|(_, &c)| c != Check::Proven)
        {
            let mut fits = self.op(Op::ULessThan, b, &[i, e]);
            if check == Check::Covered {
                let covers = self.layout_fact(p, crate::layout_fact::COVERS_DOMAIN);
                fits = self.op(Op::LogicalOr, b, &[covers, fits]);
            }
            all = Some(match all {
                None => fits,
                Some(prev) => self.op(Op::LogicalAnd, b, &[prev, fits]),
            });
        }
        all.expect("a checked access has a component to check")
    }

    /// Notes a failed access (where `inside` is false) in the thread's pending report: the
    /// parameter plus one, and the index. Straight-line selects, no branch: SIMD drivers such
    /// as lavapipe run both sides of a divergent branch under a mask, so a branch around the
    /// recording would cost every access anyway. The rank and the extent follow from the
    /// parameter when the report is sent ([`Self::return_from_main`]), where the atomic that
    /// publishes it runs once per thread.
    fn record_out_of_bounds(&mut self, p: ParamId, index: &[Word], inside: Word) {
        let pending = self
            .oob
            .as_ref()
            .expect("checked kernels have a report")
            .pending;
        let u = self.scalar_ty(Scalar::U32);
        let words = std::iter::once(self.const_u32(p as u32 + 1)).chain(index.iter().copied());
        for (ptr, w) in pending.into_iter().zip(words.collect::<Vec<_>>()) {
            let old = self.load(u, ptr);
            let new = self.op(Op::Select, u, &[inside, old, w]);
            self.store(ptr, new);
        }
    }

    /// The thread's pending report, its tag cleared at the start of `main`.
    fn declare_pending_report(&mut self) {
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
        self.oob.as_mut().expect("checked above").pending = pending;
    }

    /// `OpReturn` from `main`, sending the thread's pending out-of-bounds report (if any) to the
    /// report buffer first: one branch per thread instead of an atomic behind every access.
    fn return_from_main(&mut self) {
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
            self.b
                .selection_merge(done, spirv::SelectionControl::NONE)
                .expect("open");
            self.b
                .branch_conditional(failed, send, done, [1, 255])
                .expect("open");
            self.begin(send);
            let args = self.pending_report_details(flag);
            let void = self.b.type_void();
            self.b
                .function_call(void, None, record, args)
                .expect("open");
            self.branch(done);
            self.begin(done);
        }
        self.b.ret().expect("open");
    }

    /// The eight detail words of the report (param, rank, index[3], extent[3]) from the pending
    /// report whose first word is `tag` (the failing parameter plus one): the rank and extent
    /// are the parameter's, chosen by a select per buffer parameter; index components past the
    /// rank are 0.
    fn pending_report_details(&mut self, tag: Word) -> Vec<Word> {
        let u = self.scalar_ty(Scalar::U32);
        let b = self.scalar_ty(Scalar::Bool);
        let pending = self.oob.as_ref().expect("checked kernel").pending;
        let (zero, one) = (self.const_u32(0), self.const_u32(1));
        let param = self.op(Op::ISub, u, &[tag, one]);
        let (mut rank, mut extent) = (zero, [zero; 3]);
        for (q, p) in self.k.params.iter().enumerate() {
            let ParamKind::Buffer { rank: r, .. } = p.kind else {
                continue;
            };
            let q_id = self.const_u32(q as u32);
            let is_q = self.op(Op::IEqual, b, &[param, q_id]);
            let r_id = self.const_u32(r);
            rank = self.op(Op::Select, u, &[is_q, r_id, rank]);
            for (d, e) in self.buffer_extent(q).into_iter().enumerate().take(3) {
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
    fn record_out_of_bounds_function(&mut self) {
        let Some(OobReport { var, record, .. }) = self.oob else {
            return;
        };
        let u = self.scalar_ty(Scalar::U32);
        let void = self.b.type_void();
        let fn_ty = self.b.type_function(void, vec![u; 8]);
        self.b
            .begin_function(void, Some(record), spirv::FunctionControl::NONE, fn_ty)
            .expect("main is closed");
        self.b.name(record, "amp_record_out_of_bounds");
        let details: Vec<Word> = (0..8)
            .map(|_| self.b.function_parameter(u).expect("in the function"))
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
        self.b
            .selection_merge(done, spirv::SelectionControl::NONE)
            .expect("open");
        self.b
            .branch_conditional(first, write, done, [])
            .expect("open");
        self.begin(write);
        for (k, &value) in details.iter().enumerate() {
            let slot = self.const_u32(k as u32 + 1);
            let ptr = self.access(ptr_u, var, &[zero, slot]);
            self.store(ptr, value);
        }
        self.branch(done);
        self.begin(done);
        self.b.ret().expect("open");
        self.b.end_function().expect("the function is open");
    }

    fn buffer_first_member(&self, p: ParamId) -> u32 {
        match self.layout.params[p] {
            ParamSlot::Buffer { first_member, .. } => first_member,
            ParamSlot::Scalar { .. } | ParamSlot::Value { .. } => unreachable!("buffer slot"),
        }
    }

    /// Pointer to a buffer element: the view's offset plus each index times its stride (the
    /// last dimension's stride is 1), all from the push-constant block.
    fn buffer_element_ptr(&mut self, p: ParamId, index: &[Word]) -> Word {
        let (linear, _) = self.buffer_linear(p, index);
        self.buffer_ptr_at(p, linear)
    }

    /// The element number of `index` in buffer `p` (the view's offset plus each component times
    /// its stride), and the view's offset alone.
    fn buffer_linear(&mut self, p: ParamId, index: &[Word]) -> (Word, Word) {
        let first_member = self.buffer_first_member(p);
        let rank = index.len() as u32;
        let u = self.scalar_ty(Scalar::U32);
        let mut linear = index[rank as usize - 1];
        let extent = if rank > 1 {
            self.buffer_extent(p)
        } else {
            Vec::new()
        };
        for (d, &component) in index.iter().enumerate().take(rank as usize - 1) {
            // Row-major strides follow from the extent when the facts say the view is dense.
            let pushed = self.push_member(first_member + rank + 1 + d as u32);
            let mut dense = extent[rank as usize - 1];
            for &e in extent[d + 1..rank as usize - 1].iter().rev() {
                dense = self.op(Op::IMul, u, &[e, dense]);
            }
            let is_dense = self.layout_fact(p, crate::layout_fact::DENSE);
            let stride = self.op(Op::Select, u, &[is_dense, dense, pushed]);
            let scaled = self.op(Op::IMul, u, &[component, stride]);
            linear = self.op(Op::IAdd, u, &[scaled, linear]);
        }
        let offset = self.buffer_offset(p);
        (self.op(Op::IAdd, u, &[linear, offset]), offset)
    }

    /// The element offset of buffer `p`'s view: 0 when the pipeline is specialized for a view
    /// that starts at the buffer's first element, else read from the push constants.
    fn buffer_offset(&mut self, p: ParamId) -> Word {
        let rank = match self.k.params[p].kind {
            ParamKind::Buffer { rank, .. } => rank,
            _ => unreachable!("buffer param"),
        };
        let pushed = self.push_member(self.buffer_first_member(p) + rank);
        let zero_offset = self.layout_fact(p, crate::layout_fact::ZERO_OFFSET);
        let u = self.scalar_ty(Scalar::U32);
        let zero = self.const_u32(0);
        self.op(Op::Select, u, &[zero_offset, zero, pushed])
    }

    /// Pointer to element number `linear` of buffer `p`.
    fn buffer_ptr_at(&mut self, p: ParamId, linear: Word) -> Word {
        let zero = self.const_u32(0);
        let buffer = self.buffers[p]
            .as_ref()
            .expect("buffer params have variables");
        let (var, elem_ptr) = (buffer.var, buffer.elem_ptr);
        self.access(elem_ptr, var, &[zero, linear])
    }

    /// A checked read without a branch around it, so the hot path stays straight-line code
    /// that drivers vectorise: an out-of-bounds index reads the view's first element instead
    /// (always inside the buffer: extents are at least 1) and the value is replaced by zero;
    /// only the recording of the failure sits behind a (rarely taken) branch.
    fn checked_load(&mut self, p: ParamId, index: &[Word], checks: &[Check], s: Scalar) -> Word {
        let extent = self.buffer_extent(p);
        let inside = self.in_bounds(p, index, &extent, checks);
        let (linear, offset) = self.buffer_linear(p, index);
        let u = self.scalar_ty(Scalar::U32);
        let safe = self.op(Op::Select, u, &[inside, linear, offset]);
        let ptr = self.buffer_ptr_at(p, safe);
        let t = self.scalar_ty(s);
        let loaded = self.load(t, ptr);
        let zero = self.constant(t, 0, s == Scalar::F64);
        let value = self.op(Op::Select, t, &[inside, loaded, zero]);
        self.record_out_of_bounds(p, index, inside);
        value
    }

    fn place_ty(&self, place: &Place) -> Ty {
        match place {
            Place::Local(id, idx) => {
                let mut ty = self.k.locals[*id].ty.clone();
                for i in idx {
                    ty = match ty {
                        Ty::Array(e, _) => *e,
                        Ty::Vector(s, _) => Ty::Scalar(s),
                        Ty::Struct(id) => struct_field_ty(id, i),
                        other => other,
                    };
                }
                ty
            }
            Place::Buffer(p, _) => match self.k.params[*p].kind {
                ParamKind::Buffer { elem, .. } => elem.ty(),
                ParamKind::Scalar(s) => Ty::Scalar(s),
                ParamKind::Value(elem) => elem.ty(),
            },
        }
    }

    /// A pointer to a local (or `tile_static`) variable or one of its elements.
    fn local_ptr(&mut self, id: LocalId, idx: &[Expr]) -> Option<Word> {
        let var = self.locals[id]?;
        let ty = self.k.locals[id].ty.clone();
        let class = self.local_class(id);
        let refs: Vec<&Expr> = idx.iter().collect();
        Some(self.element_ptr(var, class, ty, &refs)?.0)
    }

    // ----- control flow -----

    fn if_expr(&mut self, e: &Expr, cond: &Expr, then: &Block, els: Option<&Expr>) -> Option<Word> {
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
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)
            .expect("open");
        self.b
            .branch_conditional(c, then_label, else_label, [])
            .expect("open");
        let mut reaches_merge = els.is_none();

        self.begin(then_label);
        let v = self.block(then);
        if !self.terminated() {
            if let (Some(var), Some(v)) = (result, v) {
                self.store(var, v);
            }
            self.branch(merge);
            reaches_merge = true;
        }
        if let Some(els) = els {
            self.begin(else_label);
            let v = self.expr(els);
            if !self.terminated() {
                if let (Some(var), Some(v)) = (result, v) {
                    self.store(var, v);
                }
                self.branch(merge);
                reaches_merge = true;
            }
        }
        self.begin(merge);
        if !reaches_merge {
            self.b.unreachable().expect("open");
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
            .expect("open");
        self.branch(first);
        self.begin(first);
        (header, LoopTargets { merge, cont })
    }

    fn loop_body(&mut self, targets: &LoopTargets, body: &Block) {
        self.loops.push(LoopTargets {
            merge: targets.merge,
            cont: targets.cont,
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
            .expect("open");
        body
    }

    fn while_loop(&mut self, cond: Option<&Expr>, body: &Block) {
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
        let reaches_merge = cond.is_some() || self.loop_has_break(body);
        if !reaches_merge {
            self.b.unreachable().expect("open");
        }
    }

    fn loop_has_break(&self, body: &Block) -> bool {
        fn block(b: &Block) -> bool {
            b.stmts.iter().any(|s| match s {
                Stmt::Let(_, Some(e)) | Stmt::Expr(e) => expr(e),
                Stmt::Let(_, None) => false,
            }) || b.tail.as_deref().is_some_and(expr)
        }
        fn expr(e: &Expr) -> bool {
            match &e.kind {
                ExprKind::Break => true,
                // A break inside a nested loop leaves that loop, not this one.
                ExprKind::While(c, _) => expr(c),
                ExprKind::Loop(_) => false,
                ExprKind::For(r) => {
                    expr(&r.start) || expr(&r.end) || r.step.as_deref().is_some_and(expr)
                }
                ExprKind::If(c, t, e) => expr(c) || block(t) || e.as_deref().is_some_and(expr),
                ExprKind::Block(b) => block(b),
                ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::ArrayRepeat(a, _) => expr(a),
                ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) | ExprKind::Element(a, b) => {
                    expr(a) || expr(b)
                }
                ExprKind::BufferLoad(_, l) | ExprKind::ArrayList(l) | ExprKind::Builtin(_, l) => {
                    l.iter().any(expr)
                }
                ExprKind::Assign(p, v) | ExprKind::CompoundAssign(_, p, v) => {
                    expr(v)
                        || match p {
                            Place::Local(_, l) | Place::Buffer(_, l) => l.iter().any(expr),
                        }
                }
                _ => false,
            }
        }
        block(body)
    }

    fn for_loop(&mut self, r: &RangeLoop) {
        let Some(s) = self.k.locals[r.counter].ty.scalar() else {
            return;
        };
        let Some(start) = self.expr(&r.start) else {
            return;
        };
        let Some(end) = self.expr(&r.end) else { return };
        let t = self.scalar_ty(s);
        let bt = self.scalar_ty(Scalar::Bool);
        let step = match &r.step {
            Some(step) => {
                let Some(v) = self.expr(step) else { return };
                Some(self.cast(v, Scalar::Usize, s))
            }
            None if r.inclusive => Some(self.const_scalar(s, Lit::Int(1))),
            None => None,
        };
        let counter = self.locals[r.counter].expect("counters are scalars");
        let done = self.locals[r.done].expect("flags are scalars");
        self.store(counter, start);
        if let Some(step) = step {
            // `step_by(0)` panics in Rust; on the device the loop runs zero times.
            let zero = self.const_scalar(s, Lit::Int(0));
            let no_step = self.op(Op::IEqual, bt, &[step, zero]);
            self.store(done, no_step);
        }

        let (header, targets) = self.loop_header();
        let i = self.load(t, counter);
        let less = match (r.inclusive, s.is_signed_int()) {
            (false, true) => Op::SLessThan,
            (false, false) => Op::ULessThan,
            (true, true) => Op::SLessThanEqual,
            (true, false) => Op::ULessThanEqual,
        };
        let mut go = self.op(less, bt, &[i, end]);
        if step.is_some() {
            let d = self.load(bt, done);
            let not_done = self.op(Op::LogicalNot, bt, &[d]);
            go = self.op(Op::LogicalAnd, bt, &[go, not_done]);
        }
        let body_label = self.loop_test(go, targets.merge);
        self.begin(body_label);
        if let Some(var) = self.locals[r.var] {
            let i = self.load(t, counter);
            self.store(var, i);
        }
        self.loop_body(&targets, &r.body);

        self.begin(targets.cont);
        let i = self.load(t, counter);
        match step {
            None => {
                let one = self.const_scalar(s, Lit::Int(1));
                let next = self.op(Op::IAdd, t, &[i, one]);
                self.store(counter, next);
            }
            Some(step) => {
                // The next value is in range iff step < end - i (exclusive) or step <= end - i
                // (inclusive); comparing the distance avoids overflowing past the type's end.
                let remaining = self.op(Op::ISub, t, &[end, i]);
                let finished = self.op(
                    if r.inclusive {
                        Op::UGreaterThan
                    } else {
                        Op::UGreaterThanEqual
                    },
                    bt,
                    &[step, remaining],
                );
                self.store(done, finished);
                let next = self.op(Op::IAdd, t, &[i, step]);
                self.store(counter, next);
            }
        }
        self.branch(header);
        self.begin(targets.merge);
    }
}
