//! The typed kernel IR: what the front end produces after name resolution and type inference,
//! and what the back end lowers to SPIR-V. Every expression carries its (fully inferred) type.

pub(crate) mod build;
mod visit;

pub use visit::{
    any_expr, block_has, conjuncts, equalities, has_loop, has_return, walk_expr, walk_expr_mut,
    walk_place, walk_stmt, Probe, Visitor, VisitorMut,
};

use crate::diag::Span;
use crate::types::{Elem, Len, Scalar, Ty};

/// Index of a local variable in [`Kernel::locals`].
pub type LocalId = usize;
/// Index of a parameter in [`Kernel::params`].
pub type ParamId = usize;

/// A checked kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The function's name.
    pub name: String,
    /// Rank of the launch domain.
    pub rank: u32,
    /// The local that holds the thread's `Index<N>` (a `[usize; N]`); for tiled kernels, the
    /// global index.
    pub index_local: LocalId,
    /// For tiled kernels: the tile shape and the locals behind the tiled index's fields.
    pub tiled: Option<Tiled>,
    /// Constants from outside the body (const items, const-generic parameters), in order of
    /// first use: specialization constant `3 + i` on the device.
    pub consts: Vec<OuterConst>,
    /// Parameters after the index, in declaration order.
    pub params: Vec<Param>,
    /// All locals of the body (shadowed names get their own).
    pub locals: Vec<Local>,
    /// The body.
    pub body: Block,
}

impl Kernel {
    /// The outer constants (by index in [`Kernel::consts`]) that give a thread's local array
    /// a length (`[f32; N]`, `[0.0; N]`), each once, in order of first use.
    pub fn local_array_lengths(&self) -> Vec<u32> {
        fn walk(ty: &Ty, out: &mut Vec<u32>) {
            if let Ty::Array(elem, len) = ty {
                if let Len::Const(k, _) = len {
                    if !out.contains(k) {
                        out.push(*k);
                    }
                }
                walk(elem, out);
            }
        }
        let mut out = Vec::new();
        for l in self
            .locals
            .iter()
            .filter(|l| l.storage == Storage::Function)
        {
            walk(&l.ty, &mut out);
        }
        out
    }
}

/// A tile dimension: a literal or the name of an outer constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileDim {
    /// A literal size.
    Lit(u32),
    /// A `const` item or const-generic parameter.
    Named(proc_macro2::Ident),
}

/// The tiled index of a tiled kernel.
#[derive(Clone, Debug)]
pub struct Tiled {
    /// Tile dimensions, `T0` first (as in `TiledIndex<T0, T1>`).
    pub dims: Vec<TileDim>,
    /// `t.global`.
    pub global: LocalId,
    /// `t.local`.
    pub local: LocalId,
    /// `t.tile`.
    pub tile: LocalId,
    /// `t.tile_origin`.
    pub tile_origin: LocalId,
    /// `t.tile_extent`.
    pub tile_extent: LocalId,
}

/// A constant the kernel reads from its Rust surroundings.
#[derive(Clone, Debug)]
pub struct OuterConst {
    /// The path to it from the kernel's module, `::` included (`super::`, `util::`), or
    /// nothing for a name in scope there. A device function's constant is read through the
    /// public copy `#[amp::device]` leaves next to the function (see
    /// [`const_accessor_name`](crate::const_accessor_name)), by the function's path.
    pub path: proc_macro2::TokenStream,
    /// Its name, with the span of its first use.
    pub ident: proc_macro2::Ident,
    /// Read through a device function's public copy: `path` + `ident` names a `const fn`
    /// returning the value (as an opaque scalar), not the constant itself.
    pub accessor: bool,
    /// Its type as the kernel uses it (the launcher makes rustc check it).
    pub ty: Scalar,
    /// Declared as a const-generic parameter of the kernel.
    pub generic: bool,
}

/// Where a local lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Private to the thread.
    Function,
    /// `#[tile_static]`: shared by the threads of a tile.
    TileStatic,
}

