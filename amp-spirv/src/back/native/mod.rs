//! The native back end: a checked [`Kernel`] as Rust source for ONE THREAD of a simple kernel
//! or ONE TILE of a tiled kernel, compiled by rustc beside the SPIR-V words and run by a CPU
//! executor (issue 13).
//!
//! The code is generated from the IR, never from the kernel's tokens, so both back ends give a
//! kernel the same meaning; every rule of docs/semantics.md holds in the generated code
//! (wrapping `+ - *`, `x / 0`, `x % 0`, `MIN / -1`, shifts by the amount modulo 32, Rust's `as`,
//! NaN-ignoring `min`/`max`, no contraction, index clamps on local arrays).
//!
//! # The native thread ABI
//!
//! ```text
//! pub unsafe fn <kernel>(idx: [u32; RANK], <params>, <consts>, oob: &<rt>::OobReport)
//! ```
//!
//! - `idx`: the thread's index in the launch domain (`usize` is `u32` in kernels, as on the
//!   device, so `usize` arithmetic wraps at 32 bits on both back ends).
//! - one argument per kernel parameter after the index, in declaration order:
//!   - a view or array: `<rt>::Buf<T, R>` by value: the buffer's base pointer, the view's
//!     extent, the element offset of its first element, and the element strides of dimensions
//!     `0..R-1` (the last is 1), exactly the SPIR-V back end's storage buffer plus its
//!     push-constant words (`amp_abi::buffer_layout`). `T` is the element's Rust type (below);
//!   - a scalar: by value, in its Rust type (`bool` as `bool`, `usize` as `u32`);
//!   - a short vector or struct by value (`ParamKind::Value`): by value, in its Rust type;
//!   - a texture view: `<rt>::Tex<R>` by value; a sampler: `<rt>::Smp` (see "Textures and
//!     samplers" below);
//! - then each outer constant (a `const` item or const-generic parameter the body reads), by
//!   value in its type, in [`Kernel::consts`] order (the SPIR-V specialization constants 3, ..);
//! - `oob`: the launch's out-of-bounds report ([`amp_abi::OOB_REPORT_WORDS`] words with the
//!   device's layout), shared by all threads: a checked access outside its view reads 0 or is
//!   skipped and the first one is recorded there. Unchecked kernels never touch it.
//!
//! Rust types of kernel values (each with the host type's memory layout, so the runtime may
//! pass pointers to host buffers and transmute by-value arguments):
//!
//! - `i32`, `u32`, `f32`, `f64`, `bool`; `usize` is `u32`;
//! - `Norm` / `Unorm`: their `f32` (the host types are `#[repr(transparent)]`); every
//!   arithmetic result and conversion into them is clamped by `<rt>::norm` / `<rt>::unorm`
//!   exactly as the host's `new` (NaN to 0, `-0.0` kept), as the SPIR-V back end's
//!   `normalized.rs`;
//! - a short vector `Float3`, `Int2`, `Unorm4`, ..: `[T; N]` of its component's Rust type (the
//!   host's `#[repr(C)]` vectors are packed: `[f32; 3]` is a `Float3`'s 12 bytes). Operators
//!   work component by component; `dot` sums from the first component, `length` is
//!   `sqrt(dot(v, v))`, `normalize` is `v / length(v)` (GLSL's definitions);
//! - a `#[derive(DeviceStruct)]` struct `Name`: a `#[repr(C)]` struct `<fn_name>_<Name>`
//!   emitted before the function, fields `f0, f1, ..` of the fields' Rust types in declaration
//!   order (so the host's C layout; its size and offsets are asserted at compile time), deriving
//!   `Clone, Copy, Debug, Default, PartialEq`. `NativeKernel::structs` lists them;
//! - a local array `[T; n]`: `[T; n]`.
//!
//! Safety contract (why the function is `unsafe`): every `Buf` points at memory valid for its
//! extent, offset and strides for the whole call; writable buffers are not read by anyone else
//! during the launch except through the same kernel's threads; unchecked kernels index inside
//! their views (an unchecked out-of-bounds access is undefined behaviour natively, as it is in
//! C++ AMP). The function is `#[inline]` so an executor's `for id in chunk { k(id, ..) }` in
//! an optimized build is one loop for LLVM (not `inline(always)`, which makes unoptimized
//! builds of many kernels, such as the differential tester's, slower to compile).
//!
//! # The native tile ABI (tiled kernels)
//!
//! ```text
//! pub unsafe fn <kernel>(tile: [u32; RANK], <params>, <consts>, oob: &<rt>::OobReport)
//! ```
//!
//! A tiled kernel (`TiledIndex<D0, ..>`) is ONE function per TILE: `tile` is the tile's index
//! (`t.tile`); the parameters, constants and `oob` are as in the thread ABI. The tile's shape is
//! [`Tiled::dims`]: a literal, or a named outer constant, read from its `c<i>` argument (so tile
//! sizes may be runtime values; the caller keeps the thread count `D0 * ..` at most 1024, as the
//! device does, and each dimension non-zero). For thread `local` of the tile,
//! `t.global = tile * dims + local` (wrapping), `t.tile_origin = tile * dims`,
//! `t.tile_extent = dims`. The executor calls the function once per tile of the launch, tiles in
//! any order and on any OS thread; the function runs all the tile's threads itself:
//!
//! - the body is cut at its barriers (`t.barrier.wait*()`, every flavour: a barrier orders all
//!   memory when the threads of a tile run one after another); each run of barrier-free code
//!   is a work-item loop over the tile's threads in row-major local-index order (the MCUDA /
//!   PoCL transformation);
//! - control flow containing a barrier is uniform (the front end's uniformity analysis proves
//!   it), so it runs once per tile with its condition (or range) evaluated for the first thread
//!   that has not returned; a `break` or `continue` of such a loop, taken in a work-item loop,
//!   ends that thread's region and the loop is left (continued) after the region;
//! - a `return` ends the thread: it skips every later region (a barrier it would have reached
//!   is simply not waited for, C++ AMP leaves that undefined);
//! - thread-private locals used in more than one region live in per-thread frames: one array
//!   per local with an element per thread (`fl<id>[lane]`, allocated once per call with
//!   `<rt>::frames`, on the stack for a batch), so neighbouring threads of a work-item loop
//!   touch neighbouring elements; others are plain locals of their work-item loop;
//! - `tile_static` variables are plain locals of the tile function, shared by its work-item
//!   loops (zero at the start of each call; C++ AMP leaves them undefined); atomics on them are
//!   plain read-modify-writes; memory fences of global memory are `SeqCst` fences.
//!
//! A barrier inside an expression (`let x = { t.barrier.wait(); 1 };`) is [`Unsupported`].
//!
//! - a `tile_static` array whose length is a named constant (`[[f32; TS]; TS]`) is a flat
//!   vector allocated once per call (its lengths must be at least 1), indexed row-major with
//!   each index clamped as local arrays are; it is read and written element by element only.
//!
//! In a checked kernel, bounds checks (and the clamps of local array indices) that one
//! comparison decides for every thread of a tile move to *guards* (`guard.rs`): the tile
//! function is generated twice, with and without those checks, and a wrapper compares the
//! largest index the tile can use with the extent to pick one; checks that depend on a
//! tile-uniform local are decided the same way before each work-item loop.
//!
//! # Batches of a simple kernel
//!
//! A simple kernel with a loop every thread runs the same way also gets a *batch* function
//! ([`native_batched`], `batch.rs`): the tile ABI above for the tiled kernel whose tiles are
//! [`LANES`] neighbouring threads of the last dimension, with those loops run at tile level.
//! The executor calls it for each row's full batches and the thread function for the rest.
//! A tiled kernel's loops that every thread of a tile runs the same way are run at tile level
//! in the same way (`batch::hoisted_tiled`), with no change to the tile ABI.
//!
//! # Textures and samplers
//!
//! A `TextureView<T, R>` or `WriteonlyTextureView<T, R>` parameter is `<rt>::Tex<R>` by value
//! (the texels' host memory in the texture's own format: kind, bits per component, component
//! count), a `Sampler` is `<rt>::Smp` (filter and address mode). `tex[idx]`, `tex.set(idx, v)`,
//! `tex.sample(&s, coord)` and the gathers call `Tex`'s methods (`texture.rs`), which give
//! Vulkan's results: four components per texel (missing ones 0, alpha 1), normalized
//! coordinates, texel centres at `+0.5`, each address mode on the texel indices, a border of
//! transparent black, writes rounded to nearest even. Checked kernels compare every index
//! component with the texture's extent (an index outside reads zero or skips the write and is
//! recorded), as the SPIR-V back end does.
//!
//! # Not supported yet
//!
//! Thread-private arrays whose length is a named constant (and a
//! `tile_static` one used as a whole value or partly indexed); a barrier inside an
//! expression; a mutable loop variable of a `for` loop that contains a barrier. Such kernels
//! give [`Unsupported`] (they run on Vulkan only), never a panic.
//!
//! The helpers the code calls live in the `amp-native-rt` crate, named through a path the caller
//! chooses (`rt`): `#[kernel(amp)]` uses `::amp::__private::native`, the runtime's re-export.

