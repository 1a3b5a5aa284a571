//! Autotuning of simple kernels' launch shapes on a Vulkan device, as CubeCL tunes its
//! kernels: per kernel, specialization and size class (the power of two at or below the
//! launch's number of indices, from [`MIN_TUNED_INDICES`] up), the first launches try a small
//! set of shapes, the device's default first, each [`TRIES_PER_SHAPE`] times in turn, timed by
//! two device timestamps around the dispatch. Once every try's time is in, the shape whose
//! shortest try was the shortest runs every later launch of that key.
//!
//! The tries are the program's own launches, not extra ones: every shape computes the same
//! results (a simple kernel's threads do not communicate, and a grid-stride loop runs each
//! index once), so nothing runs twice and no argument is copied. A program that launches a
//! kernel once runs the default shape. A try whose batch never finishes (a lost device) is
//! tried again by a later launch.
//!
//! Choices are kept beside the pipeline cache (`AMP_PIPELINE_CACHE`), one text file per device
//! model and driver, so a program's next run starts with them. `AMP_AUTOTUNE=0` turns tuning
//! off, and so does a shape set by hand (`AMP_WORKGROUP_SIZE`, `AMP_ITEMS_PER_THREAD`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::LaunchShape;
use crate::sync::lock;

/// The fewest indices a launch must have to be tuned: smaller launches last microseconds on a
/// GPU, where the shape matters less than the launch itself.
pub(crate) const MIN_TUNED_INDICES: u64 = 1 << 20;

/// Timed launches of each shape before a choice: the shorter of them counts, so that one
/// slow launch (a busy machine, a first dispatch) does not decide.
pub(crate) const TRIES_PER_SHAPE: u8 = 2;

/// One shape the tuner tried for a kernel, and the shortest device time of its tries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeTime {
    /// The shape.
    pub shape: LaunchShape,
    /// The shortest of its tries, in seconds; `None` until every try was measured.
    pub seconds: Option<f64>,
}

/// What the tuner chose (or is choosing) for one kernel and size class, from
/// [`Accelerator::tuned_shapes`](crate::Accelerator::tuned_shapes).
#[derive(Clone, Debug, PartialEq)]
pub struct TunedShape {
    /// The kernel's name.
    pub kernel: String,
    /// The size class: launches of at least this many indices and fewer than twice as many.
    pub indices: u64,
    /// The shape its launches run; `None` while its tries run.
    pub chosen: Option<LaunchShape>,
    /// The shapes tried, in the order they were tried; empty for a choice read from the
    /// tuning file of an earlier run.
    pub tried: Vec<ShapeTime>,
    /// Whether the choice was read from the tuning file of an earlier run.
    pub from_file: bool,
    /// Timed tries still to finish before a choice is made (0 once it is).
    pub tries_left: u32,
}

/// A launch to tune: its kernel, specialization and size.
pub(crate) struct TuneRequest<'a> {
    /// The address of the kernel's `KernelInfo` (the same for every launch of the kernel).
    pub(crate) id: usize,
    pub(crate) name: &'static str,
    /// The kernel module's hash, stable across builds (the tuning file's key).
    pub(crate) module: u64,
    /// The launch's specialization words.
    pub(crate) spec: &'a [u32],
    pub(crate) indices: u64,
    /// Whether the kernel runs at one index per thread here (a device with a loop limit
    /// runs kernels that have loops so).
    pub(crate) one_index: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    id: usize,
    spec: u64,
    class: u8,
}

/// The key of a choice in the tuning file: the kernel's name and module hash, the hash of its
/// specialization words and its size class.
type FileKey = (String, u64, u64, u8);

/// One shape being tried.
struct Try {
    shape: LaunchShape,
    /// Launches that ran it and were not lost.
    launched: u8,
    /// The device times of those that finished.
    seconds: Vec<f64>,
}

impl Try {
    fn shortest(&self) -> Option<f64> {
        (self.seconds.len() >= usize::from(TRIES_PER_SHAPE))
            .then(|| self.seconds.iter().copied().fold(f64::INFINITY, f64::min))
    }
}

struct Entry {
    name: &'static str,
    file_key: FileKey,
    tries: Vec<Try>,
    chosen: Option<LaunchShape>,
    from_file: bool,
}

