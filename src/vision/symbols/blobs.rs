//! Cutting a rectified card into symbol blobs: the non-white ink inside the disc, in connected
//! parts grouped so that the parts of one symbol (an eye and its lashes, a ghost and its balloon)
//! stay together while neighbouring symbols that merely come close stay apart.

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
    let disc: Vec<usize> = (0..n * n).filter(|&i| inside(i % n, i / n)).collect();
    if disc.is_empty() {
        return Ok(Vec::new());
    }
    let levels = levels(src, &disc);
    // Each channel's 256 levels looked up, not computed per pixel.
    let table: [[u8; 256]; 3] = std::array::from_fn(|c| {
        let (b, g) = levels[c];
        std::array::from_fn(|v| ((v as f32 - b) * g).clamp(0.0, 255.0) as u8)
    });
    let balanced: Vec<u8> = src.iter().enumerate().map(|(i, &v)| table[i % 3][usize::from(v)]).collect();
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
    let ink_data = ink.data_bytes()?;
    let (group, groups) = group_parts(&ink, n)?;
    let mut blobs: Vec<Blob> = (0..groups).map(|_| Blob { center: (0.0, 0.0), pixels: Vec::new() }).collect();
    for y in 0..n {
        for x in 0..n {
            let i = y * n + x;
            if ink_data[i] > 0 {
                let p = &src[i * 3..][..3];
                blobs[group[i]].pixels.push((x as u16, y as u16, [p[0], p[1], p[2]]));
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

/// Parts of the ink within reach of each other (OpenCV's `2 REACH + 1` ellipse around each) are
/// candidates for one symbol: an eye and its lashes, a ghost and its balloon.
const REACH: i32 = 2;
/// Two candidate parts both at least this fraction of the disc area are whole symbols in their own
/// right ...
const WHOLE_PART: f32 = 0.007;
/// ... and stay apart unless the border between their zones of reach is at least this many times
/// the smaller one's size: neighbouring pictures meet at a corner, the parts of one picture run
/// along each other (a highlight line through a drawing).
const ALONG: f32 = 1.2;

/// Each channel's black level and gain, so that a bluish webcam and a flatbed scan agree on
/// colours. The card's white: the mean of the disc's pixels ranked 85 % to 97 % by their brightest
/// channel (equal ones in pixel order); the black level (a washed-out webcam lifts it): the 1st
/// percentile of the channel. Counted in histograms of the 256 levels, not sorted: the same pixels
/// in a fraction of the time.
fn levels(src: &[u8], disc: &[usize]) -> [(f32, f32); 3] {
    let brightest = |i: usize| usize::from(src[i * 3].max(src[i * 3 + 1]).max(src[i * 3 + 2]));
    // How many pixels are darker than each level.
    let mut darker = [0usize; 256];
    for &i in disc {
        darker[brightest(i)] += 1;
    }
    let mut total = 0;
    for d in darker.iter_mut() {
        (*d, total) = (total, total + *d);
    }
    let (lo, hi) = (disc.len() * 85 / 100, disc.len() * 97 / 100);
    let mut seen = [0usize; 256];
    let mut white = [0.0f32; 3];
    for &i in disc {
        let v = brightest(i);
        let rank = darker[v] + seen[v];
        seen[v] += 1;
        if (lo..=hi).contains(&rank) {
            for (c, w) in white.iter_mut().enumerate() {
                *w += f32::from(src[i * 3 + c]);
            }
        }
    }
    let count = (hi - lo + 1) as f32;
    std::array::from_fn(|c| {
        let mut hist = [0usize; 256];
        for &i in disc {
            hist[usize::from(src[i * 3 + c])] += 1;
        }
        let k = disc.len() / 100;
        let mut below = 0;
        let level = hist.iter().position(|&h| {
            below += h;
            below > k
        });
        let black = (level.unwrap_or(255) as f32).min(90.0);
        (black, 245.0 / (white[c] / count - black).max(30.0))
    })
}

/// Each pixel's nearest part of the ink within reach (0: none). The pixels with a part are exactly
/// those of the ink dilated by the ellipse, so merging every contact repeats that dilation.
fn owners(ink: &Mat, parts: &[i32], n: usize) -> Result<Vec<i32>> {
    let side = 2 * REACH + 1;
    let kernel = imgproc::get_structuring_element(imgproc::MORPH_ELLIPSE, Size::new(side, side), Point::new(-1, -1))?;
    let mut window: Vec<(i32, i32)> = Vec::new();
    for (i, &k) in kernel.data_bytes()?.iter().enumerate() {
        if k != 0 {
            window.push((i as i32 % side - REACH, i as i32 / side - REACH));
        }
    }
    window.sort_by_key(|&(dx, dy)| dx * dx + dy * dy);
    let mut grown = Mat::default();
    imgproc::dilate(ink, &mut grown, &kernel, Point::new(-1, -1), 1, core::BORDER_CONSTANT, Scalar::all(0.0))?;
    let grown = grown.data_bytes()?;
    let n = n as i32;
    let nearest = |x: i32, y: i32| {
        window
            .iter()
            .map(|&(dx, dy)| (x + dx, y + dy))
            .filter(|&(u, v)| u >= 0 && v >= 0 && u < n && v < n)
            .map(|(u, v)| parts[(v * n + u) as usize])
            .find(|&l| l != 0)
            .unwrap_or(0)
    };
    Ok((0..n * n).map(|i| if grown[i as usize] == 0 { 0 } else { nearest(i % n, i / n) }).collect())
}

/// Length of the border between every two parts' zones of reach (8-neighbour pixel pairs).
fn contacts(owner: &[i32], n: usize) -> Vec<((i32, i32), u32)> {
    let mut contact: std::collections::HashMap<(i32, i32), u32> = std::collections::HashMap::new();
    for y in 0..n {
        for x in 0..n {
            let a = owner[y * n + x];
            if a == 0 {
                continue;
            }
            for (u, v) in [(x + 1, y), (x, y + 1), (x + 1, y + 1), (x.wrapping_sub(1), y + 1)] {
                let b = if u < n && v < n { owner[v * n + u] } else { 0 };
                if b != 0 && b != a {
                    *contact.entry((a.min(b), a.max(b))).or_default() += 1;
                }
            }
        }
    }
    let mut pairs: Vec<_> = contact.into_iter().collect();
    pairs.sort_unstable();
    pairs
}

fn root(parent: &mut [i32], mut l: i32) -> i32 {
    while parent[l as usize] != l {
        parent[l as usize] = parent[parent[l as usize] as usize];
        l = parent[l as usize];
    }
    l
}

/// Groups the ink's connected parts into symbols; returns each pixel's group (`usize::MAX` off
/// the ink) and the number of groups.
fn group_parts(ink: &Mat, n: usize) -> Result<(Vec<usize>, usize)> {
    let (mut labels, mut stats, mut centroids) = (Mat::default(), Mat::default(), Mat::default());
    let count =
        imgproc::connected_components_with_stats(ink, &mut labels, &mut stats, &mut centroids, 8, core::CV_32S)?;
    let parts: &[i32] = labels.data_typed()?;
    let area: Vec<f32> = (0..count)
        .map(|l| stats.at_2d::<i32>(l, imgproc::CC_STAT_AREA).map(|&a| a as f32))
        .collect::<Result<_, _>>()?;
    let whole = WHOLE_PART * std::f32::consts::PI * (n as f32 / 2.0).powi(2);
    let mut parent: Vec<i32> = (0..count).collect();
    for ((a, b), border) in contacts(&owners(ink, parts, n)?, n) {
        let smaller = area[a as usize].min(area[b as usize]);
        if smaller >= whole && (border as f32) < ALONG * smaller.sqrt() {
            continue;
        }
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
    let mut group_of = vec![usize::MAX; count as usize];
    let mut groups = 0;
    for l in 1..count {
        let r = root(&mut parent, l) as usize;
        if group_of[r] == usize::MAX {
            group_of[r] = groups;
            groups += 1;
        }
        group_of[l as usize] = group_of[r];
    }
    Ok((parts.iter().map(|&l| if l == 0 { usize::MAX } else { group_of[l as usize] }).collect(), groups))
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

    fn white_card() -> Mat {
        Mat::new_rows_cols_with_default(CANON, CANON, core::CV_8UC3, Scalar::all(250.0)).unwrap()
    }

    fn fill(card: &mut Mat, x: i32, y: i32, w: i32, h: i32, bgr: [f64; 3]) {
        let colour = Scalar::new(bgr[0], bgr[1], bgr[2], 0.0);
        imgproc::rectangle(card, core::Rect::new(x, y, w, h), colour, -1, 8, 0).unwrap();
    }

    #[test]
    fn two_pictures_meeting_at_a_corner_stay_two_blobs() {
        // Two symbol-sized squares whose corners come within 2 pixels: a dilation would join them.
        let mut card = white_card();
        fill(&mut card, 50, 50, 45, 45, [0.0, 0.0, 220.0]);
        fill(&mut card, 97, 97, 45, 45, [200.0, 50.0, 0.0]);
        let blobs = find_blobs(&card).unwrap();
        assert_eq!(blobs.len(), 2, "{:?}", blobs.iter().map(|b| b.center).collect::<Vec<_>>());
    }

    #[test]
    fn parts_of_one_picture_stay_one_blob() {
        let mut card = white_card();
        // A drawing cut in two halves by a thin highlight line along its whole width.
        fill(&mut card, 50, 50, 60, 30, [0.0, 0.0, 220.0]);
        fill(&mut card, 50, 82, 60, 30, [0.0, 0.0, 220.0]);
        // A large shape and a small detail just beside it (an eye and its lashes).
        fill(&mut card, 60, 140, 50, 50, [200.0, 50.0, 0.0]);
        fill(&mut card, 113, 150, 6, 20, [200.0, 50.0, 0.0]);
        let blobs = find_blobs(&card).unwrap();
        assert_eq!(blobs.len(), 2, "{:?}", blobs.iter().map(|b| b.center).collect::<Vec<_>>());
    }
}
