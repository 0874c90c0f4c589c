//! Deck enrolment from a short video pass: the user shows the cards to the camera one at a time.
//!
//! Frames are fed in order. A *stretch* is a run of frames with exactly one card outline, wholly
//! in view, that stays put (small motion allowed); within it each frame's corners are read by the built-in
//! reader. When the same card is read confidently in at least `min_frames` frames of a stretch
//! (unread frames, say blurred ones, are passed over; a different reading starts over), that card
//! is enrolled: the patches of its sharpest, most confident frame (see
//! `CardDetector::enrol_card`) go into the profile under its identity. A card seen in several stretches keeps its best frame.
//!
//! The caller opens the video (see `capture`), so that vision does not depend on capture.

use std::collections::BTreeMap;

use opencv::{core, imgproc, prelude::*};

use super::back::clear_of_edges;
use super::enroll::{DeckProfile, EnrolledPatch};
use crate::cards::Card;
use crate::vision::cards::detector::CardDetector;
use crate::vision::cards::picture::light;
use crate::vision::cards::picture::pixels::rectify;
use crate::vision::cards::stages::outlines::find_card_quads;

/// One card enrolled from the video.
#[derive(Clone, Debug, PartialEq)]
pub struct EnrolledCard {
    pub card: Card,
    /// Frames of its best stretch that read it.
    pub frames: usize,
    /// The frame its patches were cut from, and that frame's reading confidence.
    pub frame: u64,
    pub confidence: f32,
}

/// What a video pass gave.
#[derive(Clone, Debug, Default)]
pub struct VideoEnrollReport {
    pub frames: u64,
    /// Stretches of frames with one steady card outline.
    pub stretches: usize,
    /// Stretches long enough to count (`min_frames`) in which no card was read steadily.
    pub unread_stretches: usize,
    pub enrolled: Vec<EnrolledCard>,
    /// The cards of the 52 not enrolled.
    pub missing: Vec<Card>,
}

/// The best frame seen so far of one reading: kept whole, its patches are cut only once the
/// reading has held for enough frames.
struct Candidate {
    quality: f32,
    confidence: f32,
    frame: u64,
    image: Mat,
    quad: [[f32; 2]; 4],
}

/// The frame one card was enrolled from.
struct Enrolled {
    frames: usize,
    quality: f32,
    confidence: f32,
    frame: u64,
    /// The card's corner and loose patches from that frame (see `CardDetector::enrol_card`).
    patches: (Vec<EnrolledPatch>, Vec<EnrolledPatch>),
}

/// Consecutive confident readings of one card inside a stretch.
struct Run {
    card: Card,
    frames: usize,
    best: Candidate,
}

/// Builds a deck profile from frames fed one at a time.
pub struct VideoEnroller {
    detector: CardDetector,
    /// A frame's reading counts when at least this confident.
    pub min_confidence: f32,
    /// Frames of one stretch that must read the same card.
    pub min_frames: usize,
    previous: Option<[[f32; 2]; 4]>,
    stretch_frames: usize,
    stretch_enrolled: bool,
    run: Option<Run>,
    best: BTreeMap<Card, Enrolled>,
    report: VideoEnrollReport,
}

impl VideoEnroller {
    /// An enroller reading with the built-in templates.
    pub fn new() -> opencv::Result<VideoEnroller> {
        Ok(VideoEnroller {
            detector: CardDetector::new()?,
            min_confidence: 0.6,
            min_frames: 3,
            previous: None,
            stretch_frames: 0,
            stretch_enrolled: false,
            run: None,
            best: BTreeMap::new(),
            report: VideoEnrollReport::default(),
        })
    }

    /// Takes the next BGR frame.
    pub fn push(&mut self, frame: &Mat, index: u64) -> opencv::Result<()> {
        self.report.frames += 1;
        let area = f64::from(frame.cols()) * f64::from(frame.rows());
        // Balanced once, as `detect` sees it: the outline is found and the corners read under
        // that light (`read_corners_of` finds this frame grey already and leaves it).
        let lit = light::balanced(frame)?;
        let mut quads = if area > 0.0 { find_card_quads(lit.as_ref(), 0.02)? } else { Vec::new() };
        // The whole card must be in view (an outline along the frame's edge is the table itself).
        quads.retain(|q| clear_of_edges(frame, q));
        let [quad] = quads.as_slice() else {
            tracing::debug!(frame = index, outlines = quads.len(), "no single outline");
            return self.end_stretch();
        };
        if !self.previous.is_some_and(|p| steady(&p, quad)) {
            self.end_stretch()?;
            self.report.stretches += 1;
        }
        self.previous = Some(*quad);
        self.stretch_frames += 1;
        let card = rectify(frame, quad)?;
        let readings = self.detector.read_corners_of(lit.as_ref(), quad)?;
        tracing::debug!(frame = index, stretch = self.report.stretches, ?readings, "read");
        let Some((read, confidence)) = agreed(&readings) else {
            return Ok(());
        };
        if confidence < self.min_confidence {
            return Ok(());
        }
        if self.run.as_ref().is_some_and(|r| r.card != read) {
            self.end_run()?;
        }
        let quality = confidence * sharpness(&card)?;
        match &mut self.run {
            Some(run) => {
                run.frames += 1;
                if quality > run.best.quality {
                    run.best = Candidate { quality, confidence, frame: index, image: frame.clone(), quad: *quad };
                }
            }
            None => {
                let best = Candidate { quality, confidence, frame: index, image: frame.clone(), quad: *quad };
                self.run = Some(Run { card: read, frames: 1, best });
            }
        }
        Ok(())
    }

