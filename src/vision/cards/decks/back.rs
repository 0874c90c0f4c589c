//! Card-back calibration: what the back of the deck in use looks like, learnt from one or a few
//! photos of it, so that a face-down card is told from a face by its look rather than by how much
//! white paper it shows (a crude test that also calls some court cards face down).
//!
//! The descriptor of a rectified card is made of three parts, each taken from the card's inner
//! area (the border, where table bleeds in through an imperfect outline, is left out) and each
//! blind to a turn by 180° (an outline does not say which end of the card is up):
//! - `colour`: a hue/saturation histogram, hue softly binned, with pale and dark pixels binned by
//!   brightness relative to the card's own brightest (so light level and colour cast matter little);
//! - `texture`: a histogram of edge directions (unsigned, so 180°-blind), weighted by edge strength,
//!   plus one bin for flat area (a plain face is mostly flat, a lattice back is not);
//! - `layout`: the card's grey levels at 8×11, relative to their mean, compared in both turns.
//!
//! Everything is measured on downscaled copies, so mild blur changes little.

use std::path::{Path, PathBuf};

use opencv::{core, imgproc, prelude::*};
use serde::{Deserialize, Serialize};

use super::profile::{EnrollError, read_image};
use crate::vision::cards::picture::pixels::rectify;
use crate::vision::cards::picture::quad::shoelace_area;
use crate::vision::cards::stages::outlines::find_card_quads_in_light;

pub const BACK_FORMAT: &str = "card-referee-back/1";

const HUE_BINS: usize = 12;
/// Hue bins at low and high saturation, then pale/dark pixels by relative brightness.
pub const COLOUR_BINS: usize = 2 * HUE_BINS + GREY_LEVELS.len() + 1;
/// Relative brightness limits of the grey bins (the last bin is above the last limit).
const GREY_LEVELS: [f32; 3] = [0.35, 0.6, 0.8];
const ORIENTATION_BINS: usize = 8;
/// Edge directions, then the flat area.
pub const TEXTURE_BINS: usize = ORIENTATION_BINS + 1;
pub const LAYOUT_W: i32 = 8;
pub const LAYOUT_H: i32 = 11;

/// At or above this similarity an outline is taken for the calibrated back. Measured with
/// `cargo run --release --example back_eval -- 40 8` (8 random back styles, each calibrated from
/// one rendered photo, 40 random tables each): outlines of the calibrated back scored 0.69 to 0.96
/// (345 of 349 at or above 0.72), faces 0 to 0.62 (none at 0.72; 894 of 897 under 0.55), other
/// random back styles up to 0.75 (14 of 346 at 0.72: some random styles share their colours).
pub const MATCH: f32 = 0.72;
/// Below this an outline is clearly not the calibrated back.
pub const NO_MATCH: f32 = 0.55;
/// A card that is clearly not the back counts as a face when at least this much of it is white
/// paper (a court card's border and background; a back's margin alone is about 0.2).
pub const FACE_PAPER: f64 = 0.3;
/// A card whose inside (its margin left out) is under this share paper once thin lines are
/// opened away shows white only in the lines of a pattern: a back. The 141 synthetic backs of
/// four seed sets keep at most 0.06 (lattices of white lines among them); the merged outlines of
/// face-up cards on real photos that were taken for backs keep 0.35 to 0.48, and rendered faces of
/// 40 random deck styles, picture courts among them, at least 0.22.
pub const LINED_PAPER: f64 = 0.1;

/// The most a back's layout may differ from itself turned (`turn_difference`, mean difference
/// as a share of the mean grey). Rendered backs on 100 synthetic tables (seeds 20e6), uneven
/// light and all: median 0.023, 97 % under 0.09, the most 0.19; three fans of faces in a
/// darkened photo taken for backs: 0.15 to 0.21. A back over it is only searched for indices.
pub const TURNED_BACK: f32 = 0.12;

/// The appearance of one rectified card (or the mean of several).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BackDescriptor {
    pub colour: Vec<f32>,
    pub texture: Vec<f32>,
    pub layout: Vec<f32>,
}

/// A calibrated card back, as saved on disk (JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BackProfile {
    pub format: String,
    /// How many photos were averaged.
    pub photos: usize,
    #[serde(flatten)]
    pub descriptor: BackDescriptor,
}

