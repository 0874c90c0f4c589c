//! The third stage: each card placed once. Two cards overlapping end to end make one long
//! outline, split into its two ends; two such pairs side by side make one square outline, cut
//! where the table shows between them; an outline holding others is settled; a card read twice
//! keeps its surer reading.

use opencv::prelude::*;

use super::corners::{CornerReadings, PIPS_SHOW_SPADE, combine, pips_show_suit_of};
use super::loose::SURE_LOOSE;
use crate::cards::Card;
use crate::vision::cards::detector::CardDetector;
use crate::vision::cards::picture::pixels::rectify_sized;
use crate::vision::cards::picture::quad::*;
use crate::vision::cards::readers::witness;
use crate::vision::cards::types::*;

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
pub(in crate::vision::cards) const UNDER_END_SURE: f32 = 0.9;

/// The inner corners of a long outline's two ends (`split_pair`), each read by the other one.
pub(in crate::vision::cards) const INNER_CORNERS: [Corner; 2] = [Corner::BottomRight, Corner::TopLeft];

/// A deck holds each card once: when one card is read in two places, the less confident reading
/// is a misreading of some other card. Surest first, each card stays where it was read first; a
/// later reading of it is replaced by `read_again` (the detection read with the cards placed so
/// far ruled out), or reported as unknown rather than guessed.
/// (Two corners of one card were merged before this.)
pub(in crate::vision::cards) fn one_of_each(
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

/// Settles each outline that holds a single card-sized one (kept together by `drop_nested`) by
/// what was read: the holder read, the one it holds is a part of it and goes; the holder unread
/// and the one it holds read, the holder is what the card lies on (a mat, a board) and goes;
/// neither read, the one held goes, as a part (a back on a mat is then counted by the mat's
/// outline). Whole-frame outlines are settled apart (see
/// `CardDetector::detect`). The outlines that went come back, for the list of backs.
pub(in crate::vision::cards) fn settle_holders(out: &mut Vec<CardDetection>, size: [f32; 2]) -> Vec<Quad> {
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

impl CardDetector {
    /// Whether the end of a long outline (`split_pair`), read by its outer corner, lies under
    /// the other cards: its `inner` corner reads some other card, or none.
    pub(in crate::vision::cards) fn lies_under(
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
    pub(in crate::vision::cards) fn split_pair(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
    ) -> opencv::Result<Option<[CardDetection; 2]>> {
        Ok(self.ends_read(frame, quad, pre)?.and_then(|ends| self.pair_of(&ends)))
    }

    /// Each end of a long outline (`pair_ends`) as a card of its own, where its outer corner
    /// reads one; `None` for an outline too short to hold two.
    fn ends_read(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
    ) -> opencv::Result<Option<[Option<CardDetection>; 2]>> {
        let Some(ends) = pair_ends(quad) else {
            return Ok(None);
        };
        let mut found = [None, None];
        for (k, (end, corner)) in ends.into_iter().zip([Corner::TopLeft, Corner::BottomRight]).enumerate() {
            if let Some((reading, index_box)) = self.read_corner_at(frame, &end, corner, pre)? {
                found[k] = Some(CardDetection {
                    card: Some(reading.card),
                    face: Face::Up,
                    confidence: reading.confidence,
                    quad: Some(end),
                    index_boxes: vec![index_box],
                });
            }
        }
        Ok(Some(found))
    }

    /// Two ends both read at the bar, two different cards.
    fn pair_of(&self, ends: &[Option<CardDetection>; 2]) -> Option<[CardDetection; 2]> {
        let read: Vec<CardDetection> = ends.iter().flatten().filter(|d| self.sure(d)).cloned().collect();
        two_cards(read)
    }

    /// Whether an end is read at the reader's bar.
    fn sure(&self, end: &CardDetection) -> bool {
        end.confidence >= self.config.min_confidence
    }
}

impl CardDetector {
    /// The two ends of each cascade (cards lying end to end, too long to be one card), each read
    /// by its outer corner; the cards between are left to the loose search.
    pub(in crate::vision::cards) fn cascade_ends(
        &self,
        frame: &Mat,
        cascades: Vec<Quad>,
        pre: &CornerReadings,
    ) -> opencv::Result<Vec<CardDetection>> {
        let mut out = Vec::new();
        for quad in cascades {
            let Some(read) = self.ends_read(frame, &quad, pre)? else { continue };
            let (ends, lone, whole) = match self.pair_of(&read) {
                Some(pair) => (pair.map(Some), false, false),
                None => {
                    let (ends, whole) = self.lone_face_end(frame, read, pre)?;
                    (ends, true, whole)
                }
            };
            // Each end was read by its outer corner; its inner corner lies over the cards between.
            for (end, inner) in ends.into_iter().zip(INNER_CORNERS) {
                let Some(mut end) = end else { continue };
                // A face whose centre shows all its pips lies on top, whatever its inner corner.
                if whole {
                    out.push(end);
                    continue;
                }
                // The end card lying under the others shows only a strip: its card-long quad
                // would hide the strips of the cards between from the index search.
                // An end alone read, whose inner corner does not read it, has one corner read
                // and nothing else speaking for it, as a loose index has (`SURE_LOOSE`).
                let bar = if lone { SURE_LOOSE } else { UNDER_END_SURE };
                if self.lies_under(frame, &end, inner, pre)? {
                    end.quad = None;
                    if end.confidence < bar {
                        continue;
                    }
                }
                out.push(end);
            }
        }
        Ok(out)
    }

    /// The one end of a cascade that reads a card by its outer corner where the other reads
    /// none: a face lying on a pile of backs fanned out from under it (a patience column). Two
    /// ends that both read are `pair_of`'s to judge: the same card at both is one card seen
    /// slanted. A close-up patience video's queen of diamonds, 190 px long, lay on two backs
    /// fanned up and to the side: the cascade's outline ran askew along her, so that her end's
    /// inner corner missed her index, and her outer corner read QD 0.85.
    /// A face end shows whole where its centre counts as many clean pips as its reading's rank
    /// (`true`): a face showing all its pips lies on top of the cards it ends, whatever its inner
    /// corner, which lies over them, reads. An end read below the bar stands where the pips
    /// confirm a reading of its corners (`read_by_pips`). A patience column's eight of diamonds,
    /// 52 px long on two backs fanned out beside it, read 8D 0.74 by its outer corner and showed
    /// its eight pips (its inner corner, over the backs, read nothing).
    fn lone_face_end(
        &self,
        frame: &Mat,
        ends: [Option<CardDetection>; 2],
        pre: &CornerReadings,
    ) -> opencv::Result<([Option<CardDetection>; 2], bool)> {
        let mut out = [None, None];
        let (k, mut end) = match ends {
            [Some(a), None] => (0, a),
            [None, Some(b)] => (1, b),
            _ => return Ok((out, false)),
        };
        let (Some(card), Some(quad)) = (end.card, end.quad) else { return Ok((out, false)) };
        if self.sure(&end) {
            let centre = witness::centre_of(frame, &quad)?;
            let whole =
                !card.rank.is_court() && centre.pips == Some(card.rank.value()) && witness::agrees(card, &centre);
            out[k] = Some(end);
            return Ok((out, whole));
        }
        let Some(reading) = self.read_by_pips(frame, &quad, pre)? else { return Ok((out, false)) };
        end.card = Some(reading.card);
        end.confidence = reading.confidence;
        out[k] = Some(end);
        Ok((out, true))
    }

    /// An outline that is two cards overlapping end to end, as its two ends (an end lying under
    /// the other and read unsure is left to the loose search); `None` for one card.
    pub(in crate::vision::cards) fn pair_ends_read(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
    ) -> opencv::Result<Option<Vec<CardDetection>>> {
        let Some(pair) = self.split_pair(frame, quad, pre)? else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for (end, inner) in pair.into_iter().zip(INNER_CORNERS) {
            if end.confidence < UNDER_END_SURE && self.lies_under(frame, &end, inner, pre)? {
                continue;
            }
            out.push(end);
        }
        Ok(Some(out))
    }
}

impl CardDetector {
    /// An outline of about a card's shape that reads no card may be two cards lying side by
    /// side, long sides touching, where the table between them is too thin to part their
    /// outlines (a row dealt tight, or one card lying a little over the other). When each half
    /// reads a card by its own corners, two different cards, they are two cards if the table
    /// shows along the cut between the halves (`Parted::ByTable`), or, for an outline taken for
    /// a face, if each half's centre confirms its card in full (`Parted::ByPips`,
    /// `witness::confirms`: as many clean pips as its rank, their outline its suit, on a half
    /// large enough to show it, `pips_show_suit_of`): a poker table's two of spades lying over
    /// the edge of a four of hearts left no table between them. A single card is left whole:
    /// its halves' corners lie in its middle, and half its pips are not its rank.
    pub(in crate::vision::cards) fn side_by_side_read(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
        parted: Parted,
    ) -> opencv::Result<Option<[CardDetection; 2]>> {
        let Some(halves) = side_by_side_halves(quad) else {
            return Ok(None);
        };
        let parted_here = match parted {
            Parted::ByTable => {
                let (readings, _) = self.read_outline(frame, quad, pre)?;
                combine(&readings, self.config.min_confidence).0.is_none() && table_along_cut(frame, quad)?
            }
            // The caller read the outline and left it unread. A half's length is the outline's
            // shorter side: pips that small show no suit.
            Parted::ByPips => side_lengths(quad).0 >= PIPS_SHOW_SPADE,
        };
        if !parted_here {
            return Ok(None);
        }
        let mut found = Vec::new();
        for half in halves {
            let (readings, boxes) = self.read_outline(frame, &half, pre)?;
            let (Some(card), confidence) = combine(&readings, self.config.min_confidence) else {
                return Ok(None);
            };
            let index_boxes =
                boxes.into_iter().zip(&readings).filter(|(_, r)| r.card == card).map(|(b, _)| b).collect();
            found.push(CardDetection { card: Some(card), face: Face::Up, confidence, quad: Some(half), index_boxes });
        }
        let Some(pair) = two_cards(found) else {
            return Ok(None);
        };
        if parted == Parted::ByPips {
            for d in &pair {
                let (Some(card), Some(half)) = (d.card, d.quad) else { return Ok(None) };
                if !pips_show_suit_of(card, longer_side(&half))
                    || !witness::confirms(card, &witness::centre_of(frame, &half)?)
                {
                    return Ok(None);
                }
            }
        }
        Ok(Some(pair))
    }
}

impl CardDetector {
    /// An outline of about a square's shape that reads no card may be two pairs lying side by
    /// side, each pair two cards end to end (a row's card with another laid on it in line,
    /// beside a stack): their outlines touch along the pairs' long sides. Where the table shows
    /// along one of the square's middle lines (`halves_parted_by_table`) and each half is a pair
    /// whose ends read two different cards (`pair_ends_read`), the pairs' cards; `None`
    /// otherwise, and the outline is left as it was found.
    pub(in crate::vision::cards) fn pairs_side_by_side(
        &self,
        frame: &Mat,
        quad: &Quad,
        pre: &CornerReadings,
    ) -> opencv::Result<Option<Vec<CardDetection>>> {
        let Some(turns) = square_turns(quad) else {
            return Ok(None);
        };
        let (readings, _) = self.read_outline(frame, quad, pre)?;
        if combine(&readings, self.config.min_confidence).0.is_some() {
            return Ok(None);
        }
        'turns: for turned in turns {
            let Some(halves) = halves_parted_by_table(frame, &turned)? else {
                continue;
            };
            let mut found = Vec::new();
            for half in halves {
                let Some(ends) = self.pair_ends_read(frame, &half, pre)? else {
                    continue 'turns;
                };
                found.extend(ends);
            }
            return Ok(Some(found));
        }
        Ok(None)
    }
}

/// What shows that an outline's two halves are two cards (`CardDetector::side_by_side_read`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::vision::cards) enum Parted {
    /// The table along the cut between them.
    ByTable,
    /// Each half's pips, on an outline taken for one face and left unread (asked only of
    /// such an outline: its corners are not read again).
    ByPips,
}

/// Two detections naming two different cards, as a pair; `None` otherwise (one card read at
/// both ends of its outline, or a reading missing).
fn two_cards(found: Vec<CardDetection>) -> Option<[CardDetection; 2]> {
    <[CardDetection; 2]>::try_from(found).ok().filter(|pair| pair[0].card != pair[1].card)
}

/// Whether the table shows along the cut between an outline's halves (`side_by_side_halves`):
/// a straight line near the middle of its length, much darker than the paper beside it across
/// nearly all of the outline's width (two cards' edges; pips and a picture's lines are not
/// that long).
fn table_along_cut(frame: &Mat, quad: &Quad) -> opencv::Result<bool> {
    Ok(table_line(frame, &short_side_first(quad))?.is_some())
}

/// The table seen along the line joining the middles of an outline's second and fourth sides
/// (`[a, b, c, d]`: `b c` and `d a`), as `table_along_cut` looks for it, and the two
/// halves of the outline on either side of it, each ending where its paper ends; `None` where
/// no table shows there.
fn halves_parted_by_table(frame: &Mat, quad: &Quad) -> opencv::Result<Option<[Quad; 2]>> {
    let Some(line) = table_line(frame, quad)? else {
        return Ok(None);
    };
    let [a, b, c, d] = *quad;
    // A point of the outline at `u` across its first side and `v` along its second.
    let towards = |p: [f32; 2], q: [f32; 2], t: f32| [p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t];
    let at = |u: f32, v: f32| towards(towards(a, b, u), towards(d, c, u), v);
    let [(upper_0, upper_1), (lower_0, lower_1)] = [line.upper, line.lower];
    Ok(Some([
        order_quad([a, b, at(1.0, upper_1), at(0.0, upper_0)]),
        order_quad([at(0.0, lower_0), at(1.0, lower_1), c, d]),
    ]))
}

/// Where the table shows across an outline (`table_line`): the edge of the first half's paper
/// and that of the second's, each as its fraction of the outline's length at the first side's
/// two ends.
struct TableLine {
    upper: (f32, f32),
    lower: (f32, f32),
}

/// The table across an outline, near the middle of its length (`table_along_cut`), measured
/// with the outline's first side as its width.
fn table_line(frame: &Mat, quad: &Quad) -> opencv::Result<Option<TableLine>> {
    let [a, b, c, _] = *quad;
    let (w, h) = (dist(a, b).round() as i32, dist(b, c).round() as i32);
    if w < 20 || h < 20 {
        return Ok(None);
    }
    let card = rectify_sized(frame, quad, w, h)?;
    let mut gray = Mat::default();
    opencv::imgproc::cvt_color_def(&card, &mut gray, opencv::imgproc::COLOR_BGR2GRAY)?;
    let stride = gray.cols().max(0) as usize;
    let pixels = gray.data_bytes()?;
    let at = |y: i32, x: i32| f32::from(pixels[y as usize * stride + x as usize]);
    // Each column's paper: its brighter pixels away from the middle. A column is dark at a row
    // of the band where its pixel is much darker than its paper, and a line passes it there
    // when it is dark within a pixel of the line.
    let columns: Vec<i32> = ((w / 10)..(w - w / 10)).collect();
    let (top, bottom) = (h * 2 / 5, h * 3 / 5);
    let rows = bottom - top;
    let mut paper = Vec::new();
    let mut dark: Vec<Vec<bool>> = Vec::with_capacity(columns.len());
    let mut near: Vec<Vec<bool>> = Vec::with_capacity(columns.len());
    for &x in &columns {
        paper.clear();
        paper.extend(((h / 8)..(h * 3 / 8)).chain((h * 5 / 8)..(h * 7 / 8)).map(|y| at(y, x)));
        paper.sort_by(f32::total_cmp);
        let paper = paper[paper.len() * 3 / 4];
        let column: Vec<bool> = (top..=bottom).map(|y| at(y, x) < 0.6 * paper).collect();
        near.push(
            (0..=rows).map(|y| column[(y - 1).max(0) as usize..=(y + 1).min(rows) as usize].contains(&true)).collect(),
        );
        dark.push(column);
    }
    // The straight line through the band, tilted a little at most, dark in nine columns of
    // ten; a line is given up at its first miss over that, as nearly all lines miss early.
    let tilt = (h / 10).max(2);
    let spare = columns.len() - (9 * columns.len()).div_ceil(10);
    // The band's row of the line from `start` at the first column to `end` at the last, at `x`.
    let (first, last) = (columns[0] as f32, columns[columns.len() - 1] as f32);
    let row_at =
        |start: i32, end: i32, x: f32| start as f32 + (end - start) as f32 * (x - first) / (last - first).max(1.0);
    for start in 0..=rows {
        for end in (start - tilt).max(0)..=(start + tilt).min(rows) {
            let mut misses = 0;
            for (i, column) in near.iter().enumerate() {
                if !column[row_at(start, end, columns[i] as f32).round() as usize] {
                    misses += 1;
                    if misses > spare {
                        break;
                    }
                }
            }
            if misses <= spare {
                // The table runs on either side of the line while most columns are dark there.
                let dark_by = |offset: i32| {
                    let hits = dark.iter().enumerate().filter(|(i, column)| {
                        let y = row_at(start, end, columns[*i] as f32).round() as i32 + offset;
                        (0..=rows).contains(&y) && column[y as usize]
                    });
                    2 * hits.count() >= columns.len()
                };
                let above = (1..=rows).take_while(|&k| dark_by(-k)).count() as f32;
                let below = (1..=rows).take_while(|&k| dark_by(k)).count() as f32;
                // The line's row at the outline's two sides, beyond the columns looked at.
                let edge = |offset: f32| {
                    let fraction = |x: f32| (top as f32 + row_at(start, end, x) + offset) / h as f32;
                    (fraction(0.0), fraction(w as f32))
                };
                return Ok(Some(TableLine { upper: edge(-above - 0.5), lower: edge(below + 0.5) }));
            }
        }
    }
    Ok(None)
}

/// Each card once among the cards read: a card close up holds the outlines of its parts (they
/// were kept for the case that it was the table: `drop_nested`), and an outline holding others
/// is settled (`settle_holders`). Returns the outlines that went.
pub(in crate::vision::cards) fn each_card_once(
    out: &mut Vec<CardDetection>,
    backs: &mut Vec<Quad>,
    size: [f32; 2],
) -> Vec<Quad> {
    if let Some(close) = out.iter().filter(|d| d.card.is_some()).find_map(|d| d.quad.filter(|q| spans_frame(q, size))) {
        out.retain(|d| d.quad.is_none_or(|q| q == close || !inside(&close, quad_centre(&q))));
        backs.retain(|q| !inside(&close, quad_centre(q)));
    }
    settle_holders(out, size)
}
