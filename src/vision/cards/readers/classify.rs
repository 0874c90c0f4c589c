//! Reads one index glyph (a rank or a suit pip) by comparing its normalised binary mask with
//! templates. The built-in templates are rendered at start-up from the fonts bundled with the
//! program (no file, no network); an enrolled deck profile adds templates cut from real photos.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use opencv::{core, imgproc, prelude::*};

use crate::cards::{Rank, Suit};

/// The template sets (see models/README.md): glyphs rendered from fonts, and glyphs cut from
/// damaged renderings of whole faces ("as a camera sees them").
const MODEL: &[u8] = include_bytes!("../../../../models/card_glyphs.bin");
const MODEL_SEEN: &[u8] = include_bytes!("../../../../models/card_glyphs_seen.bin");

/// Side lengths of the normalised glyph mask.
pub const GLYPH_W: i32 = 20;
pub const GLYPH_H: i32 = 28;

/// How much ink overlap and edge direction each count in a similarity (they sum to 1).
const SHAPE_WEIGHT: f32 = 0.6;

const EDGE_WEIGHT: f32 = 1.0 - SHAPE_WEIGHT;

/// Side of an edge-histogram cell, and the number of direction bins (signed: ink is always
/// darker than paper, so a gradient's sign carries shape).
const CELL: usize = 4;

const BINS: usize = 8;

/// Beyond this difference in log-aspect a template cannot win (its aspect factor is below 1/3).
const FAR_ASPECT: f32 = 0.75;

/// A normalised glyph: `GLYPH_W x GLYPH_H` values in 0..1, the aspect of its bounding box, and
/// a histogram of its edge directions.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(from = "GlyphRecord")]
pub struct GlyphFeature {
    pub pixels: Vec<f32>,
    pub aspect: f32,
    /// Derived from `pixels`: not saved, rebuilt when a profile is read.
    #[serde(skip_serializing)]
    pub edges: Vec<f32>,
    /// `pixels` averaged over 2x2 blocks, unit length: a quick first comparison.
    #[serde(skip_serializing)]
    pub coarse: Vec<f32>,
    /// `aspect.ln()`, kept for the quick comparison.
    #[serde(skip_serializing)]
    pub ln_aspect: f32,
}

/// What a glyph looks like on disk (profiles): the derived edge histogram is left out.
#[derive(serde::Deserialize)]
struct GlyphRecord {
    pixels: Vec<f32>,
    aspect: f32,
}

impl From<GlyphRecord> for GlyphFeature {
    fn from(r: GlyphRecord) -> GlyphFeature {
        GlyphFeature::normalised(r.pixels, r.aspect)
    }
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

    /// The same glyph turned upside down (a half turn).
    pub fn turned(&self) -> GlyphFeature {
        GlyphFeature::normalised(self.pixels.iter().rev().copied().collect(), self.aspect)
    }

    /// Scales the pixels to unit length, so that a comparison is a dot product, and derives the
    /// edge histogram.
    pub fn normalised(mut pixels: Vec<f32>, aspect: f32) -> GlyphFeature {
        let norm = pixels.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            pixels.iter_mut().for_each(|v| *v /= norm);
        }
        let edges = edge_histogram(&pixels);
        let coarse = coarse_pixels(&pixels);
        GlyphFeature { pixels, aspect, edges, coarse, ln_aspect: aspect.ln() }
    }

    /// Correlation of the masks and of the edge histograms, lowered when the aspects differ:
    /// 1 = identical. The edges tell apart shapes that overlap in ink but not in stroke
    /// direction (a flat-topped 3 and a 5, a spade's point and a club's lobe).
    pub fn similarity(&self, other: &GlyphFeature) -> f32 {
        let shape = SHAPE_WEIGHT * dot(&self.pixels, &other.pixels) + EDGE_WEIGHT * dot(&self.edges, &other.edges);
        shape * aspect_factor(self.aspect, other.aspect)
    }
}

