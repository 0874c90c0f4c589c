//! How a frame moved: what share of it changed since the last frame, and what share of it is a
//! hand (skin-coloured and unlike the table). Measured on a small grey copy, for the settled view.

use opencv::core::{self, Mat, Size};
use opencv::imgproc;
use opencv::prelude::MatTraitConstManual;
use serde::Serialize;

/// How a frame moved: what share of it changed since the last frame, and what share of it is
/// skin-coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Motion {
    pub changed: f64,
    pub skin: f64,
}

impl Motion {
    /// A frame where nothing moved and no skin shows (for views fed without frames).
    pub const STILL: Motion = Motion { changed: 0.0, skin: 0.0 };
}

/// Grey levels a pixel of the small copy must change by to count as changed: sensor noise,
/// averaged over the 8×8 pixels each small pixel holds, stays well under it.
const PIXEL_CHANGE: f64 = 12.0;
/// The small copy the motion gate compares.
const SMALL: Size = Size { width: 160, height: 90 };

/// Measures each frame's motion against the frame before.
#[derive(Clone, Default)]
pub struct MotionGate {
    previous: Option<Mat>,
}

impl MotionGate {
    pub fn new() -> MotionGate {
        MotionGate::default()
    }

    /// The motion of a BGR frame since the last one measured (the first frame counts as changed).
    pub fn measure(&mut self, frame: &Mat) -> opencv::Result<Motion> {
        let mut small = Mat::default();
        imgproc::resize(frame, &mut small, SMALL, 0.0, 0.0, imgproc::INTER_AREA)?;
        let mut grey = Mat::default();
        imgproc::cvt_color_def(&small, &mut grey, imgproc::COLOR_BGR2GRAY)?;
        let total = f64::from(SMALL.width * SMALL.height);
        let changed = match &self.previous {
            Some(prev) => {
                let mut diff = Mat::default();
                core::absdiff(&grey, prev, &mut diff)?;
                let mut mask = Mat::default();
                imgproc::threshold(&diff, &mut mask, PIXEL_CHANGE, 255.0, imgproc::THRESH_BINARY)?;
                f64::from(core::count_non_zero(&mask)?) / total
            }
            None => 1.0,
        };
        self.previous = Some(grey);
        let mut ycrcb = Mat::default();
        imgproc::cvt_color_def(&small, &mut ycrcb, imgproc::COLOR_BGR2YCrCb)?;
        Ok(Motion { changed, skin: skin_share(small.data_bytes()?, ycrcb.data_bytes()?) })
    }
}

/// BGR distance from the table's colour beyond which a pixel is something on the table.
const UNLIKE_TABLE: i32 = 45;

/// The share of pixels (BGR and the same in YCrCb) in the usual skin cluster of Cr and Cb, over
/// a wide range of brightness, and unlike the table: farther than `UNLIKE_TABLE` from the median
/// colour, the table's, since it fills most of the picture. A wooden table is skin-coloured all
/// over, and its share of skin follows the light.
fn skin_share(bgr: &[u8], ycrcb: &[u8]) -> f64 {
    let pixels = bgr.len() / 3;
    let mut histograms = [[0u32; 256]; 3];
    for px in bgr.chunks_exact(3) {
        for (c, histogram) in histograms.iter_mut().enumerate() {
            histogram[usize::from(px[c])] += 1;
        }
    }
    let median = |histogram: &[u32; 256]| {
        let mut seen = 0;
        histogram.iter().position(|&n| {
            seen += n;
            seen as usize * 2 > pixels
        })
    };
    let table = histograms.each_ref().map(|h| median(h).unwrap_or(0) as i32);
    let skin = |p: &[u8]| (40..=250).contains(&p[0]) && (135..=175).contains(&p[1]) && (85..=130).contains(&p[2]);
    let unlike =
        |p: &[u8]| (0..3).map(|c| (i32::from(p[c]) - table[c]).pow(2)).sum::<i32>() > UNLIKE_TABLE * UNLIKE_TABLE;
    let count = bgr.chunks_exact(3).zip(ycrcb.chunks_exact(3)).filter(|(b, y)| skin(y) && unlike(b)).count();
    count as f64 / pixels.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1280×720 table of colour `table` (BGR) with darker streaks across it, as wood grain,
    /// and a hand-coloured block over `hand` of its width and height.
    fn table_frame(table: [f64; 3], hand: f64) -> Mat {
        let scalar = |c: [f64; 3]| core::Scalar::new(c[0], c[1], c[2], 0.0);
        let mut frame = Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, scalar(table)).unwrap();
        let streak = table.map(|v| v * 0.8);
        for y in (0..720).step_by(24) {
            let band = core::Rect::new(0, y, 1280, 6);
            imgproc::rectangle(&mut frame, band, scalar(streak), -1, imgproc::LINE_8, 0).unwrap();
        }
        let (w, h) = ((1280.0 * hand) as i32, (720.0 * hand) as i32);
        imgproc::rectangle(
            &mut frame,
            core::Rect::new(100, 100, w, h),
            scalar([150.0, 175.0, 225.0]),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        frame
    }

    #[test]
    fn skin_counts_only_what_is_unlike_the_table() {
        let skin = |table, hand| MotionGate::new().measure(&table_frame(table, hand)).unwrap().skin;
        let (wood, cloth) = ([50.0, 95.0, 170.0], [60.0, 90.0, 40.0]);
        assert!(skin(wood, 0.0) < 0.005, "a wooden table is no hand: {}", skin(wood, 0.0));
        for table in [wood, cloth] {
            let share = skin(table, 0.3);
            assert!((share - 0.09).abs() < 0.01, "a hand over 9 % of the picture: {share}");
        }
    }
}
