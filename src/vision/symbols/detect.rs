//! Finding round cards: white discs (ellipses when seen at an angle) on any table.
//!
//! Candidates come from two sources, so that a white card is found on a dark table as well as on a
//! white one: the outer contours of the "whitish" (bright, unsaturated) regions, and the contours
//! of the image's edges. Each candidate gets an ellipse (`fit_ellipse`) that must be supported by
//! edges along most of its rim and be whitish just inside its rim.

use anyhow::Result;
use opencv::core::{self, Mat, Point, Point2f, Scalar, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;

/// Diameter of the canonical (rectified) card, in pixels.
pub const CANON: i32 = 240;

/// One card's outline in the image.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CardRegion {
    pub center: (f32, f32),
    /// Semi-axes in pixels (along `angle_deg`, and across).
    pub axes: (f32, f32),
    pub angle_deg: f32,
}

impl CardRegion {
    /// Mean radius.
    pub fn radius(&self) -> f32 {
        (self.axes.0 * self.axes.1).sqrt()
    }

    /// The affine map from canonical-card pixels to image pixels, as a 2x3 row-major matrix.
    pub fn canon_to_image(&self) -> [f64; 6] {
        let half = CANON as f64 / 2.0;
        let (s, c) = (self.angle_deg as f64).to_radians().sin_cos();
        let (a, b) = (self.axes.0 as f64 / half, self.axes.1 as f64 / half);
        let (m00, m01, m10, m11) = (a * c, -b * s, a * s, b * c);
        let tx = self.center.0 as f64 - (m00 + m01) * half;
        let ty = self.center.1 as f64 - (m10 + m11) * half;
        [m00, m01, tx, m10, m11, ty]
    }

    /// Maps a canonical-card point to the image.
    pub fn to_image(&self, p: (f32, f32)) -> (f32, f32) {
        let m = self.canon_to_image();
        let (x, y) = (p.0 as f64, p.1 as f64);
        ((m[0] * x + m[1] * y + m[2]) as f32, (m[3] * x + m[4] * y + m[5]) as f32)
    }
}

/// Whiteness of a BGR pixel: value minus saturation, both 0..255.
fn whiteness(b: u8, g: u8, r: u8) -> u8 {
    let max = b.max(g).max(r) as i32;
    let min = b.min(g).min(r) as i32;
    let sat = if max == 0 { 0 } else { (max - min) * 255 / max };
    (max - sat).clamp(0, 255) as u8
}

/// Grey "whiteness" image of a BGR frame.
pub fn whiteness_image(bgr: &Mat) -> Result<Mat> {
    let rows = bgr.rows();
    let cols = bgr.cols();
    let src = bgr.data_bytes()?;
    let mut out = Mat::new_rows_cols_with_default(rows, cols, core::CV_8UC1, Scalar::all(0.0))?;
    let dst = out.data_bytes_mut()?;
    for (i, px) in src.chunks_exact(3).enumerate() {
        dst[i] = whiteness(px[0], px[1], px[2]);
    }
    Ok(out)
}

fn contours_of(mask: &Mat, mode: i32) -> Result<Vector<Vector<Point>>> {
    let mut contours = Vector::<Vector<Point>>::new();
    imgproc::find_contours(mask, &mut contours, mode, imgproc::CHAIN_APPROX_NONE, Point::new(0, 0))?;
    Ok(contours)
}

