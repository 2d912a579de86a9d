//! The fleet's chart, drawn as SVG text: for each section, requests per loaded read (with the
//! fewest any policy could send) and p99 time to data against the fleet size, one line per
//! policy.

use std::fmt::Write as _;

use crate::policy::contenders;
use crate::section::{Measured, Section, FLEET_SIZES};

/// A panel's size, and its plot area's margins within it.
const PANEL: (f64, f64) = (330.0, 190.0);
const LEFT: f64 = 48.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 30.0;
/// Above the panels: the title and the legend.
const HEAD: f64 = 112.0;

/// Each policy's stroke, in the order of [`contenders`]: a colour, and a dash where lines
/// may lie on one another (the defaults follow a baseline exactly where their rules agree).
const STROKES: [(&str, &str); 8] = [
    ("#c62828", ""),
    ("#ef6c00", "7 3"),
    ("#1565c0", "2 3"),
    ("#2e7d32", ""),
    ("#6a1b9a", "9 3 2 3"),
    ("#00838f", "4 2"),
    ("#ad1457", "1 2"),
    ("#111111", ""),
];

/// The bound's stroke: the fewest requests per loaded read any policy could send.
const BOUND: (&str, &str) = ("#9e9e9e", "1 3");

/// What a panel plots.
#[derive(Clone, Copy)]
enum Metric {
    /// Requests at the limiter per loaded read, on a log scale from 1.
    RequestsPerLoaded,
    /// p99 time to data in seconds, on a linear scale from 0.
    P99,
}

impl Metric {
    fn value(self, m: &Measured) -> Option<f64> {
        match self {
            Self::RequestsPerLoaded => {
                let v = m.figures.requests_per_loaded();
                v.is_finite().then_some(v)
            }
            Self::P99 => m.figures.time_to_data(99).map(|d| d.as_secs_f64()),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::RequestsPerLoaded => "requests per loaded read",
            Self::P99 => "p99 time to data (s)",
        }
    }
}

/// The chart of `measured` (every section's rows, as [`measure`](crate::measure) returns
/// them), as an SVG document.
pub fn svg(measured: &[Measured]) -> String {
    let names: Vec<&str> = contenders().iter().map(|c| c.name).collect();
    let metrics = [Metric::RequestsPerLoaded, Metric::P99];
    let top = |metric: Metric| {
        let most = measured
            .iter()
            .filter_map(|m| metric.value(m))
            .fold(1.0_f64, f64::max);
        match metric {
            Metric::RequestsPerLoaded => most.log10().ceil().max(1.0),
            Metric::P99 => (most / 5.0).ceil() * 5.0,
        }
    };
    let tops = metrics.map(top);
    let width = 2.0 * PANEL.0 + 20.0;
    let height = HEAD + Section::ALL.len() as f64 * PANEL.1;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img" aria-labelledby="t">"#
    );
    s.push_str(r##"<title id="t">A fleet of browsers on one API allowing 50 requests a second, counted by three kinds of limiter: requests per loaded read (beside the fewest any policy could send) and p99 time to data against the number of browsers, one line per retry policy</title>"##);
    let _ = write!(
        s,
        r##"<rect width="{width}" height="{height}" fill="#fff"/><text x="10" y="20" font-size="14" font-weight="bold">A fleet on one quota (50 requests/s): what each retry policy costs the API, and its users</text>"##
    );
    let legend = names
        .iter()
        .zip(STROKES)
        .chain([(&"fewest possible (bound)", BOUND)]);
    for (i, (name, (colour, dash))) in legend.enumerate() {
        let (x, y) = (10.0 + (i % 3) as f64 * 215.0, 44.0 + (i / 3) as f64 * 20.0);
        let _ = write!(
            s,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/><text x="{}" y="{}">{name}</text>"#,
            x + 28.0,
            x + 34.0,
            y + 4.0
        );
    }
    for (row, section) in Section::ALL.iter().enumerate() {
        for (col, metric) in metrics.iter().enumerate() {
            let origin = (col as f64 * (PANEL.0 + 20.0), HEAD + row as f64 * PANEL.1);
            panel(
                &mut s, origin, *section, *metric, tops[col], &names, measured,
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

/// One panel at `origin`: `metric` for `section`, up to `top` (a power of ten's exponent for
/// the log scale, seconds for the linear one).
fn panel(
    s: &mut String,
    origin: (f64, f64),
    section: Section,
    metric: Metric,
    top: f64,
    names: &[&str],
    measured: &[Measured],
) {
    let (x0, y0) = (origin.0 + LEFT, origin.1 + TOP);
    let (w, h) = (PANEL.0 - LEFT - RIGHT, PANEL.1 - TOP - BOTTOM);
    let fx = |clients: u32| x0 + (f64::from(clients).log10() - 1.0) / 3.0 * w;
    let fy = |v: f64| match metric {
        Metric::RequestsPerLoaded => y0 + h - v.max(1.0).log10() / top * h,
        Metric::P99 => y0 + h - v / top * h,
    };
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" font-weight="bold">{}</text><text x="{}" y="{}" fill="#555">{}</text><rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#999"/>"##,
        origin.0 + 8.0,
        origin.1 + 10.0,
        metric.label(),
        origin.0 + 8.0,
        origin.1 + 22.0,
        section.title()
    );
    let ticks: Vec<(f64, String)> = match metric {
        Metric::RequestsPerLoaded => (0..=top as u32)
            .map(|e| (10f64.powi(e as i32), 10u32.pow(e).to_string()))
            .collect(),
        Metric::P99 => (0..=(top / 5.0) as u32)
            .map(|k| (f64::from(k * 5), (k * 5).to_string()))
            .collect(),
    };
    for (v, label) in ticks {
        let y = fy(v);
        let _ = write!(
            s,
            r##"<line x1="{x0}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
            x0 + w,
            x0 - 4.0,
            y + 4.0
        );
    }
    for clients in FLEET_SIZES {
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{clients}</text>"#,
            fx(clients),
            y0 + h + 14.0
        );
    }
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#555">browsers</text>"##,
        x0 + w / 2.0,
        y0 + h + 26.0
    );
    if let Metric::RequestsPerLoaded = metric {
        let points: Vec<String> = FLEET_SIZES
            .iter()
            .filter_map(|clients| {
                let m = measured
                    .iter()
                    .find(|m| m.section == section && m.clients == *clients)?;
                Some(format!("{:.1},{:.1}", fx(*clients), fy(m.figures.bound)))
            })
            .collect();
        let (colour, dash) = BOUND;
        let _ = write!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            points.join(" ")
        );
    }
    for (i, name) in names.iter().enumerate() {
        let points: Vec<String> = measured
            .iter()
            .filter(|m| m.section == section && m.policy == *name)
            .filter_map(|m| Some(format!("{:.1},{:.1}", fx(m.clients), fy(metric.value(m)?))))
            .collect();
        let (colour, dash) = STROKES[i];
        let _ = write!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            points.join(" ")
        );
    }
}
