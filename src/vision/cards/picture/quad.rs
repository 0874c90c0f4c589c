//! Card outlines as four image points: centres, sides, areas, containment and their order.

use opencv::core;

use crate::geometry::{Pt, quad_contains};
use crate::vision::cards::types::{CARD_H, CARD_W, Quad};

/// An outline whose long side is under this many times its short one is nearly square. A card
/// is 1.4 times as long as it is wide, but seen 45° from overhead along its length it looks
/// square. So do a table's tiles, a carpet's gaps and a box: such an outline stands only as a
/// card read from its corners, or as a back the corner network and the paper test are sure of
/// (`sure_back`) or a calibrated back matches.
pub(in crate::vision::cards) const SQUARE: f32 = 1.1;

pub(in crate::vision::cards) fn box_centre(b: &core::Rect) -> [f32; 2] {
    [b.x as f32 + b.width as f32 / 2.0, b.y as f32 + b.height as f32 / 2.0]
}

pub fn quad_centre(q: &[[f32; 2]; 4]) -> [f32; 2] {
    [q.iter().map(|p| p[0]).sum::<f32>() / 4.0, q.iter().map(|p| p[1]).sum::<f32>() / 4.0]
}

/// Two outlines of one card: centres close and sides alike.
pub(in crate::vision::cards) fn same_card(a: &[[f32; 2]; 4], b: &[[f32; 2]; 4]) -> bool {
    let (sa, la) = side_lengths(a);
    let (sb, lb) = side_lengths(b);
    dist(quad_centre(a), quad_centre(b)) < 0.25 * sa.min(sb) && (la / lb - 1.0).abs() < 0.25
}

/// Whether an outline is nearly square (`SQUARE`).
pub(in crate::vision::cards) fn nearly_square(q: &Quad) -> bool {
    let (short, long) = side_lengths(q);
    long < SQUARE * short
}

/// An outline's area (the product of its mean side lengths).
pub(in crate::vision::cards) fn quad_area(q: &Quad) -> f32 {
    let (s, l) = side_lengths(q);
    s * l
}

/// Whether `small`'s centre lies inside `big`, which is clearly the larger.
pub(in crate::vision::cards) fn holds(big: &Quad, small: &Quad) -> bool {
    quad_area(big) > 1.3 * quad_area(small) && inside(big, quad_centre(small))
}

/// Whether `big` holds `small` and `small` is under 0.3 of its area: a card on what it lies on,
/// rather than a part of a card (a court card's picture frame is over half the card).
pub(in crate::vision::cards) fn holds_small(big: &Quad, small: &Quad) -> bool {
    holds(big, small) && quad_area(small) < 0.3 * quad_area(big)
}

/// Whether an outline takes in most of the frame of `size` (width, height), as the table does
/// when a level or the light cuts it off short of the frame's edges, and a card photographed
/// close up.
pub(crate) fn spans_frame(q: &[[f32; 2]; 4], size: [f32; 2]) -> bool {
    let (short, long) = side_lengths(q);
    short * long > 0.75 * size[0] * size[1]
}

/// Whether one of an outline's sides runs along an edge of the frame of `size` (width, height):
/// the outline is then where the frame cuts something off, not necessarily its own outline.
pub(in crate::vision::cards) fn cut_by_frame(q: &[[f32; 2]; 4], size: [f32; 2]) -> bool {
    let margin = 2.0 + 0.01 * size[0].max(size[1]);
    let near =
        |p: [f32; 2]| [p[0] < margin, p[1] < margin, p[0] > size[0] - 1.0 - margin, p[1] > size[1] - 1.0 - margin];
    (0..4).any(|i| {
        let (a, b) = (near(q[i]), near(q[(i + 1) % 4]));
        (0..4).any(|edge| a[edge] && b[edge])
    })
}

/// Whether a point lies inside a convex quad (the renderer's plane geometry does the test).
pub(crate) fn inside(q: &[[f32; 2]; 4], p: [f32; 2]) -> bool {
    let pt = |c: [f32; 2]| Pt::new(f64::from(c[0]), f64::from(c[1]));
    quad_contains(&q.map(pt), pt(p))
}

pub(crate) fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// The longer side of an outline, in pixels.
pub(in crate::vision::cards) fn longer_side(quad: &[[f32; 2]; 4]) -> f32 {
    let (a, b) = side_lengths(quad);
    a.max(b)
}

pub(in crate::vision::cards) fn side_lengths(q: &[[f32; 2]; 4]) -> (f32, f32) {
    let a = (dist(q[0], q[1]) + dist(q[2], q[3])) / 2.0;
    let b = (dist(q[1], q[2]) + dist(q[3], q[0])) / 2.0;
    (a.min(b), a.max(b))
}

