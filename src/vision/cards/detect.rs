//! Finds card outlines in a frame, rectifies each card, tells face up from face down and reads the
//! index corners.

use opencv::{core, imgproc, prelude::*};

use super::back::{self, BackProfile};
use super::classify::{GlyphFeature, GlyphTemplates, check_black_suit, confidence};
use super::edge_fit;
use super::enroll::{DeckProfile, EnrolledPatch};
use super::enrolled::Memory;
use super::glyph_net::GlyphNet;
use super::index::candidate_spots_at;
use super::index::{IndexHit, LooseMarks, NetworkRead, SURE_BLANK};
use super::index_net::{IndexNet, NetReading, QuickFirst};
use super::light;
use super::patch;
use crate::cards::{Card, Rank, Suit};
use crate::render::geometry::{Pt, quad_contains};

/// A card outline: four image points, clockwise from the card's top-left corner.
type Quad = [[f32; 2]; 4];

/// Frames narrower than this (on their longer side) get their loose index search at twice
/// the size.
pub(crate) const SMALL_FRAME: i32 = 1000;

/// Width and height of a rectified card, in pixels (the 2.5 x 3.5 inch poker format).
pub const CARD_W: i32 = 250;
pub const CARD_H: i32 = 350;

/// How surely the card at the under end of a cascade or a pair (`CardDetector::lies_under`) must
/// be read by its outer corner to stand on that reading; below it the loose search reads the
/// card from its own marks. The next card often lies over that corner's pip (cards stepped
/// sideways as well as along), and the corner network, seeing the rank whole and a sliver of
/// pip, names the rank in the other suit of its colour (3S for a 3C) at 0.7-0.94, as surely as
/// many right readings. The loose search pairs the rank with a whole pip or with nothing. On
/// 600 rendered tables of each tuning seed set (20e6, 30e6) cascade ends made 12 of the 47
/// false readings; with this bar on them 21 and 26 false readings became 18 and 19, 21 and 24
/// misses 21 and 26 (at 0.85: 18 / 22 false, 21 / 24 missed; leaving every such end to the
/// loose search: 17 / 19 false, 25 / 27 missed). On pairs too, 18 and 19 false readings became
/// 15 and 13, every card read as before. The real photos read as before.
const UNDER_END_SURE: f32 = 0.9;

/// The inner corners of a long outline's two ends (`split_pair`), each read by the other one.
const INNER_CORNERS: [Corner; 2] = [Corner::BottomRight, Corner::TopLeft];

/// An outline whose long side is under this many times its short one is nearly square. A card
/// is 1.4 times as long as it is wide, but seen 45° from overhead along its length it looks
/// square. So do a table's tiles, a carpet's gaps and a box: such an outline stands only as a
/// card read from its corners, or as a back the corner network and the paper test are sure of
/// (`sure_back`) or a calibrated back matches.
const SQUARE: f32 = 1.1;

/// The smallest rank height, as a share of an unread outline's short side, at which a loose
/// index inside the outline names it (a card's own rank is about 0.15 of its width). Below it
/// the outline holds more than a card and the index is read as a loose one (`add_loose_indices`).
const MIN_INDEX_SCALE: f32 = 0.06;

/// How likely the loose network must find a card by itself, before the cards known to lie
/// elsewhere are set aside, for a loose index read again (`CardDetector::read_again`) to be
/// read as that card. Setting aside a card the network was sure of scales up what is left, and
/// a rank read surely then stands in whatever suit had the rest. On 3,000 fresh rendered tables
/// (seeds 60e6) this bar took 2 false readings and no right one: a three and a queen of clubs
/// in full sight, read again once a club of that rank was placed elsewhere, had become spades
/// at 0.70 and 0.73. The real photos, as taken and under 14 alterations, read the same. At 0.35
/// a third false reading went, and 3 right ones on the altered photos (with no second reading
/// at all: the same, and 7 right ones).
const READ_AGAIN_OWN: f32 = 0.2;

/// Face up or face down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Face {
    Up,
    Down,
}

/// One card found in a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct CardDetection {
    /// The card read from its index; `None` when face down or below the confidence threshold.
    pub card: Option<Card>,
    pub face: Face,
    /// Confidence of the reading (face-up) or of the face-down call, 0..1.
    pub confidence: f32,
    /// Outline in image pixels, clockwise from the top-left corner of the card face.
    pub quad: Option<[[f32; 2]; 4]>,
    /// The index areas that were read, `[x, y, w, h]` in image pixels.
    pub index_boxes: Vec<[i32; 4]>,
}

/// The reading of one index corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexReading {
    pub card: Card,
    pub confidence: f32,
}

/// Settings of the detector.
#[derive(Clone, Debug)]
pub struct DetectorConfig {
    /// Below this confidence a face-up card's outline is left unread (`card: None`) and the
    /// loose search reads inside it; a long outline splits into its two end cards only where
    /// each end reads this surely (`split_pair`). Corners read under 0.7 were mostly an index
    /// half hidden by the card over it, read in the other suit of its colour (two cards
    /// overlapping end to end, a spread): from 0.45 to 0.7, 600 rendered tables of each tuning
    /// seed set (20e6, 30e6) went from 59 and 66 false readings to 25 and 31, with as many cards
    /// read right (the loose search reads the rest), and the real photos read card for card as
    /// before (models/README.md, "Unsure corners left to the loose search").
    pub min_confidence: f32,
    /// The same for an index read without its card's outline (fans, cascades). Without an
    /// outline any two ink marks of the right sizes can pose as an index, but the loose window
    /// is centred on the marks read, where an outline's corner window may hold a neighbour's
    /// index half hidden.
    pub min_loose_confidence: f32,
    /// Smallest card outline, as a fraction of the frame area.
    pub min_card_area: f64,
    /// What reads the corners of card outlines.
    pub corner_reader: Reader,
    /// What reads the indices found without an outline.
    pub loose_reader: Reader,
    /// Whether the quick networks read first, leaving only what they are unsure of to the full
    /// ones (see `QuickFirst`). Off, the full networks read every patch.
    pub quick_networks: bool,
}

/// What reads the indices: the glyph templates weighed by the glyph networks (`classify`,
/// `glyph_net`), the index networks (`index_net`), or both. On an outline's corners `Both` reads
/// by network and asks the templates only where the network leaves the card unknown; in the
/// loose search it keeps every network hit and adds the templates' hits where the network found
/// none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    Templates,
    Network,
    Both,
}

impl Default for DetectorConfig {
    fn default() -> Self {
        DetectorConfig {
            min_confidence: 0.7,
            min_loose_confidence: 0.6,
            min_card_area: 0.004,
            corner_reader: Reader::Both,
            loose_reader: Reader::Both,
            quick_networks: true,
        }
    }
}

/// Finds and reads the cards of a frame.
pub struct CardDetector {
    pub config: DetectorConfig,
    /// Compared with index corners found without an outline (see `GlyphTemplates::builtin`).
    templates: GlyphTemplates,
    /// Compared with the corners of card outlines (see `GlyphTemplates::builtin_seen`).
    corner_templates: GlyphTemplates,
    /// Compared with every suit pip, on an outline or loose: both sets together (the damaged
    /// renders hold one pip design only; the fonts hold many).
    suit_templates: GlyphTemplates,
    /// Weigh each rank and suit read by the templates (see `glyph_net`).
    rank_net: GlyphNet,
    suit_net: GlyphNet,
    /// Read corner windows and loose index candidates (see `index_net`).
    corner_net: QuickFirst,
    loose_net: QuickFirst,
    /// An enrolled deck's patches, which vote on what the networks read (see `enrolled`).
    corner_memory: Memory,
    loose_memory: Memory,
    /// The calibrated card back, when there is one (see `back`).
    back: Option<BackProfile>,
}

impl CardDetector {
    /// A detector with the built-in glyph templates.
    pub fn new() -> opencv::Result<CardDetector> {
        let templates = GlyphTemplates::builtin()?;
        let corner_templates = GlyphTemplates::builtin_seen()?;
        let mut suit_templates = templates.clone();
        suit_templates.templates.extend(corner_templates.templates.iter().cloned());
        Ok(CardDetector {
            config: DetectorConfig::default(),
            templates,
            corner_templates,
            suit_templates,
            rank_net: GlyphNet::ranks()?,
            suit_net: GlyphNet::suits()?,
            corner_net: QuickFirst::corner()?,
            loose_net: QuickFirst::loose()?,
            corner_memory: Memory::default(),
            loose_memory: Memory::default(),
            back: None,
        })
    }

    /// Reads with an enrolled deck's patches voting (see `enrolled`).
    pub fn set_profile(&mut self, profile: &DeckProfile) {
        (self.corner_memory, self.loose_memory) = profile.memories();
    }

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
            let cut = |s: &&super::index::IndexSpot| {
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

    /// The readings of both corners of one outline: (card, confidence) for each corner read.
    pub fn read_corners_of(&self, frame: &Mat, quad: &Quad) -> opencv::Result<Vec<(Card, f32)>> {
        let balanced = light::balanced(frame)?;
        let frame = balanced.as_ref();
        let pre = self.read_all_corners(frame, std::iter::once(quad))?;
        let mut out = Vec::new();
        for corner in [Corner::TopLeft, Corner::BottomRight] {
            if let Some((reading, _)) = self.read_corner_at(frame, quad, corner, &pre)? {
                out.push((reading.card, reading.confidence));
            }
        }
        Ok(out)
    }

    /// Uses a calibrated card back to tell face-down cards (`BackProfile::face_down`).
    pub fn set_back(&mut self, back: Option<BackProfile>) {
        self.back = back;
    }

    /// Every card outline found in a BGR frame, read where face up.
    pub fn detect(&self, frame: &Mat) -> opencv::Result<Vec<CardDetection>> {
        // The search and the readers see the frame under white light; a calibrated back is
        // matched in the colours it was calibrated in, those of the camera.
        let camera = frame;
        let balanced = light::balanced(frame)?;
        let frame = balanced.as_ref();
        let mut out = Vec::new();
        // Outlines surely face down: their pattern is not searched for indices (see `unsearched`).
        let mut backs = Vec::new();
        let Outlines { cards, edge_support, cascades } = find_outlines(frame, self.config.min_card_area)?;
        let size = [frame.cols() as f32, frame.rows() as f32];
        let pre = self.read_all_corners(frame, cards.iter().chain(&cascades))?;
        for quad in cascades {
            let ends = self.split_pair(frame, &quad, &pre)?.into_iter().flatten();
            // Each end was read by its outer corner; its inner corner lies over the cards between.
            for (mut end, inner) in ends.zip(INNER_CORNERS) {
                // The end card lying under the others shows only a strip: its card-long quad
                // would hide the strips of the cards between from the index search.
                if self.lies_under(frame, &end, inner, &pre)? {
                    end.quad = None;
                    if end.confidence < UNDER_END_SURE {
                        continue;
                    }
                }
                out.push(end);
            }
        }
        for (quad, support) in cards.into_iter().zip(edge_support) {
            if let Some(pair) = self.split_pair(frame, &quad, &pre)? {
                for (end, inner) in pair.into_iter().zip(INNER_CORNERS) {
                    if end.confidence < UNDER_END_SURE && self.lies_under(frame, &end, inner, &pre)? {
                        continue;
                    }
                    out.push(end);
                }
                continue;
            }
            let (readings, boxes) = self.read_outline(frame, &quad, &pre)?;
            // With no index read, an outline with hardly any edge along it is a level's contour
            // through the table's own light and shade (felt, a pale cloth), and one of most of
            // the frame is the table itself (a card close up would show its index).
            let table = support.is_some_and(|s| s < MIN_EDGE_SUPPORT) || spans_frame(&quad, size);
            let unread = combine(&readings, self.config.min_confidence).0.is_none();
            if table && unread {
                continue;
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
                    continue;
                }
                out.push(CardDetection {
                    card: None,
                    face: Face::Down,
                    confidence,
                    quad: Some(quad),
                    index_boxes: Vec::new(),
                });
                continue;
            }
            if square {
                continue;
            }
            let (card, confidence) = combine(&readings, self.config.min_confidence);
            // A corner that read another card is no evidence for this one: its box goes, and the
            // outline counts as read by one corner, so the loose search looks inside it (a card
            // lying over another's end shows both indices in one corner window; see
            // `add_loose_indices`).
            let boxes =
                boxes.into_iter().zip(&readings).filter(|(_, r)| Some(r.card) == card).map(|(b, _)| b).collect();
            out.push(CardDetection { card, face: Face::Up, confidence, quad: Some(quad), index_boxes: boxes });
        }
        // A card close up holds the outlines of its parts (they were kept for the case that it
        // was the table: `drop_nested`).
        if let Some(close) =
            out.iter().filter(|d| d.card.is_some()).find_map(|d| d.quad.filter(|q| spans_frame(q, size)))
        {
            out.retain(|d| d.quad.is_none_or(|q| q == close || !inside(&close, quad_centre(&q))));
            backs.retain(|q| !inside(&close, quad_centre(q)));
        }
        let went = settle_holders(&mut out, size);
        backs.retain(|q| !went.contains(q));
        let windows = self.add_loose_indices(frame, &mut out, &backs)?;
        one_of_each(&mut out, |d, placed| {
            let window = windows.iter().find(|(b, _)| d.index_boxes.first() == Some(b)).map(|(_, w)| w);
            self.read_again(frame, d, window, placed)
        })?;
        Ok(out)
    }

