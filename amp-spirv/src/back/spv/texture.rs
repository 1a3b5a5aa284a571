//! Textures and samplers: sampled images for `TextureView` (texel fetches and sampling),
//! storage images without a declared format for `WriteonlyTextureView` (the texture's bits per
//! scalar are the runtime's choice, so the module names none), and sampler descriptors.
//! A texture's extent travels in the push-constant block like a buffer's, so checked texel
//! accesses compare against it without `ImageQuery`.

use super::Emitter;
use super::IfLabels;
use super::OrInternal;
use crate::back::plan::IndexCheck;
use crate::back::spv::Invariant;
use crate::back::ParamSlot;
use crate::ir::*;
use crate::types::{Elem, Scalar, Ty};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op, StorageClass, Word};

/// `GLSL.std.450`'s `RoundEven`.
const GLSL_ROUND_EVEN: u32 = 2;
/// `GLSL.std.450`'s `FAbs`.
const GLSL_FABS: u32 = 4;
/// `GLSL.std.450`'s `FSign`.
const GLSL_FSIGN: u32 = 6;
/// `GLSL.std.450`'s `FClamp`.
const GLSL_FCLAMP: u32 = 43;

/// A texture or sampler parameter's variable and the types that go with it.
#[derive(Clone, Copy, Default)]
pub(super) struct ImageVar {
    var: Word,
    /// The image type (`OpTypeImage`), or the sampler type for a sampler.
    ty: Word,
}

