//! The fourth stage: indices found without their card's outline (fans, cascades, a card half
//! hidden), searched outside the outlines already read and read as cards of their own.

use opencv::{core, prelude::*};

use super::corners::combine;
use crate::cards::Card;
use crate::vision::cards::decks::enrolled::Memory;
use crate::vision::cards::detector::{CardDetector, Reader};
use crate::vision::cards::picture::quad::*;
use crate::vision::cards::readers::classify::dot;
use crate::vision::cards::readers::index::{IndexHit, LooseMarks, NetworkRead};
use crate::vision::cards::readers::index_net::NetReading;
use crate::vision::cards::readers::patch;
use crate::vision::cards::types::*;

/// The smallest rank height, as a share of an unread outline's short side, at which a loose
/// index inside the outline names it (a card's own rank is about 0.15 of its width). Below it
/// the outline holds more than a card and the index is read as a loose one (`add_loose_indices`).
pub(in crate::vision::cards) const MIN_INDEX_SCALE: f32 = 0.06;

/// How likely the loose network must find a card by itself, before the cards known to lie
/// elsewhere are set aside, for a loose index read again (`CardDetector::read_again`) to be
/// read as that card. Setting aside a card the network was sure of scales up what is left, and
/// a rank read surely then stands in whatever suit had the rest. On 3,000 fresh rendered tables
/// (seeds 60e6) this bar took 2 false readings and no right one: a three and a queen of clubs
/// in full sight, read again once a club of that rank was placed elsewhere, had become spades
/// at 0.70 and 0.73. The real photos, as taken and under 14 alterations, read the same. At 0.35
/// a third false reading went, and 3 right ones on the altered photos (with no second reading
/// at all: the same, and 7 right ones).
pub(in crate::vision::cards) const READ_AGAIN_OWN: f32 = 0.2;

/// How far apart, in index sizes (`IndexHit::size`, the larger of the two), the two indices of
/// one card lie at most. They lie about nine tenths of the card's length apart, and the size is
/// about a tenth of that length (a Bicycle deck on the blackjack webcam: 118 px apart, sizes 12
/// and 13, 130 px cards). Two black queens lying head to head on an edje photo lie 11.4 sizes
/// apart: two cards, not one.
const RIVAL_REACH: f32 = 10.5;

/// The rank height (pixels) under which a loose index belongs to a card under about 130 px long,
/// a webcam's size: the blackjack webcam's Bicycle cards, 130 px long, have ranks 12 and 13 px
/// tall (`IndexHit::size`).
const SMALL_INDEX: f32 = 13.0;

/// How surely a loose index must be read where nothing else speaks for its reading: inside a
/// card taken for face down (`add_loose_indices`), or small and black with no outline round it
/// (`names_alone`).
pub(in crate::vision::cards) const SURE_LOOSE: f32 = 0.8;

