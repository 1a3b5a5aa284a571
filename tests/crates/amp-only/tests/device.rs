//! The crate's device structs on the device: each body moves by its velocity, its vertical
//! velocity drops by `9.75 * dt` and its mass doubles.

use amp::prelude::*;
use amp_only::{step, Body, Planar};

#[test]
fn bodies_advance_on_the_device() -> Result<(), amp::Error> {
    assert_eq!(std::mem::size_of::<Body>(), 24);
    let n = 70;
    let mut bodies: Vec<Body> = (0..n)
        .map(|i| Body {
            pos: Float3::new(i as f32, 1.0, -2.0),
            vel: Planar {
                x: 0.5 * i as f32,
                y: 4.0,
            },
            mass: 1.0 + i as f32,
        })
        .collect();
    step(&mut bodies, 0.25)?;
    for (i, b) in bodies.iter().enumerate() {
        let f = i as f32;
        assert_eq!(b.pos, Float3::new(f + 0.125 * f, 2.0, -2.0), "body {i}");
        assert_eq!((b.vel.x, b.vel.y), (0.5 * f, 4.0 - 9.75 * 0.25), "body {i}");
        assert_eq!(b.mass, 2.0 * (1.0 + f), "body {i}");
    }
    if std::env::var_os("AMP_VALIDATION").is_some_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}
