//! What every device test file shares.

/// Every test ends here: validation (when asked for) is on and reported nothing.
pub fn assert_validation_clean() {
    if std::env::var_os("AMP_VALIDATION").is_some_and(|v| v == "1") {
        assert!(
            amp::validation_enabled(),
            "AMP_VALIDATION=1 but the validation layer is not active"
        );
    }
    assert_eq!(amp::validation_message_count(), 0);
}

/// The value of an `f64` operation where the default device has `shaderFloat64`; elsewhere
/// asserts the operation failed with the typed `MissingCapability` error and gives `None`, so
/// no device skips the check silently.
#[allow(dead_code)] // not every test binary that includes this module runs f64 work
pub fn f64_result<T: std::fmt::Debug>(result: Result<T, amp::Error>) -> Option<T> {
    let supported = amp::Accelerator::default()
        .expect("a Vulkan device")
        .supports_double_precision();
    match result {
        Ok(value) if supported => Some(value),
        Err(amp::Error::MissingCapability {
            capability: "shaderFloat64",
            ..
        }) if !supported => None,
        other => panic!("f64 work on a device with shaderFloat64 = {supported}: {other:?}"),
    }
}

/// Whether the default accelerator is the native CPU one (`AMP_DEVICE=cpu`, or no GPU): the
/// README's test command runs the device tests once on it and once on Vulkan.
#[allow(dead_code)]
pub fn on_native() -> bool {
    amp::Accelerator::default().is_ok_and(|a| a.is_native())
}

/// Ends a test early, saying so, on the native CPU accelerator: for tests of what only Vulkan
/// devices have (textures, queues that run behind the host, data transfers). The same file's
/// other tests run on both.
#[allow(unused_macros)]
macro_rules! vulkan_only {
    ($why:expr) => {
        if crate::common::on_native() {
            eprintln!(
                "Vulkan only ({}): not run on the native CPU accelerator",
                $why
            );
            return Ok(());
        }
    };
}
#[allow(unused_imports)]
pub(crate) use vulkan_only;
