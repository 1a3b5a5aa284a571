//! The data model against a model: random sequences of the data model's operations (views of
//! host data opened, written, read, synchronized and dropped; sections, reshapes and
//! read-only views derived from them; an array; launches reading and writing them; `copy`,
//! `set`, `data_mut`, `discard_data`, waits) run on the device under test and on a plain-Rust
//! model of what every host slice and the array must hold (proptest's state-machine testing).
//! The suite runs it in every mode (lavapipe, the simulated discrete GPU with deferred and
//! with waited launches, the native accelerator); `AMP_MODEL_CASES` sets the number of
//! sequences (default 128), for a long run.

use amp::prelude::*;
use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use crate::common::assert_validation_clean;

/// Elements per slot; a multiple of 8 (the 2-D reshape is `[N / 8, 8]`).
const N: usize = 48;
/// Host slots; slot `HOST` is the array.
const HOST: usize = 2;
const SLOTS: usize = HOST + 1;

#[kernel(amp)]
fn model_stamp(idx: Index<1>, out: ArrayViewMut<i32, 1>, base: i32) {
    out[idx] = base + idx[0] as i32;
}

#[kernel(amp)]
fn model_increment(idx: Index<1>, v: ArrayViewMut<i32, 1>) {
    v[idx] += 1;
}

#[kernel(amp)]
fn model_stamp2(idx: Index<2>, out: ArrayViewMut<i32, 2>) {
    out[idx] = 1000 + (idx[0] * 10 + idx[1]) as i32;
}

#[kernel(amp)]
fn model_copy(idx: Index<1>, src: ArrayView<i32, 1>, dst: ArrayViewMut<i32, 1>) {
    dst[idx] = src[idx];
}

/// One step of a sequence. Slots `0..HOST` are host slices (operations on them need an open
/// view), slot `HOST` is the array.
#[derive(Clone, Debug)]
enum Step {
    /// A writable view of host slot `s`; with `discard`, `discard_data` at once.
    Open { s: usize, discard: bool },
    /// Drop the view of host slot `s` (its family's last: the slice is synchronized).
    Close { s: usize },
    /// `out[i] = base + (i - lo)` for `i` in `lo..hi`, launched on a section.
    Stamp {
        s: usize,
        lo: usize,
        hi: usize,
        base: i32,
    },
    /// `v[i] += 1` for `i` in `lo..hi`, launched on a section.
    Increment { s: usize, lo: usize, hi: usize },
    /// The whole slot as `[N / 8, 8]` (`view_as_mut`), stamped with `1000 + 10 r + c`.
    Stamp2 { s: usize },
    /// `dst = src` by a kernel reading a read-only view of `src`.
    CopyKernel { src: usize, dst: usize },
    /// `dst = src` by `amp::copy`.
    CopyHost { src: usize, dst: usize },
    /// `synchronize` (host slots).
    Sync { s: usize },
    /// `to_vec` and one `get`, compared with the model.
    Read { s: usize, i: usize },
    /// `set(i, v)`.
    Set { s: usize, i: usize, v: i32 },
    /// `data_mut()[i] = v` (host slots).
    DataMut { s: usize, i: usize, v: i32 },
    /// Wait for the default view's work.
    Wait,
    /// Row `r` of the `[N / 8, 8]` reshape (`project_mut`) stamped with `base + c`.
    StampRow { s: usize, r: usize, base: i32 },
    /// `dst = src` by `amp::copy_async`, waited for.
    CopyAsync { src: usize, dst: usize },
    /// `synchronize_async`, waited for (host slots).
    SyncAsync { s: usize },
    /// The slot's bits through `reinterpret_as::<u32>()` and a read-only section, compared.
    ReadDerived { s: usize, lo: usize, hi: usize },
    /// The array's memory as a host slice (`as_slice`, where its access type and memory
    /// allow; otherwise a typed error), compared.
    ArraySlice,
}