/// Whether a buffer parameter was declared as a view or an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// `ArrayView<T, N>` / `ArrayViewMut<T, N>`.
    View,
    /// `&Array<T, N>` / `&mut Array<T, N>`.
    Array,
}

/// How a parameter is passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A storage buffer.
    Buffer {
        /// Element type.
        elem: Elem,
        /// Rank.
        rank: u32,
        /// Whether the kernel may write it.
        writable: bool,
        /// View or array.
        container: Container,
    },
    /// A scalar by value.
    Scalar(Scalar),
    /// A short vector or `#[derive(DeviceStruct)]` struct by value: its scalars in the
    /// push-constant block at their `#[repr(C)]` offsets.
    Value(Elem),
    /// A texture view: `TextureView<T, N>` (read and sampled) or `WriteonlyTextureView<T, N>`.
    Texture {
        /// The texel type: a scalar or a 2- or 4-component vector.
        texel: Elem,
        /// Rank, 1 to 3.
        rank: u32,
        /// Read (a sampled image) or write (a storage image).
        access: TextureAccess,
    },
    /// A `Sampler` by value: a sampler descriptor.
    Sampler,
}

/// How a kernel uses a texture parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureAccess {
    /// `TextureView<T, N>`: texel reads and sampling.
    Read,
    /// `WriteonlyTextureView<T, N>`: texel writes.
    Write,
}

impl ParamKind {
    /// Whether the parameter takes a descriptor binding (buffers, textures, samplers).
    pub fn is_bound(&self) -> bool {
        matches!(
            self,
            ParamKind::Buffer { .. } | ParamKind::Texture { .. } | ParamKind::Sampler
        )
    }
}

/// An operation on a texture parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureOp {
    /// `tex[idx]`: operands are the index components (`usize`).
    Load,
    /// `tex.extent()`: no operands; a `[usize; rank]`.
    Extent,
    /// `tex.sample(&sampler, coord)` with the sampler parameter: the operand is the
    /// normalized coordinate (`f32` for rank 1, a `Float2`/`Float3` otherwise).
    Sample(ParamId),
    /// `tex.set(idx, value)`: operands are the index components, then the value.
    Store,
    /// `tex.gather_red(&sampler, coord)` (component 0) .. `gather_alpha` (3) with the sampler
    /// parameter: component `.1` of the four texels a linear sample of a rank-2 texture would
    /// weigh, as a 4-vector; the operand is the coordinate.
    Gather(ParamId, u32),
}

/// A kernel parameter after the index.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// The span of the whole parameter.
    pub span: Span,
    /// How it is passed.
    pub kind: ParamKind,
}

/// A local variable.
#[derive(Clone, Debug)]
pub struct Local {
    /// Its name in the source (`#for` for hidden loop counters).
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Declared `mut`.
    pub mutable: bool,
    /// Thread-private or tile-shared.
    pub storage: Storage,
}

/// A `{ ... }` block: statements and an optional tail value.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// The value of the block, if it has one.
    pub tail: Option<Box<Expr>>,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let x = init;` (no initializer: zero-initialised, never read before written in valid Rust).
    Let(LocalId, Option<Expr>),
    /// An expression statement.
    Expr(Expr),
}

/// A typed expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Ty,
    /// Where it is.
    pub span: Span,
}

/// A literal value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// An integer (its type is the expression's).
    Int(u128),
    /// A float (its type is the expression's): the value as `f64`, and as `f32` rounded once
    /// from the source digits (rounding through `f64` would round twice).
    Float(f64, f32),
    /// `true` / `false`.
    Bool(bool),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x`.
    Neg,
    /// `!x`: logical on `bool`, bitwise on integers.
    Not,
}

/// Binary operators (not the short-circuit ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl BinOp {
    /// Whether the operator compares and yields `bool`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// Whether the operator is a shift (its operands may differ in type).
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }
}

/// `&&` and `||`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    /// `&&`.
    And,
    /// `||`.
    Or,
}

