//! Frames as another camera or another light would give them: for measuring how a recogniser
//! holds up beyond the photographs at hand (`eval cards --alter`). Each alteration is
//! deterministic, so a figure measured with one can be measured again.

use std::fmt;
use std::str::FromStr;

use opencv::{core, imgcodecs, imgproc, prelude::*};

/// One change to a frame (BGR, 8 bits a channel).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Alteration {
    /// A warm lamp as a camera with no white balance of its own sees it: blue scaled by this,
    /// green by halfway between it and 1, red kept.
    Warm(f64),
    /// Light falling across the frame, from this share of it at the left edge to all at the right.
    Falloff(f64),
    /// Every level raised to this power (over 1 darkens the mid-tones, as a contrasty camera).
    Gamma(f64),
    /// A Gaussian blur of this many pixels (a camera a little out of focus).
    Blur(f64),
    /// Sensor noise: Gaussian, this many levels, each channel apart, from a fixed seed.
    Noise(f64),
    /// Encoded as JPEG at this quality (1-100) and decoded again.
    Jpeg(i32),
    /// Scaled by this factor (a camera nearer or further, or of another resolution).
    Scale(f64),
    /// Turned a quarter clockwise.
    Turn,
}

/// What is wrong with an alteration as written.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("alteration `{text}`: {problem} (one of warm:B falloff:F gamma:G blur:S noise:S jpeg:Q scale:K turn)")]
pub struct BadAlteration {
    text: String,
    problem: String,
}

impl FromStr for Alteration {
    type Err = BadAlteration;

    fn from_str(text: &str) -> Result<Alteration, BadAlteration> {
        let bad = |problem: &str| BadAlteration { text: text.to_string(), problem: problem.to_string() };
        let (name, value) = match text.split_once(':') {
            Some((name, value)) => (name, Some(value)),
            None => (text, None),
        };
        if name == "turn" {
            return match value {
                None => Ok(Alteration::Turn),
                Some(_) => Err(bad("turn takes no value")),
            };
        }
        let value = value.ok_or_else(|| bad("no value after the name"))?;
        let number: f64 = value.parse().map_err(|_| bad("the value is not a number"))?;
        let within = |low: f64, high: f64| {
            if number.is_finite() && (low..=high).contains(&number) {
                Ok(number)
            } else {
                Err(bad(&format!("the value must lie within {low} to {high}")))
            }
        };
        Ok(match name {
            "warm" => Alteration::Warm(within(0.05, 1.0)?),
            "falloff" => Alteration::Falloff(within(0.05, 1.0)?),
            "gamma" => Alteration::Gamma(within(0.2, 5.0)?),
            "blur" => Alteration::Blur(within(0.1, 20.0)?),
            "noise" => Alteration::Noise(within(0.0, 100.0)?),
            "jpeg" => Alteration::Jpeg(within(1.0, 100.0)?.round() as i32),
            "scale" => Alteration::Scale(within(0.1, 4.0)?),
            _ => return Err(bad("unknown name")),
        })
    }
}

impl fmt::Display for Alteration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Alteration::Warm(v) => write!(f, "warm:{v}"),
            Alteration::Falloff(v) => write!(f, "falloff:{v}"),
            Alteration::Gamma(v) => write!(f, "gamma:{v}"),
            Alteration::Blur(v) => write!(f, "blur:{v}"),
            Alteration::Noise(v) => write!(f, "noise:{v}"),
            Alteration::Jpeg(q) => write!(f, "jpeg:{q}"),
            Alteration::Scale(v) => write!(f, "scale:{v}"),
            Alteration::Turn => write!(f, "turn"),
        }
    }
}

impl Alteration {
    /// `frame` altered.
    pub fn apply(&self, frame: &Mat) -> opencv::Result<Mat> {
        let mut out = Mat::default();
        match *self {
            Alteration::Warm(blue) => {
                let gains = core::Scalar::new(blue, (1.0 + blue) / 2.0, 1.0, 0.0);
                core::multiply(frame, &gains, &mut out, 1.0, -1)?;
            }
            Alteration::Falloff(left) => {
                // One row of gains, left to right, applied to every row.
                let cols = frame.cols();
                let mut row = Mat::new_rows_cols_with_default(1, cols, core::CV_32FC3, core::Scalar::all(0.0))?;
                for (x, g) in row.data_typed_mut::<core::Vec3f>()?.iter_mut().enumerate() {
                    let k = (left + (1.0 - left) * x as f64 / f64::from(cols.max(2) - 1)) as f32;
                    *g = core::Vec3f::from([k, k, k]);
                }
                let mut gains = Mat::default();
                core::repeat_to(&row, frame.rows(), 1, &mut gains)?;
                let mut wide = Mat::default();
                frame.convert_to(&mut wide, core::CV_32FC3, 1.0, 0.0)?;
                let mut lit = Mat::default();
                core::multiply(&wide, &gains, &mut lit, 1.0, -1)?;
                lit.convert_to(&mut out, core::CV_8UC3, 1.0, 0.0)?;
            }
            Alteration::Gamma(g) => {
                let mut table = Mat::new_rows_cols_with_default(1, 256, core::CV_8UC1, core::Scalar::all(0.0))?;
                for (v, t) in table.data_typed_mut::<u8>()?.iter_mut().enumerate() {
                    *t = ((v as f64 / 255.0).powf(g) * 255.0).round() as u8;
                }
                core::lut(frame, &table, &mut out)?;
            }
            Alteration::Blur(sigma) => {
                imgproc::gaussian_blur(frame, &mut out, core::Size::default(), sigma, sigma, core::BORDER_DEFAULT)?;
            }
            Alteration::Noise(sigma) => {
                // The renderer's sensor noise, from a fixed seed: the same noise on every run.
                out = frame.try_clone()?;
                add_noise(&mut out, sigma, 0x5eed)?;
            }
            Alteration::Jpeg(quality) => out = jpeg_round_trip(frame, quality)?,
            Alteration::Scale(k) => {
                let size = core::Size::new(
                    ((f64::from(frame.cols()) * k).round() as i32).max(1),
                    ((f64::from(frame.rows()) * k).round() as i32).max(1),
                );
                let how = if k < 1.0 { imgproc::INTER_AREA } else { imgproc::INTER_CUBIC };
                imgproc::resize(frame, &mut out, size, 0.0, 0.0, how)?;
            }
            Alteration::Turn => core::rotate(frame, &mut out, core::ROTATE_90_CLOCKWISE)?,
        }
        Ok(out)
    }
}

