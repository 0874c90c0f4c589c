//! Finding round cards: white discs (ellipses when seen at an angle) on any table.
//!
//! Candidates come from two sources, so that a white card is found on a dark table as well as on a
//! white one: the outer contours of the "whitish" (bright, unsaturated) regions, and the contours
//! of the image's edges. Each candidate gets an ellipse (`fit_ellipse`), and a circle when it runs
//! along one (on white paper only the shadowed side of a white card's rim may show). A card's rim
//! lies on edges running along it, and just inside it the card is whitish and blank (symbols are
//! printed clear of the rim). Cards that touch or overlap share one outline: its arcs between the
//! dents where their rims meet are fitted on their own, and an ellipse around several
//! better-supported cards is dropped.

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

    /// The point at parameter `t` (radians) on the ellipse scaled by `k` about the centre.
    pub fn rim_point(&self, t: f32, k: f32) -> (f32, f32) {
        let (s, c) = self.angle_deg.to_radians().sin_cos();
        let (u, v) = (self.axes.0 * k * t.cos(), self.axes.1 * k * t.sin());
        (self.center.0 + u * c - v * s, self.center.1 + u * s + v * c)
    }

    /// The scale about the centre at which the ellipse passes through a point (1: on the rim).
    pub fn scaled_distance(&self, p: (f32, f32)) -> f32 {
        let (s, c) = self.angle_deg.to_radians().sin_cos();
        let (dx, dy) = (p.0 - self.center.0, p.1 - self.center.1);
        let (u, v) = (dx * c + dy * s, -dx * s + dy * c);
        ((u / self.axes.0).powi(2) + (v / self.axes.1).powi(2)).sqrt()
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

/// An arc cut from an outline must cover at least this share of its ellipse's perimeter ...
const MIN_ARC: f32 = 0.4;
/// ... with nearly all its points within this relative distance of the rim.
const RIM_TOLERANCE: f32 = 0.05;

fn contours_of(mask: &Mat, mode: i32) -> Result<Vector<Vector<Point>>> {
    let mut contours = Vector::<Vector<Point>>::new();
    imgproc::find_contours(mask, &mut contours, mode, imgproc::CHAIN_APPROX_NONE, Point::new(0, 0))?;
    Ok(contours)
}

/// The arcs of one card's rim in the outline of several: cards that touch or overlap make one
/// whitish region whose outline dents inwards where their rims meet. The outline between two
/// dents deeper than `min_depth` pixels is fitted on its own.
fn rim_arcs(contour: &Vector<Point>, min_depth: f32) -> Result<Vec<Vector<Point>>> {
    if contour.len() < 40 {
        return Ok(Vec::new());
    }
    let mut hull = Vector::<i32>::new();
    imgproc::convex_hull(contour, &mut hull, false, false)?;
    let mut defects = Vector::<core::Vec4i>::new();
    // OpenCV refuses some self-crossing outlines (traces of edges): those are not split.
    if hull.len() < 3 || imgproc::convexity_defects(contour, &hull, &mut defects).is_err() {
        return Ok(Vec::new());
    }
    let mut cuts: Vec<usize> =
        defects.iter().filter(|d| d[3] as f32 / 256.0 >= min_depth).map(|d| d[2] as usize).collect();
    if cuts.len() < 2 {
        return Ok(Vec::new());
    }
    cuts.sort_unstable();
    let n = contour.len();
    let mut arcs = Vec::new();
    for (k, &start) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).copied().unwrap_or(cuts[0] + n);
        if end - start >= 20 {
            arcs.push((start..end).map(|i| contour.get(i % n)).collect::<Result<Vector<Point>, _>>()?);
        }
    }
    Ok(arcs)
}

/// How far apart two points are, in pixels.
pub(super) fn distance(a: (f32, f32), b: (f32, f32)) -> f32 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Whether a candidate is the outline of several cards together: two better-supported candidates
/// inside it, far enough apart to be two cards, each about as wide as it (the outline of two
/// touching cards is one card wide; pieces of a card's outline between its symbols are narrower).
fn spans_cards(x: &(f32, CardRegion), found: &[(f32, CardRegion)]) -> bool {
    let (score, region) = x;
    let inside: Vec<&CardRegion> = found
        .iter()
        .filter(|(s, r)| {
            s > score
                && r.radius() >= 0.8 * region.axes.0.min(region.axes.1)
                && r.radius() < region.radius()
                && distance(r.center, region.center) < region.radius()
        })
        .map(|(_, r)| r)
        .collect();
    inside
        .iter()
        .enumerate()
        .any(|(k, a)| inside[k + 1..].iter().any(|b| distance(a.center, b.center) >= 0.9 * a.radius().max(b.radius())))
}

