//! A chart as data: a title, two axes and the series drawn on them, in
//! the axes' coordinates. [`super::render`] draws it.

use super::axis::Axis;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A line through the points, in order.
    Line,
    /// A line with a dot on every point.
    LineDots,
    /// A vertical bar from the x axis to every point (a histogram).
    Bars,
    /// A dot on every point, no line (histograms overlaid: a line
    /// between two bins would stand for the empty bins between them).
    Dots,
}

/// One series: a legend label and its points (x, y).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// A band around a series: the least and greatest value at each x (the
/// runs of `--repeat`), drawn as a lighter area in the colour of series
/// number `series`.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub label: String,
    pub series: usize,
    /// (x, least, greatest), x ascending.
    pub points: Vec<(f64, f64, f64)>,
}

/// A chart, and the file stem it is written under.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// File stem: `DIR/<name>.svg`.
    pub name: String,
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub style: Style,
    pub series: Vec<Series>,
    /// Drawn under the series.
    pub bands: Vec<Band>,
}

/// The most points a series keeps; longer ones (per-I/O logs) are
/// thinned to the minimum and maximum of each of `MAX_POINTS / 2` runs of
/// consecutive points, so spikes survive.
pub const MAX_POINTS: usize = 4000;

/// `points` thinned to at most [`MAX_POINTS`] (see there).
pub fn thin(points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points;
    }
    let runs = MAX_POINTS / 2;
    let per = points.len().div_ceil(runs);
    let mut out = Vec::with_capacity(MAX_POINTS);
    for run in points.chunks(per) {
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in run.iter().enumerate() {
            if p.1 < run[lo].1 {
                lo = i;
            }
            if p.1 > run[hi].1 {
                hi = i;
            }
        }
        out.push(run[lo.min(hi)]);
        if lo != hi {
            out.push(run[lo.max(hi)]);
        }
    }
    out
}

/// `name` made safe as a file stem: only ASCII letters, digits, `.`, `_`,
/// `-` and `+`, not starting with a dot, so that no chart is written
/// outside the output directory or hidden.
pub fn file_stem(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_series_keep_their_extremes() {
        let pts: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, (i % 7) as f64)).collect();
        let t = thin(pts.clone());
        assert!(t.len() <= MAX_POINTS);
        assert!(t.iter().any(|p| p.1 == 6.0) && t.iter().any(|p| p.1 == 0.0));
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(thin(pts[..10].to_vec()), pts[..10].to_vec());
    }

    #[test]
    fn stems_stay_in_the_directory() {
        assert_eq!(file_stem("job1_iops.1"), "job1_iops.1");
        assert_eq!(file_stem("../etc/passwd"), "_.._etc_passwd");
        assert_eq!(file_stem("a b/c"), "a_b_c");
        assert_eq!(file_stem(""), "_");
    }
}
