//! Card faces and backs drawn by code: index corners from a bundled open-licence font (Hack, MIT /
//! Bitstream Vera licence, shipped by the `epaint_default_fonts` crate), pips as filled shapes,
//! simple framed court designs. Faces are drawn once per size and style and cached by the caller.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use opencv::core::{self, Mat, Point, Rect, Scalar, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::cards::{Card, Rank, Suit};
use crate::geometry::Pt;

pub use crate::cards::CARD_ASPECT;
use crate::cards::physical;

/// Which typeface draws the index: one bundled with the program, or any TrueType/OpenType font
/// given as bytes (training data uses the fonts installed on the machine, for variety).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexFont {
    Hack,
    Ubuntu,
    Custom(std::sync::Arc<[u8]>),
}

impl IndexFont {
    fn bytes(&self) -> &[u8] {
        match self {
            IndexFont::Hack => epaint_default_fonts::HACK_REGULAR,
            IndexFont::Ubuntu => epaint_default_fonts::UBUNTU_LIGHT,
            IndexFont::Custom(bytes) => bytes,
        }
    }
}

/// How a face is drawn; varied by the random scene generator so that recognisers see many designs.
#[derive(Clone, Debug, PartialEq)]
pub struct FaceStyle {
    pub font: IndexFont,
    /// Rank glyph height as a fraction of the card width.
    pub index_height: f64,
    /// Extra stroke weight for the index glyphs, in pixels at a 250 px wide card.
    pub weight: f64,
    pub paper: Scalar,
    pub red: Scalar,
    pub black: Scalar,
    pub court_accent: Scalar,
    /// Draw the index's suit sign with the typeface's own ♣♦♥♠ when it has them (decks differ
    /// in their suit shapes), else with the drawn pips.
    pub font_suits: bool,
    /// Where the index and the pips lie.
    pub layout: FaceLayout,
    /// How court cards are drawn.
    pub court: CourtStyle,
}

/// Where a face's marks lie, as fractions of the card's width (decks differ: a large index or
/// a small one, pips near the index or well away from it).
#[derive(Clone, Debug, PartialEq)]
pub struct FaceLayout {
    /// The index box's left and top edges.
    pub index_x: f64,
    pub index_y: f64,
    /// A pip's height in the card's middle.
    pub pip_size: f64,
    /// The pip columns' distance from the card's middle.
    pub pip_column: f64,
    /// The top pip row, as a fraction of the card's height (the bottom row mirrors it).
    pub pip_top: f64,
}

impl Default for FaceLayout {
    fn default() -> Self {
        FaceLayout {
            index_x: physical::INDEX_X,
            index_y: physical::INDEX_Y,
            pip_size: 0.17,
            pip_column: 0.2,
            pip_top: 0.2,
        }
    }
}

/// How court cards are drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum CourtStyle {
    /// A framed large letter under a headdress (plain, and easy to tell apart in tests).
    Letter,
    /// A picture as real decks print one: a frame starting `inset` of the width from the edge,
    /// filled with many coloured shapes (drawn from `seed`), turned about the middle as court
    /// pictures are, and a small suit sign in its top corner.
    Picture { seed: u64, inset: f64 },
}

impl Default for FaceStyle {
    fn default() -> Self {
        FaceStyle {
            font: IndexFont::Hack,
            index_height: physical::INDEX_GLYPH,
            weight: 1.5,
            paper: bgr(246, 244, 238),
            red: bgr(200, 24, 32),
            black: bgr(20, 20, 24),
            court_accent: bgr(40, 90, 190),
            font_suits: false,
            layout: FaceLayout::default(),
            court: CourtStyle::Letter,
        }
    }
}

/// A card back: a coloured field with a lattice and a white margin.
#[derive(Clone, Debug, PartialEq)]
pub struct BackStyle {
    pub field: Scalar,
    pub lattice: Scalar,
    pub margin: Scalar,
}