/// The cards among verified candidates (score, region). Of candidates of about one size lying
/// nearly on each other (one card fitted twice, or a card and an outline a little off it) the
/// best scored is kept; then, largest first, candidates centred inside an accepted card (round
/// symbols on a card) are dropped, as are the outlines of several cards together.
fn pick_cards(found: Vec<(f32, CardRegion)>) -> Vec<CardRegion> {
    let mut found: Vec<(f32, CardRegion)> = found.iter().filter(|x| !spans_cards(x, &found)).copied().collect();
    found.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut best: Vec<CardRegion> = Vec::new();
    for (_, region) in found {
        let same = |c: &CardRegion| {
            let (small, large) = (c.radius().min(region.radius()), c.radius().max(region.radius()));
            small >= 0.7 * large && distance(c.center, region.center) < 0.5 * large
        };
        if !best.iter().any(same) {
            best.push(region);
        }
    }
    best.sort_by(|x, y| y.radius().total_cmp(&x.radius()));
    let mut cards: Vec<CardRegion> = Vec::new();
    for region in best {
        if !cards.iter().any(|c| distance(c.center, region.center) < 0.9 * c.radius()) {
            cards.push(region);
        }
    }
    cards
}

/// Whether an arc is a long stretch of the rim of the ellipse fitted to it: a piece of outline
/// between the symbols of one card (rim, then the edge of a symbol) fits some ellipse, but poorly.
fn follows_rim(arc: &[Point], region: &CardRegion) -> bool {
    let perimeter = std::f32::consts::PI * (region.axes.0 + region.axes.1);
    let close =
        arc.iter().filter(|p| (region.scaled_distance((p.x as f32, p.y as f32)) - 1.0).abs() < RIM_TOLERANCE).count();
    arc.len() as f32 >= MIN_ARC * perimeter && close as f32 >= 0.9 * arc.len() as f32
}

/// The least-squares circle through a contour's points (centre, radius): a short stretch of a
/// rim fixes a circle well where an ellipse fitted to it is unstable.
fn fit_circle(points: &[Point]) -> Option<((f32, f32), f32)> {
    let n = points.len() as f64;
    if n < 10.0 {
        return None;
    }
    let (mx, my) = points.iter().fold((0.0, 0.0), |(x, y), p| (x + p.x as f64 / n, y + p.y as f64 / n));
    // Kasa's fit about the mean: u^2 + v^2 + a u + b v + c = 0 in least squares.
    let (mut suu, mut suv, mut svv, mut su, mut sv) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut suz, mut svz, mut sz) = (0.0, 0.0, 0.0);
    for p in points.iter() {
        let (u, v) = (p.x as f64 - mx, p.y as f64 - my);
        let z = u * u + v * v;
        suu += u * u;
        suv += u * v;
        svv += v * v;
        su += u;
        sv += v;
        suz += u * z;
        svz += v * z;
        sz += z;
    }
    let m = [[suu, suv, su], [suv, svv, sv], [su, sv, n]];
    let r = [-suz, -svz, -sz];
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(&m);
    if d.abs() < 1e-9 {
        return None;
    }
    let solve = |k: usize| {
        let mut mk = m;
        for (row, value) in mk.iter_mut().zip(r) {
            row[k] = value;
        }
        det(&mk) / d
    };
    let (a, b, c) = (solve(0), solve(1), solve(2));
    let radius2 = (a * a + b * b) / 4.0 - c;
    (radius2 > 0.0).then(|| (((mx - a / 2.0) as f32, (my - b / 2.0) as f32), radius2.sqrt() as f32))
}

/// The images a candidate is checked against, at the working scale.
struct Evidence<'a> {
    w: i32,
    h: i32,
    /// Blurred whiteness, its thickened edges, and its gradients.
    white: &'a [u8],
    edges: &'a [u8],
    dx: &'a [i16],
    dy: &'a [i16],
    white_thr: f32,
}

