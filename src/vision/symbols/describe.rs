//! Blob descriptors that survive a change of camera, scale and rotation: a hue histogram (with
//! bins for unsaturated dark and light ink), a radial profile of the ink around its centroid,
//! log-scaled Hu moments of the ink mask, and how the ink is spread round the centroid in rings
//! (the magnitudes of each ring's angular Fourier terms, which a rotation leaves unchanged).

use super::blobs::Blob;

const HUE_BINS: usize = 12;
const GREY_BINS: usize = 3;
const RADIAL_BINS: usize = 8;
const HU: usize = 4;
const COLOUR: usize = HUE_BINS + GREY_BINS;
/// Rings of the angular part, each half the ink's RMS radius wide (the last one open).
const RINGS: usize = 4;
/// The Fourier terms kept: 1 to `FREQS` (the 0th is the radial profile).
const FREQS: usize = 4;
const ANGULAR: usize = RINGS * FREQS;
/// Length of a descriptor.
pub const LEN: usize = COLOUR + RADIAL_BINS + HU + ANGULAR;

/// Weights of the four parts in the distance. Colour and the radial profile alone confuse
/// symbols of one colour and size across webcams (a yellow cheese read as a yellow car); the
/// angular part tells their shapes apart.
const W_COLOUR: f32 = 1.0;
const W_RADIAL: f32 = 0.6;
const W_HU: f32 = 0.08;
const W_ANGULAR: f32 = 1.5;

fn hsv(p: [u8; 3]) -> (f32, f32, f32) {
    let (b, g, r) = (p[0] as f32, p[1] as f32, p[2] as f32);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let d = max - min;
    let s = if max > 0.0 { d / max } else { 0.0 };
    let h = if d <= 0.0 {
        0.0
    } else if max == r {
        ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    } / 6.0;
    (h, s, max / 255.0)
}

