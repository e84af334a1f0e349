//! Drawing a [`Chart`] with plotters: SVG text (no font needed: the
//! viewer lays text out) or PNG bytes (text rasterised with a TrueType
//! font handed in once, [`use_font`]).
//!
//! The layout is fixed (margins, ticks, legend) rather than measured, so
//! that SVG needs no font: labels are placed by their anchors.

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{Chart, Style};

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

static FONT: OnceLock<Result<(), String>> = OnceLock::new();

/// Use `bytes` (a TrueType/OpenType font file) for the text of PNG
/// charts; the first call in a process decides.
pub fn use_font(bytes: Vec<u8>) -> Result<(), String> {
    FONT.get_or_init(|| {
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font(FAMILY, FontStyle::Normal, bytes)
            .map_err(|_| "not a TrueType or OpenType font".to_string())
    })
    .clone()
}

/// Whether [`use_font`] succeeded in this process.
pub fn has_font() -> bool {
    matches!(FONT.get(), Some(Ok(())))
}

/// The chart as an SVG document.
pub fn svg(chart: &Chart, size: Size) -> Result<String, String> {
    let mut text = String::new();
    {
        let root =
            SVGBackend::with_string(&mut text, (size.width, size.height)).into_drawing_area();
        draw(&root, chart, 1.24).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

/// The chart as a PNG image (8-bit RGB).
pub fn png(chart: &Chart, size: Size) -> Result<Vec<u8>, String> {
    if !has_font() {
        return Err("no font for the text of PNG charts".into());
    }
    let (w, h) = (size.width, size.height);
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, chart, 1.0).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    encode_png(&rgb, w, h)
}

/// An 8-bit RGB image as a PNG file: the signature, IHDR, one IDAT (the
/// rows, each behind filter byte 0, in a zlib stream) and IEND, each chunk
/// with its CRC-32 (PNG spec §5; flate2 and crc are rfio's already).
fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    for row in rgb.chunks(w as usize * 3) {
        z.write_all(&[0])
            .and_then(|()| z.write_all(row))
            .map_err(|e| e.to_string())?;
    }
    let idat = z.finish().map_err(|e| e.to_string())?;
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    // Bit depth 8, colour type 2 (RGB), deflate, adaptive filters, no interlace.
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", &ihdr), (b"IDAT", &idat), (b"IEND", &Vec::new())] {
        let len = u32::try_from(data.len()).map_err(|_| "image too large".to_string())?;
        out.extend_from_slice(&len.to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    Ok(out)
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Text `size` px high. plotters writes SVG font sizes as size / 1.24
/// (its em box); SVG text is sized up by that to look as in the PNG.
fn text_style(size: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FAMILY, size).into_font())
        .color(&BLACK)
        .pos(Pos::new(h, v))
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, c: &Chart, k: f64) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let (w, h) = root.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    // The plot box: room for the title above, tick labels and the axis
    // label below and to the left.
    let (left, right) = (86, w - 24);
    let places = legend_layout(c, right - left);
    let rows = places.last().map_or(0, |p| p.0 + 1);
    let (top, bottom) = (42 + ROW * rows, h - 56);
    if right <= left || bottom <= top {
        return Ok(());
    }
    let px = |x: f64| {
        left + ((x - c.x.min) / (c.x.max - c.x.min) * f64::from(right - left)).round() as i32
    };
    let py = |y: f64| {
        bottom - ((y - c.y.min) / (c.y.max - c.y.min) * f64::from(bottom - top)).round() as i32
    };

    root.draw(&Text::new(
        c.title.clone(),
        (w / 2, 12),
        text_style(18.0 * k, HPos::Center, VPos::Top),
    ))?;
    let grid = RGBColor(225, 225, 225).stroke_width(1);
    for (v, label) in &c.x.ticks {
        let x = px(*v);
        root.draw(&PathElement::new(vec![(x, top), (x, bottom)], grid))?;
        root.draw(&PathElement::new(vec![(x, bottom), (x, bottom + 5)], BLACK))?;
        root.draw(&Text::new(
            label.clone(),
            (x, bottom + 8),
            text_style(14.0 * k, HPos::Center, VPos::Top),
        ))?;
    }
    for (v, label) in &c.y.ticks {
        let y = py(*v);
        root.draw(&PathElement::new(vec![(left, y), (right, y)], grid))?;
        root.draw(&PathElement::new(vec![(left - 5, y), (left, y)], BLACK))?;
        root.draw(&Text::new(
            label.clone(),
            (left - 8, y),
            text_style(14.0 * k, HPos::Right, VPos::Center),
        ))?;
    }
    root.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        BLACK.stroke_width(1),
    ))?;
    root.draw(&Text::new(
        c.x.label.clone(),
        ((left + right) / 2, h - 8),
        text_style(15.0 * k, HPos::Center, VPos::Bottom),
    ))?;
    root.draw(&Text::new(
        c.y.label.clone(),
        (14, (top + bottom) / 2),
        TextStyle::from(
            (FAMILY, 15.0 * k)
                .into_font()
                .transform(FontTransform::Rotate270),
        )
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center)),
    ))?;

    for (i, s) in c.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts: Vec<(i32, i32)> = s.points.iter().map(|&(x, y)| (px(x), py(y))).collect();
        match c.style {
            Style::Bars => {
                let base = py(c.y.min.max(0.0));
                for &(x, y) in &pts {
                    root.draw(&PathElement::new(
                        vec![(x, base), (x, y)],
                        color.stroke_width(3),
                    ))?;
                }
            }
            Style::Line | Style::LineDots => {
                root.draw(&PathElement::new(pts.clone(), color.stroke_width(2)))?;
                if c.style == Style::LineDots || pts.len() == 1 {
                    for &p in &pts {
                        root.draw(&Circle::new(p, 3, color.filled()))?;
                    }
                }
            }
        }
    }
    legend(root, c, &places, left, 36, k)
}

