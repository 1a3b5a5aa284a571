//! The native back end: a checked [`Kernel`] as Rust code for ONE THREAD of a simple kernel
//! or ONE TILE of a tiled kernel, compiled by rustc beside the SPIR-V words and run by a CPU
//! executor.
//!
//! The code is tokens (`quote!`), generated from the IR, never from the kernel's tokens, so
//! both back ends give a kernel the same meaning. Each kernel statement's tokens are located at
//! that statement (`Emitter::at`), so debuggers step through the kernel's own lines, and the
//! names inside the generated function (`p<k>`, `c<k>`, `l<id>`, `oob`) are its own: callers
//! pass arguments by position; every rule of docs/semantics.md holds in the generated code
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
//!   per local with an element per thread (`fl<id>[lane]`, taken once per call with
//!   `<rt>::frames` from a pool of the OS thread, on the stack for a batch), so neighbouring
//!   threads of a work-item loop touch neighbouring elements; others are plain locals of their
//!   work-item loop;
//! - `tile_static` variables are plain locals of the tile function, shared by its work-item
//!   loops (zero at the start of each call; C++ AMP leaves them undefined); atomics on them are
//!   plain read-modify-writes; memory fences of global memory are `AcqRel` fences.
//!
//! A barrier inside an expression (`let x = { t.barrier.wait(); 1 };`) is [`Unsupported`].
//!
//! - a `tile_static` array whose length is a named constant (`[[f32; TS]; TS]`) is a flat
//!   array taken once per call from the same pool (its lengths must be at least 1), indexed
//!   row-major with each index clamped as local arrays are; it is read and written element by
//!   element only. One that every thread writes before any reads it (`tile_statics.rs`) is
//!   not zeroed, and is reached through a pointer to its first element.
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
//! ([`native_batched`], `pass/batch.rs`): the tile ABI above for the tiled kernel whose tiles are
//! [`LANES`] neighbouring threads of the last dimension, with those loops run at tile level.
//! The executor calls it for each row's batches, a row's last one with the threads left. A
//! batch without per-thread frames takes any count of a row's threads, and of neighbouring
//! rows, with its guard alone as a function of its own: the executor then runs a whole row, or
//! a block of whole rows of one plane, in one call where that guard passes
//! ([`NativeSource::lane_frames`]).
//! A tiled kernel's loops that every thread of a tile runs the same way are run at tile level
//! in the same way (`pass::batch::hoisted_tiled`), with no change to the tile ABI.
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

mod atomic;
mod builtin;
mod expr;
mod guard;
mod invariant;
mod lengths;

pub use lengths::{generic_type, native_generics};
mod stop;
mod subgroup;
mod texture;
mod tile;
mod tile_frames;
mod tile_interior;
mod tile_locals;
mod tile_loops;
mod tile_statics;

pub use crate::pass::batch::LANES;

/// Why a simple kernel with loops runs one thread at a time natively, when its batched form
/// was not `emitted`.
pub fn unbatched_reason(kernel: &Kernel, emitted: bool) -> Option<&'static str> {
    crate::pass::batch::unbatched_reason(kernel, emitted)
}

use crate::back::plan::{self, Plan, RangeStep, RangeTest, Step};
use crate::diag::Span;
use crate::ir::*;
use crate::types::StructDef;
use crate::types::{Scalar, Ty};
pub use invariant::Invariant;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;
pub(crate) use stop::Res;
pub use stop::{Stop, Unsupported};

/// How the generated code reaches buffer elements: the bounds-check policy, and per parameter
/// whether threads of a launch may share its elements with a writer (the analyses'
/// [`Findings::shared`](crate::analysis::Findings)), in which case every access is a relaxed
/// atomic one.
#[derive(Clone, Copy, Debug)]
pub struct Access<'a> {
    /// Per parameter: its elements may be shared with a writer.
    pub shared: &'a [bool],
}

