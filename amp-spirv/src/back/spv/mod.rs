//! The SPIR-V back end: lowers the typed IR to a SPIR-V 1.3 compute module with `rspirv`.
//!
//! Locals live in `Function`-storage variables (drivers promote them to registers), control
//! flow is structured (`OpSelectionMerge` / `OpLoopMerge`), and the module follows the kernel ABI
//! written down in `amp-runtime`'s `kernel.rs`.
//!
//! One `Emitter` walks the kernel; its methods are spread over the files below by job, and
//! this file keeps its state and the instruction, type and constant helpers everything uses.

mod bounds;
mod buffer;
mod control;
mod entry;
mod error;
mod expr;
mod interface;
mod loops;
mod math;
mod normalized;
pub(crate) mod quads;
mod small;
mod subgroup;
mod sync;
mod texture;
mod vector;

use super::{report_binding, reports_out_of_bounds, Layout, Precision};
use crate::analysis::loops::Loops;
use crate::back::plan::Plan;
use crate::ir::*;
use crate::types::{Len, Scalar, StructDef, Ty};
use bounds::{OobReport, PENDING_REPORT_WORDS};
use control::LoopTargets;
pub use error::{EmitError, Invariant};
use math::{Foldable, Rounded};
use rspirv::binary::Assemble;
use rspirv::dr::{self, Builder, InsertPoint, Operand};
use rspirv::spirv::{self, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

/// A kernel of this name gets an internal error from the emitter, so that the path a bug in
/// the compiler takes to the user (an error that asks for a report) is tested.
pub const INTERNAL_ERROR_PROBE: &str = "__amp_internal_error_probe";

/// Threads per workgroup of simple (untiled) kernels.
pub const SIMPLE_WORKGROUP_SIZE: u32 = 64;

/// `GLSL.std.450` instruction numbers used here.
mod glsl {
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
    /// The source line of each loop watched for a device's loop limit, by loop number.
    pub loop_lines: Vec<u32>,
    /// Whether the kernel's fences declared the 4-byte `tile_static` word that their atomic
    /// form adds to ([`amp_abi::spec_id::FENCES_AS_ATOMICS`]).
    pub fence_word: bool,
    /// Consecutive indices each invocation of a simple kernel runs at once: 4 in the quad form
    /// (`quads.rs`), else 1.
    pub lanes: u32,
    /// In the quad form, its views, the one its quads are aligned to first
    /// ([`quads::QuadForm::aligned_views`]); else empty.
    pub quad_views: Vec<u32>,
}

/// Lowers a type-checked kernel; an error (the broken invariant) only on a bug in the emitter.
///
/// With `narrow_storage`, buffers of `bool`, `i8`, `u8`, `i16` and `u16` are arrays of 8- and
/// 16-bit integers (the module then needs the device's `storageBuffer8BitAccess` and
/// `storageBuffer16BitAccess`, as far as it has such buffers); without, they are packed into
/// 32-bit words, which every device reads (small.rs).
pub fn emit(
    kernel: &Kernel,
    plan: Plan<'_>,
    layout: &Layout,
    loops: &Loops,
    precision: Precision,
    narrow_storage: bool,
    quad_form: Option<quads::QuadForm>,
) -> Result<Module, EmitError> {
    let checks = plan.checks();
    let lanes = if quad_form.is_some() { quads::QUAD } else { 1 };
    let quad_views = quad_form
        .as_ref()
        .map(quads::QuadForm::aligned_views)
        .unwrap_or_default();
    let mut e = Emitter::new(kernel, plan, layout);
    e.narrow_storage = narrow_storage;
    e.fast_math = precision == Precision::Fast;
    e.report_binding = report_binding(kernel, checks, loops.watched());
    if reports_out_of_bounds(kernel, checks) {
        e.oob = Some(OobReport {
            var: 0,
            record: 0,
            pending: [0; PENDING_REPORT_WORDS as usize],
        });
    }
    e.declare_loop_watch(loops.watched());
    e.kernel(quad_form.as_ref());
    if kernel.name == INTERNAL_ERROR_PROBE {
        e.internal = Some(EmitError::Probe);
    }
    let uses_float64 = e.uses_float64;
    if uses_float64 {
        e.b.capability(spirv::Capability::Float64);
    }
    for capability in std::mem::take(&mut e.capabilities) {
        e.b.capability(capability);
    }
    e.preserve_float_specials();
    e.declare_atomic_float_add();
    if let Some(internal) = e.internal {
        return Err(internal);
    }
    let loop_lines = e.watch.take().map(|w| w.lines).unwrap_or_default();
    Ok(Module {
        fence_word: e.atomic_fence.is_some(),
        words: e.b.module().assemble(),
        uses_float64,
        workgroup_size: [SIMPLE_WORKGROUP_SIZE, 1, 1],
        loop_lines,
        lanes,
        quad_views,
    })
}

/// Whether values of `ty` occupy storage: `()`, `!` and arrays of them (`[(); 4]`, or the
/// `[!; 2]` of `[return; 2]`) have no SPIR-V type to live in.
fn has_storage(ty: &Ty) -> bool {
    match ty {
        Ty::Array(elem, _) => has_storage(elem),
        other => !other.is_zero_sized(),
    }
}

/// The labels of a structured `if`, allocated by the caller (their order is the ids' order in
/// the module): the merge block, and the block entered when the condition holds or does not
/// (`None`: that way goes straight to the merge block).
pub(super) struct IfLabels {
    pub(super) merge: Word,
    pub(super) then: Option<Word>,
    pub(super) otherwise: Option<Word>,
}

struct BufferVar {
    var: Word,
    elem_ptr: Word,
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
    /// The immutable locals whose value the driver may know (see [`Foldable`]).
    foldable_locals: HashMap<LocalId, Foldable>,
    /// The immutable locals holding values only the launch knows (see `opaque_integer`).
    opaque_locals: HashSet<LocalId>,
    locals: Vec<Option<Word>>,
    buffers: Vec<Option<BufferVar>>,
    /// The pointers to small-integer buffer elements: words of packed buffers with their
    /// elements' places, or 8- and 16-bit elements themselves.
    small_elems: HashMap<Word, small::SmallElem>,
    /// Whether buffers of small integers are runtime arrays of 8- and 16-bit integers (the
    /// module for devices with 8- and 16-bit storage) rather than of packed words.
    narrow_storage: bool,
    /// Per parameter, its image or sampler variable (textures and samplers only).
    images: Vec<Option<texture::ImageVar>>,
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
    /// The workgroup-size specialization constants x, y, z (a tiled kernel's tile, a simple
    /// kernel's threads per workgroup on x).
    tile_size: [Word; 3],
    uses_float32: bool,
    uses_float64: bool,
    /// Whether an `atomic_fetch_add` on an `f32` element was emitted (`OpAtomicFAddEXT`).
    uses_atomic_float_add: bool,
    /// The subgroup's built-in inputs the kernel reads, by the operation that reads them.
    subgroup_inputs: Vec<(SubgroupOp, Word)>,
    /// Capabilities the emitted instructions need beyond `Shader` (declared at the end).
    capabilities: Vec<spirv::Capability>,
    /// Set when buffer accesses are bounds-checked.
    oob: Option<OobReport>,
    /// The binding of the kernel's report buffer, if it has one, and its variable.
    report_binding: Option<u32>,
    report_var: Word,
    /// The loop watching of a kernel whose loops a device's limit could cut (`loops.rs`).
    watch: Option<loops::LoopWatch>,
    /// The kernel's shared decisions: which checks and clamps the range facts make redundant.
    plan: Plan<'k>,
    /// The first broken invariant of the emitter itself (see [`OrInternal`]): the kernel then
    /// gets an internal-error diagnostic instead of a module.
    internal: Option<EmitError>,
    /// The rounded `f32` division and square root functions (`math/rounded.rs`).
    rounded: Rounded,
    /// `#[kernel(amp, fast_math)]`: the device's own `f32` division, square root and
    /// trigonometry, within Vulkan's precision instead of Rust's results.
    fast_math: bool,
    /// The `FENCES_AS_ATOMICS` specialization constant and the tile's word its atomic
    /// fences add to, once a fence has declared them (`expr.rs`, `memory_fence`).
    atomic_fence: Option<(Word, Word)>,
    /// Per view of the quad form, its variable of 4-component vectors.
    quad_vars: HashMap<ParamId, Word>,
    /// While the lanes' body is emitted: per view of the quad form, the pointer to the lane's
    /// element, which its accesses use instead of the buffer.
    lane_elems: HashMap<ParamId, Word>,
}

/// A step of the emitter that fails only on a bug in the emitter (an instruction outside a
/// block, a declaration it did not make): the first failure is kept in `internal` and a
/// placeholder (id 0) lets emission finish; [`emit`] then returns the failure
/// ([`EmitError`]), which the kernel gets as an internal-error diagnostic, never a panic.
trait OrInternal<T> {
    fn or_internal(self, internal: &mut Option<EmitError>, invariant: Invariant) -> T;
}

impl<T: Default> OrInternal<T> for Result<T, rspirv::dr::Error> {
    fn or_internal(self, internal: &mut Option<EmitError>, invariant: Invariant) -> T {
        self.unwrap_or_else(|refused| {
            internal.get_or_insert(EmitError::Builder { invariant, refused });
            T::default()
        })
    }
}

impl<T: Default> OrInternal<T> for Option<T> {
    fn or_internal(self, internal: &mut Option<EmitError>, invariant: Invariant) -> T {
        self.unwrap_or_else(|| {
            internal.get_or_insert(EmitError::Broken(invariant));
            T::default()
        })
    }
}

impl Emitter<'_> {
    /// Records the broken invariant `invariant` (see [`OrInternal`]) and returns a placeholder.
    fn broken<T: Default>(&mut self, invariant: Invariant) -> T {
        self.failed(EmitError::Broken(invariant))
    }

    /// Records `error` unless an earlier failure is recorded, and returns a placeholder.
    fn failed<T: Default>(&mut self, error: EmitError) -> T {
        self.internal.get_or_insert(error);
        T::default()
    }
}