    /// The index corners readable outside the `read` outlines (see `LooseMarks`). With both
    /// readers, the network reads first and the templates only where it read nothing and is
    /// not sure there is nothing to read.
    fn loose_indices(&self, frame: &Mat, read: &[Quad]) -> opencv::Result<Vec<IndexHit>> {
        let Some(marks) = LooseMarks::find(frame, read, SMALL_FRAME)? else {
            return Ok(Vec::new());
        };
        let min = self.config.min_loose_confidence;
        let full_only = self.full_networks_only(&self.loose_memory);
        let by_network = || marks.read_by_network(frame, &self.loose_net, full_only, &self.loose_memory, min);
        let by_templates = |first: &NetworkRead| {
            marks.read_by_templates(&self.templates, &self.suit_templates, [&self.rank_net, &self.suit_net], min, first)
        };
        match self.config.loose_reader {
            Reader::Network => Ok(by_network()?.hits),
            Reader::Templates => by_templates(&NetworkRead::default()),
            Reader::Both => {
                let read = by_network()?;
                let more = by_templates(&read)?;
                Ok(read.hits.into_iter().chain(more).collect())
            }
        }
    }

    /// Reads both index corners of a card outline: the readings, and the index boxes in the image.
    fn read_outline(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
    ) -> opencv::Result<(Vec<IndexReading>, Vec<[i32; 4]>)> {
        if self.config.corner_reader != Reader::Templates {
            let mut readings = Vec::new();
            let mut boxes = Vec::new();
            for corner in [Corner::TopLeft, Corner::BottomRight] {
                if let Some((reading, b)) = self.read_corner_at(frame, quad, corner, pre)? {
                    readings.push(reading);
                    boxes.push(b);
                }
            }
            let unread = combine(&readings, self.config.min_confidence).0.is_none();
            // Where the network is sure both corners are blank (a card back: its pattern can
            // pass the templates for a faint 5), the templates are not asked.
            if self.config.corner_reader == Reader::Network || !unread || pre.both_blank(quad) {
                return Ok((readings, boxes));
            }
        }
        self.read_outline_by_templates(frame, quad)
    }

