//! Sharpening a card outline found on a shrunk frame, in the full frame: across each side, short
//! profiles of the frame's darkest channel find where the bright card gives way to the table to a
//! fraction of a pixel; a line is fitted through those points, and the corners go where the lines
//! meet. A few hundred pixels are read per outline, where re-finding it by a threshold of its own
//! neighbourhood (`outlines::refine_quad`) reads tens of thousands.

use opencv::{core, prelude::*};

use crate::vision::cards::picture::quad::{dist, quad_centre};

/// Profiles across each side, spread over its middle (corners are rounded, and the cards beside
/// may touch there).
const PROFILES: usize = 12;

/// The least step, in levels of the darkest channel, between the card and the table for a
/// profile to place an edge.
const MIN_STEP: f32 = 24.0;

/// How far a card's rounded corner lies inside the corner its straight sides would make, along
/// the diagonal, as a share of the card's width: a corner rounded to a radius of about a
/// twentieth of the width (an eighth of an inch on a poker card) is r (sqrt 2 - 1) inside.
pub(crate) const ARC_INSET: f32 = 0.05 * (std::f32::consts::SQRT_2 - 1.0);

/// The least profiles of a side that must place its edge on the fitted line.
const MIN_ON_LINE: usize = 8;

type Quad = [[f32; 2]; 4];

/// `quad` (clockwise or not, in frame pixels) with each side moved onto the card's edge in the
/// BGR `frame`, the edge sought up to `reach` pixels either side; `None` when a side's edge is
/// not clear (too little contrast, something lying across it) or a corner would move further than
/// `reach`.
pub fn fit_sides(frame: &Mat, quad: &Quad, reach: f32) -> opencv::Result<Option<Quad>> {
    if frame.typ() != core::CV_8UC3 || !frame.is_continuous() {
        return Ok(None);
    }
    let image = Image { data: frame.data_bytes()?, cols: frame.cols() as usize, rows: frame.rows() as usize };
    let centre = quad_centre(quad);
    let mut lines = [Line::default(); 4];
    for (i, line) in lines.iter_mut().enumerate() {
        match side_line(&image, quad[i], quad[(i + 1) % 4], centre, reach) {
            Some(l) => *line = l,
            None => return Ok(None),
        }
    }
    let mut sharp = *quad;
    for i in 0..4 {
        // Corner i is where the side ending there meets the side starting there.
        let Some(p) = lines[(i + 3) % 4].meet(&lines[i]) else { return Ok(None) };
        sharp[i] = p;
    }
    // The corners onto the card's rounded ones: an outline traced round the card (and those the
    // index networks learnt from) has its corners there, not where the straight sides would meet.
    let mid = quad_centre(&sharp);
    let short = (0..4).map(|i| dist(sharp[i], sharp[(i + 1) % 4])).fold(f32::MAX, f32::min);
    let inset = ARC_INSET * short;
    let rounded = sharp.map(|p| {
        let d = dist(p, mid).max(1.0);
        [p[0] + (mid[0] - p[0]) * inset / d, p[1] + (mid[1] - p[1]) * inset / d]
    });
    // Compared with the outline's own corners, which were traced round the card too.
    Ok((0..4).all(|i| dist(rounded[i], quad[i]) <= reach).then_some(rounded))
}

/// A continuous BGR frame's bytes.
struct Image<'a> {
    data: &'a [u8],
    cols: usize,
    rows: usize,
}

impl Image<'_> {
    /// The darkest channel at `p`, blended bilinearly; `None` outside the frame.
    fn low(&self, p: [f32; 2]) -> Option<f32> {
        let (x, y) = (p[0], p[1]);
        if !(x >= 0.0 && y >= 0.0 && x < (self.cols - 1) as f32 && y < (self.rows - 1) as f32) {
            return None;
        }
        let (x0, y0) = (x as usize, y as usize);
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let at = |x: usize, y: usize| {
            let i = (y * self.cols + x) * 3;
            f32::from(self.data[i].min(self.data[i + 1]).min(self.data[i + 2]))
        };
        let top = at(x0, y0) * (1.0 - fx) + at(x0 + 1, y0) * fx;
        let bottom = at(x0, y0 + 1) * (1.0 - fx) + at(x0 + 1, y0 + 1) * fx;
        Some(top * (1.0 - fy) + bottom * fy)
    }
}

