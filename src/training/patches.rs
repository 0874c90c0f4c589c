//! Labelled patches for training the index network, cut from rendered tables where the detector
//! reads: the corners of the card outlines it finds (and of the true outlines, a little off, as
//! an outline finder leaves them), and the candidates of its loose index search (and the true
//! indices, a little off). Labels come from the renderer's ground truth. A window that holds
//! part of an index (half covered, or cut by the window's edge) is left out rather than given a
//! label that is half true.

use std::io::Write;

use opencv::{core, prelude::*};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::cards::Card;
use crate::render::CardTruth;
use crate::vision::cards::picture::quad::inside;
use crate::vision::cards::readers::index::{IndexSpot, candidate_spots};
use crate::vision::cards::readers::patch::{self, CORNER_H, CORNER_W, INDEX_H, INDEX_W, Patch, Window};
use crate::vision::cards::stages::outlines::find_card_quads;

/// Where a patch was cut: a card outline's corner, or a loose index candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Corner = 0,
    Loose = 1,
}

/// One labelled patch: `label` is the card whose index it shows, `None` when it shows none.
#[derive(Clone, Debug)]
pub struct Sample {
    pub kind: Kind,
    pub label: Option<Card>,
    pub patch: Patch,
}

/// What a window holds, by the ground truth.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Label {
    Card(Card),
    Nothing,
    /// Part of an index, or an index half seen: not used.
    Unsure,
}

/// One index of a face-up card, as the renderer drew it.
struct TrueIndex {
    card: Card,
    rank: [f32; 2],
    pip: [f32; 2],
    seen: f64,
}

fn true_indices(truth: &[CardTruth]) -> Vec<TrueIndex> {
    let mut out = Vec::new();
    for t in truth.iter().filter(|t| t.face_up) {
        for (marks, seen) in t.index_marks.iter().zip(t.index_seen) {
            let at = |k: usize| [marks[k].x as f32, marks[k].y as f32];
            out.push(TrueIndex { card: t.card, rank: at(0), pip: at(1), seen });
        }
    }
    out
}

/// Settings of the sample builder.
#[derive(Clone, Debug)]
pub struct SampleOptions {
    /// Share of the loose candidates that show no index to keep (most candidates are pips of a
    /// card's middle and marks of court pictures; all of them would swamp the indices).
    pub keep_nothing: f64,
    /// Jittered copies of each true index and each true outline added.
    pub jittered: usize,
}

impl Default for SampleOptions {
    fn default() -> Self {
        SampleOptions { keep_nothing: 0.2, jittered: 2 }
    }
}

/// The labelled patches of one rendered frame.
pub fn samples(
    frame: &Mat,
    truth: &[CardTruth],
    options: &SampleOptions,
    rng: &mut ChaCha8Rng,
) -> opencv::Result<Vec<Sample>> {
    let indices = true_indices(truth);
    let mut out = Vec::new();
    // Corners of the outlines found, and of the true outlines a little off.
    let mut quads = find_card_quads(frame, 0.004)?;
    for t in truth.iter().filter(|t| t.visible > 0.5) {
        let short = t.quad[0].distance(t.quad[1]).min(t.quad[1].distance(t.quad[2])) as f32;
        for _ in 0..options.jittered {
            quads
                .push(t.quad.map(|p| [p.x as f32 + gauss(rng) * 0.02 * short, p.y as f32 + gauss(rng) * 0.02 * short]));
        }
    }
    for quad in &quads {
        for far in [false, true] {
            let window = patch::corner_window(quad, far);
            if let Some(label) = wanted(label_corner(&window, &indices)) {
                out.push(Sample { kind: Kind::Corner, label, patch: patch::cut(frame, &window, CORNER_W, CORNER_H)? });
            }
        }
    }
    // The loose search's candidates, and the true indices a little off.
    let mut spots = candidate_spots(frame, crate::vision::cards::types::SMALL_FRAME)?;
    for t in indices.iter().filter(|t| t.seen >= 0.9) {
        let len = dist(t.rank, t.pip);
        let down = [(t.pip[0] - t.rank[0]) / len, (t.pip[1] - t.rank[1]) / len];
        for _ in 0..options.jittered {
            let turn = rng.random_range(-0.25f32..0.25);
            let (s, c) = turn.sin_cos();
            let rank = [t.rank[0] + gauss(rng) * 0.12 * len, t.rank[1] + gauss(rng) * 0.12 * len];
            let down = [down[0] * c - down[1] * s, down[0] * s + down[1] * c];
            let unit = len * rng.random_range(0.85f32..1.2);
            spots.push(IndexSpot { rank, down, unit, bbox: core::Rect::default() });
        }
    }
    for spot in &spots {
        let label = label_spot(spot, &indices);
        if label == Label::Nothing && !rng.random_bool(options.keep_nothing) {
            continue;
        }
        if let Some(label) = wanted(label) {
            let window = patch::index_window(spot.rank, spot.down, spot.unit);
            out.push(Sample { kind: Kind::Loose, label, patch: patch::cut(frame, &window, INDEX_W, INDEX_H)? });
        }
    }
    Ok(out)
}

