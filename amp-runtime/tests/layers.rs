//! The runtime's modules form layers: no cycle among sibling modules at any level, and the
//! top-level modules only use modules of their own layer or the layers below (see the
//! "Runtime layers" section of `docs/design.md`).

#[path = "support/layers.rs"]
mod layers;

use std::path::Path;

/// Bottom-up: the runtime's top-level modules by layer.
const LAYERS: &[&[&str]] = &[
    &[
        "dims",
        "error",
        "extent",
        "kernel",
        "scalar",
        "short_vector",
        "sync",
    ],
    &["device"],
    &["memory"],
    &["data"],
    &["exec"],
];

fn src() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
}

#[test]
fn no_cycles_among_sibling_modules() {
    let cycles = layers::sibling_cycles(src());
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

#[test]
fn top_level_modules_use_only_their_layer_and_the_ones_below() {
    let violations = layers::layer_violations(src(), LAYERS);
    assert!(
        violations.is_empty(),
        "layer violations:\n{}",
        violations.join("\n")
    );
}