mod batch;
mod expr;
mod guard;
mod texture;
mod tile;
mod tile_locals;

pub use batch::LANES;

use super::BoundsChecks;
use crate::diag::Span;
use crate::ir::*;
use crate::range::Ranges;
use crate::types::StructDef;
use crate::types::{Len, Scalar, Ty};
use std::cell::RefCell;
use std::fmt;
use std::fmt::Write as _;
use std::sync::Arc;

/// A construct the native back end does not translate yet: the kernel runs on Vulkan only.
#[derive(Clone, Debug)]
pub struct Unsupported {
    /// What it is, in words (`"tiled kernels"`, `"short vectors"`).
    pub construct: String,
    /// Where it is in the kernel.
    pub span: Span,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the native back end does not support {} yet",
            self.construct
        )
    }
}

impl std::error::Error for Unsupported {}

/// Why the native back end stopped: a construct it does not translate yet (the kernel runs on
/// Vulkan only), or a broken invariant of its own (a bug in amp-rs, reported as such).
#[derive(Clone, Debug)]
pub enum Stop {
    /// A construct the native back end does not translate yet.
    Unsupported(Unsupported),
    /// A bug: what broke, and where in the kernel the back end was.
    Internal {
        /// The invariant that does not hold.
        invariant: String,
        /// Where the back end was.
        span: Span,
    },
}

