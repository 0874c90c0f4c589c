//! A second witness for a card read by its index: the centre of the face. A 2 to 10 shows that
//! many pips, all of one size and in the suit's colour; an ace one pip; a court card a figure
//! (gold and many colours, or one large drawing). The small index is easy to misread at webcam
//! sizes (a black suit for a red one across a blurred pip); the large centre pips are not, so a
//! reading whose colour the centre clearly contradicts is left unread rather than given.

use opencv::{core, imgproc, prelude::*};

use super::pixels::rectify_sized;
use super::types::Quad;
use crate::cards::Card;

/// The face is looked at this size (a card's proportions).
const W: i32 = 100;
const H: i32 = 140;
/// The centre: inside the index columns across, nearly the whole length along.
const X0: i32 = 17;
const X1: i32 = 83;
const Y0: i32 = 6;
const Y1: i32 = 134;
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
    /// Red or black, where the ink is clearly one or the other.
    pub red: Option<bool>,
    /// A court figure: gold, or one large drawing, or much ink in few pieces.
    pub figure: bool,
    /// Gold shows (no pip is gold).
    pub gold: bool,
}

/// Looks at the centre of the face inside `quad` (BGR frame, under white light).
pub fn centre_of(frame: &Mat, quad: &Quad) -> opencv::Result<Centre> {
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
    let (mut red, mut gold) = (0usize, 0usize);
    for (k, p) in bytes.chunks_exact(3).enumerate() {
        let (b, g, r) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
        let is_red = r - g.max(b) > 40 && r > 70;
        gold += usize::from(r > 120 && g > 100 && f64::from(b) < 0.7 * f64::from(g) && r - b > 60);
        if is_red || greys[k] * 10 < paper * 6 {
            ink[k] = 255;
            red += usize::from(is_red);
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
    let inked = ink.iter().filter(|&&v| v > 0).count();
    let ink_share = inked as f64 / area;
    let gold = gold as f64 / area > GOLD;
    let figure = gold || largest > DRAWING * area || (ink_share > 0.3 && pieces.len() < 4);
    let red_share = red as f64 / inked.max(1) as f64;
    let red = if red_share > 0.5 {
        Some(true)
    } else if red_share < 0.15 && inked > 0 {
        Some(false)
    } else {
        None
    };
    let pips = if figure || pieces.is_empty() {
        None
    } else if pieces.len() == 1 {
        (largest > ACE_PIP * area).then_some(1)
    } else {
        let median = pieces[pieces.len() / 2];
        let even = pieces.iter().all(|&a| (PIP_SPREAD.0 * median..=PIP_SPREAD.1 * median).contains(&a));
        (even && pieces.len() <= 10).then_some(pieces.len() as u8)
    };
    Ok(Centre { pips, red, figure, gold })
}

/// Whether the centre lets `card` stand: a 2 to 10 or an ace whose colour the centre clearly
/// contradicts, or that shows a court figure's gold, does not. Court cards are not judged: decks
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
    centre.figure || centre.red.is_none_or(|red| red == card.suit.is_red())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::face::draw_face;
    use crate::render::random::random_face_style;
    use rand::SeedableRng;

    /// A rendered face's centre as the witness sees it.
    fn centre(code: &str, style: &crate::render::face::FaceStyle) -> Centre {
        let face = draw_face(code.parse().unwrap(), style, 200).unwrap();
        let (w, h) = (face.cols() as f32, face.rows() as f32);
        centre_of(&face, &[[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]).unwrap()
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
    fn a_red_card_is_no_black_one_and_its_pips_are_counted() {
        let style = random_face_style(&mut rand_chacha::ChaCha8Rng::seed_from_u64(9), &[]);
        let seven = centre("7H", &style);
        assert_eq!(seven.pips, Some(7));
        assert_eq!(seven.red, Some(true));
        assert!(!agrees("7S".parse().unwrap(), &seven));
        assert!(!agrees("7C".parse().unwrap(), &seven));
        assert!(agrees("7D".parse().unwrap(), &seven));
    }
}
