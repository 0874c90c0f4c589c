//! The second stage: each outline's two index corners read, by the index networks, by the
//! glyph templates weighed by the glyph networks, or both (`Reader`).

use opencv::{core, imgproc, prelude::*};

use crate::cards::{Card, Rank, Suit};
use crate::vision::cards::decks::enrolled::Memory;
use crate::vision::cards::detector::{CardDetector, Reader};
use crate::vision::cards::picture::pixels::*;
use crate::vision::cards::picture::quad::longer_side;
use crate::vision::cards::picture::quad::*;
use crate::vision::cards::picture::{blur, light};
use crate::vision::cards::readers::classify::{GlyphFeature, check_black_suit, confidence};
use crate::vision::cards::readers::index_net::SURE_BLANK;
use crate::vision::cards::readers::patch;
use crate::vision::cards::readers::witness;
use crate::vision::cards::types::*;

/// Outlines at least this long (pixels) show the suit in their pips' outline: a 58 px spade
/// of a phone video showed a club's, and at 90 px a rendered nine of spades (blurred, dealt
/// touching its neighbour) was named the nine of clubs, though the eight spades of a 93 px
/// webcam card all showed their stems.
pub(in crate::vision::cards) const PIPS_SHOW_SUIT: f32 = 100.0;

/// Outlines at least this long (pixels) and under `PIPS_SHOW_SUIT` show a spade in their pips'
/// outline, though not a club: a spade's point and stem seen on every pip are there, while a
/// club's lobes may be a spade's blurred (both failures above were spades seen as clubs, and
/// the small index loses a spade's stem the same way). The 93 px webcam eight of spades, read
/// as a club by its corner, showed its stem on all eight pips.
pub(in crate::vision::cards) const PIPS_SHOW_SPADE: f32 = 90.0;

/// Outlines at least this long (pixels) and under the bars above show a heart or a spade in
/// their pips' outline, only to confirm a corner reading of that very card, never to change
/// its suit: blur rounds a heart's lobes towards a diamond's shape and takes a spade's stem and
/// point, never the other way. Faces of 40 rendered designs shrunk to 44 to 90 px and blurred
/// by 0.3 to 2 px: of the red pips told wrong (up to 38 % at 50 px and 1.7 px), every one was
/// a heart seen as a diamond; of the black, every one a spade seen as a club (72 % of spades),
/// and none of 17,640 clubs was seen as a spade. At 44 and 47 px, of 5,760 faces blurred 0.4
/// to 1.7 px, no diamond showed a heart's pips, no club a spade's, and no heart that showed its
/// own was miscounted (`examples/pip_suit_sizes.rs`). The patience video's two of spades and
/// four of hearts, under 50 px long, are read so.
pub(in crate::vision::cards) const PIPS_CONFIRM: f32 = 44.0;

/// Outlines at least this long (pixels) show a diamond in their pips' outline where they are
/// also sharp (`SHARP_FOR_DIAMONDS`): under it the same faces miscounted diamonds that showed
/// their suit (14 of 1,440 at 44 px, 5 at 47 px, 2 at 50 px).
const PIPS_CONFIRM_DIAMOND: f32 = 50.0;

/// A card from `PIPS_CONFIRM` to `PIPS_SHOW_SUIT` long whose own blur (`blur::blur_within`)
/// is at most this share of its length shows a diamond in its pips' outline, to confirm a
/// corner reading of that very diamond. Of the same 40 designs at 50 to 90 px blurred by 0.3 to
/// 2 px, the 2,781 faces under this bar whose pips looked like diamonds were all diamonds; up
/// to 0.013 of its length, 7 of 3,524 were hearts (`examples/pip_suit_sizes.rs`). The phone
/// video's 57 px patience cards measure 0.5 to 0.7 px.
const SHARP_FOR_DIAMONDS: f32 = 0.012;

/// Whether the pips of a whole card `long` pixels long, under the bars that let them name a
/// suit, confirm `card` (their count its rank, their outline its suit): only where a corner
/// read that very card (`read_so`), and only hearts and spades (`PIPS_CONFIRM`), or diamonds on
/// a card large enough (`PIPS_CONFIRM_DIAMOND`) whose own blur is known and small
/// (`SHARP_FOR_DIAMONDS`).
fn small_pips_confirm(card: Card, read_so: bool, long: f32, blur: Option<f32>) -> bool {
    read_so
        && long >= PIPS_CONFIRM
        && match card.suit {
            Suit::Hearts | Suit::Spades => true,
            Suit::Diamonds => {
                long >= PIPS_CONFIRM_DIAMOND && blur.is_some_and(|sigma| sigma <= SHARP_FOR_DIAMONDS * long)
            }
            Suit::Clubs => false,
        }
}

