//! Drawing a [`Chart`] with plotters' chart API: `ChartBuilder` lays out
//! the caption and label areas, the mesh draws the grid, ticks and axis
//! descriptions, series are `LineSeries`, `Circle`s and `Rectangle` bars,
//! and `configure_series_labels` draws the legend. Output is SVG text or
//! a PNG file (the `png` crate encodes plotters' RGB buffer).
//!
//! plotters measures text to lay a chart out, so both formats need a
//! TrueType font, handed in once ([`use_font`]).

use std::ops::Range;
use std::sync::OnceLock;

use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::axis::Scale;
use super::chart::{Chart, Style};
use super::raster::Raster;
use super::Error;

/// A chart's size in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Default for Size {
    fn default() -> Size {
        Size {
            width: 800,
            height: 480,
        }
    }
}

const FAMILY: &str = "sans-serif";

/// Series colours (a common ten-colour palette).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Layout, in pixels: the margin around the chart, the caption's and the
/// labels' text sizes, and the areas left for the tick labels and axis
/// descriptions below and to the left of the plot.
const MARGIN: u32 = 12;
const CAPTION: u32 = 18;
const LABEL: u32 = 13;
const X_AREA: u32 = 44;
const Y_AREA: u32 = 76;
/// A legend entry's height, and the legend box's padding (plotters'
/// defaults for [`LABEL`]-sized text).
const LEGEND_ROW: u32 = 18;
const LEGEND_PAD: u32 = 16;
/// A band's opacity over its series' colour.
const BAND_ALPHA: f64 = 0.22;

/// The font handed in (the first), if it registered.
static FONT: OnceLock<Option<&'static [u8]>> = OnceLock::new();

/// Use `bytes` (a TrueType/OpenType font file) for the charts' text; the
/// first call in a process decides.
pub fn use_font(bytes: Vec<u8>) -> Result<(), Error> {
    let registered = FONT.get_or_init(|| {
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        let ok = plotters::style::register_font(FAMILY, FontStyle::Normal, bytes).is_ok();
        ok.then_some(bytes)
    });
    match registered {
        Some(_) => Ok(()),
        None => Err(Error::NotAFont),
    }
}

fn need_font() -> Result<&'static [u8], Error> {
    match FONT.get() {
        Some(Some(bytes)) => Ok(bytes),
        _ => Err(Error::NoFont),
    }
}

fn drawing(e: impl std::fmt::Display) -> Error {
    Error::Draw(e.to_string())
}

/// The chart as an SVG document.
pub fn svg(chart: &Chart, size: Size) -> Result<String, Error> {
    need_font()?;
    let mut text = String::new();
    {
        let root =
            SVGBackend::with_string(&mut text, (size.width, size.height)).into_drawing_area();
        draw(&root, chart).map_err(drawing)?;
        root.present().map_err(drawing)?;
    }
    Ok(text)
}

/// The chart as a PNG image (8-bit RGB).
pub fn png(chart: &Chart, size: Size) -> Result<Vec<u8>, Error> {
    let font = need_font()?;
    let font = ab_glyph::FontRef::try_from_slice(font).map_err(|_| Error::NotAFont)?;
    let (w, h) = (size.width, size.height);
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        // Text drawn by rfio (`super::raster`), the rest by plotters.
        let inner = BitMapBackend::with_buffer(&mut rgb, (w, h));
        let root = Raster { inner, font }.into_drawing_area();
        draw(&root, chart).map_err(drawing)?;
        root.present().map_err(drawing)?;
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .and_then(|mut w| w.write_image_data(&rgb))?;
    Ok(out)
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, c: &Chart) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let x = c.x.min..c.x.max;
    match c.x.scale {
        Scale::Linear => on_y(root, c, x),
        Scale::Log => on_y(root, c, x.log_scale().with_key_points(c.x.key_points())),
        Scale::Nines => on_y(root, c, NinesCoord(x, c.x.key_points())),
    }
}

/// The chart on an x axis of coordinate kind `X`, its y axis linear or
/// log.
fn on_y<DB, X>(root: &DrawingArea<DB, Shift>, c: &Chart, x: X) -> DrawResult<DB>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let labelled =
        !(c.bands.is_empty() && c.series.len() < 2 && c.series.iter().all(|s| s.label.is_empty()));
    let y = y_range(c, root.dim_in_pixel().1, labelled);
    match c.y.scale {
        Scale::Log => {
            let mut axis = c.y.clone();
            axis.max = y.end;
            let keys = axis.key_points();
            plot(root, c, x, y.log_scale().with_key_points(keys), labelled)
        }
        _ => plot(root, c, x, y, labelled),
    }
}