/// Built-in functions callable from kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `min(a, b)` / `a.min(b)`.
    Min,
    /// `max(a, b)` / `a.max(b)`.
    Max,
    /// `abs(x)` / `x.abs()`.
    Abs,
    /// `a.dot(b)` / `dot(a, b)` of two float vectors.
    Dot,
    /// `v.length()` / `length(v)` of a float vector.
    Length,
    /// `v.normalize()` / `normalize(v)` of a float vector.
    Normalize,
    /// `a.cross(b)` / `cross(a, b)` of two 3-component float vectors.
    Cross,
    /// One of Rust's integer methods on an `i32`, `u32` or `usize` scalar.
    Int(IntMethod),
}

/// Rust's integer methods in kernels, each computing what Rust's release build computes (where
/// Rust panics, on a zero divisor, the kernel's `/` and `%` values are used; docs/semantics.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntMethod {
    /// `x.count_ones()` (`u32`).
    CountOnes,
    /// `x.count_zeros()` (`u32`).
    CountZeros,
    /// `x.leading_zeros()` (`u32`).
    LeadingZeros,
    /// `x.trailing_zeros()` (`u32`).
    TrailingZeros,
    /// `x.leading_ones()` (`u32`).
    LeadingOnes,
    /// `x.trailing_ones()` (`u32`).
    TrailingOnes,
    /// `x.reverse_bits()`.
    ReverseBits,
    /// `x.swap_bytes()`.
    SwapBytes,
    /// `x.rotate_left(n)`, `n: u32`.
    RotateLeft,
    /// `x.rotate_right(n)`, `n: u32`.
    RotateRight,
    /// `x.pow(e)` / `x.wrapping_pow(e)`, `e: u32`: wraps, as release builds.
    Pow,
    /// `x.abs_diff(y)` (`u32`).
    AbsDiff,
    /// `x.saturating_add(y)`.
    SaturatingAdd,
    /// `x.saturating_sub(y)`.
    SaturatingSub,
    /// `x.rem_euclid(y)`: never negative (for `y != 0`).
    RemEuclid,
    /// `x.div_euclid(y)`: the quotient that goes with `rem_euclid`.
    DivEuclid,
    /// `x.signum()` of an `i32`: -1, 0 or 1.
    Signum,
    /// `x.is_power_of_two()` of a `u32` (`bool`).
    IsPowerOfTwo,
    /// `x.next_power_of_two()` of a `u32`: 0 past 2^31, as release builds.
    NextPowerOfTwo,
    /// `x.div_ceil(y)` of a `u32`: the quotient rounded up.
    DivCeil,
    /// `x.next_multiple_of(y)` of a `u32`: the least multiple of `y` at or above `x`,
    /// wrapping past `u32::MAX` as release builds.
    NextMultipleOf,
}

impl IntMethod {
    /// The method a name denotes, and whether it is only for unsigned integers.
    pub fn from_name(name: &str) -> Option<IntMethod> {
        use IntMethod::*;
        Some(match name {
            "count_ones" => CountOnes,
            "count_zeros" => CountZeros,
            "leading_zeros" => LeadingZeros,
            "trailing_zeros" => TrailingZeros,
            "leading_ones" => LeadingOnes,
            "trailing_ones" => TrailingOnes,
            "reverse_bits" => ReverseBits,
            "swap_bytes" => SwapBytes,
            "rotate_left" => RotateLeft,
            "rotate_right" => RotateRight,
            "pow" | "wrapping_pow" => Pow,
            "abs_diff" => AbsDiff,
            "saturating_add" => SaturatingAdd,
            "saturating_sub" => SaturatingSub,
            "rem_euclid" => RemEuclid,
            "div_euclid" => DivEuclid,
            "signum" => Signum,
            "is_power_of_two" => IsPowerOfTwo,
            "next_power_of_two" => NextPowerOfTwo,
            "div_ceil" => DivCeil,
            "next_multiple_of" => NextMultipleOf,
            _ => return None,
        })
    }