/// Whether `quad` is a whole card in sight: a card's shape, not cut by the frame's edge (only
/// then is its centre a card's centre, and its pips all there).
fn whole_in_sight(frame: &Mat, quad: &Quad) -> bool {
    witness::card_shaped(quad) && !cut_by_frame(quad, [frame.cols() as f32, frame.rows() as f32])
}

/// Of two corner readings that disagree, the one the centre lets stand where it contradicts
/// the other (`witness::agrees`: the colour of its ink, the outline of its pips, an ace of
/// clubs' one plain pip against an ace of spades' ornament), with its box, to be weighed
/// alone as a card with one corner read is; asked of a whole card large enough to show its
/// pips' shape (`PIPS_SHOW_SPADE`). A blackjack webcam's ace of spades, read AS at one corner
/// and AC at the other, showed its ornament.
///
/// Two readings of one rank and colour differ only in the suit's shape, and the centre has
/// decided that: both corners read the rest, so the one left carries both corners' weight (as
/// two corners that agree do). The webcam's eight of spades, read 8S 0.49 and 8C 0.43, showed
/// eight spades.
fn one_left_by_centre(
    frame: &Mat,
    quad: &Quad,
    readings: &[IndexReading],
    boxes: &[[i32; 4]],
) -> opencv::Result<Option<OutlineReadings>> {
    let ([a, b], [box_a, box_b]) = (readings, boxes) else {
        return Ok(None);
    };
    if a.card == b.card || !whole_in_sight(frame, quad) || longer_side(quad) < PIPS_SHOW_SPADE {
        return Ok(None);
    }
    let centre = witness::centre_of(frame, quad)?;
    let (left, at) = match (witness::agrees(a.card, &centre), witness::agrees(b.card, &centre)) {
        (true, false) => (*a, *box_a),
        (false, true) => (*b, *box_b),
        _ => return Ok(None),
    };
    let shape_only = a.card.rank == b.card.rank && a.card.suit.is_red() == b.card.suit.is_red();
    let confidence = if shape_only { agreeing(a.confidence, b.confidence) } else { left.confidence };
    Ok(Some((vec![IndexReading { confidence, ..left }], vec![at])))
}

/// Whether a whole outline `long` pixels long is large enough for its pips' outline to name
/// `card`'s suit (`PIPS_SHOW_SUIT`, `PIPS_SHOW_SPADE`).
pub(in crate::vision::cards) fn pips_show_suit_of(card: Card, long: f32) -> bool {
    long >= PIPS_SHOW_SUIT || (long >= PIPS_SHOW_SPADE && card.suit == Suit::Spades)
}

/// An outline's corner readings and, beside each, its index box in the image.
type OutlineReadings = (Vec<IndexReading>, Vec<[i32; 4]>);

/// A corner's reading and its index box in the image, when it shows an index.
pub(in crate::vision::cards) type CornerRead = Option<(IndexReading, [i32; 4])>;

/// Corner readings made ahead (see `CardDetector::read_all_corners`): outline, corner, reading,
/// and whether the network is sure the corner shows no index (`index::SURE_BLANK`).
pub(in crate::vision::cards) struct CornerReadings(Vec<(Quad, Corner, CornerRead, bool)>);

impl CornerReadings {
    /// Whether the network is sure that neither corner of `quad` shows an index.
    pub(in crate::vision::cards) fn both_blank(&self, quad: &Quad) -> bool {
        let blank = |corner| self.0.iter().any(|(q, c, _, blank)| q == quad && *c == corner && *blank);
        blank(Corner::TopLeft) && blank(Corner::BottomRight)
    }
}

/// How surely two corners that agree name their card: each is a witness of its own.
fn agreeing(a: f32, b: f32) -> f32 {
    1.0 - (1.0 - a) * (1.0 - b)
}

/// The card an outline's corner readings name, and how surely (`None` below `min_confidence`):
/// both corners must agree; one corner alone is used at its own confidence.
pub fn combine(readings: &[IndexReading], min_confidence: f32) -> (Option<Card>, f32) {
    let (card, confidence) = match readings {
        [] => return (None, 0.0),
        [one] => (one.card, one.confidence),
        [a, b, ..] if a.card == b.card => (a.card, agreeing(a.confidence, b.confidence)),
        [a, b, ..] => {
            // Disagreement: keep the clearly better one only if the other is weak.
            let (hi, lo) = if a.confidence >= b.confidence { (a, b) } else { (b, a) };
            if lo.confidence < 0.5 * hi.confidence {
                (hi.card, hi.confidence * 0.8)
            } else {
                return (None, hi.confidence);
            }
        }
    };
    if confidence < min_confidence { (None, confidence) } else { (Some(card), confidence) }
}

