#![doc = include_str!("../README.md")]
//!
//! What is here: the buffer type of the native thread ABI ([`Buf`]), the launch's
//! out-of-bounds report ([`OobReport`]), atomics on buffer elements, and the helpers that give
//! the numeric rules of docs/semantics.md in Rust (integer division, index clamps,
//! `Norm`/`Unorm` clamps, the math functions std lacks: [`m32`], [`m64`]), and textures: [`Tex`]
//! (texel fetches, stores, samples and gathers) and [`Smp`].
//!
//! Generated code names this crate through `amp::__private::native`; nothing here is meant to
//! be called by hand. The items and their paths are the contract with the native back end
//! (`amp-spirv/src/back/native/`), whose module docs define the thread and tile ABIs.
//!
//! # What the generated code relies on
//!
//! A native launch calls a kernel's thread function (or tile function) once per thread (tile)
//! of the domain, from the threads of a `rayon` pool, all of them sharing the launch's [`Buf`]s
//! and its [`OobReport`]. Four parties keep the accesses sound:
//!
//! - **The runtime** builds each [`Buf`] from a view or array it holds for the whole launch
//!   (a host slice borrowed by the view, or an array's own memory): `ptr` is aligned for `T`,
//!   and every index inside `extent` maps, through `offset` and `strides`, to an element of
//!   that memory. Nothing outside the launch touches the memory until the launch returns (a
//!   writable view is borrowed mutably by the launch; arrays are not handed to the host while
//!   a launch runs).
//! - **The compiler** decides which accesses are compared with their view's extent. A checked
//!   kernel's access either goes through [`Buf::load`] / [`Buf::store`] / [`Buf::checked`],
//!   which compare every component, or through the `_if` variants with an `ok` the compiler
//!   built from the components it could not prove in range (its range analysis, and the
//!   domain's extent when [`Buf::covers`] holds): `ok` is true only for an index inside the
//!   view. An index outside is never dereferenced: the read gives 0, the write is skipped and
//!   the first one is recorded in the report, as on a device.
//! - **Textures** ([`Tex`]) follow the same rules: the runtime builds each from a texture's host
//!   memory, which it keeps alive and locks for the launch (exclusively when the kernel writes
//!   the texture, so no host copy or other launch touches it meanwhile); a texture is never both
//!   read and written in one launch, so samples and reads never meet a write; checked texel
//!   accesses compare every index component ([`Tex::load`], [`Tex::store`]), and samples and
//!   gathers only touch texels their address mode maps inside the extent.
//! - **The kernel's author** keeps an unchecked kernel's (`#[kernel(amp, unchecked)]`) indices
//!   inside their views ([`Buf::load_unchecked`], [`Buf::store_unchecked`]): outside, the
//!   access is undefined behaviour, as it is in C++ AMP.
//!
//! Between work-items, the kernel language's rules are the memory model's: threads of a launch
//! run in any order and concurrently, so two of them must not access one element with a plain
//! access unless both only read it, or (in a tiled kernel) a barrier separates the accesses;
//! elements several threads update go through the atomics ([`atom_i32`], [`atom_u32`],
//! [`atom_f32`], [`atomic_add_f32`]), relaxed as on the device, and are not also accessed
//! plainly during the launch. The compiler's race analysis warns about accesses that may break
//! this (`write_conflict`, `tile_static_race`); a kernel that silences the warning and does race
//! has undefined results on a device and is undefined behaviour natively. The threads of one
//! tile run one after another on one OS thread, so `tile_static` memory is the tile function's
//! own and needs none of this.
//!
//! # Why raw pointers rather than slices
//!
//! Every thread of a launch writes its elements of the same buffers at the same time. A
//! `&mut [T]` per thread would claim the whole buffer for each of them (undefined behaviour the
//! moment two exist, even if they touch different elements), and a `&[T]` forbids the writes.
//! A view is also not always one contiguous run of its elements (sections and projections have
//! an offset and strides), and the atomics take the very memory the plain accesses use
//! (`AtomicU32::from_ptr`), which must not be covered by a live `&`/`&mut` reference to a
//! plain `u32`. So a [`Buf`] is a copyable base pointer with the view's layout, each access
//! computes one element's address, and only that element is read or written. Addresses are
//! computed with `wrapping_add`, so computing one outside the view (which a checked access
//! does before it is compared) is never undefined behaviour by itself.

#![deny(missing_docs, unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

mod atomic;
mod buf;
mod float;
mod frames;
mod int;
mod report;
mod texture;

pub use atomic::{
    atom_f32, atom_i32, atom_u32, atomic_add_f32, read_relaxed, write_relaxed,
    write_relaxed_changed, RELAXED,
};
pub use buf::Buf;
pub use float::{m32, m64, norm, unorm};
pub use frames::{frames, frames_for_overwrite, words_of, Frames};
pub use int::{
    div_euclid_i32, div_i32, div_u32, ix, next_power_of_two_u32, rem_euclid_i32, rem_i32, rem_u32,
};
pub use report::OobReport;
pub use texture::{decode, encode, f16_to_f32, f32_to_f16, Address, Comp, Smp, Tex, TexKind};

/// Lanes per subgroup on the native accelerator: a tile's threads in row-major local-index
/// order, 32 at a time (a warp's width, so code tuned for NVIDIA's subgroups sees the same
/// size). A power of two, as on every Vulkan device.
pub const SUBGROUP_SIZE: u32 = 32;

/// rustc's arguments that link a program it compiles against this crate as `amp_native_rt`,
/// for tests that compile generated native code with rustc themselves (the compiler's native
/// tests, the differential tester). Cargo builds this crate's rlib, and those of its
/// dependencies, into the folder of the calling test's executable when the test has it as a
/// dependency; the newest one there is used. Panics when there is none: a test-only helper.
#[doc(hidden)]
pub fn rustc_extern_args() -> [std::ffi::OsString; 4] {
    let exe = std::env::current_exe().expect("the test's executable");
    let deps = exe.parent().expect("the test's folder");
    let rlib = std::fs::read_dir(deps)
        .expect("reading the test's folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libamp_native_rt-") && n.ends_with(".rlib"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| panic!("no libamp_native_rt-*.rlib in {}", deps.display()));
    let mut extern_ = std::ffi::OsString::from("amp_native_rt=");
    extern_.push(rlib);
    let mut dependencies = std::ffi::OsString::from("dependency=");
    dependencies.push(deps);
    ["--extern".into(), extern_, "-L".into(), dependencies]
}