/// The Rust code of one thread of `kernel`: a function named `fn_name` with the ABI of this
/// module's documentation, calling the support crate through the path `rt` (for example
/// `crate::amp_native`).
///
/// Also returns the structs the code defines: (the kernel's name of each
/// `#[derive(DeviceStruct)]` struct it uses, the name of its generated `#[repr(C)]` twin).
///
/// With `assume_covers`, every view is taken to cover the launch domain: index components the
/// range analysis bounds by the domain are not checked (the runtime calls this variant only
/// when every buffer argument covers the domain; see [`NativeSource::uses_covers`]).
///
/// `access` says how the code reaches buffer elements (see [`Access`]).
pub fn native(
    kernel: &Kernel,
    plan: Plan<'_>,
    access: Access<'_>,
    rt: &str,
    fn_name: &str,
    assume_covers: bool,
) -> Res<NativeSource> {
    let split = crate::pass::collectives::hoisted(kernel);
    let kernel = split.as_ref().unwrap_or(kernel);
    let hoisted = crate::pass::batch::hoisted_tiled(kernel);
    let (kernel, loops) = match hoisted {
        Some((ref h, ref loops)) => (h, loops.clone()),
        None => (kernel, Default::default()),
    };
    emit(
        kernel,
        plan,
        access,
        rt,
        fn_name,
        assume_covers,
        false,
        loops,
    )
}

/// The Rust code of one *batch* of a simple kernel: [`LANES`] neighbouring threads along the
/// last dimension, with the loops every thread runs the same way hoisted out of the work-item
/// loops (see `pass/batch.rs`). `None` when the kernel has no such loop (batching would gain
/// nothing), or is tiled.
///
/// The function has the tile ABI of a tiled kernel whose tile shape is `[1, .., 1, LANES]`,
/// with two more arguments after the first: `(tile, lanes, rows, ..)` with
/// `tile = [t0, .., tm, tn]` runs threads `[t0, .., tm + r, tn * LANES + l]` for `l` in
/// `0..lanes` (`1..=LANES`; any count where the batch has no frames) and `r` in `0..rows` (1;
/// any count where the batch has no frames and the rank is 2 or more), all of which must be
/// inside the domain (a row's last batch runs its remaining `len % LANES` threads). `access`
/// as for [`native`].
pub fn native_batched(
    kernel: &Kernel,
    plan: Plan<'_>,
    access: Access<'_>,
    rt: &str,
    fn_name: &str,
    assume_covers: bool,
) -> Res<Option<NativeSource>> {
    match crate::pass::batch::batched_kernel(kernel, plan.compares_extents(kernel)) {
        Some((b, loops)) => {
            emit(&b, plan, access, rt, fn_name, assume_covers, true, loops).map(Some)
        }
        None => Ok(None),
    }
}

