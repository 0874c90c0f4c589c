//! The small images the index network reads: a window of the frame turned upright, scaled to a
//! fixed size and with its light evened out. Training (`examples/card_patches.rs`) and the
//! detector cut them with these same functions, so the network sees at run time exactly what it
//! learnt from.

use opencv::{core, imgproc, prelude::*};

use crate::vision::cards::picture::pixels::warp;
use crate::vision::cards::picture::quad::dist;

/// Width and height of a loose index patch (rank above pip, centred; see `index_window`).
pub const INDEX_W: i32 = 32;

pub const INDEX_H: i32 = 48;

/// Width and height of a card corner's patch (see `corner_window`).
pub const CORNER_W: i32 = 28;

pub const CORNER_H: i32 = 64;

/// The share of a card's width and height that its corner window covers, from the corner: the
/// whole index of the decks we know (rank and pip, a sixth of the width across) with room for
/// an outline found a little off.
const CORNER_SPAN: (f64, f64) = (0.224, 0.364);

/// Planes of a patch: how dark (ink against this patch's paper), and how red.
pub const PLANES: usize = 2;

/// Bits of each channel's lane in a `Region` pixel: room for a byte times 1024 and a half.
const LANE: u32 = 21;

/// Regions larger than this many pixels (a window seen very slanted) are not worth spreading out:
/// the patch is warped by OpenCV instead.
const MAX_REGION: i64 = 1 << 16;

/// A window of the frame: its four corners in image pixels, clockwise from the corner that
/// becomes the patch's top-left.
pub type Window = [[f32; 2]; 4];

/// A patch ready for the network: `PLANES` planes of `w x h` bytes, one after the other
/// (0 = paper, 255 = the darkest ink / the reddest).
#[derive(Clone, Debug, PartialEq)]
pub struct Patch {
    pub w: i32,
    pub h: i32,
    pub bytes: Vec<u8>,
}

/// The window read for a loose index: `rank` is the rank glyph's centre, `down` the unit vector
/// from it to the pip's centre, `unit` the distance between the two. The window spans one unit
/// either side across, one unit above the rank's centre and two below (the pip and a margin).
pub fn index_window(rank: [f32; 2], down: [f32; 2], unit: f32) -> Window {
    let right = [down[1], -down[0]];
    let at =
        |x: f32, y: f32| [rank[0] + (right[0] * x + down[0] * y) * unit, rank[1] + (right[1] * x + down[1] * y) * unit];
    [at(-1.0, -1.0), at(1.0, -1.0), at(1.0, 2.0), at(-1.0, 2.0)]
}

/// The window of one corner of a card outline (`quad`, clockwise from the card's top-left
/// corner): its top-left corner, or with `far` its bottom-right one, turned upright.
pub fn corner_window(quad: &[[f32; 2]; 4], far: bool) -> Window {
    use crate::geometry::{Homography, Pt};
    let quad = if far { [quad[2], quad[3], quad[0], quad[1]] } else { *quad };
    let unit = [Pt::new(0.0, 0.0), Pt::new(1.0, 0.0), Pt::new(1.0, 1.0), Pt::new(0.0, 1.0)];
    let to_frame = Homography::from_quads(&unit, &quad.map(|p| Pt::new(f64::from(p[0]), f64::from(p[1]))));
    let (sx, sy) = CORNER_SPAN;
    let corners = [Pt::new(0.0, 0.0), Pt::new(sx, 0.0), Pt::new(sx, sy), Pt::new(0.0, sy)];
    match to_frame {
        Some(h) => corners.map(|c| {
            let p = h.apply(c);
            [p.x as f32, p.y as f32]
        }),
        // A degenerate outline: the window collapses to its corner.
        None => [quad[0]; 4],
    }
}