#[derive(Debug, thiserror::Error)]
pub enum BackError {
    #[error("{path}: cannot read the image")]
    Image { path: String },
    #[error("{path}: no card outline found")]
    NoCard { path: String },
    #[error("{path}: {message}")]
    Profile { path: String, message: String },
    #[error("no back photo given")]
    NoPhotos,
    #[error("opencv: {0}")]
    OpenCv(#[from] opencv::Error),
}

impl BackDescriptor {
    /// The descriptor of a rectified BGR card (`pixels::rectify`; any size of card proportions).
    pub fn of_card(card: &Mat) -> opencv::Result<BackDescriptor> {
        let inner = inside_border(card)?;
        let colour = colour_histogram(&resized(&inner, 60, 84)?)?;
        let mut grey = Mat::default();
        imgproc::cvt_color_def(&resized(&inner, 120, 168)?, &mut grey, imgproc::COLOR_BGR2GRAY)?;
        let texture = texture_histogram(&grey)?;
        let layout = layout(&grey)?;
        Ok(BackDescriptor { colour, texture, layout })
    }

    /// Similarity in 0..1: the weighted geometric mean of the three parts' similarities.
    pub fn similarity(&self, other: &BackDescriptor) -> f32 {
        let [colour, texture, layout] = self.parts(other);
        (colour.powf(0.5) * texture.powf(0.3) * layout.powf(0.2)).clamp(0.0, 1.0)
    }

    /// The similarities of colour, texture and layout, each 0..1.
    pub fn parts(&self, other: &BackDescriptor) -> [f32; 3] {
        [
            colour_similarity(&self.colour, &other.colour),
            intersection(&self.texture, &other.texture),
            layout_similarity(&self.layout, &other.layout),
        ]
    }

    /// The mean of several descriptors; layouts are first turned to agree with the first one.
    fn mean(all: &[BackDescriptor]) -> Option<BackDescriptor> {
        let first = all.first()?;
        let n = all.len() as f32;
        let mut out = BackDescriptor {
            colour: vec![0.0; first.colour.len()],
            texture: vec![0.0; first.texture.len()],
            layout: vec![0.0; first.layout.len()],
        };
        for d in all {
            let turned = turned_layout(&d.layout);
            let layout = if layout_distance(&first.layout, &turned) < layout_distance(&first.layout, &d.layout) {
                turned
            } else {
                d.layout.clone()
            };
            for (o, v) in out.colour.iter_mut().zip(&d.colour) {
                *o += v / n;
            }
            for (o, v) in out.texture.iter_mut().zip(&d.texture) {
                *o += v / n;
            }
            for (o, v) in out.layout.iter_mut().zip(&layout) {
                *o += v / n;
            }
        }
        Some(out)
    }
}

impl BackProfile {
    /// A profile from rectified cards (each a photo of the back).
    pub fn from_cards(cards: &[Mat]) -> opencv::Result<Option<BackProfile>> {
        let descriptors = cards.iter().map(BackDescriptor::of_card).collect::<opencv::Result<Vec<_>>>()?;
        Ok(BackDescriptor::mean(&descriptors).map(|descriptor| BackProfile {
            format: BACK_FORMAT.to_string(),
            photos: cards.len(),
            descriptor,
        }))
    }

    /// Calibrates from photos of the back (see `card_in_photo`).
    pub fn calibrate(photos: &[PathBuf]) -> Result<BackProfile, BackError> {
        let mut cards = Vec::new();
        for path in photos {
            let frame = read_image(path).map_err(|e| match e {
                EnrollError::OpenCv(e) => BackError::OpenCv(e),
                // Truncated, too large, too small: the reason, not only "cannot read".
                EnrollError::BadImage { path, reason } => BackError::Profile { path, message: reason },
                _ => BackError::Image { path: path.display().to_string() },
            })?;
            let card = card_in_photo(&frame)?.ok_or_else(|| BackError::NoCard { path: path.display().to_string() })?;
            cards.push(card);
        }
        BackProfile::from_cards(&cards)?.ok_or(BackError::NoPhotos)
    }

    /// How much a rectified card looks like this back, 0..1.
    pub fn similarity(&self, card: &Mat) -> opencv::Result<f32> {
        Ok(self.descriptor.similarity(&BackDescriptor::of_card(card)?))
    }