    /// Arguments besides the receiver: `Some(true)` for a `u32` (a count or an exponent),
    /// `Some(false)` for one of the receiver's type, `None` for none.
    pub fn argument(self) -> Option<bool> {
        use IntMethod::*;
        match self {
            RotateLeft | RotateRight | Pow => Some(true),
            AbsDiff | SaturatingAdd | SaturatingSub | RemEuclid | DivEuclid | DivCeil
            | NextMultipleOf => Some(false),
            _ => None,
        }
    }

    /// Whether the result is a `u32` whatever the receiver (counts, `abs_diff`).
    pub fn returns_u32(self) -> bool {
        use IntMethod::*;
        matches!(
            self,
            CountOnes
                | CountZeros
                | LeadingZeros
                | TrailingZeros
                | LeadingOnes
                | TrailingOnes
                | AbsDiff
        )
    }

    /// Whether Rust defines it only on signed (`Some(true)`) or unsigned (`Some(false)`)
    /// integers.
    pub fn signedness(self) -> Option<bool> {
        use IntMethod::*;
        match self {
            Signum => Some(true),
            IsPowerOfTwo | NextPowerOfTwo | DivCeil | NextMultipleOf => Some(false),
            _ => None,
        }
    }
}

/// Atomic read-modify-write operations (C++ AMP chapter 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_fetch_add(&mut x, v)`.
    Add,
    /// `atomic_fetch_sub(&mut x, v)`.
    Sub,
    /// `atomic_fetch_min(&mut x, v)`.
    Min,
    /// `atomic_fetch_max(&mut x, v)`.
    Max,
    /// `atomic_fetch_and(&mut x, v)`.
    And,
    /// `atomic_fetch_or(&mut x, v)`.
    Or,
    /// `atomic_fetch_xor(&mut x, v)`.
    Xor,
    /// `atomic_fetch_inc(&mut x)`.
    Inc,
    /// `atomic_fetch_dec(&mut x)`.
    Dec,
    /// `atomic_exchange(&mut x, v)`.
    Exchange,
    /// `atomic_compare_exchange(&mut x, &mut expected, v)`: operands are `v` and the expected
    /// local's place.
    CompareExchange,
}

impl AtomicOp {
    /// The operation named by a C++ AMP atomic function.
    pub fn from_name(name: &str) -> Option<AtomicOp> {
        Some(match name {
            "atomic_fetch_add" => AtomicOp::Add,
            "atomic_fetch_sub" => AtomicOp::Sub,
            "atomic_fetch_min" => AtomicOp::Min,
            "atomic_fetch_max" => AtomicOp::Max,
            "atomic_fetch_and" => AtomicOp::And,
            "atomic_fetch_or" => AtomicOp::Or,
            "atomic_fetch_xor" => AtomicOp::Xor,
            "atomic_fetch_inc" => AtomicOp::Inc,
            "atomic_fetch_dec" => AtomicOp::Dec,
            "atomic_exchange" => AtomicOp::Exchange,
            "atomic_compare_exchange" => AtomicOp::CompareExchange,
            _ => return None,
        })
    }
}

/// An atomic operation on an element of a view, an array or `tile_static` memory.
#[derive(Clone, Debug)]
pub struct Atomic {
    /// What it does.
    pub op: AtomicOp,
    /// The element.
    pub target: Place,
    /// The value operand (none for inc and dec).
    pub value: Option<Box<Expr>>,
    /// For compare-exchange: the local holding the expected value, updated with the old value
    /// when the exchange fails.
    pub expected: Option<Place>,
}

/// How a subgroup operation combines the lanes' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupOp {
    /// `+` (wrapping for integers).
    Add,
    /// `min` (floats pass over NaN, as `f32::min`).
    Min,
    /// `max` (floats pass over NaN, as `f32::max`).
    Max,
    /// `&` (integers) / `&&` (`bool`).
    And,
    /// `|` (integers) / `||` (`bool`).
    Or,
    /// `^` (integers) / `!=` (`bool`).
    Xor,
}

