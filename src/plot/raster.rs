//! The PNG backend's two fixes over plotters 0.3.7's bitmap drawing.
//!
//! Lines: plotters strokes a polyline wider than a pixel as one polygon
//! with mitred joins, and where a line turns back on itself (a per-I/O
//! log's spikes, thinned to each run's minimum and maximum) the mitre
//! points shoot far past the plot area, below the zero line. [`Raster`]
//! strokes each segment on its own with a round join (a dot of the
//! line's width at each point), so that no stroke strays more than half
//! its width from the data.
//!
//! Text, laid out as the SVG's: plotters 0.3.7 draws bitmap text
//! through ab_glyph but places each glyph's outline at the pen position
//! without its left side bearing, so narrow letters collide ("clat" reads
//! "dlat") and dots vanish. [`Raster`] wraps the bitmap backend and draws
//! text itself: each glyph at its pen position plus its bounds, kerned,
//! the baseline so that capitals sit centred in plotters' layout box.
//! Everything else goes to the wrapped backend.

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// A backend drawing its text with `font`, the rest with `inner`.
pub struct Raster<'f, DB> {
    pub inner: DB,
    pub font: FontRef<'f>,
}

/// Capital height as a share of the em (DejaVu Sans: 1493 / 2048).
const CAP_EM: f32 = 0.73;

impl<DB: DrawingBackend> DrawingBackend for Raster<'_, DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.draw_pixel(p, c)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.draw_rect(a, b, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let width = style.stroke_width();
        if width <= 1 {
            return self.inner.draw_path(path, style);
        }
        let points: Vec<BackendCoord> = path.into_iter().collect();
        for pair in points.windows(2) {
            if pair[0] != pair[1] {
                self.inner.draw_path(pair.iter().copied(), style)?;
            }
        }
        if width > 2 {
            for &p in &points {
                self.inner.draw_circle(p, width / 2, style, true)?;
            }
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        // The box plotters laid the chart out with (its width: advances
        // and kerning, as here; its height: the size / 1.24).
        let ((x0, y0), (x1, y1)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (w, h) = (x1 - x0, y1 - y0);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -w,
            HPos::Center => -w / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -h / 2,
            VPos::Bottom => -h,
        };
        let scale = PxScale::from(style.size() as f32);
        let font = self.font.as_scaled(scale);
        let em = scale.y * font.font.units_per_em().unwrap_or(2048.0) / font.font.height_unscaled();
        let baseline = (h as f32 + CAP_EM * em) / 2.0;
        let trans = style.transform();
        let (bw, bh) = self.get_size();
        let mut caret = 0.0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                caret += font.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(scale, point(caret, baseline));
            caret += font.h_advance(id);
            let Some(outline) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            let mut px = Vec::new();
            outline.draw(|x, y, cover| px.push((x, y, cover)));
            for (x, y, cover) in px {
                if cover <= 0.0 {
                    continue;
                }
                let gx = bounds.min.x as i32 + x as i32;
                let gy = bounds.min.y as i32 + y as i32;
                let (tx, ty) = trans.transform(gx + dx, gy + dy);
                let (tx, ty) = (pos.0 + tx, pos.1 + ty);
                if tx >= 0 && ty >= 0 && (tx as u32) < bw && (ty as u32) < bh {
                    let c = BackendColor {
                        alpha: color.alpha * f64::from(cover.min(1.0)),
                        rgb: color.rgb,
                    };
                    self.inner.draw_pixel((tx, ty), c)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use plotters::prelude::*;

    use super::*;

    const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

    /// The inked columns of `text` drawn at x = 10 in black, `px` high.
    fn ink_columns(text: &str, px: u32) -> Vec<bool> {
        let bytes = std::fs::read(DEJAVU).expect("fonts-dejavu-core is installed");
        super::super::render::use_font(bytes.clone()).unwrap();
        let (w, h) = (200u32, 80u32);
        let mut rgb = vec![255u8; (w * h * 3) as usize];
        {
            let font = FontRef::try_from_slice(&bytes).unwrap();
            let inner = plotters::backend::BitMapBackend::with_buffer(&mut rgb, (w, h));
            let mut b = Raster { inner, font };
            let style = TextStyle::from(("sans-serif", px).into_font()).color(&BLACK);
            b.draw_text(text, &style, (10, 10)).unwrap();
            b.present().unwrap();
        }
        (0..w as usize)
            .map(|x| (0..h as usize).any(|y| rgb[(y * w as usize + x) * 3] < 128))
            .collect()
    }

    /// A glyph keeps its left side bearing (plotters' own drawing puts
    /// every outline at the pen position: "l" starts at 10, and in
    /// "clat" the l touches the c).
    #[test]
    fn glyphs_keep_their_bearings() {
        let cols = ink_columns("l", 40);
        let first = cols.iter().position(|&c| c).unwrap();
        let font = FontRef::try_from_slice(DEJAVU_BYTES.get_or_init(read)).unwrap();
        let scaled = font.as_scaled(PxScale::from(40.0));
        let lsb = scaled.h_side_bearing(scaled.glyph_id('l'));
        assert!(lsb > 2.0, "{lsb}");
        assert_eq!(first, 10 + lsb.floor() as usize, "lsb {lsb}");
        // At the charts' label size, c and l stay apart.
        let cols = ink_columns("cl", 13);
        let runs = cols.windows(2).filter(|w| w[0] && !w[1]).count();
        assert_eq!(runs, 2, "c and l touch: {cols:?}");
    }

    static DEJAVU_BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

    fn read() -> Vec<u8> {
        std::fs::read(DEJAVU).unwrap()
    }
}
