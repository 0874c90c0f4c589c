//! A second witness for a card read by its index: the centre of the face. A 2 to 10 shows that
//! many pips, all of one size and in the suit's colour; an ace one pip; a court card a figure
//! (gold and many colours, or one large drawing). The small index is easy to misread at webcam
//! sizes (a black suit for a red one across a blurred pip); the large centre pips are not, so a
//! reading whose colour the centre clearly contradicts is left unread rather than given.

use std::cell::RefCell;

use opencv::{core, imgproc, prelude::*};

use super::classify::{GLYPH_H, GLYPH_W, GlyphFeature, spade_or_club};
use crate::cards::{Card, Rank, Suit};
use crate::vision::cards::picture::pixels::rectify_sized;
use crate::vision::cards::types::{IndexReading, Quad};

/// The face is looked at this size (a card's proportions).
const W: i32 = 160;
const H: i32 = 224;
/// The centre: inside the index columns across, nearly the whole length along.
const X0: i32 = 27;
const X1: i32 = 133;
const Y0: i32 = 9;
const Y1: i32 = 215;
/// Components smaller than this share of the centre are specks, not pips.
const SPECK: f64 = 0.004;
/// A piece under this share of the largest one is a fragment (an index's edge), not a pip.
const FRAGMENT: f64 = 0.35;
/// A lone pip at least this share of the centre is an ace's.
const ACE_PIP: f64 = 0.03;
/// A component over this share of the centre is a drawing, not a pip.
const DRAWING: f64 = 0.15;
/// Gold over this share of the centre is a court figure's (pips are never gold).
const GOLD: f64 = 0.03;
/// Pips of one card are all about one size: each within these bounds of their median area.
const PIP_SPREAD: (f64, f64) = (0.5, 1.8);

/// What the centre of a face shows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Centre {
    /// How many pips, where they are clear (all one size, 1 to 10, no drawing).
    pub pips: Option<u8>,
    /// Red or black, where the ink of each half is clearly one or the other, the same.
    pub red: Option<bool>,
    /// A court figure: gold, or one large drawing, or much ink in few pieces.
    pub figure: bool,
    /// Gold shows (no pip is gold).
    pub gold: bool,
    /// The suit the pips' own shape shows, where every pip clear enough to tell says the same.
    pub suit: Option<Suit>,
    /// The whole face lies inside the picture (a face cut by its edge shows part of its centre).
    pub whole: bool,
}

/// Whether `quad` has a card's proportions (its short side 0.64 to 0.71 of its long one laid
/// flat, up to about 0.86 where a slanting camera shortens its length by a sixth: the blackjack
/// webcam's eight of spades at the far edge measures 0.82): only then is its centre a card's
/// centre (an outline merged with its neighbour, or cut short, is not).
pub fn card_shaped(quad: &Quad) -> bool {
    (0.6..=0.86).contains(&proportion(quad))
}

/// An outline's short side over its long one.
pub fn proportion(quad: &Quad) -> f32 {
    let d = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
    let (across, along) =
        ((d(quad[0], quad[1]) + d(quad[2], quad[3])) / 2.0, (d(quad[1], quad[2]) + d(quad[3], quad[0])) / 2.0);
    across.min(along) / across.max(along).max(1.0)
}

/// A frame's pixels and an outline, bit for bit: what one look at a centre is remembered by.
type Looked = (usize, i32, i32, [[u32; 2]; 4]);

thread_local! {
    /// The centres looked at during one frame's reading (`CentreMemo`), on this thread.
    static LOOKED: RefCell<Option<Vec<(Looked, Centre)>>> = const { RefCell::new(None) };
}

/// While one is held, `centre_of` remembers each centre it looks at on this thread and gives it
/// again when asked of the same frame and outline: a frame's reading asks of one outline
/// several times (its corners' pips, the witness, a pair's halves), about twice for each
/// outline on a patience video. Held only while the frame it reads is alive and unchanged (one
/// `detect` call), so a remembered frame is never another one at the same address.
pub struct CentreMemo(());

impl CentreMemo {
    pub fn start() -> CentreMemo {
        LOOKED.with(|looked| *looked.borrow_mut() = Some(Vec::new()));
        CentreMemo(())
    }
}

impl Drop for CentreMemo {
    fn drop(&mut self) {
        LOOKED.with(|looked| *looked.borrow_mut() = None);
    }
}