/// 2x2 block means of a `GLYPH_W x GLYPH_H` image, scaled to unit length.
fn coarse_pixels(p: &[f32]) -> Vec<f32> {
    let (w, h) = (GLYPH_W as usize, GLYPH_H as usize);
    if p.len() != w * h {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(w * h / 4);
    for y in (0..h).step_by(2) {
        for x in (0..w).step_by(2) {
            out.push(p[y * w + x] + p[y * w + x + 1] + p[(y + 1) * w + x] + p[(y + 1) * w + x + 1]);
        }
    }
    let norm = out.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        out.iter_mut().for_each(|v| *v /= norm);
    }
    out
}

/// Gradient directions of a `GLYPH_W x GLYPH_H` image histogrammed per `CELL x CELL` cell, each
/// cell damped by its own strength, the whole scaled to unit length.
fn edge_histogram(p: &[f32]) -> Vec<f32> {
    let (w, h) = (GLYPH_W as usize, GLYPH_H as usize);
    let at = |x: usize, y: usize| p[y.min(h - 1) * w + x.min(w - 1)];
    let cells_x = w.div_ceil(CELL);
    let mut hist = vec![0f32; cells_x * h.div_ceil(CELL) * BINS];
    if p.len() != w * h {
        return hist;
    }
    let turn = std::f32::consts::TAU;
    for y in 0..h {
        for x in 0..w {
            let gx = at(x + 1, y) - at(x.saturating_sub(1), y);
            let gy = at(x, y + 1) - at(x, y.saturating_sub(1));
            let magnitude = gx.hypot(gy);
            if magnitude < 1e-6 {
                continue;
            }
            // Soft assignment between the two nearest direction bins.
            let pos = fast_atan2(gy, gx).rem_euclid(turn) / turn * BINS as f32;
            let lower = pos.floor() as usize % BINS;
            let frac = pos - pos.floor();
            let cell = (y / CELL) * cells_x + x / CELL;
            hist[cell * BINS + lower] += magnitude * (1.0 - frac);
            hist[cell * BINS + (lower + 1) % BINS] += magnitude * frac;
        }
    }
    let total = hist.iter().map(|v| v * v).sum::<f32>().sqrt();
    let floor = 0.1 * total / ((hist.len() / BINS) as f32).sqrt();
    for cell in hist.chunks_mut(BINS) {
        let norm = cell.iter().map(|v| v * v).sum::<f32>().sqrt() + floor + 1e-9;
        cell.iter_mut().for_each(|v| *v /= norm);
    }
    let total = hist.iter().map(|v| v * v).sum::<f32>().sqrt();
    if total > 0.0 {
        hist.iter_mut().for_each(|v| *v /= total);
    }
    hist
}

/// A spade or a club, told by the outline of the pip itself, or `None` when it is not clear.
/// Templates confuse the two when a small pip is blurred into one blob, but two traits survive:
/// a spade rises to a point (its top rows are narrow), a club's top lobe is round (its top rows
/// are a third of the pip's width or more); and a club's side lobes stand out of its waist in a
/// sudden shoulder, while a spade widens steadily. Only when both traits agree is it said, or,
/// with `top_alone` (a pip cut from a rectified card, drawn large enough), when the top alone is
/// far to one side: on real cards spades' tops measure at most 0.23 of the width and clubs' at
/// least 0.30, while a small blurred club can lose its shoulders.
pub fn spade_or_club(glyph: &GlyphFeature, top_alone: bool) -> Option<Suit> {
    let (w, h) = (GLYPH_W as usize, GLYPH_H as usize);
    // A pip is about as wide as tall: one much wider or narrower is cut short (under another
    // card) or joined to something, and its outline says nothing.
    if glyph.pixels.len() != w * h || !(0.65..=1.15).contains(&glyph.aspect) {
        return None;
    }
    let peak = glyph.pixels.iter().copied().fold(0.0f32, f32::max);
    if peak <= 0.0 {
        return None;
    }
    let widths: Vec<f32> =
        (0..h).map(|y| glyph.pixels[y * w..][..w].iter().filter(|&&v| v > 0.5 * peak).count() as f32).collect();
    let widest = widths.iter().copied().fold(1.0f32, f32::max);
    let top = (widths[1] + widths[2] + widths[3]) / 3.0 / widest;
    let shoulder = (4..h * 5 / 7).map(|y| widths[y + 2] - widths[y]).fold(0.0f32, f32::max) / widest;
    if (top >= 0.28 && shoulder >= 0.28) || (top_alone && top >= 0.36) {
        Some(Suit::Clubs)
    } else if (top <= 0.25 && shoulder <= 0.22) || (top_alone && top <= 0.2) {
        Some(Suit::Spades)
    } else {
        None
    }
}