impl Evidence<'_> {
    fn index(&self, (x, y): (f32, f32)) -> Option<usize> {
        let (xi, yi) = (x.round() as i32, y.round() as i32);
        (xi >= 0 && yi >= 0 && xi < self.w && yi < self.h).then_some((yi * self.w + xi) as usize)
    }

    /// Whether an edge crosses the rim at `p` running along it: its gradient points across the rim
    /// (towards or away from the centre), not along it as the edges of symbols and clutter may.
    fn rim_edge(&self, region: &CardRegion, p: (f32, f32)) -> bool {
        let Some(i) = self.index(p) else { return false };
        if self.edges[i] == 0 {
            return false;
        }
        let (gx, gy) = (self.dx[i] as f32, self.dy[i] as f32);
        let (rx, ry) = (p.0 - region.center.0, p.1 - region.center.1);
        let (g, r) = ((gx * gx + gy * gy).sqrt(), (rx * rx + ry * ry).sqrt());
        // A thickened edge pixel beside the edge itself may have almost no gradient.
        g < 4.0 || (gx * rx + gy * ry).abs() >= 0.8 * g * r
    }

    /// What the picture says of a candidate, sampled around its rim.
    fn support(&self, region: &CardRegion) -> RimEvidence {
        let samples = 96;
        let (mut on_edge, mut inside_white, mut visible, mut blank, mut outside) = (0, 0, 0, 0, 0);
        for i in 0..samples {
            let t = i as f32 / samples as f32 * std::f32::consts::TAU;
            if self.index(region.rim_point(t, 1.0)).is_some() {
                visible += 1;
                // The rim may lie a pixel or two off the fitted ellipse.
                if [0.97, 1.0, 1.03].iter().any(|&k| self.rim_edge(region, region.rim_point(t, k))) {
                    on_edge += 1;
                }
            }
            if self.index(region.rim_point(t, 0.9)).is_some_and(|i| self.white[i] as f32 >= self.white_thr) {
                inside_white += 1;
            }
            if [0.86, 0.9].iter().all(|&k| self.index(region.rim_point(t, k)).is_some_and(|i| self.edges[i] == 0)) {
                blank += 1;
            }
            if [1.1, 1.15].iter().all(|&k| self.index(region.rim_point(t, k)).is_none_or(|i| self.edges[i] == 0)) {
                outside += 1;
            }
        }
        let share = |n: i32| n as f32 / samples as f32;
        RimEvidence {
            edge: share(on_edge),
            white: share(inside_white),
            blank: share(blank),
            outside: share(outside),
            visible: visible >= samples / 2,
        }
    }
}

/// Shares of a candidate's rim (0..1), and whether half of it is in the picture.
struct RimEvidence {
    /// On an edge running along the rim.
    edge: f32,
    /// Whitish just inside the rim.
    white: f32,
    /// With no edge in the margin just inside the rim (symbols are printed clear of it).
    blank: f32,
    /// With no edge just outside the rim.
    outside: f32,
    visible: bool,
}

impl RimEvidence {
    /// Whether this is a card's rim: cards partly out of the frame keep their visible rim. Where
    /// only the shadowed side of its rim shows (a white card on white paper) a third of the rim
    /// will do when the card's margin is blank just inside it and nothing lies just outside it.
    /// (The top of an untidy pile has the rims of the cards beneath just outside its own.)
    fn is_card(&self) -> bool {
        let shadowed = self.edge >= 0.3 && self.outside >= 0.7 && self.blank >= 0.6;
        self.visible && (self.edge >= 0.4 || shadowed) && self.white >= 0.55
    }

    fn score(&self) -> f32 {
        self.edge + self.blank + 0.5 * self.outside
    }
}

/// Whether an ellipse has a card's shape and size in a `w` x `h` picture.
fn card_sized(region: &CardRegion, min_radius: f32, w: i32, h: i32) -> bool {
    let (a, b) = region.axes;
    // Seen at an angle a disc is an ellipse, but not a very thin one.
    a.is_finite()
        && b.is_finite()
        && a.min(b) >= min_radius
        && a.max(b) <= 1.2 * w.max(h) as f32
        && a.min(b) / a.max(b) >= 0.45
}

/// The ellipse fitted to a candidate outline, when the outline goes most of the way round it (an
/// ellipse fitted to a short arc is unsure), and the circle an outline runs along (the shadowed
/// side of a white card on white paper may be all its rim that shows).
fn fitted_regions(contour: &Vector<Point>, is_arc: bool) -> Result<Vec<CardRegion>> {
    let mut regions = Vec::new();
    // Points copied out once: reading an OpenCV vector point by point crosses into C++ each time.
    let points = contour.to_vec();
    let rect = imgproc::fit_ellipse(contour)?;
    let ellipse = CardRegion {
        center: (rect.center.x, rect.center.y),
        axes: (rect.size.width / 2.0, rect.size.height / 2.0),
        angle_deg: rect.angle,
    };
    let around = if is_arc { follows_rim(&points, &ellipse) } else { sectors_covered(&points, &ellipse) >= 24 };
    if around {
        regions.push(ellipse);
    }
    if let Some(circle) = trimmed_circle(&points) {
        regions.push(circle);
    }
    Ok(regions)
}