/// A subgroup operation (`t.subgroup().op(..)`, docs/kernel-language.md): Vulkan 1.1's
/// `GroupNonUniform*` instructions, the warp or wave of other APIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubgroupOp {
    /// `size()`: lanes per subgroup on this device (`u32`).
    Size,
    /// `lane()`: this thread's lane in its subgroup (`u32`).
    Lane,
    /// `index()`: which subgroup of the tile this thread is in (`u32`).
    Index,
    /// `count()`: subgroups per tile (`u32`).
    Count,
    /// `elect()`: `true` in the subgroup's lowest lane.
    Elect,
    /// `all(b)`.
    All,
    /// `any(b)`.
    Any,
    /// `ballot(b)`: a `UInt4` with bit `i` set where lane `i` has `b` (128 lanes at most).
    Ballot,
    /// `count_true(b)`: how many lanes have `b` (`u32`).
    CountTrue,
    /// `exclusive_count_true(b)`: how many lanes below this one have `b` (`u32`).
    ExclusiveCountTrue,
    /// `broadcast(v, lane)`: `v` of lane `lane % size()`.
    Broadcast,
    /// `broadcast_first(v)`: `v` of the lowest lane.
    BroadcastFirst,
    /// `shuffle(v, lane)`: `v` of lane `lane % size()`, each thread its own lane.
    Shuffle,
    /// `shuffle_xor(v, mask)`: `v` of lane `lane() ^ (mask % size())`.
    ShuffleXor,
    /// `add(v)`, `min(v)`, ..: the operation over every lane's `v`.
    Reduce(GroupOp),
    /// `inclusive_add(v)`, ..: over the lanes up to and including this one.
    InclusiveScan(GroupOp),
    /// `exclusive_add(v)`, ..: over the lanes below this one (the identity in lane 0).
    ExclusiveScan(GroupOp),
}

impl GroupOp {
    /// The operation's name in the method names (`add`, `min`, ..).
    pub fn name(self) -> &'static str {
        match self {
            GroupOp::Add => "add",
            GroupOp::Min => "min",
            GroupOp::Max => "max",
            GroupOp::And => "and",
            GroupOp::Or => "or",
            GroupOp::Xor => "xor",
        }
    }
}

impl SubgroupOp {
    /// The method of `t.subgroup()` that calls the operation.
    pub fn method_name(self) -> String {
        match self {
            SubgroupOp::Size => "size".into(),
            SubgroupOp::Lane => "lane".into(),
            SubgroupOp::Index => "index".into(),
            SubgroupOp::Count => "count".into(),
            SubgroupOp::Elect => "elect".into(),
            SubgroupOp::All => "all".into(),
            SubgroupOp::Any => "any".into(),
            SubgroupOp::Ballot => "ballot".into(),
            SubgroupOp::CountTrue => "count_true".into(),
            SubgroupOp::ExclusiveCountTrue => "exclusive_count_true".into(),
            SubgroupOp::Broadcast => "broadcast".into(),
            SubgroupOp::BroadcastFirst => "broadcast_first".into(),
            SubgroupOp::Shuffle => "shuffle".into(),
            SubgroupOp::ShuffleXor => "shuffle_xor".into(),
            SubgroupOp::Reduce(g) => g.name().into(),
            SubgroupOp::InclusiveScan(g) => format!("inclusive_{}", g.name()),
            SubgroupOp::ExclusiveScan(g) => format!("exclusive_{}", g.name()),
        }
    }

    /// Whether the operation combines the values of several lanes, so every lane of the
    /// subgroup must reach it together (the rest are facts of the thread's position).
    pub fn is_collective(self) -> bool {
        !matches!(
            self,
            SubgroupOp::Size | SubgroupOp::Lane | SubgroupOp::Index | SubgroupOp::Count
        )
    }
}