/// A black suit read by the templates, checked against the pip's own outline
/// (`spade_or_club`): where the outline clearly says the other black suit, that suit is taken,
/// with the runner-up's similarity as its best and no margin. `top_alone` as for `spade_or_club`.
pub fn check_black_suit(glyph: &GlyphFeature, read: (Suit, f32, f32), top_alone: bool) -> (Suit, f32, f32) {
    let (suit, _, second) = read;
    if suit.is_red() {
        return read;
    }
    let other = suit.other_of_colour();
    match spade_or_club(glyph, top_alone) {
        Some(shape) if shape == other => (other, second, second),
        _ => read,
    }
}

/// Turns a best similarity and the runner-up's into a 0..1 confidence: high when the best
/// template fits well and clearly better than any other class.
pub fn confidence(best: f32, second: f32) -> f32 {
    let fit = ((best - 0.6) / 0.25).clamp(0.0, 1.0);
    let margin = ((best - second) / 0.08).clamp(0.0, 1.0);
    (fit * (0.5 + 0.5 * margin)).sqrt()
}

/// atan2 to about 0.005 rad, several times faster than the exact one: the edge histogram
/// takes one per pixel of every glyph.
fn fast_atan2(y: f32, x: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI};
    let (ax, ay) = (x.abs(), y.abs());
    let (small, big) = if ax > ay { (ay, ax) } else { (ax, ay) };
    if big == 0.0 {
        return 0.0;
    }
    let t = small / big;
    // A polynomial fit of atan on [0, 1].
    let mut a =
        t * (0.999_866 + t * t * (-0.330_299_5 + t * t * (0.180_141 + t * t * (-0.085_133 + t * t * 0.020_835_1))));
    if ay > ax {
        a = FRAC_PI_2 - a;
    }
    if x < 0.0 {
        a = PI - a;
    }
    if y < 0.0 { -a } else { a }
}

/// Of two (best, runner-up) pairs, the less certain.
pub fn weaker(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    if confidence(a.0, a.1) < confidence(b.0, b.1) { a } else { b }
}

/// How much a difference in aspect lowers a similarity: 1 for equal aspects.
fn aspect_factor(a: f32, b: f32) -> f32 {
    (-(a / b).ln().abs() * 1.5).exp()
}

/// A dot product in eight independent lanes: a plain `zip().sum()` over f32 must add in order and
/// so cannot use the processor's vector units; this is the detector's innermost loop.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
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
    /// A single digit, 0 or 1: the two halves of a "10" printed as separate glyphs.
    Digit(u8),
}

/// The glyph templates one reader compares with.
#[derive(Clone, Debug, Default)]
pub struct GlyphTemplates {
    pub templates: Vec<(GlyphClass, GlyphFeature)>,
}

impl GlyphTemplates {
    /// The templates the program ships with: glyphs rendered from the bundled fonts, drawn suit
    /// pips and digits, and the font template set `models/card_glyphs.bin` (compiled in). Clean
    /// shapes: the loose index search, which has no outline to vouch for a pair of marks,
    /// compares with these.
    pub fn builtin() -> opencv::Result<GlyphTemplates> {
        let mut set = GlyphTemplates::drawn()?;
        set.templates.extend(GlyphTemplates::decode_model("models/card_glyphs.bin", MODEL)?.templates);
        Ok(set)
    }

    /// The templates for corners read on a card outline: `models/card_glyphs_seen.bin`, glyphs
    /// cut from damaged renderings of faces in many fonts (small, blurred, slightly misaligned),
    /// grouped to 80 per class, and the drawn digits of "10". (The bundled fonts' glyphs are
    /// among the renderings already.)
    pub fn builtin_seen() -> opencv::Result<GlyphTemplates> {
        let mut set = GlyphTemplates::default();
        push_digits(&mut set.templates)?;
        set.templates.extend(GlyphTemplates::decode_model("models/card_glyphs_seen.bin", MODEL_SEEN)?.templates);
        Ok(set)
    }

