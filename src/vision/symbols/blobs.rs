//! Cutting a rectified card into symbol blobs: the non-white ink inside the disc, in connected
//! components after a small dilation so that the parts of one symbol (an eye and its lashes, a
//! ghost and its balloon) stay together.

use anyhow::Result;
use opencv::core::{self, Mat, Point, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;

use super::detect::CANON;

/// One symbol-sized patch of ink on a canonical card.
#[derive(Clone, Debug, PartialEq)]
pub struct Blob {
    /// Centroid in canonical-card pixels.
    pub center: (f32, f32),
    /// Ink pixels: (x, y, b, g, r).
    pub pixels: Vec<(u16, u16, [u8; 3])>,
}

/// Fraction of the canonical radius inside which ink is looked for (the rim has shadows).
const INNER: f32 = 0.93;
/// Blobs smaller than this fraction of the disc area are specks.
const MIN_AREA: f32 = 0.004;
/// At most this many blobs per card (the largest).
const MAX_BLOBS: usize = 14;

/// Finds the symbol blobs on a canonical BGR card (`CANON` x `CANON`).
pub fn find_blobs(card: &Mat) -> Result<Vec<Blob>> {
    // Pixels are read as one slice: copy only a view into a larger image.
    let owned;
    let card = if card.is_continuous() {
        card
    } else {
        owned = card.try_clone()?;
        &owned
    };
    let n = CANON as usize;
    let src = card.data_bytes()?;
    let half = CANON as f32 / 2.0;
    let inside = |x: usize, y: usize| {
        let (dx, dy) = (x as f32 + 0.5 - half, y as f32 + 0.5 - half);
        dx * dx + dy * dy < (INNER * half).powi(2)
    };
    // The card's white, per channel: the mean of the brightest tenth of the disc. Every pixel is
    // white-balanced and levelled against it, so that a bluish webcam and a flatbed scan agree on colours.
    let mut values: Vec<(u8, usize)> = Vec::with_capacity(n * n);
    for y in 0..n {
        for x in 0..n {
            if inside(x, y) {
                let i = y * n + x;
                let p = &src[i * 3..][..3];
                values.push((p[0].max(p[1]).max(p[2]), i));
            }
        }
    }
    if values.is_empty() {
        return Ok(Vec::new());
    }
    values.sort_unstable();
    let top = &values[values.len() * 85 / 100..values.len() * 97 / 100 + 1];
    let mut white = [0.0f32; 3];
    for &(_, i) in top {
        for (c, w) in white.iter_mut().enumerate() {
            *w += src[i * 3 + c] as f32;
        }
    }
    // Black level per channel (a washed-out webcam lifts it): a low percentile over the disc.
    let mut black = [0.0f32; 3];
    for (c, b) in black.iter_mut().enumerate() {
        let mut ch: Vec<u8> = values.iter().map(|&(_, i)| src[i * 3 + c]).collect();
        let k = ch.len() / 100;
        *b = (*ch.select_nth_unstable(k).1 as f32).min(90.0);
    }
    let levels: Vec<(f32, f32)> = (0..3)
        .map(|c| {
            let w = white[c] / top.len() as f32;
            (black[c], 245.0 / (w - black[c]).max(30.0))
        })
        .collect();
    let mut balanced = vec![0u8; n * n * 3];
    for (i, v) in balanced.iter_mut().enumerate() {
        let (b, g) = levels[i % 3];
        *v = ((src[i] as f32 - b) * g).clamp(0.0, 255.0) as u8;
    }
    let src = &balanced[..];
    let mut ink = Mat::new_rows_cols_with_default(CANON, CANON, core::CV_8UC1, Scalar::all(0.0))?;
    {
        let dst = ink.data_bytes_mut()?;
        for y in 0..n {
            for x in 0..n {
                if !inside(x, y) {
                    continue;
                }
                let p = &src[(y * n + x) * 3..][..3];
                let max = p[0].max(p[1]).max(p[2]) as i32;
                let min = p[0].min(p[1]).min(p[2]) as i32;
                let sat = if max == 0 { 0 } else { (max - min) * 255 / max };
                if sat > 55 || max < 180 {
                    dst[y * n + x] = 255;
                }
            }
        }
    }
    // Thin outlines are ink too (line-drawn symbols): no opening, specks go by area below.
    let opened = ink;
    let mut grown = Mat::default();
    let kernel = imgproc::get_structuring_element(imgproc::MORPH_ELLIPSE, Size::new(5, 5), Point::new(-1, -1))?;
    imgproc::dilate(&opened, &mut grown, &kernel, Point::new(-1, -1), 1, core::BORDER_CONSTANT, Scalar::all(0.0))?;
    let (mut labels, mut stats, mut centroids) = (Mat::default(), Mat::default(), Mat::default());
    let count =
        imgproc::connected_components_with_stats(&grown, &mut labels, &mut stats, &mut centroids, 8, core::CV_32S)?;
    let label_data: &[i32] = labels.data_typed()?;
    let ink_data = opened.data_bytes()?;
    let mut blobs: Vec<Blob> = (1..count).map(|_| Blob { center: (0.0, 0.0), pixels: Vec::new() }).collect();
    for y in 0..n {
        for x in 0..n {
            let i = y * n + x;
            let l = label_data[i];
            if l > 0 && ink_data[i] > 0 {
                let p = &src[i * 3..][..3];
                blobs[(l - 1) as usize].pixels.push((x as u16, y as u16, [p[0], p[1], p[2]]));
            }
        }
    }
    let min_area = (MIN_AREA * std::f32::consts::PI * half * half) as usize;
    blobs.retain(|b| b.pixels.len() >= min_area);
    for b in &mut blobs {
        let k = b.pixels.len() as f32;
        let (sx, sy) = b.pixels.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 as f32, a.1 + p.1 as f32));
        b.center = (sx / k, sy / k);
    }
    blobs.sort_by_key(|b| std::cmp::Reverse(b.pixels.len()));
    blobs.truncate(MAX_BLOBS);
    Ok(blobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_coloured_shapes_on_white_are_two_blobs() {
        let mut card = Mat::new_rows_cols_with_default(CANON, CANON, core::CV_8UC3, Scalar::all(250.0)).unwrap();
        imgproc::circle(&mut card, Point::new(80, 80), 25, Scalar::new(0.0, 0.0, 220.0, 0.0), -1, 8, 0).unwrap();
        imgproc::rectangle(&mut card, core::Rect::new(130, 130, 50, 30), Scalar::new(200.0, 50.0, 0.0, 0.0), -1, 8, 0)
            .unwrap();
        let blobs = find_blobs(&card).unwrap();
        assert_eq!(blobs.len(), 2);
        assert!((blobs[0].center.0 - 80.0).abs() < 2.0 || (blobs[1].center.0 - 80.0).abs() < 2.0);
    }
}