/// Looks at the centre of the face inside `quad` (BGR frame, under white light).
pub fn centre_of(frame: &Mat, quad: &Quad) -> opencv::Result<Centre> {
    let key: Looked = (frame.data() as usize, frame.rows(), frame.cols(), quad.map(|p| p.map(f32::to_bits)));
    let remembered = LOOKED
        .with(|looked| looked.borrow().as_ref().and_then(|seen| seen.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)));
    if let Some(centre) = remembered {
        return Ok(centre);
    }
    let centre = look_at_centre(frame, quad)?;
    LOOKED.with(|looked| {
        if let Some(seen) = looked.borrow_mut().as_mut() {
            seen.push((key, centre));
        }
    });
    Ok(centre)
}

fn look_at_centre(frame: &Mat, quad: &Quad) -> opencv::Result<Centre> {
    let card = rectify_sized(frame, quad, W, H)?;
    let region = Mat::roi(&card, core::Rect::new(X0, Y0, X1 - X0, Y1 - Y0))?.try_clone()?;
    let bytes = region.data_bytes()?;
    let pixels = bytes.len() / 3;
    let mut greys: Vec<i32> = bytes.chunks_exact(3).map(|p| p.iter().map(|&v| i32::from(v)).sum::<i32>() / 3).collect();
    let paper = {
        let mut sorted = greys.clone();
        sorted.sort_unstable();
        sorted[pixels * 9 / 10]
    };
    let mut ink = vec![0u8; pixels];
    let mut gold = 0usize;
    // Ink and red ink in the upper and the lower half.
    let (mut inked, mut red) = ([0usize; 2], [0usize; 2]);
    let half = pixels / 2;
    let redness: Vec<i32> =
        bytes.chunks_exact(3).map(|p| i32::from(p[2]) - i32::from(p[0]).max(i32::from(p[1]))).collect();
    let strongest = strongest_red(&redness);
    let red_bar = red_bar(strongest);
    for (k, p) in bytes.chunks_exact(3).enumerate() {
        let (b, g, r) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
        let is_red = redness[k] > red_bar && r > 70;
        gold += usize::from(r > 120 && g > 100 && f64::from(b) < 0.7 * f64::from(g) && r - b > 60);
        if is_red || greys[k] * 10 < paper * 6 {
            ink[k] = 255;
            inked[usize::from(k >= half)] += 1;
            red[usize::from(k >= half)] += usize::from(is_red);
        }
    }
    greys.clear();
    let mask = Mat::new_rows_cols_with_data(region.rows(), region.cols(), &ink)?.try_clone()?;
    let mut opened = Mat::default();
    let kernel = imgproc::get_structuring_element_def(imgproc::MORPH_RECT, core::Size::new(2, 2))?;
    imgproc::morphology_ex_def(&mask, &mut opened, imgproc::MORPH_OPEN, &kernel)?;
    let (mut labels, mut stats, mut centroids) = (Mat::default(), Mat::default(), Mat::default());
    let n =
        imgproc::connected_components_with_stats(&opened, &mut labels, &mut stats, &mut centroids, 8, core::CV_32S)?;
    let area = pixels as f64;
    let mut pieces: Vec<f64> = (1..n)
        .map(|i| stats.at_2d::<i32>(i, imgproc::CC_STAT_AREA).map(|a| f64::from(*a)))
        .collect::<opencv::Result<Vec<f64>>>()?
        .into_iter()
        .filter(|&a| a >= SPECK * area)
        .collect();
    pieces.sort_by(f64::total_cmp);
    // Pieces much smaller than the largest are a corner index's edge or a pip's shadow.
    let largest = pieces.last().copied().unwrap_or(0.0);
    pieces.retain(|&a| a >= FRAGMENT * largest);
    let ink_share = (inked[0] + inked[1]) as f64 / area;
    let gold = gold as f64 / area > GOLD;
    let figure = gold || largest > DRAWING * area || (ink_share > 0.3 && pieces.len() < 4);
    // Each half's colour: a card lying over half of this one (a modifier, a pair) brings its
    // own, and the two halves then disagree. A half with no ink at all (a 2's pip too faint
    // under glare) brings no colour of its own and contradicts nothing: the other half's
    // colour stands.
    let blank = |h: usize| (inked[h] as f64) < SPECK * area / 2.0;
    let colour = |h: usize| {
        let share = red[h] as f64 / inked[h].max(1) as f64;
        if share > 0.5 {
            Some(true)
        } else if share < 0.15 && inked[h] > 0 {
            Some(false)
        } else {
            None
        }
    };
    let red = match (colour(0), colour(1)) {
        (Some(a), Some(b)) if a == b => Some(a),
        (Some(a), None) if blank(1) => Some(a),
        (None, Some(b)) if blank(0) => Some(b),
        _ => None,
    };
    let pips = if figure || pieces.is_empty() {
        None
    } else if pieces.len() == 1 {
        (largest > ACE_PIP * area).then_some(1)
    } else {
        (even_sizes(&pieces) && pieces.len() <= 10).then_some(pieces.len() as u8)
    };
    let pips = match pips {
        None if red == Some(true) && !figure && !pieces.is_empty() => {
            red_pips_apart(&redness, strongest, bytes, region.cols(), region.rows())?
        }
        _ => pips,
    };
    let suit = if figure { None } else { pip_suit(&labels, &stats, red, area)? };
    let inside =
        |p: &[f32; 2]| p[0] >= 0.0 && p[1] >= 0.0 && p[0] <= frame.cols() as f32 && p[1] <= frame.rows() as f32;
    Ok(Centre { pips, red, figure, gold, suit, whole: quad.iter().all(inside) })
}