    /// Glyphs of the two bundled fonts, drawn suit pips, bars and rings for the digits of "10".
    pub fn drawn() -> opencv::Result<GlyphTemplates> {
        let bundled = [epaint_default_fonts::UBUNTU_LIGHT, epaint_default_fonts::HACK_REGULAR];
        let mut set = GlyphTemplates::render(&bundled, true)?;
        for suit in Suit::ALL {
            for narrow in [0.8f32, 1.0] {
                push_variants(&mut set.templates, GlyphClass::Suit(suit), &draw_pip(suit, narrow)?)?;
            }
        }
        push_digits(&mut set.templates)?;
        Ok(set)
    }

    fn decode_model(name: &str, bytes: &[u8]) -> opencv::Result<GlyphTemplates> {
        GlyphTemplates::decode(bytes).map_err(|e| opencv::Error::new(core::StsParseError, format!("{name}: {e}")))
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
            for digit in [0u8, 1] {
                for squeeze in [0.55f32, 0.75, 1.0] {
                    add(GlyphClass::Digit(digit), &digit.to_string(), squeeze)?;
                }
            }
        }
        Ok(GlyphTemplates { templates })
    }

    /// The compact binary form: `CRG1`, a u32 count, then per template a class byte (0..13 ranks
    /// A..K, 13..17 suits C D H S, 17..19 digits 0 1), the aspect as f32 and `GLYPH_W x GLYPH_H` bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = b"CRG1".to_vec();
        out.extend((self.templates.len() as u32).to_le_bytes());
        for (class, glyph) in &self.templates {
            out.push(match class {
                GlyphClass::Rank(r) => r.value() - 1,
                GlyphClass::Suit(s) => 13 + *s as u8,
                GlyphClass::Digit(d) => 17 + d,
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
                c @ 17..19 => GlyphClass::Digit(c - 17),
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
            _ => None,
        })
    }

    /// The best suit among `allowed` and its similarity, and the runner-up's similarity.
    pub fn best_suit(&self, glyph: &GlyphFeature, allowed: &[Suit]) -> Option<(Suit, f32, f32)> {
        self.best(glyph, |c| match c {
            GlyphClass::Suit(s) if allowed.contains(&s) => Some(s),
            _ => None,
        })
    }

    /// Reads a rank printed as two glyphs side by side, `left` and `right`: only "10" is, so the
    /// left must look like a "1" and the right like a "0". Returns, for the less certain of the
    /// two, its best similarity as that digit and its best as anything else.
    pub fn read_ten(&self, left: &GlyphFeature, right: &GlyphFeature) -> (f32, f32) {
        let (one, zero) = self.read_ten_digits(left, right);
        weaker(one, zero)
    }

    /// For the "1" and the "0" of a "10": the best similarity as that digit and as anything else.
    pub fn read_ten_digits(&self, left: &GlyphFeature, right: &GlyphFeature) -> ((f32, f32), (f32, f32)) {
        let [one, zero] = [(left, 1u8), (right, 0)].map(|(glyph, digit)| {
            let own = self.best_similarity(glyph, |c| c == GlyphClass::Digit(digit));
            let other = self.best_similarity(glyph, |c| c != GlyphClass::Digit(digit));
            (own, other)
        });
        (one, zero)
    }

    /// The highest similarity of `glyph` to a template whose class passes `keep`.
    fn best_similarity(&self, glyph: &GlyphFeature, keep: impl Fn(GlyphClass) -> bool) -> f32 {
        let mut best = 0.0f32;
        for (class, template) in &self.templates {
            if keep(*class)
                && (glyph.ln_aspect - template.ln_aspect).abs() < FAR_ASPECT
                && aspect_factor(glyph.aspect, template.aspect) > best
            {
                best = best.max(glyph.similarity(template));
            }
        }
        best
    }

    /// The best class and its similarity, and the best of any other class. Comparing with
    /// every template in full is the reader's main cost, so a quick pass over the coarse pixels
    /// picks the candidates first: each class's few closest and the closest overall.
    fn best<T: Copy + PartialEq>(
        &self,
        glyph: &GlyphFeature,
        pick: impl Fn(GlyphClass) -> Option<T>,
    ) -> Option<(T, f32, f32)> {
        self.best_two(glyph, pick).map(|(t, s, _, second)| (t, s, second))
    }

    /// The best rank and its similarity, and the runner-up rank and its similarity.
    pub fn best_two_ranks(&self, glyph: &GlyphFeature) -> Option<(Rank, f32, Option<Rank>, f32)> {
        self.best_two(glyph, |c| match c {
            GlyphClass::Rank(r) => Some(r),
            _ => None,
        })
    }

    /// The best class and its similarity, and the runner-up class (when another was compared)
    /// and its similarity.
    fn best_two<T: Copy + PartialEq>(
        &self,
        glyph: &GlyphFeature,
        pick: impl Fn(GlyphClass) -> Option<T>,
    ) -> Option<(T, f32, Option<T>, f32)> {
        const PER_CLASS: usize = 3;
        const OVERALL: usize = 24;
        let mut classes: Vec<(T, [(f32, usize); PER_CLASS])> = Vec::new();
        let mut quick: Vec<(f32, usize)> = Vec::new();
        for (i, (class, template)) in self.templates.iter().enumerate() {
            let Some(t) = pick(*class) else { continue };
            let apart = (glyph.ln_aspect - template.ln_aspect).abs();
            if apart > FAR_ASPECT {
                continue;
            }
            let score = dot(&glyph.coarse, &template.coarse) * (-1.5 * apart).exp();
            quick.push((score, i));
            let top = match classes.iter().position(|(k, _)| *k == t) {
                Some(c) => &mut classes[c].1,
                None => {
                    classes.push((t, [(f32::MIN, usize::MAX); PER_CLASS]));
                    &mut classes.last_mut().expect("just pushed").1
                }
            };
            if let Some(worst) = top.iter_mut().min_by(|a, b| a.0.total_cmp(&b.0))
                && score > worst.0
            {
                *worst = (score, i);
            }
        }
        if quick.len() > OVERALL {
            quick.select_nth_unstable_by(OVERALL, |a, b| b.0.total_cmp(&a.0));
            quick.truncate(OVERALL);
        }
        let mut candidates: Vec<usize> = quick.iter().map(|&(_, i)| i).collect();
        candidates.extend(classes.iter().flat_map(|(_, top)| top.iter().map(|&(_, i)| i)).filter(|&i| i != usize::MAX));
        candidates.sort_unstable();
        candidates.dedup();
        let mut scores: Vec<(T, f32)> = classes.iter().map(|(t, _)| (*t, f32::MIN)).collect();
        let mut best: Option<(T, f32)> = None;
        for i in candidates {
            let (class, template) = &self.templates[i];
            let Some(t) = pick(*class) else { continue };
            let s = glyph.similarity(template);
            if let Some(entry) = scores.iter_mut().find(|(k, _)| *k == t) {
                entry.1 = entry.1.max(s);
            }
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((t, s));
            }
        }
        let (t, s) = best?;
        let runner_up = scores.iter().filter(|(k, v)| *k != t && *v > 0.0).max_by(|a, b| a.1.total_cmp(&b.1));
        Some((t, s, runner_up.map(|r| r.0), runner_up.map_or(0.0, |r| r.1)))
    }
}

