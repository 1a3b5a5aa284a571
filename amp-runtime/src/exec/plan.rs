//! Launch plans: what a launch of one kernel with one argument layout encodes (the
//! push-constant block, the grid, the specialized pipeline), cached per device and reused by
//! the next launch with the same layout, so a chain of repeated launches skips argument
//! encoding, specialization and the pipeline lookup.
//!
//! The key is everything the encoding reads: the kernel, the launch shape the autotuner
//! gave (a simple kernel's), the domain, the tile shape, the call's specialization words,
//! and per argument its kind, element type, writability, extent,
//! offset and strides (buffers), type and bits (scalars) or bytes (values). Equal keys encode
//! to equal plans, and a key was checked (argument types, ranks, limits) when its plan was
//! built. Launches with textures or samplers are not cached (their launches are few).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex, Weak};

use super::cache::AddressHasher;
use super::call::{Arg, KernelArg, Tiling};
use super::pipeline::Pipeline;
use crate::device::{Device, DeviceState, LaunchShape};
use crate::kernel::{ElemType, KernelInfo};
use crate::sync::lock;
use crate::Error;

/// The encoded part of a launch.
pub(super) struct LaunchPlan {
    /// The push-constant block.
    pub(super) push: Vec<u8>,
    /// Workgroups per dimension.
    pub(super) groups: [u32; 3],
    /// The specialized pipeline.
    pub(super) pipeline: Arc<Pipeline>,
}

/// What a plan is looked up by (see the module docs).
#[derive(Clone, Default, PartialEq, Eq)]
struct Key {
    words: Vec<u64>,
    types: Vec<ElemType>,
}

/// Plans kept per kernel (the most recent layouts).
const PLANS_PER_KERNEL: usize = 8;

/// The plans of one kernel: each layout's key with its plan, oldest first.
type KernelPlans = Vec<(Key, Arc<LaunchPlan>)>;

/// A device's launch plans (its [`DeviceState`]), by the address of their kernel's
/// [`KernelInfo`]. The pipelines stay owned (and destroyed) by the pipeline cache.
#[derive(Default)]
struct Plans(Mutex<HashMap<usize, KernelPlans, BuildHasherDefault<AddressHasher>>>);

impl DeviceState for Plans {}

/// The plan a thread launched last, found again without the device's lock and map (a chain
/// of launches of one kernel repeats it).
struct Last {
    /// The device (held weakly: while the allocation lives no other device gets its address).
    device: Weak<Device>,
    /// The address of the kernel's [`KernelInfo`].
    info: usize,
    key: Key,
    plan: Arc<LaunchPlan>,
}

/// What a thread keeps between launches.
#[derive(Default)]
struct Scratch {
    /// The key being built (reused, so a lookup does not allocate).
    key: Key,
    /// The plan of the thread's last cached launch.
    last: Option<Last>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
    /// Plans built and reused by launches on this thread.
    static COUNTS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// The plans built and reused by launches made on the calling thread so far: `(built,
/// reused)`. For tests that check that a repeated launch reuses its plan.
#[doc(hidden)]
pub fn launch_plan_counts() -> (u64, u64) {
    COUNTS.with(Cell::get)
}

/// Where [`key_of`] writes a key's words and element types.
trait KeySink {
    fn word(&mut self, word: u64);
    fn ty(&mut self, ty: ElemType);
    fn words(&mut self, words: impl Iterator<Item = u64>) {
        words.for_each(|w| self.word(w));
    }
}

impl KeySink for Key {
    fn word(&mut self, word: u64) {
        self.words.push(word);
    }
    fn ty(&mut self, ty: ElemType) {
        self.types.push(ty);
    }
    fn words(&mut self, words: impl Iterator<Item = u64>) {
        self.words.extend(words);
    }
}

/// Compares a launch's key with a built one as [`key_of`] goes, without writing it (a chain
/// of launches with one layout never builds its key again).
struct Matches<'k> {
    key: &'k Key,
    /// Words and types compared so far.
    words: usize,
    types: usize,
    equal: bool,
}

impl<'k> Matches<'k> {
    fn new(key: &'k Key) -> Self {
        Matches {
            key,
            words: 0,
            types: 0,
            equal: true,
        }
    }

    /// Whether the whole key was equal to `key`.
    fn matched(&self) -> bool {
        self.equal && self.words == self.key.words.len() && self.types == self.key.types.len()
    }
}

impl KeySink for Matches<'_> {
    fn word(&mut self, word: u64) {
        self.equal &= self.key.words.get(self.words) == Some(&word);
        self.words += 1;
    }
    fn ty(&mut self, ty: ElemType) {
        self.equal &= self.key.types.get(self.types) == Some(&ty);
        self.types += 1;
    }
}