/// What every slot holds: `None` where the value is unspecified (after `discard_data`, until
/// written).
#[derive(Clone, Debug)]
struct Model {
    /// The array's access type.
    access: AccessType,
    /// Per slot, the values a reader sees.
    values: Vec<Vec<Option<i32>>>,
    /// Per host slot, whether a view of it is open.
    open: [bool; HOST],
}

fn initial(s: usize) -> Vec<Option<i32>> {
    (0..N).map(|i| Some((s * 100 + i) as i32)).collect()
}

/// Whether slot `s` can take a view operation now.
fn live(m: &Model, s: usize) -> bool {
    s == HOST || m.open[s]
}

struct DataModel;

impl ReferenceStateMachine for DataModel {
    type State = Model;
    type Transition = Step;

    fn init_state() -> BoxedStrategy<Model> {
        prop_oneof![
            Just(AccessType::Auto),
            Just(AccessType::None),
            Just(AccessType::Read),
            Just(AccessType::Write),
            Just(AccessType::ReadWrite),
        ]
        .prop_map(|access| Model {
            access,
            values: (0..SLOTS).map(initial).collect(),
            open: [false; HOST],
        })
        .boxed()
    }

    fn transitions(m: &Model) -> BoxedStrategy<Step> {
        // Only steps whose preconditions hold now (so none is drawn and rejected).
        let live: Vec<usize> = (0..SLOTS).filter(|&s| live(m, s)).collect();
        let open: Vec<usize> = (0..HOST).filter(|&s| m.open[s]).collect();
        let closed: Vec<usize> = (0..HOST).filter(|&s| !m.open[s]).collect();
        let pairs: Vec<(usize, usize)> = live
            .iter()
            .flat_map(|&a| live.iter().map(move |&b| (a, b)))
            .filter(|(a, b)| a != b)
            .collect();
        let range = (0..N, 0..=N).prop_map(|(a, b)| (a.min(b), a.max(b)));
        let slot = proptest::sample::select(live);
        let mut steps: Vec<(u32, BoxedStrategy<Step>)> = vec![
            (
                3,
                (slot.clone(), range.clone(), -50..50i32)
                    .prop_map(|(s, (lo, hi), base)| Step::Stamp { s, lo, hi, base })
                    .boxed(),
            ),
            (
                3,
                (slot.clone(), range.clone())
                    .prop_map(|(s, (lo, hi))| Step::Increment { s, lo, hi })
                    .boxed(),
            ),
            (1, slot.clone().prop_map(|s| Step::Stamp2 { s }).boxed()),
            (
                1,
                (slot.clone(), 0..N / 8, -50..50i32)
                    .prop_map(|(s, r, base)| Step::StampRow { s, r, base })
                    .boxed(),
            ),
            (
                3,
                (slot.clone(), 0..N)
                    .prop_map(|(s, i)| Step::Read { s, i })
                    .boxed(),
            ),
            (
                2,
                (slot.clone(), range)
                    .prop_map(|(s, (lo, hi))| Step::ReadDerived { s, lo, hi })
                    .boxed(),
            ),
            (
                1,
                (slot, 0..N, -9..9i32)
                    .prop_map(|(s, i, v)| Step::Set { s, i, v })
                    .boxed(),
            ),
            (1, Just(Step::ArraySlice).boxed()),
            (1, Just(Step::Wait).boxed()),
        ];
        if !closed.is_empty() {
            steps.push((
                3,
                (proptest::sample::select(closed), any::<bool>())
                    .prop_map(|(s, discard)| Step::Open { s, discard })
                    .boxed(),
            ));
        }
        if !open.is_empty() {
            let open = proptest::sample::select(open);
            steps.push((2, open.clone().prop_map(|s| Step::Close { s }).boxed()));
            steps.push((1, open.clone().prop_map(|s| Step::Sync { s }).boxed()));
            steps.push((1, open.clone().prop_map(|s| Step::SyncAsync { s }).boxed()));
            steps.push((
                1,
                (open, 0..N, -9..9i32)
                    .prop_map(|(s, i, v)| Step::DataMut { s, i, v })
                    .boxed(),
            ));
        }
        if !pairs.is_empty() {
            let pair = proptest::sample::select(pairs);
            steps.push((
                2,
                pair.clone()
                    .prop_map(|(src, dst)| Step::CopyKernel { src, dst })
                    .boxed(),
            ));
            steps.push((
                1,
                pair.clone()
                    .prop_map(|(src, dst)| Step::CopyHost { src, dst })
                    .boxed(),
            ));
            steps.push((
                1,
                pair.prop_map(|(src, dst)| Step::CopyAsync { src, dst })
                    .boxed(),
            ));
        }
        proptest::strategy::Union::new_weighted(steps).boxed()
    }