/// Finds the round cards in a BGR frame, largest first.
pub fn find_cards(bgr: &Mat) -> Result<Vec<CardRegion>> {
    let bgr = if bgr.is_continuous() { bgr.clone() } else { bgr.try_clone()? };
    // Work at most 640 pixels wide: cards are large, and edges are cleaner.
    let scale = (640.0 / bgr.cols().max(bgr.rows()) as f64).min(1.0);
    let small = if scale < 1.0 {
        let mut s = Mat::default();
        imgproc::resize(&bgr, &mut s, Size::new(0, 0), scale, scale, imgproc::INTER_AREA)?;
        s
    } else {
        bgr
    };
    let (w, h) = (small.cols(), small.rows());
    let white = whiteness_image(&small)?;
    let mut blurred = Mat::default();
    imgproc::gaussian_blur_def(&white, &mut blurred, Size::new(5, 5), 1.2)?;

    let mut mask = Mat::default();
    let otsu = imgproc::threshold(&blurred, &mut mask, 0.0, 255.0, imgproc::THRESH_BINARY | imgproc::THRESH_OTSU)?;
    let mut edges = Mat::default();
    imgproc::canny_def(&blurred, &mut edges, 10.0, 30.0)?;
    let kernel = imgproc::get_structuring_element(imgproc::MORPH_ELLIPSE, Size::new(3, 3), Point::new(-1, -1))?;
    let mut edges_thick = Mat::default();
    imgproc::dilate(&edges, &mut edges_thick, &kernel, Point::new(-1, -1), 1, core::BORDER_CONSTANT, Scalar::all(0.0))?;

    let min_radius = (w.min(h) as f32 * 0.06).max(12.0);
    let mut candidates: Vec<Vector<Point>> = contours_of(&mask, imgproc::RETR_EXTERNAL)?.into_iter().collect();
    candidates.extend(contours_of(&edges_thick, imgproc::RETR_LIST)?);

    let white_bytes = blurred.data_bytes()?;
    let edge_bytes = edges_thick.data_bytes()?;
    let at = |bytes: &[u8], x: f32, y: f32| -> Option<u8> {
        let (xi, yi) = (x.round() as i32, y.round() as i32);
        (xi >= 0 && yi >= 0 && xi < w && yi < h).then(|| bytes[(yi * w + xi) as usize])
    };
    let white_thr = (otsu as f32).max(60.0);

    let mut found: Vec<(f32, CardRegion)> = Vec::new();
    for contour in candidates {
        if contour.len() < 20 {
            continue;
        }
        let rect = imgproc::fit_ellipse(&contour)?;
        let (a, b) = (rect.size.width / 2.0, rect.size.height / 2.0);
        if !(a.is_finite() && b.is_finite()) || a.min(b) < min_radius || a.max(b) > 1.2 * w.max(h) as f32 {
            continue;
        }
        // Seen at an angle a disc is an ellipse, but not a very thin one.
        if a.min(b) / a.max(b) < 0.45 {
            continue;
        }
        let region = CardRegion { center: (rect.center.x, rect.center.y), axes: (a, b), angle_deg: rect.angle };
        let (s, c) = region.angle_deg.to_radians().sin_cos();
        let point = |t: f32, k: f32| {
            let (u, v) = (a * k * t.cos(), b * k * t.sin());
            (region.center.0 + u * c - v * s, region.center.1 + u * s + v * c)
        };
        let samples = 96;
        let (mut on_edge, mut inside_white, mut visible) = (0, 0, 0);
        for i in 0..samples {
            let t = i as f32 / samples as f32 * std::f32::consts::TAU;
            let (x, y) = point(t, 1.0);
            if at(edge_bytes, x, y).is_some() {
                visible += 1;
                // The rim may lie a pixel or two off the fitted ellipse.
                if [0.97, 1.0, 1.03].iter().any(|&k| {
                    let (x, y) = point(t, k);
                    at(edge_bytes, x, y).is_some_and(|e| e > 0)
                }) {
                    on_edge += 1;
                }
            }
            let (x, y) = point(t, 0.9);
            if at(white_bytes, x, y).is_some_and(|v| v as f32 >= white_thr) {
                inside_white += 1;
            }
        }
        let edge_support = on_edge as f32 / samples as f32;
        let white_support = inside_white as f32 / samples as f32;
        // Cards partly out of the frame keep their visible rim.
        if visible < samples / 2 || edge_support < 0.4 || white_support < 0.55 {
            continue;
        }
        found.push((edge_support + white_support, region));
    }
    // Largest first; drop candidates centred inside an accepted card (round symbols on a card,
    // the same card found twice).
    found.sort_by(|x, y| y.1.radius().total_cmp(&x.1.radius()).then(y.0.total_cmp(&x.0)));
    let mut cards: Vec<CardRegion> = Vec::new();
    for (_, region) in found {
        let overlaps = cards.iter().any(|c| {
            let d = ((c.center.0 - region.center.0).powi(2) + (c.center.1 - region.center.1).powi(2)).sqrt();
            d < 0.9 * c.radius()
        });
        if !overlaps {
            cards.push(region);
        }
    }
    let inv = 1.0 / scale as f32;
    let mut cards: Vec<CardRegion> = cards
        .into_iter()
        .map(|c| CardRegion {
            center: (c.center.0 * inv, c.center.1 * inv),
            axes: (c.axes.0 * inv, c.axes.1 * inv),
            angle_deg: c.angle_deg,
        })
        .collect();
    cards.sort_by(|x, y| y.radius().total_cmp(&x.radius()));
    Ok(cards)
}

/// Warps one card to a canonical `CANON` x `CANON` disc (BGR).
pub fn rectify(bgr: &Mat, region: &CardRegion) -> Result<Mat> {
    let m = region.canon_to_image();
    let mat = Mat::from_slice_2d(&[[m[0], m[1], m[2]], [m[3], m[4], m[5]]])?;
    let mut out = Mat::default();
    imgproc::warp_affine(
        bgr,
        &mut out,
        &mat,
        Size::new(CANON, CANON),
        imgproc::INTER_LINEAR | imgproc::WARP_INVERSE_MAP,
        core::BORDER_REPLICATE,
        Scalar::all(0.0),
    )?;
    Ok(out)
}

/// Converts a point to OpenCV's float point.
pub fn point2f(p: (f32, f32)) -> Point2f {
    Point2f::new(p.0, p.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canon_centre_maps_to_card_centre_and_rim_to_rim() {
        let r = CardRegion { center: (100.0, 50.0), axes: (40.0, 20.0), angle_deg: 90.0 };
        let half = CANON as f32 / 2.0;
        let c = r.to_image((half, half));
        assert!((c.0 - 100.0).abs() < 1e-3 && (c.1 - 50.0).abs() < 1e-3);
        // The first axis (40) lies along 90 degrees: straight down in the image.
        let rim = r.to_image((CANON as f32, half));
        assert!((rim.0 - 100.0).abs() < 1e-3 && (rim.1 - 90.0).abs() < 1e-3, "{rim:?}");
    }

    #[test]
    fn finds_a_white_disc_on_a_dark_table() {
        let mut img =
            Mat::new_rows_cols_with_default(300, 400, core::CV_8UC3, Scalar::new(40.0, 80.0, 30.0, 0.0)).unwrap();
        imgproc::circle(&mut img, Point::new(220, 140), 90, Scalar::all(245.0), -1, imgproc::LINE_AA, 0).unwrap();
        let cards = find_cards(&img).unwrap();
        assert_eq!(cards.len(), 1, "{cards:?}");
        assert!((cards[0].center.0 - 220.0).abs() < 3.0 && (cards[0].radius() - 90.0).abs() < 4.0);
    }
}