impl Entry {
    /// The entry of a launch's key: the candidates it runs (one index each for `one_index`
    /// kernels, so that shapes differing only in indices are one), chosen at once when a
    /// tuning file has its choice or only one shape is left.
    fn new(
        request: &TuneRequest<'_>,
        key: Key,
        candidates: &[LaunchShape],
        saved: &HashMap<FileKey, LaunchShape>,
    ) -> Entry {
        let file_key = (request.name.to_owned(), request.module, key.spec, key.class);
        let mut tries: Vec<Try> = Vec::new();
        for &c in candidates {
            let items_per_thread = if request.one_index {
                1
            } else {
                c.items_per_thread
            };
            let shape = LaunchShape {
                items_per_thread,
                ..c
            };
            if !tries.iter().any(|t| t.shape == shape) {
                tries.push(Try {
                    shape,
                    launched: 0,
                    seconds: Vec::new(),
                });
            }
        }
        let from_file = saved
            .get(&file_key)
            .copied()
            .filter(|s| tries.iter().any(|t| t.shape == *s));
        Entry {
            name: request.name,
            chosen: from_file.or((tries.len() == 1).then(|| tries[0].shape)),
            from_file: from_file.is_some(),
            file_key,
            tries,
        }
    }
}

#[derive(Default)]
struct State {
    entries: HashMap<Key, Entry>,
    /// Choices of earlier runs, from the tuning file, and the ones made since.
    saved: HashMap<FileKey, LaunchShape>,
}

/// A device's tuner (see the module docs).
pub(crate) struct Autotuner {
    /// Whether launches are tuned here at all.
    on: bool,
    /// The shapes tried, the default first.
    candidates: Vec<LaunchShape>,
    /// The tuning file; `None` keeps choices for the process only.
    file: Option<PathBuf>,
    state: Mutex<State>,
}

/// A timed try of one shape, handed back to the tuner with its time once its batch finished;
/// dropped without a time (its batch failed), the try is run again by a later launch.
pub(crate) struct TuneSample {
    tuner: Arc<Autotuner>,
    key: Key,
    index: usize,
    done: bool,
}

impl TuneSample {
    /// The try took `seconds` on the device.
    pub(crate) fn finished(mut self, seconds: f64) {
        self.done = true;
        self.tuner.finished(self.key, self.index, seconds);
    }
}

impl Drop for TuneSample {
    fn drop(&mut self) {
        if !self.done {
            self.tuner.lost(self.key, self.index);
        }
    }
}

/// FNV-1a over 32-bit words: stable across builds and platforms (the file's keys).
fn fnv(words: &[u32]) -> u64 {
    words.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
        w.to_le_bytes()
            .iter()
            .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    })
}

impl Autotuner {
    /// A tuner trying `candidates` (the default shape first), `on` or not, keeping its choices
    /// in `file`.
    pub(crate) fn new(on: bool, candidates: Vec<LaunchShape>, file: Option<PathBuf>) -> Self {
        let saved = match (&file, on) {
            (Some(f), true) => std::fs::read_to_string(f)
                .map(|text| parse(&text))
                .unwrap_or_default(),
            _ => HashMap::new(),
        };
        Autotuner {
            on: on && candidates.len() > 1,
            candidates,
            file,
            state: Mutex::new(State {
                entries: HashMap::new(),
                saved,
            }),
        }
    }

    /// The shape a launch runs, and the try to time when it is one; `None` when the launch is
    /// not tuned (it runs the device's shape).
    pub(crate) fn shape_for(
        self: &Arc<Self>,
        request: &TuneRequest<'_>,
    ) -> Option<(LaunchShape, Option<TuneSample>)> {
        if !self.on || request.indices < MIN_TUNED_INDICES {
            return None;
        }
        let class = request.indices.ilog2() as u8;
        let key = Key {
            id: request.id,
            spec: fnv(request.spec),
            class,
        };
        let mut state = lock(&self.state);
        let State { entries, saved } = &mut *state;
        let entry = entries
            .entry(key)
            .or_insert_with(|| Entry::new(request, key, &self.candidates, saved));
        if let Some(shape) = entry.chosen {
            return Some((shape, None));
        }
        // The shape tried least so far, the earliest of those: the shapes take turns, so a
        // change in the machine's load falls on all of them.
        let next = entry
            .tries
            .iter()
            .enumerate()
            .filter(|(_, t)| t.launched < TRIES_PER_SHAPE)
            .min_by_key(|(_, t)| t.launched)
            .map(|(i, _)| i);
        Some(match next {
            Some(index) => {
                entry.tries[index].launched += 1;
                let sample = TuneSample {
                    tuner: self.clone(),
                    key,
                    index,
                    done: false,
                };
                (entry.tries[index].shape, Some(sample))
            }
            // Every try is launched; their times are not all in yet.
            None => (entry.tries[0].shape, None),
        })
    }