/// [`native`] of `kernel` (the checked kernel, or a batched or hoisted form of it: the same
/// locals and index), with the checked kernel's shared decisions `plan`; `batch` when `kernel`
/// is a simple kernel's batch; `hoisted`: the variables of its loops `pass/batch.rs` hoisted.
#[allow(clippy::too_many_arguments)]
fn emit(
    kernel: &Kernel,
    plan: Plan<'_>,
    access: Access<'_>,
    rt: &str,
    fn_name: &str,
    assume_covers: bool,
    batch: bool,
    hoisted: std::collections::HashSet<LocalId>,
) -> Res<NativeSource> {
    let whole = whole_kernel(kernel);
    let rt: TokenStream = match syn::parse_str::<syn::Path>(rt) {
        Ok(path) => quote!(#path),
        Err(_) => return broken(Invariant::SupportPath, whole),
    };
    let name = item_name(fn_name, whole)?;
    let mut e = Emitter::new(kernel, plan, rt, fn_name);
    e.assume_covers = assume_covers;
    e.shared = access.shared.to_vec();
    e.batch = batch;
    e.hoisted = hoisted;
    let f = if kernel.tiled.is_some() {
        e.guarded_tiled_function(&name)?
    } else {
        e.function(&name)?
    };
    // The structs' items: each one's fields may name more structs.
    let mut code = TokenStream::new();
    let mut done = 0;
    while done < e.structs.borrow().len() {
        let def = e.structs.borrow()[done].clone();
        code.extend(e.struct_item(&def, whole)?);
        done += 1;
    }
    code.extend(f);
    let names = e
        .structs
        .borrow()
        .iter()
        .map(|d| (d.name.clone(), e.struct_name(d).to_string()))
        .collect();
    Ok(NativeSource {
        code,
        structs: names,
        uses_covers: e.uses_covers,
        lane_frames: e.lane_frames,
    })
}

/// A generated item's name as an identifier (the callers choose the names: a name that is not
/// one is a bug of theirs).
fn item_name(name: &str, span: Span) -> Res<Ident> {
    match syn::parse_str::<Ident>(name) {
        Ok(ident) => Ok(ident),
        Err(_) => broken(Invariant::ItemNames, span),
    }
}

/// What [`native`] generates.
pub struct NativeSource {
    /// The code: the structs' items, then the function. Each kernel statement's code carries
    /// that statement's location (debuggers then step through the kernel's own lines); the
    /// rest, the macro's.
    pub code: TokenStream,
    /// Each `#[derive(DeviceStruct)]` struct the code uses: its name in the kernel, the name of
    /// its generated `#[repr(C)]` twin.
    pub structs: Vec<(String, String)>,
    /// Some bounds check depends on whether a view covers the launch domain (`Buf::covers`):
    /// the variant made with `assume_covers` then runs without those checks.
    pub uses_covers: bool,
    /// A batch keeps per-thread frames (`[T; LANES]` on the stack): each call runs at most
    /// [`LANES`] threads of one row (`rows` is 1). A batch without them runs any number of a
    /// row's neighbouring threads per call (`(tile, n, r)` runs `tile[last] * LANES + 0..n`),
    /// in `r` neighbouring rows (`tile[last - 1] + 0..r`), so the executor can cover a run of
    /// batches, or a block of whole rows, with one call: one guard and one work-item loop for
    /// all of them. Such a batch function `f` comes with `f_fits`, which takes `f`'s arguments
    /// and says whether its guard passes, so the executor makes such a call only where no
    /// check is left to decide.
    pub lane_frames: bool,
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
    /// The path of the support crate (`amp-native-rt`) in the generated code.
    rt: TokenStream,
    /// The location of the code being emitted: the kernel statement it belongs to, or the
    /// macro's (call site) outside statements. Every token the emitter makes carries it.
    at: proc_macro2::Span,
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
    dyn_arrays: std::collections::HashMap<LocalId, (Vec<TokenStream>, Ty)>,
    /// Those every thread writes first (`tile_statics.rs`): no fill, reached by pointer.
    unfilled: std::collections::HashSet<LocalId>,
    /// The kernel's shared decisions (`back::plan`): which checks and clamps it needs, as the
    /// SPIR-V back end asks them.
    plan: Plan<'a>,
    /// Every view covers the domain (see [`native`]).
    assume_covers: bool,
    /// Per parameter: its elements may be shared with a writer, so every access is a relaxed
    /// atomic one (see [`native`]); missing entries are `false`.
    shared: Vec<bool>,
    /// A check on `covers` was emitted.
    uses_covers: bool,
    /// The kernel is a batch of a simple kernel (`pass/batch.rs`): its few frames live on the stack.
    batch: bool,
    /// A batch's frames were emitted (see [`NativeSource::lane_frames`]).
    lane_frames: bool,
    /// While a tile function is generated in its guarded version (`guard.rs`): the comparisons
    /// its wrapper makes before calling it (the bounds checks hoisted out of it).
    entry_guards: Option<Vec<TokenStream>>,
    /// The variables of the loops `pass/batch.rs` hoisted out of the work-item loops (no barrier
    /// of the kernel orders their iterations: `tile.rs` may run several per work-item loop).
    hoisted: std::collections::HashSet<LocalId>,
    /// The const-generic parameters every generated function is generic over
    /// ([`native_generics`]).
    generics: Vec<u32>,
}

impl<'k> Emitter<'k> {
    /// An emitter of a thread function of `kernel` (neither a batch nor a covering variant).
    fn new(kernel: &'k Kernel, plan: Plan<'k>, rt: TokenStream, fn_name: &str) -> Self {
        Emitter {
            k: kernel,
            rt,
            at: proc_macro2::Span::call_site(),
            labels: 0,
            loops: Vec::new(),
            temps: 0,
            tile: None,
            fn_name: fn_name.to_string(),
            structs: RefCell::new(Vec::new()),
            dyn_arrays: Default::default(),
            unfilled: Default::default(),
            plan,
            assume_covers: false,
            shared: Vec::new(),
            uses_covers: false,
            batch: false,
            lane_frames: false,
            entry_guards: None,
            hoisted: Default::default(),
            generics: native_generics(kernel),
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
fn broken<T>(invariant: Invariant, span: Span) -> Res<T> {
    Err(Stop::Internal { invariant, span })
}

/// The name of local `id` in the generated code.
fn local(id: LocalId) -> Ident {
    format_ident!("l{}", id)
}

/// A name made of `prefix` and a number: a parameter `p0`, a constant `c1`, a loop's flag
/// `b2`, a dimension `d0`, ..
fn numbered(prefix: &str, n: impl fmt::Display) -> Ident {
    Ident::new(&format!("{prefix}{n}"), proc_macro2::Span::call_site())
}

/// A loop label: `'l3`, `'c3`, `'w2`, ..
fn label(prefix: &str, id: u32) -> syn::Lifetime {
    syn::Lifetime::new(&format!("'{prefix}{id}"), proc_macro2::Span::call_site())
}

/// An index or length as an unsuffixed literal (`[T; 4]`, `v[2]`).
fn index_lit(n: impl TryInto<usize>) -> Literal {
    Literal::usize_unsuffixed(n.try_into().unwrap_or(usize::MAX))
}

/// A generated function item: `doc`, then `pub unsafe fn name<generics>(args) { body }`,
/// inlined where LLVM sees fit (see the module docs on `#[inline]`), and free of the user's
/// lints.
fn generated_fn(
    doc: &str,
    name: &Ident,
    generics: &TokenStream,
    args: &[TokenStream],
    body: TokenStream,
) -> TokenStream {
    quote! {
        #[doc = #doc]
        #[inline]
        #[allow(warnings, clippy::all, unused_unsafe)]
        pub unsafe fn #name #generics (#(#args),*) { #body }
    }
}

/// `a && b && ..` of comparisons (`true` of none).
fn conjunction(terms: &[TokenStream]) -> TokenStream {
    terms
        .iter()
        .cloned()
        .reduce(|a, b| quote!(#a && #b))
        .unwrap_or_else(|| quote!(true))
}

/// The span of the kernel as a whole (its first parameter's).
fn whole_kernel(k: &Kernel) -> Span {
    k.params
        .first()
        .map_or(Span::from(proc_macro2::Span::call_site()), |p| p.span)
}

impl Emitter<'_> {
    /// The name of local `id` in the generated code (a per-thread local of a tiled kernel is a
    /// thread's element of its frame array, `(*fl<id>.add(lane))`); a tiled kernel's first pass
    /// records the use.
    pub(crate) fn local(&mut self, id: LocalId) -> TokenStream {
        match &mut self.tile {
            Some(t) => t.name(id),
            None => {
                let l = local(id);
                quote!(#l)
            }
        }
    }

    fn whole_kernel(&self) -> Span {
        whole_kernel(self.k)
    }

    /// A fresh name for a temporary.
    fn temp(&mut self) -> Ident {
        self.temps += 1;
        numbered("t", self.temps)
    }

    /// The name of a scalar's Rust type (`Norm` and `Unorm` are their `f32`s: the host's
    /// types are `#[repr(transparent)]`, clamped by the operations that produce them; the
    /// small integers are themselves, so Rust's own wrapping gives their widths).
    fn scalar_name(s: Scalar) -> &'static str {
        match s {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 | Scalar::Usize => "u32",
            Scalar::I8 => "i8",
            Scalar::U8 => "u8",
            Scalar::I16 => "i16",
            Scalar::U16 => "u16",
            Scalar::F32 | Scalar::Norm | Scalar::Unorm => "f32",
            Scalar::F64 => "f64",
        }
    }

    /// The Rust type of a scalar.
    fn scalar(&self, s: Scalar, _span: Span) -> Res<TokenStream> {
        let t = Ident::new(Self::scalar_name(s), self.at);
        Ok(quote!(#t))
    }

    /// The Rust type of a kernel type.
    fn ty(&self, t: &Ty, span: Span) -> Res<TokenStream> {
        let at = self.at;
        Ok(match t {
            Ty::Scalar(s) => self.scalar(*s, span)?,
            Ty::Array(elem, len) => {
                let (elem, n) = (self.ty(elem, span)?, self.len(len, span)?);
                quote_spanned!(at=> [#elem; #n])
            }
            Ty::Unit | Ty::Never => quote_spanned!(at=> ()),
            Ty::Var(_) => return unsupported("an uninferred type", span),
            // A short vector is an array of its components: the host's `#[repr(C)]` types are
            // packed, so `[f32; 3]` has the layout of a `Float3` (12 bytes).
            Ty::Vector(s, n) => {
                let (s, n) = (self.scalar(*s, span)?, index_lit(*n));
                quote_spanned!(at=> [#s; #n])
            }
            Ty::Struct(def) => {
                let mut structs = self.structs.borrow_mut();
                if !structs.iter().any(|d| Arc::ptr_eq(d, def) || **d == **def) {
                    structs.push(def.clone());
                }
                let name = self.struct_name(def);
                quote!(#name)
            }
            Ty::Tuple(items) => {
                let items = items
                    .iter()
                    .map(|t| self.ty(t, span))
                    .collect::<Res<Vec<_>>>()?;
                quote_spanned!(at=> (#(#items,)*))
            }
        })
    }

    /// The generated name of a struct: `<fn_name>_<Name>` (non-identifier characters as `_`).
    pub(crate) fn struct_name(&self, def: &StructDef) -> Ident {
        let name: String = def
            .name
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '_' })
            .collect();
        format_ident!("{}_{}", self.fn_name, name)
    }

    /// The `#[repr(C)]` twin of a `#[derive(DeviceStruct)]` struct: fields `f0, f1, ..` of the
    /// fields' Rust types in declaration order, which gives the host's C layout; its size and
    /// offsets are checked at compile time.
    fn struct_item(&self, def: &StructDef, span: Span) -> Res<TokenStream> {
        let name = self.struct_name(def);
        let size = index_lit(def.size);
        let mut fields = Vec::new();
        let mut offsets = Vec::new();
        for (k, f) in def.fields.iter().enumerate() {
            let (field, ty, offset) =
                (numbered("f", k), self.ty(&f.ty, span)?, index_lit(f.offset));
            fields.push(quote!(pub #field: #ty));
            offsets.push(quote!(assert!(::core::mem::offset_of!(#name, #field) == #offset);));
        }
        let doc = format!(
            " `{}` of kernel `{}` (fields `f0, ..` in declaration order, the host's layout).",
            def.name, self.k.name
        );
        Ok(quote! {
            #[doc = #doc]
            #[repr(C)]
            #[derive(Clone, Copy, Debug, Default, PartialEq)]
            #[allow(non_camel_case_types)]
            pub struct #name { #(#fields,)* }
            const _: () = { assert!(::core::mem::size_of::<#name>() == #size); #(#offsets)* };
        })
    }

    /// The zero value of a type (what `let x: T;` holds before its assignment).
    fn zero(&self, t: &Ty, span: Span) -> Res<TokenStream> {
        let at = self.at;
        Ok(match t {
            Ty::Scalar(Scalar::Bool) => quote_spanned!(at=> false),
            Ty::Scalar(Scalar::F32 | Scalar::Norm | Scalar::Unorm) => quote_spanned!(at=> 0.0f32),
            Ty::Scalar(Scalar::F64) => quote_spanned!(at=> 0.0f64),
            Ty::Scalar(Scalar::I32) => quote_spanned!(at=> 0i32),
            Ty::Scalar(s @ (Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16)) => {
                let t = format_ident!("{}", s.name());
                quote_spanned!(at=> (0 as #t))
            }
            Ty::Scalar(Scalar::U32 | Scalar::Usize) => quote_spanned!(at=> 0u32),
            Ty::Array(elem, len) => {
                let (z, n) = (self.zero(elem, span)?, self.len(len, span)?);
                quote_spanned!(at=> [#z; #n])
            }
            Ty::Vector(s, n) => {
                let (z, n) = (self.zero(&Ty::Scalar(*s), span)?, index_lit(*n));
                quote_spanned!(at=> [#z; #n])
            }
            Ty::Struct(_) => {
                let t = self.ty(t, span)?;
                quote_spanned!(at=> <#t as ::core::default::Default>::default())
            }
            Ty::Tuple(items) => {
                let items = items
                    .iter()
                    .map(|t| self.zero(t, span))
                    .collect::<Res<Vec<_>>>()?;
                quote_spanned!(at=> (#(#items,)*))
            }
            Ty::Unit | Ty::Never => quote_spanned!(at=> ()),
            other => return self.ty(other, span),
        })
    }

    /// The names of [`args`](Self::args), in order.
    fn arg_names(&self, first: &str) -> Vec<Ident> {
        let k = self.k;
        std::iter::once(format_ident!("{}", first))
            .chain(self.batch.then(|| format_ident!("lanes")))
            .chain(self.batch.then(|| format_ident!("rows")))
            .chain((0..k.params.len()).map(|i| numbered("p", i)))
            .chain((0..k.consts.len()).map(|i| numbered("c", i)))
            .chain(std::iter::once(format_ident!("oob")))
            .collect()
    }

    /// The function's arguments: the index (named `first`), a batch's `lanes` and `rows` (how
    /// many threads of a row run, and in how many rows: [`native_batched`]), the parameters,
    /// the outer constants and the out-of-bounds report.
    fn args(&self, first: &str) -> Res<Vec<TokenStream>> {
        let k = self.k;
        let rt = &self.rt;
        let names = self.arg_names(first);
        let rank = index_lit(k.rank);
        let mut types = vec![quote!([u32; #rank])];
        types.extend(self.batch.then(|| quote!(u32)));
        types.extend(self.batch.then(|| quote!(u32)));
        for p in &k.params {
            types.push(match &p.kind {
                ParamKind::Buffer { elem, rank, .. } => {
                    let (t, r) = (self.ty(&elem.ty(), p.span)?, index_lit(*rank));
                    quote!(#rt::Buf<#t, #r>)
                }
                ParamKind::Scalar(s) => self.scalar(*s, p.span)?,
                ParamKind::Value(elem) => self.ty(&elem.ty(), p.span)?,
                ParamKind::Texture { rank, .. } => {
                    let r = index_lit(*rank);
                    quote!(#rt::Tex<#r>)
                }
                ParamKind::Sampler => quote!(#rt::Smp),
            });
        }
        for c in &k.consts {
            types.push(self.scalar(c.ty, Span::from(c.ident.span()))?);
        }
        types.push(quote!(&#rt::OobReport));
        Ok(names
            .iter()
            .zip(types)
            .map(|(n, t)| quote!(#n: #t))
            .collect())
    }

    fn function(&mut self, name: &Ident) -> Res<TokenStream> {
        let k = self.k;
        let span = self.whole_kernel();
        let args = self.args("idx")?;
        let mut lets = Vec::new();
        for (id, l) in k.locals.iter().enumerate() {
            if l.storage == Storage::TileStatic {
                return unsupported("`tile_static` variables", span);
            }
            let init = if id == k.index_local {
                quote!(idx)
            } else {
                self.zero(&l.ty, span)?
            };
            let (name, ty) = (local(id), self.ty(&l.ty, span)?);
            lets.push(quote!(let mut #name: #ty = #init;));
        }
        let body = self.block(&k.body)?;
        let doc = format!(
            " One thread of kernel `{}` (generated by amp-spirv's native back end).",
            k.name
        );
        Ok(generated_fn(
            &doc,
            name,
            &self.generic_params(),
            &args,
            quote!(#(#lets)* unsafe { let _ = #body; }),
        ))
    }

    /// A block as a Rust block expression.
    fn block(&mut self, b: &Block) -> Res<TokenStream> {
        let mut code = TokenStream::new();
        for st in &b.stmts {
            code.extend(self.stmt(st)?);
        }
        if let Some(t) = &b.tail {
            code.extend(self.expr(t)?);
        }
        let at = self.at;
        Ok(quote_spanned!(at=> { #code }))
    }

    /// `emit` with the tokens it makes located at kernel code `span` (see [`Emitter::at`]).
    fn located<T>(&mut self, span: Span, emit: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.at;
        self.at = proc_macro2::Span::call_site().located_at(span.start);
        let code = emit(self);
        self.at = outer;
        code
    }

    /// A statement, ending in `;`, its tokens located at the kernel statement (so debuggers
    /// step through the kernel's own lines).
    fn stmt(&mut self, st: &Stmt) -> Res<TokenStream> {
        match st {
            Stmt::Let(_, Some(e)) | Stmt::Expr(e) => self.located(e.span, |e| e.stmt_code(st)),
            Stmt::Let(_, None) => self.stmt_code(st),
        }
    }

    /// A statement's code, ending in `;`.
    fn stmt_code(&mut self, st: &Stmt) -> Res<TokenStream> {
        let at = self.at;
        Ok(match st {
            // `tile_static` memory is undefined until written (C++ AMP's semantics).
            Stmt::Let(id, None) if self.k.locals[*id].storage == Storage::TileStatic => {
                TokenStream::new()
            }
            Stmt::Let(id, init) => {
                let l = &self.k.locals[*id];
                let v = match init {
                    Some(e) => self.expr(e)?,
                    None => self.zero(&l.ty, Span::from(proc_macro2::Span::call_site()))?,
                };
                let place = self.local(*id);
                quote_spanned!(at=> #place = #v;)
            }
            Stmt::Expr(e) => {
                let v = self.expr(e)?;
                if matches!(e.ty, Ty::Unit | Ty::Never) {
                    quote_spanned!(at=> #v;)
                } else {
                    quote_spanned!(at=> let _ = #v;)
                }
            }
        })
    }

    fn new_label(&mut self) -> u32 {
        self.labels += 1;
        self.labels
    }

    /// `while cond { body }` (`cond: None`: `loop`).
    fn while_loop(&mut self, cond: Option<&Expr>, body: &Block) -> Res<TokenStream> {
        let at = self.at;
        let id = self.new_label();
        let l = label("l", id);
        // The condition belongs to the enclosing loop's `break`s, as on the device.
        let test = match cond {
            Some(c) => {
                let c = self.expr(c)?;
                quote_spanned!(at=> if !#c { break #l; })
            }
            None => TokenStream::new(),
        };
        self.loops.push(LoopLabel {
            id,
            body_block: false,
            tile: false,
        });
        let body = self.block(body);
        self.loops.pop();
        let body = body?;
        Ok(quote_spanned!(at=> (#l: loop { #test #body; })))
    }

    /// A range `for`, as the SPIR-V back end runs it: the counter compared with the end, and
    /// for `step_by` and inclusive ranges the remaining distance compared with the step, so no
    /// range overflows into an endless loop; `step_by(0)` runs zero times.
    fn for_loop(&mut self, r: &RangeLoop, span: Span) -> Res<TokenStream> {
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
        (c, done, var): (TokenStream, TokenStream, TokenStream),
        flavour: RangeFlavour,
    ) -> Res<TokenStream> {
        let at = self.at;
        let tile = flavour == RangeFlavour::Tile;
        let value = |e: &mut Self, x: &Expr| if tile { e.lead(x) } else { e.expr(x) };
        let t = self.scalar(s, span)?;
        let (start, end) = (value(self, &r.start)?, value(self, &r.end)?);
        let shape = plan::range_shape(r);
        let step = match shape.step {
            RangeStep::By(Step::Given(step)) => {
                let step = value(self, step)?;
                Some(quote_spanned!(at=> ((#step) as #t)))
            }
            RangeStep::By(Step::Unit) => Some(quote_spanned!(at=> (1 as #t))),
            RangeStep::One => None,
        };
        let id = self.new_label();
        let (l, cl) = (label("l", id), label("c", id));
        let (b, e, st) = (numbered("b", id), numbered("e", id), numbered("s", id));
        let (flag, reset) = match tile {
            true => (
                quote_spanned!(at=> let mut #b: u8 = 0;),
                quote_spanned!(at=> #b = 0;),
            ),
            false => (TokenStream::new(), TokenStream::new()),
        };
        let mut go = match shape.test {
            RangeTest::UpTo => quote_spanned!(at=> #c <= #e),
            RangeTest::Below => quote_spanned!(at=> #c < #e),
        };
        let mut step_init = TokenStream::new();
        if let Some(step) = &step {
            step_init = quote_spanned!(at=> let #st: #t = #step; #done = #st == 0;);
            go = quote_spanned!(at=> (#go) && !#done);
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
        let next = match (&step, shape.test) {
            (None, _) => quote_spanned!(at=> #c = #c.wrapping_add(1);),
            (Some(_), RangeTest::UpTo) => quote_spanned!(at=>
                #done = (#st as u32) > (#e.wrapping_sub(#c) as u32); #c = #c.wrapping_add(#st);
            ),
            (Some(_), RangeTest::Below) => quote_spanned!(at=>
                #done = (#st as u32) >= (#e.wrapping_sub(#c) as u32); #c = #c.wrapping_add(#st);
            ),
        };
        Ok(quote_spanned!(at=> {
            #flag #c = #start; let #e: #t = #end; #step_init
            #l: loop { if !(#go) { break #l; } #var = #c; #reset #cl: #body #next }
        }))
    }

    fn break_(&mut self, span: Span) -> Res<TokenStream> {
        let at = self.at;
        match self.loops.last() {
            Some(l) if l.tile => {
                let id = l.id;
                self.leave_tile_loop(id, 1)
            }
            Some(l) => {
                let l = label("l", l.id);
                Ok(quote_spanned!(at=> (break #l)))
            }
            None => unsupported("`break` outside a loop", span),
        }
    }

    fn continue_(&mut self, span: Span) -> Res<TokenStream> {
        let at = self.at;
        match self.loops.last() {
            Some(l) if l.tile => {
                let id = l.id;
                self.leave_tile_loop(id, 2)
            }
            Some(l) if l.body_block => {
                let l = label("c", l.id);
                Ok(quote_spanned!(at=> (break #l)))
            }
            Some(l) => {
                let l = label("l", l.id);
                Ok(quote_spanned!(at=> (continue #l)))
            }
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
        let mut e = Emitter::new(&checked.kernel, checked.plan(), quote!(rt), "f");
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
                assert_eq!(invariant, Invariant::TileLevelInTiledKernels)
            }
            other => panic!("not an internal error: {:?}", other.map(|_| ())),
        }
    }

    /// A support path that is not a Rust path is the caller's bug: an internal error.
    #[test]
    fn a_bad_support_path_is_an_internal_error() {
        let func: syn::ItemFn = syn::parse_quote! {
            fn k(idx: Index<1>, a: ArrayViewMut<f32, 1>) { a[idx] = 1.0; }
        };
        let checked = crate::compile::check(&func, &crate::Options::default()).expect("valid");
        let r = native(
            &checked.kernel,
            checked.plan(),
            Access {
                shared: &checked.findings.shared,
            },
            "not a path!",
            "f",
            false,
        );
        assert!(matches!(r, Err(Stop::Internal { .. })));
    }
}