/// `frame` encoded as JPEG at `quality` (1-100) and decoded again.
pub fn jpeg_round_trip(frame: &Mat, quality: i32) -> opencv::Result<Mat> {
    let params = core::Vector::<i32>::from_iter([imgcodecs::IMWRITE_JPEG_QUALITY, quality]);
    let mut bytes = core::Vector::<u8>::new();
    imgcodecs::imencode(".jpg", frame, &mut bytes, &params)?;
    imgcodecs::imdecode(&bytes, imgcodecs::IMREAD_COLOR)
}

/// `frame` with each alteration applied in turn.
pub fn apply_all(frame: Mat, alterations: &[Alteration]) -> opencv::Result<Mat> {
    alterations.iter().try_fold(frame, |frame, a| a.apply(&frame))
}

/// Adds Gaussian sensor noise of standard deviation `sigma`, deterministic for `seed`.
pub fn add_noise(frame: &mut Mat, sigma: f64, seed: u64) -> opencv::Result<()> {
    if sigma <= 0.0 {
        return Ok(());
    }
    core::set_rng_seed(seed as i32)?;
    let mut noise = Mat::new_rows_cols_with_default(frame.rows(), frame.cols(), core::CV_8UC3, core::Scalar::all(0.0))?;
    core::randn(&mut noise, &core::Scalar::all(128.0), &core::Scalar::all(sigma))?;
    let mut out = Mat::default();
    core::add_weighted(&*frame, 1.0, &noise, 1.0, -128.0, &mut out, -1)?;
    *frame = out;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grey(level: f64) -> Mat {
        Mat::new_rows_cols_with_default(40, 60, core::CV_8UC3, core::Scalar::all(level)).unwrap()
    }

    fn pixel(m: &Mat, row: i32, col: i32) -> [u8; 3] {
        m.at_2d::<core::Vec3b>(row, col).unwrap().0
    }

    #[test]
    fn alterations_are_read_as_written_and_bad_ones_say_what_is_wrong() {
        for text in ["warm:0.55", "falloff:0.5", "gamma:1.8", "blur:1.2", "noise:8", "jpeg:85", "scale:0.5", "turn"] {
            let a: Alteration = text.parse().unwrap();
            assert_eq!(a.to_string(), text);
        }
        for (text, says) in [
            ("warm", "no value"),
            ("warm:x", "not a number"),
            ("warm:1.5", "within 0.05 to 1"),
            ("gamma:NaN", "within"),
            ("sepia:1", "unknown name"),
            ("turn:2", "no value"),
        ] {
            let e = text.parse::<Alteration>().unwrap_err().to_string();
            assert!(e.contains(text) && e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn each_alteration_changes_the_frame_as_it_says() {
        let warm = Alteration::Warm(0.5).apply(&grey(200.0)).unwrap();
        assert_eq!(pixel(&warm, 10, 10), [100, 150, 200]);
        let falling = Alteration::Falloff(0.5).apply(&grey(200.0)).unwrap();
        assert_eq!((pixel(&falling, 5, 0)[0], pixel(&falling, 5, 59)[0]), (100, 200));
        let dark = Alteration::Gamma(2.0).apply(&grey(128.0)).unwrap();
        assert_eq!(pixel(&dark, 0, 0)[0], 64);
        let turned = Alteration::Turn.apply(&grey(1.0)).unwrap();
        assert_eq!((turned.rows(), turned.cols()), (60, 40));
        let half = Alteration::Scale(0.5).apply(&grey(1.0)).unwrap();
        assert_eq!((half.rows(), half.cols()), (20, 30));
        let noisy = Alteration::Noise(8.0).apply(&grey(128.0)).unwrap();
        let again = Alteration::Noise(8.0).apply(&grey(128.0)).unwrap();
        let diff = core::norm2(&noisy, &again, core::NORM_INF, &core::no_array()).unwrap();
        assert_eq!(diff, 0.0, "the same noise each time");
        let changed =
            core::norm2(&noisy, &grey(128.0), core::NORM_L1, &core::no_array()).unwrap() / (40.0 * 60.0 * 3.0);
        assert!((4.0..9.0).contains(&changed), "mean change {changed} for noise of 8 levels");
        let jpeg = Alteration::Jpeg(30).apply(&grey(128.0)).unwrap();
        assert_eq!((jpeg.rows(), jpeg.cols(), jpeg.typ()), (40, 60, core::CV_8UC3));
    }
}