/// The line of the card's edge along the side from `a` to `b`, `centre` lying inside the card.
fn side_line(image: &Image, a: [f32; 2], b: [f32; 2], centre: [f32; 2], reach: f32) -> Option<Line> {
    let length = (b[0] - a[0]).hypot(b[1] - a[1]);
    if length < 4.0 * reach {
        return None;
    }
    let along = [(b[0] - a[0]) / length, (b[1] - a[1]) / length];
    let mut out = [-along[1], along[0]];
    let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    if out[0] * (mid[0] - centre[0]) + out[1] * (mid[1] - centre[1]) < 0.0 {
        out = [-out[0], -out[1]];
    }
    let points: Vec<[f32; 2]> = (0..PROFILES)
        .filter_map(|k| {
            let t = 0.2 + 0.6 * k as f32 / (PROFILES - 1) as f32;
            let p = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
            let s = edge_across(image, p, out, reach)?;
            Some([p[0] + s * out[0], p[1] + s * out[1]])
        })
        .collect();
    // Fitted twice: the second time without the points far off the first line (a speck, a
    // neighbouring card's edge).
    let first = Line::through(&points)?;
    let near: Vec<[f32; 2]> = points.iter().copied().filter(|p| first.distance(*p) <= 1.0).collect();
    (near.len() >= MIN_ON_LINE).then(|| Line::through(&near)).flatten()
}

/// Where along the profile from `p` in direction `out` (from card to table) the card's edge lies:
/// the crossing of the level halfway between the card's paper and the table that lies nearest
/// `p`, in pixels from `p`; `None` when the two are too alike.
fn edge_across(image: &Image, p: [f32; 2], out: [f32; 2], reach: f32) -> Option<f32> {
    // Half-pixel steps from `reach` inside to `reach` outside.
    let steps = (reach * 2.0) as i32;
    let values: Vec<f32> = (-steps..=steps)
        .map(|i| image.low([p[0] + i as f32 * 0.5 * out[0], p[1] + i as f32 * 0.5 * out[1]]))
        .collect::<Option<_>>()?;
    let n = values.len();
    let paper = (values[0] + values[1] + values[2]) / 3.0;
    let table = (values[n - 1] + values[n - 2] + values[n - 3]) / 3.0;
    if paper - table < MIN_STEP {
        return None;
    }
    let half = (paper + table) / 2.0;
    (0..n - 1)
        .filter(|&i| values[i] >= half && values[i + 1] < half)
        .map(|i| {
            let f = (values[i] - half) / (values[i] - values[i + 1]);
            (i as f32 + f - steps as f32) * 0.5
        })
        .min_by(|x, y| x.abs().total_cmp(&y.abs()))
}

/// A line `n . p = d`, `n` of unit length.
#[derive(Clone, Copy, Debug, Default)]
struct Line {
    n: [f32; 2],
    d: f32,
}

impl Line {
    /// The line nearest `points` (least squares across it); `None` for fewer than two.
    fn through(points: &[[f32; 2]]) -> Option<Line> {
        if points.len() < 2 {
            return None;
        }
        let k = points.len() as f32;
        let m = [points.iter().map(|p| p[0]).sum::<f32>() / k, points.iter().map(|p| p[1]).sum::<f32>() / k];
        let (mut xx, mut xy, mut yy) = (0.0, 0.0, 0.0);
        for p in points {
            let (x, y) = (p[0] - m[0], p[1] - m[1]);
            xx += x * x;
            xy += x * y;
            yy += y * y;
        }
        // The direction of greatest spread; the normal is across it.
        let angle = 0.5 * (2.0 * xy).atan2(xx - yy);
        let n = [-angle.sin(), angle.cos()];
        Some(Line { n, d: n[0] * m[0] + n[1] * m[1] })
    }

    fn distance(&self, p: [f32; 2]) -> f32 {
        (self.n[0] * p[0] + self.n[1] * p[1] - self.d).abs()
    }

