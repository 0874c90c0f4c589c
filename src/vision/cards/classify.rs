//! Reads one index glyph (a rank or a suit pip) by comparing its normalised binary mask with
//! templates. The built-in templates are rendered at start-up from the fonts bundled with the
//! program (no file, no network); an enrolled deck profile adds templates cut from real photos.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use opencv::{core, imgproc, prelude::*};

use crate::cards::{Rank, Suit};

/// The trained template set (see models/README.md).
const MODEL: &[u8] = include_bytes!("../../../models/card_glyphs.bin");

/// Side lengths of the normalised glyph mask.
pub const GLYPH_W: i32 = 20;
pub const GLYPH_H: i32 = 28;

/// A normalised glyph: `GLYPH_W x GLYPH_H` values in 0..1 plus the aspect of its bounding box.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GlyphFeature {
    pub pixels: Vec<f32>,
    pub aspect: f32,
}

impl GlyphFeature {
    /// From a binary mask (non-zero = ink) cropped to the glyph's bounding box.
    pub fn from_mask(mask: &Mat) -> opencv::Result<GlyphFeature> {
        let aspect = mask.cols() as f32 / mask.rows().max(1) as f32;
        let mut small = Mat::default();
        imgproc::resize(mask, &mut small, core::Size::new(GLYPH_W, GLYPH_H), 0.0, 0.0, imgproc::INTER_AREA)?;
        // Blurring makes the comparison tolerant of stroke width and small shifts.
        let mut soft = Mat::default();
        imgproc::gaussian_blur(&small, &mut soft, core::Size::new(5, 5), 1.2, 1.2, core::BORDER_CONSTANT)?;
        let bytes = soft.data_bytes()?;
        let pixels = bytes.iter().map(|&v| f32::from(v) / 255.0).collect();
        Ok(GlyphFeature::normalised(pixels, aspect))
    }

    /// Scales the pixels to unit length, so that a comparison is a dot product.
    pub fn normalised(mut pixels: Vec<f32>, aspect: f32) -> GlyphFeature {
        let norm = pixels.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            pixels.iter_mut().for_each(|v| *v /= norm);
        }
        GlyphFeature { pixels, aspect }
    }

    /// Normalised correlation of the masks, lowered when the aspects differ: 1 = identical.
    pub fn similarity(&self, other: &GlyphFeature) -> f32 {
        dot(&self.pixels, &other.pixels) * aspect_factor(self.aspect, other.aspect)
    }
}

/// How much a difference in aspect lowers a similarity: 1 for equal aspects.
fn aspect_factor(a: f32, b: f32) -> f32 {
    (-(a / b).ln().abs() * 1.5).exp()
}

/// A dot product in eight independent lanes: a plain `zip().sum()` over f32 must add in order and
/// so cannot use the processor's vector units; this is the detector's innermost loop.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8.remainder().iter().zip(b8.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a8.zip(b8) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// What a template stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlyphClass {
    Rank(Rank),
    Suit(Suit),
}

/// The glyph templates one reader compares with.
#[derive(Clone, Debug, Default)]
pub struct GlyphTemplates {
    pub templates: Vec<(GlyphClass, GlyphFeature)>,
}

impl GlyphTemplates {
    /// The templates the program ships with: glyphs rendered from the bundled fonts, drawn suit
    /// pips, and the trained template set `models/card_glyphs.bin` (compiled in).
    pub fn builtin() -> opencv::Result<GlyphTemplates> {
        let bundled = [epaint_default_fonts::UBUNTU_LIGHT, epaint_default_fonts::HACK_REGULAR];
        let mut set = GlyphTemplates::render(&bundled, true)?;
        for suit in Suit::ALL {
            for narrow in [0.8f32, 1.0] {
                push_variants(&mut set.templates, GlyphClass::Suit(suit), &draw_pip(suit, narrow)?)?;
            }
        }
        let model = GlyphTemplates::decode(MODEL)
            .map_err(|e| opencv::Error::new(core::StsParseError, format!("models/card_glyphs.bin: {e}")))?;
        set.templates.extend(model.templates);
        Ok(set)
    }

    /// Renders every rank (and every suit sign a font has) from the given font files, each at
    /// two widths; `variants` adds thickened and thinned copies.
    pub fn render(fonts: &[&[u8]], variants: bool) -> opencv::Result<GlyphTemplates> {
        let mut templates = Vec::new();
        for data in fonts {
            let Ok(font) = FontRef::try_from_slice(data) else {
                continue;
            };
            let mut add = |class: GlyphClass, text: &str, squeeze: f32| -> opencv::Result<()> {
                if let Some(mask) = render_text(&font, text, squeeze)? {
                    if variants {
                        push_variants(&mut templates, class, &mask)?;
                    } else {
                        templates.push((class, GlyphFeature::from_mask(&mask)?));
                    }
                }
                Ok(())
            };
            for rank in Rank::all() {
                for squeeze in [0.55f32, 0.75, 1.0] {
                    add(GlyphClass::Rank(rank), rank.code(), squeeze)?;
                }
            }
            for suit in Suit::ALL {
                add(GlyphClass::Suit(suit), &suit.symbol().to_string(), 1.0)?;
            }
        }
        Ok(GlyphTemplates { templates })
    }