pub(crate) struct CornerGlyphs {
    pub(crate) rank: GlyphFeature,
    /// The rank's glyphs one by one, left to right, when it is printed as two ("10").
    pub(crate) parts: Vec<GlyphFeature>,
    pub(crate) suit: GlyphFeature,
    /// Whether the ink is red (`None` when undecided).
    red: Option<bool>,
    area: core::Rect,
}

/// The corner window of a rectified card, in card pixels.
pub(in crate::vision::cards) fn corner_window() -> core::Rect {
    core::Rect::new(2, 2, (CARD_W as f32 * 0.20) as i32, (CARD_H as f32 * 0.33) as i32)
}

/// Segments the rank (the top ink, glued with a side-by-side neighbour as in "10") and the suit
/// pip below it in one corner of a rectified card.
pub(crate) fn corner_glyphs(card: &Mat, corner: Corner) -> opencv::Result<Option<CornerGlyphs>> {
    glyphs_in_patch(&corner_patch(card, corner)?, Ink::Otsu)
}

/// The corner window of a rectified card, turned so that the index stands upright.
pub(in crate::vision::cards) fn corner_patch(card: &Mat, corner: Corner) -> opencv::Result<Mat> {
    let window = corner_window();
    match corner {
        Corner::TopLeft => Mat::roi(card, window)?.try_clone(),
        Corner::BottomRight => {
            let (w, h) = (card.cols(), card.rows());
            let far =
                core::Rect::new(w - window.x - window.width, h - window.y - window.height, window.width, window.height);
            let mut turned = Mat::default();
            core::rotate(&Mat::roi(card, far)?, &mut turned, core::ROTATE_180)?;
            Ok(turned)
        }
    }
}

/// The same window warped straight from the frame: the reader needs the two corners (and a
/// small copy for the paper test), not the whole card at full size.
pub(in crate::vision::cards) fn corner_patch_in_frame(
    frame: &Mat,
    quad: &[[f32; 2]; 4],
    corner: Corner,
) -> opencv::Result<Mat> {
    let turned = match corner {
        Corner::TopLeft => *quad,
        Corner::BottomRight => [quad[2], quad[3], quad[0], quad[1]],
    };
    let window = corner_window();
    let (x, y) = (window.x as f32, window.y as f32);
    let (w, h) = (CARD_W as f32, CARD_H as f32);
    warp(frame, &turned, [[-x, -y], [w - x, -y], [w - x, h - y], [-x, h - y]], window.size())
}

/// How a corner window's ink is told from its paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::vision::cards) enum Ink {
    /// Otsu's level between the two.
    Otsu,
    /// A level nearer the paper, for faint or thin ranks beside a strong pip.
    Pale,
}

/// Segments the rank and suit in a corner window whose index stands upright.
pub(in crate::vision::cards) fn glyphs_in_patch(patch: &Mat, level: Ink) -> opencv::Result<Option<CornerGlyphs>> {
    let window = corner_window();
    let dark = min_channel(patch)?;
    let mut ink = Mat::default();
    let otsu = imgproc::threshold(&dark, &mut ink, 0.0, 255.0, imgproc::THRESH_BINARY_INV | imgproc::THRESH_OTSU)?;
    // A uniform patch has no index.
    let mut mean = core::Scalar::default();
    let mut dev = core::Scalar::default();
    core::mean_std_dev(&dark, &mut mean, &mut dev, &core::no_array())?;
    if dev[0] < 18.0 || otsu > mean[0] {
        return Ok(None);
    }
    if level == Ink::Pale {
        // A third of the way from the paper to the darkest ink.
        let paper = f64::from(percentile(&dark, 0.9)?);
        let darkest = f64::from(percentile(&dark, 0.02)?);
        let pale = paper - 0.35 * (paper - darkest);
        if pale > otsu {
            imgproc::threshold(&dark, &mut ink, pale, 255.0, imgproc::THRESH_BINARY_INV)?;
        }
    }
    let mut labels = Mat::default();
    let mut stats = Mat::default();
    let mut centroids = Mat::default();
    let n = imgproc::connected_components_with_stats(&ink, &mut labels, &mut stats, &mut centroids, 8, core::CV_32S)?;
    let (pw, ph) = (patch.cols(), patch.rows());
    let mut blobs = Vec::new();
    for i in 1..n {
        let (core::Rect { x, y, width: w, height: h }, area) = component(&stats, i)?;
        let touches_edge = x == 0 || y == 0 || x + w >= pw || y + h >= ph;
        if touches_edge || h < ph / 14 || area < 25 || w > pw * 9 / 10 {
            continue;
        }
        blobs.push((i, core::Rect::new(x, y, w, h)));
    }
    blobs.sort_by_key(|(_, r)| r.y);
    let Some(&(first, first_rect)) = blobs.first() else {
        return Ok(None);
    };
    // The rank: the top blob plus any blob beside it at the same height (the "1" and "0" of 10).
    let mut rank_ids = vec![first];
    let mut rank_rect = first_rect;
    for &(id, r) in &blobs[1..] {
        let overlap = (rank_rect.y + rank_rect.height).min(r.y + r.height) - rank_rect.y.max(r.y);
        if overlap as f32 > 0.6 * r.height.min(rank_rect.height) as f32
            && (r.height as f32) > 0.6 * rank_rect.height as f32
        {
            rank_ids.push(id);
            rank_rect |= r;
        }
    }
    // The suit: the next blob whose top is below the rank and that sits under it.
    let suit = blobs.iter().find(|(id, r)| {
        !rank_ids.contains(id)
            && r.y >= rank_rect.y + rank_rect.height / 2
            && r.x < rank_rect.x + rank_rect.width
            && r.x + r.width > rank_rect.x
            && r.height as f32 > 0.35 * rank_rect.height as f32
            && (r.height as f32) < 1.6 * rank_rect.height as f32
    });
    let Some(&(suit_id, suit_rect)) = suit else {
        return Ok(None);
    };
    let rank_mask = label_mask(&labels, &rank_ids, rank_rect)?;
    let mut parts = Vec::new();
    if rank_ids.len() == 2 {
        let mut pieces: Vec<&(i32, core::Rect)> = blobs.iter().filter(|(id, _)| rank_ids.contains(id)).collect();
        pieces.sort_by_key(|(_, r)| r.x);
        for (id, r) in pieces {
            parts.push(GlyphFeature::from_mask(&label_mask(&labels, &[*id], *r)?)?);
        }
    }
    let suit_mask = label_mask(&labels, &[suit_id], suit_rect)?;
    let red = ink_is_red(patch, &ink)?;
    let area = rank_rect | suit_rect;
    let area = core::Rect::new(area.x + window.x, area.y + window.y, area.width, area.height);
    Ok(Some(CornerGlyphs {
        rank: GlyphFeature::from_mask(&rank_mask)?,
        parts,
        suit: GlyphFeature::from_mask(&suit_mask)?,
        red,
        area,
    }))
}

