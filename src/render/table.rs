//! Table surfaces and light: a procedural cloth or wood texture, and a gain map for uneven light,
//! vignetting, colour cast and glare. Both depend only on their parameters and a seed.

use opencv::core::{self, Mat, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::geometry::Pt;

/// The kind of surface the cards lie on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TableKind {
    GreenFelt,
    Wood,
    Dark,
    Light,
}

impl TableKind {
    pub const ALL: [TableKind; 4] = [TableKind::GreenFelt, TableKind::Wood, TableKind::Dark, TableKind::Light];

    /// Base colour (B, G, R), low-frequency and fine-grain amplitudes.
    fn look(self) -> ([f64; 3], f64, f64) {
        match self {
            TableKind::GreenFelt => ([60.0, 110.0, 35.0], 10.0, 7.0),
            TableKind::Wood => ([55.0, 95.0, 150.0], 22.0, 4.0),
            TableKind::Dark => ([38.0, 36.0, 34.0], 6.0, 5.0),
            TableKind::Light => ([200.0, 212.0, 218.0], 8.0, 4.0),
        }
    }
}

/// Light falling on the table.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Lighting {
    /// Brightness change across the frame along `gradient_angle` (0.3 = ±30 %).
    pub gradient: f64,
    pub gradient_angle: f64,
    /// Darkening at the corners (0 … 0.5).
    pub vignette: f64,
    /// Multipliers for (B, G, R): a warm lamp has red above blue.
    pub cast: [f64; 3],
    /// A bright spot: centre in image pixels, radius in pixels, strength (0 … 1).
    pub glare: Option<(Pt, f64, f64)>,
}

impl Default for Lighting {
    fn default() -> Self {
        Lighting { gradient: 0.12, gradient_angle: 0.6, vignette: 0.15, cast: [0.97, 1.0, 1.03], glare: None }
    }
}

/// A rendered frame as if what lies inside `board` lay on a board or mat with real edges, on a
/// darker table: everything outside the rectangle is darkened to a third.
pub fn on_a_board(frame: &Mat, board: core::Rect) -> opencv::Result<Mat> {
    let mut dark = Mat::default();
    frame.convert_to(&mut dark, -1, 0.33, 0.0)?;
    Mat::roi(frame, board)?.copy_to(&mut Mat::roi_mut(&mut dark, board)?)?;
    Ok(dark)
}

/// A fresh table texture, BGR, `size` pixels.
pub fn table_texture(kind: TableKind, size: Size, seed: u64) -> opencv::Result<Mat> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (base, low_amp, fine_amp) = kind.look();
    let low = match kind {
        // Wood grain: long streaks along x.
        TableKind::Wood => noise_field(&mut rng, Size::new(6, size.height / 6 + 2), size)?,
        _ => noise_field(&mut rng, Size::new(size.width / 90 + 2, size.height / 90 + 2), size)?,
    };
    let fine = noise_field(&mut rng, Size::new(size.width / 2, size.height / 2), size)?;
    let tint: [f64; 3] = std::array::from_fn(|_| rng.random_range(-12.0..12.0));
    let mut channels = Vector::<Mat>::new();
    for c in 0..3 {
        let mut channel = Mat::default();
        core::add_weighted(&low, low_amp, &fine, fine_amp, base[c] + tint[c], &mut channel, core::CV_32F)?;
        channels.push(channel);
    }
    let mut merged = Mat::default();
    core::merge(&channels, &mut merged)?;
    let mut out = Mat::default();
    merged.convert_to(&mut out, core::CV_8UC3, 1.0, 0.0)?;
    Ok(out)
}

/// Uniform noise in [-1, 1] on a coarse grid, smoothly resized to `size` (CV_32F).
fn noise_field(rng: &mut ChaCha8Rng, grid: Size, size: Size) -> opencv::Result<Mat> {
    let grid = Size::new(grid.width.max(2), grid.height.max(2));
    let values: Vec<f32> = (0..grid.area()).map(|_| rng.random_range(-1.0..1.0)).collect();
    let coarse = Mat::new_rows_cols_with_data(grid.height, grid.width, &values)?;
    let mut out = Mat::default();
    imgproc::resize(&coarse, &mut out, size, 0.0, 0.0, imgproc::INTER_CUBIC)?;
    Ok(out)
}