impl Default for BackStyle {
    fn default() -> Self {
        BackStyle { field: bgr(40, 60, 150), lattice: bgr(90, 120, 210), margin: bgr(240, 240, 236) }
    }
}

pub fn bgr(r: u8, g: u8, b: u8) -> Scalar {
    Scalar::new(f64::from(b), f64::from(g), f64::from(r), 255.0)
}

/// Face size in pixels for a given width.
pub fn face_size(width: i32) -> (i32, i32) {
    physical::face_size(width)
}

/// The top-left index area (rank above suit) of a face `width` pixels wide, in face pixels.
/// The bottom-right index is the same box turned 180° about the card centre.
pub fn index_box(width: i32, style: &FaceStyle) -> Rect {
    let (x, y) = (style.layout.index_x, style.layout.index_y);
    let (left, top, w, h) = physical::index_box(width, x, y, style.index_height);
    Rect::new(left, top, w, h)
}

/// Draws the face of `card`, BGR, `width` pixels wide.
pub fn draw_face(card: Card, style: &FaceStyle, width: i32) -> opencv::Result<Mat> {
    let (w, h) = face_size(width);
    let mut face = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, style.paper)?;
    let ink = if card.is_red() { style.red } else { style.black };
    draw_index(&mut face, card, style, ink)?;
    mirror_index(&mut face, index_box(width, style))?;
    match card.rank.value() {
        1 => draw_pip(
            &mut face,
            card.suit,
            Pt::new(0.5 * f64::from(w), 0.5 * f64::from(h)),
            0.36 * f64::from(w),
            false,
            ink,
        )?,
        11..=13 => match style.court {
            CourtStyle::Letter => draw_court(&mut face, card, style, ink)?,
            CourtStyle::Picture { seed, inset } => draw_picture(&mut face, card, style, ink, seed, inset)?,
        },
        n => draw_pips(&mut face, card.suit, n, &style.layout, ink)?,
    }
    Ok(face)
}

/// Draws a card back, BGR, `width` pixels wide.
pub fn draw_back(style: &BackStyle, width: i32) -> opencv::Result<Mat> {
    let (w, h) = face_size(width);
    let mut back = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, style.margin)?;
    let m = (0.06 * f64::from(w)) as i32;
    let field = Rect::new(m, m, w - 2 * m, h - 2 * m);
    imgproc::rectangle(&mut back, field, style.field, imgproc::FILLED, imgproc::LINE_8, 0)?;
    let step = (f64::from(w) / 9.0).max(4.0) as i32;
    let thickness = (w / 80).max(1);
    let mut roi = Mat::roi_mut(&mut back, field)?;
    for k in (-field.height..field.width + field.height).step_by(step as usize) {
        let a = Point::new(k, 0);
        imgproc::line(
            &mut roi,
            a,
            Point::new(k + field.height, field.height),
            style.lattice,
            thickness,
            imgproc::LINE_AA,
            0,
        )?;
        imgproc::line(
            &mut roi,
            a,
            Point::new(k - field.height, field.height),
            style.lattice,
            thickness,
            imgproc::LINE_AA,
            0,
        )?;
    }
    Ok(back)
}

/// A mask (255 inside) of the rounded card outline, for compositing faces onto a table.
pub fn card_mask(width: i32) -> opencv::Result<Mat> {
    let (w, h) = face_size(width);
    let mut mask = Mat::new_rows_cols_with_default(h, w, core::CV_8UC1, Scalar::all(0.0))?;
    let r = (0.06 * f64::from(w)).round() as i32;
    let white = Scalar::all(255.0);
    imgproc::rectangle(&mut mask, Rect::new(r, 0, w - 2 * r, h), white, imgproc::FILLED, imgproc::LINE_8, 0)?;
    imgproc::rectangle(&mut mask, Rect::new(0, r, w, h - 2 * r), white, imgproc::FILLED, imgproc::LINE_8, 0)?;
    for (cx, cy) in [(r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)] {
        imgproc::circle(&mut mask, Point::new(cx, cy), r, white, imgproc::FILLED, imgproc::LINE_AA, 0)?;
    }
    Ok(mask)
}

