//! The facts the native back end relies on, each named once: a failure is a bug in amp-rs,
//! reported to the user as an internal error ([`super::Stop::Internal`]), never a panic.

/// A fact of the native back end that did not hold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("broken invariant of the native back end ({})", self.what())]
pub enum Invariant {
    /// Tile-level code was asked of a simple kernel's emitter.
    TileLevelInTiledKernels,
    /// A tiled kernel's index is its tiled index.
    TiledIndex,
    /// The runtime support crate's path parses as a Rust path.
    SupportPath,
    /// Generated items are named by identifiers.
    ItemNames,
    /// Texture operations name texture parameters.
    TextureParam,
    /// Only collective subgroup operations are hoisted, and their operands are locals.
    HoistedSubgroup,
    /// A construct matched before it is emitted (the compare-exchange of an atomic, a
    /// statement kind) is the one emitted.
    MatchedAbove,
    /// An array length's outer constant is one of the kernel's.
    OuterConstIndex,
}

impl Invariant {
    /// What should have held, in words.
    fn what(&self) -> &'static str {
        match self {
            Invariant::TileLevelInTiledKernels => {
                "tile-level code is emitted for tiled kernels only"
            }
            Invariant::TiledIndex => "a tiled kernel has its tiled index",
            Invariant::SupportPath => "the support crate's path is a Rust path",
            Invariant::ItemNames => "generated items are named by identifiers",
            Invariant::TextureParam => "texture operations name texture parameters",
            Invariant::HoistedSubgroup => {
                "only collective subgroup operations are hoisted, with local operands"
            }
            Invariant::MatchedAbove => "the construct matched above is the one emitted",
            Invariant::OuterConstIndex => "an array length's constant is one of the kernel's",
        }
    }
}