impl<'k> Emitter<'k> {
    fn new(k: &'k Kernel, plan: Plan<'k>, layout: &'k Layout) -> Self {
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
            foldable_locals: HashMap::new(),
            opaque_locals: HashSet::new(),
            locals: Vec::new(),
            buffers: Vec::new(),
            small_elems: HashMap::new(),
            narrow_storage: false,
            images: Vec::new(),
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
            subgroup_inputs: Vec::new(),
            capabilities: Vec::new(),
            oob: None,
            report_binding: None,
            report_var: 0,
            watch: None,
            plan,
            internal: None,
            rounded: Rounded::default(),
            fast_math: false,
            atomic_fence: None,
            quad_vars: HashMap::new(),
            lane_elems: HashMap::new(),
        }
    }

    fn ty(&mut self, ty: &Ty) -> Word {
        if let Some(&id) = self.types.get(ty) {
            return id;
        }
        let device = ty.device();
        if device != *ty {
            // `Norm`, `Unorm4`, `[Unorm; 4]`: the `f32` types themselves (SPIR-V allows one
            // `OpTypeFloat 32`); `u8`, `[i16; 4]`: the 32-bit integer types.
            let id = self.ty(&device);
            self.types.insert(ty.clone(), id);
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
                Scalar::Norm
                | Scalar::Unorm
                | Scalar::I8
                | Scalar::U8
                | Scalar::I16
                | Scalar::U16 => self.broken(Invariant::CheckedType),
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
            Ty::Struct(def) => self.struct_ty(def),
            Ty::Tuple(items) => {
                let members: Vec<Word> = items.iter().map(|t| self.ty(t)).collect();
                self.b.type_struct(members)
            }
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
        // A normalized constant (`Unorm::ONE`) is its `f32`.
        let s = s.device();
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

    /// Marks a float operation `NoContraction`: Rust rounds every operation on its own (no fused
    /// multiply-add unless the kernel asks for it), and drivers treat such operations as exact,
    /// so they do not rewrite `x * 0.0` to `0.0` either.
    fn exact(&mut self, id: Word) {
        self.b.decorate(id, spirv::Decoration::NoContraction, []);
    }

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
            .or_internal(&mut self.internal, Invariant::BlockOpen);
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
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    fn load(&mut self, ty: Word, ptr: Word) -> Word {
        self.b
            .load(ty, None, ptr, None, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    fn store(&mut self, ptr: Word, value: Word) {
        self.b
            .store(ptr, value, None, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
    }

    fn access(&mut self, ptr_ty: Word, base: Word, indices: &[Word]) -> Word {
        self.b
            .access_chain(ptr_ty, None, base, indices.iter().copied())
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    fn terminated(&self) -> bool {
        self.b.selected_block().is_none()
    }

    fn begin(&mut self, label: Word) {
        self.b
            .begin_block(Some(label))
            .or_internal(&mut self.internal, Invariant::BlockSelectable);
        self.label = label;
    }

    fn branch(&mut self, target: Word) {
        self.b
            .branch(target)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
    }

    /// A `Function` variable, declared at the top of the entry block as SPIR-V requires.
    fn function_var(&mut self, ty: Word, name: Option<&str>) -> Word {
        let ptr = self.ptr(ty, StorageClass::Function);
        let id = self.b.id();
        let current = self.b.selected_block();
        self.b
            .select_block(Some(0))
            .or_internal(&mut self.internal, Invariant::BlockSelectable);
        let inst = dr::Instruction::new(
            Op::Variable,
            Some(ptr),
            Some(id),
            vec![Operand::StorageClass(StorageClass::Function)],
        );
        self.b
            .insert_into_block(InsertPoint::Begin, inst)
            .or_internal(&mut self.internal, Invariant::BlockSelectable);
        self.b
            .select_block(current)
            .or_internal(&mut self.internal, Invariant::BlockSelectable);
        if let Some(n) = name {
            self.b.name(id, n);
        }
        id
    }
}