pub(crate) type Res<T> = Result<T, Stop>;

/// Rust source for one thread of `kernel`: a function named `fn_name` with the ABI of this
/// module's documentation, calling the prelude through the path `rt` (for example
/// `crate::amp_native`).
///
/// Also returns the structs the source defines: (the kernel's name of each
/// `#[derive(DeviceStruct)]` struct it uses, the name of its generated `#[repr(C)]` twin).
///
/// With `assume_covers`, every view is taken to cover the launch domain: index components the
/// range analysis bounds by the domain are not checked (the runtime calls this variant only
/// when every buffer argument covers the domain; see [`NativeSource::uses_covers`]).
pub fn native(
    kernel: &Kernel,
    ranges: &Ranges,
    checks: BoundsChecks,
    rt: &str,
    fn_name: &str,
    assume_covers: bool,
) -> Res<NativeSource> {
    match batch::hoisted_tiled(kernel) {
        Some((h, loops)) => emit(&h, ranges, checks, rt, fn_name, assume_covers, false, loops),
        None => emit(
            kernel,
            ranges,
            checks,
            rt,
            fn_name,
            assume_covers,
            false,
            Default::default(),
        ),
    }
}

/// Rust source for one *batch* of a simple kernel: [`LANES`] neighbouring threads along the
/// last dimension, with the loops every thread runs the same way hoisted out of the work-item
/// loops (see `batch.rs`). `None` when the kernel has no such loop (batching would gain
/// nothing), or is tiled.
///
/// The function has the tile ABI of a tiled kernel whose tile shape is `[1, .., 1, LANES]`:
/// its first argument `[t0, .., tn]` runs threads `[t0, .., tn * LANES + l]` for `l` in
/// `0..LANES`, all of which must be inside the domain (the caller runs a row's remainder with
/// the thread function).
pub fn native_batched(
    kernel: &Kernel,
    ranges: &Ranges,
    checks: BoundsChecks,
    rt: &str,
    fn_name: &str,
    assume_covers: bool,
) -> Res<Option<NativeSource>> {
    match batch::batched_kernel(kernel) {
        Some((b, loops)) => {
            emit(&b, ranges, checks, rt, fn_name, assume_covers, true, loops).map(Some)
        }
        None => Ok(None),
    }
}

