//! The quad form of a simple kernel: each invocation runs four consecutive indices at once and
//! moves the elements of its views with 16-byte loads and stores. A 4-byte load per index
//! holds a GPU at a quarter of its copy rate (an H200 copied 4,200 GB/s with 16-byte accesses
//! and about 1,000 GB/s with 4-byte ones), and lavapipe, which runs invocations side by side in
//! SIMD lanes, ran a vector add of `Float4`s in half the time of one of `f32`s.
//!
//! A view takes part when the analyses find every access of it a plain load or store of the
//! thread's own element (`v[idx]`, [`Findings::own_element_only`]) and its elements are scalars
//! of 4 bytes or fewer: each element then belongs to one thread, which keeps its four in
//! `Function` variables between one load and one store of the quad (16 bytes of 4-byte
//! scalars; one 32-bit word of bytes, two of 16-bit integers, so that a quad's store of small
//! integers is a plain store of words no other thread writes, where one index per step needs
//! an atomic or an 8-bit store). The body runs once per lane in a function of its own that
//! reads and writes those variables in place of the view, so every lane computes exactly what
//! the one-index body computes.
//!
//! Quads are four consecutive indices of the domain in row-major order, at any rank: in a 2-D
//! or 3-D domain a quad may end one row and start the next, which a view holds whole where it
//! covers the domain and its rows follow each other in memory (a whole array does; a section of
//! a wider one holds the quads inside its rows). The quads start up to three indices before
//! index 0 so that one view's (the first written) start at its 16-byte boundary: views that
//! start at the same element modulo 4 (sections from the same offset) all take the 16-byte
//! path. A quad that is not whole (the domain's first or last),
//! whose views do not hold it whole or do not start it at a 16-byte boundary (of the word, for
//! small integers), runs the one-index body four times instead, with every check.
//!
//! [`Findings::own_element_only`]: crate::analysis::Findings::own_element_only

use super::{Emitter, IfLabels, OrInternal};
use crate::back::spv::Invariant;
use crate::ir::*;
use crate::types::{Elem, Scalar};
use rspirv::spirv::{self, Op, StorageClass, Word};

/// Indices one invocation of a kernel in the quad form runs together.
pub(crate) const QUAD: u32 = 4;

/// One view of a kernel in the quad form.
#[derive(Clone, Debug)]
pub(crate) struct QuadView {
    param: ParamId,
    scalar: Scalar,
    /// Whether its four elements are loaded before the lanes run: the body reads them, or may
    /// leave one unwritten.
    preload: bool,
    /// Whether the body writes it: its four elements are stored after the lanes ran.
    written: bool,
}

/// Which views of a kernel run in the quad form; `None` for a kernel that keeps one index per
/// invocation.
#[derive(Clone, Debug)]
pub(crate) struct QuadForm {
    views: Vec<QuadView>,
}

impl QuadView {
    /// The buffer element a quad of this view is loaded and stored as: four 4- or 8-byte
    /// scalars as a 4-component vector of them, four bytes as one `u32` word, four 16-bit
    /// integers as two.
    fn quad_elem(&self) -> Elem {
        match self.scalar.stored().narrow_bits() {
            Some(8) => Elem::Scalar(Scalar::U32),
            Some(_) => Elem::Vector(Scalar::U32, 2),
            None => Elem::Vector(self.scalar, QUAD),
        }
    }
}

impl QuadForm {
    /// The form's views (parameter numbers), the one its quads are aligned to first: the
    /// first written, else the first (`amp_abi::Shape::Chosen::quad_views`).
    pub(crate) fn aligned_views(&self) -> Vec<u32> {
        let anchor = self.views.iter().position(|v| v.written).unwrap_or(0);
        let mut views: Vec<u32> = self.views.iter().map(|v| v.param as u32).collect();
        if anchor < views.len() {
            let first = views.remove(anchor);
            views.insert(0, first);
        }
        views
    }

