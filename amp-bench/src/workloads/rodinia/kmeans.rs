//! kmeans: the assignment step of k-means clustering, each point to its nearest centre by
//! squared Euclidean distance. One thread per point; the features are stored feature-major
//! (`features[[f, p]]`), as the original transposes them so that neighbouring threads read
//! neighbouring words.

use amp::prelude::*;
use rayon::prelude::*;

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

/// Features per point and centres (the original's KDD Cup input: 34 features, 5 clusters).
const FEATURES: usize = 34;
const CLUSTERS: usize = 5;

#[kernel(amp)]
fn kmeans_assign(
    idx: Index<1>,
    features: &Array<f32, 2>,
    clusters: &Array<f32, 2>,
    membership: &mut Array<i32, 1>,
) {
    let p = idx[0];
    let (nclusters, nfeatures) = (clusters.extent()[0], clusters.extent()[1]);
    let mut best = 0;
    let mut min_dist = f32::MAX;
    for c in 0..nclusters {
        let mut dist = 0.0f32;
        for f in 0..nfeatures {
            let diff = features[[f, p]] - clusters[[c, f]];
            dist += diff * diff;
        }
        if dist < min_dist {
            min_dist = dist;
            best = c as i32;
        }
    }
    membership[idx] = best;
}

/// Point `p`'s nearest centre, in the kernel's order of operations.
#[inline(always)]
fn nearest(features: &[f32], clusters: &[f32], points: usize, p: usize) -> i32 {
    let mut best = 0;
    let mut min_dist = f32::MAX;
    for c in 0..CLUSTERS {
        let mut dist = 0.0f32;
        for f in 0..FEATURES {
            let diff = features[f * points + p] - clusters[c * FEATURES + f];
            dist += diff * diff;
        }
        if dist < min_dist {
            min_dist = dist;
            best = c as i32;
        }
    }
    best
}

fn serial(input: &Input) -> Vec<i32> {
    (0..input.points)
        .map(|p| nearest(&input.features, &input.clusters, input.points, p))
        .collect()
}

fn rayon(input: &Input) -> Vec<i32> {
    (0..input.points)
        .into_par_iter()
        .with_min_len(1024)
        .map(|p| nearest(&input.features, &input.clusters, input.points, p))
        .collect()
}

struct Input {
    points: usize,
    /// Feature-major: `features[f * points + p]`.
    features: Vec<f32>,
    /// Centre-major: `clusters[c * FEATURES + f]`.
    clusters: Vec<f32>,
}

struct State<'a> {
    input: &'a Input,
    acc: Accelerator,
    features: Array<f32, 2>,
    clusters: Array<f32, 2>,
    membership: Array<i32, 1>,
}

impl Port for State<'_> {
    type Out = i32;

    fn run(&mut self) -> Result<(), BoxError> {
        let e = Extent::new([self.input.points]);
        let call = kmeans_assign(&self.features, &self.clusters, &mut self.membership);
        parallel_for_each_on(&self.acc, e, call)?;
        Ok(())
    }

    fn result(&self) -> Result<Vec<i32>, BoxError> {
        Ok(self.membership.to_vec()?)
    }
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let points = if ctx.cfg.tiny {
        1024
    } else if ctx.cfg.gpu {
        // 136 MB of features.
        1 << 20
    } else {
        1 << 16
    };
    let mut rng = Lcg(0x63a);
    // Points around the centres (each point near one of them, with noise), and the centres.
    let clusters: Vec<f32> = (0..CLUSTERS * FEATURES).map(|_| rng.unit()).collect();
    let mut features = vec![0f32; FEATURES * points];
    for p in 0..points {
        let home = p % CLUSTERS;
        for f in 0..FEATURES {
            features[f * points + p] = clusters[home * FEATURES + f] + 0.6 * (rng.unit() - 0.5);
        }
    }
    let input = Input {
        points,
        features,
        clusters,
    };
    let (amp, native) = device_and_native(ctx, |acc| {
        Ok(State {
            input: &input,
            acc: acc.clone(),
            features: Array::from_slice_on(acc, [FEATURES, points], &input.features)?,
            clusters: Array::from_slice_on(acc, [CLUSTERS, FEATURES], &input.clusters)?,
            membership: Array::new_on(acc, [points])?,
        })
    })?;
    let serial = time_cpu(ctx, || serial(&input))?;
    let rayon = time_cpu(ctx, || rayon(&input))?;
    // A subtraction, a multiplication and an addition per feature and centre.
    let work = Work::Flops(3.0 * (points * CLUSTERS * FEATURES) as f64);
    record(
        ctx,
        Outcome {
            name: "kmeans",
            what: format!(
                "nearest of {CLUSTERS} centres, {FEATURES} features (simple, checked; CPU: serial)"
            ),
            size: format!("{points} points"),
            work,
            amp,
            native,
            serial,
            rayon,
        },
    );
    Ok(())
}