/// The chart on axes of coordinate kinds `X` and `Y`.
fn plot<DB, X, Y>(
    root: &DrawingArea<DB, Shift>,
    c: &Chart,
    x: X,
    y: Y,
    labelled: bool,
) -> DrawResult<DB>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(&c.title, (FAMILY, caption_size(root, &c.title)))
        .margin(MARGIN)
        .margin_right(3 * MARGIN)
        .x_label_area_size(X_AREA)
        .y_label_area_size(Y_AREA)
        .build_cartesian_2d(x, y)?;

    let (xf, yf) = (|v: &f64| c.x.tick_label(*v), |v: &f64| c.y.tick_label(*v));
    chart
        .configure_mesh()
        .max_light_lines(1)
        .light_line_style(RGBColor(240, 240, 240))
        .bold_line_style(RGBColor(215, 215, 215))
        .x_desc(c.x.label.as_str())
        .y_desc(c.y.label.as_str())
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style((FAMILY, LABEL))
        .axis_desc_style((FAMILY, LABEL + 1))
        .draw()?;

    // Bands first, under every line: the area between each x's least and
    // greatest value, a light shade of its series' colour.
    for b in &c.bands {
        let shade = PALETTE[b.series % PALETTE.len()].mix(BAND_ALPHA);
        let mut area: Vec<(f64, f64)> = b.points.iter().map(|&(x, lo, _)| (x, lo)).collect();
        area.extend(b.points.iter().rev().map(|&(x, _, hi)| (x, hi)));
        chart.draw_series(std::iter::once(Polygon::new(area, shade.filled())))?;
    }
    for (i, s) in c.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let drawn = match c.style {
            Style::Bars => {
                // A bar per bin, a fixed share of the axis wide.
                let edge = bar_edges(c);
                let base = c.y.min.max(0.0);
                chart.draw_series(s.points.iter().map(|&(x, y)| {
                    Rectangle::new([(x * edge.0, base), (x * edge.1, y)], color.filled())
                }))?
            }
            Style::Dots => {
                chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?
            }
            Style::Line | Style::LineDots => chart.draw_series(LineSeries::new(
                s.points.iter().copied(),
                color.stroke_width(2),
            ))?,
        };
        if labelled {
            drawn.label(s.label.as_str()).legend(move |(x, y)| {
                Rectangle::new([(x, y - 4), (x + 16, y + 4)], color.filled())
            });
        }
        if c.style == Style::LineDots || (c.style == Style::Line && s.points.len() == 1) {
            let dots = s.points.iter().map(|&p| Circle::new(p, 3, color.filled()));
            chart.draw_series(dots)?;
        }
    }
    // The bands' legend entries after the lines' (nothing more drawn).
    for b in c.bands.iter().filter(|_| labelled) {
        let shade = PALETTE[b.series % PALETTE.len()].mix(BAND_ALPHA);
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label(b.label.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 16, y + 4)], shade.filled()));
    }
    if labelled {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FAMILY, LABEL))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .draw()?;
    }
    Ok(())
}

/// A [`Scale::Nines`] axis: linear in [`super::axis::nines`] values,
/// with its ticks at the given ones (the whole nines: 0, 90, 99, 99.9,
/// ...). plotters' `with_key_points` would do, but it leaves `f64` axes
/// without a label formatter.
struct NinesCoord(Range<f64>, Vec<f64>);

impl Ranged for NinesCoord {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let Range { start, end } = self.0;
        let share = (v - start) / (end - start);
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        self.1.clone()
    }

    fn range(&self) -> Range<f64> {
        self.0.clone()
    }
}

/// The caption's text size: [`CAPTION`], or less where the title would
/// not fit the chart's width otherwise.
fn caption_size<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, title: &str) -> f64 {
    let room = f64::from(root.dim_in_pixel().0.saturating_sub(2 * MARGIN));
    let size = f64::from(CAPTION);
    match root.estimate_text_size(title, &TextStyle::from((FAMILY, size).into_font())) {
        Ok((w, _)) if f64::from(w) > room => (size * room / f64::from(w)).max(6.0),
        _ => size,
    }
}

/// The y range: the chart's, raised where a legend needs the room above
/// the highest point (it sits in the upper right corner, over no data).
fn y_range(c: &Chart, height: u32, labelled: bool) -> Range<f64> {
    let (lo, hi) = (c.y.min, c.y.max);
    if !labelled {
        return lo..hi;
    }
    let plot = f64::from(height.saturating_sub(2 * MARGIN + CAPTION + 12 + X_AREA));
    let rows = (c.series.len() + c.bands.len()) as u32;
    let legend = f64::from(LEGEND_PAD + LEGEND_ROW * rows + MARGIN);
    let top = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain(c.bands.iter().flat_map(|b| b.points.iter().map(|p| p.2)))
        .fold(lo, f64::max);
    // The data keep at least a third of the plot's height.
    let free = (plot - legend).max(plot / 3.0);
    if c.y.scale == Scale::Log {
        // The same, in decades; raised to a power of ten (its tick).
        let (l, t) = (lo.log10(), top.max(lo).log10());
        let need = 10f64.powf((l + (t - l) * plot / free).ceil());
        return lo..hi.max(need);
    }
    let need = lo + (top - lo) * plot / free;
    lo..hi.max(need)
}