/// The card outlines found in a rendered frame whose two corner windows both show one card's
/// whole index, with that card and both corners' patches: where two readings of one card can be
/// weighed together (`examples/corner_pair_bar.rs`).
pub fn corner_pairs(frame: &Mat, truth: &[CardTruth]) -> opencv::Result<Vec<(Card, [Patch; 2])>> {
    let indices = true_indices(truth);
    let mut out = Vec::new();
    for quad in find_card_quads(frame, 0.004)? {
        let windows = [patch::corner_window(&quad, false), patch::corner_window(&quad, true)];
        if let [Label::Card(a), Label::Card(b)] = windows.map(|w| label_corner(&w, &indices))
            && a == b
        {
            let cut = |w: &Window| patch::cut(frame, w, CORNER_W, CORNER_H);
            out.push((a, [cut(&windows[0])?, cut(&windows[1])?]));
        }
    }
    Ok(out)
}

fn wanted(label: Label) -> Option<Option<Card>> {
    match label {
        Label::Card(card) => Some(Some(card)),
        Label::Nothing => Some(None),
        Label::Unsure => None,
    }
}

/// A corner window shows a card when one whole index stands upright in it (within about 20°),
/// at a corner's scale (rank to pip 0.2 to 0.55 of the window's height); it shows nothing when
/// no index near upright (within about 30°) has a mark in it.
fn label_corner(window: &Window, indices: &[TrueIndex]) -> Label {
    let (down, height) = patch::window_axis(window);
    let mut found = None;
    for t in indices {
        let (rank_in, pip_in) = (inside(window, t.rank), inside(window, t.pip));
        if !rank_in && !pip_in {
            continue;
        }
        let len = dist(t.rank, t.pip);
        let along = ((t.pip[0] - t.rank[0]) * down[0] + (t.pip[1] - t.rank[1]) * down[1]) / len;
        if along < 0.85 {
            continue;
        }
        let upright = along > 0.94 && (0.2..0.55).contains(&(len / height));
        if !(upright && rank_in && pip_in) || t.seen < 0.9 || found.is_some() {
            return Label::Unsure;
        }
        found = Some(t.card);
    }
    found.map_or(Label::Nothing, Label::Card)
}

/// A loose candidate shows a card when it lies on a whole index: its rank centre within 0.45
/// of the rank-to-pip distance of the true one, turned less than 25° from it, at 0.7 to 1.45
/// times its scale. Near that (less than 45° off, or 0.5 to 2 times the scale) it is unsure.
fn label_spot(spot: &IndexSpot, indices: &[TrueIndex]) -> Label {
    let mut found = None;
    for t in indices {
        let len = dist(t.rank, t.pip);
        let off = dist(spot.rank, t.rank);
        if off > 0.6 * len {
            continue;
        }
        let cos = ((t.pip[0] - t.rank[0]) * spot.down[0] + (t.pip[1] - t.rank[1]) * spot.down[1]) / len;
        let scale = spot.unit / len;
        let close = off < 0.45 * len && cos > 25f32.to_radians().cos() && (0.7..1.45).contains(&scale);
        let near = cos > 45f32.to_radians().cos() && (0.5..2.0).contains(&scale);
        if close && t.seen >= 0.9 && found.is_none() {
            found = Some(t.card);
        } else if close || near {
            return Label::Unsure;
        }
    }
    found.map_or(Label::Nothing, Label::Card)
}