fn push_variants(out: &mut Vec<(GlyphClass, GlyphFeature)>, class: GlyphClass, mask: &Mat) -> opencv::Result<()> {
    out.push((class, GlyphFeature::from_mask(mask)?));
    for op in [imgproc::MORPH_DILATE, imgproc::MORPH_ERODE] {
        let changed = crate::vision::cards::picture::pixels::morph(mask, op, imgproc::MORPH_ELLIPSE, 5)?;
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

/// Bars and rings of a few widths: the "1" and "0" of a "10" printed as two glyphs; and the
/// flat-topped 3 of many card indices, which few text fonts have.
fn push_digits(out: &mut Vec<(GlyphClass, GlyphFeature)>) -> opencv::Result<()> {
    let three = Rank::new(3).expect("3 is a rank");
    for (width, stroke) in [(50, 6), (60, 8), (50, 10), (60, 12), (60, 16), (70, 14)] {
        push_variants(out, GlyphClass::Rank(three), &draw_flat_three(width, stroke)?)?;
    }
    for aspect in [0.12f32, 0.2, 0.3] {
        push_variants(out, GlyphClass::Digit(1), &draw_bar(aspect)?)?;
    }
    for aspect in [0.45f32, 0.6, 0.75] {
        push_variants(out, GlyphClass::Digit(0), &draw_ring(aspect)?)?;
    }
    Ok(())
}

/// A "3" whose top is a straight bar, joined by a diagonal to a round lower bowl, on a canvas
/// `width` wide and 100 high.
fn draw_flat_three(width: i32, stroke: i32) -> opencv::Result<Mat> {
    let m = stroke;
    let mut canvas = Mat::zeros(100 + 2 * m, width + 2 * m, core::CV_8UC1)?.to_mat()?;
    let white = core::Scalar::all(255.0);
    let p = |x: i32, y: i32| core::Point::new(x + m, y + m);
    let (w, half) = (width, stroke / 2);
    imgproc::line(&mut canvas, p(half, half), p(w - half, half), white, stroke, imgproc::LINE_AA, 0)?;
    imgproc::line(&mut canvas, p(w - half, half), p(w * 2 / 5, 42), white, stroke, imgproc::LINE_AA, 0)?;
    let axes = core::Size::new(w / 2 - half, 29 - half);
    imgproc::ellipse(&mut canvas, p(w / 2, 70), axes, 0.0, -110.0, 145.0, white, stroke, imgproc::LINE_AA, 0)?;
    crop_to_ink(&canvas)
}

/// A plain upright bar: the "1" of many card indices, which has neither flag nor foot.
fn draw_bar(aspect: f32) -> opencv::Result<Mat> {
    let w = ((100.0 * aspect) as i32).max(3);
    Mat::new_rows_cols_with_default(100, w, core::CV_8UC1, core::Scalar::all(255.0))
}

/// An upright oval ring: a "0" of width `aspect` times its height.
fn draw_ring(aspect: f32) -> opencv::Result<Mat> {
    let w = (100.0 * aspect) as i32;
    let stroke = (w / 5).max(3);
    let mut canvas = Mat::zeros(100 + 2 * stroke, w + 2 * stroke, core::CV_8UC1)?.to_mat()?;
    let axes = core::Size::new((w - stroke) / 2, (100 - stroke) / 2);
    let centre = core::Point::new(w / 2 + stroke, 50 + stroke);
    imgproc::ellipse(
        &mut canvas,
        centre,
        axes,
        0.0,
        0.0,
        360.0,
        core::Scalar::all(255.0),
        stroke,
        imgproc::LINE_AA,
        0,
    )?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn templates() -> GlyphTemplates {
        GlyphTemplates::builtin().unwrap()
    }

    /// A pip of the renderer's design, `size` pixels tall, as a glyph.
    fn rendered_pip(suit: Suit, size: f64) -> GlyphFeature {
        use crate::geometry::Pt;
        let side = (size * 1.4) as i32;
        let mut canvas = Mat::zeros(side, side, core::CV_8UC1).unwrap().to_mat().unwrap();
        let centre = Pt::new(f64::from(side) / 2.0, f64::from(side) / 2.0);
        crate::render::face::draw_pip(&mut canvas, suit, centre, size, false, core::Scalar::all(255.0)).unwrap();
        let mut mask = Mat::default();
        imgproc::threshold(&canvas, &mut mask, 127.0, 255.0, imgproc::THRESH_BINARY).unwrap();
        GlyphFeature::from_mask(&crop_to_ink(&mask).unwrap()).unwrap()
    }

    #[test]
    fn a_pips_outline_tells_a_spade_from_a_club() {
        for narrow in [0.8f32, 1.0] {
            for suit in [Suit::Spades, Suit::Clubs] {
                let drawn = GlyphFeature::from_mask(&draw_pip(suit, narrow).unwrap()).unwrap();
                assert_eq!(spade_or_club(&drawn, false), Some(suit), "drawn {suit:?} at {narrow}");
            }
        }
        for suit in [Suit::Spades, Suit::Clubs] {
            assert_eq!(spade_or_club(&rendered_pip(suit, 80.0), false), Some(suit), "rendered {suit:?}");
        }
        // Smaller, the renderer's club (three overlapping discs) loses its shoulders: no verdict,
        // but never a spade.
        assert_eq!(spade_or_club(&rendered_pip(Suit::Spades, 40.0), false), Some(Suit::Spades));
        assert_ne!(spade_or_club(&rendered_pip(Suit::Clubs, 40.0), false), Some(Suit::Spades));
        // Its round top still tells it when the top may decide alone.
        assert_eq!(spade_or_club(&rendered_pip(Suit::Clubs, 40.0), true), Some(Suit::Clubs));
        // A red pip or a blob is no business of this check; a template's black reading stands
        // unless the outline clearly says otherwise.
        let spade = rendered_pip(Suit::Spades, 60.0);
        assert_eq!(check_black_suit(&spade, (Suit::Clubs, 0.9, 0.85), false).0, Suit::Spades);
        assert_eq!(check_black_suit(&spade, (Suit::Hearts, 0.9, 0.85), false).0, Suit::Hearts);
    }

    #[test]
    fn a_plain_bar_beside_a_ring_reads_as_ten() {
        let t = templates();
        let (one, zero) = (GlyphFeature::from_mask(&draw_bar(0.15).unwrap()).unwrap(), ring(0.55));
        let (own, other) = t.read_ten(&one, &zero);
        assert!(confidence(own, other) > 0.6, "{own} {other}");
        // Two bars are not a ten.
        let (own, other) = t.read_ten(&one, &one);
        assert!(confidence(own, other) < 0.3, "{own} {other}");
    }

    fn ring(aspect: f32) -> GlyphFeature {
        GlyphFeature::from_mask(&draw_ring(aspect).unwrap()).unwrap()
    }

    #[test]
    fn fast_atan2_is_close_to_atan2_all_round() {
        for i in 0..720 {
            let angle = (i as f32 / 720.0) * std::f32::consts::TAU - std::f32::consts::PI;
            for r in [0.01f32, 1.0, 300.0] {
                let (y, x) = (r * angle.sin(), r * angle.cos());
                let error = (fast_atan2(y, x) - y.atan2(x)).rem_euclid(std::f32::consts::TAU);
                assert!(error.min(std::f32::consts::TAU - error) < 0.01, "{angle} {r}");
            }
        }
    }

    #[test]
    fn a_flat_topped_three_is_not_a_five() {
        let three = GlyphFeature::from_mask(&draw_flat_three(56, 13).unwrap()).unwrap();
        for set in [templates(), GlyphTemplates::builtin_seen().unwrap()] {
            let (rank, best, second) = set.best_rank(&three).unwrap();
            assert_eq!(rank.value(), 3, "{best} {second}");
        }
    }

    #[test]
    fn edge_directions_tell_a_ring_from_a_disc_of_the_same_outline() {
        let mut disc = Mat::zeros(100, 60, core::CV_8UC1).unwrap().to_mat().unwrap();
        imgproc::ellipse(
            &mut disc,
            core::Point::new(30, 50),
            core::Size::new(29, 49),
            0.0,
            0.0,
            360.0,
            core::Scalar::all(255.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let (disc, ring) = (GlyphFeature::from_mask(&disc).unwrap(), ring(0.6));
        assert!(dot(&disc.edges, &ring.edges) < 0.9);
        assert!((dot(&ring.edges, &ring.edges) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn a_saved_glyph_is_read_back_with_its_edges() {
        let glyph = ring(0.5);
        let text = serde_json::to_string(&glyph).unwrap();
        assert!(!text.contains("edges"));
        let back: GlyphFeature = serde_json::from_str(&text).unwrap();
        assert_eq!(back.edges.len(), glyph.edges.len());
        assert!((back.similarity(&glyph) - 1.0).abs() < 1e-3);
    }

    #[test]
    fn the_model_file_round_trips_digits() {
        let set =
            GlyphTemplates { templates: vec![(GlyphClass::Digit(1), ring(0.5)), (GlyphClass::Digit(0), ring(0.7))] };
        let back = GlyphTemplates::decode(&set.encode()).unwrap();
        assert_eq!(back.templates[0].0, GlyphClass::Digit(1));
        assert_eq!(back.templates[1].0, GlyphClass::Digit(0));
    }
}