    fn preconditions(m: &Model, step: &Step) -> bool {
        match *step {
            Step::Open { s, .. } => !m.open[s],
            Step::Close { s }
            | Step::Sync { s }
            | Step::SyncAsync { s }
            | Step::DataMut { s, .. } => m.open[s],
            Step::StampRow { s, .. } | Step::ReadDerived { s, .. } => live(m, s),
            Step::CopyAsync { src, dst } => src != dst && live(m, src) && live(m, dst),
            Step::ArraySlice => true,
            Step::Stamp { s, .. }
            | Step::Increment { s, .. }
            | Step::Stamp2 { s }
            | Step::Read { s, .. }
            | Step::Set { s, .. } => live(m, s),
            Step::CopyKernel { src, dst } | Step::CopyHost { src, dst } => {
                src != dst && live(m, src) && live(m, dst)
            }
            Step::Wait => true,
        }
    }

    fn apply(mut m: Model, step: &Step) -> Model {
        match *step {
            Step::Open { s, discard } => {
                m.open[s] = true;
                if discard {
                    m.values[s] = vec![None; N];
                }
            }
            Step::Close { s } => m.open[s] = false,
            Step::Stamp { s, lo, hi, base } => {
                for i in lo..hi {
                    m.values[s][i] = Some(base + (i - lo) as i32);
                }
            }
            Step::Increment { s, lo, hi } => {
                for v in &mut m.values[s][lo..hi] {
                    *v = v.map(|x| x + 1);
                }
            }
            Step::Stamp2 { s } => {
                for (i, v) in m.values[s].iter_mut().enumerate() {
                    *v = Some(1000 + ((i / 8) * 10 + i % 8) as i32);
                }
            }
            Step::CopyKernel { src, dst }
            | Step::CopyHost { src, dst }
            | Step::CopyAsync { src, dst } => {
                m.values[dst] = m.values[src].clone();
            }
            Step::StampRow { s, r, base } => {
                for c in 0..8 {
                    m.values[s][r * 8 + c] = Some(base + c as i32);
                }
            }
            Step::Set { s, i, v } | Step::DataMut { s, i, v } => m.values[s][i] = Some(v),
            Step::Sync { .. }
            | Step::SyncAsync { .. }
            | Step::Read { .. }
            | Step::ReadDerived { .. }
            | Step::ArraySlice
            | Step::Wait => {}
        }
        m
    }
}

/// A host slot: its slice (leaked for the sequence, so views of it can live in the state) and
/// the open view, if any.
struct HostSlot {
    data: *mut i32,
    view: Option<ArrayViewMut<'static, i32, 1>>,
}

struct Sut {
    host: Vec<HostSlot>,
    array: Array<i32, 1>,
}

impl Sut {
    /// The slice of host slot `s`, once no view of it is open.
    fn slice(&self, s: usize) -> &[i32] {
        assert!(self.host[s].view.is_none());
        // SAFETY: `data` is the slot's leaked `N`-element allocation, and no view (the only
        // other user of it) is open.
        unsafe { std::slice::from_raw_parts(self.host[s].data, N) }
    }

