//! The benchmark's chart: one horizontal bar per workload, amp time over hand-written GLSL
//! time, with the target (1.00) marked. Drawn with `plotters` into a PNG.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::FontStyle;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Fonts tried in order; the first that exists is used for every label.
const FONT_FILES: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

fn register_font() -> Result<(), BoxError> {
    let path = FONT_FILES
        .iter()
        .find(|p| Path::new(p).exists())
        .ok_or("no DejaVuSans.ttf found (Debian: apt-get install fonts-dejavu-core)")?;
    // plotters keeps the font for the rest of the process.
    let bytes: &'static [u8] = Box::leak(std::fs::read(path)?.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| format!("{path} is not a font plotters can read"))?;
    Ok(())
}

/// Draws `bars` (label, amp/glslang ratio) to `path` under `title`.
pub fn ratio_chart(path: &Path, title: &str, bars: &[(String, f64)]) -> Result<(), BoxError> {
    if bars.is_empty() {
        return Err("no ratios to draw".into());
    }
    register_font()?;
    // The first row on top.
    let bars: Vec<(String, f64)> = bars.iter().rev().cloned().collect();
    let bars = &bars[..];
    let height = 120 + 34 * bars.len() as u32;
    let root = BitMapBackend::new(path, (1100, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let max = bars.iter().map(|(_, r)| *r).fold(1.2f64, f64::max).min(4.0) * 1.1;
    let n = bars.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(380)
        .build_cartesian_2d(0.0..max, (0..n).into_segmented())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("amp time / hand-written GLSL time (lower is better; 1.00 = parity)")
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                bars.get(*i).map(|b| b.0.clone()).unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        })
        .y_labels(n)
        .label_style(("sans-serif", 15))
        .draw()?;
    chart.draw_series(bars.iter().enumerate().map(|(i, (_, r))| {
        let color = if *r <= 1.0 {
            RGBColor(46, 125, 50)
        } else {
            RGBColor(198, 40, 40)
        };
        let r = r.min(max);
        Rectangle::new(
            [
                (0.0, SegmentValue::Exact(i)),
                (r, SegmentValue::Exact(i + 1)),
            ],
            color.mix(0.8).filled(),
        )
    }))?;
    chart.draw_series(bars.iter().enumerate().map(|(i, (_, r))| {
        Text::new(
            format!("{r:.2}"),
            (r.min(max) + max * 0.01, SegmentValue::CenterOf(i)),
            ("sans-serif", 14),
        )
    }))?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(1.0, SegmentValue::Exact(0)), (1.0, SegmentValue::Last)],
        BLACK.stroke_width(2),
    )))?;
    root.present()?;
    Ok(())
}