/// What a real camera does to a frame beyond the renderer's blur and noise: lost resolution,
/// JPEG compression, a tone curve and a colour cast.
pub fn camera_effects(frame: &Mat, rng: &mut ChaCha8Rng) -> opencv::Result<Mat> {
    use opencv::imgproc;
    let mut out = frame.clone();
    if rng.random_bool(0.3) {
        let k = rng.random_range(0.45..0.9);
        let mut small = Mat::default();
        imgproc::resize(&out, &mut small, core::Size::new(0, 0), k, k, imgproc::INTER_AREA)?;
        imgproc::resize(&small, &mut out, frame.size()?, 0.0, 0.0, imgproc::INTER_LINEAR)?;
    }
    let gamma = rng.random_range(0.7..1.4);
    let gains: [f64; 3] = std::array::from_fn(|_| rng.random_range(0.85..1.15));
    let mut lut = Mat::new_rows_cols_with_default(1, 256, core::CV_8UC3, core::Scalar::all(0.0))?;
    for v in 0..256 {
        let px = lut.at_2d_mut::<core::Vec3b>(0, v)?;
        for (c, gain) in gains.iter().enumerate() {
            px[c] = ((f64::from(v) / 255.0).powf(gamma) * 255.0 * gain).clamp(0.0, 255.0) as u8;
        }
    }
    let mut toned = Mat::default();
    core::lut(&out, &lut, &mut toned)?;
    out = toned;
    if rng.random_bool(0.7) {
        out = crate::vision::alter::jpeg_round_trip(&out, rng.random_range(25..95))?;
    }
    Ok(out)
}

/// Magic and version of a patch file (`write_header`, `write_sample`).
const MAGIC: &[u8; 4] = b"CRP1";

/// Starts a patch file: the magic, then the corner and loose patch sizes and the planes, as u16.
pub fn write_header(out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    for v in [CORNER_W, CORNER_H, INDEX_W, INDEX_H, patch::PLANES as i32] {
        out.write_all(&(v as u16).to_le_bytes())?;
    }
    Ok(())
}

/// One record: kind, rank (0..13 for A..K, 13 for none), suit (0..4 in `Suit::ALL` order, 4 for
/// none), a byte of the source (a group the trainer keeps apart for validation), then the
/// patch's bytes.
pub fn write_sample(out: &mut impl Write, sample: &Sample, group: u8) -> std::io::Result<()> {
    let (rank, suit) = match sample.label {
        Some(card) => (card.rank.value() - 1, card.suit.index() as u8),
        None => (13, 4),
    };
    out.write_all(&[sample.kind as u8, rank, suit, group])?;
    out.write_all(&sample.patch.bytes)
}

fn gauss(rng: &mut ChaCha8Rng) -> f32 {
    // Box-Muller.
    let (u, v): (f32, f32) = (rng.random_range(1e-6..1.0), rng.random_range(0.0..1.0));
    (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
}

fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt().max(1e-3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(card: &str, rank: [f32; 2], pip: [f32; 2], seen: f64) -> TrueIndex {
        TrueIndex { card: card.parse().unwrap(), rank, pip, seen }
    }

    #[test]
    fn a_spot_on_an_index_is_that_card_and_one_turned_away_is_nothing() {
        let truth = [index("QH", [100.0, 100.0], [100.0, 112.0], 1.0)];
        let spot = |rank, down, unit| IndexSpot { rank, down, unit, bbox: core::Rect::default() };
        let on = spot([101.0, 99.0], [0.1, 0.995], 12.5);
        assert_eq!(label_spot(&on, &truth), Label::Card("QH".parse().unwrap()));
        // Upside down (the pip taken for the rank): nothing.
        let turned = spot([100.0, 104.0], [0.0, -1.0], 12.0);
        assert_eq!(label_spot(&turned, &truth), Label::Nothing);
        // Half seen, or 30° off: unsure.
        let half = [index("QH", [100.0, 100.0], [100.0, 112.0], 0.6)];
        assert_eq!(label_spot(&on, &half), Label::Unsure);
        let slanted = spot([100.0, 100.0], [0.5, 0.866], 12.0);
        assert_eq!(label_spot(&slanted, &truth), Label::Unsure);
    }

    #[test]
    fn a_corner_window_shows_the_upright_index_inside_it() {
        let window = [[0.0, 0.0], [30.0, 0.0], [30.0, 70.0], [0.0, 70.0]];
        let upright = [index("7S", [15.0, 15.0], [15.0, 33.0], 1.0)];
        assert_eq!(label_corner(&window, &upright), Label::Card("7S".parse().unwrap()));
        // Another card's index lying across the window: nothing to read here.
        let across = [index("7S", [10.0, 40.0], [28.0, 40.0], 1.0)];
        assert_eq!(label_corner(&window, &across), Label::Nothing);
        // An index cut by the window's edge: unsure.
        let cut = [index("7S", [15.0, 60.0], [15.0, 78.0], 1.0)];
        assert_eq!(label_corner(&window, &cut), Label::Unsure);
    }
}
