//! How soft a frame is, and the loose search's ink sharpened to match. A webcam out of focus, or
//! a card moving, spreads each stroke of an index: a rank's thin strokes fade towards the paper
//! until they no longer pass for ink, while its pip, being solid, keeps its contrast. The search's
//! darkest channel is sharpened (an unsharp mask) by as much as the frame is measured to be
//! blurred, which gives a thin stroke back much of its contrast; a sharp frame is left as it is.

use opencv::{core, imgproc, prelude::*};

use super::pixels::min_channel;

/// Every how many rows (and columns) the edges are sampled.
const STEP: usize = 8;
/// The least rise, in grey levels, of an edge measured: a card's edge on a table, a glyph's
/// stroke; a table's grain rises less.
const LEAST_RISE: i32 = 50;
/// The steepness, in grey levels a pixel, below which no edge is measured.
const LEAST_SLOPE: i16 = 8;
/// How far either side of an edge its rise is taken, in pixels: a step blurred by 3 px rises
/// over about 2.5 times that either side of its middle.
const REACH: usize = 8;
/// How far either side an edge's middle must be its steepest place: noise makes small peaks of
/// steepness on a blurred edge's flanks, each of which, taken for an edge, measures wide.
const PEAK: usize = 3;
/// Which share of the measured edges, sharpest first, gives the frame's blur: edges are steps
/// seen square on or at a slant (wider), and slopes of shading (wider still); the sharpest
/// edges are the square-on steps.
const SHARPEST: f64 = 0.3;

/// The blur (`blur_sigma`, in the photo's own pixels) a frame may have and be searched as it is.
/// Sharp photos measure 0.6-0.8 (edje, the deals), the deals blurred by 1.2 px 1.3.
const SHARP: f32 = 0.85;

/// How much the unsharp mask adds back, for each pixel of blur over `SHARP`.
const GAIN: f32 = 2.5;

/// The most it adds back: beyond it, the grain of a table and the noise of a dim frame are
/// sharpened into ink as much as a glyph's strokes are.
const MOST: f32 = 2.0;

/// The width of the mask's Gaussian, against the blur measured.
const WIDER: f32 = 1.5;

/// The blur of `low` (one 8-bit channel), as the standard deviation in pixels of the Gaussian
/// that would soften a sharp step as much as its steepest edges are softened: about 0.8 for a
/// sharp photo, measured along rows and columns every `STEP` pixels (0.23 ms a 1280 x 720
/// frame, one thread). A step of rise h blurred by σ is h / (σ √(2π)) steep at its middle.
/// `None` where no edge rises `LEAST_RISE` (or `low` is not one continuous 8-bit channel, whose
/// bytes could not be read as rows).
fn blur_sigma(low: &Mat) -> opencv::Result<Option<f32>> {
    if low.typ() != core::CV_8UC1 || low.empty() || !low.is_continuous() {
        return Ok(None);
    }
    let (rows, cols) = (low.rows() as usize, low.cols() as usize);
    let data = low.data_bytes()?;
    let (mut widths, mut slope) = (Vec::new(), Vec::new());
    for line in data.chunks_exact(cols).step_by(STEP) {
        measure_line(line, &mut slope, &mut widths);
    }
    // Columns are gathered a row at a time (each row's bytes read in order) into lines of their
    // own, which then read as rows do.
    let picked: Vec<usize> = (0..cols).step_by(STEP).collect();
    let mut columns = vec![0u8; picked.len() * rows];
    for (r, line) in data.chunks_exact(cols).enumerate() {
        for (k, &c) in picked.iter().enumerate() {
            columns[k * rows + r] = line[c];
        }
    }
    for column in columns.chunks_exact(rows) {
        measure_line(column, &mut slope, &mut widths);
    }
    if widths.is_empty() {
        return Ok(None);
    }
    let k = ((widths.len() - 1) as f64 * SHARPEST) as usize;
    let (_, width, _) = widths.select_nth_unstable_by(k, f32::total_cmp);
    Ok(Some(*width))
}