/// Whether `e` contains a subgroup operation that combines lanes.
pub fn has_collective(e: &Expr) -> bool {
    any_expr(e, |x| match &x.kind {
        ExprKind::Subgroup(op, _) if op.is_collective() => Probe::Hit,
        _ => Probe::Descend,
    })
}

/// Which memory a barrier or fence orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    /// Views and arrays (global memory).
    Global,
    /// `tile_static` memory.
    TileStatic,
    /// Both.
    All,
}

/// An assignable place.
#[derive(Clone, Debug)]
pub enum Place {
    /// A local, or an element of a local array (`a[i][j]`).
    Local(LocalId, Vec<Expr>),
    /// An element of a buffer parameter, one index per dimension.
    Buffer(ParamId, Vec<Expr>),
}

/// A range loop's bounds.
#[derive(Clone, Debug)]
pub struct RangeLoop {
    /// The loop variable visible to the body.
    pub var: LocalId,
    /// The hidden counter.
    pub counter: LocalId,
    /// The hidden "no more iterations" flag (inclusive ranges and `step_by`).
    pub done: LocalId,
    /// Start of the range.
    pub start: Box<Expr>,
    /// End of the range.
    pub end: Box<Expr>,
    /// `a..=b`.
    pub inclusive: bool,
    /// `.step_by(s)`.
    pub step: Option<Box<Expr>>,
    /// The body.
    pub body: Block,
}

/// What an expression is.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A literal.
    Lit(Lit),
    /// Read a local.
    Local(LocalId),
    /// Read a by-value parameter: a scalar, or a short vector or struct rebuilt from its scalars.
    ScalarParam(ParamId),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A short-circuit operator.
    Logic(LogicOp, Box<Expr>, Box<Expr>),
    /// `x as T` (T is the expression's type).
    Cast(Box<Expr>),
    /// The same bits as another 32-bit scalar type: `f32::to_bits(x)`, `f32::from_bits(u)`.
    Bitcast(Box<Expr>),
    /// `base[index]` where base is an array value (locals, `Index<N>`, `Extent<N>`).
    Element(Box<Expr>, Box<Expr>),
    /// Read a buffer element, one `usize` index per dimension.
    BufferLoad(ParamId, Vec<Expr>),
    /// `view.extent()`: a `[usize; rank]`.
    BufferExtent(ParamId),
    /// An operation on texture parameter `.1` with its operands.
    Texture(TextureOp, ParamId, Vec<Expr>),
    /// `[a, b, c]`.
    ArrayList(Vec<Expr>),
    /// `[x; n]`.
    ArrayRepeat(Box<Expr>, u32),
    /// An outer constant (its index in [`Kernel::consts`]).
    OuterConst(usize),
    /// `t.barrier.wait()` and its variants: every thread of the tile waits, with a fence.
    Barrier(Fence),
    /// `all_memory_fence(t.barrier)` and friends: a fence without waiting.
    MemoryFence(Fence),
    /// An atomic operation; its value is the element's old value (`bool` success for
    /// compare-exchange).
    Atomic(Box<Atomic>),
    /// A built-in function.
    Builtin(Builtin, Vec<Expr>),
    /// A subgroup operation with its operands.
    Subgroup(SubgroupOp, Vec<Expr>),
    /// A math function (`x.sqrt()`, `fast_math::exp10(x)`).
    Math(crate::math::MathFn, Vec<Expr>),
    /// `if cond { .. } else { .. }`; the else is a block or another `if`.
    If(Box<Expr>, Block, Option<Box<Expr>>),
    /// A nested block.
    Block(Block),
    /// `while cond { .. }`.
    While(Box<Expr>, Block),
    /// `loop { .. }`.
    Loop(Block),
    /// `for x in a..b { .. }` and friends.
    For(Box<RangeLoop>),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return`.
    Return,
    /// `place = value`.
    Assign(Place, Box<Expr>),
    /// `place op= value`.
    CompoundAssign(BinOp, Place, Box<Expr>),
}