    fn finished(&self, key: Key, index: usize, seconds: f64) {
        let mut state = lock(&self.state);
        let State { entries, saved } = &mut *state;
        let Some(entry) = entries.get_mut(&key) else {
            return;
        };
        if entry.chosen.is_some() {
            return;
        }
        entry.tries[index].seconds.push(seconds);
        let times: Option<Vec<f64>> = entry.tries.iter().map(Try::shortest).collect();
        let Some(times) = times else {
            return;
        };
        let best = (0..times.len())
            .min_by(|&a, &b| times[a].total_cmp(&times[b]))
            .expect("a tuned entry has tries");
        let shape = entry.tries[best].shape;
        entry.chosen = Some(shape);
        tracing::info!(
            kernel = entry.name,
            indices = 1u64 << key.class,
            workgroup_size = shape.workgroup_size,
            items_per_thread = shape.items_per_thread,
            seconds = times[best],
            default_seconds = times[0],
            "launch shape tuned"
        );
        saved.insert(entry.file_key.clone(), shape);
        if let Some(file) = &self.file {
            // A file that cannot be written leaves the choice to this process.
            let _ = save(file, saved);
        }
    }

    fn lost(&self, key: Key, index: usize) {
        if let Some(entry) = lock(&self.state).entries.get_mut(&key) {
            let t = &mut entry.tries[index];
            t.launched = t.launched.saturating_sub(1);
        }
    }

    /// What the tuner chose or is choosing, by kernel name and size class.
    pub(crate) fn report(&self) -> Vec<TunedShape> {
        let state = lock(&self.state);
        let mut out: Vec<TunedShape> = state
            .entries
            .iter()
            .map(|(key, e)| TunedShape {
                kernel: e.name.to_owned(),
                indices: 1 << key.class,
                chosen: e.chosen,
                tried: if e.from_file {
                    Vec::new()
                } else {
                    e.tries
                        .iter()
                        .map(|t| ShapeTime {
                            shape: t.shape,
                            seconds: t.shortest(),
                        })
                        .collect()
                },
                from_file: e.from_file,
                tries_left: if e.chosen.is_some() {
                    0
                } else {
                    e.tries
                        .iter()
                        .map(|t| u32::from(TRIES_PER_SHAPE).saturating_sub(t.seconds.len() as u32))
                        .sum()
                },
            })
            .collect();
        out.sort_by(|a, b| (&a.kernel, a.indices).cmp(&(&b.kernel, b.indices)));
        out
    }
}

/// The first line of a tuning file; a file without it is ignored.
const HEADER: &str = "# amp-rs launch shapes 1: kernel module spec size-class workgroup items";

/// The choices in a tuning file's text (lines it cannot read are skipped).
fn parse(text: &str) -> HashMap<FileKey, LaunchShape> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return HashMap::new();
    }
    lines
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [name, module, spec, class, wg, items] = f[..] else {
                return None;
            };
            let key = (
                name.to_owned(),
                u64::from_str_radix(module, 16).ok()?,
                u64::from_str_radix(spec, 16).ok()?,
                class.parse().ok()?,
            );
            let shape = LaunchShape {
                workgroup_size: wg.parse().ok()?,
                items_per_thread: items.parse().ok()?,
            };
            Some((key, shape))
        })
        .collect()
}

/// A tuning file's text for `saved`, sorted so that equal choices give equal files.
fn render(saved: &HashMap<FileKey, LaunchShape>) -> String {
    let mut lines: Vec<String> = saved
        .iter()
        .map(|((name, module, spec, class), s)| {
            format!(
                "{name} {module:016x} {spec:016x} {class} {} {}",
                s.workgroup_size, s.items_per_thread
            )
        })
        .collect();
    lines.sort();
    let mut text = String::from(HEADER);
    for line in lines {
        text.push('\n');
        text.push_str(&line);
    }
    text.push('\n');
    text
}

