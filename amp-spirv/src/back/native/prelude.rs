//! The support code every native kernel calls lives in amp-abi (`amp_abi::native_rt`), compiled
//! into the runtime; its source is re-exported here for programs that embed it.

/// The prelude's source: items to place in a module of their own (`mod rt { <PRELUDE> }`).
pub const PRELUDE: &str = amp_abi::NATIVE_RT_SOURCE;