/// A histogram bar's left and right edge as factors of its bin's value on
/// the log axis: 0.4 % of the axis's decades to each side.
fn bar_edges(c: &Chart) -> (f64, f64) {
    let decades = (c.x.max / c.x.min).log10().max(1.0);
    let k = 10f64.powf(0.004 * decades);
    (1.0 / k, k)
}

#[cfg(test)]
mod tests {
    use super::super::axis::Axis;
    use super::super::chart::Series;
    use super::*;

    fn chart(series: usize) -> Chart {
        Chart {
            name: "c".into(),
            title: "t".into(),
            x: Axis::linear("time (s)", 0.0, 1.0),
            y: Axis::linear("IOPS", 0.0, 105.0),
            style: Style::Line,
            series: (0..series)
                .map(|i| Series {
                    label: format!("s{i}"),
                    points: vec![(0.0, 50.0), (1.0, 100.0)],
                })
                .collect(),
            bands: Vec::new(),
        }
    }

    #[test]
    fn legends_get_room_above_the_data() {
        let one = chart(1);
        assert_eq!(y_range(&one, 480, false), 0.0..105.0);
        let two = y_range(&one, 480, true);
        let four = y_range(&chart(4), 480, true);
        assert!(two.end > 105.0 && four.end > two.end, "{two:?} {four:?}");
        // However many series, the data keep a third of the height.
        assert!(y_range(&chart(40), 480, true).end <= 300.0 + 1e-9);
    }

    /// A line that turns back on itself (a per-I/O log's spikes) strokes
    /// no pixel outside the plot area: plotters' mitred joins shot tens
    /// of pixels below the zero line.
    #[test]
    fn strokes_stay_in_the_plot_area() {
        let Ok(font) = std::fs::read("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf") else {
            panic!("fonts-dejavu-core is installed");
        };
        use_font(font).unwrap();
        let points: Vec<(f64, f64)> = (0..2000)
            .map(|i| {
                (
                    f64::from(i / 2) / 1000.0,
                    if i % 4 < 2 { 0.05 } else { 12.0 },
                )
            })
            .collect();
        let c = Chart {
            name: "c".into(),
            title: "t".into(),
            x: Axis::linear("time (s)", 0.0, 1.0),
            y: Axis::linear("clat (msec)", 0.0, 12.6),
            style: Style::Line,
            series: vec![Series {
                label: String::new(),
                points,
            }],
            bands: Vec::new(),
        };
        let size = Size::default();
        let bytes = png(&c, size).unwrap();
        let mut dec = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut rgb = vec![0; dec.output_buffer_size().unwrap()];
        dec.next_frame(&mut rgb).unwrap();
        let RGBColor(r, g, b) = PALETTE[0];
        let w = size.width as usize;
        // The plot's bottom row (y = 0) and its left column, and a pixel
        // of the 2-pixel stroke's half width beyond.
        let bottom = (size.height - MARGIN - X_AREA) as usize;
        let left = (MARGIN + Y_AREA) as usize;
        let right = (size.width - 3 * MARGIN) as usize;
        let mut inside = 0;
        for (i, p) in rgb.chunks(3).enumerate() {
            if p != [r, g, b] {
                continue;
            }
            let (x, y) = (i % w, i / w);
            assert!(
                y <= bottom + 1 && x + 1 >= left && x <= right + 1,
                "stroke at ({x}, {y}), plot bottom {bottom}, left {left}"
            );
            inside += 1;
        }
        assert!(inside > 1000, "the series is drawn");
    }

    /// One test, as the font is the process's: no chart without it, then
    /// a PNG drawn with DejaVu Sans (where installed) decodes to the size
    /// asked, white around a plot in the series' colour.
    #[test]
    fn charts_need_the_font_and_pngs_decode() {
        if FONT.get().is_none() {
            let e = svg(&chart(1), Size::default()).unwrap_err();
            assert!(matches!(e, Error::NoFont));
            assert_eq!(e.to_string(), "no font for the charts' text");
        }
        let Ok(font) = std::fs::read("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf") else {
            return;
        };
        use_font(font).unwrap();
        let size = Size {
            width: 320,
            height: 200,
        };
        let bytes = png(&chart(2), size).unwrap();
        let mut dec = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut rgb = vec![0; dec.output_buffer_size().unwrap()];
        let info = dec.next_frame(&mut rgb).unwrap();
        assert_eq!((info.width, info.height), (320, 200));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(&rgb[..3], &[255, 255, 255]);
        let RGBColor(r, g, b) = PALETTE[0];
        assert!(rgb.chunks(3).any(|p| p == [r, g, b]));
        assert!(svg(&chart(2), size).unwrap().contains("<polyline"));
    }
}