/// The circle along which most of a contour runs: fitted, refitted to the points near it (an arc
/// of rim traced together with the edges of a symbol touching it), and kept when those points
/// cover a quarter of its rim.
fn trimmed_circle(contour: &[Point]) -> Option<CardRegion> {
    let (mut center, mut r) = fit_circle(contour)?;
    let mut near = Vec::new();
    for _ in 0..3 {
        let region = CardRegion { center, axes: (r, r), angle_deg: 0.0 };
        near = contour
            .iter()
            .filter(|p| (region.scaled_distance((p.x as f32, p.y as f32)) - 1.0).abs() < 2.0 * RIM_TOLERANCE)
            .copied()
            .collect();
        (center, r) = fit_circle(&near)?;
    }
    let circle = CardRegion { center, axes: (r, r), angle_deg: 0.0 };
    // A double line (the card's edge and its shadow) lies a few pixels either side of the rim.
    (near.len() >= 40 && 2 * near.len() >= contour.len() && sectors_covered(&near, &circle) >= 12).then_some(circle)
}

/// How many of 48 sectors of a circle's rim the points lie in.
fn sectors_covered(points: &[Point], region: &CardRegion) -> usize {
    let mut sectors = [false; 48];
    for p in points.iter() {
        let t = (p.y as f32 - region.center.1).atan2(p.x as f32 - region.center.0);
        let k = ((t / std::f32::consts::TAU + 1.0) * 48.0) as usize % 48;
        sectors[k] = true;
    }
    sectors.iter().filter(|&&s| s).count()
}

/// Finds the round cards in a BGR frame, largest first.
pub fn find_cards(bgr: &Mat) -> Result<Vec<CardRegion>> {
    Ok(find_cards_and_clusters(bgr)?.cards)
}

/// What the finder sees in a frame.
pub struct Found {
    /// Round cards found by their rims, largest first.
    pub cards: Vec<CardRegion>,
    /// The ink blobs on whitish ground (centre, area), in image pixels.
    ink: Vec<((f32, f32), f32)>,
    /// The median radius of the cards found.
    radius: Option<f32>,
}

impl Found {
    /// Discs the size of the found cards around the clusters of symbols that none of `cards`
    /// holds (a white card on white paper whose rim makes no edge at all, or one whose rim was
    /// fitted badly). Only candidates: the caller keeps one when it reads as a card.
    pub fn clusters(&self, cards: &[CardRegion]) -> Vec<CardRegion> {
        self.radius.map_or_else(Vec::new, |radius| symbol_clusters(&self.ink, cards, radius))
    }
}

/// Symbols of one card: at least this many ink blobs near each other ...
const CLUSTER_MIN_BLOBS: usize = 5;
/// ... within this share of a card's radius of their centre (symbols are printed clear of the rim).
const CLUSTER_REACH: f32 = 0.8;

/// The ink blobs lying on whitish ground: the holes of the whitish mask, as (centre, area).
fn ink_blobs(mask: &Mat) -> Result<Vec<((f32, f32), f32)>> {
    let mut contours = Vector::<Vector<Point>>::new();
    let mut hierarchy = Vector::<core::Vec4i>::new();
    imgproc::find_contours_with_hierarchy(
        mask,
        &mut contours,
        &mut hierarchy,
        imgproc::RETR_CCOMP,
        imgproc::CHAIN_APPROX_SIMPLE,
        Point::new(0, 0),
    )?;
    let mut blobs = Vec::new();
    for (contour, links) in contours.iter().zip(hierarchy.iter()) {
        // With two levels, a contour with a parent is a hole in a whitish region.
        if links[3] < 0 {
            continue;
        }
        let m = imgproc::moments_def(&contour)?;
        if m.m00 > 0.0 {
            blobs.push((((m.m10 / m.m00) as f32, (m.m01 / m.m00) as f32), m.m00 as f32));
        }
    }
    Ok(blobs)
}