/// [`native`] of `kernel` (the checked kernel, or a batched or hoisted form of it: the same
/// locals and index), with the checked kernel's range facts `ranges`; `batch` when `kernel`
/// is a simple kernel's batch; `hoisted`: the variables of its loops `batch.rs` hoisted.
#[allow(clippy::too_many_arguments)]
fn emit(
    kernel: &Kernel,
    ranges: &Ranges,
    checks: BoundsChecks,
    rt: &str,
    fn_name: &str,
    assume_covers: bool,
    batch: bool,
    hoisted: std::collections::HashSet<LocalId>,
) -> Res<NativeSource> {
    let mut e = Emitter::new(kernel, ranges, checks, rt, fn_name);
    e.assume_covers = assume_covers;
    e.batch = batch;
    e.hoisted = hoisted;
    let f = if kernel.tiled.is_some() {
        e.guarded_tiled_function(fn_name)?
    } else {
        e.function(fn_name)?
    };
    // The structs' items: each one's fields may name more structs.
    let span = e.whole_kernel();
    let mut items = String::new();
    let mut done = 0;
    while done < e.structs.borrow().len() {
        let def = e.structs.borrow()[done].clone();
        items.push_str(&e.struct_item(&def, span)?);
        done += 1;
    }
    let names = e
        .structs
        .borrow()
        .iter()
        .map(|d| (d.name.clone(), e.struct_name(d)))
        .collect();
    Ok(NativeSource {
        source: format!("{items}{f}"),
        structs: names,
        spans: e.spans,
        uses_covers: e.uses_covers,
    })
}

/// What [`native`] generates.
pub struct NativeSource {
    /// The source: the structs' items, then the function.
    pub source: String,
    /// Each `#[derive(DeviceStruct)]` struct the code uses: its name in the kernel, the name of
    /// its generated `#[repr(C)]` twin.
    pub structs: Vec<(String, String)>,
    /// The kernel statement of each `<rt>::at(n);` marker in the source: a marker precedes the
    /// code of each statement, so a caller that turns the source into tokens can give that code
    /// the statement's span (debuggers then step through the kernel's own lines).
    pub spans: Vec<Span>,
    /// Some bounds check depends on whether a view covers the launch domain (`Buf::covers`):
    /// the variant made with `assume_covers` then runs without those checks.
    pub uses_covers: bool,
}

/// Where a range loop runs (see [`Emitter::range_loop`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RangeFlavour {
    /// In one thread's code.
    Thread,
    /// In a tiled kernel's tile-level code (the loop contains a barrier).
    Tile,
}

/// A loop being emitted: its label, and how its `continue` is written.
struct LoopLabel {
    id: u32,
    /// `for` loops continue by leaving their body's labelled block (the increment follows it).
    body_block: bool,
    /// A loop of a tiled kernel's tile-level code (it contains a barrier): a work-item loop
    /// leaves it through its flag `b<id>` (see `tile.rs`).
    tile: bool,
}

pub(crate) struct Emitter<'a> {
    k: &'a Kernel,
    checks: BoundsChecks,
    rt: &'a str,
    labels: u32,
    loops: Vec<LoopLabel>,
    temps: u32,
    /// For tiled kernels: the work-item loop state.
    tile: Option<tile::TileState>,
    /// The generated function's name (the prefix of the structs' names).
    fn_name: String,
    /// The structs the code names, in order of first use.
    structs: RefCell<Vec<Arc<StructDef>>>,
    /// `tile_static` arrays with a named-constant length: flat vectors, with their dimensions
    /// (`u32` expressions, outermost first) and element type.
    dyn_arrays: std::collections::HashMap<LocalId, (Vec<String>, Ty)>,
    /// The spans of the statement markers emitted so far.
    spans: Vec<Span>,
    /// What the range analysis proves about index values (as for the SPIR-V back end's
    /// bounds checks).
    ranges: &'a Ranges,
    /// Every view covers the domain (see [`native`]).
    assume_covers: bool,
    /// A check on `covers` was emitted.
    uses_covers: bool,
    /// The kernel is a batch of a simple kernel (`batch.rs`): its few frames live on the stack.
    batch: bool,
    /// While a tile function is generated in its guarded version (`guard.rs`): the comparisons
    /// its wrapper makes before calling it (the bounds checks hoisted out of it).
    entry_guards: Option<Vec<String>>,
    /// The variables of the loops `batch.rs` hoisted out of the work-item loops (no barrier
    /// of the kernel orders their iterations: `tile.rs` may run several per work-item loop).
    hoisted: std::collections::HashSet<LocalId>,
}