/// Where the top-left index's marks lie on a face `width` pixels wide: the rank's top centre,
/// its cap height, the pip's top centre and its height (face pixels).
fn index_layout(width: i32, style: &FaceStyle) -> (Pt, f64, Pt, f64) {
    let w = f64::from(width);
    let bx = index_box(width, style);
    let centre_x = f64::from(bx.x) + f64::from(bx.width) / 2.0;
    let glyph_h = style.index_height * w;
    let top = f64::from(bx.y) + 0.02 * w;
    (Pt::new(centre_x, top), glyph_h, Pt::new(centre_x, top + glyph_h * 1.25), glyph_h * 0.85)
}

/// The centres of the top-left index's rank and pip on a face `width` pixels wide (face
/// pixels); the bottom-right index's are these turned 180° about the face's centre.
pub fn index_marks(width: i32, style: &FaceStyle) -> (Pt, Pt) {
    let (rank_top, glyph_h, pip_top, pip_h) = index_layout(width, style);
    (Pt::new(rank_top.x, rank_top.y + glyph_h / 2.0), Pt::new(pip_top.x, pip_top.y + pip_h / 2.0))
}

fn draw_index(face: &mut Mat, card: Card, style: &FaceStyle, ink: Scalar) -> opencv::Result<()> {
    let bx = index_box(face.cols(), style);
    let (rank_top, glyph_h, pip_top, pip_h) = index_layout(face.cols(), style);
    let (centre_x, top, pip_top) = (rank_top.x, rank_top.y, pip_top.y);
    draw_text(face, card.rank.code(), style, Pt::new(centre_x, top), glyph_h, f64::from(bx.width) * 0.9, ink)?;
    if style.font_suits && has_glyph(&style.font, card.suit.symbol()) {
        let sign = card.suit.symbol().to_string();
        return draw_text(face, &sign, style, Pt::new(centre_x, pip_top), pip_h, f64::from(bx.width) * 0.9, ink);
    }
    draw_pip(face, card.suit, Pt::new(centre_x, pip_top + pip_h / 2.0), pip_h, false, ink)
}

fn has_glyph(font: &IndexFont, c: char) -> bool {
    FontRef::try_from_slice(font.bytes()).is_ok_and(|f| f.glyph_id(c).0 != 0)
}

/// Copies the top-left index, turned 180°, into the bottom-right corner.
fn mirror_index(face: &mut Mat, bx: Rect) -> opencv::Result<()> {
    let corner = Mat::roi(face, bx)?.try_clone()?;
    let mut turned = Mat::default();
    core::flip(&corner, &mut turned, -1)?;
    let target = Rect::new(face.cols() - bx.x - bx.width, face.rows() - bx.y - bx.height, bx.width, bx.height);
    let mut dst = Mat::roi_mut(face, target)?;
    turned.copy_to(&mut dst)
}