/// The redness that makes a pixel red ink: at least that of clean print (40), and, where the
/// centre holds strong red, at least half its strongest. A small card's red pips come blurred:
/// their pink halo lies between pips at half their strength and would join them into one
/// piece, counted as a drawing. Black ink keeps the one bar: a spade's thin stem is fainter
/// than its body and would go.
/// `strongest` is the centre's strongest redness (`strongest_red`).
fn red_bar(strongest: i32) -> i32 {
    40.max(strongest / 2)
}

/// The centre's strongest redness, all but its reddest 0.5 % (specks of noise); `redness` is
/// each pixel's red less its larger other channel.
fn strongest_red(redness: &[i32]) -> i32 {
    let mut sorted = redness.to_vec();
    let k = sorted.len() - 1 - sorted.len() / 200;
    *sorted.select_nth_unstable(k).1
}

/// Shares of the strongest redness at which red pips still joined by their halo are looked for
/// apart, lowest first.
const APART_BARS: [i32; 3] = [6, 7, 8];

/// The count of red pips that lie joined in chains at `red_bar` (a small blurred card's pips
/// touch through their halo): the red ink at a higher bar, taken where its pieces are pips: all
/// about one size, 2 to 10 of them, and laid out as every pip layout is, the same on both
/// sides of the face's long middle line. A court figure broken into pieces by the same bar is
/// not mirrored so.
fn red_pips_apart(redness: &[i32], top: i32, bytes: &[u8], cols: i32, rows: i32) -> opencv::Result<Option<u8>> {
    let area = f64::from(cols * rows);
    for tenths in APART_BARS {
        let bar = top * tenths / 10;
        let ink: Vec<u8> = redness
            .iter()
            .zip(bytes.chunks_exact(3))
            .map(|(&r, p)| if r > bar && p[2] > 70 { 255 } else { 0 })
            .collect();
        let mask = Mat::new_rows_cols_with_data(rows, cols, &ink)?.try_clone()?;
        let (mut labels, mut stats, mut centroids) = (Mat::default(), Mat::default(), Mat::default());
        let n =
            imgproc::connected_components_with_stats(&mask, &mut labels, &mut stats, &mut centroids, 8, core::CV_32S)?;
        let mut pieces = Vec::new();
        for i in 1..n {
            let a = f64::from(*stats.at_2d::<i32>(i, imgproc::CC_STAT_AREA)?);
            if a >= SPECK * area / 2.0 {
                pieces.push((a, *centroids.at_2d::<f64>(i, 0)?, *centroids.at_2d::<f64>(i, 1)?));
            }
        }
        let largest = pieces.iter().map(|p| p.0).fold(0.0, f64::max);
        pieces.retain(|p| p.0 >= FRAGMENT * largest);
        let count = pieces.len();
        let areas: Vec<f64> = pieces.iter().map(|p| p.0).collect();
        if (2..=10).contains(&count) && even_sizes(&areas) && mirrored(&pieces, cols, rows) {
            return Ok(Some(count as u8));
        }
    }
    Ok(None)
}

/// Whether pieces' areas are all within `PIP_SPREAD` of their median (pips of one card are
/// all about one size); `areas` is not empty.
fn even_sizes(areas: &[f64]) -> bool {
    let mut areas = areas.to_vec();
    areas.sort_by(f64::total_cmp);
    let median = areas[areas.len() / 2];
    areas.iter().all(|&a| (PIP_SPREAD.0 * median..=PIP_SPREAD.1 * median).contains(&a))
}