/// What a launch's plan is encoded from besides its kernel.
#[derive(Clone, Copy)]
pub(super) struct Layout<'a> {
    pub(super) args: &'a [KernelArg<'a>],
    pub(super) spec: &'a [u32],
    pub(super) domain: &'a [usize],
    pub(super) tiling: Option<&'a Tiling>,
    /// The launch shape the autotuner gave a simple kernel's launch.
    pub(super) shape: Option<LaunchShape>,
}

/// Writes the key of a launch into `key` (empty); `false` when such launches are not cached.
fn key_of(key: &mut impl KeySink, layout: &Layout<'_>) -> bool {
    let Layout {
        args,
        spec,
        domain,
        tiling,
        shape,
    } = *layout;
    key.word(shape.map_or(0, |s| {
        1 | u64::from(s.workgroup_size) << 8 | u64::from(s.items_per_thread) << 40
    }));
    key.word(domain.len() as u64);
    key.words(domain.iter().map(|&d| d as u64));
    match tiling {
        Some(t) => {
            key.word(t.tile.len() as u64 + 1);
            key.words(t.tile.iter().map(|&d| d as u64));
            key.word(u64::from(t.tile_static_bytes));
        }
        None => key.word(0),
    }
    key.word(spec.len() as u64);
    key.words(spec.iter().map(|&s| u64::from(s)));
    key.word(args.len() as u64);
    for arg in args {
        match &arg.0 {
            Arg::Buffer { buf, writable } => {
                let dims = buf.dims();
                key.word(1 | (u64::from(*writable) << 8) | ((dims.len() as u64) << 16));
                key.words(dims.iter().map(|&d| d as u64));
                key.word(buf.offset() as u64);
                if dims.len() > 1 {
                    key.words(buf.strides().into_iter().map(|s| s as u64));
                }
                key.ty(buf.elem());
            }
            Arg::Scalar { ty, bits } => {
                key.word(2);
                key.word(*bits);
                key.ty(ElemType::Scalar(*ty));
            }
            Arg::Value { elem, bytes } => {
                key.word(3 | ((bytes.len() as u64) << 8));
                key.words(bytes.iter().map(|&b| u64::from(b)));
                key.ty(*elem);
            }
            Arg::Texture { .. } | Arg::Sampler(_) => return false,
        }
    }
    true
}

/// The plan of a launch of `info` with `layout` on `device`: the cached one for
/// this layout, or one `build` makes (and checks) now and caches.
pub(super) fn plan_for(
    device: &Arc<Device>,
    info: &'static KernelInfo,
    layout: &Layout<'_>,
    build: impl FnOnce() -> Result<LaunchPlan, Error>,
) -> Result<Arc<LaunchPlan>, Error> {
    let count = |built: u64, reused: u64| {
        COUNTS.with(|c| {
            let (b, r) = c.get();
            c.set((b + built, r + reused));
        })
    };
    // The scratch is taken out while the plan is found or built, so nothing `build` or a
    // dropped plan does can meet a borrowed `RefCell` (a nested launch gets an empty one).
    let mut scratch = SCRATCH.with(RefCell::take);
    let plan = (|| {
        let Scratch { key, last } = &mut scratch;
        let id = info as *const KernelInfo as usize;
        if let Some(l) = last {
            if l.info == id && Weak::as_ptr(&l.device) == Arc::as_ptr(device) {
                let mut same = Matches::new(&l.key);
                if key_of(&mut same, layout) && same.matched() {
                    count(0, 1);
                    return Ok(l.plan.clone());
                }
            }
        }
        key.words.clear();
        key.types.clear();
        if !key_of(key, layout) {
            count(1, 0);
            return build().map(Arc::new);
        }
        let plans = device.state::<Plans>();
        let cached = lock(&plans.0)
            .get(&id)
            .and_then(|list| list.iter().find(|(k, _)| *k == *key))
            .map(|(_, plan)| plan.clone());
        let plan = match cached {
            Some(plan) => {
                count(0, 1);
                plan
            }
            None => {
                let plan = Arc::new(build()?);
                count(1, 0);
                let mut map = lock(&plans.0);
                let list = map.entry(id).or_default();
                if list.len() >= PLANS_PER_KERNEL {
                    list.remove(0);
                }
                list.push((key.clone(), plan.clone()));
                plan
            }
        };
        match last {
            // The key's buffers are reused (a chain alternating layouts does not allocate).
            Some(l) => {
                l.device = Arc::downgrade(device);
                l.info = id;
                l.key.words.clone_from(&key.words);
                l.key.types.clone_from(&key.types);
                l.plan = plan.clone();
            }
            None => {
                *last = Some(Last {
                    device: Arc::downgrade(device),
                    info: id,
                    key: key.clone(),
                    plan: plan.clone(),
                })
            }
        }
        Ok(plan)
    })();
    SCRATCH.with(|s| s.replace(scratch));
    plan
}
