//! Enrolling a user's own deck from labelled photos (one card each): the embeddings of each
//! card's corner windows and loose index patches, a few times each with the outline and the
//! index found a little off (see `enrolled`), kept in a `DeckProfile`.

use std::path::Path;

use opencv::prelude::*;

use crate::cards::Card;
use crate::vision::cards::detector::CardDetector;
use crate::vision::cards::labels::{LabelEntry, LabelSet};
use crate::vision::cards::picture::light;
use crate::vision::cards::picture::quad::{inside, quad_centre, shoelace_area, side_lengths};
use crate::vision::cards::readers::index::candidate_spots_at;
use crate::vision::cards::readers::index_net::IndexNet;
use crate::vision::cards::readers::patch;
use crate::vision::cards::stages::outlines::find_card_quads;
use crate::vision::cards::types::{Quad, SMALL_FRAME};

pub use super::profile::{DeckProfile, EnrollError, EnrolledPatch, PROFILE_FORMAT, read_image};

/// What enrolment did with each photo.
#[derive(Clone, Debug, Default)]
pub struct EnrollReport {
    pub enrolled_cards: usize,
    pub corners: usize,
    /// Files skipped: not exactly one exact face-up label, or no card outline found.
    pub skipped: Vec<String>,
}

impl DeckProfile {
    /// Builds a profile from `DIR/labels.json` and single-card photos: for each image labelled
    /// with exactly one exact card, the largest card outline is enrolled under that card.
    pub fn enroll(dir: &Path) -> Result<(DeckProfile, EnrollReport), EnrollError> {
        let labels = LabelSet::load(&dir.join("labels.json"))?;
        let detector = CardDetector::new()?;
        let mut profile = DeckProfile::new();
        let mut report = EnrollReport::default();
        for image in &labels.images {
            let card = match image.face_up.as_slice() {
                [LabelEntry::Exact(card)] => *card,
                _ => {
                    report.skipped.push(image.file.clone());
                    continue;
                }
            };
            let frame = read_image(&dir.join(&image.file))?;
            // Balanced once, as `detect` sees it: the outline is found and the patches are cut
            // under that light (`enrol_card` finds this frame grey already and leaves it).
            let lit = light::balanced(&frame)?;
            let quads = find_card_quads(lit.as_ref(), 0.05)?;
            let Some(quad) = quads.iter().max_by(|a, b| shoelace_area(a).total_cmp(&shoelace_area(b))) else {
                report.skipped.push(image.file.clone());
                continue;
            };
            let (corners, loose) = detector.enrol_card(lit.as_ref(), quad, card)?;
            report.enrolled_cards += 1;
            report.corners += 2;
            profile.corners.extend(corners);
            profile.loose.extend(loose);
        }
        Ok((profile, report))
    }
}

impl CardDetector {
    /// The patches of one card of a user's deck lying in the frame at `quad`, for enrolling it:
    /// both corner windows, and the loose index candidates found in them, each as found and a
    /// little off (an outline or an index found a few pixels away at run time).
    pub fn enrol_card(
        &self,
        frame: &Mat,
        quad: &Quad,
        card: Card,
    ) -> opencv::Result<(Vec<EnrolledPatch>, Vec<EnrolledPatch>)> {
        // Under the light `detect` reads in, so that a deck enrolled under a lamp is remembered
        // as it will be seen.
        let balanced = light::balanced(frame)?;
        let frame = balanced.as_ref();
        let (short, _) = side_lengths(quad);
        let centre = quad_centre(quad);
        let moved = |dx: f32, dy: f32, k: f32| {
            quad.map(|p| {
                [centre[0] + (p[0] - centre[0]) * k + dx * short, centre[1] + (p[1] - centre[1]) * k + dy * short]
            })
        };
        let outlines = [
            moved(0.0, 0.0, 1.0),
            moved(0.02, 0.0, 1.0),
            moved(-0.02, 0.0, 1.0),
            moved(0.0, 0.02, 1.0),
            moved(0.0, -0.02, 1.0),
            moved(0.0, 0.0, 1.03),
            moved(0.0, 0.0, 0.97),
        ];
        let mut windows = Vec::new();
        for q in &outlines {
            for far in [false, true] {
                windows.push(patch::corner_window(q, far));
            }
        }
        let corners = self.embed(&self.corner_net.full, frame, &windows, (patch::CORNER_W, patch::CORNER_H), card)?;
        // The loose candidates standing upright in either corner window, the one the network
        // finds likeliest to be this card per corner. Glyph sizes are judged as on a table
        // where a card's width is a quarter of the frame's shorter side.
        let spots = candidate_spots_at(frame, SMALL_FRAME, (4.0 * short) as i32)?;
        let mut loose_windows = Vec::new();
        for far in [false, true] {
            let window = patch::corner_window(quad, far);
            let (down, _) = patch::window_axis(&window);
            let upright: Vec<_> = spots
                .iter()
                .filter(|s| inside(&window, s.rank) && s.down[0] * down[0] + s.down[1] * down[1] > 0.9)
                .collect();
            let cut = |s: &&crate::vision::cards::readers::index::IndexSpot| {
                patch::cut(frame, &patch::index_window(s.rank, s.down, s.unit), patch::INDEX_W, patch::INDEX_H)
            };
            let patches = upright.iter().map(cut).collect::<opencv::Result<Vec<_>>>()?;
            let readings = self.loose_net.full.read(&patches.iter().collect::<Vec<_>>())?;
            // A spot the network takes for no index at all (a blank, a pip) would teach the
            // memory that such marks are this card.
            let likeliest = upright
                .iter()
                .zip(&readings)
                .filter(|(_, r)| r.nothing() < 0.5)
                .max_by(|a, b| a.1.probability(card).total_cmp(&b.1.probability(card)));
            if let Some((spot, _)) = likeliest {
                // Shifted across by a tenth of the index's size, turned by 0.1 rad, scaled.
                for (shift, turn, k) in [
                    (0.0, 0.0, 1.0),
                    (0.1, 0.0, 1.0),
                    (-0.1, 0.0, 1.0),
                    (0.0, 0.1, 1.0),
                    (0.0, -0.1, 1.0),
                    (0.0, 0.0, 1.1),
                    (0.0, 0.0, 0.9),
                ] {
                    let (sin, cos) = (turn as f32).sin_cos();
                    let d = [spot.down[0] * cos - spot.down[1] * sin, spot.down[0] * sin + spot.down[1] * cos];
                    let right = [d[1], -d[0]];
                    let rank =
                        [spot.rank[0] + right[0] * shift * spot.unit, spot.rank[1] + right[1] * shift * spot.unit];
                    loose_windows.push(patch::index_window(rank, d, spot.unit * k));
                }
            }
        }
        let loose = self.embed(&self.loose_net.full, frame, &loose_windows, (patch::INDEX_W, patch::INDEX_H), card)?;
        Ok((corners, loose))
    }

    /// The embeddings of `windows` by `net`, as patches of `card`.
    fn embed(
        &self,
        net: &IndexNet,
        frame: &Mat,
        windows: &[patch::Window],
        (w, h): (i32, i32),
        card: Card,
    ) -> opencv::Result<Vec<EnrolledPatch>> {
        let patches = windows.iter().map(|win| patch::cut(frame, win, w, h)).collect::<opencv::Result<Vec<_>>>()?;
        let readings = net.read(&patches.iter().collect::<Vec<_>>())?;
        Ok(readings.into_iter().map(|r| EnrolledPatch { card, embedding: r.embedding }).collect())
    }
}
