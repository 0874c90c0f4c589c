//! Each outline that is one card, face up or face down: a face-up card by the corners read, a
//! back by how much of it is plain paper and how that paper lies (a back's pale lattice against
//! a face's open paper), or by the calibrated back; neither, the table's own light and shade.

use opencv::{core, imgproc, prelude::*};

use super::corners::{CornerReadings, combine};
use super::outlines::MIN_EDGE_SUPPORT;
use crate::vision::cards::decks::back;
use crate::vision::cards::detector::CardDetector;
use crate::vision::cards::picture::pixels::*;
use crate::vision::cards::picture::quad::{cut_by_frame, nearly_square, spans_frame};
use crate::vision::cards::types::*;

/// One outline as the face-up-or-down call sees it.
pub(in crate::vision::cards) struct OutlineSeen<'a> {
    /// The frame in the camera's colours (a calibrated back is matched in them).
    pub(in crate::vision::cards) camera: &'a Mat,
    /// The frame under white light, as the readers see it.
    pub(in crate::vision::cards) frame: &'a Mat,
    pub(in crate::vision::cards) quad: Quad,
    /// How much of the outline runs along an edge (`outlines::edge_support`).
    pub(in crate::vision::cards) support: Option<f32>,
}

impl CardDetector {
    /// The card an outline holds: face up and read by its corners, or face down; `None` for
    /// the table's own light and shade, or a nearly square outline that is no sure back. A
    /// back sure enough to leave out of the loose search joins `backs`.
    pub(in crate::vision::cards) fn face_up_or_down(
        &self,
        seen: &OutlineSeen,
        pre: &CornerReadings,
        backs: &mut Vec<Quad>,
    ) -> opencv::Result<Option<CardDetection>> {
        let OutlineSeen { camera, frame, quad, support } = *seen;
        let size = [frame.cols() as f32, frame.rows() as f32];
        let (readings, boxes) = self.read_outline(frame, &quad, pre)?;
        // With no index read, an outline with hardly any edge along it is a level's contour
        // through the table's own light and shade (felt, a pale cloth), and one of most of
        // the frame is the table itself (a card close up would show its index).
        let table = support.is_some_and(|s| s < MIN_EDGE_SUPPORT) || spans_frame(&quad, size);
        let unread = combine(&readings, self.config.min_confidence).0.is_none();
        if table && unread {
            return Ok(None);
        }
        let square = unread && nearly_square(&quad);
        // How much of it is plain paper: asked only of a card with no index read, or of any
        // card when a back is calibrated (a warp per card, a twentieth of a frame's time).
        let small_card = if readings.is_empty() || self.back.is_some() {
            Some(rectify_sized(frame, &quad, CARD_W / 4, CARD_H / 4)?)
        } else {
            None
        };
        let paper_mask = small_card.as_ref().map(paper_mask).transpose()?;
        let paper = match &paper_mask {
            Some(mask) => share_set(mask)?,
            None => 1.0,
        };
        let mut down = (readings.is_empty() && paper <= 0.55).then(|| (1.0 - paper as f32).clamp(0.0, 1.0));
        let mut matched = false;
        if let Some(back) = &self.back {
            (down, matched) = back.face_down(&rectify(camera, &quad)?, !unread, paper, down)?;
            if matched {
                backs.push(quad);
            }
        }
        if let Some(confidence) = down {
            // Uncalibrated, a back is sure when the corner network is sure both corners are
            // blank and its paper is not a face's, and the whole outline is in sight (one the
            // frame cuts off may be a fan of faces whose corners lie beyond it).
            // A square outline is asked too, calibrated or not: it stands only as a sure back.
            let sure = (self.back.is_none() || square)
                && !cut_by_frame(&quad, size)
                && pre.both_blank(&quad)
                && match (&paper_mask, &small_card) {
                    (Some(mask), Some(card)) => {
                        sure_back(mask, paper)? && back::turn_difference(card)? < back::TURNED_BACK
                    }
                    _ => false,
                };
            if sure && self.back.is_none() {
                backs.push(quad);
            } else if square && !sure && !matched {
                return Ok(None);
            }
            let card =
                CardDetection { card: None, face: Face::Down, confidence, quad: Some(quad), index_boxes: Vec::new() };
            return Ok(Some(card));
        }
        if square {
            return Ok(None);
        }
        let (card, confidence) = combine(&readings, self.config.min_confidence);
        // A corner that read another card is no evidence for this one: its box goes, and the
        // outline counts as read by one corner, so the loose search looks inside it (a card
        // lying over another's end shows both indices in one corner window; see
        // `add_loose_indices`).
        let boxes = boxes.into_iter().zip(&readings).filter(|(_, r)| Some(r.card) == card).map(|(b, _)| b).collect();
        Ok(Some(CardDetection { card, face: Face::Up, confidence, quad: Some(quad), index_boxes: boxes }))
    }
}

/// Whether an outline taken for face down (`paper_mask`, its paper at a quarter size, with
/// `paper` the share of it set) holds too little paper for a face (`back::FACE_PAPER`), or,
/// inside its margin, paper only in thin lines: a back's pale lattice (`back::LINED_PAPER`).
pub(in crate::vision::cards) fn sure_back(paper_mask: &Mat, paper: f64) -> opencv::Result<bool> {
    Ok(paper < back::FACE_PAPER || solid_paper_fraction(paper_mask)? < back::LINED_PAPER)
}

/// The share of a (quarter-size) rectified card's inside (its margin left out) that is paper in
/// patches wider than a thin line, from its `paper_mask`: a face's background stays, the pale
/// lines of a back's lattice go.
pub(in crate::vision::cards) fn solid_paper_fraction(paper_mask: &Mat) -> opencv::Result<f64> {
    let (w, h) = (paper_mask.cols(), paper_mask.rows());
    let inset = (w as f32 * 0.12).round() as i32;
    let solid = morph(paper_mask, imgproc::MORPH_OPEN, imgproc::MORPH_RECT, 3)?;
    share_set(&Mat::roi(&solid, core::Rect::new(inset, inset, w - 2 * inset, h - 2 * inset))?)
}

/// Where a BGR card is paper: bright in every channel relative to the brightest part of it.
pub(in crate::vision::cards) fn paper_mask(card: &Mat) -> opencv::Result<Mat> {
    let low = min_channel(card)?;
    let mut gray = Mat::default();
    imgproc::cvt_color_def(card, &mut gray, imgproc::COLOR_BGR2GRAY)?;
    let mut max = 0.0;
    core::min_max_loc(&gray, None, Some(&mut max), None, None, &core::no_array())?;
    let mut paper = Mat::default();
    imgproc::threshold(&low, &mut paper, max * 0.7, 255.0, imgproc::THRESH_BINARY)?;
    Ok(paper)
}