/// Adds to `widths` the blur of each edge along one line of pixels:
/// at each place where the central difference is steepest (a local peak of at least
/// `LEAST_SLOPE` twice over), the rise within `REACH` either side over the steepness.
fn measure_line(line: &[u8], slope: &mut Vec<i16>, widths: &mut Vec<f32>) {
    let len = line.len();
    if len < 2 * REACH + 3 {
        return;
    }
    // The central difference at each pixel (twice the steepness there), in one pass that the
    // compiler vectorises: the search for edges then skips the flat stretches quickly.
    slope.clear();
    slope.push(0);
    slope.extend(line.windows(3).map(|w| (i16::from(w[2]) - i16::from(w[0])).abs()));
    slope.push(0);
    let at = |i: usize| i32::from(line[i]);
    for i in REACH..len - REACH {
        let here = slope[i];
        if here < 2 * LEAST_SLOPE || here <= slope[i + 1] || slope[i - PEAK..=i + PEAK].iter().any(|&s| s > here) {
            continue;
        }
        // The rise between the levels either side, each the mean of the two pixels at `REACH`
        // and one short of it: a pixel's noise would widen a lowest-to-highest rise, and a thin
        // line (as dark either side) rises nothing.
        let rise = ((at(i + REACH - 1) + at(i + REACH)) - (at(i - REACH) + at(i - REACH + 1))).abs() / 2;
        if rise >= LEAST_RISE {
            let steep = f32::from(here) / 2.0;
            widths.push(rise as f32 / (steep * (2.0 * std::f32::consts::PI).sqrt()));
        }
    }
}

/// The blur (`blur_sigma`) of the part of a BGR `frame` inside `rect` and `REACH` pixels round
/// it, in its darkest channel (where red and black ink alike are dark on white paper): how soft
/// one card is, whatever the rest of the frame.
pub fn blur_within(frame: &Mat, rect: core::Rect) -> opencv::Result<Option<f32>> {
    let reach = REACH as i32 + 1;
    let wide = core::Rect::new(rect.x - reach, rect.y - reach, rect.width + 2 * reach, rect.height + 2 * reach);
    let inside = wide & core::Rect::new(0, 0, frame.cols(), frame.rows());
    if inside.width < 2 * reach || inside.height < 2 * reach || frame.channels() != 3 {
        return Ok(None);
    }
    blur_sigma(&min_channel(&Mat::roi(frame, inside)?.try_clone()?)?)
}

/// How much an unsharp mask adds back to a frame blurred by `sigma` px (`blur_sigma`): nothing
/// to a sharp frame, then `GAIN` for each pixel more, to `MOST`.
fn unsharp_amount(sigma: f32) -> f32 {
    (GAIN * (sigma - SHARP)).clamp(0.0, MOST)
}