/// Text centred on `top_centre.x`, its cap height `height` pixels, its top at `top_centre.y`.
fn draw_text(
    face: &mut Mat,
    text: &str,
    style: &FaceStyle,
    top_centre: Pt,
    height: f64,
    max_width: f64,
    ink: Scalar,
) -> opencv::Result<()> {
    let font =
        FontRef::try_from_slice(style.font.bytes()).map_err(|e| opencv::Error::new(core::StsError, e.to_string()))?;
    let cap = font.as_scaled(PxScale::from(1.0)).ascent() * 0.72;
    // Narrow "10" so that both digits fit the index column, as real decks do.
    let squeeze = if text.chars().count() > 1 { 0.72 } else { 1.0 };
    let unit_advance: f32 =
        text.chars().map(|c| font.as_scaled(PxScale::from(1.0)).h_advance(font.glyph_id(c))).sum::<f32>() * squeeze;
    // Wide typefaces are drawn smaller so that the index stays inside its column.
    let size = (height / f64::from(cap)).min(max_width / f64::from(unit_advance.max(1e-3)));
    let scale = PxScale::from(size as f32);
    let scaled = font.as_scaled(scale);
    let advance = unit_advance * size as f32;
    let mut pen_x = top_centre.x as f32 - advance / 2.0;
    let baseline = (top_centre.y + height) as f32;
    let smear = (style.weight * f64::from(face.cols()) / 250.0).max(0.0);
    for c in text.chars() {
        let id = font.glyph_id(c);
        let glyph = id.with_scale_and_position(scale, ab_glyph::point(0.0, baseline));
        if let Some(outline) = font.outline_glyph(glyph) {
            let bounds = outline.px_bounds();
            let mut coverage = vec![0f32; (bounds.width() as usize + 1) * (bounds.height() as usize + 1)];
            let stride = bounds.width() as usize + 1;
            outline.draw(|x, y, c| coverage[y as usize * stride + x as usize] = c);
            let origin = Pt::new(f64::from(pen_x + bounds.min.x * squeeze), f64::from(bounds.min.y));
            blend_coverage(face, &coverage, stride, origin, squeeze, smear, ink)?;
        }
        pen_x += scaled.h_advance(id) * squeeze;
    }
    Ok(())
}

/// Paints `ink` through a coverage map, squeezed horizontally and thickened by `smear` pixels.
fn blend_coverage(
    face: &mut Mat,
    coverage: &[f32],
    stride: usize,
    origin: Pt,
    squeeze: f32,
    smear: f64,
    ink: Scalar,
) -> opencv::Result<()> {
    let rows = coverage.len() / stride;
    let reach = smear.ceil() as i32;
    let sample = |x: f64, y: f64| -> f32 {
        let (xi, yi) = ((x / f64::from(squeeze)).floor(), y.floor());
        if xi < 0.0 || yi < 0.0 || xi as usize >= stride || yi as usize >= rows {
            return 0.0;
        }
        coverage[yi as usize * stride + xi as usize]
    };
    let width = (stride as f64 * f64::from(squeeze)).ceil() as i32;
    for py in -reach..rows as i32 + reach {
        for px in -reach..width + reach {
            let mut c = 0f32;
            for dy in -reach..=reach {
                for dx in -reach..=reach {
                    if f64::from(dx * dx + dy * dy) <= smear * smear + 0.01 {
                        c = c.max(sample(f64::from(px + dx), f64::from(py + dy)));
                    }
                }
            }
            if c > 0.0 {
                paint(face, origin.x as i32 + px, origin.y as i32 + py, ink, c)?;
            }
        }
    }
    Ok(())
}

fn paint(face: &mut Mat, x: i32, y: i32, ink: Scalar, alpha: f32) -> opencv::Result<()> {
    if x < 0 || y < 0 || x >= face.cols() || y >= face.rows() {
        return Ok(());
    }
    let px = face.at_2d_mut::<core::Vec3b>(y, x)?;
    for ch in 0..3 {
        let old = f32::from(px[ch]);
        px[ch] = (old + (ink[ch] as f32 - old) * alpha.min(1.0)).round() as u8;
    }
    Ok(())
}

/// Pip positions for 2–10 as (column, row): column −1/0/1, row 0 (top) … 1 (bottom).
fn pip_layout(n: u8) -> Vec<(f64, f64)> {
    let sides = |rows: &[f64]| rows.iter().flat_map(|&r| [(-1.0, r), (1.0, r)]).collect::<Vec<_>>();
    let mut pips = match n {
        2 | 3 => vec![(0.0, 0.0), (0.0, 1.0)],
        4 | 5 => sides(&[0.0, 1.0]),
        6..=8 => sides(&[0.0, 0.5, 1.0]),
        _ => sides(&[0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]),
    };
    match n {
        3 | 5 | 9 => pips.push((0.0, 0.5)),
        7 => pips.push((0.0, 0.25)),
        8 => pips.extend([(0.0, 0.25), (0.0, 0.75)]),
        10 => pips.extend([(0.0, 1.0 / 6.0), (0.0, 5.0 / 6.0)]),
        _ => {}
    }
    pips
}