/// Per-pixel light as an 8-bit, 3-channel gain map where 128 means unchanged; apply with
/// `core::multiply(frame, gain, out, 1.0 / 128.0)`.
pub fn gain_map(light: &Lighting, size: Size) -> opencv::Result<Mat> {
    // Computed on a coarse grid (light varies slowly) and resized.
    let grid = Size::new(64, 36);
    let (w, h) = (f64::from(size.width), f64::from(size.height));
    let diag = w.hypot(h) / 2.0;
    let (dir_y, dir_x) = light.gradient_angle.sin_cos();
    let mut data = Vec::with_capacity(grid.area() as usize * 3);
    for gy in 0..grid.height {
        for gx in 0..grid.width {
            let p = Pt::new(
                (f64::from(gx) + 0.5) * w / f64::from(grid.width),
                (f64::from(gy) + 0.5) * h / f64::from(grid.height),
            );
            let (dx, dy) = (p.x - w / 2.0, p.y - h / 2.0);
            let mut gain = 1.0 + light.gradient * (dx * dir_x + dy * dir_y) / diag;
            gain -= light.vignette * (dx * dx + dy * dy) / (diag * diag);
            if let Some((centre, radius, strength)) = light.glare {
                let d2 = (p.x - centre.x).powi(2) + (p.y - centre.y).powi(2);
                gain += strength * (-d2 / (2.0 * radius * radius)).exp();
            }
            for cast in light.cast {
                data.push((gain * cast * 128.0).clamp(0.0, 255.0) as u8);
            }
        }
    }
    let coarse =
        Mat::new_rows_cols_with_data(grid.height, grid.width * 3, &data)?.reshape(3, grid.height)?.try_clone()?;
    let mut out = Mat::default();
    imgproc::resize(&coarse, &mut out, size, 0.0, 0.0, imgproc::INTER_LINEAR)?;
    Ok(out)
}

/// Applies a gain map in place.
pub fn apply_light(frame: &mut Mat, gain: &Mat) -> opencv::Result<()> {
    let mut out = Mat::default();
    core::multiply(&*frame, gain, &mut out, 1.0 / 128.0, -1)?;
    *frame = out;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(m: &Mat) -> core::Scalar {
        core::mean(m, &core::no_array()).unwrap()
    }

    #[test]
    fn textures_are_deterministic_and_differ_by_seed() {
        let size = Size::new(160, 90);
        let a = table_texture(TableKind::Wood, size, 7).unwrap();
        let b = table_texture(TableKind::Wood, size, 7).unwrap();
        let c = table_texture(TableKind::Wood, size, 8).unwrap();
        assert_eq!(a.data_bytes().unwrap(), b.data_bytes().unwrap());
        assert_ne!(a.data_bytes().unwrap(), c.data_bytes().unwrap());
    }

    #[test]
    fn dark_tables_are_darker_than_light_ones() {
        let size = Size::new(160, 90);
        let dark = mean(&table_texture(TableKind::Dark, size, 1).unwrap());
        let light = mean(&table_texture(TableKind::Light, size, 1).unwrap());
        assert!(dark[1] + 100.0 < light[1]);
    }

    #[test]
    fn glare_brightens_its_spot() {
        let size = Size::new(320, 180);
        let light = Lighting { glare: Some((Pt::new(80.0, 90.0), 30.0, 0.6)), ..Lighting::default() };
        let gain = gain_map(&light, size).unwrap();
        let at = |x, y| gain.at_2d::<core::Vec3b>(y, x).unwrap()[1];
        assert!(at(80, 90) > at(240, 90) + 40, "{} vs {}", at(80, 90), at(240, 90));
    }
}
