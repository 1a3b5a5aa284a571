//! The rules of the kernel language, one per section of `docs/restrictions.md`: every
//! [`Diagnostic`](super::Diagnostic) names the rule it reports, and [`Rule::id`] is the id the
//! document gives the rule's section, so an error leads to the reason behind it.

/// Declares [`Rule`], [`Rule::ALL`] and [`Rule::id`] from one list, so the three cannot drift.
macro_rules! rules {
    ($($(#[doc = $doc:literal])+ $variant:ident = $id:literal,)+) => {
        /// A rule of the kernel language: a section of `docs/restrictions.md`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Rule {
            /// Every rule, in the order of `docs/restrictions.md`.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)+];

            /// The id of the rule's section in `docs/restrictions.md` (`loop-exits`, ...).
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)+
                }
            }
        }
    };
}

rules! {
    // 1. The attribute (checked by `amp-macros`).
    /// `attribute-is-amp`: the attribute's argument is `amp`.
    AttributeIsAmp = "attribute-is-amp",
    /// `attribute-options`: after `amp`, only `unchecked` and `allow(...)`.
    AttributeOptions = "attribute-options",
    /// `unchecked-once`: a switch (`unchecked`, `fast_math`) is given at most once.
    UncheckedOnce = "unchecked-once",
    /// `allow-known-lint`: `allow(...)` names known warnings.
    AllowKnownLint = "allow-known-lint",
    /// `kernel-is-a-function`: the attribute applies to free functions.
    KernelIsAFunction = "kernel-is-a-function",

    // 2. The signature.
    /// `index-first`: the first parameter is the thread's index.
    IndexFirst = "index-first",
    /// `one-index`: a kernel has exactly one index parameter.
    OneIndex = "one-index",
    /// `index-rank`: ranks are the literals 1, 2 and 3.
    IndexRank = "index-rank",
    /// `tile-shape`: 1 to 3 tile dimensions, each at least 1, at most 1024 threads in all.
    TileShape = "tile-shape",
    /// `no-return-type`: a kernel returns nothing.
    NoReturnType = "no-return-type",
    /// `plain-fn`: a kernel is not `async`, `unsafe`, `const`, `extern`, variadic or a method.
    PlainFn = "plain-fn",
    /// `generics`: only const generics of scalar types, no `where` clauses.
    Generics = "generics",
    /// `param-names`: parameters are distinct plain names.
    ParamNames = "param-names",
    /// `param-types`: parameters are views, arrays by reference, scalars, vectors or structs.
    ParamTypes = "param-types",
    /// `view-types`: view elements are 32-bit integers, `f32` and `f64`; ranks 1 to 3.
    ViewTypes = "view-types",
    /// `textures`: texture views hold i32, u32, f32, Norm or Unorm texels (or 2- and 4-vectors
    /// of them), ranks 1 to 3; read views are read and sampled, write-only views are written.
    Textures = "textures",
    /// `push-constant-limit`: the launch parameters fit in 128 bytes of push constants.
    PushConstantLimit = "push-constant-limit",

    // 3. Types.
    /// `scalar-types`: no narrow or 64-bit integers.
    ScalarTypes = "scalar-types",
    /// `no-text`: no `String`, `str` or `char`.
    NoText = "no-text",
    /// `no-heap`: no `Vec`, `Box` or other allocations.
    NoHeap = "no-heap",
    /// `no-option-result`: no `Option` or `Result`.
    NoOptionResult = "no-option-result",
    /// `tuple-types`: tuples hold values, and live in locals and expressions only.
    TupleTypes = "tuple-types",
    /// `no-pointers`: no references, pointers, slices, function pointers or trait objects.
    NoPointers = "no-pointers",
    /// `array-lengths`: local array lengths are literals or constants, 1 to 16384.
    ArrayLengths = "array-lengths",

    // 4. Literals.
    /// `literal-types`: numeric and `bool` literals of the kernel's types, in range.
    LiteralTypes = "literal-types",

    // 5. Items and statements.
    /// `no-items`: no `static`, nested functions, `use` or type items in a body.
    NoItems = "no-items",
    /// `let-patterns`: `let` binds plain names, `_`, or a pair element-wise.
    LetPatterns = "let-patterns",
    /// `unit-values`: statements are `()`, and `()` is not bound.
    UnitValues = "unit-values",
    /// `assignments`: targets are mutable locals and elements of writable memory.
    Assignments = "assignments",

    // 6. Expressions.
    /// `no-closures`: no closures or function values.
    NoClosures = "no-closures",
    /// `no-references`: no references, dereferences or raw pointers.
    NoReferences = "no-references",
    /// `no-unsafe-async-try`: no `unsafe`, `async`, `.await` or `?`.
    NoUnsafeAsyncTry = "no-unsafe-async-try",
    /// `no-compound-values`: no tuples, foreign struct expressions or unknown fields.
    NoCompoundValues = "no-compound-values",
    /// `match-patterns`: `match` on integers and `bool` with exhaustive scalar patterns; no
    /// `if let` or `let` expressions.
    MatchPatterns = "match-patterns",
    /// `ranges-only-in-for`: ranges only as the iterator of a `for` loop.
    RangesOnlyInFor = "ranges-only-in-for",
    /// `no-macros`: no macro calls.
    NoMacros = "no-macros",
    /// `other-expressions`: the rest of Rust's expressions and operators.
    OtherExpressions = "other-expressions",
    /// `names`: a kernel names its parameters, its locals and constants.
    Names = "names",

    // 7. Operators, casts and types.
    /// `mismatched-types`: a value has the type its place expects, without conversions.
    MismatchedTypes = "mismatched-types",
    /// `operand-types`: operators apply to operands of one type that supports them.
    OperandTypes = "operand-types",
    /// `casts`: `as` converts between numeric types, and from `bool` to integers.
    Casts = "casts",
    /// `branch-and-condition-types`: `if` branches agree, and `if` without `else` is `()`.
    BranchAndConditionTypes = "branch-and-condition-types",

    // 8. Views, arrays and indexing.
    /// `view-indexing`: a view of rank R takes R `usize` components.
    ViewIndexing = "view-indexing",
    /// `local-array-indexing`: arrays only are indexed, constant indices in bounds.
    LocalArrayIndexing = "local-array-indexing",

    // 9. Calls.
    /// `builtin-functions`: the kernel language's functions and methods, with their arities.
    BuiltinFunctions = "builtin-functions",
    /// `atomics`: atomics take `&mut` elements of shared `i32`, `u32` (or `f32`) memory.
    Atomics = "atomics",
    /// `f32-atomics`: on `f32`, only `atomic_fetch_add` and `atomic_exchange`.
    F32Atomics = "f32-atomics",

    // 10. Control flow.
    /// `loop-exits`: `break` and `continue` in loops, without labels or values.
    LoopExits = "loop-exits",
    /// `no-values-out`: no value leaves a kernel body or a loop body.
    NoValuesOut = "no-values-out",
    /// `for-ranges`: `for` runs over integer ranges with a start, an end and a step of 1 or more.
    ForRanges = "for-ranges",

    // 11. Tiled kernels.
    /// `tiles-only`: barriers and `tile_static` memory only in tiled kernels.
    TilesOnly = "tiles-only",
    /// `tiled-index-fields`: a tiled index is used through its fields.
    TiledIndexFields = "tiled-index-fields",
    /// `barrier-calls`: the barrier is waited at or handed to a fence.
    BarrierCalls = "barrier-calls",
    /// `subgroup-calls`: the tile's subgroup is used through its operations, on their types.
    SubgroupCalls = "subgroup-calls",
    /// `tile-static-declarations`: `tile_static` variables are typed names without a value.
    TileStaticDeclarations = "tile-static-declarations",
    /// `tile-static-limit`: at most 32 KiB of `tile_static` memory per tile.
    TileStaticLimit = "tile-static-limit",

    // 12. Short vectors.
    /// `vector-construction`: `new` with one value per component, or `splat`.
    VectorConstruction = "vector-construction",
    /// `vector-components`: components and swizzles within the vector's length.
    VectorComponents = "vector-components",
    /// `vector-operands`: component-wise operators on one vector type, or with its scalar.
    VectorOperands = "vector-operands",
    /// `vector-geometry`: `dot`, `cross`, `length`, `normalize` on float vectors.
    VectorGeometry = "vector-geometry",

    // 13. Device structs.
    /// `struct-derive`: a kernel knows the structs that `#[derive(DeviceStruct)]`.
    StructDerive = "struct-derive",
    /// `struct-definition`: `#[repr(C)]`, not generic, named fields.
    StructDefinition = "struct-definition",
    /// `struct-fields`: fields of the types views can hold.
    StructFields = "struct-fields",
    /// `struct-expressions`: struct expressions name every field once; fields exist.
    StructExpressions = "struct-expressions",

    // 14. Device functions.
    /// `device-fn-marked`: kernels call functions marked `#[amp::device]`.
    DeviceFnMarked = "device-fn-marked",
    /// `device-fn-signature`: concrete, plain signatures of values and views.
    DeviceFnSignature = "device-fn-signature",
    /// `device-fn-body`: a device function's body follows the kernel language's rules.
    DeviceFnBody = "device-fn-body",
    /// `device-fn-calls`: arguments match the device function's signature.
    DeviceFnCalls = "device-fn-calls",
    /// `no-recursion`: device functions do not call themselves, directly or not.
    NoRecursion = "no-recursion",

    // 15. Barrier uniformity.
    /// `barrier-uniformity`: every thread of a tile reaches each barrier.
    BarrierUniformity = "barrier-uniformity",
    /// `subgroup-uniformity`: every thread of a tile reaches each operation that combines the
    /// lanes of its subgroup, where its value can be computed for all of them.
    SubgroupUniformity = "subgroup-uniformity",

    // 16. The compiler's own errors.
    /// `internal-error`: a bug in amp-rs met while compiling a kernel, reported as an error
    /// that asks for a report, never as a panic.
    InternalError = "internal-error",
}