/// Whether a loose index, found with no outline round it, names its card by itself: a small one
/// of a black suit only when read surely (`SURE_LOOSE`). At webcam sizes a spade's index
/// loses its stem and is read as a club; a card found by its outline has the pips of its centre
/// as a second witness of the suit, a loose index has none. The one false name on the 30 labelled
/// blackjack webcam photos was such an index (a 2S lying across the felt's printed line, its
/// outline lost, read as the 2C at 0.72); with the bar the photos name as many cards and none
/// falsely, and the edje photos at 0.6 of their size lose 2 of 3 false names and 10 of 354 right
/// ones (models/README.md).
fn names_alone(hit: &IndexHit) -> bool {
    hit.card.suit.is_red() || hit.size >= SMALL_INDEX || hit.confidence >= SURE_LOOSE
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
pub(in crate::vision::cards) fn unsearched(found: &[CardDetection], backs: &[Quad]) -> Vec<Quad> {
    found
        .iter()
        .filter(|d| d.card.is_some() && d.index_boxes.len() >= 2)
        .filter_map(|d| d.quad)
        .chain(backs.iter().copied())
        .collect()
}

/// What a loose index read again reads once the cards `ruled_out` are set aside: a card read
/// at `min_confidence` among the rest, that the network found likely enough by itself
/// (`READ_AGAIN_OWN`).
pub(in crate::vision::cards) fn second_choice(
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
pub(in crate::vision::cards) fn twin(hit: &IndexHit, kept: &[IndexHit], out: &[CardDetection]) -> bool {
    let centre = box_centre(&hit.bbox);
    let reach = 16.0 * hit.size;
    kept.iter().any(|k| k.card == hit.card && dist(box_centre(&k.bbox), centre) < reach)
        || out.iter().any(|d| {
            d.card == Some(hit.card)
                && (d.quad.is_some_and(|q| dist(quad_centre(&q), centre) < reach)
                    || d.index_boxes.iter().any(|b| dist([b[0] as f32, b[1] as f32], centre) < reach))
        })
}

/// Whether `a` and `b` are the two corners of one card read as two cards of one rank and one
/// colour: read in opposite directions, each lying ahead of the other along its own "down" and
/// to the side its card lies on (a card's indices face each other across it, one at its
/// top-left, one turned at its bottom-right), within a card's reach. At webcam sizes a spade's
/// small index is read as a club at one corner and as a spade at the other; naming both would
/// put a card on the table that nobody laid, and either one alone may be the wrong one. Two
/// cards of one rank in the two colours lying head to head are a pair (the edje photos hold
/// three such), not one card misread: the colour is not what the small index loses.
pub(in crate::vision::cards) fn rival_corners(a: &IndexHit, b: &IndexHit) -> bool {
    let (ca, cb) = (box_centre(&a.bbox), box_centre(&b.bbox));
    let along = |from: [f32; 2], to: [f32; 2], axis: [f32; 2]| dot(&[to[0] - from[0], to[1] - from[1]], &axis);
    // Seen with its index upright at the top-left, a card lies to the index's right.
    let inward = |down: [f32; 2]| [down[1], -down[0]];
    a.card.rank == b.card.rank
        && a.card.suit != b.card.suit
        && a.card.suit.is_red() == b.card.suit.is_red()
        && dot(&a.down, &b.down) < -0.8
        && along(ca, cb, a.down) > 0.0
        && along(cb, ca, b.down) > 0.0
        && along(ca, cb, inward(a.down)) > 0.0
        && along(cb, ca, inward(b.down)) > 0.0
        && dist(ca, cb) < RIVAL_REACH * a.size.max(b.size)
}

/// Whether the indices `hits` lying inside the unread outline `quad` (seen `face`) are those of
/// two different cards. In a face-up outline the two corners of one card read in the two suits
/// of its colour (`rival_corners`) are one card: on a webcam photo the blackjack felt's ace of
/// spades, whole and alone, read as the ace of clubs at one corner and of spades at the other,
/// and taken for two cards its outline went, the card with it (its corners, rivals, name
/// nothing). An outline taken for face down goes all the same: two indices in it say it is no
/// back (kept, a still poker table's three of spades, called down in one frame, turned down).
fn two_cards_in(quad: &Quad, face: Face, hits: &[IndexHit]) -> bool {
    let within: Vec<&IndexHit> = hits.iter().filter(|h| inside(quad, box_centre(&h.bbox))).collect();
    let one_card = |a: &IndexHit, b: &IndexHit| a.card == b.card || (face == Face::Up && rival_corners(a, b));
    within.iter().any(|a| within.iter().any(|b| !one_card(a, b)))
}

/// Whether `hit`, an index inside the outline `d` read by one corner, is that outline's far
/// corner read as a rival card: the same rank in the other suit of its colour, at least half the
/// outline's length from the corner that named it. At webcam sizes one corner of a small black
/// card reads a spade and the other a club (the edje photos at 0.6 of their size: an ace of
/// spades whose outline read it by one corner, its other corner read as the ace of clubs, named
/// both). A cascade's next card lies a strip on, far nearer, and two cards of one rank and
/// colour lying over each other head to head are rarer than a misread suit.
pub(in crate::vision::cards) fn far_corner_rival(d: &CardDetection, hit: &IndexHit) -> bool {
    let (Some(card), Some(quad), [b]) = (d.card, d.quad, d.index_boxes.as_slice()) else { return false };
    let named_at = box_centre(&core::Rect::new(b[0], b[1], b[2], b[3]));
    card.rank == hit.card.rank
        && card.suit != hit.card.suit
        && card.suit.is_red() == hit.card.suit.is_red()
        && dist(named_at, box_centre(&hit.bbox)) >= 0.5 * side_lengths(&quad).1
}

impl CardDetector {
    /// The index corners readable outside the `read` outlines (see `LooseMarks`). With both
    /// readers, the network reads first and the templates only where it read nothing and is
    /// not sure there is nothing to read.
    pub(in crate::vision::cards) fn loose_indices(&self, frame: &Mat, read: &[Quad]) -> opencv::Result<Vec<IndexHit>> {
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

    /// Adds the index corners found outside any card outline (hidden outlines: fans, cascades).
    /// Two corners of one card (same reading, opposite directions) count once; the cards surely
    /// face down (`backs`) are not searched (see `unsearched`). Returns the loose network's
    /// window on each index added, by its index box.
    pub(in crate::vision::cards) fn add_loose_indices(
        &self,
        frame: &Mat,
        out: &mut Vec<CardDetection>,
        backs: &[Quad],
    ) -> opencv::Result<Vec<([i32; 4], patch::Window)>> {
        let hits = self.loose_indices(frame, &unsearched(out, backs))?;
        // An unread outline holding indices of two different cards is a group of overlapping
        // cards taken for one: it goes, and the indices speak for the cards.
        out.retain(|d| d.card.is_some() || d.quad.is_none_or(|q| !two_cards_in(&q, d.face, &hits)));
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
            // The same card read nearby already: its twin, no card of its own, outside every
            // outline or inside another card's (an outline cut between two cards lying side by
            // side, a little off the card's true edge, leaves its far index in the neighbour's
            // half).
            let read_nearby = twin(&hit, &kept, out);
            // Inside an outline: it reads that card when its own corners could not be read. Inside
            // a card taken for face down it must be sure: a back's pattern makes marks too (and a
            // court card's picture can make a face look like a back).
            if let Some(d) = out.iter_mut().find(|d| d.quad.is_some_and(|q| inside(&q, centre))) {
                // The outline's own far corner read in the other suit of its card's colour: the
                // two corners of one card disagree, and neither stands (as `rival_corners`).
                if far_corner_rival(d, &hit) {
                    d.card = None;
                    d.confidence = 0.0;
                    d.index_boxes.clear();
                    continue;
                }
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
                    if !read_nearby {
                        kept.push(hit);
                    }
                    continue;
                }
                // The index must not be far smaller than the outline's scale (its rank is about a
                // seventh of the card's width): a table taken for a card, or cards and the table
                // between them merged into one outline, hold indices far too small. Such an index
                // is read as a loose one, as on the table. An index larger than a card's is the
                // card's own, the outline being only the part of it in sight (the rest under a
                // hand or another card). Both are read rather than left unread (models/README.md,
                // "Tuning measurements": loose indices in an outline).
                let scale = d.quad.map_or(0.0, |q| hit.size / side_lengths(&q).0);
                let sure = d.face == Face::Up || hit.confidence >= SURE_LOOSE;
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
            if !read_nearby {
                kept.push(hit);
            }
        }
        for hit in on_the_table {
            if !twin(&hit, &kept, out) {
                kept.push(hit);
            }
        }
        // The two corners of one card read as two cards: neither reading stands.
        let rivals: Vec<bool> =
            kept.iter().map(|a| kept.iter().any(|b| !std::ptr::eq(a, b) && rival_corners(a, b))).collect();
        let mut rival = rivals.into_iter();
        kept.retain(|_| !rival.next().unwrap_or(false));
        let mut windows = Vec::new();
        for hit in kept.into_iter().filter(names_alone) {
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

    /// A card outline's reading once the cards `ruled_out` are known to lie elsewhere: both
    /// corners read again by the network must agree on one of the other cards, as surely as a
    /// loose index must be read (a second choice, made once the first proved wrong, needs more
    /// than a first). A loose index (`window`, the loose network's window on it) is read again
    /// by the full loose network alike; it has one corner, so its second choice must be as sure.
    /// With both corner readers, where the network finds no other card the templates read the
    /// outline afresh: if they agree on a card not ruled out, it stands.
    pub(in crate::vision::cards) fn read_again(
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `code` read at (`x`, `y`), 13 px in size, "down" along `down`.
    fn hit(code: &str, x: i32, y: i32, down: [f32; 2]) -> IndexHit {
        let (x0, y0) = (x as f32, y as f32);
        IndexHit {
            card: code.parse().unwrap(),
            confidence: 0.7,
            bbox: core::Rect::new(x, y, 8, 24),
            down,
            size: 13.0,
            window: [[x0, y0], [x0 + 8.0, y0], [x0 + 8.0, y0 + 24.0], [x0, y0 + 24.0]],
        }
    }

    #[test]
    fn the_two_corners_of_one_card_read_in_two_suits_are_rivals() {
        // A 90 x 125 px card upright: its top-left index points down, its bottom-right one up.
        let top = hit("AC", 100, 100, [0.0, 1.0]);
        let bottom = hit("AS", 175, 195, [0.0, -1.0]);
        assert!(rival_corners(&top, &bottom) && rival_corners(&bottom, &top));
        // Read alike they are one card's twins, not rivals; two ranks are two readings apart.
        assert!(!rival_corners(&top, &hit("AC", 175, 195, [0.0, -1.0])));
        assert!(!rival_corners(&top, &hit("4S", 175, 195, [0.0, -1.0])));
        // An ace of diamonds facing the ace of clubs is a pair: the colour is not misread.
        assert!(!rival_corners(&top, &hit("AD", 175, 195, [0.0, -1.0])));
        // Turned a quarter, the card still lies to its index's right.
        let left = hit("AC", 100, 100, [1.0, 0.0]);
        assert!(rival_corners(&left, &hit("AS", 195, 25, [-1.0, 0.0])));
        assert!(!rival_corners(&left, &hit("AS", 195, 175, [-1.0, 0.0])));
    }

    #[test]
    fn an_outline_holding_one_card_s_rival_corners_holds_one_card() {
        let quad: Quad = [[95.0, 95.0], [190.0, 95.0], [190.0, 225.0], [95.0, 225.0]];
        let top = hit("AC", 100, 100, [0.0, 1.0]);
        let bottom = hit("AS", 175, 195, [0.0, -1.0]);
        let up = |hits: &[IndexHit]| two_cards_in(&quad, Face::Up, hits);
        assert!(!up(&[top.clone(), bottom.clone()]));
        // Taken for a back, an outline with two indices in it is no card of its own.
        assert!(two_cards_in(&quad, Face::Down, &[top.clone(), bottom]));
        // Another rank, or a card lying beside rather than at the far corner, is another card.
        assert!(up(&[top.clone(), hit("4S", 175, 195, [0.0, -1.0])]));
        assert!(up(&[top.clone(), hit("AS", 110, 140, [0.0, 1.0])]));
        // Indices outside the outline are not in it.
        assert!(!up(&[top, hit("4S", 400, 400, [0.0, -1.0])]));
    }

    #[test]
    fn an_outline_s_far_corner_read_in_the_other_suit_of_its_colour_is_a_rival() {
        // A 90 x 125 px outline upright, named the ace of spades by its top-left index.
        let outline = CardDetection {
            card: Some("AS".parse().unwrap()),
            face: Face::Up,
            confidence: 0.72,
            quad: Some([[96.0, 96.0], [186.0, 96.0], [186.0, 221.0], [96.0, 221.0]]),
            index_boxes: vec![[100, 100, 8, 24]],
        };
        // Its bottom-right corner read as a club.
        let far = hit("AC", 175, 192, [0.0, -1.0]);
        assert!(far_corner_rival(&outline, &far));
        // A cascade's next card a strip on, the other colour, another rank: another card.
        assert!(!far_corner_rival(&outline, &hit("AC", 100, 125, [0.0, 1.0])));
        assert!(!far_corner_rival(&outline, &hit("AH", 175, 192, [0.0, -1.0])));
        assert!(!far_corner_rival(&outline, &hit("2C", 175, 192, [0.0, -1.0])));
        // An outline read by both corners is settled; one read by none has no suit to dispute.
        let both = CardDetection { index_boxes: vec![[100, 100, 8, 24], [175, 192, 8, 24]], ..outline.clone() };
        assert!(!far_corner_rival(&both, &far));
        let unread = CardDetection { card: None, ..outline };
        assert!(!far_corner_rival(&unread, &far));
    }

    #[test]
    fn a_small_black_loose_index_names_its_card_only_when_read_surely() {
        let sized =
            |code: &str, confidence: f32, size: f32| IndexHit { confidence, size, ..hit(code, 0, 0, [0.0, 1.0]) };
        // A webcam's 130 px card: a club read at 0.72 may be a spade that lost its stem.
        assert!(!names_alone(&sized("2C", 0.72, 12.0)));
        assert!(names_alone(&sized("2C", 0.85, 12.0)));
        // A red index, or a larger card's, at the loose bar.
        assert!(names_alone(&sized("2D", 0.65, 12.0)));
        assert!(names_alone(&sized("2S", 0.65, 22.0)));
    }

    #[test]
    fn two_cards_of_one_rank_side_by_side_are_not_rivals() {
        // A pair in a fan: both indices point the same way.
        let left = hit("7C", 100, 100, [0.0, 1.0]);
        assert!(!rival_corners(&left, &hit("7S", 130, 100, [0.0, 1.0])));
        // Two cards lying head to tail, their indices pointing away from each other.
        assert!(!rival_corners(&left, &hit("7S", 100, 20, [0.0, -1.0])));
        // Facing each other, but further apart than one card.
        assert!(!rival_corners(&left, &hit("7S", 300, 400, [0.0, -1.0])));
    }
}