fn draw_pips(face: &mut Mat, suit: Suit, n: u8, layout: &FaceLayout, ink: Scalar) -> opencv::Result<()> {
    let (w, h) = (f64::from(face.cols()), f64::from(face.rows()));
    let size = layout.pip_size * w;
    let (top, span) = (layout.pip_top, 1.0 - 2.0 * layout.pip_top);
    for (col, row) in pip_layout(n) {
        let centre = Pt::new(w * (0.5 + col * layout.pip_column), h * (top + row * span));
        draw_pip(face, suit, centre, size, row > 0.5, ink)?;
    }
    Ok(())
}

/// A framed court: coloured frame, a large letter, a suit pip and a headdress that differs by rank.
fn draw_court(face: &mut Mat, card: Card, style: &FaceStyle, ink: Scalar) -> opencv::Result<()> {
    let (w, h) = (f64::from(face.cols()), f64::from(face.rows()));
    let frame = Rect::new((0.24 * w) as i32, (0.12 * h) as i32, (0.52 * w) as i32, (0.76 * h) as i32);
    let thickness = (w / 60.0).max(1.0) as i32;
    imgproc::rectangle(face, frame, style.court_accent, thickness, imgproc::LINE_AA, 0)?;
    let cx = w / 2.0;
    draw_headdress(face, card.rank, Pt::new(cx, 0.3 * h), 0.34 * w, ink, style.court_accent)?;
    draw_text(face, card.rank.code(), style, Pt::new(cx, 0.42 * h), 0.22 * w, 0.44 * w, ink)?;
    draw_pip(face, card.suit, Pt::new(cx, 0.72 * h), 0.2 * w, false, ink)
}

/// A court picture as real decks print one (see `CourtStyle::Picture`): many shapes in the
/// deck's colours inside a frame, the top half drawn and the bottom half the same turned about
/// the middle, a suit sign in the frame's top corner.
fn draw_picture(
    face: &mut Mat,
    card: Card,
    style: &FaceStyle,
    ink: Scalar,
    seed: u64,
    inset: f64,
) -> opencv::Result<()> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (card.index() as u64).wrapping_mul(0x9e37_79b9));
    let (w, h) = (f64::from(face.cols()), f64::from(face.rows()));
    let (x0, y0) = (inset * w, inset * w * 0.8);
    let (x1, y1) = (w - x0, h - y0);
    let gold = bgr(230, 190, 40);
    let palette = [style.red, style.black, style.court_accent, gold, bgr(240, 200, 160), bgr(30, 70, 160)];
    let mut half = face.try_clone()?;
    let mid = h / 2.0;
    for _ in 0..rng.random_range(25..70) {
        let colour = palette[rng.random_range(0..palette.len())];
        let c = Pt::new(rng.random_range(x0..x1), rng.random_range(y0..mid));
        let r = rng.random_range(0.02..0.12) * w;
        let sides = rng.random_range(3..9);
        let turn = rng.random_range(0.0..std::f64::consts::TAU);
        let pts: Vec<Pt> = (0..sides)
            .map(|i| {
                let a = turn + f64::from(i) * std::f64::consts::TAU / f64::from(sides);
                let k = rng.random_range(0.6..1.0);
                Pt::new((c.x + r * k * a.cos()).clamp(x0, x1), (c.y + r * k * a.sin()).clamp(y0, mid))
            })
            .collect();
        if rng.random_bool(0.25) {
            let t = (rng.random_range(0.004..0.015) * w).max(1.0) as i32;
            let (a, b) = (pts[0], pts[pts.len() / 2]);
            let (a, b) = (Point::new(a.x as i32, a.y as i32), Point::new(b.x as i32, b.y as i32));
            imgproc::line(&mut half, a, b, colour, t, imgproc::LINE_AA, 0)?;
        } else {
            fill(&mut half, &pts, colour)?;
        }
    }
    // The bottom half is the top half turned about the middle.
    let top = Rect::new(0, 0, face.cols(), (mid.ceil()) as i32);
    let upper = Mat::roi(&half, top)?.try_clone()?;
    let mut turned = Mat::default();
    core::flip(&upper, &mut turned, -1)?;
    turned.copy_to(&mut Mat::roi_mut(face, Rect::new(0, face.rows() - top.height, top.width, top.height))?)?;
    upper.copy_to(&mut Mat::roi_mut(face, top)?)?;
    let frame = Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32);
    let line = (w / rng.random_range(70.0..160.0)).max(1.0) as i32;
    let frame_ink = if rng.random_bool(0.5) { style.black } else { style.court_accent };
    imgproc::rectangle(face, frame, frame_ink, line, imgproc::LINE_AA, 0)?;
    let sign = 0.09 * w;
    let corner = Pt::new(x0 + sign * 0.9, y0 + sign * 0.9);
    draw_pip(face, card.suit, corner, sign, false, ink)?;
    draw_pip(face, card.suit, Pt::new(w - corner.x, h - corner.y), sign, true, ink)
}