    /// The face-down call for one outline with this back calibrated: `Some(confidence)` when face
    /// down, `None` when face up, and whether it matched the back. `read` says whether its
    /// corners gave a confident reading; `paper` is its white-paper fraction; `plain` is the call
    /// made without a calibration.
    ///
    /// An outline that matches the back is face down, whatever its paper fraction, unless its
    /// index was read; one that clearly does not match is face up when it shows enough paper to
    /// be a face (a court card whose picture hides most of its white); in between, the plain call.
    pub fn face_down(
        &self,
        card: &Mat,
        read: bool,
        paper: f64,
        plain: Option<f32>,
    ) -> opencv::Result<(Option<f32>, bool)> {
        let s = self.similarity(card)?;
        Ok(if s >= MATCH && !read {
            (Some(s), true)
        } else if s < NO_MATCH && (read || paper >= FACE_PAPER) {
            (None, false)
        } else {
            (plain, false)
        })
    }

    pub fn save(&self, path: &Path) -> Result<(), BackError> {
        let bad = |message: String| BackError::Profile { path: path.display().to_string(), message };
        let text = serde_json::to_string_pretty(self).map_err(|e| bad(e.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|e| bad(format!("cannot write: {e}")))
    }

    /// Loads and checks a profile; every problem is one message naming the file and the field.
    pub fn load(path: &Path) -> Result<BackProfile, BackError> {
        let bad = |message: String| BackError::Profile { path: path.display().to_string(), message };
        let limit = super::profile::MAX_PROFILE_BYTES;
        let text = crate::text_input::read_text(path, limit, "a card back").map_err(|e| bad(e.reason()))?;
        BackProfile::parse(&text).map_err(bad)
    }

    /// Parses and checks a profile's JSON; the error is a one-line reason naming the field.
    pub fn parse(text: &str) -> Result<BackProfile, String> {
        let profile: BackProfile = serde_json::from_str(text).map_err(|e| crate::text_input::json_error(&e))?;
        if profile.format != BACK_FORMAT {
            let format = crate::text_input::escaped(&profile.format);
            return Err(format!("field 'format' is {format}, expected '{BACK_FORMAT}'"));
        }
        let d = &profile.descriptor;
        let layout_len = (LAYOUT_W * LAYOUT_H) as usize;
        for (field, values, len) in [
            ("colour", &d.colour, COLOUR_BINS),
            ("texture", &d.texture, TEXTURE_BINS),
            ("layout", &d.layout, layout_len),
        ] {
            if values.len() != len {
                return Err(format!("field '{field}' has {} values, expected {len}", values.len()));
            }
            if values.iter().any(|v| !v.is_finite() || *v < 0.0) {
                return Err(format!("field '{field}' holds a negative or non-finite value"));
            }
        }
        for (field, values) in [("colour", &d.colour), ("texture", &d.texture)] {
            let sum: f32 = values.iter().sum();
            if (sum - 1.0).abs() > 0.01 {
                return Err(format!("field '{field}' sums to {sum}, expected 1 (a histogram)"));
            }
        }
        if profile.photos == 0 {
            return Err("field 'photos' is 0".to_string());
        }
        Ok(profile)
    }
}

/// How far a rectified card's layout (its inside's grey levels at `LAYOUT_W × LAYOUT_H`, relative
/// to their mean) lies from itself turned by 180°: a deck's backs look alike either way up (a
/// back must not show which end of the card is up), and at this coarseness a repeating pattern
/// is even grey; a group of faces taken for one outline, paper at one end and table or pictures
/// at the other, is not.
pub fn turn_difference(card: &Mat) -> opencv::Result<f32> {
    let mut grey = Mat::default();
    imgproc::cvt_color_def(&inside_border(card)?, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    let upright = layout(&grey)?;
    Ok(layout_distance(&upright, &turned_layout(&upright)))
}

/// A rectified card's inner area: its border, where table bleeds in through an imperfect
/// outline, left out.
fn inside_border(card: &Mat) -> opencv::Result<opencv::boxed_ref::BoxedRef<'_, Mat>> {
    let (w, h) = (card.cols(), card.rows());
    let inset = ((w as f32) * 0.08).round() as i32;
    Mat::roi(card, core::Rect::new(inset, inset, w - 2 * inset, h - 2 * inset))
}

/// A layout read backwards: the card turned by 180°.
fn turned_layout(layout: &[f32]) -> Vec<f32> {
    layout.iter().rev().copied().collect()
}

/// The largest card outline of a photo, rectified. An outline reaching the frame's edge is left
/// out: it is the table (a dark back on a pale table leaves only the table bright), not the card.
pub fn card_in_photo(frame: &Mat) -> opencv::Result<Option<Mat>> {
    let inside = |q: &[[f32; 2]; 4]| clear_of_edges(frame, q);
    let quads = find_card_quads_in_light(frame, 0.01)?;
    match quads.iter().filter(|q| inside(q)).max_by(|a, b| shoelace_area(a).total_cmp(&shoelace_area(b))) {
        Some(quad) => Ok(Some(rectify(frame, quad)?)),
        None => Ok(None),
    }
}

/// Whether an outline stays clear of the frame's edges (one that reaches them is the table seen
/// as a bright region, or a card partly out of view).
pub(crate) fn clear_of_edges(frame: &Mat, quad: &[[f32; 2]; 4]) -> bool {
    let (w, h) = (frame.cols() as f32, frame.rows() as f32);
    quad.iter().all(|p| p[0] > 2.0 && p[1] > 2.0 && p[0] < w - 3.0 && p[1] < h - 3.0)
}

fn resized(image: &impl core::ToInputArray, w: i32, h: i32) -> opencv::Result<Mat> {
    let mut out = Mat::default();
    imgproc::resize(image, &mut out, core::Size::new(w, h), 0.0, 0.0, imgproc::INTER_AREA)?;
    Ok(out)
}

/// Hue/saturation histogram of a small BGR image, normalised to sum 1.
fn colour_histogram(bgr: &Mat) -> opencv::Result<Vec<f32>> {
    let mut hsv = Mat::default();
    imgproc::cvt_color_def(bgr, &mut hsv, imgproc::COLOR_BGR2HSV)?;
    let pixels = hsv.data_bytes()?;
    // Brightness relative to the card's own bright end, so a dimmer room changes nothing.
    let mut values: Vec<u8> = pixels.chunks_exact(3).map(|p| p[2]).collect();
    values.sort_unstable();
    let bright = f32::from(values[values.len() * 95 / 100].max(1));
    let mut hist = vec![0.0f32; COLOUR_BINS];
    for p in pixels.chunks_exact(3) {
        let (h, s, v) = (f32::from(p[0]), f32::from(p[1]), f32::from(p[2]));
        // Pale or dark pixels count by brightness, coloured ones by hue; soft in between, so a
        // greyish colour does not jump from one kind of bin to the other as the light changes.
        let chroma = ((s - 35.0) / 50.0).clamp(0.0, 1.0) * ((v - 25.0) / 30.0).clamp(0.0, 1.0);
        let relative = v / bright;
        let bin = GREY_LEVELS.iter().take_while(|&&limit| relative >= limit).count();
        hist[2 * HUE_BINS + bin] += 1.0 - chroma;
        if chroma == 0.0 {
            continue;
        }
        // OpenCV's hue runs 0..180; soft between the two nearest hue bins and the two saturations.
        let at = h / (180.0 / HUE_BINS as f32) - 0.5;
        let lower = at.floor();
        let frac = at - lower;
        let i0 = (lower as i32).rem_euclid(HUE_BINS as i32) as usize;
        let i1 = (i0 + 1) % HUE_BINS;
        let high = ((s - 100.0) / 60.0).clamp(0.0, 1.0);
        for (sat, weight) in [(0, chroma * (1.0 - high)), (1, chroma * high)] {
            hist[sat * HUE_BINS + i0] += weight * (1.0 - frac);
            hist[sat * HUE_BINS + i1] += weight * frac;
        }
    }
    normalised(hist)
}

/// Edge directions (unsigned, soft-binned, weighted by strength) and the flat area, sum 1.
fn texture_histogram(grey: &Mat) -> opencv::Result<Vec<f32>> {
    let mut smooth = Mat::default();
    imgproc::gaussian_blur_def(grey, &mut smooth, core::Size::new(3, 3), 0.0)?;
    let (mut dx, mut dy) = (Mat::default(), Mat::default());
    imgproc::sobel_def(&smooth, &mut dx, core::CV_32F, 1, 0)?;
    imgproc::sobel_def(&smooth, &mut dy, core::CV_32F, 0, 1)?;
    let mut hist = vec![0.0f32; TEXTURE_BINS];
    let (gx, gy) = (dx.data_typed::<f32>()?, dy.data_typed::<f32>()?);
    for (&x, &y) in gx.iter().zip(gy) {
        let magnitude = (x * x + y * y).sqrt();
        let angle = y.atan2(x).rem_euclid(std::f32::consts::PI);
        let at = angle / (std::f32::consts::PI / ORIENTATION_BINS as f32) - 0.5;
        let lower = at.floor();
        let frac = at - lower;
        let i0 = (lower as i32).rem_euclid(ORIENTATION_BINS as i32) as usize;
        hist[i0] += magnitude * (1.0 - frac);
        hist[(i0 + 1) % ORIENTATION_BINS] += magnitude * frac;
    }
    // The flat bin: what a step of ~10 grey levels at every pixel would weigh (Sobel gains 4×).
    hist[ORIENTATION_BINS] = 40.0 * gx.len() as f32;
    normalised(hist)
}

/// The grey image at `LAYOUT_W × LAYOUT_H`, divided by its mean.
fn layout(grey: &Mat) -> opencv::Result<Vec<f32>> {
    let tiny = resized(grey, LAYOUT_W, LAYOUT_H)?;
    let values: Vec<f32> = tiny.data_bytes()?.iter().map(|&v| f32::from(v)).collect();
    let mean = (values.iter().sum::<f32>() / values.len() as f32).max(1.0);
    Ok(values.iter().map(|v| v / mean).collect())
}

fn normalised(mut hist: Vec<f32>) -> opencv::Result<Vec<f32>> {
    let sum: f32 = hist.iter().sum();
    if sum > 0.0 {
        hist.iter_mut().for_each(|v| *v /= sum);
    }
    Ok(hist)
}

fn intersection(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x.min(*y)).sum::<f32>().clamp(0.0, 1.0)
}

/// Colour: half whether each one's colours are found in the other (blind to how much of each,
/// which changes with distance and blur as a pattern's lines and field mix), half how much.
fn colour_similarity(a: &[f32], b: &[f32]) -> f32 {
    (0.5 * intersection(a, b) + 0.5 * coverage(a, b).min(coverage(b, a))).clamp(0.0, 1.0)
}

/// The share of `a`'s colour mass that falls where `b` has colour too: in the same bin or, for
/// hues, half from the next one (a bin counts fully from 5% of `b`'s mass).
fn coverage(a: &[f32], b: &[f32]) -> f32 {
    let near = |i: usize| {
        if i < 2 * HUE_BINS {
            let (row, k) = (i / HUE_BINS * HUE_BINS, i % HUE_BINS);
            let prev = row + (k + HUE_BINS - 1) % HUE_BINS;
            let next = row + (k + 1) % HUE_BINS;
            b[i].max(0.5 * b[prev]).max(0.5 * b[next])
        } else {
            b[i]
        }
    };
    a.iter().enumerate().map(|(i, &m)| m * (near(i) / 0.05).min(1.0)).sum()
}

/// Mean absolute difference of two relative layouts.
fn layout_distance(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f32>() / a.len().max(1) as f32
}

/// 1 for equal layouts, 0 from a mean difference of 0.4 of the mean grey; the better of the two
/// turns (a layout read backwards is the card turned by 180°).
fn layout_similarity(profile: &[f32], card: &[f32]) -> f32 {
    let d = layout_distance(profile, card).min(layout_distance(profile, &turned_layout(card)));
    (1.0 - d / 0.4).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::face::{BackStyle, FaceStyle, bgr, draw_back, draw_face};
    use crate::vision::cards::types::{CARD_H, CARD_W};

    fn rectified(image: &Mat) -> Mat {
        resized(image, CARD_W, CARD_H).unwrap()
    }

    fn turned(image: &Mat) -> Mat {
        let mut out = Mat::default();
        core::rotate(image, &mut out, core::ROTATE_180).unwrap();
        out
    }

    #[test]
    fn a_back_looks_alike_either_way_up_and_a_group_of_faces_does_not() {
        use crate::render::random::random_back_style;
        use rand::SeedableRng;
        let quarter = |card: &Mat| resized(card, CARD_W / 4, CARD_H / 4).unwrap();
        // Light falling by a tenth from one end of the card to the other.
        let shaded = |card: &Mat| {
            let mut out = card.clone();
            for y in 0..card.rows() {
                let gain = 0.9 + 0.1 * f64::from(y) / f64::from(card.rows());
                let row = core::Rect::new(0, y, card.cols(), 1);
                let lit = scaled(&Mat::roi(card, row).unwrap().try_clone().unwrap(), gain, 0.0);
                lit.copy_to(&mut Mat::roi_mut(&mut out, row).unwrap()).unwrap();
            }
            out
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..40 {
            let style = random_back_style(&mut rng);
            let back = draw_back(&style, 300).unwrap();
            for card in [quarter(&back), quarter(&shaded(&back))] {
                assert!(turn_difference(&card).unwrap() < TURNED_BACK, "{style:?}");
            }
        }
        // Faces lying over one end of an outline, the table showing at the other.
        let face = draw_face("7H".parse().unwrap(), &FaceStyle::default(), 300).unwrap();
        let mut group =
            Mat::new_rows_cols_with_default(face.rows(), face.cols(), face.typ(), bgr(60, 90, 140)).unwrap();
        let top = core::Rect::new(0, 0, face.cols(), face.rows() * 3 / 5);
        Mat::roi(&face, top).unwrap().copy_to(&mut Mat::roi_mut(&mut group, top).unwrap()).unwrap();
        assert!(turn_difference(&quarter(&group)).unwrap() >= TURNED_BACK);
    }

    fn scaled(image: &Mat, gain: f64, offset: f64) -> Mat {
        let mut out = Mat::default();
        image.convert_to(&mut out, -1, gain, offset).unwrap();
        out
    }

    #[test]
    fn a_back_matches_itself_turned_dimmed_and_blurred_but_not_faces_or_other_backs() {
        let style = BackStyle::default();
        let back = rectified(&draw_back(&style, 400).unwrap());
        let profile = BackProfile::from_cards(std::slice::from_ref(&back)).unwrap().unwrap();
        let mut blurred = Mat::default();
        imgproc::gaussian_blur_def(&back, &mut blurred, core::Size::new(0, 0), 1.5).unwrap();
        for (what, card) in [("turned", turned(&back)), ("dimmed", scaled(&back, 0.6, 0.0)), ("blurred", blurred)] {
            let s = profile.similarity(&card).unwrap();
            assert!(s >= MATCH, "{what}: {s}");
        }
        let other = BackStyle { field: bgr(150, 30, 40), lattice: bgr(230, 200, 90), ..style };
        let s = profile.similarity(&rectified(&draw_back(&other, 400).unwrap())).unwrap();
        assert!(s < NO_MATCH, "other back: {s}");
        for code in ["AS", "7H", "KD", "QC", "10S"] {
            let face = rectified(&draw_face(code.parse().unwrap(), &FaceStyle::default(), 400).unwrap());
            let s = profile.similarity(&face).unwrap();
            assert!(s < NO_MATCH, "{code}: {s}");
        }
    }

    #[test]
    fn only_an_unread_outline_like_the_back_is_called_a_match() {
        let style = BackStyle::default();
        let back = rectified(&draw_back(&style, 400).unwrap());
        let profile = BackProfile::from_cards(std::slice::from_ref(&back)).unwrap().unwrap();
        let face = rectified(&draw_face("7H".parse().unwrap(), &FaceStyle::default(), 400).unwrap());
        // The back: face down and a match, whatever the plain call; unless an index was read.
        let (down, matched) = profile.face_down(&back, false, 0.2, None).unwrap();
        assert!(down.is_some_and(|s| s >= MATCH) && matched);
        assert_eq!(profile.face_down(&back, true, 0.2, None).unwrap(), (None, false));
        // A face with paper: up, and no match, even where the plain call said down.
        assert_eq!(profile.face_down(&face, false, 0.6, Some(0.4)).unwrap(), (None, false));
    }

    #[test]
    fn profiles_round_trip_and_bad_files_name_the_field() {
        let back = rectified(&draw_back(&BackStyle::default(), 300).unwrap());
        let profile = BackProfile::from_cards(&[back.clone(), turned(&back)]).unwrap().unwrap();
        assert_eq!(profile.photos, 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("back.json");
        profile.save(&path).unwrap();
        let loaded = BackProfile::load(&path).unwrap();
        assert!((loaded.similarity(&back).unwrap() - profile.similarity(&back).unwrap()).abs() < 1e-4);

        let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        json["texture"] = serde_json::json!([0.5, 0.5]);
        std::fs::write(&path, json.to_string()).unwrap();
        let err = BackProfile::load(&path).unwrap_err().to_string();
        assert!(err.contains("back.json") && err.contains("texture"), "{err}");

        json.as_object_mut().unwrap().remove("colour");
        std::fs::write(&path, json.to_string()).unwrap();
        let err = BackProfile::load(&path).unwrap_err().to_string();
        assert!(err.contains("back.json") && err.contains("colour"), "{err}");

        let mut wrong = serde_json::to_value(&profile).unwrap();
        wrong["format"] = serde_json::json!("card-referee-deck/1");
        std::fs::write(&path, wrong.to_string()).unwrap();
        let err = BackProfile::load(&path).unwrap_err().to_string();
        assert!(err.contains("back.json") && err.contains("format"), "{err}");
    }
}