    /// A writable view of slot `s` (the open view's whole extent, or the array's).
    fn with_view<R>(
        &mut self,
        s: usize,
        f: impl FnOnce(&mut ArrayViewMut<'_, i32, 1>) -> Result<R, amp::Error>,
    ) -> R {
        let r = if s == HOST {
            f(&mut self.array.view_mut())
        } else {
            f(self.host[s].view.as_mut().expect("an open view"))
        };
        r.unwrap_or_else(|e| panic!("slot {s}: {e}"))
    }

    /// Slot `s`'s values through its view.
    fn read(&mut self, s: usize) -> Vec<i32> {
        self.with_view(s, |v| v.to_vec())
    }
}

/// The defined values of `want` against `got`.
fn check(what: &str, got: &[i32], want: &[Option<i32>]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if let Some(w) = w {
            assert_eq!(g, w, "{what}: element {i}");
        }
    }
}

struct DataModelTest;

/// The view the model's launches run on and its waits wait for: its own, so that a wait never
/// returns the error of another test's launch (tests of this binary run at the same time, and
/// an error is returned by the first wait of the view it was launched on).
fn model_view() -> &'static AcceleratorView {
    static VIEW: std::sync::OnceLock<AcceleratorView> = std::sync::OnceLock::new();
    VIEW.get_or_init(|| {
        Accelerator::default()
            .and_then(|a| a.create_view())
            .expect("a view of the default accelerator")
    })
}

impl StateMachineTest for DataModelTest {
    type SystemUnderTest = Sut;
    type Reference = DataModel;

    fn init_test(model: &Model) -> Sut {
        let host = (0..HOST)
            .map(|s| {
                let init: Vec<i32> = initial(s).into_iter().map(Option::unwrap).collect();
                HostSlot {
                    data: Box::leak(init.into_boxed_slice()).as_mut_ptr(),
                    view: None,
                }
            })
            .collect();
        let init: Vec<i32> = initial(HOST).into_iter().map(Option::unwrap).collect();
        let acc = Accelerator::default().expect("an accelerator");
        let mut array = Array::new_with_access(&acc, [N], model.access).expect("an array");
        array.copy_from_slice(&init).expect("the array's data");
        Sut { host, array }
    }