/// Whether each piece (area, x, y) has its mirror image across the pieces' own middle line
/// (the mean of their x; an outline a pixel off shifts the face, not the layout): a piece
/// within a tenth of the width and a twentieth of the height of where its mirror lies.
fn mirrored(pieces: &[(f64, f64, f64)], cols: i32, rows: i32) -> bool {
    let axis = pieces.iter().map(|p| p.1).sum::<f64>() / pieces.len() as f64;
    pieces.iter().all(|&(_, x, y)| {
        pieces.iter().any(|&(_, u, v)| {
            ((2.0 * axis - x) - u).abs() <= f64::from(cols) / 10.0 && (y - v).abs() <= f64::from(rows) / 20.0
        })
    })
}

/// The suit of the pips by their outline (`spade_or_club`, `heart_or_diamond`): each pip of the
/// upper half as it stands, each of the lower half turned (a face's pips point away from its
/// middle, whichever way up the card lies), those of the middle band left out (they may point
/// either way, and an ace's one large pip is drawn in too many styles); pips of both halves,
/// all saying the same.
fn pip_suit(labels: &Mat, stats: &Mat, red: Option<bool>, area: f64) -> opencv::Result<Option<Suit>> {
    let Some(red) = red else { return Ok(None) };
    let rows = f64::from(labels.rows());
    let mut said: [Vec<Suit>; 2] = [Vec::new(), Vec::new()];
    for i in 1..stats.rows() {
        let at = |k| stats.at_2d::<i32>(i, k).copied();
        let (x, y, w, h, a) = (
            at(imgproc::CC_STAT_LEFT)?,
            at(imgproc::CC_STAT_TOP)?,
            at(imgproc::CC_STAT_WIDTH)?,
            at(imgproc::CC_STAT_HEIGHT)?,
            at(imgproc::CC_STAT_AREA)?,
        );
        if f64::from(a) < SPECK * area || h < 8 {
            continue;
        }
        let middle = (f64::from(y) + f64::from(h) / 2.0) / rows;
        if (0.42..=0.58).contains(&middle) {
            continue;
        }
        let crop = Mat::roi(labels, core::Rect::new(x, y, w, h))?;
        let mut mask = Mat::default();
        core::compare(&crop, &core::Scalar::all(f64::from(i)), &mut mask, core::CMP_EQ)?;
        if middle > 0.5 {
            let mut turned = Mat::default();
            core::flip(&mask, &mut turned, -1)?;
            mask = turned;
        }
        let glyph = GlyphFeature::from_mask(&mask)?;
        let suit = if red { heart_or_diamond(&mask)? } else { spade_or_club(&glyph, true) };
        said[usize::from(middle > 0.5)].extend(suit);
    }
    // Both halves must say it, and nothing else: a card lying over one half shows its own. But
    // spades alone, said in one half, are a spade's: blur takes a spade's point and stem and
    // never makes them out of a club's lobes (on 40 rendered designs at 50 to 100 px, blurred
    // 0.3 to 1.7 px, no club's face was taken for a spade's this way; `examples/pip_suit_sizes.rs`).
    let all: Vec<Suit> = said.concat();
    let both_halves = said.iter().all(|h| !h.is_empty());
    Ok(match all.first() {
        Some(&first) if all.iter().all(|&s| s == first) && (both_halves || first == Suit::Spades) => Some(first),
        _ => None,
    })
}

/// A heart or a diamond by its outline, upright: a heart is widest near its top (two round lobes)
/// and narrows to a point below; a diamond is as narrow at its top as at its foot.
fn heart_or_diamond(mask: &Mat) -> opencv::Result<Option<Suit>> {
    let mut small = Mat::default();
    imgproc::resize(mask, &mut small, core::Size::new(GLYPH_W, GLYPH_H), 0.0, 0.0, imgproc::INTER_AREA)?;
    let bytes = small.data_bytes()?;
    let (w, h) = (GLYPH_W as usize, GLYPH_H as usize);
    let widths: Vec<f64> = (0..h).map(|y| bytes[y * w..][..w].iter().filter(|&&v| v > 127).count() as f64).collect();
    let widest = widths.iter().copied().fold(1.0, f64::max);
    let band = |rows: std::ops::Range<usize>| rows.clone().map(|y| widths[y]).sum::<f64>() / rows.len() as f64 / widest;
    let slope = band(1..4) - band(h - 4..h - 1);
    Ok(if slope > 0.35 {
        Some(Suit::Hearts)
    } else if slope.abs() < 0.2 {
        Some(Suit::Diamonds)
    } else {
        None
    })
}

/// Whether the centre's colour lets `card` stand (asked of any outline, a card cut by the
/// picture's edge or half under another too: the ink's colour does not depend on its outline).
pub fn colour_agrees(card: Card, centre: &Centre) -> bool {
    card.rank.is_court() || centre.figure || centre.red.is_none_or(|red| red == card.suit.is_red())
}

