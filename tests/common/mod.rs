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
