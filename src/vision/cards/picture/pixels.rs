//! Image operations the stages share: a card warped upright, masks, components and percentiles.

use opencv::{core, imgproc, prelude::*};

use crate::vision::cards::types::{CARD_H, CARD_W};

/// Warps the card inside `quad` to `width x height`.
pub fn rectify_sized(frame: &Mat, quad: &[[f32; 2]; 4], width: i32, height: i32) -> opencv::Result<Mat> {
    let (w, h) = (width as f32, height as f32);
    warp(frame, quad, [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]], core::Size::new(width, height))
}

/// Warps the frame so that `quad`'s corners land on `to`, keeping `size` pixels from the origin.
pub(crate) fn warp(frame: &Mat, quad: &[[f32; 2]; 4], to: [[f32; 2]; 4], size: core::Size) -> opencv::Result<Mat> {
    let point = |p: &[f32; 2]| core::Point2f::new(p[0], p[1]);
    let src = core::Vector::<core::Point2f>::from_iter(quad.iter().map(point));
    let dst = core::Vector::<core::Point2f>::from_iter(to.iter().map(point));
    let m = imgproc::get_perspective_transform(&src, &dst, core::DECOMP_LU)?;
    let mut out = Mat::default();
    imgproc::warp_perspective(
        frame,
        &mut out,
        &m,
        size,
        imgproc::INTER_LINEAR,
        core::BORDER_REPLICATE,
        core::Scalar::all(0.0),
    )?;
    Ok(out)
}

pub(crate) fn label_mask(labels: &Mat, ids: &[i32], rect: core::Rect) -> opencv::Result<Mat> {
    let mut mask = Mat::zeros(rect.height, rect.width, core::CV_8UC1)?.to_mat()?;
    let width = rect.width as usize;
    let out = mask.data_bytes_mut()?;
    for y in 0..rect.height {
        let row = labels.at_row::<i32>(rect.y + y)?;
        let row = &row[rect.x as usize..rect.x as usize + width];
        for (o, l) in out[y as usize * width..][..width].iter_mut().zip(row) {
            if ids.contains(l) {
                *o = 255;
            }
        }
    }
    Ok(mask)
}

/// The bounding box and pixel count of component `i` in the stats of
/// `connected_components_with_stats`.
pub(crate) fn component(stats: &Mat, i: i32) -> opencv::Result<(core::Rect, i32)> {
    let at = |field: i32| stats.at_2d::<i32>(i, field).copied();
    let rect = core::Rect::new(
        at(imgproc::CC_STAT_LEFT)?,
        at(imgproc::CC_STAT_TOP)?,
        at(imgproc::CC_STAT_WIDTH)?,
        at(imgproc::CC_STAT_HEIGHT)?,
    );
    Ok((rect, at(imgproc::CC_STAT_AREA)?))
}

/// The centre of component `i` in the centroids of `connected_components_with_stats`.
pub(crate) fn centroid(centroids: &Mat, i: i32) -> opencv::Result<[f32; 2]> {
    Ok([*centroids.at_2d::<f64>(i, 0)? as f32, *centroids.at_2d::<f64>(i, 1)? as f32])
}

/// How much brighter each pixel is than its surroundings (a box a sixth of the frame wide):
/// under uneven light, a card in the dim part of a pale table is still brighter than the table
/// around it, though not than the table in the lit part.
pub(in crate::vision::cards) fn above_surroundings(channel: &Mat) -> opencv::Result<Mat> {
    let k = (channel.cols().max(channel.rows()) / 6) | 1;
    let mut around = Mat::default();
    imgproc::box_filter(
        channel,
        &mut around,
        -1,
        core::Size::new(k, k),
        core::Point::new(-1, -1),
        true,
        core::BORDER_REFLECT,
    )?;
    let mut out = Mat::default();
    core::subtract(channel, &around, &mut out, &core::no_array(), -1)?;
    Ok(out)
}

/// Per pixel, how white: the minimum channel less the spread between channels (2 min - max).
/// White card stock stays bright; a pale but tinted table (pink, beige, pale green) drops.
/// `low` is the image's `min_channel`.
pub(in crate::vision::cards) fn whiteness(bgr: &Mat, low: &Mat) -> opencv::Result<Mat> {
    let mut channels = core::Vector::<Mat>::new();
    core::split(bgr, &mut channels)?;
    let (mut hi, mut t) = (Mat::default(), Mat::default());
    core::max(&channels.get(0)?, &channels.get(1)?, &mut t)?;
    core::max(&t, &channels.get(2)?, &mut hi)?;
    let mut out = Mat::default();
    // Saturating 8-bit arithmetic: 2 low - hi, clamped at 0.
    core::add_weighted(low, 2.0, &hi, -1.0, 0.0, &mut out, -1)?;
    Ok(out)
}

/// A morphological operation `op` with a `shape` (MORPH_RECT, MORPH_ELLIPSE) `size` pixels
/// across; outside the image counts as background.
pub(crate) fn morph(mask: &Mat, op: i32, shape: i32, size: i32) -> opencv::Result<Mat> {
    let kernel = imgproc::get_structuring_element(shape, core::Size::new(size, size), core::Point::new(-1, -1))?;
    let mut out = Mat::default();
    let anchor = core::Point::new(-1, -1);
    imgproc::morphology_ex(mask, &mut out, op, &kernel, anchor, 1, core::BORDER_CONSTANT, core::Scalar::all(0.0))?;
    Ok(out)
}

/// The per-pixel minimum of B, G and R: ink of any colour is dark in it, white paper is bright.
pub fn min_channel(bgr: &Mat) -> opencv::Result<Mat> {
    let mut channels = core::Vector::<Mat>::new();
    core::split(bgr, &mut channels)?;
    let mut m = Mat::default();
    core::min(&channels.get(0)?, &channels.get(1)?, &mut m)?;
    let mut out = Mat::default();
    core::min(&m, &channels.get(2)?, &mut out)?;
    Ok(out)
}

/// The share of a mask's pixels that are set (of a `paper_mask`: the card's paper fraction).
pub(in crate::vision::cards) fn share_set(mask: &(impl MatTraitConst + core::ToInputArray)) -> opencv::Result<f64> {
    Ok(f64::from(core::count_non_zero(mask)?) / (mask.rows() * mask.cols()) as f64)
}

/// The value below which `q` of an 8-bit image's pixels lie.
/// Every seventh pixel is counted: plenty for a level, at a seventh of the cost.
pub(crate) fn percentile(image: &Mat, q: f64) -> opencv::Result<u8> {
    let mut counts = [0usize; 256];
    let mut total = 0usize;
    for &v in image.data_bytes()?.iter().step_by(7) {
        counts[usize::from(v)] += 1;
        total += 1;
    }
    let target = (total as f64 * q) as usize;
    let mut seen = 0;
    for (v, &c) in counts.iter().enumerate() {
        seen += c;
        if seen > target {
            return Ok(v as u8);
        }
    }
    Ok(255)
}

/// Warps the card inside `quad` to `CARD_W x CARD_H`.
pub fn rectify(frame: &Mat, quad: &[[f32; 2]; 4]) -> opencv::Result<Mat> {
    rectify_sized(frame, quad, CARD_W, CARD_H)
}