/// Whether the ink pixels of a BGR patch are red rather than black or grey.
pub(in crate::vision::cards) fn ink_is_red(patch: &Mat, ink: &Mat) -> opencv::Result<Option<bool>> {
    let m = core::mean(patch, ink)?;
    let (b, g, r) = (m[0], m[1], m[2]);
    let redness = r - g.max(b);
    Ok(if redness > 40.0 {
        Some(true)
    } else if redness < 15.0 {
        Some(false)
    } else {
        None
    })
}

/// The axis-aligned box around a window, `[x, y, w, h]` in image pixels.
pub(in crate::vision::cards) fn window_box(window: &patch::Window) -> [i32; 4] {
    let x0 = window.iter().map(|p| p[0]).fold(f32::MAX, f32::min);
    let y0 = window.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
    let x1 = window.iter().map(|p| p[0]).fold(f32::MIN, f32::max);
    let y1 = window.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    [x0 as i32, y0 as i32, (x1 - x0).ceil() as i32, (y1 - y0).ceil() as i32]
}

/// Maps a rectangle of the rectified card (in the given corner's upright frame) back to an
/// axis-aligned box in the image, through the bilinear interpolation of the quad.
pub(in crate::vision::cards) fn box_in_image(quad: &[[f32; 2]; 4], rect: &core::Rect, corner: Corner) -> [i32; 4] {
    let to_image = |u: f32, v: f32| {
        let (u, v) = match corner {
            Corner::TopLeft => (u, v),
            Corner::BottomRight => (CARD_W as f32 - u, CARD_H as f32 - v),
        };
        let (s, t) = (u / CARD_W as f32, v / CARD_H as f32);
        let lerp = |a: [f32; 2], b: [f32; 2], k: f32| [a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k];
        let top = lerp(quad[0], quad[1], s);
        let bottom = lerp(quad[3], quad[2], s);
        lerp(top, bottom, t)
    };
    let corners = [
        to_image(rect.x as f32, rect.y as f32),
        to_image((rect.x + rect.width) as f32, rect.y as f32),
        to_image((rect.x + rect.width) as f32, (rect.y + rect.height) as f32),
        to_image(rect.x as f32, (rect.y + rect.height) as f32),
    ];
    let x0 = corners.iter().map(|p| p[0]).fold(f32::MAX, f32::min);
    let y0 = corners.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
    let x1 = corners.iter().map(|p| p[0]).fold(f32::MIN, f32::max);
    let y1 = corners.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    [x0 as i32, y0 as i32, (x1 - x0).ceil() as i32, (y1 - y0).ceil() as i32]
}