/// Which way is down in a window (from its top edge's middle to its bottom edge's), and its
/// height.
pub fn window_axis(window: &Window) -> ([f32; 2], f32) {
    let mid = |a: [f32; 2], b: [f32; 2]| [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    let (top, bottom) = (mid(window[0], window[1]), mid(window[3], window[2]));
    let height = dist(top, bottom).max(1.0);
    ([(bottom[0] - top[0]) / height, (bottom[1] - top[1]) / height], height)
}

/// Cuts `window` out of a BGR frame as a `w x h` patch.
pub fn cut(frame: &Mat, window: &Window, w: i32, h: i32) -> opencv::Result<Patch> {
    if shrink(window, w, h) < 2.0
        && frame.typ() == core::CV_8UC3
        && let Some(bgr) = sample(frame, window, w, h)?
    {
        return Ok(normalise_bytes(&bgr, w, h));
    }
    normalise(&warp_window(frame, window, w, h)?)
}

/// How many frame pixels one patch pixel spans (the less of the two directions).
fn shrink(window: &Window, w: i32, h: i32) -> f32 {
    (dist(window[0], window[1]) / w as f32).min(dist(window[1], window[2]) / h as f32)
}

/// The `w x h` BGR pixels of `window` sampled bilinearly, pixel for pixel as OpenCV's
/// `warp_perspective` with replicated borders does it (a call of that costs more than the few
/// thousand pixels of a patch); `None` for a degenerate window.
fn sample(frame: &Mat, window: &Window, w: i32, h: i32) -> opencv::Result<Option<Vec<u8>>> {
    use crate::geometry::{Homography, Pt};
    let (fw, fh) = (w as f64, h as f64);
    let rect = [Pt::new(0.0, 0.0), Pt::new(fw, 0.0), Pt::new(fw, fh), Pt::new(0.0, fh)];
    let to = window.map(|p| Pt::new(f64::from(p[0]), f64::from(p[1])));
    let Some(Homography(m)) = Homography::from_quads(&rect, &to) else { return Ok(None) };
    // A region of a larger frame (not continuous) goes through OpenCV instead.
    if !frame.is_continuous() || frame.empty() {
        return Ok(None);
    }
    // `Homography::apply_quick` term for term (the same bits).
    let point = |x: f64, y: f64| {
        let inv = 1.0 / (m[2][0] * x + m[2][1] * y + m[2][2]);
        [(m[0][0] * x + m[0][1] * y + m[0][2]) * inv, (m[1][0] * x + m[1][1] * y + m[1][2]) * inv]
    };
    // A homography takes the rectangle of sample points to a convex quad, so the points' extremes
    // are those of its four corners. Each point is held within them (which moves none by more
    // than a rounding), so that every one lies in the region.
    let (last_x, last_y) = (f64::from(w - 1), f64::from(h - 1));
    let corners = [point(0.0, 0.0), point(last_x, 0.0), point(last_x, last_y), point(0.0, last_y)];
    let low = [0, 1].map(|i| corners.iter().map(|c| c[i]).fold(f64::INFINITY, f64::min));
    let high = [0, 1].map(|i| corners.iter().map(|c| c[i]).fold(f64::NEG_INFINITY, f64::max));
    // A window reaching far outside the frame (or a degenerate one) goes through OpenCV.
    if !low.iter().chain(&high).all(|v| v.abs() < 1e6) {
        return Ok(None);
    }
    let bounds = [0, 1].map(|i| [fixed_32(low[i]) >> 5, (fixed_32(high[i]) >> 5) + 1]);
    let Some(region) = Region::around(frame.data_bytes()?, frame.cols(), frame.rows(), bounds) else {
        return Ok(None);
    };
    let n = (w * h) as usize;
    let (mut xs, mut ys) = (vec![0i32; n], vec![0i32; n]);
    for (y, (xs, ys)) in xs.chunks_exact_mut(w as usize).zip(ys.chunks_exact_mut(w as usize)).enumerate() {
        let y = y as f64;
        // `point` again, in a loop free of branches and calls that the compiler runs several
        // points at a time.
        let (ux, uy, uz) = (m[0][1] * y, m[1][1] * y, m[2][1] * y);
        for (x, (sx, sy)) in xs.iter_mut().zip(ys.iter_mut()).enumerate() {
            let x = x as f64;
            let inv = 1.0 / (m[2][0] * x + uz + m[2][2]);
            *sx = fixed_32(((m[0][0] * x + ux + m[0][2]) * inv).max(low[0]).min(high[0]));
            *sy = fixed_32(((m[1][0] * x + uy + m[1][2]) * inv).max(low[1]).min(high[1]));
        }
    }
    let mut out = vec![0u8; n * 3];
    blend(&region, &xs, &ys, &mut out);
    Ok(Some(out))
}

/// The pixels of `sample`: those at the fixed-point points (`xs`, `ys`, in 32nds of a pixel)
/// of `region`, blended bilinearly as OpenCV interpolates.
fn blend(region: &Region, xs: &[i32], ys: &[i32], out: &mut [u8]) {
    // Half of the last place of each channel's sum, for rounding.
    const HALF: u64 = 512 | 512 << LANE | 512 << (2 * LANE);
    let width = region.w;
    for ((&sx, &sy), px) in xs.iter().zip(ys).zip(out.chunks_exact_mut(3)) {
        let (ax, ay) = (u64::from(sx as u32 & 31), u64::from(sy as u32 & 31));
        let at = ((sy >> 5) - region.y) as usize * width + ((sx >> 5) - region.x) as usize;
        let (a, b) = (region.pixels[at], region.pixels[at + 1]);
        let (c, d) = (region.pixels[at + width], region.pixels[at + width + 1]);
        // The four neighbours' weights in 1024ths: the bilinear blend in whole numbers, the
        // same bytes as in floating point (where every term is exact too), at less cost. The
        // three channels are blended at once, each in its own lane.
        let sum = a * ((32 - ax) * (32 - ay)) + b * (ax * (32 - ay)) + c * ((32 - ax) * ay) + d * (ax * ay) + HALF;
        px[0] = (sum >> 10) as u8;
        px[1] = (sum >> (LANE + 10)) as u8;
        px[2] = (sum >> (2 * LANE + 10)) as u8;
    }
}

/// The frame pixels a patch samples (with one more to the right and below, for the bilinear
/// blend), each BGR pixel spread over three lanes of a `u64` so that one multiplication weighs
/// all three channels. Points outside the frame hold its nearest pixel: replicated borders.
struct Region {
    x: i32,
    y: i32,
    w: usize,
    pixels: Vec<u64>,
}

impl Region {
    /// The region of a continuous BGR frame between the first and last column `bounds[0]` and
    /// the first and last row `bounds[1]`; `None` when too large.
    fn around(frame: &[u8], cols: i32, rows: i32, bounds: [[i32; 2]; 2]) -> Option<Region> {
        let [[x0, x1], [y0, y1]] = bounds;
        let (w, h) = (i64::from(x1 - x0) + 1, i64::from(y1 - y0) + 1);
        if w * h > MAX_REGION {
            return None;
        }
        let step = cols as usize * 3;
        let mut pixels = Vec::with_capacity((w * h) as usize);
        for y in y0..=y1 {
            let line = &frame[y.clamp(0, rows - 1) as usize * step..][..step];
            pixels.extend((x0..=x1).map(|x| {
                let p = &line[x.clamp(0, cols - 1) as usize * 3..][..3];
                u64::from(p[0]) | u64::from(p[1]) << LANE | u64::from(p[2]) << (2 * LANE)
            }));
        }
        Some(Region { x: x0, y: y0, w: w as usize, pixels })
    }
}

/// `v` in 32nds, rounded half away from zero (as `f64::round`, without its libm call: this runs
/// for every pixel of every patch). Adding 1.5 * 2^52 rounds to the nearest whole number, even
/// at halves, and leaves it in the low bits; a half rounded towards zero is then moved away. Free
/// of branches and of Rust's saturating conversions, so that the compiler runs several at once.
/// (Beyond 2^31 32nds, far outside any frame, the result wraps.)
fn fixed_32(v: f64) -> i32 {
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let t = v * 32.0;
    let big = t + SHIFT;
    let rest = t - (big - SHIFT);
    (big.to_bits() as i32) + i32::from(rest >= 0.5 && t > 0.0) - i32::from(rest <= -0.5 && t < 0.0)
}

/// Warps `window` to `w x h` BGR pixels. A window much larger than the patch is first shrunk
/// by area averaging: a plain warp would sample every few pixels and alias thin strokes away.
pub fn warp_window(frame: &Mat, window: &Window, w: i32, h: i32) -> opencv::Result<Mat> {
    let shrink = shrink(window, w, h);
    let xs = window.iter().map(|p| p[0]);
    let ys = window.iter().map(|p| p[1]);
    let (x0, x1) = (xs.clone().fold(f32::MAX, f32::min).floor() - 1.0, xs.fold(f32::MIN, f32::max).ceil() + 2.0);
    let (y0, y1) = (ys.clone().fold(f32::MAX, f32::min).floor() - 1.0, ys.fold(f32::MIN, f32::max).ceil() + 2.0);
    let bounds = core::Rect::new(0, 0, frame.cols(), frame.rows());
    let roi = core::Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32) & bounds;
    if roi.width < 2 || roi.height < 2 {
        return Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, core::Scalar::all(0.0));
    }
    let mut source = Mat::roi(frame, roi)?.try_clone()?;
    let mut k = 1.0f32;
    if shrink >= 2.0 {
        k = shrink.floor();
        let size = core::Size::new(((roi.width as f32 / k) as i32).max(1), ((roi.height as f32 / k) as i32).max(1));
        let mut small = Mat::default();
        imgproc::resize(&source, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        source = small;
    }
    let window = window.map(|p| [(p[0] - roi.x as f32) / k, (p[1] - roi.y as f32) / k]);
    let (fw, fh) = (w as f32, h as f32);
    warp(&source, &window, [[0.0, 0.0], [fw, 0.0], [fw, fh], [0.0, fh]], core::Size::new(w, h))
}

