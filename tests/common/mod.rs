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