impl CardDetector {
    /// The readings of both corners of one outline: (card, confidence) for each corner read.
    pub fn read_corners_of(&self, frame: &Mat, quad: &Quad) -> opencv::Result<Vec<(Card, f32)>> {
        let balanced = light::balanced(frame)?;
        let frame = balanced.as_ref();
        let pre = self.read_all_corners(frame, std::iter::once(quad))?;
        Ok(self.both_corners(frame, quad, &pre)?.into_iter().map(|r| (r.card, r.confidence)).collect())
    }

    /// The card lying at each of `quads` (outlines known from elsewhere: where a table's layout
    /// says a card lies), read by both its corners as an outline found in the frame would be;
    /// `None` where the corners read no card surely or disagree.
    pub fn read_cards_at(&self, frame: &Mat, quads: &[Quad]) -> opencv::Result<Vec<Option<Card>>> {
        if quads.is_empty() {
            return Ok(Vec::new());
        }
        let balanced = light::balanced(frame)?;
        let frame = balanced.as_ref();
        let pre = self.read_all_corners(frame, quads.iter())?;
        let read = |quad| Ok(combine(&self.both_corners(frame, quad, &pre)?, self.config.min_confidence).0);
        quads.iter().map(read).collect()
    }

    /// What the top-left and bottom-right corners of `quad` read, where they read a card.
    fn both_corners(&self, frame: &Mat, quad: &Quad, pre: &CornerReadings) -> opencv::Result<Vec<IndexReading>> {
        let mut readings = Vec::new();
        for corner in [Corner::TopLeft, Corner::BottomRight] {
            if let Some((reading, _)) = self.read_corner_at(frame, quad, corner, pre)? {
                readings.push(reading);
            }
        }
        Ok(readings)
    }

    /// Reads both index corners of a card outline: the readings, and the index boxes in the image.
    pub(in crate::vision::cards) fn read_outline(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
    ) -> opencv::Result<OutlineReadings> {
        if self.config.corner_reader != Reader::Templates {
            let (mut readings, mut boxes) = (Vec::new(), Vec::new());
            for corner in [Corner::TopLeft, Corner::BottomRight] {
                if let Some((reading, b)) = self.read_corner_at(frame, quad, corner, pre)? {
                    readings.push(reading);
                    boxes.push(b);
                }
            }
            if let Some(one) = one_left_by_centre(frame, quad, &readings, &boxes)? {
                (readings, boxes) = one;
            }
            let unread = combine(&readings, self.config.min_confidence).0.is_none();
            // Where the network is sure both corners are blank (a card back: its pattern can
            // pass the templates for a faint 5), the templates are not asked.
            if self.config.corner_reader == Reader::Network || !unread || pre.both_blank(quad) {
                return Ok((readings, boxes));
            }
            let by_templates = self.read_outline_by_templates(frame, quad)?;
            if combine(&by_templates.0, self.config.min_confidence).0.is_some() {
                return Ok(by_templates);
            }
            // Neither reader is sure: the centre's pips may confirm one of their readings.
            let readings = readings.into_iter().chain(by_templates.0.iter().copied()).collect();
            let boxes = boxes.into_iter().chain(by_templates.1.iter().copied()).collect();
            return Ok(self.confirmed_by_pips(frame, quad, (readings, boxes))?.unwrap_or(by_templates));
        }
        self.read_outline_by_templates(frame, quad)
    }

    /// The card whose pips and one of its corner readings (the network's or the templates')
    /// agree, given at the bar's confidence (`confirmed_by_pips`), for a whole outline whose
    /// chosen reading the centre contradicts: the corners' other readings are the candidates.
    pub(in crate::vision::cards) fn read_by_pips(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
    ) -> opencv::Result<Option<IndexReading>> {
        let mut readings = self.both_corners(frame, quad, pre)?;
        readings.extend(self.read_outline_by_templates(frame, quad)?.0);
        let found = self.confirmed_by_pips(frame, quad, (readings, Vec::new()))?;
        Ok(found.and_then(|(readings, _)| readings.first().copied()))
    }