/// Evens out a BGR patch's light. Each channel is divided by its own paper level (its 90th
/// percentile), which undoes the light's colour; then ink is how far the darkest channel falls
/// below the paper, stretched so that the patch's darkest ink is 1, and redness is how far red
/// stands above the other two, on the same scale.
pub fn normalise(bgr: &Mat) -> opencv::Result<Patch> {
    let (w, h) = (bgr.cols(), bgr.rows());
    let data = if bgr.is_continuous() { bgr.data_bytes()?.to_vec() } else { bgr.try_clone()?.data_bytes()?.to_vec() };
    Ok(normalise_bytes(&data, w, h))
}

/// `normalise` of `w x h` BGR bytes.
fn normalise_bytes(data: &[u8], w: i32, h: i32) -> Patch {
    let n = (w * h) as usize;
    let mut counts = [[0u32; 256]; 3];
    for px in data.chunks_exact(3) {
        for c in 0..3 {
            counts[c][usize::from(px[c])] += 1;
        }
    }
    // Each channel's byte over its paper level, looked up: the same quotients as dividing each
    // pixel, without three divisions a pixel.
    let mut scaled = [[0f32; 256]; 3];
    for (table, counts) in scaled.iter_mut().zip(&counts) {
        let white = f32::from(level_at(counts, n, 0.9)).max(1.0);
        for (v, s) in table.iter_mut().enumerate() {
            *s = v as f32 / white;
        }
    }
    let mut lum = vec![0f32; n];
    let mut red = vec![0f32; n];
    for ((px, l), rd) in data.chunks_exact(3).zip(&mut lum).zip(&mut red) {
        let (b, g, r) = (scaled[0][usize::from(px[0])], scaled[1][usize::from(px[1])], scaled[2][usize::from(px[2])]);
        *l = b.min(g).min(r).min(1.2);
        *rd = (r - g.max(b)).max(0.0);
    }
    let darkest = smallest(&lum, (n as f32 * 0.03) as usize);
    let range = (1.0 - darkest).max(0.3);
    let mut bytes = vec![0u8; n * PLANES];
    let (ink, redness) = bytes.split_at_mut(n);
    for (byte, &l) in ink.iter_mut().zip(&lum) {
        *byte = to_byte((1.0 - l) / range);
    }
    for (byte, &r) in redness.iter_mut().zip(&red) {
        *byte = to_byte(r / range);
    }
    Patch { w, h, bytes }
}