    fn apply(mut sut: Sut, model: &Model, step: Step) -> Sut {
        match step {
            Step::Open { s, discard } => {
                // SAFETY: the slot's leaked allocation, borrowed by this view alone until it
                // closes (the model opens one view per slot at a time).
                let data: &'static mut [i32] =
                    unsafe { std::slice::from_raw_parts_mut(sut.host[s].data, N) };
                let mut view = ArrayViewMut::new([N], data).expect("a view");
                if discard {
                    view.discard_data();
                }
                sut.host[s].view = Some(view);
            }
            Step::Close { s } => {
                drop(sut.host[s].view.take());
                check(
                    &format!("slot {s} after its view closed"),
                    sut.slice(s),
                    &model.values[s],
                );
            }
            Step::Stamp { s, lo, hi, base } => sut.with_view(s, |v| {
                let mut section = v.section_mut([lo], [hi - lo])?;
                parallel_for_each_on(
                    model_view(),
                    section.extent(),
                    model_stamp(&mut section, base),
                )
            }),
            Step::Increment { s, lo, hi } => sut.with_view(s, |v| {
                let mut section = v.section_mut([lo], [hi - lo])?;
                parallel_for_each_on(
                    model_view(),
                    section.extent(),
                    model_increment(&mut section),
                )
            }),
            Step::Stamp2 { s } => sut.with_view(s, |v| {
                let mut grid = v.view_as_mut([N / 8, 8])?;
                parallel_for_each_on(model_view(), grid.extent(), model_stamp2(&mut grid))
            }),
            Step::CopyKernel { src, dst } => with_two(&mut sut, src, dst, |a, b| {
                parallel_for_each_on(model_view(), b.extent(), model_copy(a, b))
            }),
            Step::CopyHost { src, dst } => with_two(&mut sut, src, dst, |a, b| amp::copy(a, b)),
            Step::Sync { s } => sut.with_view(s, |v| v.synchronize()),
            Step::Read { s, i } => {
                let got = sut.read(s);
                check(&format!("slot {s}, to_vec"), &got, &model.values[s]);
                let one = sut.with_view(s, |v| v.get([i]));
                if let Some(w) = model.values[s][i] {
                    assert_eq!(one, Some(w), "slot {s}, get({i})");
                }
            }
            Step::Set { s, i, v } => sut.with_view(s, |view| view.set([i], v)),
            Step::DataMut { s, i, v } => sut.with_view(s, |view| {
                view.data_mut()?[i] = v;
                Ok(())
            }),
            Step::StampRow { s, r, base } => sut.with_view(s, |v| {
                let mut grid = v.view_as_mut([N / 8, 8])?;
                let mut row = grid.project_mut(r)?;
                parallel_for_each_on(model_view(), row.extent(), model_stamp(&mut row, base))
            }),
            Step::CopyAsync { src, dst } => {
                with_two(&mut sut, src, dst, |a, b| amp::copy_async(a, b)?.wait())
            }
            Step::SyncAsync { s } => sut.with_view(s, |v| v.synchronize_async()?.wait()),
            Step::ReadDerived { s, lo, hi } => {
                let (bits, part) = sut.with_view(s, |v| {
                    let bits = v.as_view().reinterpret_as::<u32>()?.to_vec()?;
                    let part = v.as_view().section([lo], [hi - lo])?.to_vec()?;
                    Ok((bits, part))
                });
                let bits: Vec<i32> = bits.into_iter().map(|b| b as i32).collect();
                check(&format!("slot {s}, reinterpreted"), &bits, &model.values[s]);
                check(
                    &format!("slot {s}, section"),
                    &part,
                    &model.values[s][lo..hi],
                );
            }
            Step::ArraySlice => match sut.array.as_slice() {
                Ok(slice) => check("the array, as_slice", slice, &model.values[HOST]),
                Err(amp::Error::NotHostAccessible { .. }) => {}
                Err(e) => panic!("the array's as_slice: {e}"),
            },
            Step::Wait => model_view().wait().expect("a wait"),
        }
        sut
    }

    fn teardown(mut sut: Sut, _: Model) {
        for s in 0..HOST {
            drop(sut.host[s].view.take());
            // SAFETY: the slot's leaked allocation of `N` elements, no view open any more.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(sut.host[s].data, N)) });
        }
        assert_validation_clean();
    }
}

/// `f` of a read-only view of slot `src` and the writable view of slot `dst` (two slots).
fn with_two<R>(
    sut: &mut Sut,
    src: usize,
    dst: usize,
    f: impl FnOnce(&ArrayView<'_, i32, 1>, &mut ArrayViewMut<'_, i32, 1>) -> Result<R, amp::Error>,
) -> R {
    let Sut { host, array } = sut;
    let open = "an open view";
    let r = match (src == HOST, dst == HOST) {
        (true, false) => f(&array.view(), host[dst].view.as_mut().expect(open)),
        (false, true) => f(
            &host[src].view.as_ref().expect(open).as_view(),
            &mut array.view_mut(),
        ),
        (false, false) => {
            let (a, b) = if src < dst {
                let (x, y) = host.split_at_mut(dst);
                (&x[src], &mut y[0])
            } else {
                let (x, y) = host.split_at_mut(src);
                (&y[0], &mut x[dst])
            };
            f(
                &a.view.as_ref().expect(open).as_view(),
                b.view.as_mut().expect(open),
            )
        }
        (true, true) => unreachable!("the model copies between two slots"),
    };
    r.unwrap_or_else(|e| panic!("copy {src} -> {dst}: {e}"))
}

/// The number of sequences per run: `AMP_MODEL_CASES`, or 128.
fn cases() -> u32 {
    std::env::var("AMP_MODEL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128)
}

prop_state_machine! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        // Shrinking may still meet a step whose precondition no longer holds.
        max_local_rejects: u32::MAX,
        .. ProptestConfig::default()
    })]

    #[test]
    fn the_data_model_matches_its_model(sequential 1..32 => DataModelTest);
}