/// Whether the centre lets `card` stand: a 2 to 10 or an ace whose colour or suit the centre
/// clearly contradicts, or that shows a court figure's gold, does not. Court cards are not judged: decks
/// draw them in too many ways (a figure, a large letter with one pip, in colours of their own).
/// The pip count is not judged either: an outline cut short by a card lying over it, or two
/// cards taken for one, shows too few or too many.
pub fn agrees(card: Card, centre: &Centre) -> bool {
    if card.rank.is_court() {
        return true;
    }
    if centre.gold {
        return false;
    }
    // The ace of spades is drawn as an ornament (grey shading, a maker's mark) in most decks, and
    // its small index is the one a webcam reads as a club: a whole ace of clubs shows one plain
    // pip.
    if card.rank == Rank::ACE && card.suit == Suit::Clubs && centre.whole && centre.pips.is_some_and(|n| n > 1) {
        return false;
    }
    centre.figure
        || (centre.red.is_none_or(|red| red == card.suit.is_red()) && centre.suit.is_none_or(|s| s == card.suit))
}

/// Whether the centre confirms `card` in full: a 2 to 10 whose rank is the count of clean pips
/// (no figure, no gold) and whose suit their outline shows.
pub fn confirms(card: Card, centre: &Centre) -> bool {
    let rank = card.rank.value();
    !centre.figure
        && !centre.gold
        && (2..=10).contains(&rank)
        && centre.pips == Some(rank)
        && centre.suit == Some(card.suit)
        && centre.red.is_none_or(|red| red == card.suit.is_red())
}

/// The card a reading the centre contradicts only in its suit is, by the centre's pips: as many
/// clean pips as the rank, their outline the other suit of the reading's colour (a spade's index
/// read as a club's at webcam size; the large centre pips show the stem). `None` where the centre
/// says anything else.
pub fn suit_from_pips(card: Card, centre: &Centre) -> Option<Card> {
    let suit = centre.suit.filter(|s| *s != card.suit && s.is_red() == card.suit.is_red())?;
    let clean = !centre.figure && !centre.gold && centre.red.is_none_or(|red| red == suit.is_red());
    (clean && card.rank.value() >= 2 && centre.pips == Some(card.rank.value())).then_some(Card { suit, ..card })
}