/// Writes the tuning file atomically (a temporary file renamed over it).
fn save(file: &std::path::Path, saved: &HashMap<FileKey, LaunchShape>) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // A name of this writer's own: two devices of one model in a process share the file.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = file.with_extension(format!("tmp{}-{n}", std::process::id()));
    std::fs::write(&tmp, render(saved))?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(workgroup_size: u32, items_per_thread: u32) -> LaunchShape {
        LaunchShape {
            workgroup_size,
            items_per_thread,
        }
    }

    fn request(indices: u64, one_index: bool) -> TuneRequest<'static> {
        TuneRequest {
            id: 1,
            name: "k",
            module: 7,
            spec: &[],
            indices,
            one_index,
        }
    }

    fn tuner(file: Option<PathBuf>) -> Arc<Autotuner> {
        let candidates = vec![shape(64, 4), shape(64, 1), shape(128, 4)];
        Arc::new(Autotuner::new(true, candidates, file))
    }

    #[test]
    fn small_launches_and_a_tuner_that_is_off_run_the_default() {
        let t = tuner(None);
        assert!(t
            .shape_for(&request(MIN_TUNED_INDICES - 1, false))
            .is_none());
        let off = Arc::new(Autotuner::new(
            false,
            vec![shape(64, 4), shape(32, 1)],
            None,
        ));
        assert!(off.shape_for(&request(MIN_TUNED_INDICES, false)).is_none());
    }

    #[test]
    fn shapes_take_turns_and_the_fastest_is_kept() {
        let t = tuner(None);
        let r = request(3 << 20, false);
        let mut order = Vec::new();
        let mut samples = Vec::new();
        for _ in 0..6 {
            let (s, sample) = t.shape_for(&r).unwrap();
            order.push(s);
            samples.push(sample.expect("a try"));
        }
        let expected: Vec<LaunchShape> = [shape(64, 4), shape(64, 1), shape(128, 4)]
            .into_iter()
            .cycle()
            .take(6)
            .collect();
        assert_eq!(order, expected);
        // All launched, none measured: the default runs meanwhile, untimed.
        assert!(matches!(t.shape_for(&r), Some((s, None)) if s == shape(64, 4)));
        for (i, sample) in samples.into_iter().enumerate() {
            let seconds = match i % 3 {
                0 => 3.0,
                1 => 2.0 + i as f64,
                _ => 2.5,
            };
            sample.finished(seconds);
        }
        // 64 x 1 took 3 s at best (2 + 1), 128 x 4 2.5 s, the default 3 s.
        assert!(matches!(t.shape_for(&r), Some((s, None)) if s == shape(128, 4)));
        let report = t.report();
        assert_eq!(report.len(), 1);
        assert_eq!(report[0].chosen, Some(shape(128, 4)));
        assert_eq!(report[0].indices, 2 << 20);
        assert_eq!(report[0].tried[2].seconds, Some(2.5));
    }

    #[test]
    fn a_lost_try_runs_again_and_one_index_kernels_try_workgroup_sizes_only() {
        let t = tuner(None);
        let r = request(MIN_TUNED_INDICES, true);
        let (first, sample) = t.shape_for(&r).unwrap();
        assert_eq!(first, shape(64, 1));
        drop(sample);
        let (again, _sample) = t.shape_for(&r).unwrap();
        assert_eq!(again, shape(64, 1));
        assert_eq!(t.report()[0].tried.len(), 2, "64 x 1 and 128 x 1");
    }

    #[test]
    fn choices_are_kept_in_the_file_and_read_back() {
        let dir = std::env::temp_dir().join(format!("amp-autotune-{}", std::process::id()));
        let file = dir.join("autotune.txt");
        let t = tuner(Some(file.clone()));
        let r = request(MIN_TUNED_INDICES, false);
        let samples: Vec<_> = (0..6)
            .map(|_| t.shape_for(&r).unwrap().1.unwrap())
            .collect();
        for (i, s) in samples.into_iter().enumerate() {
            s.finished(if i % 3 == 1 { 1.0 } else { 2.0 });
        }
        let again = tuner(Some(file.clone()));
        assert!(matches!(again.shape_for(&r), Some((s, None)) if s == shape(64, 1)));
        assert!(again.report()[0].from_file);
        // A file from something else is ignored.
        std::fs::write(&file, "64 1\n").unwrap();
        assert!(parse(&std::fs::read_to_string(&file).unwrap()).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_file_text_round_trips() {
        let mut saved = HashMap::new();
        saved.insert(("add".to_owned(), 0xabc, 0x1, 21), shape(256, 8));
        saved.insert(("copy".to_owned(), 0xdef, 0x2, 28), shape(512, 1));
        assert_eq!(parse(&render(&saved)), saved);
    }
}
