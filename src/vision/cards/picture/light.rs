//! The colour of the light. The card search measures ink as the darkest of a pixel's three
//! channels (so that red ink counts as ink), against thresholds in grey levels. Under a warm lamp
//! the paper's blue channel is dim, so the darkest channel holds little contrast and faint
//! indices fall under those thresholds. A frame whose brightest pixels (the cards' paper) are
//! clearly coloured is balanced first, each channel scaled so that paper is grey again.

use std::borrow::Cow;

use opencv::{core, prelude::*};

/// Every how many pixels, across and down, the white point is sampled.
const STEP: usize = 8;
/// The share of the sampled pixels, brightest first, taken as paper.
const BRIGHTEST: f64 = 0.01;
/// How bright, against the brightest sampled pixel, a pixel must be to be taken for paper.
const NEAR_TOP: f64 = 0.8;
/// A pixel this bright in all three channels is glare (white whatever the light), not paper.
const GLARE: u8 = 250;
/// Paper this close to grey (the largest gain it needs) is left as it is: a camera's own white
/// balance leaves that much, and every frame balanced costs a pass over it.
const LEAVE: f64 = 1.15;
/// The largest gain given to a channel: beyond it, the brightest pixels are no paper (a frame
/// with no card in it, a coloured cloth) and scaling would only lift noise.
const MOST: f64 = 2.5;

/// `frame` (BGR) as it would look under white light, or `frame` itself when its paper is about
/// grey already.
pub fn balanced(frame: &Mat) -> opencv::Result<Cow<'_, Mat>> {
    let Some(gains) = gains(frame)? else { return Ok(Cow::Borrowed(frame)) };
    let tables = gains.map(|g| std::array::from_fn::<u8, 256, _>(|v| (v as f64 * g).round().min(255.0) as u8));
    let mut out = frame.try_clone()?;
    // A lookup a byte at a time, in place: on a 1280 x 720 frame OpenCV's three-channel `LUT`
    // took 33 million instructions and a multiplication by the gains 23 million.
    for px in out.data_bytes_mut()?.chunks_exact_mut(3) {
        for (v, table) in px.iter_mut().zip(&tables) {
            *v = table[usize::from(*v)];
        }
    }
    Ok(Cow::Owned(out))
}

/// The gain of each channel (B, G, R) that makes the frame's paper grey; `None` when it needs
/// none (or the frame is no 8-bit BGR image).
fn gains(frame: &Mat) -> opencv::Result<Option<[f64; 3]>> {
    let Some(white) = white_point(frame)? else { return Ok(None) };
    let top = white.iter().copied().fold(0.0, f64::max);
    let gains = white.map(|c| top / c.max(1.0));
    let largest = gains.iter().copied().fold(0.0, f64::max);
    Ok((LEAVE..=MOST).contains(&largest).then_some(gains))
}

/// The mean colour of the brightest sampled pixels that are not glare.
fn white_point(frame: &Mat) -> opencv::Result<Option<[f64; 3]>> {
    if frame.typ() != core::CV_8UC3 || frame.empty() {
        return Ok(None);
    }
    let rows = frame.rows() as usize;
    // A histogram of brightness (the three channels summed), then the sums of the pixels at each.
    let mut count = vec![0u32; 766];
    let mut sums = vec![[0u64; 3]; 766];
    for y in (STEP / 2..rows).step_by(STEP) {
        let row = frame.at_row::<core::Vec3b>(y as i32)?;
        for px in row.iter().skip(STEP / 2).step_by(STEP) {
            if px.0.iter().all(|&c| c >= GLARE) {
                continue;
            }
            let level = px.0.iter().map(|&c| usize::from(c)).sum::<usize>();
            count[level] += 1;
            for (s, &c) in sums[level].iter_mut().zip(&px.0) {
                *s += u64::from(c);
            }
        }
    }
    let total: u64 = count.iter().map(|&c| u64::from(c)).sum();
    let wanted = ((total as f64 * BRIGHTEST).ceil() as u64).max(1);
    let Some(top) = (0..count.len()).rev().find(|&l| count[l] > 0) else { return Ok(None) };
    let (mut taken, mut sum) = (0u64, [0u64; 3]);
    for level in (0..=top).rev() {
        // A few small cards may cover less than the share taken: the table's brightest pixels,
        // far darker than paper, must not tint the white point.
        if taken >= wanted || (level as f64) < NEAR_TOP * top as f64 {
            break;
        }
        taken += u64::from(count[level]);
        for (s, &c) in sum.iter_mut().zip(&sums[level]) {
            *s += c;
        }
    }
    // `top` itself holds a pixel, so `taken` is at least one.
    Ok(Some(sum.map(|s| s as f64 / taken as f64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of dark table with a sheet of paper on it, the paper lit `light` (B, G, R).
    fn table_with_paper(light: [f64; 3]) -> Mat {
        let mut frame =
            Mat::new_rows_cols_with_default(120, 160, core::CV_8UC3, core::Scalar::new(30.0, 60.0, 40.0, 0.0)).unwrap();
        let paper = core::Scalar::new(light[0], light[1], light[2], 0.0);
        let mut sheet = Mat::roi_mut(&mut frame, core::Rect::new(40, 30, 60, 50)).unwrap();
        sheet.set_to(&paper, &core::no_array()).unwrap();
        frame
    }

    #[test]
    fn paper_under_a_warm_lamp_is_made_grey() {
        let frame = table_with_paper([120.0, 190.0, 240.0]);
        let out = balanced(&frame).unwrap();
        assert!(matches!(out, Cow::Owned(_)), "a warm frame is balanced");
        let px = *out.at_2d::<core::Vec3b>(50, 60).unwrap();
        assert!(px.0.iter().all(|&c| c >= 236), "paper {:?} is grey", px.0);
    }

    #[test]
    fn a_frame_under_white_light_or_with_no_paper_is_left_as_it_is() {
        for frame in [table_with_paper([225.0, 232.0, 240.0]), table_with_paper([20.0, 60.0, 200.0])] {
            assert!(matches!(balanced(&frame).unwrap(), Cow::Borrowed(_)));
        }
    }

    #[test]
    fn a_small_card_on_green_felt_is_the_white_point_not_the_felt() {
        let mut frame =
            Mat::new_rows_cols_with_default(400, 400, core::CV_8UC3, core::Scalar::new(60.0, 150.0, 70.0, 0.0))
                .unwrap();
        // Under a tenth of a percent of the frame: fewer samples than the share taken.
        let mut card = Mat::roi_mut(&mut frame, core::Rect::new(100, 100, 10, 12)).unwrap();
        card.set_to(&core::Scalar::new(150.0, 200.0, 240.0, 0.0), &core::no_array()).unwrap();
        let gains = gains(&frame).unwrap().expect("the card is warm");
        assert!((gains[0] - 1.6).abs() < 0.05 && (gains[1] - 1.2).abs() < 0.05, "{gains:?}");
    }

    #[test]
    fn glare_is_not_taken_for_paper() {
        let mut frame = table_with_paper([120.0, 190.0, 240.0]);
        let mut glare = Mat::roi_mut(&mut frame, core::Rect::new(45, 35, 20, 20)).unwrap();
        glare.set_to(&core::Scalar::all(255.0), &core::no_array()).unwrap();
        let gains = gains(&frame).unwrap().expect("the paper around the glare is warm");
        assert!((gains[0] - 2.0).abs() < 0.05, "blue gain {gains:?}");
    }
}