fn draw_headdress(face: &mut Mat, rank: Rank, base: Pt, width: f64, ink: Scalar, accent: Scalar) -> opencv::Result<()> {
    let half = width / 2.0;
    let outline: Vec<Pt> = match rank {
        Rank::KING => {
            vec![(-1.0, 0.0), (-1.0, -0.8), (-0.5, -0.35), (0.0, -1.0), (0.5, -0.35), (1.0, -0.8), (1.0, 0.0)]
        }
        Rank::QUEEN => {
            vec![(-1.0, 0.0), (-0.7, -0.6), (-0.35, -0.3), (0.0, -0.75), (0.35, -0.3), (0.7, -0.6), (1.0, 0.0)]
        }
        _ => vec![(-1.0, 0.0), (-0.8, -0.5), (0.8, -0.5), (1.0, 0.0)],
    }
    .into_iter()
    .map(|(x, y)| Pt::new(base.x + x * half, base.y + y * half))
    .collect();
    fill(face, &outline, accent)?;
    let band = [
        Pt::new(base.x - half, base.y),
        Pt::new(base.x + half, base.y),
        Pt::new(base.x + half, base.y + 0.12 * width),
        Pt::new(base.x - half, base.y + 0.12 * width),
    ];
    fill(face, &band, ink)
}

/// One suit pip of height `size` centred on `centre`; `upside_down` for the lower half of a face.
pub fn draw_pip(
    img: &mut Mat,
    suit: Suit,
    centre: Pt,
    size: f64,
    upside_down: bool,
    ink: Scalar,
) -> opencv::Result<()> {
    let flip = if upside_down { -1.0 } else { 1.0 };
    for part in pip_parts(suit) {
        let pts: Vec<Pt> =
            part.iter().map(|p| Pt::new(centre.x + p.x * size * flip, centre.y + p.y * size * flip)).collect();
        fill(img, &pts, ink)?;
    }
    Ok(())
}