/// Orders four corners clockwise (image y down) starting so that the first side is a short side
/// (the card stands upright in its own frame), from the corner nearer the image's top-left.
pub fn order_quad(mut q: [[f32; 2]; 4]) -> [[f32; 2]; 4] {
    let cx = q.iter().map(|p| p[0]).sum::<f32>() / 4.0;
    let cy = q.iter().map(|p| p[1]).sum::<f32>() / 4.0;
    q.sort_by(|a, b| {
        let ta = (a[1] - cy).atan2(a[0] - cx);
        let tb = (b[1] - cy).atan2(b[0] - cx);
        ta.total_cmp(&tb)
    });
    let start_options = if dist(q[0], q[1]) <= dist(q[1], q[2]) { [0, 2] } else { [1, 3] };
    let start =
        *start_options.iter().min_by(|&&a, &&b| (q[a][0] + q[a][1]).total_cmp(&(q[b][0] + q[b][1]))).unwrap_or(&0);
    [q[start], q[(start + 1) % 4], q[(start + 2) % 4], q[(start + 3) % 4]]
}

/// The two ends of an outline too long for one card, each a card long (measured from the
/// outline's short side), clockwise from their own top-left; `None` for a card-shaped outline.
pub(in crate::vision::cards) fn pair_ends(quad: &Quad) -> Option<[Quad; 2]> {
    let (short, long) = side_lengths(quad);
    if long < 1.7 * short {
        return None;
    }
    let length = short * CARD_H as f32 / CARD_W as f32;
    let towards = |from: [f32; 2], to: [f32; 2]| {
        let k = length / dist(from, to).max(1.0);
        [from[0] + (to[0] - from[0]) * k, from[1] + (to[1] - from[1]) * k]
    };
    let [a, b, c, d] = *quad;
    Some([[a, b, towards(b, c), towards(a, d)], [towards(d, a), towards(c, b), c, d]])
}

/// The two halves of an outline of about a card's shape, cut across its long sides, each
/// clockwise from its own top-left: two cards lying side by side, long sides touching, make one
/// outline of nearly a card's proportions (two cards 63 mm wide side by side are 126 x 88 mm, a
/// ratio of 1.43 against one card's 1.40), each half a card. `None` for an outline of another
/// shape.
pub(in crate::vision::cards) fn side_by_side_halves(quad: &Quad) -> Option<[Quad; 2]> {
    let (short, long) = side_lengths(quad);
    if !(1.2..=1.8).contains(&(long / short.max(1.0))) {
        return None;
    }
    let mid = |p: [f32; 2], q: [f32; 2]| [(p[0] + q[0]) / 2.0, (p[1] + q[1]) / 2.0];
    let [a, b, c, d] = short_side_first(quad);
    let (bc, da) = (mid(b, c), mid(d, a));
    Some([order_quad([a, b, bc, da]), order_quad([bc, c, d, da])])
}

/// An outline of about a square's shape, turned each of the two ways it may be cut across its
/// middle (the cut joins the middles of its second and fourth sides): two pairs of cards lying
/// end to end side by side (a row's card with another laid on it, beside a stack) make one
/// outline nearly as long as it is wide. `None` for an outline of another shape.
pub(in crate::vision::cards) fn square_turns(quad: &Quad) -> Option<[Quad; 2]> {
    let (short, long) = side_lengths(quad);
    if long / short.max(1.0) >= SQUARE_AT_MOST {
        return None;
    }
    let [a, b, c, d] = *quad;
    Some([[a, b, c, d], [b, c, d, a]])
}

/// Long side over short side of an outline taken for a square (`square_turns`): below
/// `side_by_side_halves`' least.
const SQUARE_AT_MOST: f32 = 1.2;

/// The outline's corners in the same turn, starting so that the first side is a short one.
pub(in crate::vision::cards) fn short_side_first(quad: &Quad) -> Quad {
    let [a, b, c, d] = *quad;
    if dist(a, b) + dist(c, d) > dist(b, c) + dist(d, a) { [b, c, d, a] } else { [a, b, c, d] }
}

/// The area inside an outline (the shoelace formula), in square pixels.
pub fn shoelace_area(q: &[[f32; 2]; 4]) -> f32 {
    (0..4).map(|i| q[i][0] * q[(i + 1) % 4][1] - q[(i + 1) % 4][0] * q[i][1]).sum::<f32>().abs() / 2.0
}
