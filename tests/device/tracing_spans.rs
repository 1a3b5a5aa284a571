//! Instrumentation: with a `tracing` subscriber installed, a launch, its transfers and a wait
//! are spans named `launch`, `upload`, `download` and `wait`, with the kernel, the extent, the
//! bytes and the device as fields (docs/tracing.md). The subscriber here is a small recorder
//! installed for one thread only. The test runs in a child process of its own: `tracing`
//! caches each span site's interest process-wide, and a site first reached by another test's
//! thread while the only subscriber is a thread's scoped one is cached as uninteresting there.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span as the recorder saw it: its name and its fields, formatted.
#[derive(Debug, Clone)]
struct Seen {
    name: &'static str,
    fields: BTreeMap<&'static str, String>,
}

/// Records every span created while it is the thread's default subscriber.
#[derive(Clone, Default)]
struct Recorder {
    spans: Arc<Mutex<Vec<Seen>>>,
    /// The events' fields (`message` among them).
    events: Arc<Mutex<Vec<BTreeMap<&'static str, String>>>>,
    next: Arc<AtomicU64>,
}

struct Fields<'a>(&'a mut BTreeMap<&'static str, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        span.record(&mut Fields(&mut fields));
        self.spans.lock().unwrap().push(Seen {
            name: span.metadata().name(),
            fields,
        });
        Id::from_u64(self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.events.lock().unwrap().push(fields);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[kernel(amp)]
fn traced_double(idx: Index<1>, a: &Array<u32, 1>, b: &mut Array<u32, 1>) {
    b[idx] = a[idx] * 2;
}

#[kernel(amp)]
fn traced_copy(idx: Index<1>, a: &Array<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = a[idx];
}

fn find<'a>(spans: &'a [Seen], name: &str) -> Vec<&'a Seen> {
    spans.iter().filter(|s| s.name == name).collect()
}

#[test]
fn a_launch_its_transfers_and_a_wait_are_spans_with_fields() -> Result<(), amp::Error> {
    const NAME: &str = "tracing_spans::a_launch_its_transfers_and_a_wait_are_spans_with_fields";
    if !common::in_child(NAME) {
        common::run_child(NAME, &[], &[]);
        return Ok(());
    }
    let recorder = Recorder::default();
    let acc = Accelerator::default()?;
    let path = acc.device_path().to_owned();
    let input: Vec<u32> = (0..256).collect();
    let out = tracing::subscriber::with_default(recorder.clone(), || {
        let a = Array::from_slice_on(&acc, [256], &input)?;
        let mut b = Array::<u32, 1>::new_on(&acc, [256])?;
        parallel_for_each(b.extent(), traced_double(&a, &mut b))?;
        acc.default_view().wait()?;
        // With kernel timing on, each timed launch's time is an event too.
        let view = acc.create_view()?;
        view.set_profiling(true)?;
        parallel_for_each_on(&view, b.extent(), traced_double(&a, &mut b))?;
        view.wait()?;
        view.take_kernel_times()?;
        // A copy and a view's synchronize.
        let mut host = vec![0u32; 256];
        amp::copy(&b, &mut host[..])?;
        let mut back = vec![0u32; 256];
        {
            let mut v = ArrayViewMut::new([256], &mut back)?;
            parallel_for_each(v.extent(), traced_copy(&b, &mut v))?;
            v.synchronize()?;
        }
        assert_eq!(host, back);
        b.to_vec()
    })?;
    assert_eq!(out, input.iter().map(|x| x * 2).collect::<Vec<_>>());
    let spans = recorder.spans.lock().unwrap().clone();

    let events = recorder.events.lock().unwrap().clone();
    assert!(
        events.iter().any(
            |e| e.get("message").map(String::as_str) == Some("kernel time")
                && e.get("kernel").map(String::as_str) == Some("traced_double")
                && e.get("seconds").is_some()
        ),
        "a kernel time event: {events:#?}"
    );

    let launches = find(&spans, "launch");
    assert_eq!(launches.len(), 3, "a launch span per launch: {spans:#?}");
    let launch = &launches[0].fields;
    assert_eq!(launch["kernel"], "traced_double");
    assert_eq!(launch["extent"], "[256]");
    assert_eq!(launch["device"], path);

    let uploads = find(&spans, "upload");
    assert!(
        uploads.iter().any(|s| s.fields["bytes"] == "1024"),
        "the input's upload: {spans:#?}"
    );
    let downloads = find(&spans, "download");
    assert!(
        downloads
            .iter()
            .any(|s| s.fields["bytes"] == "1024" && s.fields["device"] == path),
        "the result's download: {spans:#?}"
    );
    assert!(
        find(&spans, "wait")
            .iter()
            .any(|s| s.fields["device"] == path),
        "the view's wait: {spans:#?}"
    );
    assert!(
        find(&spans, "copy")
            .iter()
            .any(|s| s.fields["bytes"] == "1024"),
        "the copy: {spans:#?}"
    );
    assert_eq!(find(&spans, "synchronize").len(), 1, "{spans:#?}");
    if !acc.is_native() {
        // The kernel is built at its first launch, which this is.
        let created = find(&spans, "pipeline_create");
        assert!(
            created
                .iter()
                .any(|s| s.fields["kernel"] == "traced_double"),
            "the pipeline's creation: {spans:#?}"
        );
        assert!(
            !find(&spans, "submit").is_empty(),
            "a submission: {spans:#?}"
        );
    }
    assert_validation_clean();
    Ok(())
}