/// A suit shape as convex parts in unit coordinates (height 1, centred, y down).
fn pip_parts(suit: Suit) -> Vec<Vec<Pt>> {
    let circle = |cx: f64, cy: f64, r: f64| -> Vec<Pt> {
        (0..28)
            .map(|i| {
                let a = f64::from(i) * std::f64::consts::TAU / 28.0;
                Pt::new(cx + r * a.cos(), cy + r * a.sin())
            })
            .collect()
    };
    let tri =
        |a: (f64, f64), b: (f64, f64), c: (f64, f64)| vec![Pt::new(a.0, a.1), Pt::new(b.0, b.1), Pt::new(c.0, c.1)];
    match suit {
        Suit::Diamonds => vec![vec![Pt::new(0.0, -0.5), Pt::new(0.36, 0.0), Pt::new(0.0, 0.5), Pt::new(-0.36, 0.0)]],
        Suit::Hearts => vec![
            circle(-0.22, -0.22, 0.25),
            circle(0.22, -0.22, 0.25),
            vec![Pt::new(-0.46, -0.15), Pt::new(0.0, -0.2), Pt::new(0.46, -0.15), Pt::new(0.0, 0.5)],
        ],
        Suit::Spades => vec![
            circle(-0.22, 0.06, 0.23),
            circle(0.22, 0.06, 0.23),
            vec![Pt::new(0.0, -0.5), Pt::new(0.44, 0.0), Pt::new(0.0, 0.12), Pt::new(-0.44, 0.0)],
            tri((0.0, 0.05), (0.17, 0.5), (-0.17, 0.5)),
        ],
        Suit::Clubs => vec![
            circle(0.0, -0.26, 0.21),
            circle(-0.23, 0.07, 0.21),
            circle(0.23, 0.07, 0.21),
            circle(0.0, 0.0, 0.12),
            tri((0.0, 0.0), (0.17, 0.5), (-0.17, 0.5)),
        ],
    }
}

/// Fills a convex polygon given in image pixels, anti-aliased (sub-pixel precision via `shift`).
pub fn fill(img: &mut Mat, pts: &[Pt], colour: Scalar) -> opencv::Result<()> {
    const SHIFT: i32 = 4;
    let scale = f64::from(1 << SHIFT);
    let poly: Vector<Point> =
        pts.iter().map(|p| Point::new((p.x * scale).round() as i32, (p.y * scale).round() as i32)).collect();
    imgproc::fill_convex_poly(img, &poly, colour, imgproc::LINE_AA, SHIFT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ink_fraction(img: &Mat, rect: Rect, paper: Scalar) -> f64 {
        let roi = Mat::roi(img, rect).unwrap();
        let mut inked = 0;
        for y in 0..roi.rows() {
            for x in 0..roi.cols() {
                let p = roi.at_2d::<core::Vec3b>(y, x).unwrap();
                let diff: i32 = (0..3).map(|c| (i32::from(p[c]) - paper[c] as i32).abs()).sum();
                inked += i32::from(diff > 120);
            }
        }
        f64::from(inked) / f64::from(rect.area())
    }

    #[test]
    fn every_face_has_ink_in_both_index_corners_and_the_centre() {
        let style = FaceStyle::default();
        for card in Card::deck() {
            let face = draw_face(card, &style, 200).unwrap();
            let bx = index_box(200, &style);
            let opposite =
                Rect::new(face.cols() - bx.x - bx.width, face.rows() - bx.y - bx.height, bx.width, bx.height);
            let centre = Rect::new(50, 28, 100, 224);
            for rect in [bx, opposite, centre] {
                let f = ink_fraction(&face, rect, style.paper);
                assert!(f > 0.04, "{card}: only {f:.3} ink in {rect:?}");
            }
        }
    }

    #[test]
    fn pip_layouts_have_as_many_pips_as_the_rank() {
        for n in 2..=10u8 {
            assert_eq!(pip_layout(n).len(), usize::from(n));
        }
    }

    #[test]
    fn red_suits_are_drawn_red() {
        let style = FaceStyle::default();
        let face = draw_face("7H".parse().unwrap(), &style, 200).unwrap();
        let (mut red, mut black) = (0, 0);
        for y in 0..face.rows() {
            for x in 0..face.cols() {
                let p = face.at_2d::<core::Vec3b>(y, x).unwrap();
                red += i32::from(p[2] > 150 && p[1] < 90);
                black += i32::from(p[2] < 60 && p[1] < 60);
            }
        }
        assert!(red > 1000 && black == 0, "red {red} black {black}");
    }
}