    /// The element type of buffer `p` as the form loads and stores its quads, where `p` is one
    /// of its views.
    pub(super) fn vector_of(&self, p: ParamId) -> Option<Elem> {
        let v = self.views.iter().find(|v| v.param == p)?;
        Some(v.quad_elem())
    }

    /// The quad form of `k`, from the analyses' [`own_element_only`] and `access` (per
    /// parameter: read, written): for a simple kernel without loops (a device's loop
    /// limit counts an invocation's iterations, which four lanes would multiply) with at least
    /// one view of scalars (`f32`, `f64`, `i32`, `u32`, the small integers and `bool`) that only
    /// its own thread touches.
    ///
    /// [`own_element_only`]: crate::analysis::Findings::own_element_only
    pub(crate) fn of(
        k: &Kernel,
        own_element_only: &[bool],
        access: &[(bool, bool)],
    ) -> Option<QuadForm> {
        if k.tiled.is_some() || has_loop(&k.body) {
            return None;
        }
        let returns = block_has(&k.body, has_return);
        let views: Vec<QuadView> = k
            .params
            .iter()
            .enumerate()
            .filter_map(|(p, param)| {
                let ParamKind::Buffer {
                    elem:
                        Elem::Scalar(
                            s @ (Scalar::F32
                            | Scalar::F64
                            | Scalar::I32
                            | Scalar::U32
                            | Scalar::I8
                            | Scalar::U8
                            | Scalar::I16
                            | Scalar::U16
                            | Scalar::Bool),
                        ),
                    rank,
                    ..
                } = param.kind
                else {
                    return None;
                };
                if rank != k.rank || !own_element_only.get(p).copied().unwrap_or(false) {
                    return None;
                }
                let (read, written) = access.get(p).copied().unwrap_or((true, true));
                Some(QuadView {
                    param: p,
                    scalar: s,
                    preload: read || returns || !written_first(&k.body, p),
                    written,
                })
            })
            .collect();
        (!views.is_empty()).then_some(QuadForm { views })
    }
}

/// Whether a statement at the top of `body` (not under an `if` or in a block) assigns an element
/// of buffer `p`: with no `return` in the body, every lane then writes its element.
fn written_first(body: &Block, p: ParamId) -> bool {
    body.stmts.iter().any(|s| {
        matches!(s, Stmt::Expr(Expr { kind: ExprKind::Assign(Place::Buffer(q, _), _), .. }) if *q == p)
    })
}

