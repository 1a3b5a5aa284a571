//! A 256-bin histogram of random bytes: each tile counts into its own bins in `tile_static`
//! memory with atomics, then adds its bins to the result, as C++ AMP's histogram sample does.
//! Checked against the CPU.
//!
//! ```text
//! cargo run --release --example histogram [values]
//! ```
use amp::prelude::*;

/// Bins, and threads per tile (one bin per thread to clear and merge).
pub const BINS: usize = 256;

#[kernel(amp)]
fn count(t: TiledIndex<256>, data: ArrayView<u32, 1>, bins: ArrayViewMut<u32, 1>, stride: u32) {
    #[tile_static]
    let mut local: [u32; 256];
    local[t.local[0]] = 0;
    t.barrier.wait();
    // Each thread counts every `stride`-th value from its global position.
    let len = data.extent()[0];
    let mut i = t.global[0];
    while i < len {
        atomic_fetch_add(&mut local[(data[[i]] & 255) as usize], 1);
        i += stride as usize;
    }
    t.barrier.wait();
    let n = local[t.local[0]];
    if n > 0 {
        atomic_fetch_add(&mut bins[t.local[0]], n);
    }
}

/// Deterministic pseudo-random bytes (xorshift), one per `u32`.
pub fn random_bytes(n: usize) -> Vec<u32> {
    let mut state = 0x1234_5678_u32;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state >> 24
        })
        .collect()
}

/// The histogram of the low byte of each value, on the device with `tiles` tiles.
pub fn histogram(data: &[u32], tiles: usize) -> Result<Vec<u32>, amp::Error> {
    let mut bins = vec![0u32; BINS];
    {
        let input = ArrayView::new([data.len()], data)?;
        let mut out = ArrayViewMut::new([BINS], &mut bins)?;
        let threads = tiles * BINS;
        let domain = Extent::new([threads]).tile::<256>();
        parallel_for_each(domain, count(&input, &mut out, threads as u32))?;
        out.synchronize()?;
    }
    Ok(bins)
}

/// The same histogram on the CPU.
pub fn histogram_cpu(data: &[u32]) -> Vec<u32> {
    let mut bins = vec![0u32; BINS];
    for &v in data {
        bins[(v & 255) as usize] += 1;
    }
    bins
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).map_or(Ok(1 << 22), |a| a.parse())?;
    let acc = Accelerator::default()?;
    println!("device: {} ({:?})", acc.name(), acc.device_type());
    let data = random_bytes(n);
    let start = std::time::Instant::now();
    let bins = histogram(&data, 64)?;
    println!("{n} values on the device in {:?}", start.elapsed());
    if bins != histogram_cpu(&data) {
        return Err("the device's histogram differs from the CPU's".into());
    }
    let (min, max) = (
        bins.iter().min().unwrap_or(&0),
        bins.iter().max().unwrap_or(&0),
    );
    println!("matches the CPU; bins hold {min} to {max} values");
    Ok(())
}
