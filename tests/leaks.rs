//! No leaks: 20,000 launches with fresh views (every hundredth on a fresh accelerator view),
//! every result checked, leave the runtime's live Vulkan objects exactly where they were after
//! warm-up and the process's resident memory flat. `examples/soak.rs` runs the same loop for
//! 100,000 launches (or more) and prints the numbers.
//!
//! On lavapipe in a debug build with validation one launch takes about 0.3 ms, so this runs
//! in about 6 s.

#[path = "../examples/soak.rs"]
mod soak;

const LAUNCHES: usize = 20_000;
const WARM_UP: usize = 2_000;
/// Resident memory may move by this much after warm-up. Without validation it stays exactly
/// flat; with it, the validation layer keeps about 4 KB per view created and destroyed (0.7
/// MiB over this loop's 180 views; measured: it does not happen with validation off or without
/// created views). A leak of 256 bytes per launch would exceed it.
const RSS_TOLERANCE: u64 = 4 << 20;

#[test]
fn launches_with_fresh_views_leak_nothing() -> Result<(), amp::Error> {
    let samples = soak::run(LAUNCHES, WARM_UP, 2_000, |_| {})?;
    let first = samples.first().expect("a sample after warm-up");
    let last = samples.last().expect("a final sample");
    assert_eq!(last.launches, LAUNCHES);
    // A view keeps a few batch slots (command pool, descriptor pool) for reuse, and how many
    // are alive at a sample depends on timing (a batch in flight, or submitted at once on an
    // idle queue): those may vary by a few, everything else must stay exactly where it was.
    const SLOT_SLACK: usize = 4;
    let without_slots = |c: &amp::ObjectCounts| {
        let mut c = *c;
        c.command_pools = 0;
        c.descriptor_pools = 0;
        c
    };
    for s in &samples {
        assert_eq!(
            without_slots(&s.objects),
            without_slots(&first.objects),
            "live Vulkan objects changed between launch {} and launch {}",
            first.launches,
            s.launches
        );
        assert!(
            s.objects.command_pools <= first.objects.command_pools + SLOT_SLACK
                && s.objects.descriptor_pools <= first.objects.descriptor_pools + SLOT_SLACK,
            "batch slots grew between launch {} and launch {}: {:?} -> {:?}",
            first.launches,
            s.launches,
            first.objects,
            s.objects
        );
    }
    // No buffer outlives its view: the one allocation left is the device's pooled
    // out-of-bounds report of the checked kernel (one launch at a time).
    // Where transfers go through staging buffers, the device's pool of them adds some
    // allocations (a flat number, checked above).
    let staging = ["AMP_FORCE_STAGING", "AMP_SIMULATE_DISCRETE"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|v| v == "1"))
        || !amp::Accelerator::default()?.supports_cpu_shared_memory();
    if !staging {
        assert!(first.objects.allocations <= 1, "{:?}", first.objects);
    }
    // The default view's slots (created views and theirs are gone).
    assert!(first.objects.command_pools <= first.objects.devices + SLOT_SLACK);
    assert!(first.objects.descriptor_pools <= first.objects.devices + SLOT_SLACK);
    if first.rss_bytes > 0 {
        let peak = samples.iter().map(|s| s.rss_bytes).max().unwrap_or(0);
        assert!(
            peak <= first.rss_bytes + RSS_TOLERANCE,
            "resident memory grew from {} to {} bytes after warm-up",
            first.rss_bytes,
            peak
        );
    }
    if std::env::var("AMP_VALIDATION").is_ok_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}