impl Emitter<'_> {
    /// The body once per lane: a function of the lane's index (its components) and, per view of
    /// the quad form, a pointer to the lane's element (a `Function` variable of the quad's function),
    /// which every access of that view reads or writes instead of the buffer. Returns its id.
    pub(super) fn lane_function(&mut self, form: &QuadForm, name: &str) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let void = self.b.type_void();
        let elem_ptrs: Vec<Word> = form
            .views
            .iter()
            .map(|v| {
                let t = self.scalar_ty(v.scalar);
                self.ptr(t, StorageClass::Function)
            })
            .collect();
        let rank = self.k.rank as usize;
        let ty = self.b.type_function(
            void,
            std::iter::repeat_n(u, rank).chain(elem_ptrs.iter().copied()),
        );
        let id = self.b.id();
        self.b
            .begin_function(void, Some(id), spirv::FunctionControl::NONE, ty)
            .or_internal(&mut self.internal, Invariant::NoFunctionOpen);
        self.b.name(id, format!("{name}_lane"));
        let index: Vec<Word> = (0..rank)
            .map(|_| {
                self.b
                    .function_parameter(u)
                    .or_internal(&mut self.internal, Invariant::FunctionOpen)
            })
            .collect();
        for (v, &t) in form.views.iter().zip(&elem_ptrs) {
            let ptr = self
                .b
                .function_parameter(t)
                .or_internal(&mut self.internal, Invariant::FunctionOpen);
            self.lane_elems.insert(v.param, ptr);
        }
        let entry = self.b.id();
        self.begin(entry);
        self.declare_locals();
        self.store_index(&index);
        self.body_and_return();
        self.lane_elems.clear();
        id
    }

    /// The quad's function, called with quad number `q` (indices `4q - shift` to
    /// `4q - shift + 3`, [`Emitter::quad_shift`]): where the
    /// quad is whole and each view of the form holds it whole from a 16-byte boundary, one
    /// 16-byte load per view the lanes read, the lanes (`lane`), one 16-byte store per view they
    /// write; elsewhere the one-index body (`at`) for each index of the quad inside the domain.
    pub(super) fn quad_function(
        &mut self,
        form: &QuadForm,
        name: &str,
        at: Word,
        lane: Word,
    ) -> Word {
        let u = self.scalar_ty(Scalar::U32);
        let b = self.scalar_ty(Scalar::Bool);
        let void = self.b.type_void();
        let id = self.b.id();
        let q = self.begin_function(id, &format!("{name}_quad"), Some(u));
        let elems: Vec<[Word; QUAD as usize]> = form
            .views
            .iter()
            .map(|v| {
                let t = self.scalar_ty(v.scalar);
                [(); QUAD as usize].map(|()| self.function_var(t, None))
            })
            .collect();
        let domain = self.domain_extents();
        let total = self.domain_size();
        let two = self.const_u32(2);
        let three = self.const_u32(3);
        let four = self.const_u32(QUAD);
        let zero = self.const_u32(0);
        // Quad `q` starts at index `4q - shift`, so that the anchor view's quads start at a
        // 16-byte boundary; the first quad of a shifted launch starts before index 0 (`base`
        // wraps) and is never whole. The grid runs quads below `ceil((total + shift) / 4)`, so
        // `base < total` where `4q >= shift`.
        let four_q = self.op(Op::ShiftLeftLogical, u, &[q, two]);
        let shift = self.quad_shift(form);
        let base = self.op(Op::ISub, u, &[four_q, shift]);
        let started = self.op(Op::UGreaterThanEqual, b, &[four_q, shift]);
        let end = self.op(Op::IAdd, u, &[base, four]);
        let inside = self.op(Op::ULessThanEqual, b, &[end, total]);
        let mut whole = self.op(Op::LogicalAnd, b, &[started, inside]);
        // The lanes' indices, stepped from the first's components: in a domain of a higher
        // rank, right where a row of at least four indices holds the quad or ends inside it.
        let lanes = self.quad_indices(base, &domain);
        let in_row = match domain[..] {
            [.., _, last] => {
                let long = self.op(Op::UGreaterThanEqual, b, &[last, four]);
                whole = self.op(Op::LogicalAnd, b, &[whole, long]);
                let end_in_row = self.op(Op::IAdd, u, &[lanes[0][domain.len() - 1], three]);
                Some(self.op(Op::ULessThan, b, &[end_in_row, last]))
            }
            _ => None,
        };
        let mut starts = Vec::with_capacity(form.views.len());
        for v in &form.views {
            let (first, _) = self.buffer_linear(v.param, &lanes[0]);
            let holds = match in_row {
                None => self.holds_from(v.param, base),
                Some(in_row) => self.holds_quad(v.param, &domain, in_row),
            };
            let low = self.op(Op::BitwiseAnd, u, &[first, three]);
            let aligned = self.op(Op::IEqual, b, &[low, zero]);
            for c in [aligned, holds] {
                whole = self.op(Op::LogicalAnd, b, &[whole, c]);
            }
            starts.push(self.op(Op::ShiftRightLogical, u, &[first, two]));
        }
        let labels = IfLabels {
            merge: self.b.id(),
            then: Some(self.b.id()),
            otherwise: None,
        };
        self.structured_if(whole, labels, &[255, 1], |e, _| {
            e.quad_lanes(form, &elems, &starts, &lanes, lane);
        });
        // Elsewhere the one-index body for each index of the quad inside the domain: a loop of
        // no steps for a whole quad, not an `else`, because a CPU driver runs both arms of a
        // branch its SIMD lanes disagree on, or cannot tell they agree, and leaves a loop
        // whose lanes are all done (lavapipe ran the vector add in 40 ms with an `else`, in
        // 19 ms without the fallback).
        let first = self.op(Op::Select, u, &[started, base, zero]);
        let last = self.op(Op::Select, u, &[inside, end, total]);
        let left = self.op(Op::ISub, u, &[last, first]);
        let count = self.op(Op::Select, u, &[whole, zero, left]);
        self.count_loop(count, |e, k| {
            let index = e.op(Op::IAdd, u, &[first, k]);
            e.b.function_call(void, None, at, [index])
                .or_internal(&mut e.internal, Invariant::BlockOpen);
        });
        self.return_and_end_function();
        id
    }

    /// Whether rank-1 view `p` holds the four elements from index `base` (below the
    /// domain's size): `extent - base >= 4` where `extent >= base` (no wrap either way).
    fn holds_from(&mut self, p: ParamId, base: Word) -> Word {
        let (u, b) = (self.scalar_ty(Scalar::U32), self.scalar_ty(Scalar::Bool));
        let four = self.const_u32(QUAD);
        let extent = self.buffer_extent(p)[0];
        let reaches = self.op(Op::UGreaterThanEqual, b, &[extent, base]);
        let left = self.op(Op::ISub, u, &[extent, base]);
        let holds = self.op(Op::UGreaterThanEqual, b, &[left, four]);
        self.op(Op::LogicalAnd, b, &[reaches, holds])
    }

    /// Whether view `p` of a higher rank holds a quad of the domain of extent `domain`
    /// (`in_row`: the quad lies in one row): the view covers the domain, and the quad lies in
    /// one row or the view's rows follow each other as the domain's do (its strides are the
    /// domain's row-major ones), so a section of a wider array holds the quads inside its rows.
    fn holds_quad(&mut self, p: ParamId, domain: &[Word], in_row: Word) -> Word {
        let (u, b) = (self.scalar_ty(Scalar::U32), self.scalar_ty(Scalar::Bool));
        let strides = self.buffer_strides(p, self.k.rank);
        let mut follow = None;
        let mut row_major = domain[domain.len() - 1];
        for (d, &stride) in strides.iter().enumerate().rev() {
            let same = self.op(Op::IEqual, b, &[stride, row_major]);
            follow = Some(match follow {
                None => same,
                Some(f) => self.op(Op::LogicalAnd, b, &[f, same]),
            });
            row_major = self.op(Op::IMul, u, &[row_major, domain[d]]);
        }
        let mut holds = match follow {
            Some(f) => self.op(Op::LogicalOr, b, &[in_row, f]),
            None => in_row,
        };
        for (&own, &d) in self.buffer_extent(p).iter().zip(domain) {
            let covers = self.op(Op::UGreaterThanEqual, b, &[own, d]);
            holds = self.op(Op::LogicalAnd, b, &[holds, covers]);
        }
        holds
    }

    /// How many indices the quads are shifted back by (0 to 3), so that they start at a
    /// 16-byte boundary of the form's anchor view (its first written view, else its first
    /// view): the view's element offset modulo 4. A view of another offset modulo 4 runs one
    /// index at a time.
    pub(super) fn quad_shift(&mut self, form: &QuadForm) -> Word {
        let anchor = form
            .aligned_views()
            .first()
            .map(|&p| p as ParamId)
            .or_internal(&mut self.internal, Invariant::BufferDeclared);
        let u = self.scalar_ty(Scalar::U32);
        let offset = self.buffer_offset(anchor);
        let three = self.const_u32(3);
        self.op(Op::BitwiseAnd, u, &[offset, three])
    }

    /// The indices (their components) of the quad from index number `base` of a domain of
    /// extent `domain`: the first's from `base`, each next one a step along the last dimension
    /// that moves to the next row at the row's end, right for rows of at least four indices.
    fn quad_indices(&mut self, base: Word, domain: &[Word]) -> Vec<Vec<Word>> {
        let u = self.scalar_ty(Scalar::U32);
        let b = self.scalar_ty(Scalar::Bool);
        let (zero, one) = (self.const_u32(0), self.const_u32(1));
        let first = self.domain_index(base);
        let mut lanes = vec![first.clone()];
        for k in 1..QUAD {
            let k = self.const_u32(k);
            let mut index = first.clone();
            let mut carry = None;
            for d in (0..domain.len()).rev() {
                let moved = match carry {
                    None => self.op(Op::IAdd, u, &[first[d], k]),
                    Some(c) => self.op(Op::IAdd, u, &[first[d], c]),
                };
                if d == 0 {
                    index[d] = moved;
                    break;
                }
                // At most one row's end: `moved < 2 * domain[d]`.
                let wraps = self.op(Op::UGreaterThanEqual, b, &[moved, domain[d]]);
                let back = self.op(Op::ISub, u, &[moved, domain[d]]);
                index[d] = self.op(Op::Select, u, &[wraps, back, moved]);
                carry = Some(self.op(Op::Select, u, &[wraps, one, zero]));
            }
            lanes.push(index);
        }
        lanes
    }

    /// A structured loop of `count` steps, `step(self, k)` for `k` from 0.
    fn count_loop(&mut self, count: Word, mut step: impl FnMut(&mut Self, Word)) {
        let u = self.scalar_ty(Scalar::U32);
        let b = self.scalar_ty(Scalar::Bool);
        let zero = self.const_u32(0);
        let one = self.const_u32(1);
        let entry = self.label;
        let [header, body, next_block, done, next] = [(); 5].map(|()| self.b.id());
        self.branch(header);
        self.begin(header);
        let k = self
            .b
            .phi(u, None, [(zero, entry), (next, next_block)])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        let more = self.op(Op::ULessThan, b, &[k, count]);
        self.b
            .loop_merge(done, next_block, spirv::LoopControl::NONE, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.b
            .branch_conditional(more, body, done, [])
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.begin(body);
        step(self, k);
        self.branch(next_block);
        self.begin(next_block);
        self.b
            .i_add(u, Some(next), k, one)
            .or_internal(&mut self.internal, Invariant::BlockOpen);
        self.branch(header);
        self.begin(done);
    }

    /// A whole quad: the views' loads, the four lanes, the views' stores.
    fn quad_lanes(
        &mut self,
        form: &QuadForm,
        elems: &[[Word; QUAD as usize]],
        starts: &[Word],
        lanes: &[Vec<Word>],
        lane: Word,
    ) {
        let void = self.b.type_void();
        let zero = self.const_u32(0);
        let mut quads = Vec::with_capacity(form.views.len());
        for (i, v) in form.views.iter().enumerate() {
            let quad_ty = self.storage_elem_ty(&v.quad_elem());
            let quad_ptr = self.ptr(quad_ty, StorageClass::StorageBuffer);
            let var = self
                .quad_vars
                .get(&v.param)
                .copied()
                .or_internal(&mut self.internal, Invariant::BufferDeclared);
            let ptr = self.access(quad_ptr, var, &[zero, starts[i]]);
            if v.preload {
                let value = self.load(quad_ty, ptr);
                let lanes = self.quad_unpack(v, value);
                for (&elem, lane) in elems[i].iter().zip(lanes) {
                    self.store(elem, lane);
                }
            }
            quads.push(ptr);
        }
        for (k, index) in lanes.iter().enumerate() {
            let args = index.iter().copied().chain(elems.iter().map(|e| e[k]));
            self.b
                .function_call(void, None, lane, args)
                .or_internal(&mut self.internal, Invariant::BlockOpen);
        }
        for (i, v) in form.views.iter().enumerate() {
            if !v.written {
                continue;
            }
            let t = self.scalar_ty(v.scalar);
            let lanes = elems[i].map(|e| self.load(t, e));
            let value = self.quad_pack(v, lanes);
            self.store(quads[i], value);
        }
    }

    /// The four lanes' values of view `v` in `quad`, a quad as [`QuadView::quad_elem`] loads
    /// it: a vector's components, or each small element shifted out of its word and narrowed
    /// (sign-extended for `i8` and `i16`; a `bool` is its byte compared with 0), as the
    /// one-index body's load of it gives.
    fn quad_unpack(&mut self, v: &QuadView, quad: Word) -> [Word; QUAD as usize] {
        let t = self.scalar_ty(v.scalar);
        let Some(bits) = v.scalar.stored().narrow_bits() else {
            return [0, 1, 2, 3].map(|k| {
                self.b
                    .composite_extract(t, None, quad, [k])
                    .or_internal(&mut self.internal, Invariant::BlockOpen)
            });
        };
        let u = self.scalar_ty(Scalar::U32);
        let per_word = 32 / bits;
        [0, 1, 2, 3].map(|k| {
            let word = if per_word == QUAD {
                quad
            } else {
                self.b
                    .composite_extract(u, None, quad, [k / per_word])
                    .or_internal(&mut self.internal, Invariant::BlockOpen)
            };
            let shift = self.const_u32((k % per_word) * bits);
            let down = self.op(Op::ShiftRightLogical, u, &[word, shift]);
            if v.scalar == Scalar::Bool {
                let b = self.scalar_ty(Scalar::Bool);
                let (mask, zero) = (self.const_u32(0xff), self.const_u32(0));
                let byte = self.op(Op::BitwiseAnd, u, &[down, mask]);
                return self.op(Op::INotEqual, b, &[byte, zero]);
            }
            let value = self.bitcast_to(t, u, down);
            self.narrow(value, v.scalar)
        })
    }

    /// The quad of view `v` holding `lanes`, the lanes' values, as [`QuadView::quad_elem`]
    /// stores it: a vector of them, or each small value's low bits in its place of its word (a
    /// `bool` as 1 or 0).
    fn quad_pack(&mut self, v: &QuadView, lanes: [Word; QUAD as usize]) -> Word {
        let quad_ty = self.storage_elem_ty(&v.quad_elem());
        let Some(bits) = v.scalar.stored().narrow_bits() else {
            return self
                .b
                .composite_construct(quad_ty, None, lanes)
                .or_internal(&mut self.internal, Invariant::BlockOpen);
        };
        let u = self.scalar_ty(Scalar::U32);
        let t = self.scalar_ty(v.scalar);
        let per_word = 32 / bits;
        let mask = self.const_u32(((1u64 << bits) - 1) as u32);
        let mut words: Vec<Word> = Vec::with_capacity((QUAD / per_word) as usize);
        for (k, lane) in (0u32..).zip(lanes) {
            let bits_of_lane = if v.scalar == Scalar::Bool {
                let (one, zero) = (self.const_u32(1), self.const_u32(0));
                self.op(Op::Select, u, &[lane, one, zero])
            } else {
                let raw = self.bitcast_to(u, t, lane);
                self.op(Op::BitwiseAnd, u, &[raw, mask])
            };
            let shift = self.const_u32((k % per_word) * bits);
            let placed = self.op(Op::ShiftLeftLogical, u, &[bits_of_lane, shift]);
            if k % per_word == 0 {
                words.push(placed);
            } else if let Some(word) = words.last_mut() {
                *word = self.op(Op::BitwiseOr, u, &[*word, placed]);
            }
        }
        match words[..] {
            [word] => word,
            _ => self
                .b
                .composite_construct(quad_ty, None, words)
                .or_internal(&mut self.internal, Invariant::BlockOpen),
        }
    }
}