    /// The one reading of an outline's corners that the centre's pips confirm
    /// (`witness::counted`), given the bar's confidence, with its box; asked of a whole card
    /// large enough to show its pips' shape.
    fn confirmed_by_pips(
        &self,
        frame: &Mat,
        quad: &Quad,
        (readings, boxes): OutlineReadings,
    ) -> opencv::Result<Option<OutlineReadings>> {
        let long = longer_side(quad);
        // Under the lowest bar no suit could be named: the centre is not looked at.
        if readings.is_empty() || !whole_in_sight(frame, quad) || long < PIPS_CONFIRM {
            return Ok(None);
        }
        let Some(reading) = witness::counted(&readings, &witness::centre_of(frame, quad)?) else {
            return Ok(None);
        };
        if !pips_show_suit_of(reading.card, long) {
            let read_so = readings.iter().any(|r| r.card == reading.card);
            // Only a diamond large enough to show its pips' outline needs its blur measured.
            let blur = match reading.card.suit {
                Suit::Diamonds if long >= PIPS_CONFIRM_DIAMOND => {
                    let [x, y, w, h] = window_box(quad);
                    blur::blur_within(frame, core::Rect::new(x, y, w, h))?
                }
                _ => None,
            };
            if !small_pips_confirm(reading.card, read_so, long, blur) {
                return Ok(None);
            }
        }
        let at = readings.iter().zip(&boxes).find(|(r, _)| r.card.rank == reading.card.rank).map(|(_, b)| *b);
        let confirmed = IndexReading { confidence: self.config.min_confidence, ..reading };
        Ok(Some((vec![confirmed], at.into_iter().collect())))
    }

    /// Reads both index corners of a card outline with the glyph templates.
    pub(in crate::vision::cards) fn read_outline_by_templates(
        &self,
        frame: &Mat,
        quad: &Quad,
    ) -> opencv::Result<OutlineReadings> {
        let patches = [Corner::TopLeft, Corner::BottomRight]
            .into_iter()
            .map(|corner| Ok((corner, corner_patch_in_frame(frame, quad, corner)?)))
            .collect::<opencv::Result<Vec<(Corner, Mat)>>>()?;
        let mut readings = Vec::new();
        let mut boxes = Vec::new();
        for (corner, patch) in &patches {
            if let Some((reading, rect)) = self.read_patch_with(patch, Ink::Otsu)? {
                readings.push(reading);
                boxes.push(box_in_image(quad, &rect, *corner));
            }
        }
        // Corners that disagree are read again with a paler ink level: Otsu's level, pulled down
        // by a strong pip, can drop most of a thin or faded rank (a hollow Q read as an 8).
        if let [a, b] = readings.as_slice()
            && a.card != b.card
            && combine(&readings, self.config.min_confidence).0.is_none()
        {
            let mut again = Vec::new();
            for (corner, patch) in &patches {
                if let Some((reading, rect)) = self.read_patch_with(patch, Ink::Pale)? {
                    again.push((reading, box_in_image(quad, &rect, *corner)));
                }
            }
            if let [(a, _), (b, _)] = again.as_slice()
                && a.card == b.card
            {
                (readings, boxes) = again.into_iter().unzip();
            }
        }
        Ok((readings, boxes))
    }

