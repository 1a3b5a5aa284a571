//! `AMP_DEVICE` selects the default accelerator by name (its own process: the default is
//! chosen once).

use amp_runtime::{Accelerator, Error};

#[test]
fn amp_device_env_selects_or_errors() {
    std::env::set_var("AMP_DEVICE", "no-such-device-xyz");
    match Accelerator::default() {
        Err(Error::DeviceNotFound { name, .. }) => assert_eq!(name, "no-such-device-xyz"),
        other => panic!("expected DeviceNotFound, got {other:?}"),
    }
    let all = Accelerator::all().unwrap();
    let first = all[0].name().to_owned();
    // Case-insensitive substring of a real name.
    let part: String = first.chars().take(4).collect::<String>().to_uppercase();
    std::env::set_var("AMP_DEVICE", &part);
    let acc = Accelerator::default().unwrap();
    assert!(acc.name().to_uppercase().contains(&part));
    // Chosen once per process.
    std::env::set_var("AMP_DEVICE", "no-such-device-xyz");
    assert_eq!(Accelerator::default().unwrap(), acc);
}
