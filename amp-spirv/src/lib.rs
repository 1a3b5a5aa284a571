#![doc = include_str!("../README.md")]
//!
//! The pipeline follows the data: the front end (syn AST -> typed IR, with the restriction
//! rules of docs/restrictions.md, each a [`Rule`], and type inference) -> the analyses (barrier
//! uniformity, races, bank conflicts, value ranges) -> the back end (IR -> SPIR-V 1.3 words
//! through `rspirv`). Everything but the items re-exported here is private to the crate.

mod analysis;
mod back;
mod compile;
mod diag;
mod file_facts;
mod front;
mod imports;
mod ir;
mod math;
mod pass;
mod range;
mod source;
mod structs;
mod types;

pub use analysis::{Lint, Warning};
pub use back::OOB_REPORT_WORDS;
pub use compile::{
    check, check_device_fn, check_device_fn_with, compile, compile_native, compile_str,
    compile_with, device_fn_consts_with, internal_error, missing_device_fn, missing_device_fns,
    missing_device_fns_with_roots, native_generic_type, BatchedVariant, CheckedKernel,
    CompiledKernel, CompiledParam, NativeError, NativeKernel, NativeVariant, Options,
    TileStaticSize, Unsupported,
};
pub use diag::{Diagnostic, Diagnostics, Rule, Span};
pub use file_facts::{imports_of_fn, is_device_attr, is_kernel_attr, FileFacts};
pub use front::{
    callee_path, const_accessor_name, instantiate, merge_instance_errors, recovered_instance,
    DeviceFnSource, Instance, CONSTS_ATTR, MAX_TILE_STATIC_BYTES, MAX_TILE_THREADS,
};
pub use imports::{resolve_imports, Imports};
pub use ir::{Container, OuterConst, ParamKind, TextureAccess, TileDim};
pub use source::{device_fns_in_file, device_structs_in_file, kernels_in_file};
pub use structs::{check_definition as check_struct_definition, struct_field_paths, StructTable};
pub use types::{vector_from_name, vector_name, Elem, Field, Len, Scalar, StructDef};

/// The kernel ABI shared with the runtime: layout facts and their `SpecId`s, the push-constant
/// limit, the out-of-bounds report's size, the runtime's descriptions of parameters.
pub use amp_abi as abi;
pub use amp_abi::{layout_fact, texture_fact, LAYOUT_SPEC_ID_BASE, MAX_PUSH_CONSTANT_BYTES};