impl Emitter<'_> {
    /// The scalar type an image of texels `texel` is sampled as: `f32` for float and normalized
    /// texels, `i32` or `u32` for integer ones.
    fn texel_component(texel: &Elem) -> Scalar {
        match texel.ty().component() {
            Some(s @ (Scalar::I32 | Scalar::U32)) => s,
            _ => Scalar::F32,
        }
    }

    /// Declares the texture and sampler parameters' variables (`UniformConstant`, set 0, at
    /// their layout's bindings).
    pub(super) fn declare_textures(&mut self) {
        for (i, p) in self.k.params.iter().enumerate() {
            let binding = match self.layout.params[i] {
                ParamSlot::Texture { binding, .. } | ParamSlot::Sampler { binding } => binding,
                _ => {
                    self.images.push(None);
                    continue;
                }
            };
            let ty = match &p.kind {
                ParamKind::Texture {
                    texel,
                    rank,
                    access,
                } => {
                    let sampled = Self::texel_component(texel);
                    let sampled = self.scalar_ty(sampled);
                    let (dim, read) = match (rank, access) {
                        (1, TextureAccess::Read) => (spirv::Dim::Dim1D, true),
                        (1, TextureAccess::Write) => (spirv::Dim::Dim1D, false),
                        (2, a) => (spirv::Dim::Dim2D, *a == TextureAccess::Read),
                        (_, a) => (spirv::Dim::Dim3D, *a == TextureAccess::Read),
                    };
                    if dim == spirv::Dim::Dim1D {
                        self.b.capability(if read {
                            spirv::Capability::Sampled1D
                        } else {
                            spirv::Capability::Image1D
                        });
                    }
                    if !read {
                        self.b
                            .capability(spirv::Capability::StorageImageWriteWithoutFormat);
                    }
                    self.b.type_image(
                        sampled,
                        dim,
                        0,
                        0,
                        0,
                        if read { 1 } else { 2 },
                        spirv::ImageFormat::Unknown,
                        None,
                    )
                }
                ParamKind::Sampler => self.b.type_sampler(),
                _ => {
                    self.broken::<()>(Invariant::TextureDeclared);
                    self.images.push(None);
                    continue;
                }
            };
            let ptr = self.ptr(ty, StorageClass::UniformConstant);
            let var = self
                .b
                .variable(ptr, None, StorageClass::UniformConstant, None);
            self.bind(var, binding);
            if matches!(
                p.kind,
                ParamKind::Texture {
                    access: TextureAccess::Write,
                    ..
                }
            ) {
                self.b.decorate(var, spirv::Decoration::NonReadable, []);
            }
            self.b.name(var, p.name.clone());
            self.images.push(Some(ImageVar { var, ty }));
            if let ParamKind::Texture { texel, access, .. } = &p.kind {
                let component = texel.ty().component();
                let written_float =
                    *access == TextureAccess::Write && component == Some(Scalar::F32);
                let normalized = component.is_some_and(|c| c.is_normalized());
                if written_float || normalized {
                    // Known at each launch: whether a written texture stores 16-bit floats
                    // (the store then rounds as the host does, see `round_to_half`), and
                    // whether a normalized one has 16-bit components (see `decode_as_host`
                    // and `coded_for_store`).
                    let facts = self.binding_facts(binding, format!("{}_facts", p.name));
                    self.layout_facts[i] = Some(facts);
                }
            }
        }
    }

    /// Texture `p`'s extent, one `u32` per dimension, from the push-constant block.
    pub(super) fn texture_extent(&mut self, p: ParamId) -> Vec<Word> {
        let ParamSlot::Texture { first_member, .. } = self.layout.params[p] else {
            return self.broken(Invariant::TextureDeclared);
        };
        let ParamKind::Texture { rank, .. } = self.k.params[p].kind else {
            return self.broken(Invariant::TextureDeclared);
        };
        (0..rank)
            .map(|d| self.push_member(first_member + d))
            .collect()
    }

    fn image_var(&mut self, p: ParamId) -> ImageVar {
        self.images[p].or_internal(&mut self.internal, Invariant::TextureDeclared)
    }

    fn texel_info(&mut self, p: ParamId) -> (Elem, u32) {
        let ParamKind::Texture { texel, rank, .. } = &self.k.params[p].kind else {
            self.broken::<()>(Invariant::TextureDeclared);
            return (Elem::Scalar(Scalar::F32), 1);
        };
        (texel.clone(), *rank)
    }

    /// A coordinate operand from an index's `u32` components: the scalar for rank 1, else a
    /// vector with the last component first (index `[y, x]` is texel `(x, y)`, as in C++ AMP).
    fn texel_coord(&mut self, index: &[Word]) -> Word {
        if index.len() == 1 {
            return index[0];
        }
        let t = self.ty(&Ty::Vector(Scalar::U32, index.len() as u32));
        self.b
            .composite_construct(t, None, index.iter().rev().copied())
            .or_internal(&mut self.internal, Invariant::BlockOpen)
    }

    /// The texel of type `texel` in the first components of `v4`, a 4-component vector of
    /// the image's sampled type.
    fn texel_from_vec4(&mut self, texel: &Elem, v4: Word) -> Word {
        let ty = texel.ty();
        let t = self.ty(&ty);
        match ty {
            Ty::Vector(_, 4) => v4,
            Ty::Vector(_, n) => self
                .b
                .vector_shuffle(t, None, v4, v4, 0..n)
                .or_internal(&mut self.internal, Invariant::BlockOpen),
            _ => self
                .b
                .composite_extract(t, None, v4, [0])
                .or_internal(&mut self.internal, Invariant::BlockOpen),
        }
    }

    /// `value`, a texel, widened to the 4-component vector an image write takes (the image's
    /// format keeps the components it has).
    fn texel_to_vec4(&mut self, texel: &Elem, value: Word) -> Word {
        let s = Self::texel_component(texel);
        let v4 = self.ty(&Ty::Vector(s, 4));
        let st = self.scalar_ty(s);
        let zero = self.constant(st, 0, false);
        match texel.ty() {
            Ty::Vector(_, 4) => value,
            Ty::Vector(_, n) => {
                let parts: Vec<Word> = (0..n)
                    .map(|k| {
                        let st = self.scalar_ty(s);
                        self.b
                            .composite_extract(st, None, value, [k])
                            .or_internal(&mut self.internal, Invariant::BlockOpen)
                    })
                    .chain((n..4).map(|_| zero))
                    .collect();
                self.b
                    .composite_construct(v4, None, parts)
                    .or_internal(&mut self.internal, Invariant::BlockOpen)
            }
            _ => self
                .b
                .composite_construct(v4, None, [value, zero, zero, zero])
                .or_internal(&mut self.internal, Invariant::BlockOpen),
        }
    }

    /// Whether every component of `index` is below texture `p`'s extent; `None` in an
    /// unchecked kernel.
    fn texture_in_bounds(&mut self, p: ParamId, index: &[Word]) -> Option<Word> {
        self.oob.as_ref()?;
        let extent = self.texture_extent(p);
        let checks = vec![IndexCheck::Compared; index.len()];
        let inside = self.in_bounds(p, index, &extent, &checks);
        self.record_out_of_bounds(p, index, inside);
        Some(inside)
    }

    /// Lowers a texture operation.
    pub(super) fn texture_op(
        &mut self,
        op: TextureOp,
        p: ParamId,
        operands: &[Expr],
        ty: &Ty,
    ) -> Option<Word> {
        match op {
            TextureOp::Extent => {
                let extent = self.texture_extent(p);
                let t = self.ty(ty);
                Some(
                    self.b
                        .composite_construct(t, None, extent)
                        .or_internal(&mut self.internal, Invariant::BlockOpen),
                )
            }
            TextureOp::Load => {
                let mut index = Vec::with_capacity(operands.len());
                for i in operands {
                    index.push(self.expr(i)?);
                }
                let (texel, _) = self.texel_info(p);
                let inside = self.texture_in_bounds(p, &index);
                // An index outside reads texel 0 (always there) and yields zero.
                let safe: Vec<Word> = match inside {
                    Some(inside) => {
                        let (u, zero) = (self.scalar_ty(Scalar::U32), self.const_u32(0));
                        index
                            .iter()
                            .map(|&i| self.op(Op::Select, u, &[inside, i, zero]))
                            .collect()
                    }
                    None => index,
                };
                let coord = self.texel_coord(&safe);
                let img = self.image_var(p);
                let image = self.load(img.ty, img.var);
                let s = Self::texel_component(&texel);
                let v4 = self.ty(&Ty::Vector(s, 4));
                let lod = self.const_u32(0);
                let fetched = self
                    .b
                    .image_fetch(
                        v4,
                        None,
                        image,
                        coord,
                        Some(spirv::ImageOperands::LOD),
                        [Operand::IdRef(lod)],
                    )
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                let fetched = self.decode_as_host(p, &texel, fetched);
                let value = self.texel_from_vec4(&texel, fetched);
                Some(match inside {
                    Some(inside) => {
                        let t = self.ty(ty);
                        let zero = self.b.constant_null(t);
                        // SPIR-V 1.3 selects vectors with a vector of conditions.
                        let cond = match ty {
                            Ty::Vector(_, n) => {
                                let bv = self.ty(&Ty::Vector(Scalar::Bool, *n));
                                self.b
                                    .composite_construct(bv, None, vec![inside; *n as usize])
                                    .or_internal(&mut self.internal, Invariant::BlockOpen)
                            }
                            _ => inside,
                        };
                        self.op(Op::Select, t, &[cond, value, zero])
                    }
                    None => value,
                })
            }
            TextureOp::Sample(sampler) => {
                let coord = self.expr(&operands[0])?;
                let (texel, _) = self.texel_info(p);
                let combined = self.sampled_image(p, sampler);
                let v4 = self.ty(&Ty::Vector(Scalar::F32, 4));
                let f = self.scalar_ty(Scalar::F32);
                let lod = self.constant(f, 0, false);
                let sampled = self
                    .b
                    .image_sample_explicit_lod(
                        v4,
                        None,
                        combined,
                        coord,
                        spirv::ImageOperands::LOD,
                        [Operand::IdRef(lod)],
                    )
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                let sampled = self.sampled_as_host(p, &texel, sampled);
                Some(self.texel_from_vec4(&texel, sampled))
            }
            TextureOp::Gather(sampler, component) => {
                let coord = self.expr(&operands[0])?;
                let combined = self.sampled_image(p, sampler);
                let (texel, _) = self.texel_info(p);
                let s = Self::texel_component(&texel);
                let v4 = self.ty(&Ty::Vector(s, 4));
                let component = self.const_u32(component);
                let gathered = self
                    .b
                    .image_gather(v4, None, combined, coord, component, None, [])
                    .or_internal(&mut self.internal, Invariant::BlockOpen);
                // Four texels' values of one component, each decoded as the host does.
                Some(self.decode_as_host(p, &texel, gathered))
            }
            TextureOp::Store => {
                let (idx, value) = operands.split_at(operands.len() - 1);
                let value = self.expr(&value[0])?;
                let mut index = Vec::with_capacity(idx.len());
                for i in idx {
                    index.push(self.expr(i)?);
                }
                let (texel, _) = self.texel_info(p);
                let texel4 = self.texel_to_vec4(&texel, value);
                let mut texel4 = self.coded_for_store(p, &texel, texel4);
                if self.layout_facts[p].is_some() {
                    let half = self.layout_fact(p, crate::texture_fact::HALF_FLOAT);
                    let rounded = self.round_to_half(texel4);
                    let b4 = self.ty(&Ty::Vector(Scalar::Bool, 4));
                    let half4 = self.op(Op::CompositeConstruct, b4, &[half; 4]);
                    let f4 = self.ty(&Ty::Vector(Scalar::F32, 4));
                    texel4 = self.op(Op::Select, f4, &[half4, rounded, texel4]);
                }
                match self.texture_in_bounds(p, &index) {
                    None => self.image_write(p, &index, texel4),
                    Some(inside) => {
                        let (write, merge) = (self.b.id(), self.b.id());
                        let labels = IfLabels {
                            merge,
                            then: Some(write),
                            otherwise: None,
                        };
                        self.structured_if(inside, labels, &[255, 1], |e, _| {
                            e.image_write(p, &index, texel4);
                        });
                    }
                }
                None
            }
        }
    }

    /// The codes of a `Unorm` or `Norm` texture `p`'s components: their largest code (255 or
    /// 65,535; 127 or 32,767 signed), chosen by the texture's `SIXTEEN_BITS` fact, and the
    /// host's factor `1 / max` rounded once from the exact quotient. `None` for other texels.
    fn code_scale(&mut self, p: ParamId, texel: &Elem) -> Option<CodeScale> {
        let signed = match texel.ty().component() {
            Some(Scalar::Unorm) => false,
            Some(Scalar::Norm) => true,
            _ => return None,
        };
        let s = Scalar::F32;
        let sixteen = self.layout_fact(p, crate::texture_fact::SIXTEEN_BITS);
        let (max8, max16) = if signed {
            (127.0f64, 32767.0f64)
        } else {
            (255.0, 65535.0)
        };
        let mut scale = |eight: f64, sixteen_bits: f64| {
            let a = self.float_const(s, eight);
            let b = self.float_const(s, sixteen_bits);
            self.select(s, sixteen, b, a)
        };
        let max = scale(max8, max16);
        let recip = scale((1.0 / max8) as f32 as f64, (1.0 / max16) as f32 as f64);
        Some(CodeScale { signed, max, recip })
    }

    /// The components of `v4`, as a read of a `Unorm` or `Norm` texture `p` decoded them,
    /// decoded as the host decodes them: `code * (1 / (2^b - 1))` rounded to `f32` (and at
    /// least -1 for `Norm`). The device's decode is within an ULP of the code's value, so
    /// `round(v * (2^b - 1))` is the code. Other texels are returned as they are.
    fn decode_as_host(&mut self, p: ParamId, texel: &Elem, v4: Word) -> Word {
        let Some(CodeScale { signed, max, recip }) = self.code_scale(p, texel) else {
            return v4;
        };
        let s = Scalar::F32;
        let f4 = self.ty(&Ty::Vector(s, 4));
        let v4 = self.perturbed_when_forced(v4);
        let max4 = self.op(Op::CompositeConstruct, f4, &[max; 4]);
        let recip4 = self.op(Op::CompositeConstruct, f4, &[recip; 4]);
        let scaled = self.op(Op::FMul, f4, &[v4, max4]);
        self.exact(scaled);
        let code = self.ext(GLSL_ROUND_EVEN, f4, &[scaled]);
        let value = self.op(Op::FMul, f4, &[code, recip4]);
        self.exact(value);
        if !signed {
            return value;
        }
        let minus_one = self.float_const(s, -1.0);
        let floor4 = self.op(Op::CompositeConstruct, f4, &[minus_one; 4]);
        self.ext(super::glsl::NMAX, f4, &[value, floor4])
    }

    /// The components `v4` of a value stored to a `Unorm` or `Norm` texture `p`, moved so
    /// that the device's conversion gives the host's code on every device: the host's code
    /// `c = round_ties_even(clamp(x) * max)` (0 for NaN) is computed here, and the value stored
    /// is `(c + sign(c) / 4) / max`, a quarter of a step past the code, away from zero.
    /// Vulkan lets a device convert to either of the two nearest codes (NVIDIA's truncate
    /// `Norm` values toward zero, which gives -121 for -121.52, where the host gives -122);
    /// a quarter of a step past `c` is `c` both rounded to nearest and truncated.
    fn coded_for_store(&mut self, p: ParamId, texel: &Elem, v4: Word) -> Word {
        let Some(CodeScale { signed, max, recip }) = self.code_scale(p, texel) else {
            return v4;
        };
        let s = Scalar::F32;
        let f4 = self.ty(&Ty::Vector(s, 4));
        let b4 = self.ty(&Ty::Vector(Scalar::Bool, 4));
        let splat = |e: &mut Self, x: Word| e.op(Op::CompositeConstruct, f4, &[x; 4]);
        let lo = self.float_const(s, if signed { -1.0 } else { 0.0 });
        let (one, zero, quarter) = (
            self.float_const(s, 1.0),
            self.float_const(s, 0.0),
            self.float_const(s, 0.25),
        );
        let (lo4, one4, zero4, quarter4) = (
            splat(self, lo),
            splat(self, one),
            splat(self, zero),
            splat(self, quarter),
        );
        let (max4, recip4) = (splat(self, max), splat(self, recip));
        let nan = self.op(Op::IsNan, b4, &[v4]);
        let clamped = self.ext(GLSL_FCLAMP, f4, &[v4, lo4, one4]);
        let clamped = self.op(Op::Select, f4, &[nan, zero4, clamped]);
        let scaled = self.op(Op::FMul, f4, &[clamped, max4]);
        self.exact(scaled);
        let code = self.ext(GLSL_ROUND_EVEN, f4, &[scaled]);
        let direction = self.ext(GLSL_FSIGN, f4, &[code]);
        let past = self.op(Op::FMul, f4, &[direction, quarter4]);
        let target = self.op(Op::FAdd, f4, &[code, past]);
        let stored = self.op(Op::FMul, f4, &[target, recip4]);
        self.exact(stored);
        stored
    }

    /// A sample `v4` of a `Unorm` or `Norm` texture `p`, with each component that lies within
    /// 2^-20 of a texel code's value replaced by that value as the host decodes it
    /// ([`decode_as_host`](Self::decode_as_host)). A point-sampled (`Nearest`) component is a
    /// texel's value, which a device may decode an ULP from the host's (NVIDIA's decode
    /// `219` of a `Unorm8` as the quotient `219 / 255`, the host as `219 * (1 / 255)`); a
    /// filtered component near a code moves by an ULP or two at most, inside filtering's
    /// tolerance (docs/semantics.md).
    fn sampled_as_host(&mut self, p: ParamId, texel: &Elem, v4: Word) -> Word {
        if !matches!(
            texel.ty().component(),
            Some(Scalar::Unorm) | Some(Scalar::Norm)
        ) {
            return v4;
        }
        let host = self.decode_as_host(p, texel, v4);
        let f4 = self.ty(&Ty::Vector(Scalar::F32, 4));
        let b4 = self.ty(&Ty::Vector(Scalar::Bool, 4));
        let difference = self.op(Op::FSub, f4, &[v4, host]);
        let distance = self.ext(GLSL_FABS, f4, &[difference]);
        let near = self.float_const(Scalar::F32, 1.0 / 1_048_576.0);
        let near4 = self.op(Op::CompositeConstruct, f4, &[near; 4]);
        let snap = self.op(Op::FOrdLessThan, b4, &[distance, near4]);
        self.op(Op::Select, f4, &[snap, host, v4])
    }

    /// Under [`crate::spec_id::FORCE_EXACT_PATHS`], `v4` with its nonzero components moved an
    /// ULP up or down (alternately), as a device whose decode differs from the host's gives
    /// them, so that the recovery of the codes is tested on devices that decode as the host.
    fn perturbed_when_forced(&mut self, v4: Word) -> Word {
        let (forced, _) = self.exact_path_constants();
        let u4 = self.ty(&Ty::Vector(Scalar::U32, 4));
        let f4 = self.ty(&Ty::Vector(Scalar::F32, 4));
        let bits = self.op(Op::Bitcast, u4, &[v4]);
        let (up, down, zero) = (
            self.const_u32(1),
            self.const_u32(u32::MAX),
            self.const_u32(0),
        );
        let delta = self.b.constant_composite(u4, [up, down, up, down]);
        let zeros = self.b.constant_composite(u4, [zero; 4]);
        let magnitude = self.const_u32(0x7fff_ffff);
        let magnitudes = self.b.constant_composite(u4, [magnitude; 4]);
        let nonzero = self.op(Op::BitwiseAnd, u4, &[bits, magnitudes]);
        let b4 = self.ty(&Ty::Vector(Scalar::Bool, 4));
        let nonzero = self.op(Op::INotEqual, b4, &[nonzero, zeros]);
        let forced4 = self.op(Op::CompositeConstruct, b4, &[forced; 4]);
        let apply = self.op(Op::LogicalAnd, b4, &[nonzero, forced4]);
        let delta = self.op(Op::Select, u4, &[apply, delta, zeros]);
        let moved = self.op(Op::IAdd, u4, &[bits, delta]);
        self.op(Op::Bitcast, f4, &[moved])
    }

    /// Each component of `v4` (an `f32` vector) rounded to the nearest half-precision value,
    /// ties to even, as the host's `f32` -> `f16` conversion rounds: magnitudes from 65,520
    /// up become infinite, NaNs and infinities stay, half-precision subnormals are multiples
    /// of 2^-24. The result is exactly representable in 16 bits, so the device's conversion
    /// at the store (Vulkan allows rounding toward zero there; lavapipe does) cannot change it.
    fn round_to_half(&mut self, v4: Word) -> Word {
        let u4 = self.ty(&Ty::Vector(Scalar::U32, 4));
        let f4 = self.ty(&Ty::Vector(Scalar::F32, 4));
        let b4 = self.ty(&Ty::Vector(Scalar::Bool, 4));
        let splat_u = |e: &mut Self, v: u32| {
            let c = e.const_u32(v);
            e.b.constant_composite(u4, vec![c; 4])
        };
        let bits = self.op(Op::Bitcast, u4, &[v4]);
        let sign_mask = splat_u(self, 0x8000_0000);
        let abs_mask = splat_u(self, 0x7fff_ffff);
        let sign = self.op(Op::BitwiseAnd, u4, &[bits, sign_mask]);
        let a = self.op(Op::BitwiseAnd, u4, &[bits, abs_mask]);
        // Normal halves: 13 mantissa bits dropped, ties to even (a carry into the exponent
        // is the right result).
        let (thirteen, one) = (splat_u(self, 13), splat_u(self, 1));
        let shifted = self.op(Op::ShiftRightLogical, u4, &[a, thirteen]);
        let odd = self.op(Op::BitwiseAnd, u4, &[shifted, one]);
        let half_ulp = splat_u(self, 0x0fff);
        let up = self.op(Op::IAdd, u4, &[a, half_ulp]);
        let up = self.op(Op::IAdd, u4, &[up, odd]);
        let keep = splat_u(self, 0xffff_e000);
        let normal = self.op(Op::BitwiseAnd, u4, &[up, keep]);
        // Subnormal halves (below 2^-14): to the nearest multiple of 2^-24, exactly, by
        // scaling with powers of two around `RoundEven`.
        let af = self.op(Op::Bitcast, f4, &[a]);
        let up24 = self.f32_splat(16_777_216.0, Some(4));
        let down24 = self.f32_splat(1.0 / 16_777_216.0, Some(4));
        let scaled = self.op(Op::FMul, f4, &[af, up24]);
        self.exact(scaled);
        let whole = self.ext(GLSL_ROUND_EVEN, f4, &[scaled]);
        let sub = self.op(Op::FMul, f4, &[whole, down24]);
        self.exact(sub);
        let sub = self.op(Op::Bitcast, u4, &[sub]);
        let min_normal = splat_u(self, 0x3880_0000);
        let is_sub = self.op(Op::ULessThan, b4, &[a, min_normal]);
        let r = self.op(Op::Select, u4, &[is_sub, sub, normal]);
        // From 65,520 (halfway past the largest half, 65,504) up: infinity; NaNs stay.
        let (overflow, inf) = (splat_u(self, 0x477f_f000), splat_u(self, 0x7f80_0000));
        let big = self.op(Op::UGreaterThanEqual, b4, &[a, overflow]);
        let r = self.op(Op::Select, u4, &[big, inf, r]);
        let nan = self.op(Op::UGreaterThan, b4, &[a, inf]);
        let r = self.op(Op::Select, u4, &[nan, a, r]);
        let r = self.op(Op::BitwiseOr, u4, &[r, sign]);
        self.op(Op::Bitcast, f4, &[r])
    }

    /// Texture `p` combined with sampler parameter `sampler` (`OpSampledImage`).
    fn sampled_image(&mut self, p: ParamId, sampler: ParamId) -> Word {
        let img = self.image_var(p);
        let smp = self.image_var(sampler);
        let image = self.load(img.ty, img.var);
        let sampler = self.load(smp.ty, smp.var);
        let sampled_ty = self.b.type_sampled_image(img.ty);
        self.op(Op::SampledImage, sampled_ty, &[image, sampler])
    }

    fn image_write(&mut self, p: ParamId, index: &[Word], texel4: Word) {
        let coord = self.texel_coord(index);
        let img = self.image_var(p);
        let image = self.load(img.ty, img.var);
        self.b
            .image_write(image, coord, texel4, None, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
    }
}

/// What [`Emitter::code_scale`] gives: whether the codes are signed, the largest code and
/// its reciprocal as the host rounds it (`f32` values, chosen per launch).
struct CodeScale {
    signed: bool,
    max: Word,
    recip: Word,
}