    /// The compact binary form: `CRG1`, a u32 count, then per template a class byte (0..13 ranks
    /// A..K, 13..17 suits C D H S), the aspect as f32 and `GLYPH_W x GLYPH_H` bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = b"CRG1".to_vec();
        out.extend((self.templates.len() as u32).to_le_bytes());
        for (class, glyph) in &self.templates {
            out.push(match class {
                GlyphClass::Rank(r) => r.value() - 1,
                GlyphClass::Suit(s) => 13 + *s as u8,
            });
            out.extend(glyph.aspect.to_le_bytes());
            let max = glyph.pixels.iter().copied().fold(0.0f32, f32::max).max(f32::MIN_POSITIVE);
            out.extend(glyph.pixels.iter().map(|v| (v / max * 255.0).round() as u8));
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<GlyphTemplates, String> {
        let n_px = (GLYPH_W * GLYPH_H) as usize;
        if bytes.len() < 8 || &bytes[..4] != b"CRG1" {
            return Err("not a CRG1 template file".into());
        }
        let count = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
        let record = 1 + 4 + n_px;
        if bytes.len() != 8 + count * record {
            return Err(format!("length {} does not match {count} templates", bytes.len()));
        }
        let mut templates = Vec::with_capacity(count);
        for rec in bytes[8..].chunks_exact(record) {
            let class = match rec[0] {
                c @ 0..13 => GlyphClass::Rank(Rank::new(c + 1).ok_or("bad rank")?),
                c @ 13..17 => GlyphClass::Suit(Suit::ALL[usize::from(c - 13)]),
                c => return Err(format!("bad class byte {c}")),
            };
            let aspect = f32::from_le_bytes([rec[1], rec[2], rec[3], rec[4]]);
            let pixels = rec[5..].iter().map(|&v| f32::from(v) / 255.0).collect();
            templates.push((class, GlyphFeature::normalised(pixels, aspect)));
        }
        Ok(GlyphTemplates { templates })
    }

    /// The best rank and its similarity, and the runner-up's similarity.
    pub fn best_rank(&self, glyph: &GlyphFeature) -> Option<(Rank, f32, f32)> {
        self.best(glyph, |c| match c {
            GlyphClass::Rank(r) => Some(r),
            GlyphClass::Suit(_) => None,
        })
    }

    /// The best suit among `allowed` and its similarity, and the runner-up's similarity.
    pub fn best_suit(&self, glyph: &GlyphFeature, allowed: &[Suit]) -> Option<(Suit, f32, f32)> {
        self.best(glyph, |c| match c {
            GlyphClass::Suit(s) if allowed.contains(&s) => Some(s),
            _ => None,
        })
    }

    fn best<T: Copy + PartialEq>(
        &self,
        glyph: &GlyphFeature,
        pick: impl Fn(GlyphClass) -> Option<T>,
    ) -> Option<(T, f32, f32)> {
        let mut best: Option<(T, f32)> = None;
        let mut scores: Vec<(T, f32)> = Vec::new();
        for (class, template) in &self.templates {
            let Some(t) = pick(*class) else { continue };
            let entry = match scores.iter().position(|(k, _)| *k == t) {
                Some(i) => i,
                None => {
                    scores.push((t, f32::MIN));
                    scores.len() - 1
                }
            };
            // The shape term is at most 1, so the aspect term alone bounds the similarity: a
            // template that cannot beat its class's best so far is not worth comparing.
            if aspect_factor(glyph.aspect, template.aspect) <= scores[entry].1 {
                continue;
            }
            let s = glyph.similarity(template);
            scores[entry].1 = scores[entry].1.max(s);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((t, s));
            }
        }
        let (t, s) = best?;
        let second = scores.iter().filter(|(k, _)| *k != t).map(|(_, v)| *v).fold(0.0, f32::max);
        Some((t, s, second))
    }
}

