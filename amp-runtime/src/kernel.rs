//! The kernel ABI, as the runtime sees it: what `#[kernel(amp)]` tells the runtime about a
//! compiled kernel. The contract itself (bindings, push constants, specialization constants,
//! the out-of-bounds report) is defined once, in `amp-abi`, which the compiler uses too; this
//! module re-exports it (hidden) so that generated code can name it through `amp::__private`.

pub use amp_abi::{
    buffer_layout, layout_fact, spec_id, texture_fact, ElemType, KernelInfo, ParamInfo, ParamKind,
    ScalarType, Shape, SpirvBytes, TextureAccess, LAYOUT_SPEC_ID_BASE, LOOP_CUT_REPORT_WORD,
    OOB_REPORT_WORDS, REPORT_WORDS,
};
