//! The Onesweep radix sort (8-bit digits, decoupled look-back with a decoupled fallback)
//! against the host's sorts: at lengths around every block boundary, with keys that fill every
//! digit value, all-equal keys, duplicates, NaNs of both signs, `f64` keys (two runs of four
//! passes), `sort_by_key`'s stability, the fallback forced for every block, and on one driver
//! thread. Natively the public sorts of 32-bit keys run on the host, so the kernels are run
//! through `__sort_with` and `__sort_by_key_with` on both accelerators.

use crate::common;
use common::{assert_validation_clean, Rng};

use amp::algorithms::{self, __SortMethod as SortMethod};
use amp::prelude::*;

/// Keys per Onesweep block.
const BLOCK: usize = 1024;

const ONESWEEP: SortMethod = SortMethod::Onesweep { polls: 64 };

/// Sorts `keys` by `method` and compares with the host's stable sort by `total_cmp`-like
/// order, bit for bit.
fn check_sort<T: DeviceScalar + std::fmt::Debug>(
    keys: &[T],
    method: SortMethod,
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering,
    bits: impl Fn(&T) -> u64,
    what: &str,
) {
    let n = keys.len();
    let mut got = keys.to_vec();
    let done = algorithms::__sort_with(&mut ArrayViewMut::new([n], &mut got).unwrap(), method);
    if common::f64_result(done).is_none() {
        return;
    }
    let mut want = keys.to_vec();
    want.sort_by(cmp);
    if let Some(i) = (0..n).find(|&i| bits(&got[i]) != bits(&want[i])) {
        panic!(
            "{what}: sort of {n} ({method:?}) at {i}: {:?} != {:?}",
            got[i], want[i]
        );
    }
}

/// `sort_by_key` of `keys` with their positions as values: the positions must come out in the
/// host's stable order.
fn check_stable(keys: &[u32], method: SortMethod, what: &str) {
    let n = keys.len();
    let mut got_keys = keys.to_vec();
    let mut got_values: Vec<u32> = (0..n as u32).collect();
    algorithms::__sort_by_key_with(
        &mut ArrayViewMut::new([n], &mut got_keys).unwrap(),
        &mut ArrayViewMut::new([n], &mut got_values).unwrap(),
        method,
    )
    .unwrap();
    let mut want: Vec<u32> = (0..n as u32).collect();
    want.sort_by_key(|&i| keys[i as usize]);
    if let Some(i) = (0..n).find(|&i| got_values[i] != want[i]) {
        panic!(
            "{what}: sort_by_key of {n} ({method:?}) at {i}: value {} != {}",
            got_values[i], want[i]
        );
    }
    assert!(got_keys.windows(2).all(|w| w[0] <= w[1]), "{what}: keys");
}

fn u32_keys(n: usize, rng: &mut Rng) -> Vec<u32> {
    (0..n).map(|_| rng.next_u32()).collect()
}

/// `u32`, `i32` and `f32` keys at lengths around every block boundary, by `method`.
fn check_lengths(lengths: &[usize], method: SortMethod, rng: &mut Rng) {
    for &n in lengths {
        let uints = u32_keys(n, rng);
        check_sort(&uints, method, u32::cmp, |x| *x as u64, "u32");
        let ints: Vec<i32> = uints.iter().map(|&x| x as i32).collect();
        check_sort(&ints, method, i32::cmp, |x| *x as u32 as u64, "i32");
        // Few distinct keys: long runs of duplicates within and across blocks.
        let few: Vec<u32> = uints.iter().map(|&x| x % 7).collect();
        check_stable(&few, method, "duplicates");
    }
}

#[test]
fn onesweep_matches_the_host_around_every_block_boundary() {
    let mut rng = Rng(41);
    let lengths = [
        2,
        BLOCK - 1,
        BLOCK,
        BLOCK + 1,
        2 * BLOCK,
        8191,
        8192,
        8193,
        37 * BLOCK + 511,
        70_001,
    ];
    check_lengths(&lengths, ONESWEEP, &mut rng);
    assert_validation_clean();
}

/// Keys that use every value of every digit, all-equal keys (one digit value per pass takes
/// every key), floats with NaNs of both signs and signed zeros, and `f64` keys.
#[test]
fn onesweep_sorts_special_keys_as_total_cmp_does() {
    let n = 5 * BLOCK + 77;
    // Each byte of key `i` is `i % 256` shifted: every digit sees all 256 values.
    let every: Vec<u32> = (0..n as u32)
        .map(|i| ((i % 256) * 0x0101_0101) ^ (i / 256))
        .rev()
        .collect();
    check_sort(
        &every,
        ONESWEEP,
        u32::cmp,
        |x| *x as u64,
        "every digit value",
    );
    let equal = vec![0xdead_beefu32; n];
    check_sort(&equal, ONESWEEP, u32::cmp, |x| *x as u64, "all equal");
    check_stable(&equal, ONESWEEP, "all equal");
    let specials = [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_1234),
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN,
        3.5,
    ];
    let floats: Vec<f32> = (0..n)
        .map(|i| specials[i % specials.len()] * (1 + i / 2000) as f32)
        .collect();
    check_sort(
        &floats,
        ONESWEEP,
        f32::total_cmp,
        |x| x.to_bits() as u64,
        "f32",
    );
    let mut rng = Rng(43);
    let doubles: Vec<f64> = (0..n)
        .map(|i| match i % 7 {
            0 => f64::NAN,
            1 => -f64::NAN,
            2 => -0.0,
            3 => 0.0,
            _ => (rng.next_u32() as f64 - 2e9) * 1e-3,
        })
        .collect();
    check_sort(&doubles, ONESWEEP, f64::total_cmp, |x| x.to_bits(), "f64");
    assert_validation_clean();
}

/// With no polls every tile counts every block before its own itself: the fallback alone
/// places every key, so a tile never needs another to have run.
#[test]
fn onesweep_is_right_when_every_block_takes_the_fallback() {
    let mut rng = Rng(47);
    let method = SortMethod::Onesweep { polls: 0 };
    check_lengths(&[BLOCK + 1, 9 * BLOCK + 100], method, &mut rng);
    assert_validation_clean();
}

/// The public sorts (Onesweep where the device has the `tile_static` memory for it) agree with
/// the 4-bit passes.
#[test]
fn onesweep_and_the_four_bit_passes_agree() {
    let mut rng = Rng(53);
    let keys = u32_keys(30 * BLOCK + 3, &mut rng);
    let few: Vec<u32> = keys.iter().map(|&x| x >> 28).collect();
    for method in [SortMethod::FourBit, SortMethod::Auto, ONESWEEP] {
        check_sort(&keys, method, u32::cmp, |x| *x as u64, "u32");
        check_stable(&few, method, "duplicates");
    }
    assert_validation_clean();
}

/// On one driver thread tiles run one after another: the look-back must not wait for a tile
/// that cannot run.
#[test]
fn onesweep_ends_on_one_thread() {
    const NAME: &str = "onesweep::onesweep_ends_on_one_thread";
    if common::in_child(NAME) {
        let mut rng = Rng(59);
        check_lengths(&[40 * BLOCK + 9], ONESWEEP, &mut rng);
        assert_validation_clean();
        return;
    }
    common::run_child(
        NAME,
        &[("LP_NUM_THREADS", "1"), ("AMP_CPU_THREADS", "1")],
        &[],
    );
}