/// Discs of radius `radius` around clusters of ink blobs outside the cards found: from each blob
/// not yet taken, the centre moves to the mean of the blobs within reach until it settles.
fn symbol_clusters(blobs: &[((f32, f32), f32)], cards: &[CardRegion], radius: f32) -> Vec<CardRegion> {
    let area = std::f32::consts::PI * radius * radius;
    // A symbol covers about 1 % to 10 % of its card; smaller holes are specks and lines.
    let mut free: Vec<(f32, f32)> = blobs
        .iter()
        .filter(|(c, a)| *a >= 0.002 * area && *a <= 0.15 * area && cards.iter().all(|r| r.scaled_distance(*c) > 1.05))
        .map(|(c, _)| *c)
        .collect();
    let reach = CLUSTER_REACH * radius;
    let mut clusters = Vec::new();
    while let Some(&start) = free.first() {
        let mut centre = start;
        for _ in 0..10 {
            let near: Vec<&(f32, f32)> = free.iter().filter(|b| distance(**b, centre) <= reach).collect();
            let n = near.len() as f32;
            let mean = near.iter().fold((0.0, 0.0), |m, b| (m.0 + b.0 / n, m.1 + b.1 / n));
            let settled = distance(mean, centre) < 0.5;
            centre = mean;
            if settled {
                break;
            }
        }
        let taken = free.iter().filter(|b| distance(**b, centre) <= reach).count();
        let overlaps = cards.iter().chain(&clusters).any(|c: &CardRegion| distance(c.center, centre) < 1.5 * radius);
        if taken >= CLUSTER_MIN_BLOBS && !overlaps {
            clusters.push(CardRegion { center: centre, axes: (radius, radius), angle_deg: 0.0 });
            free.retain(|b| distance(*b, centre) > reach);
        }
        // The start blob goes whatever happens, so that the loop ends; the blobs of a cluster that
        // is not taken stay free to gather round another centre.
        free.retain(|b| *b != start);
    }
    clusters
}