impl<'k> Emitter<'k> {
    /// An emitter of a thread function of `kernel` (neither a batch nor a covering variant).
    fn new(
        kernel: &'k Kernel,
        ranges: &'k Ranges,
        checks: BoundsChecks,
        rt: &'k str,
        fn_name: &str,
    ) -> Self {
        Emitter {
            k: kernel,
            checks,
            rt,
            labels: 0,
            loops: Vec::new(),
            temps: 0,
            tile: None,
            fn_name: fn_name.to_string(),
            structs: RefCell::new(Vec::new()),
            dyn_arrays: Default::default(),
            spans: Vec::new(),
            ranges,
            assume_covers: false,
            uses_covers: false,
            batch: false,
            entry_guards: None,
            hoisted: Default::default(),
        }
    }
}

fn unsupported<T>(construct: impl Into<String>, span: Span) -> Res<T> {
    Err(Stop::Unsupported(Unsupported {
        construct: construct.into(),
        span,
    }))
}

/// A broken invariant of the back end (`invariant`: what should have held), at `span`.
fn broken<T>(invariant: &str, span: Span) -> Res<T> {
    Err(Stop::Internal {
        invariant: format!("broken invariant of the native back end ({invariant})"),
        span,
    })
}

/// The name of local `id` in the generated code.
fn local(id: LocalId) -> String {
    format!("l{id}")
}

