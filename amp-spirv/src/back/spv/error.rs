//! The SPIR-V emitter's own failures: each is a bug in amp-rs, never in the kernel. The
//! emitter keeps the first one and finishes with placeholders (its `Option`s already mean
//! "this code is never reached", so they cannot carry errors as well); [`super::emit`] then
//! returns it, and the kernel gets an internal-error diagnostic that names it, never a panic.

use crate::back::plan::PlaceError;

/// Why the emitter could not build a kernel's module.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    /// rspirv refused an instruction: the emitter's bookkeeping of functions and blocks does
    /// not match what it emits.
    #[error("broken invariant ({invariant}): {refused:?}")]
    Builder {
        /// What the emitter assumed.
        invariant: Invariant,
        /// What rspirv said.
        refused: rspirv::dr::Error,
    },
    /// A fact the emitter relies on did not hold.
    #[error("broken invariant ({0})")]
    Broken(Invariant),
    /// A place the front end should have refused.
    #[error("broken invariant (places the front end checked): {0}")]
    Place(#[from] PlaceError),
    /// The probe kernel ([`super::INTERNAL_ERROR_PROBE`]), which tests the path of internal
    /// errors to the user.
    #[error("the probe kernel asked for an internal error")]
    Probe,
}

/// The facts the emitter relies on, each named once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Invariant {
    /// An instruction is emitted into an open block.
    #[error("a block is open")]
    BlockOpen,
    /// A function is being emitted.
    #[error("the function is open")]
    FunctionOpen,
    /// A function begins where none is open.
    #[error("no function is open")]
    NoFunctionOpen,
    /// The entry point's function is closed before another begins.
    #[error("main is closed")]
    MainClosed,
    /// A block the emitter returns to exists and may be selected again.
    #[error("the block to select exists")]
    BlockSelectable,
    /// Every bounds-checked kernel has a report buffer.
    #[error("checked kernels have a report")]
    ReportDeclared,
    /// Every buffer parameter has its variable, slot and layout facts.
    #[error("buffer params have their variables, slots and layout facts")]
    BufferDeclared,
    /// Every texture or sampler parameter has its variable and slot.
    #[error("texture and sampler params have their variables and slots")]
    TextureDeclared,
    /// Every by-value parameter has its slot in the push constants.
    #[error("value params have value slots")]
    ValueSlot,
    /// The launch-parameter layout has one entry per parameter.
    #[error("the layout follows the params")]
    LayoutFollowsParams,
    /// A by-value parameter's type has a push-constant form.
    #[error("by-value parameters are scalars, vectors or structs, not {0}")]
    ValueParamType(String),
    /// The subgroup built-ins an operation reads are declared before it.
    #[error("the subgroup's inputs are declared for every use")]
    SubgroupInputs,
    /// A loop counter or flag is a scalar local with a variable.
    #[error("loop counters and flags are scalars")]
    ScalarLocal,
    /// A tiled kernel has its tiled index.
    #[error("a tiled kernel has a tiled index")]
    TiledIndex,
    /// A type laid out in memory has a size.
    #[error("a type in memory has a size")]
    Sized,
    /// Storage types: vectors and structs have their own, one member per scalar.
    #[error("storage types are declared for vectors and structs, one member per scalar")]
    StorageType,
    /// The front end checked an operand's type (a type the emitter meets has a lowering).
    #[error("the front end checked the operand's type")]
    CheckedType,
    /// A `break` or `continue` is inside a loop.
    #[error("break and continue are inside a loop")]
    InsideLoop,
    /// A structured `if` has the arms its caller asked for.
    #[error("a structured if has its arms")]
    IfArm,
    /// A checked access has a component to check.
    #[error("a checked access has a component to check")]
    CheckedComponent,
    /// An `OpSpecConstantOp` was appended and is read back.
    #[error("an OpSpecConstantOp was appended")]
    SpecConstantOp,
    /// A polynomial has coefficients.
    #[error("a polynomial has coefficients")]
    Polynomial,
    /// An instruction built by hand has the result id it was given.
    #[error("a result id was set")]
    ResultId,
}