/// Finds the round cards in a BGR frame, and the clusters of symbols that may be cards.
pub fn find_cards_and_clusters(bgr: &Mat) -> Result<Found> {
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
    let (mut dx, mut dy) = (Mat::default(), Mat::default());
    imgproc::sobel_def(&blurred, &mut dx, core::CV_16S, 1, 0)?;
    imgproc::sobel_def(&blurred, &mut dy, core::CV_16S, 0, 1)?;

    let min_radius = (w.min(h) as f32 * 0.06).max(12.0);
    let mut outlines: Vec<Vector<Point>> = contours_of(&mask, imgproc::RETR_EXTERNAL)?.into_iter().collect();
    outlines.extend(contours_of(&edges_thick, imgproc::RETR_LIST)?);
    // (points, whether they are an arc cut from a longer outline)
    let mut candidates: Vec<(Vector<Point>, bool)> = Vec::new();
    for contour in outlines {
        candidates.extend(rim_arcs(&contour, min_radius / 2.0)?.into_iter().map(|arc| (arc, true)));
        candidates.push((contour, false));
    }

    let evidence = Evidence {
        w,
        h,
        white: blurred.data_bytes()?,
        edges: edges_thick.data_bytes()?,
        dx: dx.data_typed::<i16>()?,
        dy: dy.data_typed::<i16>()?,
        white_thr: (otsu as f32).max(60.0),
    };
    let mut found: Vec<(f32, CardRegion)> = Vec::new();
    for (contour, is_arc) in candidates {
        if contour.len() < 20 {
            continue;
        }
        for region in fitted_regions(&contour, is_arc)? {
            if !card_sized(&region, min_radius, w, h) {
                continue;
            }
            let evidence = evidence.support(&region);
            if evidence.is_card() {
                found.push((evidence.score(), region));
            }
        }
    }
    let inv = 1.0 / scale as f32;
    let mut cards: Vec<CardRegion> = pick_cards(found)
        .into_iter()
        .map(|c| CardRegion {
            center: (c.center.0 * inv, c.center.1 * inv),
            axes: (c.axes.0 * inv, c.axes.1 * inv),
            angle_deg: c.angle_deg,
        })
        .collect();
    cards.sort_by(|x, y| y.radius().total_cmp(&x.radius()));
    let ink = ink_blobs(&mask)?.into_iter().map(|(c, a)| ((c.0 * inv, c.1 * inv), a * inv * inv)).collect();
    let radius = cards.get(cards.len() / 2).map(CardRegion::radius);
    Ok(Found { cards, ink, radius })
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
    fn a_white_disc_on_white_paper_is_found_by_its_shadowed_side() {
        let mut img =
            Mat::new_rows_cols_with_default(360, 480, core::CV_8UC3, Scalar::new(213.0, 213.0, 212.0, 0.0)).unwrap();
        let (centre, r) = (Point::new(250, 170), 100);
        imgproc::circle(&mut img, centre, r, Scalar::new(216.0, 215.0, 215.0, 0.0), -1, imgproc::LINE_AA, 0).unwrap();
        // The shadow along a third of the rim; elsewhere card and paper all but meet.
        let shadow = Scalar::new(150.0, 148.0, 146.0, 0.0);
        imgproc::ellipse(&mut img, centre, Size::new(r + 2, r + 2), 0.0, -10.0, 120.0, shadow, 3, imgproc::LINE_AA, 0)
            .unwrap();
        for (k, colour) in [(0, (40.0, 40.0, 200.0)), (1, (40.0, 160.0, 40.0)), (2, (200.0, 80.0, 40.0))] {
            let at = Point::new(220 + 30 * k, 150 + 20 * (k % 2));
            imgproc::circle(&mut img, at, 14, Scalar::new(colour.0, colour.1, colour.2, 0.0), -1, imgproc::LINE_AA, 0)
                .unwrap();
        }
        let cards = find_cards(&img).unwrap();
        assert_eq!(cards.len(), 1, "{cards:?}");
        let c = cards[0];
        assert!(distance(c.center, (250.0, 170.0)) < 5.0 && (c.radius() - 101.0).abs() < 5.0, "{c:?}");
    }

    #[test]
    fn symbols_clustered_outside_the_cards_found_make_a_disc_of_their_size() {
        let ring = |c: (f32, f32)| -> Vec<((f32, f32), f32)> {
            (0..7)
                .map(|k| (k as f32).to_radians() * 51.0)
                .map(|t| ((c.0 + 45.0 * t.cos(), c.1 + 45.0 * t.sin()), 300.0))
                .collect()
        };
        let found = CardRegion { center: (100.0, 100.0), axes: (80.0, 80.0), angle_deg: 0.0 };
        // A found card's symbols, a card's symbols nobody found, and three stray specks.
        let mut blobs = ring((100.0, 100.0));
        blobs.extend(ring((300.0, 120.0)));
        blobs.extend([((500.0, 400.0), 300.0), ((520.0, 380.0), 300.0), ((200.0, 400.0), 2.0)]);
        let clusters = symbol_clusters(&blobs, &[found], 80.0);
        assert_eq!(clusters.len(), 1, "{clusters:?}");
        assert!(distance(clusters[0].center, (300.0, 120.0)) < 8.0 && clusters[0].radius() == 80.0, "{clusters:?}");
        // With no card found, both clusters are candidates.
        assert_eq!(symbol_clusters(&blobs, &[], 80.0).len(), 2);
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

    /// Two Cipher cards `gap` diameters apart (centre to centre), the second on top.
    fn two_cards(gap: f32, tilt_deg: f32) -> (Mat, [(f32, f32); 2]) {
        use crate::symbols::render::{PictureDeck, Scene, SceneCard, render_scene};
        let deck = PictureDeck::cipher();
        let d = 260.0;
        let (s, c) = tilt_deg.to_radians().sin_cos();
        let centers = [
            (320.0 - c * gap * d / 2.0, 240.0 - s * gap * d / 2.0),
            (320.0 + c * gap * d / 2.0, 240.0 + s * gap * d / 2.0),
        ];
        let cards = [(5, centers[0], 20.0), (31, centers[1], 200.0)].map(|(card, center, rotation_deg)| SceneCard {
            card,
            center,
            diameter: d,
            rotation_deg,
        });
        let scene = Scene { width: 640, height: 480, table_rgb: [40, 70, 50], cards: cards.to_vec() };
        let (img, _) = render_scene(&deck, &scene).unwrap();
        (super::super::enroll::rgba_on_white(&img).unwrap(), centers)
    }

    #[test]
    fn touching_and_overlapping_cards_are_found_separately() {
        for (gap, tilt) in [(1.0, 90.0), (0.85, 70.0), (0.75, 10.0)] {
            let (img, centers) = two_cards(gap, tilt);
            let cards = find_cards(&img).unwrap();
            assert_eq!(cards.len(), 2, "gap {gap}: {cards:?}");
            for c in centers {
                assert!(
                    cards.iter().any(|f| distance(f.center, c) < 10.0 && (f.radius() - 130.0).abs() < 10.0),
                    "gap {gap}: no card at {c:?} in {cards:?}"
                );
            }
        }
    }
}