    /// Reads both index corners of a card outline with the glyph templates.
    fn read_outline_by_templates(
        &self,
        frame: &Mat,
        quad: &Quad,
    ) -> opencv::Result<(Vec<IndexReading>, Vec<[i32; 4]>)> {
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

    /// Whether the end of a long outline (`split_pair`), read by its outer corner, lies under
    /// the other cards: its `inner` corner reads some other card, or none.
    fn lies_under(
        &self,
        frame: &Mat,
        end: &CardDetection,
        inner: Corner,
        pre: &CornerReadings,
    ) -> opencv::Result<bool> {
        let Some(quad) = end.quad else { return Ok(false) };
        let reading = self.read_corner_at(frame, &quad, inner, pre)?;
        Ok(reading.is_none_or(|(r, _)| Some(r.card) != end.card))
    }

    /// Cards lying the same way and overlapping end to end (a pair, a cascade) make one long
    /// outline. Each end is read as a card of its own (a card's length measured from the
    /// outline's short side) by its outer corner; when the two ends read two different cards,
    /// they are two cards. A single card seen slanted reads the same card at both ends and stays
    /// one. The cards between the ends of a cascade are left to the loose index search.
    fn split_pair(&self, frame: &Mat, quad: &Quad, pre: &CornerReadings) -> opencv::Result<Option<[CardDetection; 2]>> {
        let Some(ends) = pair_ends(quad) else {
            return Ok(None);
        };
        let mut found = Vec::new();
        for (end, corner) in ends.into_iter().zip([Corner::TopLeft, Corner::BottomRight]) {
            let Some((reading, index_box)) = self.read_corner_at(frame, &end, corner, pre)? else {
                return Ok(None);
            };
            if reading.confidence < self.config.min_confidence {
                return Ok(None);
            }
            found.push(CardDetection {
                card: Some(reading.card),
                face: Face::Up,
                confidence: reading.confidence,
                quad: Some(end),
                index_boxes: vec![index_box],
            });
        }
        Ok(match <[CardDetection; 2]>::try_from(found) {
            Ok(pair) if pair[0].card != pair[1].card => Some(pair),
            _ => None,
        })
    }

    /// Adds the index corners found outside any card outline (hidden outlines: fans, cascades).
    /// Two corners of one card (same reading, opposite directions) count once; the cards surely
    /// face down (`backs`) are not searched (see `unsearched`). Returns the loose network's
    /// window on each index added, by its index box.
    fn add_loose_indices(
        &self,
        frame: &Mat,
        out: &mut Vec<CardDetection>,
        backs: &[Quad],
    ) -> opencv::Result<Vec<([i32; 4], patch::Window)>> {
        let hits = self.loose_indices(frame, &unsearched(out, backs))?;
        // An unread outline holding indices of two different cards is a group of overlapping
        // cards taken for one: it goes, and the indices speak for the cards.
        out.retain(|d| {
            let Some(q) = d.quad.filter(|_| d.card.is_none()) else { return true };
            let mut cards: Vec<Card> =
                hits.iter().filter(|h| inside(&q, box_centre(&h.bbox))).map(|h| h.card).collect();
            cards.sort();
            cards.dedup();
            cards.len() < 2
        });
        let mut kept: Vec<IndexHit> = Vec::new();
        // Indices far too small for the unread outline they lie in, read as loose ones.
        let mut on_the_table: Vec<IndexHit> = Vec::new();
        // Those inside outlines first: an outline that takes its card from one corner's index
        // then stands as that card when the twin test below meets the card's other corner.
        let within = |hit: &IndexHit| out.iter().any(|d| d.quad.is_some_and(|q| inside(&q, box_centre(&hit.bbox))));
        let (mut hits, outside): (Vec<IndexHit>, Vec<IndexHit>) = hits.into_iter().partition(within);
        hits.extend(outside);
        for hit in hits {
            let centre = box_centre(&hit.bbox);
            // Inside an outline: it reads that card when its own corners could not be read. Inside
            // a card taken for face down it must be sure: a back's pattern makes marks too (and a
            // court card's picture can make a face look like a back).
            if let Some(d) = out.iter_mut().find(|d| d.quad.is_some_and(|q| inside(&q, centre))) {
                // Another card's index inside an outline read by one corner, away from that
                // corner's index: the outline holds two cards, and this one is read too. A glyph
                // height away is another index, not the same one read otherwise: in a cascade the
                // next card's index lies one strip on, often inside the corner window that read
                // the card below (asking two heights lost such indices: one height reads 3 more on
                // the 1,200 tuning tables, none false; the real photos, as they are and under 14
                // alterations each, read the same).
                if d.card.is_some_and(|c| c != hit.card)
                    && d.index_boxes.len() == 1
                    && d.index_boxes
                        .iter()
                        .all(|b| dist(box_centre(&core::Rect::new(b[0], b[1], b[2], b[3])), centre) > hit.size)
                {
                    kept.push(hit);
                    continue;
                }
                // The index must not be far smaller than the outline's scale (its rank is about a
                // seventh of the card's width): a table taken for a card, or cards and the table
                // between them merged into one outline, hold indices far too small. Such an index
                // is read as a loose one, as on the table. An index larger than a card's is the
                // card's own, the outline being only the part of it in sight (the rest under a
                // hand or another card). Reading both rather than leaving them unread gives, on
                // 3,000 fresh rendered tables (seeds 60e6), 8 cards more and no false one, and on
                // edje one card more, as taken and under each of 14 alterations.
                let scale = d.quad.map_or(0.0, |q| hit.size / side_lengths(&q).0);
                let sure = d.face == Face::Up || hit.confidence >= 0.8;
                if d.card.is_none() && sure {
                    if scale < MIN_INDEX_SCALE {
                        // Asked last, once the outlines have taken their cards: the same card's
                        // other corner may name the outline round it (a mat holding one card).
                        on_the_table.push(hit);
                    } else {
                        let b = hit.bbox;
                        d.card = Some(hit.card);
                        d.face = Face::Up;
                        d.confidence = hit.confidence;
                        d.index_boxes = vec![[b.x, b.y, b.width, b.height]];
                    }
                }
                continue;
            }
            if !twin(&hit, &kept, out) {
                kept.push(hit);
            }
        }
        for hit in on_the_table {
            if !twin(&hit, &kept, out) {
                kept.push(hit);
            }
        }
        let mut windows = Vec::new();
        for hit in kept {
            let b = [hit.bbox.x, hit.bbox.y, hit.bbox.width, hit.bbox.height];
            windows.push((b, hit.window));
            out.push(CardDetection {
                card: Some(hit.card),
                face: Face::Up,
                confidence: hit.confidence,
                quad: None,
                index_boxes: vec![b],
            });
        }
        Ok(windows)
    }

    /// Reads every corner the outlines `quads` may need (both corners of each, and of each end
    /// of a long one) in one batch, when the network reads them; `read_corner_at` looks there
    /// first.
    fn read_all_corners<'a>(
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
    fn full_networks_only(&self, memory: &Memory) -> bool {
        !self.config.quick_networks || !memory.is_empty()
    }

    /// Reads the corner windows of outlines by network, in one batch, with the cards `ruled_out`
    /// (known to lie elsewhere) out of the reckoning.
    fn read_corner_windows(
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

    /// A card outline's reading once the cards `ruled_out` are known to lie elsewhere: both
    /// corners read again by the network must agree on one of the other cards, as surely as a
    /// loose index must be read (a second choice, made once the first proved wrong, needs more
    /// than a first). A loose index (`window`, the loose network's window on it) is read again
    /// by the full loose network alike; it has one corner, so its second choice must be as sure.
    /// With both corner readers, where the network finds no other card the templates read the
    /// outline afresh: if they agree on a card not ruled out, it stands.
    fn read_again(
        &self,
        frame: &Mat,
        det: &CardDetection,
        window: Option<&patch::Window>,
        ruled_out: &[Card],
    ) -> opencv::Result<Option<(Card, f32)>> {
        if let Some(window) = window.filter(|_| det.quad.is_none() && self.config.loose_reader != Reader::Templates) {
            let patch = patch::cut(frame, window, patch::INDEX_W, patch::INDEX_H)?;
            let reading = self.loose_net.full.read(&[&patch])?.remove(0);
            return Ok(second_choice(&reading, &self.loose_memory, ruled_out, self.config.min_loose_confidence));
        }
        let Some(quad) = det.quad.filter(|_| self.config.corner_reader != Reader::Templates) else {
            return Ok(None);
        };
        let agreed = |readings: &[IndexReading]| match (readings, combine(readings, self.config.min_loose_confidence)) {
            ([a, b], (Some(card), confidence)) if a.card == b.card && !ruled_out.contains(&card) => {
                Some((card, confidence))
            }
            _ => None,
        };
        let jobs = [(quad, Corner::TopLeft), (quad, Corner::BottomRight)];
        let readings: Vec<IndexReading> = self
            .read_corner_windows(frame, &jobs, ruled_out)?
            .into_iter()
            .filter_map(|(read, _)| read)
            .map(|(r, _)| r)
            .collect();
        if let Some(found) = agreed(&readings) {
            return Ok(Some(found));
        }
        if self.config.corner_reader != Reader::Both {
            return Ok(None);
        }
        Ok(agreed(&self.read_outline_by_templates(frame, &quad)?.0))
    }

    /// Reads one corner of a card outline in the frame: the reading and the index box in the
    /// image.
    fn read_corner_at(
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
    fn read_patch(&self, patch: &Mat) -> opencv::Result<Option<(IndexReading, core::Rect)>> {
        self.read_patch_with(patch, Ink::Otsu)
    }

    /// `read_patch` with the ink level chosen (see `Ink`).
    fn read_patch_with(&self, patch: &Mat, ink: Ink) -> opencv::Result<Option<(IndexReading, core::Rect)>> {
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

/// A corner's reading and its index box in the image, when it shows an index.
type CornerRead = Option<(IndexReading, [i32; 4])>;

/// Corner readings made ahead (see `CardDetector::read_all_corners`): outline, corner, reading,
/// and whether the network is sure the corner shows no index (`index::SURE_BLANK`).
struct CornerReadings(Vec<(Quad, Corner, CornerRead, bool)>);

impl CornerReadings {
    /// Whether the network is sure that neither corner of `quad` shows an index.
    fn both_blank(&self, quad: &Quad) -> bool {
        let blank = |corner| self.0.iter().any(|(q, c, _, blank)| q == quad && *c == corner && *blank);
        blank(Corner::TopLeft) && blank(Corner::BottomRight)
    }
}

/// Whether an outline taken for face down (`paper_mask`, its paper at a quarter size, with
/// `paper` the share of it set) holds too little paper for a face (`back::FACE_PAPER`), or,
/// inside its margin, paper only in thin lines: a back's pale lattice (`back::LINED_PAPER`).
fn sure_back(paper_mask: &Mat, paper: f64) -> opencv::Result<bool> {
    Ok(paper < back::FACE_PAPER || solid_paper_fraction(paper_mask)? < back::LINED_PAPER)
}

/// The outlines the loose index search leaves out: those read at both corners, and the cards
/// surely face down (`backs`). An outline read by one corner only may be two overlapping cards
/// taken for one (the one below showing its index, the one on top the rest), so it is searched.
/// A back is not: every cell of a lattice back is a glyph-sized mark ringed by paper, and one
/// face-down card gave 414 candidates to read (over 100 ms). A face-down call alone is not sure
/// enough: on real photos, merged outlines of face-up cards (half of them paper, their corners
/// blank) were taken for backs, and the cards were found by their indices. So a back is sure
/// when it matches the calibrated back, or, uncalibrated, when both its corners are surely blank
/// and its paper is not a face's (`sure_back`).
fn unsearched(found: &[CardDetection], backs: &[Quad]) -> Vec<Quad> {
    found
        .iter()
        .filter(|d| d.card.is_some() && d.index_boxes.len() >= 2)
        .filter_map(|d| d.quad)
        .chain(backs.iter().copied())
        .collect()
}

/// The two ends of an outline too long for one card, each a card long (measured from the
/// outline's short side), clockwise from their own top-left; `None` for a card-shaped outline.
fn pair_ends(quad: &Quad) -> Option<[Quad; 2]> {
    let (short, long) = side_lengths(quad);
    if long < 1.7 * short {
        return None;
    }
    let length = short * CARD_H as f32 / CARD_W as f32;
    let towards = |from: [f32; 2], to: [f32; 2]| {
        let k = length / dist(from, to).max(1.0);
        [from[0] + (to[0] - from[0]) * k, from[1] + (to[1] - from[1]) * k]
    };
    let [a, b, c, d] = *quad;
    Some([[a, b, towards(b, c), towards(a, d)], [towards(d, a), towards(c, b), c, d]])
}

/// A deck holds each card once: when one card is read in two places, the less confident reading
/// is a misreading of some other card. Surest first, each card stays where it was read first; a
/// later reading of it is replaced by `read_again` (the detection read with the cards placed so
/// far ruled out), or reported as unknown rather than guessed.
/// (Two corners of one card were merged before this.)
fn one_of_each(
    out: &mut [CardDetection],
    mut read_again: impl FnMut(&CardDetection, &[Card]) -> opencv::Result<Option<(Card, f32)>>,
) -> opencv::Result<()> {
    let mut order: Vec<usize> = (0..out.len()).collect();
    // Surest first; of equally sure ones the later.
    order.sort_by(|&a, &b| out[b].confidence.total_cmp(&out[a].confidence).then(b.cmp(&a)));
    let mut placed: Vec<Card> = Vec::new();
    for i in order {
        let Some(card) = out[i].card else { continue };
        if !placed.contains(&card) {
            placed.push(card);
            continue;
        }
        out[i].card = None;
        if let Some((other, confidence)) = read_again(&out[i], &placed)? {
            (out[i].card, out[i].confidence) = (Some(other), confidence);
            placed.push(other);
        }
    }
    Ok(())
}

/// What a loose index read again reads once the cards `ruled_out` are set aside: a card read
/// at `min_confidence` among the rest, that the network found likely enough by itself
/// (`READ_AGAIN_OWN`).
fn second_choice(
    reading: &NetReading,
    memory: &Memory,
    ruled_out: &[Card],
    min_confidence: f32,
) -> Option<(Card, f32)> {
    memory.weigh_other_than(reading, ruled_out).filter(|(card, p)| {
        *p >= min_confidence && !ruled_out.contains(card) && reading.probability(*card) >= READ_AGAIN_OWN
    })
}

/// One deck holds each card once: the same card read again nearby is its other corner (or the
/// corner of an outline already read), whether `kept` among the loose indices or in `out`.
fn twin(hit: &IndexHit, kept: &[IndexHit], out: &[CardDetection]) -> bool {
    let centre = box_centre(&hit.bbox);
    let reach = 16.0 * hit.size;
    kept.iter().any(|k| k.card == hit.card && dist(box_centre(&k.bbox), centre) < reach)
        || out.iter().any(|d| {
            d.card == Some(hit.card)
                && (d.quad.is_some_and(|q| dist(quad_centre(&q), centre) < reach)
                    || d.index_boxes.iter().any(|b| dist([b[0] as f32, b[1] as f32], centre) < reach))
        })
}

/// The card an outline's corner readings name, and how surely (`None` below `min_confidence`):
/// both corners must agree; one corner alone is used at its own confidence.
pub fn combine(readings: &[IndexReading], min_confidence: f32) -> (Option<Card>, f32) {
    let (card, confidence) = match readings {
        [] => return (None, 0.0),
        [one] => (one.card, one.confidence),
        [a, b, ..] if a.card == b.card => (a.card, 1.0 - (1.0 - a.confidence) * (1.0 - b.confidence)),
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corner {
    TopLeft,
    BottomRight,
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
fn corner_window() -> core::Rect {
    core::Rect::new(2, 2, (CARD_W as f32 * 0.20) as i32, (CARD_H as f32 * 0.33) as i32)
}

/// Segments the rank (the top ink, glued with a side-by-side neighbour as in "10") and the suit
/// pip below it in one corner of a rectified card.
pub(crate) fn corner_glyphs(card: &Mat, corner: Corner) -> opencv::Result<Option<CornerGlyphs>> {
    glyphs_in_patch(&corner_patch(card, corner)?, Ink::Otsu)
}

/// The corner window of a rectified card, turned so that the index stands upright.
fn corner_patch(card: &Mat, corner: Corner) -> opencv::Result<Mat> {
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
fn corner_patch_in_frame(frame: &Mat, quad: &[[f32; 2]; 4], corner: Corner) -> opencv::Result<Mat> {
    let turned = match corner {
        Corner::TopLeft => *quad,
        Corner::BottomRight => [quad[2], quad[3], quad[0], quad[1]],
    };
    let window = corner_window();
    let (x, y) = (window.x as f32, window.y as f32);
    let (w, h) = (CARD_W as f32, CARD_H as f32);
    warp(frame, &turned, [[-x, -y], [w - x, -y], [w - x, h - y], [-x, h - y]], window.size())
}

/// Warps the card inside `quad` to `width x height`.
fn rectify_sized(frame: &Mat, quad: &[[f32; 2]; 4], width: i32, height: i32) -> opencv::Result<Mat> {
    let (w, h) = (width as f32, height as f32);
    warp(frame, quad, [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]], core::Size::new(width, height))
}

/// Warps the frame so that `quad`'s corners land on `to`, keeping `size` pixels from the origin.
pub(crate) fn warp(frame: &Mat, quad: &[[f32; 2]; 4], to: [[f32; 2]; 4], size: core::Size) -> opencv::Result<Mat> {
    let point = |p: &[f32; 2]| core::Point2f::new(p[0], p[1]);
    let src = core::Vector::<core::Point2f>::from_iter(quad.iter().map(point));
    let dst = core::Vector::<core::Point2f>::from_iter(to.iter().map(point));
    let m = imgproc::get_perspective_transform(&src, &dst, core::DECOMP_LU)?;
    let mut out = Mat::default();
    imgproc::warp_perspective(
        frame,
        &mut out,
        &m,
        size,
        imgproc::INTER_LINEAR,
        core::BORDER_REPLICATE,
        core::Scalar::all(0.0),
    )?;
    Ok(out)
}

/// How a corner window's ink is told from its paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ink {
    /// Otsu's level between the two.
    Otsu,
    /// A level nearer the paper, for faint or thin ranks beside a strong pip.
    Pale,
}

/// Segments the rank and suit in a corner window whose index stands upright.
fn glyphs_in_patch(patch: &Mat, level: Ink) -> opencv::Result<Option<CornerGlyphs>> {
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

pub(crate) fn label_mask(labels: &Mat, ids: &[i32], rect: core::Rect) -> opencv::Result<Mat> {
    let mut mask = Mat::zeros(rect.height, rect.width, core::CV_8UC1)?.to_mat()?;
    let width = rect.width as usize;
    let out = mask.data_bytes_mut()?;
    for y in 0..rect.height {
        let row = labels.at_row::<i32>(rect.y + y)?;
        let row = &row[rect.x as usize..rect.x as usize + width];
        for (o, l) in out[y as usize * width..][..width].iter_mut().zip(row) {
            if ids.contains(l) {
                *o = 255;
            }
        }
    }
    Ok(mask)
}

/// The bounding box and pixel count of component `i` in the stats of
/// `connected_components_with_stats`.
pub(crate) fn component(stats: &Mat, i: i32) -> opencv::Result<(core::Rect, i32)> {
    let at = |field: i32| stats.at_2d::<i32>(i, field).copied();
    let rect = core::Rect::new(
        at(imgproc::CC_STAT_LEFT)?,
        at(imgproc::CC_STAT_TOP)?,
        at(imgproc::CC_STAT_WIDTH)?,
        at(imgproc::CC_STAT_HEIGHT)?,
    );
    Ok((rect, at(imgproc::CC_STAT_AREA)?))
}

/// The centre of component `i` in the centroids of `connected_components_with_stats`.
pub(crate) fn centroid(centroids: &Mat, i: i32) -> opencv::Result<[f32; 2]> {
    Ok([*centroids.at_2d::<f64>(i, 0)? as f32, *centroids.at_2d::<f64>(i, 1)? as f32])
}

/// Whether the ink pixels of a BGR patch are red rather than black or grey.
fn ink_is_red(patch: &Mat, ink: &Mat) -> opencv::Result<Option<bool>> {
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

/// How much brighter each pixel is than its surroundings (a box a sixth of the frame wide):
/// under uneven light, a card in the dim part of a pale table is still brighter than the table
/// around it, though not than the table in the lit part.
fn above_surroundings(channel: &Mat) -> opencv::Result<Mat> {
    let k = (channel.cols().max(channel.rows()) / 6) | 1;
    let mut around = Mat::default();
    imgproc::box_filter(
        channel,
        &mut around,
        -1,
        core::Size::new(k, k),
        core::Point::new(-1, -1),
        true,
        core::BORDER_REFLECT,
    )?;
    let mut out = Mat::default();
    core::subtract(channel, &around, &mut out, &core::no_array(), -1)?;
    Ok(out)
}

/// Per pixel, how white: the minimum channel less the spread between channels (2 min - max).
/// White card stock stays bright; a pale but tinted table (pink, beige, pale green) drops.
/// `low` is the image's `min_channel`.
fn whiteness(bgr: &Mat, low: &Mat) -> opencv::Result<Mat> {
    let mut channels = core::Vector::<Mat>::new();
    core::split(bgr, &mut channels)?;
    let (mut hi, mut t) = (Mat::default(), Mat::default());
    core::max(&channels.get(0)?, &channels.get(1)?, &mut t)?;
    core::max(&t, &channels.get(2)?, &mut hi)?;
    let mut out = Mat::default();
    // Saturating 8-bit arithmetic: 2 low - hi, clamped at 0.
    core::add_weighted(low, 2.0, &hi, -1.0, 0.0, &mut out, -1)?;
    Ok(out)
}

/// A morphological operation `op` with a `shape` (MORPH_RECT, MORPH_ELLIPSE) `size` pixels
/// across; outside the image counts as background.
pub(crate) fn morph(mask: &Mat, op: i32, shape: i32, size: i32) -> opencv::Result<Mat> {
    let kernel = imgproc::get_structuring_element(shape, core::Size::new(size, size), core::Point::new(-1, -1))?;
    let mut out = Mat::default();
    let anchor = core::Point::new(-1, -1);
    imgproc::morphology_ex(mask, &mut out, op, &kernel, anchor, 1, core::BORDER_CONSTANT, core::Scalar::all(0.0))?;
    Ok(out)
}

/// The per-pixel minimum of B, G and R: ink of any colour is dark in it, white paper is bright.
pub fn min_channel(bgr: &Mat) -> opencv::Result<Mat> {
    let mut channels = core::Vector::<Mat>::new();
    core::split(bgr, &mut channels)?;
    let mut m = Mat::default();
    core::min(&channels.get(0)?, &channels.get(1)?, &mut m)?;
    let mut out = Mat::default();
    core::min(&m, &channels.get(2)?, &mut out)?;
    Ok(out)
}

/// The share of a mask's pixels that are set (of a `paper_mask`: the card's paper fraction).
fn share_set(mask: &(impl MatTraitConst + core::ToInputArray)) -> opencv::Result<f64> {
    Ok(f64::from(core::count_non_zero(mask)?) / (mask.rows() * mask.cols()) as f64)
}

/// The share of a (quarter-size) rectified card's inside (its margin left out) that is paper in
/// patches wider than a thin line, from its `paper_mask`: a face's background stays, the pale
/// lines of a back's lattice go.
fn solid_paper_fraction(paper_mask: &Mat) -> opencv::Result<f64> {
    let (w, h) = (paper_mask.cols(), paper_mask.rows());
    let inset = (w as f32 * 0.12).round() as i32;
    let solid = morph(paper_mask, imgproc::MORPH_OPEN, imgproc::MORPH_RECT, 3)?;
    share_set(&Mat::roi(&solid, core::Rect::new(inset, inset, w - 2 * inset, h - 2 * inset))?)
}

/// Where a BGR card is paper: bright in every channel relative to the brightest part of it.
fn paper_mask(card: &Mat) -> opencv::Result<Mat> {
    let low = min_channel(card)?;
    let mut gray = Mat::default();
    imgproc::cvt_color_def(card, &mut gray, imgproc::COLOR_BGR2GRAY)?;
    let mut max = 0.0;
    core::min_max_loc(&gray, None, Some(&mut max), None, None, &core::no_array())?;
    let mut paper = Mat::default();
    imgproc::threshold(&low, &mut paper, max * 0.7, 255.0, imgproc::THRESH_BINARY)?;
    Ok(paper)
}

/// Card-shaped bright regions of a BGR frame, as quads clockwise from the card's top-left.
///
/// One global threshold cannot serve every table: on a pale carpet or wood the brightness of
/// the table reaches the card's, and the two merge. White card stock is bright in every colour
/// channel while a beige or brown table is not, so the per-pixel minimum channel is thresholded
/// too, and each mask is also opened a little to cut thin bridges (fibres, edges of glare).
/// Quads found in several masks count once.
pub fn find_card_quads(frame: &Mat, min_area_fraction: f64) -> opencv::Result<Vec<[[f32; 2]; 4]>> {
    Ok(find_outlines(frame, min_area_fraction)?.cards)
}

/// `find_card_quads` in the frame seen under white light (`light::balanced`), as `detect` looks
/// for outlines: what back calibration (and enrolment, which balances the frame once itself)
/// remembers is cut from the outline the detector will find. Under a warm lamp (bidly-deck's 52 photos altered `warm:0.55`) the
/// largest outline found in the camera's colours lay over 3 px from that of the photo as taken
/// in 47 photos; in the balanced frame, in 5.
pub fn find_card_quads_in_light(frame: &Mat, min_area_fraction: f64) -> opencv::Result<Vec<[[f32; 2]; 4]>> {
    find_card_quads(light::balanced(frame)?.as_ref(), min_area_fraction)
}

/// The card outlines of a frame (see `find_card_quads`), how well edges back them, and the
/// outlines too long for one card.
fn find_outlines(frame: &Mat, min_area_fraction: f64) -> opencv::Result<Outlines> {
    // Outlines are looked for at most ~640 px across (cards stay hundreds of pixels in area);
    // each is then refined at full resolution.
    let scale = (frame.cols().max(frame.rows()) / 640).max(1);
    let shrunk;
    let small = if scale > 1 {
        let size = core::Size::new(frame.cols() / scale, frame.rows() / scale);
        let mut out = Mat::default();
        // The frame cut to whole multiples of the scale: each small pixel is then exactly
        // `scale` frame pixels across, as the outlines' scaling back assumes (and the area
        // resize takes its quick path).
        let whole = core::Rect::new(0, 0, size.width * scale, size.height * scale);
        imgproc::resize(&Mat::roi(frame, whole)?, &mut out, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        shrunk = out;
        &shrunk
    } else {
        frame
    };
    let mut gray = Mat::default();
    imgproc::cvt_color_def(small, &mut gray, imgproc::COLOR_BGR2GRAY)?;
    let small_low = min_channel(small)?;
    let small_white = whiteness(small, &small_low)?;
    let small_local = above_surroundings(&small_white)?;
    let small_area = f64::from(small.rows()) * f64::from(small.cols());
    let mut outlines: Vec<Outline> = Vec::new();
    // The gray image's blurred copy serves the edge search too.
    let (mut masks, blurred_gray) = bright_masks(&gray)?;
    for channel in [&small_low, &small_white] {
        masks.extend(bright_masks(channel)?.0);
    }
    masks.push(otsu_mask(&small_local)?.0);
    {
        for mask in masks {
            for found in quads_in_mask(&mask, small_area * min_area_fraction)? {
                match outlines.iter_mut().find(|o| same_card(&o.quad, &found.quad)) {
                    // A card's card-shaped outline is surer than a square one of it.
                    Some(known)
                        if (found.clean && !known.clean && found.square == known.square)
                            || (known.square && !found.square) =>
                    {
                        *known = found
                    }
                    Some(_) => {}
                    None => outlines.push(found),
                }
            }
        }
    }
    // A square outline on a card-shaped one is a piece of that card (cut off by glare or a
    // shadow), not a card seen steeply.
    let pieces: Vec<Quad> = outlines
        .iter()
        .filter(|o| o.square && outlines.iter().any(|b| !b.square && inside(&b.quad, quad_centre(&o.quad))))
        .map(|o| o.quad)
        .collect();
    outlines.retain(|o| !pieces.contains(&o.quad));
    let mut quads: Vec<[[f32; 2]; 4]> = outlines.iter().filter(|o| !o.long).map(|o| o.quad).collect();
    let (edged, edges) = edge_outlines(&blurred_gray, small_area * min_area_fraction)?;
    quads.extend(new_edge_cards(&edged, &outlines));
    let size = [small.cols() as f32, small.rows() as f32];
    let supports = quads.iter().map(|q| Ok((*q, edge_support(&edges, q)?))).collect::<opencv::Result<Vec<_>>>()?;
    let support_of = |q: &Quad| supports.iter().find(|(s, _)| s == q).and_then(|(_, v)| *v);
    // The table's own light and shade can pass a level in one piece around a card: an outline
    // with hardly any edge along it holding a card is the table.
    let shading = |q: &Quad| support_of(q).is_some_and(|s| s < MIN_EDGE_SUPPORT);
    drop_nested(&mut quads, shading, |q| spans_frame(q, size));
    let support = quads.iter().map(support_of).collect();
    let cascades: Vec<Quad> = outlines
        .iter()
        .filter(|o| o.long && !quads.iter().any(|q| inside(&o.quad, quad_centre(q))))
        .map(|o| o.quad)
        .collect();
    let k = scale as f32;
    // `fit`: whether a clean outline's sides may be found again as straight lines (not a
    // cascade's, whose long sides are the edges of several cards lying a little askew).
    let refined = |quads: Vec<Quad>, fit: bool| -> opencv::Result<Vec<Quad>> {
        let mut out = Vec::with_capacity(quads.len());
        for quad in quads {
            let clean = outlines.iter().any(|o| o.quad == quad && o.clean);
            let full = quad.map(|p| [p[0] * k, p[1] * k]);
            out.push(if !clean {
                refine_quad(frame, &full, true)?
            } else if scale == 1 {
                full
            } else {
                // A clean outline needs refining only to regain the resolution lost to
                // downscaling: its sides are found again along their length in the full frame,
                // or where they are not clear there, the outline is re-found around them.
                let fitted = if fit { edge_fit::fit_sides(frame, &full, 2.0 * k + 1.0)? } else { None };
                match fitted {
                    Some(fitted) => fitted,
                    None => refine_quad(frame, &full, false)?,
                }
            });
        }
        Ok(out)
    };
    Ok(Outlines { cards: refined(quads, true)?, edge_support: support, cascades: refined(cascades, false)? })
}

/// What `find_outlines` finds.
struct Outlines {
    /// Card outlines.
    cards: Vec<Quad>,
    /// For each card outline, how much of it runs along an edge (`edge_support`).
    edge_support: Vec<Option<f32>>,
    /// Outlines too long for one card that may be several lying end to end (a cascade): these
    /// hold no card outline.
    cascades: Vec<Quad>,
}

/// Re-finds one outline with a threshold of its own neighbourhood: in a busy frame the global
/// levels let the table's bright specks cling to the card, and a reader wants exact corners.
/// `specks` says whether bright specks may cling to the outline (an unclean contour): only then
/// is the mask opened, which costs more than the rest together.
fn refine_quad(frame: &Mat, quad: &[[f32; 2]; 4], specks: bool) -> opencv::Result<[[f32; 2]; 4]> {
    let (short, _) = side_lengths(quad);
    let margin = short * 0.2;
    let xs = quad.iter().map(|p| p[0]);
    let ys = quad.iter().map(|p| p[1]);
    let (x0, x1) = (xs.clone().fold(f32::MAX, f32::min) - margin, xs.fold(f32::MIN, f32::max) + margin);
    let (y0, y1) = (ys.clone().fold(f32::MAX, f32::min) - margin, ys.fold(f32::MIN, f32::max) + margin);
    let bounds = core::Rect::new(0, 0, frame.cols(), frame.rows());
    let roi = core::Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32) & bounds;
    if roi.width < 8 || roi.height < 8 {
        return Ok(*quad);
    }
    // Worked at most ~120 px across the card's short side: the opening's disc stays small.
    let k = (short / 120.0).max(1.0);
    let size = core::Size::new((roi.width as f32 / k) as i32, (roi.height as f32 / k) as i32);
    let low = min_channel(&Mat::roi(frame, roi)?.try_clone()?)?;
    // At one frame pixel to one patch pixel the resize would only copy.
    let patch = if size == low.size()? {
        low
    } else {
        let mut patch = Mat::default();
        imgproc::resize(&low, &mut patch, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        patch
    };
    let mask = otsu_mask(&patch)?.0;
    let mask = if specks { solid_opened(&mask, (short / k / 6.0) as i32)? } else { mask };
    let back = |q: [[f32; 2]; 4]| q.map(|p| [p[0] * k + roi.x as f32, p[1] * k + roi.y as f32]);
    let min_area = f64::from((short / k).powi(2)) * 0.5;
    let found = quads_in_mask(&mask, min_area)?.into_iter().map(|o| back(o.quad)).find(|q| same_card(q, quad));
    Ok(found.unwrap_or(*quad))
}

/// A dark frame around the image lets a card that fills it, or leaves it, close its outline.
const PAD: i32 = 4;

/// Masks of the bright parts of a single-channel image, blurred and padded: Otsu's threshold,
/// and two levels just under the brightest paper, where a pale textured table (carpet, wood
/// grain) falls away from the card while the card's white border still closes its outline.
/// The blurred, padded image comes back too.
fn bright_masks(channel: &Mat) -> opencv::Result<(Vec<Mat>, Mat)> {
    let (otsu, level, blurred) = otsu_mask(channel)?;
    let mut masks = vec![otsu];
    let paper = f64::from(percentile(&blurred, 0.99)?);
    for fraction in [0.7, 0.85] {
        let at = paper * fraction;
        if at > level + 8.0 {
            let mut mask = Mat::default();
            imgproc::threshold(&blurred, &mut mask, at, 255.0, imgproc::THRESH_BINARY)?;
            masks.push(mask);
        }
    }
    Ok((masks, blurred))
}

/// The card outlines among `edged` (from `edge_outlines`) that the levels missed (not one of
/// `outlines`), the outermost only: inside a card, edges outline its parts (a court card's
/// picture frame). They join the levels' outlines before `drop_nested`, so that an outline of
/// the whole pale table holding them goes as a table.
fn new_edge_cards(edged: &[Outline], outlines: &[Outline]) -> Vec<Quad> {
    let whole: Vec<Quad> = edged.iter().filter(|o| !o.long).map(|o| o.quad).collect();
    whole
        .iter()
        .filter(|q| {
            let centre = quad_centre(q);
            let within = |big: &Quad| big != *q && inside(big, centre);
            !whole.iter().any(within) && !outlines.iter().any(|o| same_card(&o.quad, q))
        })
        .copied()
        .collect()
}

/// Canny's lower gradient threshold for `edge_outlines` (the upper is 2.5 times it): the
/// face-down count on fresh synthetic tables (seeds 9e6, not the test seeds) was the same from
/// 15 to 30.
const EDGE_LOW: f64 = 20.0;

/// Card outlines drawn by edges: on a table as pale as the cards no level parts them, but their
/// borders still make edges. The outer contour of each cluster of (closed) edges is looked at;
/// a textured table's edges run together into clusters reaching the frame's border, and those
/// are left out (the levels look there). `blurred` is a blurred gray image padded by `PAD`.
fn edge_outlines(blurred: &Mat, min_area: f64) -> opencv::Result<(Vec<Outline>, Mat)> {
    let mut edges = Mat::default();
    imgproc::canny(blurred, &mut edges, EDGE_LOW, EDGE_LOW * 2.5, 3, false)?;
    // The pad's own edge would enclose everything: it goes, with a pixel of the frame.
    let (w, h) = (edges.cols(), edges.rows());
    let band = core::Rect::new(0, 0, w, h);
    imgproc::rectangle(&mut edges, band, core::Scalar::all(0.0), 2 * (PAD + 1), imgproc::LINE_8, 0)?;
    let closed = morph(&edges, imgproc::MORPH_DILATE, imgproc::MORPH_RECT, 3)?;
    let mut out = Vec::new();
    for contour in outer_contours(&closed)?.iter() {
        let r = imgproc::bounding_rect(&contour)?;
        if r.x <= PAD + 1 || r.y <= PAD + 1 || r.x + r.width >= w - PAD - 1 || r.y + r.height >= h - PAD - 1 {
            continue;
        }
        let area = imgproc::contour_area(&contour, false)?;
        if area < min_area {
            continue;
        }
        // Not among the levels' clean outlines, each is refined at full size: the edges were
        // thickened, and a pale card wants its corners re-found.
        out.extend(card_quad(&contour, area, false)?);
    }
    Ok((out, closed))
}

/// The least share of an unread outline that must run along an edge (`edge_support`) for it to
/// count as a card: contours through a table's shading measured 0–0.2 on rendered felt and pale
/// cloth, cards of the real and rendered sets 0.3–1 (nearly all above 0.6).
const MIN_EDGE_SUPPORT: f32 = 0.3;

/// How much of an outline's edge runs along `edges` (from `edge_outlines`: padded, thickened,
/// its border band cleared): the share of points along its four sides with an edge pixel within
/// two pixels. `None` when too little of the outline lies inside the band to tell.
fn edge_support(edges: &Mat, quad: &Quad) -> opencv::Result<Option<f32>> {
    const STEPS: usize = 25;
    let (w, h) = (edges.cols(), edges.rows());
    let pixels = edges.data_bytes()?;
    let set = |x: i32, y: i32| pixels[(y * w + x) as usize] > 0;
    let margin = 2 * (PAD + 1) + 2;
    let (mut looked, mut found) = (0, 0);
    for i in 0..4 {
        let (a, b) = (quad[i], quad[(i + 1) % 4]);
        for s in 0..STEPS {
            let t = (s as f32 + 0.5) / STEPS as f32;
            let x = (a[0] + t * (b[0] - a[0])).round() as i32 + PAD;
            let y = (a[1] + t * (b[1] - a[1])).round() as i32 + PAD;
            if x < margin || y < margin || x >= w - margin || y >= h - margin {
                continue;
            }
            looked += 1;
            let hit = (-2..=2).any(|dy| (-2..=2).any(|dx| set(x + dx, y + dy)));
            found += usize::from(hit);
        }
    }
    Ok((looked >= 20).then(|| found as f32 / looked as f32))
}

/// Otsu's threshold of a blurred, padded single-channel image: the mask, the level, and the
/// blurred image.
fn otsu_mask(channel: &Mat) -> opencv::Result<(Mat, f64, Mat)> {
    let mut padded = Mat::default();
    core::copy_make_border(channel, &mut padded, PAD, PAD, PAD, PAD, core::BORDER_CONSTANT, core::Scalar::all(0.0))?;
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(&padded, &mut blurred, core::Size::new(5, 5), 0.0, 0.0, core::BORDER_DEFAULT)?;
    let mut otsu = Mat::default();
    let level = imgproc::threshold(&blurred, &mut otsu, 0.0, 255.0, imgproc::THRESH_BINARY | imgproc::THRESH_OTSU)?;
    Ok((otsu, level, blurred))
}

/// The value below which `q` of an 8-bit image's pixels lie.
/// Every seventh pixel is counted: plenty for a level, at a seventh of the cost.
pub(crate) fn percentile(image: &Mat, q: f64) -> opencv::Result<u8> {
    let mut counts = [0usize; 256];
    let mut total = 0usize;
    for &v in image.data_bytes()?.iter().step_by(7) {
        counts[usize::from(v)] += 1;
        total += 1;
    }
    let target = (total as f64 * q) as usize;
    let mut seen = 0;
    for (v, &c) in counts.iter().enumerate() {
        seen += c;
        if seen > target {
            return Ok(v as u8);
        }
    }
    Ok(255)
}

/// Fills every outer contour of a (padded) mask, so that the dark picture of a court card stops
/// mattering, then opens it with a disc of `size` pixels: specks of table clinging to the card
/// come off. The opening rounds the card's corners off; growing it back inside the filled mask
/// restores them while specks further out stay cut.
fn solid_opened(mask: &Mat, size: i32) -> opencv::Result<Mat> {
    let mut solid = Mat::zeros(mask.rows(), mask.cols(), core::CV_8UC1)?.to_mat()?;
    imgproc::draw_contours(
        &mut solid,
        &outer_contours(mask)?,
        -1,
        core::Scalar::all(255.0),
        -1,
        imgproc::LINE_8,
        &core::no_array(),
        i32::MAX,
        core::Point::new(0, 0),
    )?;
    let k = size.max(3) | 1;
    let opened = morph(&solid, imgproc::MORPH_OPEN, imgproc::MORPH_ELLIPSE, k)?;
    let grown = morph(&opened, imgproc::MORPH_DILATE, imgproc::MORPH_ELLIPSE, k)?;
    let mut restored = Mat::default();
    core::bitwise_and(&grown, &solid, &mut restored, &core::no_array())?;
    Ok(restored)
}

/// The outer contours of a mask.
fn outer_contours(mask: &Mat) -> opencv::Result<core::Vector<core::Vector<core::Point>>> {
    let mut contours = core::Vector::<core::Vector<core::Point>>::new();
    let origin = core::Point::new(0, 0);
    imgproc::find_contours(mask, &mut contours, imgproc::RETR_EXTERNAL, imgproc::CHAIN_APPROX_SIMPLE, origin)?;
    Ok(contours)
}

/// The outer contours of a (padded) mask that are card-shaped quads of at least `min_area`.
fn quads_in_mask(mask: &Mat, min_area: f64) -> opencv::Result<Vec<Outline>> {
    let contours = outer_contours(mask)?;
    let mut quads = Vec::new();
    for contour in contours.iter() {
        let area = imgproc::contour_area(&contour, false)?;
        if area < min_area {
            continue;
        }
        if let Some(outline) = card_quad(&contour, area, true)? {
            quads.push(outline);
        }
    }
    Ok(quads)
}

/// A contour's card outline: its 4-corner polygon when convex, otherwise its minimum-area
/// rectangle when the contour fills it (rounded or chipped corners) and `rounded` allows it;
/// `None` when not card-shaped.
fn card_quad(contour: &core::Vector<core::Point>, area: f64, rounded: bool) -> opencv::Result<Option<Outline>> {
    let perimeter = imgproc::arc_length(contour, true)?;
    let mut approx = core::Vector::<core::Point>::new();
    imgproc::approx_poly_dp(contour, &mut approx, 0.03 * perimeter, true)?;
    let points: Vec<[f32; 2]> = if approx.len() == 4
        && imgproc::is_contour_convex(&approx)?
        && area > 0.85 * imgproc::contour_area(&approx, false)?
    {
        approx.iter().map(|p| [p.x as f32, p.y as f32]).collect()
    } else if rounded {
        let rect = imgproc::min_area_rect(contour)?;
        if area < 0.88 * f64::from(rect.size.width * rect.size.height) {
            return Ok(None);
        }
        let mut pts = [core::Point2f::default(); 4];
        rect.points(&mut pts)?;
        pts.iter().map(|p| [p.x, p.y]).collect()
    } else {
        return Ok(None);
    };
    let mut quad = [[0.0f32; 2]; 4];
    for (q, p) in quad.iter_mut().zip(&points) {
        *q = [p[0] - PAD as f32, p[1] - PAD as f32];
    }
    let quad = order_quad(quad);
    let (short, long) = side_lengths(&quad);
    // Clean: the contour is the quad, with no specks of table on its edge to refine away.
    let quad_perimeter = (0..4).map(|i| dist(quad[i], quad[(i + 1) % 4])).sum::<f32>();
    let fill = area / f64::from(short * long);
    let clean = (0.92..=1.04).contains(&fill) && perimeter < 1.12 * f64::from(quad_perimeter);
    let ratio = long / short.max(1.0);
    Ok((ratio <= 4.0).then_some(Outline { quad, clean, long: ratio > 2.1, square: ratio < SQUARE }))
}

/// A card outline found in a mask, and whether its contour was exactly that quad.
#[derive(Clone, Copy, Debug)]
struct Outline {
    quad: [[f32; 2]; 4],
    clean: bool,
    /// Too long for one card: maybe several lying end to end.
    long: bool,
    /// Nearly square (`SQUARE`): a card seen steeply along its length, or not a card at all.
    square: bool,
}

pub(super) fn box_centre(b: &core::Rect) -> [f32; 2] {
    [b.x as f32 + b.width as f32 / 2.0, b.y as f32 + b.height as f32 / 2.0]
}

pub(crate) fn quad_centre(q: &[[f32; 2]; 4]) -> [f32; 2] {
    [q.iter().map(|p| p[0]).sum::<f32>() / 4.0, q.iter().map(|p| p[1]).sum::<f32>() / 4.0]
}

/// Two outlines of one card: centres close and sides alike.
fn same_card(a: &[[f32; 2]; 4], b: &[[f32; 2]; 4]) -> bool {
    let (sa, la) = side_lengths(a);
    let (sb, lb) = side_lengths(b);
    dist(quad_centre(a), quad_centre(b)) < 0.25 * sa.min(sb) && (la / lb - 1.0).abs() < 0.25
}

/// Sorts out outlines that lie inside others. One holding several much smaller outlines is not
/// a card but something the cards lie on (a folder, a tile, a mat): it goes; so does one that
/// is the table's own shading (`shading`) holding even one. Otherwise an outline inside another
/// is part of that card (a court card's picture frame, a pip area, a half card split off by a
/// threshold): it goes, since a card cannot lie wholly on another. Two kinds of outline keep
/// what they hold, since only reading tells what they are (`CardDetector::detect`): one of most
/// of the frame (`whole_frame`), a pale table or a card close up, which stays itself however
/// much it holds (a close-up court card's picture parts and large pips pass for cards); and one
/// holding a single card-sized outline (`holds_small`), a card and a part of it, or a mat or
/// board under one card.
fn drop_nested(quads: &mut Vec<[[f32; 2]; 4]>, shading: impl Fn(&Quad) -> bool, whole_frame: impl Fn(&Quad) -> bool) {
    // Each outline with how many card-sized outlines it holds.
    let held: Vec<(Quad, usize)> =
        quads.iter().map(|q| (*q, quads.iter().filter(|small| holds_small(q, small)).count())).collect();
    let cards: Vec<(Quad, usize)> =
        held.into_iter().filter(|(q, n)| whole_frame(q) || !(*n >= 2 || (*n == 1 && shading(q)))).collect();
    let keeps = |(big, n): &(Quad, usize), q: &Quad| whole_frame(big) || (*n == 1 && holds_small(big, q));
    quads.retain(|q| cards.iter().any(|(c, _)| c == q) && !cards.iter().any(|big| holds(&big.0, q) && !keeps(big, q)));
}

/// Whether an outline is nearly square (`SQUARE`).
fn nearly_square(q: &Quad) -> bool {
    let (short, long) = side_lengths(q);
    long < SQUARE * short
}

/// An outline's area (the product of its mean side lengths).
fn quad_area(q: &Quad) -> f32 {
    let (s, l) = side_lengths(q);
    s * l
}

/// Whether `small`'s centre lies inside `big`, which is clearly the larger.
fn holds(big: &Quad, small: &Quad) -> bool {
    quad_area(big) > 1.3 * quad_area(small) && inside(big, quad_centre(small))
}

/// Whether `big` holds `small` and `small` is under 0.3 of its area: a card on what it lies on,
/// rather than a part of a card (a court card's picture frame is over half the card).
fn holds_small(big: &Quad, small: &Quad) -> bool {
    holds(big, small) && quad_area(small) < 0.3 * quad_area(big)
}

/// Settles each outline that holds a single card-sized one (kept together by `drop_nested`) by
/// what was read: the holder read, the one it holds is a part of it and goes; the holder unread
/// and the one it holds read, the holder is what the card lies on (a mat, a board) and goes;
/// neither read, the one held goes, as a part (a back on a mat is then counted by the mat's
/// outline). Whole-frame outlines are settled apart (see
/// `CardDetector::detect`). The outlines that went come back, for the list of backs.
fn settle_holders(out: &mut Vec<CardDetection>, size: [f32; 2]) -> Vec<Quad> {
    let quads: Vec<Option<Quad>> = out.iter().map(|d| d.quad.filter(|q| !spans_frame(q, size))).collect();
    let mut gone = vec![false; out.len()];
    for (h, holder) in quads.iter().enumerate() {
        let Some(holder) = holder else { continue };
        let held: Vec<usize> =
            (0..quads.len()).filter(|&i| quads[i].is_some_and(|q| i != h && holds_small(holder, &q))).collect();
        let [i] = held[..] else { continue };
        if out[h].card.is_none() && out[i].card.is_some() {
            gone[h] = true;
        } else {
            gone[i] = true;
        }
    }
    let went = out.iter().zip(&gone).filter(|(_, g)| **g).filter_map(|(d, _)| d.quad).collect();
    let mut stays = gone.iter().map(|g| !g);
    out.retain(|_| stays.next().unwrap_or(true));
    went
}

/// Whether an outline takes in most of the frame of `size` (width, height), as the table does
/// when a level or the light cuts it off short of the frame's edges, and a card photographed
/// close up.
pub(crate) fn spans_frame(q: &[[f32; 2]; 4], size: [f32; 2]) -> bool {
    let (short, long) = side_lengths(q);
    short * long > 0.75 * size[0] * size[1]
}

/// Whether one of an outline's sides runs along an edge of the frame of `size` (width, height):
/// the outline is then where the frame cuts something off, not necessarily its own outline.
fn cut_by_frame(q: &[[f32; 2]; 4], size: [f32; 2]) -> bool {
    let margin = 2.0 + 0.01 * size[0].max(size[1]);
    let near =
        |p: [f32; 2]| [p[0] < margin, p[1] < margin, p[0] > size[0] - 1.0 - margin, p[1] > size[1] - 1.0 - margin];
    (0..4).any(|i| {
        let (a, b) = (near(q[i]), near(q[(i + 1) % 4]));
        (0..4).any(|edge| a[edge] && b[edge])
    })
}

/// Whether a point lies inside a convex quad (the renderer's plane geometry does the test).
pub(crate) fn inside(q: &[[f32; 2]; 4], p: [f32; 2]) -> bool {
    let pt = |c: [f32; 2]| Pt::new(f64::from(c[0]), f64::from(c[1]));
    quad_contains(&q.map(pt), pt(p))
}

pub(crate) fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

fn side_lengths(q: &[[f32; 2]; 4]) -> (f32, f32) {
    let a = (dist(q[0], q[1]) + dist(q[2], q[3])) / 2.0;
    let b = (dist(q[1], q[2]) + dist(q[3], q[0])) / 2.0;
    (a.min(b), a.max(b))
}

/// Orders four corners clockwise (image y down) starting so that the first side is a short side
/// (the card stands upright in its own frame), from the corner nearer the image's top-left.
pub fn order_quad(mut q: [[f32; 2]; 4]) -> [[f32; 2]; 4] {
    let cx = q.iter().map(|p| p[0]).sum::<f32>() / 4.0;
    let cy = q.iter().map(|p| p[1]).sum::<f32>() / 4.0;
    q.sort_by(|a, b| {
        let ta = (a[1] - cy).atan2(a[0] - cx);
        let tb = (b[1] - cy).atan2(b[0] - cx);
        ta.total_cmp(&tb)
    });
    let start_options = if dist(q[0], q[1]) <= dist(q[1], q[2]) { [0, 2] } else { [1, 3] };
    let start =
        *start_options.iter().min_by(|&&a, &&b| (q[a][0] + q[a][1]).total_cmp(&(q[b][0] + q[b][1]))).unwrap_or(&0);
    [q[start], q[(start + 1) % 4], q[(start + 2) % 4], q[(start + 3) % 4]]
}

/// Warps the card inside `quad` to `CARD_W x CARD_H`.
pub fn rectify(frame: &Mat, quad: &[[f32; 2]; 4]) -> opencv::Result<Mat> {
    rectify_sized(frame, quad, CARD_W, CARD_H)
}

/// The axis-aligned box around a window, `[x, y, w, h]` in image pixels.
fn window_box(window: &patch::Window) -> [i32; 4] {
    let x0 = window.iter().map(|p| p[0]).fold(f32::MAX, f32::min);
    let y0 = window.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
    let x1 = window.iter().map(|p| p[0]).fold(f32::MIN, f32::max);
    let y1 = window.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    [x0 as i32, y0 as i32, (x1 - x0).ceil() as i32, (y1 - y0).ceil() as i32]
}

/// Maps a rectangle of the rectified card (in the given corner's upright frame) back to an
/// axis-aligned box in the image, through the bilinear interpolation of the quad.
fn box_in_image(quad: &[[f32; 2]; 4], rect: &core::Rect, corner: Corner) -> [i32; 4] {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::face::BackStyle;
    use crate::render::scene::CARD_MM;
    use crate::render::table::{Lighting, TableKind, on_a_board};
    use crate::render::{PlacedCard, Renderer, Scene};

    /// Reads a rendered table of cards lying the same way, each `step` card lengths further on
    /// than the one below it.
    fn read_end_to_end(cards: &[&str], step: f64) -> Vec<String> {
        // Laid as the renderer lays a cascade: along the cards' length.
        let angle: f64 = 0.3;
        let placed = cards.iter().enumerate().map(|(i, card)| {
            let k = step * CARD_MM.1 * i as f64;
            PlacedCard {
                card: card.parse().unwrap(),
                face_up: true,
                centre: Pt::new(-k * angle.sin(), k * angle.cos()),
                angle,
            }
        });
        let scene = Scene { table_seed: 4, ..Scene::plain(placed.collect(), 700.0, 0.1) };
        let frame = Renderer::new().render(&scene).unwrap().image;
        let found = CardDetector::new().unwrap().detect(&frame).unwrap();
        let mut read: Vec<String> = found.iter().filter_map(|d| d.card).map(|c| c.to_string()).collect();
        read.sort();
        read
    }

    #[test]
    fn backs_are_sure_by_their_paper_and_faces_are_not() {
        use crate::render::face::{bgr, draw_back, draw_face};
        use crate::render::random::{random_back_style, random_face_style, vary_face_style};
        use rand::SeedableRng;
        // At the quarter size the detector judges paper at, as the frame's pixels would give it.
        let quarter = |card: Mat| {
            let mut out = Mat::default();
            let size = core::Size::new(CARD_W / 4, CARD_H / 4);
            imgproc::resize(&card, &mut out, size, 0.0, 0.0, imgproc::INTER_AREA).unwrap();
            out
        };
        let sure = |card: &Mat| {
            let mask = paper_mask(card).unwrap();
            sure_back(&mask, share_set(&mask).unwrap()).unwrap()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        // Faces of many decks, picture courts among them: never a sure back.
        for _ in 0..30 {
            let mut style = random_face_style(&mut rng, &[]);
            vary_face_style(&mut style, &mut rng);
            for code in ["JS", "QH", "KD", "AS", "5H", "10C"] {
                let face = quarter(draw_face(code.parse().unwrap(), &style, 300).unwrap());
                assert!(!sure(&face), "{code} of {style:?}");
            }
        }
        // Backs of many designs: always.
        for _ in 0..50 {
            let style = random_back_style(&mut rng);
            assert!(sure(&quarter(draw_back(&style, 300).unwrap())), "{style:?}");
        }
        // White lines on a dark field: plenty of paper, but all of it in thin lines.
        let white = BackStyle { field: bgr(30, 40, 120), lattice: bgr(250, 250, 250), ..BackStyle::default() };
        let lined = quarter(draw_back(&white, 400).unwrap());
        assert!(share_set(&paper_mask(&lined).unwrap()).unwrap() >= back::FACE_PAPER, "white lines are paper");
        assert!(sure(&lined), "a white lattice");
    }

    #[test]
    fn card_backs_of_many_designs_are_not_read_as_cards() {
        use crate::render::random::random_back_style;
        use rand::{Rng, SeedableRng};
        // Six face-down cards laid apart, each table with its own back design: a pale lattice's
        // crossings on a dark field can pass the glyph templates for a faint 5.
        let detector = CardDetector::new().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let pale = |rng: &mut rand_chacha::ChaCha8Rng| {
            crate::render::face::bgr(rng.random_range(170..255), rng.random_range(170..255), rng.random_range(170..255))
        };
        let mut read = Vec::new();
        for (i, table) in TableKind::ALL.into_iter().enumerate() {
            let cards = (0..6).map(|k| PlacedCard {
                card: Card::deck()[k],
                face_up: false,
                centre: Pt::new(-190.0 + 76.0 * k as f64, if k % 2 == 0 { -40.0 } else { 45.0 }),
                angle: 0.4 * k as f64 + 0.1 * i as f64,
            });
            let scene = Scene {
                table,
                table_seed: i as u64,
                back_style: BackStyle { lattice: pale(&mut rng), ..random_back_style(&mut rng) },
                noise_seed: i as u64,
                ..Scene::plain(cards.collect(), 560.0, 0.2)
            };
            let frame = Renderer::new().render(&scene).unwrap().image;
            let found = detector.detect(&frame).unwrap();
            read.extend(found.iter().filter_map(|d| d.card).map(|c| format!("table {i}: {c}")));
        }
        assert!(read.is_empty(), "backs read as cards: {read:?}");
    }

    #[test]
    fn a_loose_index_read_again_is_read_as_another_card_or_none() {
        let card: Card = "3D".parse().unwrap();
        let cards = vec![PlacedCard { card, face_up: true, centre: Pt::new(0.0, 0.0), angle: 0.2 }];
        let scene = Scene { table_seed: 2, ..Scene::plain(cards, 500.0, 0.1) };
        let rendered = Renderer::new().render(&scene).unwrap();
        // The loose network's window on the top-left index, as the loose search places it.
        let [rank, pip] = rendered.truth[0].index_marks[0].map(|p| [p.x as f32, p.y as f32]);
        let unit = dist(rank, pip);
        let window = patch::index_window(rank, [(pip[0] - rank[0]) / unit, (pip[1] - rank[1]) / unit], unit);
        let detector = CardDetector::new().unwrap();
        let loose = CardDetection { card: None, face: Face::Up, confidence: 0.9, quad: None, index_boxes: Vec::new() };
        let again =
            |ruled_out: &[Card]| detector.read_again(&rendered.image, &loose, Some(&window), ruled_out).unwrap();
        assert_eq!(again(&[]).map(|(c, _)| c), Some(card));
        // Once the three of diamonds is known to lie elsewhere, it is not read here again.
        assert!(again(&[card]).is_none_or(|(c, p)| c != card && p >= 0.6), "{:?}", again(&[card]));
    }

    #[test]
    fn a_card_seen_steeply_along_its_length_looks_square_and_is_still_an_outline() {
        // Upright cards at the far side of a view 45 degrees from overhead: each looks about as
        // tall as it is wide.
        let cards = [("7D", true), ("KS", false)].map(|(card, face_up)| PlacedCard {
            card: card.parse().unwrap(),
            face_up,
            centre: Pt::new(if face_up { -90.0 } else { 90.0 }, -105.0),
            angle: 0.0,
        });
        let scene = Scene::plain(cards.to_vec(), 420.0, 0.45);
        let rendered = Renderer::new().render(&scene).unwrap();
        for truth in &rendered.truth {
            let (short, long) = side_lengths(&truth.quad.map(|p| [p.x as f32, p.y as f32]));
            assert!(long < SQUARE * short, "{} is {short} x {long} px", truth.card);
        }
        let found = CardDetector::new().unwrap().detect(&rendered.image).unwrap();
        let seven = found.iter().find(|d| d.card == Some("7D".parse().unwrap()));
        assert!(seven.is_some_and(|d| d.quad.is_some()), "7D not read from an outline: {found:?}");
        assert_eq!(found.iter().filter(|d| d.face == Face::Down && d.quad.is_some()).count(), 1, "{found:?}");
    }

    #[test]
    fn a_card_under_a_hand_is_named_by_its_index_larger_than_the_part_in_sight() {
        // A hand reaching down over the card leaves its top-left corner in sight: that part is
        // outlined alone, shorter across than a card, so its index is large for the outline.
        use crate::render::scene::Hand;
        let card = PlacedCard { card: "AD".parse().unwrap(), face_up: true, centre: Pt::new(0.0, 0.0), angle: 0.0 };
        let mut scene = Scene::plain(vec![card], 420.0, 0.0);
        scene.hand =
            Some(Hand { palm: Pt::new(34.0, -15.0), angle: std::f64::consts::FRAC_PI_2, skin: [200, 150, 120] });
        let rendered = Renderer::new().render(&scene).unwrap();
        assert!(rendered.truth[0].visible < 0.25 && rendered.truth[0].index_visible[0]);
        let found = CardDetector::new().unwrap().detect(&rendered.image).unwrap();
        let [d] = &found[..] else { panic!("one card expected: {found:?}") };
        let quad = d.quad.expect("the part in sight is outlined");
        let card_width = (CARD_MM.0 * 1280.0 / 420.0) as f32;
        assert!(side_lengths(&quad).0 < 0.5 * card_width, "{d:?}");
        assert_eq!(d.card, Some("AD".parse().unwrap()), "{found:?}");
    }

    #[test]
    fn a_second_choice_needs_the_network_s_own_support() {
        // Ranks A..K and none; suits C D H S and none.
        let reading = |rank: usize, suits: [f32; 5]| {
            let mut ranks = [0.0; 14];
            ranks[rank - 1] = 1.0;
            NetReading { ranks, suits, embedding: Vec::new() }
        };
        let card = |c: &str| c.parse::<Card>().unwrap();
        let memory = Memory::default();
        // A three surely of clubs: with the three of clubs elsewhere, the spades' 0.04 (0.8 of what is
        // left) is no reading.
        let sure = reading(3, [0.95, 0.005, 0.005, 0.04, 0.0]);
        assert_eq!(second_choice(&sure, &memory, &[card("3C")], 0.6), None);
        // Torn between clubs and spades: the spades stand once the clubs lie elsewhere.
        let torn = reading(3, [0.6, 0.0, 0.0, 0.4, 0.0]);
        assert_eq!(second_choice(&torn, &memory, &[card("3C")], 0.6).map(|(c, _)| c), Some(card("3S")));
    }

    #[test]
    fn two_cards_overlapping_end_to_end_are_read_as_two() {
        // One long outline: read as one card, the first card's index gave a queen.
        assert_eq!(read_end_to_end(&["6H", "9D"], 0.45), ["6H", "9D"]);
    }

    #[test]
    fn a_cascade_is_read_at_both_ends_and_its_strips_still_searched() {
        // The ends come from the long outline; the strips between are left to the loose index
        // search. (With the cards a quarter of their length apart, the 4S's end reads at 0.53,
        // under an outline's bar, and is left unread.)
        let read = read_end_to_end(&["4S", "8C", "KD", "7H"], 0.3);
        for card in ["4S", "7H", "8C", "KD"] {
            assert!(read.iter().any(|r| r == card), "{card} not read: {read:?}");
        }
    }

    #[test]
    fn an_outline_with_a_side_along_the_frame_edge_is_cut_by_it() {
        let size = [800.0, 600.0];
        // A fan running off the bottom edge, its cut side a few pixels short of it.
        assert!(cut_by_frame(&[[260.0, 598.0], [237.0, 400.0], [427.0, 337.0], [567.0, 597.0]], size));
        assert!(cut_by_frame(&[[0.5, 100.0], [120.0, 90.0], [130.0, 260.0], [1.0, 270.0]], size));
        // A card whose one corner touches the edge is whole.
        assert!(!cut_by_frame(&[[0.0, 100.0], [120.0, 60.0], [180.0, 230.0], [50.0, 280.0]], size));
        assert!(!cut_by_frame(&[[300.0, 200.0], [420.0, 200.0], [420.0, 370.0], [300.0, 370.0]], size));
    }

    #[test]
    fn quads_start_on_a_short_side_and_run_clockwise() {
        // A landscape card: the short sides are the vertical ones.
        let q = order_quad([[300.0, 10.0], [10.0, 10.0], [10.0, 200.0], [300.0, 200.0]]);
        assert!(dist(q[0], q[1]) < dist(q[1], q[2]));
        // Clockwise in image coordinates: positive shoelace sum with y down.
        let area: f32 = (0..4).map(|i| q[i][0] * q[(i + 1) % 4][1] - q[(i + 1) % 4][0] * q[i][1]).sum();
        assert!(area > 0.0);
    }

    #[test]
    fn a_card_in_the_far_corner_of_a_frame_of_odd_size_is_found_where_it_lies() {
        // 1925 x 1085 is searched at a third of its size with two columns and rows to spare:
        // the outline found there and refined must land on the card, at the far side too. The
        // levels are found on a blurred, resampled image, and the sides found again on the full
        // frame (`edge_fit`), with the corners put where a real card's rounded ones lie: 5 px
        // inside these drawn sharp ones, towards the card's centre.
        let mut frame =
            Mat::new_rows_cols_with_default(1085, 1925, core::CV_8UC3, core::Scalar::new(40.0, 70.0, 50.0, 0.0))
                .unwrap();
        let card = [[1600.0f32, 700.0], [1850.0, 700.0], [1850.0, 1050.0], [1600.0, 1050.0]];
        let points =
            core::Vector::<core::Point>::from_iter(card.iter().map(|p| core::Point::new(p[0] as i32, p[1] as i32)));
        imgproc::fill_convex_poly(&mut frame, &points, core::Scalar::all(235.0), imgproc::LINE_8, 0).unwrap();
        let quads = find_card_quads(&frame, 0.004).unwrap();
        assert_eq!(quads.len(), 1, "{quads:?}");
        let centre = [1725.0, 875.0];
        for corner in card {
            let inset = edge_fit::ARC_INSET * 250.0 / dist(corner, centre);
            let rounded = [corner[0] + (centre[0] - corner[0]) * inset, corner[1] + (centre[1] - corner[1]) * inset];
            let nearest = quads[0].iter().map(|p| dist(*p, rounded)).fold(f32::MAX, f32::min);
            assert!(nearest < 1.5, "corner {rounded:?} found {nearest} px away: {:?}", quads[0]);
        }
    }

    /// A white card on a pale speckled "carpet" whose bright specks touch the card's edges.
    fn card_on_carpet() -> (Mat, [[f32; 2]; 4]) {
        let mut frame =
            Mat::new_rows_cols_with_default(480, 640, core::CV_8UC3, core::Scalar::new(95.0, 130.0, 150.0, 0.0))
                .unwrap();
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 8) % 10_000
        };
        for _ in 0..2500 {
            let (x, y, r) = (next() as i32 % 640, next() as i32 % 480, 2 + next() as i32 % 4);
            let v = 150.0 + (next() % 60) as f64;
            imgproc::circle(
                &mut frame,
                core::Point::new(x, y),
                r,
                core::Scalar::new(v - 30.0, v, v + 15.0, 0.0),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        let quad = [[250.0f32, 120.0], [400.0, 140.0], [375.0, 350.0], [225.0, 330.0]];
        let pts =
            core::Vector::<core::Point>::from_iter(quad.iter().map(|p| core::Point::new(p[0] as i32, p[1] as i32)));
        imgproc::fill_convex_poly(&mut frame, &pts, core::Scalar::all(235.0), imgproc::LINE_AA, 0).unwrap();
        (frame, quad)
    }

    #[test]
    fn a_card_on_a_speckled_pale_table_gets_its_own_corners() {
        let (frame, truth) = card_on_carpet();
        let quads = find_card_quads(&frame, 0.004).unwrap();
        // Each true corner's nearest found corner: a speck stuck on a corner can still pull it
        // by a few percent of the card (the reader's corner window allows that), never more.
        let errors = |q: &[[f32; 2]; 4]| truth.map(|t| q.iter().map(|p| dist(*p, t)).fold(f32::MAX, f32::min));
        let good = |q: &&[[f32; 2]; 4]| {
            let e = errors(q);
            e.iter().sum::<f32>() / 4.0 < 6.0 && e.iter().all(|&x| x < 16.0)
        };
        assert!(quads.iter().any(|q| good(&q)), "{quads:?}");
    }

    #[test]
    fn face_down_cards_on_a_pale_unevenly_lit_table_are_found_by_their_edges() {
        // White-bordered backs on a table nearly as pale as the border, lit ±30 % across: no
        // level parts border from table everywhere, so the outlines come from edges.
        let placed = [(-150.0, -40.0, 0.3), (0.0, 50.0, -0.5), (150.0, -30.0, 1.2)];
        let cards = placed
            .iter()
            .zip(["2C", "7H", "KS"])
            .map(|(&(x, y, angle), card)| PlacedCard {
                card: card.parse().unwrap(),
                face_up: false,
                centre: Pt::new(x, y),
                angle,
            })
            .collect();
        let scene = Scene {
            table: TableKind::Light,
            lighting: Lighting { gradient: 0.3, ..Lighting::default() },
            ..Scene::plain(cards, 560.0, 0.2)
        };
        let frame = Renderer::new().render(&scene).unwrap().image;
        let found = CardDetector::new().unwrap().detect(&frame).unwrap();
        let down = found.iter().filter(|d| d.face == Face::Down).count();
        assert_eq!(down, 3, "{found:?}");
    }

    /// What the detector makes of `cards` (face up or down) lying alone on `table`, lit ±30 %
    /// across: the face-up cards read (unread ones as "?") and the number face down.
    fn alone_on(table: TableKind, cards: &[(&str, bool)], view_width: f64) -> (Vec<String>, usize) {
        let placed = cards
            .iter()
            .enumerate()
            .map(|(i, &(card, face_up))| PlacedCard {
                card: card.parse().unwrap(),
                face_up,
                centre: Pt::new(-60.0 + 120.0 * i as f64, 0.0),
                angle: 0.6 + 0.5 * i as f64,
            })
            .collect();
        let scene = Scene {
            table,
            table_seed: 3,
            lighting: Lighting { gradient: 0.3, ..Lighting::default() },
            ..Scene::plain(placed, view_width, 0.2)
        };
        let frame = Renderer::new().render(&scene).unwrap().image;
        up_and_down(&frame)
    }

    /// What the detector finds in `frame`: the face-up cards read, sorted (unread ones as "?"),
    /// and the number face down.
    fn up_and_down(frame: &Mat) -> (Vec<String>, usize) {
        let found = CardDetector::new().unwrap().detect(frame).unwrap();
        let mut up: Vec<String> = found
            .iter()
            .filter(|d| d.face == Face::Up)
            .map(|d| d.card.map_or("?".to_string(), |c| c.to_string()))
            .collect();
        up.sort();
        (up, found.iter().filter(|d| d.face == Face::Down).count())
    }

    #[test]
    fn a_card_alone_on_a_pale_table_is_not_taken_for_part_of_the_table() {
        // The whole pale table passes a level as one outline round the card (and its shading
        // makes card-sized contours): the card was dropped as part of it, the table reported.
        assert_eq!(alone_on(TableKind::Light, &[("AS", true)], 400.0), (vec!["AS".to_string()], 0));
        assert_eq!(alone_on(TableKind::Light, &[("7H", false)], 700.0), (vec![], 1));
        assert_eq!(alone_on(TableKind::Light, &[("7H", false), ("KD", false)], 400.0), (vec![], 2));
        assert_eq!(alone_on(TableKind::Light, &[], 400.0), (vec![], 0));
    }

    #[test]
    fn the_light_and_shade_of_felt_is_not_taken_for_cards() {
        // Contours through the felt's shading, with no edge along them, were counted as backs
        // and swallowed the one real back.
        assert_eq!(alone_on(TableKind::GreenFelt, &[("10C", false)], 400.0), (vec![], 1));
        assert_eq!(alone_on(TableKind::GreenFelt, &[("10C", false)], 700.0), (vec![], 1));
        assert_eq!(alone_on(TableKind::Wood, &[("KD", true)], 700.0), (vec!["KD".to_string()], 0));
    }

    /// What the detector makes of one card lying on a mat: the card rendered alone on `table`,
    /// and everything outside a rectangle of 520 x 400 pixels round it darkened to a third, so
    /// that the rectangle is a mat or board with real edges on a dark table.
    fn on_a_mat(table: TableKind, card: &str, face_up: bool) -> (Vec<String>, usize) {
        let placed = vec![PlacedCard { card: card.parse().unwrap(), face_up, centre: Pt::new(20.0, 10.0), angle: 0.4 }];
        let scene = Scene { table, table_seed: 5, ..Scene::plain(placed, 700.0, 0.2) };
        let frame = Renderer::new().render(&scene).unwrap().image;
        up_and_down(&on_a_board(&frame, core::Rect::new(400, 150, 520, 400)).unwrap())
    }

    #[test]
    fn a_card_alone_on_a_mat_is_read_and_the_mat_is_not_a_card() {
        // The mat's outline held the card's, and an outline holding one smaller outline took it
        // for a part of itself: the card went, and the mat was reported as an unknown card.
        for table in [TableKind::Light, TableKind::Wood, TableKind::GreenFelt] {
            assert_eq!(on_a_mat(table, "QH", true), (vec!["QH".to_string()], 0), "{table:?}");
            assert_eq!(on_a_mat(table, "4C", true), (vec!["4C".to_string()], 0), "{table:?}");
        }
        // A back on a mat is still one card face down (told by the mat's outline: neither is
        // read). On the pale mat no outline of the back is found at all: the edge search looks
        // at outer contours only, and the mat's edge holds the back's.
        for table in [TableKind::Wood, TableKind::GreenFelt] {
            assert_eq!(on_a_mat(table, "4C", false), (vec![], 1), "{table:?}");
        }
    }

    /// A face-up card read as `card`, with no outline.
    fn read_as(card: &str, confidence: f32) -> CardDetection {
        CardDetection {
            card: Some(card.parse().unwrap()),
            face: Face::Up,
            confidence,
            quad: None,
            index_boxes: Vec::new(),
        }
    }

    fn cards_of(found: &[CardDetection]) -> Vec<Option<String>> {
        found.iter().map(|d| d.card.map(|c| c.to_string())).collect()
    }

    #[test]
    fn the_loose_search_leaves_out_cards_read_at_both_corners_and_sure_backs() {
        let at = |x: f32| [[x, 0.0], [x + 50.0, 0.0], [x + 50.0, 80.0], [x, 80.0]];
        let outline = |card: Option<&str>, x: f32, boxes: usize| CardDetection {
            card: card.map(|c| c.parse().unwrap()),
            face: if card.is_some() { Face::Up } else { Face::Down },
            confidence: 0.9,
            quad: Some(at(x)),
            index_boxes: vec![[0, 0, 5, 5]; boxes],
        };
        let found = [
            outline(Some("5D"), 0.0, 2),   // both corners: left out
            outline(Some("QS"), 100.0, 1), // one corner: maybe two cards, searched
            outline(None, 200.0, 0),       // taken for a back, but not surely: searched
            outline(None, 300.0, 0),       // surely a back: left out
            read_as("7H", 0.9),            // a loose index: no outline
        ];
        assert_eq!(unsearched(&found, &[at(300.0)]), [at(0.0), at(300.0)]);
    }

    #[test]
    fn a_card_read_twice_keeps_only_its_surer_reading() {
        let det = read_as;
        let mut found = vec![det("5D", 0.7), det("QS", 0.9), det("5D", 0.8)];
        one_of_each(&mut found, |_, _| Ok(None)).unwrap();
        let cards = cards_of(&found);
        assert_eq!(cards, [None, Some("QS".into()), Some("5D".into())]);
    }

    #[test]
    fn a_card_read_twice_is_read_again_without_the_cards_placed() {
        let det = read_as;
        // Two queens both read as the queen of clubs: the surer stays, the other is read again
        // with every card placed so far ruled out.
        let mut found = vec![det("QC", 0.7), det("QC", 0.9), det("5D", 0.95)];
        let mut asked: Vec<Vec<String>> = Vec::new();
        one_of_each(&mut found, |_, placed| {
            asked.push(placed.iter().map(|c| c.to_string()).collect());
            Ok(Some(("QS".parse().unwrap(), 0.6)))
        })
        .unwrap();
        let cards = cards_of(&found);
        assert_eq!(cards, [Some("QS".into()), Some("QC".into()), Some("5D".into())]);
        assert_eq!(asked, [["5D", "QC"]]);
        assert_eq!(found[0].confidence, 0.6);
    }

    #[test]
    fn corners_must_agree() {
        let a = IndexReading { card: "QS".parse().unwrap(), confidence: 0.9 };
        let b = IndexReading { card: "QH".parse().unwrap(), confidence: 0.85 };
        assert_eq!(combine(&[a, b], 0.4).0, None);
        assert_eq!(combine(&[a, a], 0.4).0, Some(a.card));
        let weak = IndexReading { confidence: 0.3, ..a };
        assert_eq!(combine(&[weak], 0.4).0, None);
    }
}
