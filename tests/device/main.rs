//! The run-time device tests in one test binary: one module per area, each the file of the same
//! name in this folder (formerly a test binary of its own), so the runtime is linked once and
//! every test of the group shares one process and one device. Run one area with
//! `cargo test --test device atomics::`, one test with its full name.
//!
//! Every test still ends with `assert_validation_clean()` (or asserts
//! `validation_message_count() == 0`): the count is process-wide, so in one process it also
//! proves the tests that ran beside it reported nothing.
//!
//! Tests that need a process of their own stay separate binaries in `tests/`: `accelerator` and
//! `robustness` (they re-run their own binary for a test that needs the default device chosen
//! differently, by exact test name), `leaks` (the process's live Vulkan objects and resident
//! memory must stay flat), `timeout` (its long kernels would slow the others down), `ui` and
//! `pass` (trybuild) and `spirv_val_all` (no device).

#[path = "../common/mod.rs"]
mod common;

mod algorithms;
mod algorithms_with_fn;
mod asynchrony;
mod atomics;
mod bounds;
mod data_model;
mod device_fns;
mod element_variants;
mod elementwise;
mod empty;
mod exact;
mod examples;
mod generics;
mod guard;
mod index_arith;
mod launch_reuse;
mod loop_limit;
mod math;
mod matmul;
mod model;
mod normalized;
mod numeric;
mod ping_pong;
mod profiling;
mod read_write;
mod semantics;
mod structs;
mod subgroup;
mod textures;
mod tiled;
mod tiled_contract;
mod vector_add_contract;
mod vectors;