fn push_variants(out: &mut Vec<(GlyphClass, GlyphFeature)>, class: GlyphClass, mask: &Mat) -> opencv::Result<()> {
    out.push((class, GlyphFeature::from_mask(mask)?));
    let kernel =
        imgproc::get_structuring_element(imgproc::MORPH_ELLIPSE, core::Size::new(5, 5), core::Point::new(-1, -1))?;
    for op in [imgproc::MORPH_DILATE, imgproc::MORPH_ERODE] {
        let mut changed = Mat::default();
        imgproc::morphology_ex(
            mask,
            &mut changed,
            op,
            &kernel,
            core::Point::new(-1, -1),
            1,
            core::BORDER_CONSTANT,
            core::Scalar::all(0.0),
        )?;
        if core::count_non_zero(&changed)? > 0 {
            out.push((class, GlyphFeature::from_mask(&crop_to_ink(&changed)?)?));
        }
    }
    Ok(())
}

/// Draws a suit pip from circles and triangles on a 100 px canvas, `narrow` scaling its width.
fn draw_pip(suit: Suit, narrow: f32) -> opencv::Result<Mat> {
    let mut canvas = Mat::zeros(100, 100, core::CV_8UC1)?.to_mat()?;
    let white = core::Scalar::all(255.0);
    let x = |v: f32| (50.0 + (v - 50.0) * narrow) as i32;
    let pt = |px: f32, py: i32| core::Point::new(x(px), py);
    let circle = |c: &mut Mat, cx: f32, cy: i32, r: f32| {
        imgproc::circle(c, pt(cx, cy), (r * narrow.sqrt()) as i32, white, -1, imgproc::LINE_AA, 0)
    };
    let poly = |c: &mut Mat, pts: &[core::Point]| {
        let v = core::Vector::<core::Point>::from_iter(pts.iter().copied());
        imgproc::fill_convex_poly(c, &v, white, imgproc::LINE_AA, 0)
    };
    match suit {
        Suit::Diamonds => poly(&mut canvas, &[pt(50.0, 4), pt(84.0, 50), pt(50.0, 96), pt(16.0, 50)])?,
        Suit::Hearts => {
            circle(&mut canvas, 31.0, 34, 23.0)?;
            circle(&mut canvas, 69.0, 34, 23.0)?;
            poly(&mut canvas, &[pt(9.0, 42), pt(91.0, 42), pt(50.0, 94)])?;
        }
        Suit::Spades => {
            circle(&mut canvas, 31.0, 58, 21.0)?;
            circle(&mut canvas, 69.0, 58, 21.0)?;
            poly(&mut canvas, &[pt(11.0, 50), pt(89.0, 50), pt(50.0, 6)])?;
            poly(&mut canvas, &[pt(50.0, 62), pt(36.0, 96), pt(64.0, 96)])?;
        }
        Suit::Clubs => {
            circle(&mut canvas, 50.0, 27, 19.0)?;
            circle(&mut canvas, 28.0, 58, 19.0)?;
            circle(&mut canvas, 72.0, 58, 19.0)?;
            poly(&mut canvas, &[pt(44.0, 40), pt(56.0, 40), pt(56.0, 60), pt(44.0, 60)])?;
            poly(&mut canvas, &[pt(50.0, 55), pt(36.0, 96), pt(64.0, 96)])?;
        }
    }
    crop_to_ink(&canvas)
}

/// Rasterises `text` at about 80 px high, squeezed horizontally by `squeeze`, and crops the ink.
fn render_text(font: &FontRef<'_>, text: &str, squeeze: f32) -> opencv::Result<Option<Mat>> {
    let height = 80.0f32;
    let scale = PxScale { x: height * squeeze, y: height };
    let (w, h) = (220i32, 120i32);
    let mut canvas = Mat::zeros(h, w, core::CV_8UC1)?.to_mat()?;
    let mut pen = 10.0f32;
    for ch in text.chars() {
        let id = font.glyph_id(ch);
        if id.0 == 0 {
            return Ok(None);
        }
        let glyph = id.with_scale_and_position(scale, ab_glyph::point(pen, 95.0));
        let advance = font.as_scaled(scale).h_advance(id);
        if let Some(outlined) = font.outline_glyph(glyph) {
            let bounds = outlined.px_bounds();
            let buf = canvas.data_bytes_mut()?;
            outlined.draw(|x, y, c| {
                let px = bounds.min.x as i32 + x as i32;
                let py = bounds.min.y as i32 + y as i32;
                if (0..w).contains(&px) && (0..h).contains(&py) && c > 0.5 {
                    buf[(py * w + px) as usize] = 255;
                }
            });
        }
        pen += advance;
    }
    if core::count_non_zero(&canvas)? == 0 {
        return Ok(None);
    }
    crop_to_ink(&canvas).map(Some)
}

/// The bounding box of the non-zero pixels of a mask, as a copy.
pub fn crop_to_ink(mask: &Mat) -> opencv::Result<Mat> {
    let mut points = Mat::default();
    core::find_non_zero(mask, &mut points)?;
    let rect = imgproc::bounding_rect(&points)?;
    Mat::roi(mask, rect)?.try_clone()
}