/// The `k`-th smallest of `values` (from 0; the largest if `k` is past the end), all of them in
/// 0..=1.2. They are first counted in bins of a 256th (`v * 256` rounded as `to_byte` rounds,
/// which keeps their order), so that only the few in the `k`-th's bin need sorting.
fn smallest(values: &[f32], k: usize) -> f32 {
    let k = k.min(values.len().saturating_sub(1));
    let bin = |v: f32| ((v * 256.0 + 8_388_608.0).to_bits() & 0x7f_ffff).min(511) as usize;
    let mut counts = [0u32; 512];
    for &v in values {
        counts[bin(v)] += 1;
    }
    let (mut below, mut at) = (0, 0);
    for (b, &c) in counts.iter().enumerate() {
        if below + c as usize > k {
            at = b;
            break;
        }
        below += c as usize;
    }
    let mut inside: Vec<f32> = values.iter().copied().filter(|&v| bin(v) == at).collect();
    if inside.is_empty() {
        return 0.0;
    }
    let i = (k - below).min(inside.len() - 1);
    *inside.select_nth_unstable_by(i, f32::total_cmp).1
}

/// `v` from 0..1 to a byte, rounded as `f32::round` rounds, without its libm call (this runs for
/// every value of every patch). Adding 2^23 rounds to the nearest whole number, even at halves,
/// and leaves it in the low bits; a half rounded down is then moved up. Free of branches and of
/// Rust's saturating conversions, so that the compiler runs several at once.
fn to_byte(v: f32) -> u8 {
    const SHIFT: f32 = 8_388_608.0;
    let x = v.clamp(0.0, 1.0) * 255.0;
    let big = x + SHIFT;
    let up = u32::from(x - (big - SHIFT) >= 0.5);
    (big.to_bits() + up) as u8
}