    /// Reads every corner the outlines `quads` may need (both corners of each, and of each end
    /// of a long one) in one batch, when the network reads them; `read_corner_at` looks there
    /// first.
    pub(in crate::vision::cards) fn read_all_corners<'a>(
        &self,
        frame: &Mat,
        quads: impl Iterator<Item = &'a Quad>,
    ) -> opencv::Result<CornerReadings> {
        if self.config.corner_reader == Reader::Templates {
            return Ok(CornerReadings(Vec::new()));
        }
        let mut jobs = Vec::new();
        for quad in quads {
            let ends = pair_ends(quad).into_iter().flatten();
            for q in std::iter::once(*quad).chain(ends) {
                jobs.push((q, Corner::TopLeft));
                jobs.push((q, Corner::BottomRight));
            }
        }
        let read = self.read_corner_windows(frame, &jobs, &[])?;
        Ok(CornerReadings(
            jobs.into_iter().zip(read).map(|((quad, corner), (read, blank))| (quad, corner, read, blank)).collect(),
        ))
    }

    /// Whether the full networks must read every patch: when the quick ones are off, or an
    /// enrolled deck (`memory`) is compared by the full networks' embeddings.
    pub(in crate::vision::cards) fn full_networks_only(&self, memory: &Memory) -> bool {
        !self.config.quick_networks || !memory.is_empty()
    }

    /// Reads the corner windows of outlines by network, in one batch, with the cards `ruled_out`
    /// (known to lie elsewhere) out of the reckoning.
    pub(in crate::vision::cards) fn read_corner_windows(
        &self,
        frame: &Mat,
        jobs: &[(Quad, Corner)],
        ruled_out: &[Card],
    ) -> opencv::Result<Vec<(CornerRead, bool)>> {
        let windows: Vec<patch::Window> =
            jobs.iter().map(|(q, corner)| patch::corner_window(q, *corner == Corner::BottomRight)).collect();
        let patches = windows
            .iter()
            .map(|w| patch::cut(frame, w, patch::CORNER_W, patch::CORNER_H))
            .collect::<opencv::Result<Vec<_>>>()?;
        // A card read again with others ruled out is weighed by the full network's second choices.
        let full_only = self.full_networks_only(&self.corner_memory) || !ruled_out.is_empty();
        // The two corners of one outline, one after the other, may stand together.
        let pairs: Vec<(usize, usize)> = (1..jobs.len())
            .filter(|&i| {
                jobs[i - 1].0 == jobs[i].0 && (jobs[i - 1].1, jobs[i].1) == (Corner::TopLeft, Corner::BottomRight)
            })
            .map(|i| (i - 1, i))
            .collect();
        let readings = self.corner_net.read_paired(&patches.iter().collect::<Vec<_>>(), &pairs, full_only)?;
        Ok(windows
            .iter()
            .zip(readings)
            .map(|(window, reading)| {
                let blank = reading.card().is_none() && reading.nothing() >= SURE_BLANK;
                let weighed = self.corner_memory.weigh_other_than(&reading, ruled_out);
                (weighed.map(|(card, confidence)| (IndexReading { card, confidence }, window_box(window))), blank)
            })
            .collect())
    }

    /// Reads one corner of a card outline in the frame: the reading and the index box in the
    /// image.
    pub(in crate::vision::cards) fn read_corner_at(
        &self,
        frame: &Mat,
        quad: &Quad,
        corner: Corner,
        pre: &CornerReadings,
    ) -> opencv::Result<Option<(IndexReading, [i32; 4])>> {
        if let Some((_, _, read, _)) = pre.0.iter().find(|(q, c, _, _)| q == quad && *c == corner) {
            return Ok(*read);
        }
        if self.config.corner_reader != Reader::Templates {
            return Ok(self.read_corner_windows(frame, &[(*quad, corner)], &[])?.remove(0).0);
        }
        let patch = corner_patch_in_frame(frame, quad, corner)?;
        Ok(self.read_patch(&patch)?.map(|(reading, rect)| (reading, box_in_image(quad, &rect, corner))))
    }

    /// The rank and suit glyphs of one corner of a rectified card, unread (for enrolment).
    pub fn corner_features(card: &Mat, corner: Corner) -> opencv::Result<Option<(GlyphFeature, GlyphFeature)>> {
        Ok(corner_glyphs(card, corner)?.map(|g| (g.rank, g.suit)))
    }

    /// Reads the index in one corner of a rectified card.
    pub fn read_corner(&self, card: &Mat, corner: Corner) -> opencv::Result<Option<(IndexReading, core::Rect)>> {
        self.read_patch(&corner_patch(card, corner)?)
    }

    /// Reads the index in a corner window (see `corner_patch`); the area is in card pixels.
    pub(in crate::vision::cards) fn read_patch(
        &self,
        patch: &Mat,
    ) -> opencv::Result<Option<(IndexReading, core::Rect)>> {
        self.read_patch_with(patch, Ink::Otsu)
    }

    /// `read_patch` with the ink level chosen (see `Ink`).
    pub(in crate::vision::cards) fn read_patch_with(
        &self,
        patch: &Mat,
        ink: Ink,
    ) -> opencv::Result<Option<(IndexReading, core::Rect)>> {
        let Some(glyphs) = glyphs_in_patch(patch, ink)? else {
            return Ok(None);
        };
        let Some((mut rank, rank_score, rank_second)) = self.corner_templates.best_rank(&glyphs.rank) else {
            return Ok(None);
        };
        let mut rank_confidence = confidence(rank_score, rank_second);
        if let [left, right] = glyphs.parts.as_slice() {
            let (ten, other) = self.corner_templates.read_ten(left, right);
            if confidence(ten, other) > rank_confidence {
                (rank, rank_confidence) = (Rank::new(10).expect("10 is a rank"), confidence(ten, other));
            }
        }
        // A "10" read as two glyphs is left alone: the network reads single glyphs.
        if glyphs.parts.len() != 2 || rank.value() != 10 {
            (rank, rank_confidence) = self.rank_net.scores(&glyphs.rank)?.settle(rank, rank_confidence);
        }
        let allowed: &[Suit] = match glyphs.red {
            Some(true) => &[Suit::Diamonds, Suit::Hearts],
            Some(false) => &[Suit::Clubs, Suit::Spades],
            None => &Suit::ALL,
        };
        let Some(read) = self.suit_templates.best_suit(&glyphs.suit, allowed) else {
            return Ok(None);
        };
        let (suit, suit_score, suit_second) = check_black_suit(&glyphs.suit, read, true);
        let suit_confidence =
            self.suit_net.scores(&glyphs.suit)?.weigh_suit(allowed, suit, confidence(suit_score, suit_second), false);
        let confidence = rank_confidence * suit_confidence;
        Ok(Some((IndexReading { card: Card::new(rank, suit), confidence }, glyphs.area)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pips_name_a_spade_on_a_smaller_card_than_a_club() {
        let card = |code: &str| code.parse::<Card>().unwrap();
        // Large enough for any suit.
        assert!(pips_show_suit_of(card("8C"), PIPS_SHOW_SUIT));
        assert!(pips_show_suit_of(card("8H"), PIPS_SHOW_SUIT));
        // Between the two bars only a spade: its stem is seen; a club's lobes may be a blur.
        assert!(pips_show_suit_of(card("8S"), 93.0));
        assert!(!pips_show_suit_of(card("8C"), 93.0));
        assert!(!pips_show_suit_of(card("8D"), 93.0));
        // Under both bars, none.
        assert!(!pips_show_suit_of(card("8S"), PIPS_SHOW_SPADE - 1.0));
    }

    /// A default face `width` pixels wide on a green table with a margin, and its outline.
    fn face_on_table(code: &str, width: i32) -> (Mat, Quad) {
        let face = crate::render::face::draw_face(code.parse().unwrap(), &Default::default(), width).unwrap();
        let (w, h, m) = (face.cols(), face.rows(), 40);
        let green = core::Scalar::new(40.0, 110.0, 30.0, 0.0);
        let mut table = Mat::new_rows_cols_with_default(h + 2 * m, w + 2 * m, core::CV_8UC3, green).unwrap();
        face.copy_to(&mut Mat::roi_mut(&mut table, core::Rect::new(m, m, w, h)).unwrap()).unwrap();
        let (x0, y0, x1, y1) = (m as f32, m as f32, (m + w) as f32, (m + h) as f32);
        (table, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    }

    #[test]
    fn of_two_corners_that_disagree_the_one_the_centre_contradicts_goes() {
        let read = |code: &str, confidence| IndexReading { card: code.parse().unwrap(), confidence };
        let boxes = [[1, 2, 3, 4], [5, 6, 7, 8]];
        let (table, quad) = face_on_table("6H", 100);
        // Red pips: the black reading goes, whichever corner gave it.
        let left = one_left_by_centre(&table, &quad, &[read("6H", 0.8), read("6S", 0.6)], &boxes).unwrap();
        assert_eq!(left, Some((vec![read("6H", 0.8)], vec![boxes[0]])));
        let left = one_left_by_centre(&table, &quad, &[read("6C", 0.8), read("6H", 0.6)], &boxes).unwrap();
        assert_eq!(left, Some((vec![read("6H", 0.6)], vec![boxes[1]])));
        // Of one rank and colour, the suit's shape decided by the centre: both corners' weight.
        let (table_s, quad_s) = face_on_table("8S", 100);
        let left = one_left_by_centre(&table_s, &quad_s, &[read("8S", 0.5), read("8C", 0.5)], &boxes).unwrap();
        assert_eq!(left, Some((vec![read("8S", 0.75)], vec![boxes[0]])));
        // Neither contradicted, or both: nothing chosen.
        assert_eq!(one_left_by_centre(&table, &quad, &[read("6H", 0.8), read("5H", 0.6)], &boxes).unwrap(), None);
        assert_eq!(one_left_by_centre(&table, &quad, &[read("6S", 0.8), read("6C", 0.6)], &boxes).unwrap(), None);
        // A card too small to show its pips' shape is not asked.
        let (small, quad) = face_on_table("6H", 55);
        assert_eq!(one_left_by_centre(&small, &quad, &[read("6H", 0.8), read("6S", 0.6)], &boxes).unwrap(), None);
    }

    #[test]
    fn a_small_card_s_pips_confirm_only_a_corner_s_own_heart_spade_or_sharp_diamond() {
        let card = |code: &str| code.parse::<Card>().unwrap();
        let long = 57.0;
        // Hearts and spades: blur never makes them out of a diamond or a club.
        assert!(small_pips_confirm(card("7H"), true, long, None));
        assert!(small_pips_confirm(card("7S"), true, long, None));
        // Only a corner's own reading: the pips never change a suit on a small card.
        assert!(!small_pips_confirm(card("7H"), false, long, None));
        // A club's pips may be a spade's blurred.
        assert!(!small_pips_confirm(card("7C"), true, long, Some(0.3)));
        // A diamond's may be a heart's blurred: only a card measured sharp shows one.
        assert!(small_pips_confirm(card("7D"), true, long, Some(0.6)));
        assert!(!small_pips_confirm(card("7D"), true, long, Some(1.0)));
        assert!(!small_pips_confirm(card("7D"), true, long, None));
        // Under the lowest bar, nothing; a diamond needs a larger card.
        assert!(!small_pips_confirm(card("7H"), true, PIPS_CONFIRM - 1.0, None));
        assert!(small_pips_confirm(card("7H"), true, PIPS_CONFIRM, None));
        assert!(!small_pips_confirm(card("7D"), true, PIPS_CONFIRM_DIAMOND - 1.0, Some(0.3)));
    }
}