/// Describes a blob.
pub fn describe(blob: &Blob) -> Vec<f32> {
    let mut d = vec![0.0f32; LEN];
    let n = blob.pixels.len().max(1) as f32;
    let (cx, cy) = blob.center;
    for &(_, _, p) in &blob.pixels {
        let (h, s, v) = hsv(p);
        let mut add = |bin: usize, w: f32| d[bin] += w / n;
        if s > 0.25 && v > 0.2 {
            // Soft binning over two neighbouring hue bins.
            let x = h * HUE_BINS as f32 - 0.5;
            let i0 = x.floor();
            let f = x - i0;
            let i0 = (i0 as i32).rem_euclid(HUE_BINS as i32) as usize;
            let i1 = (i0 + 1) % HUE_BINS;
            add(i0, 1.0 - f);
            add(i1, f);
        } else if v < 0.35 {
            add(HUE_BINS, 1.0);
        } else if v < 0.65 {
            add(HUE_BINS + 1, 1.0);
        } else {
            add(HUE_BINS + 2, 1.0);
        }
    }
    // Moments of the mask.
    let (mut mu20, mut mu02, mut mu11, mut mu30, mut mu03, mut mu21, mut mu12) = (0.0f64, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let mut radii = Vec::with_capacity(blob.pixels.len());
    for &(x, y, _) in &blob.pixels {
        let (dx, dy) = (x as f64 - cx as f64, y as f64 - cy as f64);
        mu20 += dx * dx;
        mu02 += dy * dy;
        mu11 += dx * dy;
        mu30 += dx * dx * dx;
        mu03 += dy * dy * dy;
        mu21 += dx * dx * dy;
        mu12 += dx * dy * dy;
        radii.push((dx * dx + dy * dy).sqrt() as f32);
    }
    let m00 = n as f64;
    let rms = ((mu20 + mu02) / m00).sqrt().max(1e-6) as f32;
    let base = HUE_BINS + GREY_BINS;
    for r in radii {
        let bin = ((r / rms) / 2.0 * RADIAL_BINS as f32) as usize;
        d[base + bin.min(RADIAL_BINS - 1)] += 1.0 / n;
    }
    let norm2 = m00.powi(2);
    let norm3 = m00.powf(2.5);
    let (n20, n02, n11) = (mu20 / norm2, mu02 / norm2, mu11 / norm2);
    let (n30, n03, n21, n12) = (mu30 / norm3, mu03 / norm3, mu21 / norm3, mu12 / norm3);
    let h1 = n20 + n02;
    let h2 = (n20 - n02).powi(2) + 4.0 * n11 * n11;
    let h3 = (n30 - 3.0 * n12).powi(2) + (3.0 * n21 - n03).powi(2);
    let h4 = (n30 + n12).powi(2) + (n21 + n03).powi(2);
    let base = base + RADIAL_BINS;
    for (i, h) in [h1, h2, h3, h4].into_iter().enumerate() {
        d[base + i] = -(h.abs().max(1e-12)).log10() as f32;
    }
    let base = base + HU;
    d[base..base + ANGULAR].copy_from_slice(&angular_spread(blob, rms));
    d
}

/// The ink's spread round its centroid: per ring, the magnitudes of the first `FREQS` angular
/// Fourier terms of the ink, as fractions of all the ink. Each pixel adds its direction raised to
/// the k-th power (as a complex number), which needs no angle.
fn angular_spread(blob: &Blob, rms: f32) -> [f32; ANGULAR] {
    let n = blob.pixels.len().max(1) as f32;
    let (cx, cy) = blob.center;
    let mut sums = [[(0.0f32, 0.0f32); FREQS]; RINGS];
    for &(x, y, _) in &blob.pixels {
        let (dx, dy) = (x as f32 - cx, y as f32 - cy);
        let r = (dx * dx + dy * dy).sqrt();
        if r < 1e-3 {
            continue;
        }
        let ring = &mut sums[((r / rms * 2.0) as usize).min(RINGS - 1)];
        let unit = (dx / r, dy / r);
        let mut power = unit;
        for term in ring.iter_mut() {
            term.0 += power.0;
            term.1 += power.1;
            power = (power.0 * unit.0 - power.1 * unit.1, power.0 * unit.1 + power.1 * unit.0);
        }
    }
    let mut out = [0.0f32; ANGULAR];
    for (r, ring) in sums.iter().enumerate() {
        for (k, &(re, im)) in ring.iter().enumerate() {
            out[r * FREQS + k] = (re * re + im * im).sqrt() / n;
        }
    }
    out
}

/// Distance between two descriptors (0 for equal ones).
pub fn distance(a: &[f32], b: &[f32]) -> f32 {
    let l1 = |r: std::ops::Range<usize>| r.map(|i| (a[i] - b[i]).abs()).sum::<f32>();
    let colour = l1(0..COLOUR);
    let radial = l1(COLOUR..COLOUR + RADIAL_BINS);
    let hu = l1(COLOUR + RADIAL_BINS..COLOUR + RADIAL_BINS + HU);
    let angular = l1(COLOUR + RADIAL_BINS + HU..LEN);
    W_COLOUR * colour + W_RADIAL * radial + W_HU * hu + W_ANGULAR * angular
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disc(cx: f32, cy: f32, r: f32, bgr: [u8; 3]) -> Blob {
        let mut pixels = Vec::new();
        for y in 0..240u16 {
            for x in 0..240u16 {
                if (x as f32 - cx).powi(2) + (y as f32 - cy).powi(2) < r * r {
                    pixels.push((x, y, bgr));
                }
            }
        }
        Blob { center: (cx, cy), pixels }
    }

    #[test]
    fn same_shape_and_colour_at_another_size_is_close_another_colour_is_far() {
        let a = describe(&disc(60.0, 60.0, 20.0, [0, 0, 220]));
        let b = describe(&disc(120.0, 100.0, 30.0, [0, 0, 200]));
        let c = describe(&disc(60.0, 60.0, 20.0, [220, 0, 0]));
        assert!(distance(&a, &b) < 0.2, "{}", distance(&a, &b));
        assert!(distance(&a, &c) > 1.0, "{}", distance(&a, &c));
    }

    /// An L of ink: a bar and a foot, turned by `quarter` quarter turns about (120, 120).
    fn ell(quarter: usize) -> Blob {
        let mut pixels = Vec::new();
        for y in 80..160u16 {
            for x in 80..160u16 {
                let (u, v) = (x - 80, y - 80);
                if u < 20 || v >= 60 {
                    let (rx, ry) = match quarter % 4 {
                        0 => (x, y),
                        1 => (240 - y, x),
                        2 => (240 - x, 240 - y),
                        _ => (y, 240 - x),
                    };
                    pixels.push((rx, ry, [0, 0, 0]));
                }
            }
        }
        let k = pixels.len() as f32;
        let (sx, sy) = pixels.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 as f32, a.1 + p.1 as f32));
        Blob { center: (sx / k, sy / k), pixels }
    }

    #[test]
    fn the_angular_part_ignores_a_turn_and_tells_an_ell_from_a_square() {
        let part = |b: &Blob| describe(b)[COLOUR + RADIAL_BINS + HU..].to_vec();
        let l1 = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f32>();
        let upright = part(&ell(0));
        let square = part(&Blob {
            pixels: (80..160u16).flat_map(|y| (80..160u16).map(move |x| (x, y, [0, 0, 0]))).collect(),
            center: (119.5, 119.5),
        });
        for quarter in 1..4 {
            assert!(l1(&upright, &part(&ell(quarter))) < 0.05, "turned {quarter} quarters");
        }
        assert!(l1(&upright, &square) > 0.2, "{}", l1(&upright, &square));
    }
}