impl Emitter<'_> {
    /// The name of local `id` in the generated code (a per-thread local of a tiled kernel is a
    /// thread's element of its frame array, `(*fl<id>.add(lane))`); a tiled kernel's first pass
    /// records the use.
    pub(crate) fn local(&mut self, id: LocalId) -> String {
        match &mut self.tile {
            Some(t) => t.name(id),
            None => local(id),
        }
    }

    fn whole_kernel(&self) -> Span {
        self.k
            .params
            .first()
            .map_or(Span::from(proc_macro2::Span::call_site()), |p| p.span)
    }

    /// A fresh name for a temporary.
    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("t{}", self.temps)
    }

    /// The Rust type of a scalar.
    fn scalar(&self, s: Scalar, _span: Span) -> Res<&'static str> {
        Ok(match s {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 | Scalar::Usize => "u32",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            // Their `f32`s (the host's types are `#[repr(transparent)]`), clamped by the
            // operations that produce them.
            Scalar::Norm | Scalar::Unorm => "f32",
        })
    }

    /// The Rust type of a kernel type.
    fn ty(&self, t: &Ty, span: Span) -> Res<String> {
        Ok(match t {
            Ty::Scalar(s) => self.scalar(*s, span)?.to_string(),
            Ty::Array(elem, len) => format!("[{}; {}]", self.ty(elem, span)?, self.len(len, span)?),
            Ty::Unit | Ty::Never => "()".to_string(),
            Ty::Var(_) => return unsupported("an uninferred type", span),
            // A short vector is an array of its components: the host's `#[repr(C)]` types are
            // packed, so `[f32; 3]` has the layout of a `Float3` (12 bytes).
            Ty::Vector(s, n) => format!("[{}; {n}]", self.scalar(*s, span)?),
            Ty::Struct(def) => {
                let mut structs = self.structs.borrow_mut();
                if !structs.iter().any(|d| Arc::ptr_eq(d, def) || **d == **def) {
                    structs.push(def.clone());
                }
                self.struct_name(def)
            }
        })
    }

    /// The generated name of a struct: `<fn_name>_<Name>` (non-identifier characters as `_`).
    pub(crate) fn struct_name(&self, def: &StructDef) -> String {
        let name: String = def
            .name
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '_' })
            .collect();
        format!("{}_{name}", self.fn_name)
    }

    /// The `#[repr(C)]` twin of a `#[derive(DeviceStruct)]` struct: fields `f0, f1, ..` of the
    /// fields' Rust types in declaration order, which gives the host's C layout; its size and
    /// offsets are checked at compile time.
    fn struct_item(&self, def: &StructDef, span: Span) -> Res<String> {
        let name = self.struct_name(def);
        let mut fields = String::new();
        let mut checks = format!("assert!(::core::mem::size_of::<{name}>() == {});", def.size);
        for (k, f) in def.fields.iter().enumerate() {
            let _ = write!(fields, "pub f{k}: {}, ", self.ty(&f.ty, span)?);
            let _ = write!(
                checks,
                " assert!(::core::mem::offset_of!({name}, f{k}) == {});",
                f.offset
            );
        }
        Ok(format!(
            "/// `{}` of kernel `{}` (fields `f0, ..` in declaration order, the host's layout).\n\
             #[repr(C)]\n#[derive(Clone, Copy, Debug, Default, PartialEq)]\n#[allow(non_camel_case_types)]\n\
             pub struct {name} {{ {fields}}}\nconst _: () = {{ {checks} }};\n",
            def.name, self.k.name
        ))
    }

    fn len(&self, len: &Len, span: Span) -> Res<u32> {
        match len {
            Len::Lit(0) => unsupported("arrays of length 0", span),
            Len::Lit(n) => Ok(*n),
            Len::Const(_, name) => unsupported(format!("arrays of length `{name}`"), span),
        }
    }

    /// The zero value of a type (what `let x: T;` holds before its assignment).
    fn zero(&self, t: &Ty, span: Span) -> Res<String> {
        Ok(match t {
            Ty::Scalar(Scalar::Bool) => "false".to_string(),
            Ty::Scalar(Scalar::F32 | Scalar::Norm | Scalar::Unorm) => "0.0f32".to_string(),
            Ty::Scalar(Scalar::F64) => "0.0f64".to_string(),
            Ty::Scalar(s) => format!("0{}", self.scalar(*s, span)?),
            Ty::Array(elem, len) => {
                format!("[{}; {}]", self.zero(elem, span)?, self.len(len, span)?)
            }
            Ty::Vector(s, n) => format!("[{}; {n}]", self.zero(&Ty::Scalar(*s), span)?),
            Ty::Struct(_) => format!(
                "<{} as ::core::default::Default>::default()",
                self.ty(t, span)?
            ),
            Ty::Unit | Ty::Never => "()".to_string(),
            other => return self.ty(other, span),
        })
    }

    /// The function's arguments: the index (named `first`), the parameters, the outer
    /// constants and the out-of-bounds report.
    /// The names of [`args`](Self::args), in order.
    fn arg_names(&self, first: &str) -> Vec<String> {
        let k = self.k;
        std::iter::once(first.to_string())
            .chain((0..k.params.len()).map(|i| format!("p{i}")))
            .chain((0..k.consts.len()).map(|i| format!("c{i}")))
            .chain(std::iter::once("oob".to_string()))
            .collect()
    }

    fn args(&self, first: &str) -> Res<Vec<String>> {
        let k = self.k;
        let rt = self.rt;
        let mut args = vec![format!("{first}: [u32; {}]", k.rank)];
        for (i, p) in k.params.iter().enumerate() {
            let t = match &p.kind {
                ParamKind::Buffer { elem, rank, .. } => {
                    format!("{rt}::Buf<{}, {rank}>", self.ty(&elem.ty(), p.span)?)
                }
                ParamKind::Scalar(s) => self.scalar(*s, p.span)?.to_string(),
                ParamKind::Value(elem) => self.ty(&elem.ty(), p.span)?,
                ParamKind::Texture { rank, .. } => format!("{rt}::Tex<{rank}>"),
                ParamKind::Sampler => format!("{rt}::Smp"),
            };
            args.push(format!("p{i}: {t}"));
        }
        for (i, c) in k.consts.iter().enumerate() {
            let span = Span::from(c.ident.span());
            args.push(format!("c{i}: {}", self.scalar(c.ty, span)?));
        }
        args.push(format!("oob: &{rt}::OobReport"));
        Ok(args)
    }

    fn function(&mut self, name: &str) -> Res<String> {
        let k = self.k;
        let span = self.whole_kernel();
        let args = self.args("idx")?;

        let mut s = String::new();
        let _ = writeln!(
            s,
            "/// One thread of kernel `{}` (generated by amp-spirv's native back end).",
            k.name
        );
        s.push_str("#[inline]\n#[allow(warnings, clippy::all, unused_unsafe)]\n");
        let _ = writeln!(s, "pub unsafe fn {name}({}) {{", args.join(", "));
        for (id, l) in k.locals.iter().enumerate() {
            if l.storage == Storage::TileStatic {
                return unsupported("`tile_static` variables", span);
            }
            let init = if id == k.index_local {
                "idx".to_string()
            } else {
                self.zero(&l.ty, span)?
            };
            let _ = writeln!(
                s,
                "    let mut {}: {} = {init}; // {}",
                local(id),
                self.ty(&l.ty, span)?,
                l.name
            );
        }
        let body = self.block(&k.body)?;
        let _ = writeln!(s, "    unsafe {{ let _ = {body}; }}\n}}");
        Ok(s)
    }

    /// A block as a Rust block expression.
    fn block(&mut self, b: &Block) -> Res<String> {
        let mut s = String::from("{ ");
        for st in &b.stmts {
            s.push_str(&self.stmt(st)?);
        }
        if let Some(t) = &b.tail {
            s.push_str(&self.expr(t)?);
        }
        s.push_str(" }");
        Ok(s)
    }

    /// A statement, ending in `;`, after its span marker.
    fn stmt(&mut self, st: &Stmt) -> Res<String> {
        let code = self.stmt_code(st)?;
        let span = match st {
            Stmt::Let(_, Some(e)) | Stmt::Expr(e) => e.span,
            Stmt::Let(_, None) => return Ok(code),
        };
        if code.is_empty() {
            return Ok(code);
        }
        self.spans.push(span);
        Ok(format!("{}::at({}); {code}", self.rt, self.spans.len() - 1))
    }

    /// A statement's code, ending in `;`.
    fn stmt_code(&mut self, st: &Stmt) -> Res<String> {
        Ok(match st {
            // `tile_static` memory is undefined until written (C++ AMP's semantics).
            Stmt::Let(id, None) if self.k.locals[*id].storage == Storage::TileStatic => {
                String::new()
            }
            Stmt::Let(id, init) => {
                let l = &self.k.locals[*id];
                let v = match init {
                    Some(e) => self.expr(e)?,
                    None => self.zero(&l.ty, Span::from(proc_macro2::Span::call_site()))?,
                };
                format!("{} = {v}; ", self.local(*id))
            }
            Stmt::Expr(e) => {
                let v = self.expr(e)?;
                if matches!(e.ty, Ty::Unit | Ty::Never) {
                    format!("{v}; ")
                } else {
                    format!("let _ = {v}; ")
                }
            }
        })
    }

    fn new_label(&mut self) -> u32 {
        self.labels += 1;
        self.labels
    }

    /// `while cond { body }` (`cond: None`: `loop`).
    fn while_loop(&mut self, cond: Option<&Expr>, body: &Block) -> Res<String> {
        let id = self.new_label();
        // The condition belongs to the enclosing loop's `break`s, as on the device.
        let test = match cond {
            Some(c) => format!("if !{} {{ break 'l{id}; }} ", self.expr(c)?),
            None => String::new(),
        };
        self.loops.push(LoopLabel {
            id,
            body_block: false,
            tile: false,
        });
        let body = self.block(body);
        self.loops.pop();
        Ok(format!("('l{id}: loop {{ {test}{}; }})", body?))
    }

    /// A range `for`, as the SPIR-V back end runs it: the counter compared with the end, and
    /// for `step_by` and inclusive ranges the remaining distance compared with the step, so no
    /// range overflows into an endless loop; `step_by(0)` runs zero times.
    fn for_loop(&mut self, r: &RangeLoop, span: Span) -> Res<String> {
        let Some(s) = self.k.locals[r.counter].ty.scalar() else {
            return unsupported("a range loop over a non-scalar", span);
        };
        let names = (self.local(r.counter), self.local(r.done), self.local(r.var));
        self.range_loop(r, s, span, names, RangeFlavour::Thread)
    }

    /// The code of a range loop whose counter, `done` flag and variable are named `names`:
    /// per thread, or at tile level (bounds from the lead thread, the body a tile block, and a
    /// flag `b<id>` its work-item loops leave it through).
    pub(crate) fn range_loop(
        &mut self,
        r: &RangeLoop,
        s: Scalar,
        span: Span,
        (c, done, var): (String, String, String),
        flavour: RangeFlavour,
    ) -> Res<String> {
        let tile = flavour == RangeFlavour::Tile;
        let value = |e: &mut Self, x: &Expr| if tile { e.lead(x) } else { e.expr(x) };
        let t = self.scalar(s, span)?;
        let (start, end) = (value(self, &r.start)?, value(self, &r.end)?);
        let step = match &r.step {
            Some(step) => Some(format!("(({}) as {t})", value(self, step)?)),
            None if r.inclusive => Some(format!("(1 as {t})")),
            None => None,
        };
        let id = self.new_label();
        let (flag, reset) = if tile {
            (format!("let mut b{id}: u8 = 0; "), format!("b{id} = 0; "))
        } else {
            (String::new(), String::new())
        };
        let mut out = format!("{{ {flag}{c} = {start}; let e{id}: {t} = {end}; ");
        let mut go = format!("{c} {} e{id}", if r.inclusive { "<=" } else { "<" });
        if let Some(step) = &step {
            let _ = write!(out, "let s{id}: {t} = {step}; {done} = s{id} == 0; ");
            go = format!("({go}) && !{done}");
        }
        self.loops.push(LoopLabel {
            id,
            body_block: true,
            tile,
        });
        let body = if tile {
            self.tile_block(&r.body)
        } else {
            self.block(&r.body)
        };
        self.loops.pop();
        let body = body?;
        let next = match &step {
            None => format!("{c} = {c}.wrapping_add(1);"),
            Some(_) => format!(
                "{done} = (s{id} as u32) {} (e{id}.wrapping_sub({c}) as u32); {c} = {c}.wrapping_add(s{id});",
                if r.inclusive { ">" } else { ">=" }
            ),
        };
        let _ = write!(
            out,
            "'l{id}: loop {{ if !({go}) {{ break 'l{id}; }} {var} = {c}; {reset}'c{id}: {body} {next} }} }} "
        );
        Ok(out)
    }

    fn break_(&mut self, span: Span) -> Res<String> {
        match self.loops.last() {
            Some(l) if l.tile => {
                let id = l.id;
                self.leave_tile_loop(id, 1)
            }
            Some(l) => Ok(format!("(break 'l{})", l.id)),
            None => unsupported("`break` outside a loop", span),
        }
    }

    fn continue_(&mut self, span: Span) -> Res<String> {
        match self.loops.last() {
            Some(l) if l.tile => {
                let id = l.id;
                self.leave_tile_loop(id, 2)
            }
            Some(l) if l.body_block => Ok(format!("(break 'c{})", l.id)),
            Some(l) => Ok(format!("(continue 'l{})", l.id)),
            None => unsupported("`continue` outside a loop", span),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A broken invariant of the back end is an internal error, never "unsupported" and never a
    /// panic: tile-level code asked of a simple kernel's emitter.
    #[test]
    fn a_broken_invariant_is_an_internal_error() {
        let func: syn::ItemFn = syn::parse_quote! {
            fn k(idx: Index<1>, a: ArrayViewMut<f32, 1>) { a[idx] = 1.0; }
        };
        let checked = crate::compile::check(&func, &crate::Options::default()).expect("valid");
        let mut e = Emitter::new(
            &checked.kernel,
            &checked.ranges,
            BoundsChecks::On,
            "rt",
            "f",
        );
        match e.lead(
            &checked
                .kernel
                .body
                .stmts
                .iter()
                .find_map(|s| match s {
                    Stmt::Expr(x) => Some(x.clone()),
                    _ => None,
                })
                .expect("a statement"),
        ) {
            Err(Stop::Internal { invariant, .. }) => {
                assert!(invariant.contains("tiled kernels only"), "{invariant}")
            }
            other => panic!("not an internal error: {:?}", other.map(|_| ())),
        }
    }
}
