//! `AMP_DEVICE` (here set in code, through `Config`) selects the default accelerator by name
//! (its own process: the default is chosen once).

use amp_runtime::{Accelerator, Config, Error};

#[test]
fn amp_device_selects_or_errors() {
    Config::new().device("no-such-device-xyz").apply().unwrap();
    match Accelerator::default() {
        Err(Error::DeviceNotFound { name, .. }) => assert_eq!(name, "no-such-device-xyz"),
        other => panic!("expected DeviceNotFound, got {other:?}"),
    }
    // A failed choice fixes nothing: another setting may follow.
    let all = Accelerator::all().unwrap();
    let first = all[0].name().to_owned();
    // Case-insensitive substring of a real name.
    let part: String = first.chars().take(4).collect::<String>().to_uppercase();
    Config::new().device(&part).apply().unwrap();
    let acc = Accelerator::default().unwrap();
    assert!(acc.name().to_uppercase().contains(&part));
    // Chosen once per process: a later setting is an error, and changes nothing.
    let late = Config::new().device("no-such-device-xyz").apply();
    assert!(
        matches!(
            late,
            Err(Error::ConfigTooLate {
                setting: "AMP_DEVICE"
            })
        ),
        "{late:?}"
    );
    assert_eq!(Accelerator::default().unwrap(), acc);
    // The same value again is no change.
    Config::new().device(&part).apply().unwrap();
}