/// The corner reading the centre's pips confirm, for an outline its corners leave unread (two
/// readings that disagree, or one too weak): the one reading whose rank is the count of clean
/// pips in the centre and whose suit their outline shows, where no figure shows. A reading of the
/// other suit of that colour counts as the pips' suit (`suit_from_pips`).
pub fn counted(readings: &[IndexReading], centre: &Centre) -> Option<IndexReading> {
    let pips = centre.pips.filter(|&n| n >= 2)?;
    if centre.figure || centre.gold {
        return None;
    }
    let suit = centre.suit?;
    let as_centre = |card: Card| if card.suit == suit { Some(card) } else { suit_from_pips(card, centre) };
    let mut matching = readings
        .iter()
        .filter(|r| r.card.rank.value() == pips)
        .filter_map(|r| Some(IndexReading { card: as_centre(r.card)?, ..*r }));
    let first = matching.next()?;
    matching.all(|r| r.card == first.card).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::face::draw_face;
    use crate::render::random::random_face_style;
    use rand::SeedableRng;

    /// A rendered face's centre as the witness sees it.
    fn centre(code: &str, style: &crate::render::face::FaceStyle) -> Centre {
        centre_of_face(&draw_face(code.parse().unwrap(), style, 200).unwrap())
    }

    #[test]
    fn a_card_seen_at_a_slant_is_card_shaped_and_a_square_is_not() {
        let rect = |w: f32, h: f32| [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]];
        // Poker and bridge cards laid flat, either way round.
        assert!(card_shaped(&rect(63.0, 88.0)) && card_shaped(&rect(88.0, 63.0)) && card_shaped(&rect(57.0, 89.0)));
        // The webcam's far eight of spades: its length shortened by the camera's slant.
        assert!(card_shaped(&[[749.0, 47.0], [823.0, 58.0], [821.0, 150.0], [744.0, 140.0]]));
        // A square (a card cut short, or two overlapping) and a sliver are not.
        assert!(!card_shaped(&rect(90.0, 95.0)) && !card_shaped(&rect(40.0, 88.0)));
    }

    #[test]
    fn the_centre_confirms_a_reading_only_by_its_count_and_its_pips_suit() {
        let card = |c: &str| c.parse::<Card>().unwrap();
        let seen = Centre {
            pips: Some(6),
            red: Some(true),
            figure: false,
            gold: false,
            suit: Some(Suit::Hearts),
            whole: true,
        };
        assert!(confirms(card("6H"), &seen));
        assert!(!confirms(card("6D"), &seen), "another suit of the colour");
        assert!(!confirms(card("7H"), &seen), "another count");
        assert!(!confirms(card("6H"), &Centre { suit: None, ..seen }), "the pips' shape unclear");
        assert!(!confirms(card("6H"), &Centre { gold: true, ..seen }));
        assert!(!confirms(card("6H"), &Centre { figure: true, ..seen }));
        assert!(!confirms(card("AH"), &Centre { pips: Some(1), ..seen }), "an ace's pip is drawn too many ways");
    }

    #[test]
    fn the_centre_corrects_a_suit_only_where_its_pips_say_all_the_rest() {
        let card = |c: &str| c.parse::<Card>().unwrap();
        let seen = Centre {
            pips: Some(2),
            red: Some(false),
            figure: false,
            gold: false,
            suit: Some(Suit::Spades),
            whole: true,
        };
        assert_eq!(suit_from_pips(card("2C"), &seen), Some(card("2S")));
        assert_eq!(suit_from_pips(card("2S"), &seen), None, "nothing to correct");
        assert_eq!(suit_from_pips(card("3C"), &seen), None, "the count is not the rank");
        assert_eq!(suit_from_pips(card("2H"), &seen), None, "another colour is no suit mistaken");
        assert_eq!(suit_from_pips(card("2C"), &Centre { suit: None, ..seen }), None);
        assert_eq!(suit_from_pips(card("2C"), &Centre { figure: true, ..seen }), None);
        assert_eq!(suit_from_pips(card("2C"), &Centre { red: Some(true), ..seen }), None);
        let ace = Centre { pips: Some(1), ..seen };
        assert_eq!(suit_from_pips(card("AC"), &ace), None, "an ace's pip is no count");
        let hearts = Centre { pips: Some(7), red: Some(true), suit: Some(Suit::Hearts), ..seen };
        assert_eq!(suit_from_pips(card("7D"), &hearts), Some(card("7H")));
    }

    #[test]
    fn rendered_faces_of_many_decks_agree_with_their_own_names() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut wrong = Vec::new();
        for _ in 0..12 {
            let style = random_face_style(&mut rng, &[]);
            for card in Card::deck() {
                let code = card.to_string();
                let seen = centre(&code, &style);
                if !agrees(card, &seen) {
                    wrong.push(format!("{code} {:?} {:?}: {seen:?}", style.court, style.layout));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn red_pips_joined_by_a_pink_halo_are_counted_apart() {
        // Two strong red diamonds on white paper, a pink band between them as a small blurred
        // card's halo is (redness 55 to the pips' 170): two pips, not one piece.
        let mut face = Mat::new_rows_cols_with_default(224, 160, core::CV_8UC3, core::Scalar::all(235.0)).unwrap();
        let pink = core::Scalar::new(170.0, 170.0, 225.0, 0.0);
        imgproc::rectangle(&mut face, core::Rect::new(70, 60, 20, 104), pink, -1, imgproc::LINE_8, 0).unwrap();
        let red = core::Scalar::new(40.0, 40.0, 210.0, 0.0);
        for y in [60, 164] {
            let diamond: core::Vector<core::Point> = [(80, y - 22), (96, y), (80, y + 22), (64, y)]
                .into_iter()
                .map(|(x, y)| core::Point::new(x, y))
                .collect();
            imgproc::fill_convex_poly_def(&mut face, &diamond, red).unwrap();
        }
        let seen = centre_of(&face, &[[0.0, 0.0], [160.0, 0.0], [160.0, 224.0], [0.0, 224.0]]).unwrap();
        assert_eq!(seen.pips, Some(2), "{seen:?}");
        assert_eq!(seen.red, Some(true), "{seen:?}");
    }

    /// Ten strong red diamonds laid out as a ten's pips (four down each side, two between), the
    /// middle two moved `shift` pixels off the face's middle line. Pink bands join some of them
    /// as a small blurred card's halo does (redness 95 to the pips' 170): the left column into
    /// one chain, the right one into two pairs.
    fn ten_in_chains(shift: i32) -> Mat {
        let mut face = Mat::new_rows_cols_with_default(224, 160, core::CV_8UC3, core::Scalar::all(235.0)).unwrap();
        let pink = core::Scalar::new(130.0, 130.0, 225.0, 0.0);
        for (x, top, bottom) in [(50, 40, 184), (110, 40, 85), (110, 139, 184)] {
            let band = core::Rect::new(x - 4, top, 8, bottom - top);
            imgproc::rectangle(&mut face, band, pink, -1, imgproc::LINE_8, 0).unwrap();
        }
        let red = core::Scalar::new(40.0, 40.0, 210.0, 0.0);
        let column = [40, 85, 139, 184];
        let pips = column.iter().flat_map(|&y| [(50, y), (110, y)]).chain([(80 + shift, 62), (80 + shift, 162)]);
        for (x, y) in pips {
            let diamond: core::Vector<core::Point> = [(x, y - 16), (x + 11, y), (x, y + 16), (x - 11, y)]
                .into_iter()
                .map(|(x, y)| core::Point::new(x, y))
                .collect();
            imgproc::fill_convex_poly_def(&mut face, &diamond, red).unwrap();
        }
        face
    }

    #[test]
    fn red_pips_chained_by_their_halo_are_counted_at_a_higher_bar_where_both_sides_mirror() {
        let seen = centre_of_face(&ten_in_chains(0));
        assert_eq!(seen.pips, Some(10), "{seen:?}");
        // The middle pips off the middle line by 8 of the centre's 106 pixels: laid out as no
        // pip card is, no count.
        let seen = centre_of_face(&ten_in_chains(8));
        assert_eq!(seen.pips, None, "{seen:?}");
    }

    #[test]
    fn small_blurred_faces_of_many_decks_show_no_count_but_their_rank() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (mut wrong, mut counted) = (Vec::new(), 0);
        for k in 0..12 {
            let style = random_face_style(&mut rng, &[]);
            for card in Card::deck() {
                let face = draw_face(card, &style, 200).unwrap();
                // Shrunk to a patience video's 38 px across, blurred, and seen at the witness's size.
                let width = 36 + k % 4;
                let height = face.rows() * width / face.cols();
                let (mut small, mut blurred) = (Mat::default(), Mat::default());
                imgproc::resize(&face, &mut small, core::Size::new(width, height), 0.0, 0.0, imgproc::INTER_AREA)
                    .unwrap();
                imgproc::gaussian_blur_def(&small, &mut blurred, core::Size::new(3, 3), 0.6).unwrap();
                let seen = centre_of_face(&blurred);
                let rank = card.rank.value();
                // Court cards are left out: some decks draw them as a letter beside pips.
                match seen.pips {
                    Some(n) if (2..=10).contains(&rank) && n != rank => {
                        wrong.push(format!("{card} {:?}: {seen:?}", style.layout))
                    }
                    Some(_) if (8..=10).contains(&rank) && card.suit.is_red() => counted += 1,
                    _ => {}
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        eprintln!("red 8 to 10 counted {counted}");
    }

    #[test]
    fn a_centre_is_remembered_only_while_a_memo_is_held() {
        let style = random_face_style(&mut rand_chacha::ChaCha8Rng::seed_from_u64(3), &[]);
        let mut face = draw_face("7H".parse().unwrap(), &style, 200).unwrap();
        let seven = centre_of_face(&face);
        assert_eq!(seven.pips, Some(7), "{seven:?}");
        let blank = |face: &mut Mat| face.set_to_def(&core::Scalar::all(255.0)).unwrap();
        {
            let _memo = CentreMemo::start();
            assert_eq!(centre_of_face(&face), seven);
            // Remembered by the frame's address and the outline: the same look is given again
            // (a frame is not changed while a memo reads it).
            blank(&mut face);
            assert_eq!(centre_of_face(&face), seven);
        }
        // Once the memo is dropped, the frame is looked at again.
        assert_eq!(centre_of_face(&face).pips, None);
    }

    /// The centre of a whole face as the witness sees it.
    fn centre_of_face(face: &Mat) -> Centre {
        let (w, h) = (face.cols() as f32, face.rows() as f32);
        centre_of(face, &[[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]).unwrap()
    }

    /// A rendered face's centre with its upper half lost in glare (painted over in its paper).
    fn centre_under_glare(code: &str) -> Centre {
        let style = random_face_style(&mut rand_chacha::ChaCha8Rng::seed_from_u64(9), &[]);
        let mut face = draw_face(code.parse().unwrap(), &style, 200).unwrap();
        let (w, h) = (face.cols(), face.rows());
        let paper = *face.at_2d::<core::Vec3b>(h / 2, w / 2).unwrap();
        let glare = core::Rect::new(0, 0, w, h * 45 / 100);
        imgproc::rectangle(&mut face, glare, core::Scalar::from(paper), -1, imgproc::LINE_8, 0).unwrap();
        centre_of_face(&face)
    }

    #[test]
    fn a_half_with_no_ink_leaves_the_colour_to_the_other_half() {
        // A 2 of spades whose upper pip is lost in glare: the lower pip alone says black.
        let seen = centre_under_glare("2S");
        assert_eq!(seen.red, Some(false), "{seen:?}");
        assert!(!agrees("2D".parse().unwrap(), &seen));
        assert!(agrees("2S".parse().unwrap(), &seen));
    }

    #[test]
    fn spades_in_one_half_alone_name_a_spade_and_clubs_need_both_halves() {
        // A face whose upper half is lost in glare: black pips in its lower half only, drawn
        // as a spade lies there (turned, its point towards the card's far end): a point that
        // widens steadily into a broad foot.
        let (w, h) = (200, 280);
        let mut face = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, core::Scalar::all(235.0)).unwrap();
        for x in [60, 140] {
            for y in [190, 240] {
                let spade: core::Vector<core::Point> = [(x - 14, y - 14), (x + 14, y - 14), (x, y + 16)]
                    .into_iter()
                    .map(|(a, b)| core::Point::new(a, b))
                    .collect();
                imgproc::fill_convex_poly_def(&mut face, &spade, core::Scalar::all(20.0)).unwrap();
            }
        }
        let seen = centre_of_face(&face);
        // Blur takes a spade's point, never makes one out of a club's lobes.
        assert_eq!(seen.suit, Some(Suit::Spades), "{seen:?}");
        // A club's lobes may be a blurred spade's: one half of clubs is not enough.
        assert_eq!(centre_under_glare("8C").suit, None);
        let style = random_face_style(&mut rand_chacha::ChaCha8Rng::seed_from_u64(9), &[]);
        assert_eq!(centre("8C", &style).suit, Some(Suit::Clubs));
    }

    #[test]
    fn a_heart_is_no_diamond_nor_a_black_card_and_its_pips_are_counted() {
        let style = random_face_style(&mut rand_chacha::ChaCha8Rng::seed_from_u64(9), &[]);
        let seven = centre("7H", &style);
        assert_eq!(seven.pips, Some(7));
        assert_eq!(seven.red, Some(true));
        assert!(!agrees("7S".parse().unwrap(), &seven));
        assert!(!agrees("7C".parse().unwrap(), &seven));
        assert_eq!(seven.suit, Some(crate::cards::Suit::Hearts));
        assert!(!agrees("7D".parse().unwrap(), &seven));
        assert!(agrees("7H".parse().unwrap(), &seven));
    }

    #[test]
    fn an_ace_read_as_clubs_over_an_ornament_goes_unread_unless_cut_by_the_picture() {
        let ornament = Centre { pips: Some(2), red: Some(false), whole: true, ..Centre::default() };
        assert!(!agrees("AC".parse().unwrap(), &ornament));
        assert!(agrees("AS".parse().unwrap(), &ornament));
        assert!(agrees("AC".parse().unwrap(), &Centre { pips: Some(1), ..ornament }));
        assert!(agrees("AC".parse().unwrap(), &Centre { whole: false, ..ornament }));
    }

    #[test]
    fn the_pips_confirm_the_reading_of_their_count_and_suit_only() {
        let read = |code: &str, confidence| IndexReading { card: code.parse().unwrap(), confidence };
        let ten =
            Centre { pips: Some(10), red: Some(true), suit: Some(Suit::Hearts), whole: true, ..Centre::default() };
        let corners = [read("QH", 0.48), read("10H", 0.33)];
        assert_eq!(counted(&corners, &ten), Some(read("10H", 0.33)));
        // The suit is the pips' own: a ten of spades read as clubs is the ten of spades; where the
        // pips show no suit, or the other colour's, it stays unread.
        let spades = Centre { pips: Some(10), red: Some(false), suit: Some(Suit::Spades), whole: true, ..ten };
        assert_eq!(counted(&[read("10C", 0.3), read("10C", 0.25)], &spades), Some(read("10S", 0.3)));
        assert_eq!(counted(&[read("10C", 0.3)], &Centre { suit: None, ..spades }), None);
        assert_eq!(counted(&[read("10H", 0.3)], &spades), None);
        // No count, a figure, or two readings the pips fit alike: nothing is confirmed.
        assert_eq!(counted(&corners, &Centre { pips: None, ..ten }), None);
        assert_eq!(counted(&corners, &Centre { figure: true, ..ten }), None);
        assert_eq!(
            counted(&[read("10H", 0.3), read("10D", 0.3)], &Centre { suit: Some(Suit::Diamonds), ..ten }),
            Some(read("10D", 0.3))
        );
    }
}