    /// Where two lines meet; `None` when nearly parallel.
    fn meet(&self, other: &Line) -> Option<[f32; 2]> {
        let det = self.n[0] * other.n[1] - self.n[1] * other.n[0];
        if det.abs() < 0.1 {
            return None;
        }
        Some([(self.d * other.n[1] - other.d * self.n[1]) / det, (self.n[0] * other.d - other.n[0] * self.d) / det])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::imgproc;

    /// A dark table with a white card of `w x h` px, rounded at the corners, turned by `angle`
    /// about `centre` and softened as a lens would; the card's sharp corners come back too.
    fn table_with_card(centre: [f32; 2], w: f32, h: f32, angle: f32, table: f64) -> (Mat, Quad) {
        // Drawn four times as large and shrunk by area, so that its edges fall between pixels
        // where they should: a point p of the frame is 4 p + 1.5 there (pixel centres), drawn
        // in halves of a pixel.
        const UP: i32 = 4;
        let mut big =
            Mat::new_rows_cols_with_default(400 * UP, 500 * UP, core::CV_8UC3, core::Scalar::all(table)).unwrap();
        let (s, c) = angle.sin_cos();
        let at = |x: f32, y: f32| [centre[0] + x * c - y * s, centre[1] + x * s + y * c];
        let sharp = [at(-w / 2.0, -h / 2.0), at(w / 2.0, -h / 2.0), at(w / 2.0, h / 2.0), at(-w / 2.0, h / 2.0)];
        let r = 0.05 * w;
        let mut outline = core::Vector::<core::Point>::new();
        for (k, (cx, cy)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)].into_iter().enumerate() {
            let (ox, oy) = (cx * (w / 2.0 - r), cy * (h / 2.0 - r));
            for step in 0..=8 {
                let t = (k as f32 + step as f32 / 8.0) * std::f32::consts::FRAC_PI_2;
                let p = at(ox + r * t.cos(), oy + r * t.sin());
                let half = |v: f32| ((v * UP as f32 + 1.5) * 2.0).round() as i32;
                outline.push(core::Point::new(half(p[0]), half(p[1])));
            }
        }
        let white = core::Scalar::all(235.0);
        let shape = core::Vector::<core::Vector<core::Point>>::from_iter([outline]);
        imgproc::fill_poly(&mut big, &shape, white, imgproc::LINE_8, 1, core::Point::new(0, 0)).unwrap();
        let (mut small, mut soft) = (Mat::default(), Mat::default());
        imgproc::resize(&big, &mut small, core::Size::new(500, 400), 0.0, 0.0, imgproc::INTER_AREA).unwrap();
        imgproc::gaussian_blur(&small, &mut soft, core::Size::new(5, 5), 1.0, 0.0, core::BORDER_DEFAULT).unwrap();
        (soft, sharp)
    }

    fn moved(q: &Quad, by: [[f32; 2]; 4]) -> Quad {
        std::array::from_fn(|i| [q[i][0] + by[i][0], q[i][1] + by[i][1]])
    }

    #[test]
    fn sides_found_again_put_the_corners_on_the_rounded_ones() {
        for angle in [0.0f32, 0.3, -0.7] {
            let (frame, sharp) = table_with_card([250.0, 200.0], 110.0, 170.0, angle, 50.0);
            // As found on a frame shrunk by two: off by up to two pixels.
            let coarse = moved(&sharp, [[2.0, -1.2], [1.2, 2.0], [-2.0, 1.2], [-1.2, -2.0]]);
            let fitted = fit_sides(&frame, &coarse, 5.0).unwrap().expect("clear edges");
            // Each corner on the card's rounded one: a radius from that arc's centre.
            let (r, (s, c)) = (0.05 * 110.0, angle.sin_cos());
            for (i, (sx, sy)) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].into_iter().enumerate() {
                let (x, y) = (sx * (55.0 - r), sy * (85.0 - r));
                let arc = [250.0 + x * c - y * s, 200.0 + x * s + y * c];
                let off = dist(fitted[i], arc) - r;
                // Within 0.5 px: the drawing itself fills a quarter pixel more at the right and
                // the bottom (the corners of an upright card's left and top come within 0.05).
                assert!(off.abs() < 0.5, "angle {angle}, corner {i}: {:?} is {off} px off the arc", fitted[i]);
                assert!(dist(fitted[i], sharp[i]) < r, "angle {angle}, corner {i}: {:?}", fitted[i]);
            }
        }
    }

    #[test]
    fn a_card_as_pale_as_the_table_or_a_side_beyond_reach_is_left_alone() {
        let (pale, sharp) = table_with_card([250.0, 200.0], 110.0, 170.0, 0.2, 220.0);
        assert_eq!(fit_sides(&pale, &sharp, 5.0).unwrap(), None);
        let (frame, sharp) = table_with_card([250.0, 200.0], 110.0, 170.0, 0.2, 50.0);
        // One side eight pixels off: its edge lies beyond a reach of five.
        let off = moved(&sharp, [[0.0, -8.0], [0.0, -8.0], [0.0, 0.0], [0.0, 0.0]]);
        assert_eq!(fit_sides(&frame, &off, 5.0).unwrap(), None);
    }
}