    /// The profile and what went into it.
    pub fn finish(mut self) -> opencv::Result<(DeckProfile, VideoEnrollReport)> {
        self.end_stretch()?;
        let mut profile = DeckProfile::new();
        for (card, best) in &self.best {
            profile.corners.extend(best.patches.0.iter().cloned());
            profile.loose.extend(best.patches.1.iter().cloned());
            self.report.enrolled.push(EnrolledCard {
                card: *card,
                frames: best.frames,
                frame: best.frame,
                confidence: best.confidence,
            });
        }
        self.report.missing = Card::deck().into_iter().filter(|c| !self.best.contains_key(c)).collect();
        Ok((profile, self.report))
    }

    fn end_run(&mut self) -> opencv::Result<()> {
        let Some(run) = self.run.take() else {
            return Ok(());
        };
        if run.frames < self.min_frames {
            return Ok(());
        }
        self.stretch_enrolled = true;
        let best = run.best;
        if self.best.get(&run.card).is_none_or(|known| best.quality > known.quality) {
            let patches = self.detector.enrol_card(&best.image, &best.quad, run.card)?;
            let (quality, confidence, frame) = (best.quality, best.confidence, best.frame);
            self.best.insert(run.card, Enrolled { frames: run.frames, quality, confidence, frame, patches });
        }
        Ok(())
    }

    fn end_stretch(&mut self) -> opencv::Result<()> {
        self.end_run()?;
        if self.stretch_frames >= self.min_frames && !self.stretch_enrolled {
            self.report.unread_stretches += 1;
        }
        self.previous = None;
        self.stretch_frames = 0;
        self.stretch_enrolled = false;
        Ok(())
    }
}

/// The two corners' readings: one alone, or both when they agree (the confidences combined).
pub(in crate::vision::cards) fn agreed(readings: &[(Card, f32)]) -> Option<(Card, f32)> {
    match readings {
        [one] => Some(*one),
        [(a, ca), (b, cb)] if a == b => Some((*a, 1.0 - (1.0 - ca) * (1.0 - cb))),
        _ => None,
    }
}

/// The same outline in the next frame: its centre moved less than a fifth of its short side and
/// its size changed by less than a fifth.
pub(in crate::vision::cards) fn steady(a: &[[f32; 2]; 4], b: &[[f32; 2]; 4]) -> bool {
    let centre =
        |q: &[[f32; 2]; 4]| [q.iter().map(|p| p[0]).sum::<f32>() / 4.0, q.iter().map(|p| p[1]).sum::<f32>() / 4.0];
    let d = |p: [f32; 2], q: [f32; 2]| ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
    let sides = |q: &[[f32; 2]; 4]| {
        let s = (d(q[0], q[1]) + d(q[2], q[3])) / 2.0;
        let l = (d(q[1], q[2]) + d(q[3], q[0])) / 2.0;
        (s.min(l), s.max(l))
    };
    let ((sa, la), (sb, lb)) = (sides(a), sides(b));
    d(centre(a), centre(b)) < 0.2 * sa.min(sb) && (la * sa / (lb * sb).max(1.0) - 1.0).abs() < 0.2
}

/// How sharp a rectified card is, 0..1: the variance of its Laplacian, saturating.
pub(in crate::vision::cards) fn sharpness(card: &Mat) -> opencv::Result<f32> {
    let mut grey = Mat::default();
    imgproc::cvt_color_def(card, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    let mut laplacian = Mat::default();
    imgproc::laplacian_def(&grey, &mut laplacian, core::CV_32F)?;
    let (mut mean, mut dev) = (core::Scalar::default(), core::Scalar::default());
    core::mean_std_dev(&laplacian, &mut mean, &mut dev, &core::no_array())?;
    let variance = (dev[0] * dev[0]) as f32;
    Ok(variance / (variance + 200.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_must_agree_and_outlines_must_stay_put() {
        let (a, b): (Card, Card) = ("QS".parse().unwrap(), "QH".parse().unwrap());
        assert_eq!(agreed(&[(a, 0.7)]), Some((a, 0.7)));
        assert_eq!(agreed(&[(a, 0.7), (b, 0.7)]), None);
        assert!((agreed(&[(a, 0.5), (a, 0.5)]).unwrap().1 - 0.75).abs() < 1e-6);
        let q = [[100.0, 100.0], [200.0, 100.0], [200.0, 240.0], [100.0, 240.0]];
        let nudged = q.map(|p| [p[0] + 6.0, p[1] - 4.0]);
        let moved = q.map(|p| [p[0] + 40.0, p[1]]);
        let bigger = q.map(|p| [150.0 + (p[0] - 150.0) * 1.3, 170.0 + (p[1] - 170.0) * 1.3]);
        assert!(steady(&q, &nudged));
        assert!(!steady(&q, &moved));
        assert!(!steady(&q, &bigger));
    }
}