/// The value below which `q` of the `n` counted bytes lie.
fn level_at(counts: &[u32; 256], n: usize, q: f32) -> u8 {
    let target = (n as f32 * q) as u32;
    let mut seen = 0u32;
    for (v, &c) in counts.iter().enumerate() {
        seen += c;
        if seen > target {
            return v as u8;
        }
    }
    255
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn fixed_32_rounds_as_round_does(v in -5000.0f64..5000.0, half in proptest::bool::ANY) {
            // Exact halves (a 64th of a pixel off the grid) are the cases that matter most.
            let v = if half { (v * 64.0).trunc() / 64.0 } else { v };
            proptest::prop_assert_eq!(fixed_32(v), (v * 32.0).round() as i32);
        }

        #[test]
        fn smallest_is_what_sorting_gives(
            values in proptest::collection::vec(0.0f32..=1.2, 1..400),
            share in 0.0f64..1.2,
        ) {
            let k = (values.len() as f64 * share) as usize;
            let mut sorted = values.clone();
            sorted.sort_by(f32::total_cmp);
            proptest::prop_assert_eq!(smallest(&values, k), sorted[k.min(values.len() - 1)]);
        }

        #[test]
        fn to_byte_rounds_as_round_does(v in -0.5f32..1.5, half in proptest::bool::ANY) {
            // Exact halves of a byte level are the cases that matter most.
            let v = if half { ((v * 255.0).trunc() + 0.5) / 255.0 } else { v };
            proptest::prop_assert_eq!(to_byte(v), (v.clamp(0.0, 1.0) * 255.0).round() as u8);
        }
    }

    fn page(colour: core::Scalar) -> Mat {
        Mat::new_rows_cols_with_default(120, 160, core::CV_8UC3, colour).unwrap()
    }

    #[test]
    fn ink_and_redness_do_not_depend_on_the_light() {
        // The same black bar and red dot on white paper, lit white and lit dim and yellow.
        let draw = |paper: core::Scalar, ink: core::Scalar, red: core::Scalar| {
            let mut m = page(paper);
            imgproc::rectangle(&mut m, core::Rect::new(60, 30, 10, 40), ink, -1, imgproc::LINE_8, 0).unwrap();
            imgproc::circle(&mut m, core::Point::new(100, 60), 8, red, -1, imgproc::LINE_8, 0).unwrap();
            m
        };
        let white = draw(core::Scalar::all(240.0), core::Scalar::all(20.0), core::Scalar::new(30.0, 20.0, 200.0, 0.0));
        let dim = draw(
            core::Scalar::new(90.0, 150.0, 170.0, 0.0),
            core::Scalar::new(8.0, 12.0, 14.0, 0.0),
            core::Scalar::new(11.0, 12.0, 140.0, 0.0),
        );
        let window = [[40.0, 20.0], [120.0, 20.0], [120.0, 100.0], [40.0, 100.0]];
        let a = cut(&white, &window, INDEX_W, INDEX_H).unwrap();
        let b = cut(&dim, &window, INDEX_W, INDEX_H).unwrap();
        let n = (INDEX_W * INDEX_H) as usize;
        let differs = a.bytes.iter().zip(&b.bytes).filter(|(x, y)| x.abs_diff(**y) > 40).count();
        assert!(differs < n / 50, "{differs} of {} values differ", 2 * n);
        // The bar is ink and not red; the dot is red.
        let at = |p: &Patch, plane: usize, x: f32, y: f32| {
            let (px, py) =
                (((x - 40.0) / 80.0 * INDEX_W as f32) as usize, ((y - 20.0) / 80.0 * INDEX_H as f32) as usize);
            p.bytes[plane * n + py * INDEX_W as usize + px]
        };
        assert!(at(&a, 0, 65.0, 50.0) > 200 && at(&a, 1, 65.0, 50.0) < 30);
        assert!(at(&a, 1, 100.0, 60.0) > 150);
        assert!(at(&a, 0, 50.0, 90.0) < 30, "paper is not ink");
    }

    #[test]
    fn a_large_window_is_shrunk_without_losing_thin_strokes() {
        // Lines 2 px wide every 24 px: a plain warp to a twelfth of the size would skip most.
        let mut m = Mat::new_rows_cols_with_default(600, 400, core::CV_8UC3, core::Scalar::all(235.0)).unwrap();
        for x in (10..400).step_by(24) {
            imgproc::rectangle(&mut m, core::Rect::new(x, 0, 2, 600), core::Scalar::all(10.0), -1, imgproc::LINE_8, 0)
                .unwrap();
        }
        let window = [[0.0, 0.0], [384.0, 0.0], [384.0, 576.0], [0.0, 576.0]];
        let p = cut(&m, &window, INDEX_W, INDEX_H).unwrap();
        let row = &p.bytes[20 * INDEX_W as usize..21 * INDEX_W as usize];
        let inked = row.iter().filter(|&&v| v > 20).count();
        assert!(inked >= 12, "{row:?}");
    }

    #[test]
    fn sampling_a_window_matches_opencv_warping_it() {
        // A frame of noise-like texture, and a turned, scaled window partly outside it.
        let mut m = Mat::new_rows_cols_with_default(90, 120, core::CV_8UC3, core::Scalar::all(0.0)).unwrap();
        for y in 0..90 {
            for x in 0..120 {
                let v = |k: i32| ((x * 7 + y * 13 + k * 31) % 97 * 2 + (x * y) % 40) as u8;
                *m.at_2d_mut::<core::Vec3b>(y, x).unwrap() = core::Vec3b::from([v(0), v(1), v(2)]);
            }
        }
        let window = index_window([20.0, 30.0], [0.6, 0.8], 17.0);
        let sampled = sample(&m, &window, INDEX_W, INDEX_H).unwrap().unwrap();
        let warped = warp_window(&m, &window, INDEX_W, INDEX_H).unwrap();
        let worst = sampled.iter().zip(warped.data_bytes().unwrap()).map(|(a, b)| a.abs_diff(*b)).max();
        assert!(worst <= Some(2), "differ by up to {worst:?}");
    }

    #[test]
    fn windows_over_and_beyond_the_frame_edges_sample_as_opencv_warps() {
        let mut m = Mat::new_rows_cols_with_default(60, 80, core::CV_8UC3, core::Scalar::all(0.0)).unwrap();
        for y in 0..60 {
            for x in 0..80 {
                let v = |k: i32| ((x * 11 + y * 5 + k * 40) % 251) as u8;
                *m.at_2d_mut::<core::Vec3b>(y, x).unwrap() = core::Vec3b::from([v(0), v(1), v(2)]);
            }
        }
        // Over each edge, over a corner, and turned upside down over another.
        let centres = [[2.0, 30.0], [78.0, 30.0], [40.0, 1.0], [40.0, 59.0], [0.0, 0.0], [5.0, 55.0]];
        for (i, rank) in centres.into_iter().enumerate() {
            let down = if i == 5 { [0.0, -1.0] } else { [0.8, 0.6] };
            let window = index_window(rank, down, 9.0);
            let sampled = sample(&m, &window, INDEX_W, INDEX_H).unwrap().unwrap();
            let warped = warp_window(&m, &window, INDEX_W, INDEX_H).unwrap();
            let worst = sampled.iter().zip(warped.data_bytes().unwrap()).map(|(a, b)| a.abs_diff(*b)).max();
            assert!(worst <= Some(2), "window {i}: differ by up to {worst:?}");
        }
        // Wholly outside (OpenCV's warp gives black there): the nearest pixels, replicated.
        let far = sample(&m, &index_window([-30.0, 90.0], [0.0, 1.0], 9.0), INDEX_W, INDEX_H).unwrap().unwrap();
        let corner = m.at_2d::<core::Vec3b>(59, 0).unwrap().0;
        assert!(far.chunks_exact(3).all(|p| p == corner), "{:?}", &far[..6]);
    }

    #[test]
    fn the_index_window_turns_with_the_index() {
        // Pip straight to the right of the rank (the card turned a quarter anticlockwise): the
        // window's top-left lies behind and below the rank, its bottom-right past the pip.
        let w = index_window([100.0, 100.0], [1.0, 0.0], 10.0);
        assert_eq!(w[0], [90.0, 110.0]);
        assert_eq!(w[2], [120.0, 90.0]);
    }
}