/// `low` (one 8-bit channel, the photo searched at `scale` times its size) sharpened as much as
/// it is blurred (`unsharp_amount` of its blur in the photo's own pixels: a frame doubled for the
/// search has its edges widened, but its strokes too): low + amount x (low - low blurred by
/// `WIDER` times its blur); `None` where it is sharp (models/README.md, "Tuning measurements":
/// `sharpened`).
pub fn sharpened(low: &Mat, scale: f32) -> opencv::Result<Option<Mat>> {
    let Some(sigma) = blur_sigma(low)? else { return Ok(None) };
    let amount = f64::from(unsharp_amount(sigma / scale));
    if amount <= 0.0 {
        return Ok(None);
    }
    let wide = f64::from(sigma * WIDER);
    let mut soft = Mat::default();
    imgproc::gaussian_blur(low, &mut soft, core::Size::new(0, 0), wide, wide, core::BORDER_REPLICATE)?;
    let mut sharp = Mat::default();
    core::add_weighted(low, 1.0 + amount, &soft, -amount, 0.0, &mut sharp, -1)?;
    Ok(Some(sharp))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// White paper (220) with dark squares (40) of several sizes, blurred by `sigma` px.
    fn squares(sigma: f64) -> Mat {
        let mut low = Mat::new_rows_cols_with_default(240, 320, core::CV_8UC1, core::Scalar::all(220.0)).unwrap();
        for (i, size) in [12, 20, 30, 44].into_iter().enumerate() {
            let r = core::Rect::new(20 + 70 * i as i32, 40 + 30 * (i as i32 % 2), size, size + 30);
            imgproc::rectangle(&mut low, r, core::Scalar::all(40.0), -1, imgproc::LINE_8, 0).unwrap();
        }
        if sigma == 0.0 {
            return low;
        }
        let mut out = Mat::default();
        imgproc::gaussian_blur(&low, &mut out, core::Size::new(0, 0), sigma, sigma, core::BORDER_REPLICATE).unwrap();
        out
    }

    #[test]
    fn the_blur_measured_grows_with_the_blur_given_and_a_sharp_frame_needs_no_sharpening() {
        let sharp = blur_sigma(&squares(0.0)).unwrap().unwrap();
        assert!(sharp < SHARP, "sharp steps measure {sharp}");
        assert!(sharpened(&squares(0.0), 1.0).unwrap().is_none());
        let mut last = sharp;
        for sigma in [1.0, 1.5, 2.0, 3.0] {
            let measured = blur_sigma(&squares(sigma)).unwrap().unwrap();
            assert!(measured > last, "blur {sigma} measured {measured}, less blur {last}");
            assert!((measured - sigma as f32).abs() < 0.35 * sigma as f32, "blur {sigma} measured {measured}");
            last = measured;
        }
    }

    #[test]
    fn a_card_s_own_blur_is_measured_in_its_region_whatever_the_rest_of_the_frame() {
        // The left half sharp, the right half blurred by 2 px, as three BGR channels.
        let sharp = squares(0.0);
        let soft = squares(2.0);
        let mut grey = sharp.clone();
        let right = core::Rect::new(160, 0, 160, 240);
        Mat::roi(&soft, right).unwrap().copy_to(&mut Mat::roi_mut(&mut grey, right).unwrap()).unwrap();
        let mut frame = Mat::default();
        imgproc::cvt_color_def(&grey, &mut frame, imgproc::COLOR_GRAY2BGR).unwrap();
        let left = blur_within(&frame, core::Rect::new(10, 30, 120, 120)).unwrap().unwrap();
        let right = blur_within(&frame, core::Rect::new(220, 30, 90, 120)).unwrap().unwrap();
        assert!(left < SHARP, "sharp region measured {left}");
        assert!((right - 2.0).abs() < 0.7, "blurred region measured {right}");
        // A region at the frame's edge is measured on the part inside it; one with nothing to
        // measure says so.
        assert!(blur_within(&frame, core::Rect::new(-20, -20, 100, 120)).unwrap().is_some());
        assert_eq!(blur_within(&frame, core::Rect::new(400, 300, 20, 20)).unwrap(), None);
    }

    #[test]
    fn a_plain_frame_has_no_blur_to_measure() {
        let plain = Mat::new_rows_cols_with_default(100, 100, core::CV_8UC1, core::Scalar::all(128.0)).unwrap();
        assert_eq!(blur_sigma(&plain).unwrap(), None);
        assert!(sharpened(&plain, 1.0).unwrap().is_none());
    }

    #[test]
    fn a_thin_stroke_blurred_is_darkened_again() {
        // A stroke 2 px wide (as a small rank's), blurred by 2 px, keeps under half its contrast
        // (180); the frame sharpened nearly doubles what is left, and the paper stays paper.
        let mut low = squares(0.0);
        let stroke = core::Rect::new(150, 170, 2, 50);
        imgproc::rectangle(&mut low, stroke, core::Scalar::all(40.0), -1, imgproc::LINE_8, 0).unwrap();
        let mut blurred = Mat::default();
        imgproc::gaussian_blur(&low, &mut blurred, core::Size::new(0, 0), 2.0, 2.0, core::BORDER_REPLICATE).unwrap();
        let darkest = |m: &Mat| *m.at_2d::<u8>(195, 150).unwrap().min(m.at_2d::<u8>(195, 151).unwrap());
        let before = 220 - i32::from(darkest(&blurred));
        let sharp = sharpened(&blurred, 1.0).unwrap().expect("a blurred frame is sharpened");
        let after = 220 - i32::from(darkest(&sharp));
        assert!(before < 90, "blurred contrast {before}");
        assert!(after > 110 && after * 10 > before * 16, "sharpened contrast {after} (blurred {before})");
        assert!((i32::from(*sharp.at_2d::<u8>(200, 250).unwrap()) - 220).abs() <= 2, "paper far from ink");
    }

    #[test]
    fn the_sharpening_grows_with_the_blur_to_a_limit() {
        assert_eq!(unsharp_amount(0.7), 0.0);
        assert_eq!(unsharp_amount(SHARP), 0.0);
        assert!(unsharp_amount(1.3) > 0.5 && unsharp_amount(1.3) < unsharp_amount(1.6));
        assert_eq!(unsharp_amount(5.0), MOST);
    }
}
