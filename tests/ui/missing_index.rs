use amp::prelude::*;

#[kernel(amp)]
fn nothing() {}

fn main() {}
