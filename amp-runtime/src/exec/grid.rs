//! The workgroup grid of a launch: simple kernels' threads folded onto x and y, tiled
//! kernels' one workgroup per tile (with the tile checked against the device's limits).

use super::call::{Arg, KernelArg, Tiling};
use super::pipeline::Specialization;
use crate::device::LaunchShape;
use crate::device::Limits;
use crate::dims::dims_list;
use crate::kernel::{spec_id, KernelInfo, Shape};
use crate::Error;

/// The grid of a simple kernel, `ceil(total / (workgroup * items))` groups folded onto x
/// and y. A kernel whose shape the runtime chooses ([`Shape::Chosen`]) gets the device's
/// `shape` (its workgroup size in `specialization`) and, when the grid has fewer threads than
/// the domain has indices, its grid-stride loop turned on; a device with a loop limit runs a
/// kernel with loops at one index per thread, so that its loops' count stays the kernel's own.
pub(super) fn simple_grid(
    info: &KernelInfo,
    args: &[KernelArg<'_>],
    total: u64,
    limits: &Limits,
    shape: LaunchShape,
    specialization: &mut Specialization,
) -> Result<[u32; 3], Error> {
    let invalid = |reason: String| Error::InvalidKernel {
        kernel: info.name.to_owned(),
        reason,
    };
    // Consecutive indices an invocation runs at once: the grid covers groups of them.
    let lanes = match info.shape {
        Shape::Chosen { lanes, .. }
            if lanes > 1 && (!crate::config::vector_access() || quads_misaligned(info, args)) =>
        {
            specialization.push(spec_id::SCALAR_ACCESS, &[1]);
            1
        }
        Shape::Chosen { lanes, .. } => u64::from(lanes.max(1)),
        Shape::Fixed => 1,
    };
    // A kernel's quads may start up to `lanes - 1` indices before index 0 (so that a view's
    // quads start at its 16-byte boundary): room for one more group.
    let total = (total + lanes - 1).div_ceil(lanes);
    let (wg, items) = match info.shape {
        Shape::Fixed => {
            if info.workgroup_size.contains(&0) {
                return Err(invalid("workgroup size has a zero dimension".into()));
            }
            if info.workgroup_size[1] != 1 || info.workgroup_size[2] != 1 {
                return Err(invalid(format!(
                    "workgroup size {:?}: simple kernels must have one-dimensional workgroups",
                    info.workgroup_size
                )));
            }
            (u64::from(info.workgroup_size[0]), 1)
        }
        Shape::Chosen { loops, .. } => {
            let items = if loops && limits.max_loop_iterations.is_some() {
                1
            } else {
                shape.items_per_thread.max(1)
            };
            (u64::from(shape.workgroup_size), u64::from(items))
        }
    };
    let groups = fold_onto_xy(total.div_ceil(wg * items), wg, limits.max_workgroup_count)?;
    if let Shape::Chosen { .. } = info.shape {
        specialization.push(spec_id::WORKGROUP_SIZE[0], &[wg as u32]);
        let threads = groups.iter().map(|&g| u64::from(g)).product::<u64>() * wg;
        if threads < total {
            specialization.push(spec_id::GRID_STRIDE, &[1]);
        }
    }
    Ok(groups)
}

/// Whether a kernel in the quad form runs one index per step for these arguments: where a view
/// of the form starts at another element modulo 4 than the view its quads are aligned to
/// (`Shape::Chosen::quad_views`), every quad would take the one-index path with its tests,
/// slower than one index per step (on lavapipe, a copy between sections one element apart:
/// 33 ms against 27 ms).
fn quads_misaligned(info: &KernelInfo, args: &[KernelArg<'_>]) -> bool {
    let Shape::Chosen { quad_views, .. } = info.shape else {
        return false;
    };
    let start = |p: u32| match args.get(p as usize).map(|a| &a.0) {
        Some(Arg::Buffer { buf, .. }) => Some(buf.offset() % 4),
        _ => None,
    };
    let mut starts = quad_views.iter().map(|&p| start(p));
    match starts.next() {
        Some(first) => starts.any(|s| s != first),
        None => false,
    }
}

/// The grid of a tiled kernel: one workgroup per tile; x is the last dimension, and rank 1's
/// tiles fold onto y, rank 2's tile rows onto z, past the device's limits. Checks the
/// tile against the device's workgroup and shared-memory limits and the domain's divisibility,
/// and adds the workgroup size (specialization constants 0, 1, 2) to `specialization`.
pub(super) fn tiled_grid(
    info: &KernelInfo,
    domain: &[usize],
    tiling: &Tiling,
    limits: &Limits,
    specialization: &mut Specialization,
) -> Result<[u32; 3], Error> {
    let Tiling {
        tile,
        tile_static_bytes,
    } = *tiling;
    let max = limits.max_workgroup_count;
    let tile_str = || dims_list(tile);
    // Workgroup size per axis x, y, z (1 where the tile has no such dimension).
    let mut size = [1u64; 3];
    for (axis, &t) in tile.iter().rev().enumerate() {
        size[axis] = t as u64;
    }
    let too_large = |limit: &'static str, needed: u64, max: u32| Error::TileTooLarge {
        kernel: info.name.to_owned(),
        tile: tile_str(),
        limit,
        needed,
        max,
    };
    let threads: u64 = size.iter().product();
    if threads > u64::from(limits.max_threads_per_workgroup) {
        return Err(too_large(
            "maxComputeWorkGroupInvocations",
            threads,
            limits.max_threads_per_workgroup,
        ));
    }
    const AXES: [&str; 3] = [
        "maxComputeWorkGroupSize[0] (x, the last tile dimension)",
        "maxComputeWorkGroupSize[1] (y)",
        "maxComputeWorkGroupSize[2] (z, the first of three tile dimensions)",
    ];
    for axis in 0..3 {
        if size[axis] > u64::from(limits.max_workgroup_size[axis]) {
            return Err(too_large(
                AXES[axis],
                size[axis],
                limits.max_workgroup_size[axis],
            ));
        }
    }
    if tile_static_bytes > limits.max_shared_memory_bytes {
        return Err(Error::TileStaticTooLarge {
            kernel: info.name.to_owned(),
            tile: tile_str(),
            needed: tile_static_bytes,
            limit: limits.max_shared_memory_bytes,
        });
    }
    if domain.iter().zip(tile.iter()).any(|(&d, &t)| d % t != 0) {
        return Err(Error::NotDivisible {
            kernel: info.name.to_owned(),
            extent: dims_list(domain),
            tile: tile_str(),
        });
    }
    for (&id, &s) in spec_id::WORKGROUP_SIZE.iter().zip(size.iter()) {
        specialization.push(id, &[s as u32]);
    }
    // Tiles per axis x, y, z.
    let mut count = [1u64; 3];
    for (axis, (&d, &t)) in domain.iter().zip(tile.iter()).rev().enumerate() {
        count[axis] = (d / t) as u64;
    }
    if domain.len() == 1 {
        return fold_onto_xy(count[0], size[0], max);
    }
    if domain.len() == 2 && count[1] > u64::from(max[1]) {
        // Rank 2: more tile rows than workgroups along y fold onto z, as rank 1 folds onto
        // y (the kernel adds `z * rows` to its tile row and leaves past the last one).
        let [rows, z, _] = fold_onto_xy(count[1], size[1], [max[1], max[2], 1])?;
        count[1] = u64::from(rows);
        count[2] = u64::from(z);
    }
    for axis in 0..3 {
        if count[axis] > u64::from(max[axis]) {
            return Err(Error::TooManyWorkgroups {
                groups: count[axis],
                limit: u64::from(max[axis]),
            });
        }
    }
    Ok(count.map(|c| c as u32))
}

/// The grid for `groups` workgroups of `threads` threads each along x, folded onto y when they
/// exceed the device's x limit (`max` gives the limits of the two axes in its first two
/// entries: a rank-2 tiled grid passes y's and z's to fold its tile rows onto z). Balanced: `y = ceil(groups / max_x)` rows of `x = ceil(groups
/// / y)` groups, so fewer than `y` surplus workgroups are dispatched (they leave at once).
/// Kernels compute `(group.x + group.y * groups.x) * threads` in a `u32`, so a grid whose
/// threads would pass `u32::MAX + 1` is refused rather than let that wrap.
fn fold_onto_xy(groups: u64, threads: u64, max: [u32; 3]) -> Result<[u32; 3], Error> {
    let (max_x, max_y) = (u64::from(max[0]).max(1), u64::from(max[1]));
    let y = groups.div_ceil(max_x).max(1);
    if y > max_y {
        return Err(Error::TooManyWorkgroups {
            groups,
            limit: max_x * max_y,
        });
    }
    let x = groups.div_ceil(y).max(1);
    let dispatched = x * y * threads;
    let limit = u64::from(u32::MAX) + 1;
    if dispatched > limit {
        return Err(Error::ExtentTooLarge {
            what:
                "the launch grid's thread count (the domain rounded up to whole rows of workgroups)",
            value: dispatched,
            limit,
        });
    }
    Ok([x as u32, y as u32, 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: [u32; 3] = [65535, 65535, 65535];
    #[test]
    fn small_grids_stay_on_x() {
        assert_eq!(fold_onto_xy(10, 64, LIMITS).unwrap(), [10, 1, 1]);
        assert_eq!(fold_onto_xy(65535, 64, LIMITS).unwrap(), [65535, 1, 1]);
    }

    #[test]
    fn large_grids_fold_into_balanced_rows() {
        // 16M threads of 64: 262144 groups as 5 rows of 52429 (one spare group, not 65531).
        assert_eq!(fold_onto_xy(262_144, 64, LIMITS).unwrap(), [52_429, 5, 1]);
        let [x, y, _] = fold_onto_xy(65_536, 256, LIMITS).unwrap();
        assert_eq!((x, y), (32_768, 2));
    }

    #[test]
    fn rank2_tile_rows_fold_onto_z() {
        // 65,538 tile rows of 2 threads: 2 layers of 32,769 rows.
        let [rows, z, _] = fold_onto_xy(65_538, 2, [65_535, 65_535, 1]).unwrap();
        assert_eq!((rows, z), (32_769, 2));
    }

    /// A kernel in the quad form whose views are parameters 1 (written, the quads' anchor)
    /// and 0.
    static QUADS: KernelInfo = KernelInfo {
        name: "k",
        spirv: &[],
        spirv_narrow_storage: &[],
        entry_point: "main",
        rank: 1,
        params: &[],
        push_constant_size: 0,
        workgroup_size: [64, 1, 1],
        shape: Shape::Chosen {
            loops: false,
            lanes: 4,
            quad_views: &[1, 0],
        },
        uses_float64: false,
        hash: 0,
        tile_rank: 0,
        spec_constants: &[],
        report: "",
        report_binding: None,
        bounds_checked: true,
        loop_lines: &[],
    };

    #[test]
    fn quads_run_one_index_per_step_where_their_views_start_apart() {
        let data = vec![0.0f32; 64];
        let mut out = vec![0.0f32; 64];
        let a = crate::ArrayView::new([64], &data).unwrap();
        let mut all = crate::ArrayViewMut::new([64], &mut out).unwrap();
        // (read from, written from, whether they start apart modulo 4)
        for (from, to, apart) in [
            (0, 0, false),
            (1, 5, false),
            (4, 0, false),
            (1, 2, true),
            (3, 0, true),
        ] {
            let a = a.section([from], [32]).unwrap();
            let mut o = all.section_mut([to], [32]).unwrap();
            let args = [KernelArg::read(&a), KernelArg::write(&mut o)];
            assert_eq!(quads_misaligned(&QUADS, &args), apart, "{from} and {to}");
        }
    }

    #[test]
    fn grids_past_the_limits_are_refused() {
        assert!(matches!(
            fold_onto_xy(65_535 * 65_535 + 1, 1, LIMITS),
            Err(Error::TooManyWorkgroups { .. })
        ));
        // 2^26 - 1 groups of 64 threads fit a u32, but 1025 rows of 65473 groups do not.
        assert!(matches!(
            fold_onto_xy((1 << 26) - 1, 64, LIMITS),
            Err(Error::ExtentTooLarge { .. })
        ));
    }
}