const ROW: i32 = 18;

/// Where each legend entry goes, as (row, x offset), laid out left to
/// right in rows no wider than `width`; none for a single unlabelled
/// series. Text widths are estimated (13 px text is about 7 px a
/// character in common sans-serif fonts), as SVG text is not measured.
fn legend_layout(c: &Chart, width: i32) -> Vec<(i32, i32)> {
    if c.series.len() < 2 && c.series.iter().all(|s| s.label.is_empty()) {
        return Vec::new();
    }
    let (mut row, mut x) = (0, 0);
    let mut out = Vec::new();
    for s in &c.series {
        let w = 40 + 7 * s.label.chars().count() as i32;
        if x > 0 && x + w > width {
            row += 1;
            x = 0;
        }
        out.push((row, x));
        x += w;
    }
    out
}

/// The series' labels in rows between the title and the plot.
fn legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: &Chart,
    places: &[(i32, i32)],
    x0: i32,
    y0: i32,
    k: f64,
) -> DrawResult<DB> {
    for (i, (s, &(row, dx))) in c.series.iter().zip(places).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let (x, cy) = (x0 + dx, y0 + ROW / 2 + ROW * row);
        root.draw(&PathElement::new(
            vec![(x, cy), (x + 20, cy)],
            color.stroke_width(3),
        ))?;
        root.draw(&Text::new(
            s.label.clone(),
            (x + 25, cy),
            text_style(13.0 * k, HPos::Left, VPos::Center),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_files_have_their_chunks_and_pixels() {
        let rgb: Vec<u8> = (0..2 * 3 * 3).map(|i| i as u8).collect();
        let png = encode_png(&rgb, 3, 2).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[8..16], b"\0\0\0\x0dIHDR");
        assert_eq!(&png[16..29], &[0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
        // IEND's CRC is fixed: AE 42 60 82.
        assert_eq!(&png[png.len() - 12..], b"\0\0\0\0IEND\xae\x42\x60\x82");
        let idat_len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        assert_eq!(&png[37..41], b"IDAT");
        let mut rows = Vec::new();
        let mut z = flate2::read::ZlibDecoder::new(&png[41..41 + idat_len]);
        std::io::Read::read_to_end(&mut z, &mut rows).unwrap();
        let mut want = vec![0];
        want.extend_from_slice(&rgb[..9]);
        want.push(0);
        want.extend_from_slice(&rgb[9..]);
        assert_eq!(rows, want);
    }
}
