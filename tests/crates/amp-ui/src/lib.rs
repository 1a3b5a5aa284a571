//! Nothing but the compile-fail cases of the kernel language (`tests/ui.rs`).
