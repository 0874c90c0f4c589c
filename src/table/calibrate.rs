//! Learning the table layout from the deal: the camera's view of the table plane from the card
//! outlines (each is a 63×88 mm rectangle), then the standard layout's seats matched to the rows
//! the dealt cards form (2 face-down cards in each Front Row, 5 face-up ones in each Back Row).

use crate::cards::CARD_MM;
use crate::geometry::{Homography, Pt};
use crate::vision::cards::{CardDetection, Face};

use crate::layout::{Row, TableLayout};

/// A dealt card lies this near its slot, millimetres, once the layout is fitted.
const SLOT_TOLERANCE_MM: f64 = 35.0;

/// One card outline: its corners in image pixels, the short (top) edge first, and its face.
#[derive(Clone, Debug)]
struct Outline {
    corners: [Pt; 4],
    up: bool,
}

/// Learns the layout of `players` seats from one frame of the deal. The error says what was
/// missing.
pub fn learn_layout(detections: &[CardDetection], players: usize) -> Result<TableLayout, String> {
    if !(2..=6).contains(&players) {
        return Err(format!("{players} players; a table has 2 to 6"));
    }
    let outlines: Vec<Outline> = detections
        .iter()
        .filter_map(|d| {
            let q = d.quad?;
            Some(Outline { corners: q.map(|[x, y]| Pt::new(f64::from(x), f64::from(y))), up: d.face == Face::Up })
        })
        .collect();
    let needed = players * 7 - unseen_allowed(players);
    // The face-up cards lie apart, each its own outline; backs lying close the reader may merge
    // into one outline, so they are counted, and split, once the plane is known.
    let up: Vec<Outline> = outlines.iter().filter(|o| o.up).cloned().collect();
    let fitted = if up.len() >= 4 { fit_plane(&up) } else { fit_plane(&outlines) };
    let rectify = fitted.ok_or("the card outlines give no view of the table plane")?;
    let cards: Vec<(Pt, f64, bool)> = outlines.iter().flat_map(|o| rectified_cards(o, &rectify)).collect();
    if cards.len() < needed {
        return Err(format!("{} cards seen; a deal of {players} seats shows {}", cards.len(), players * 7));
    }
    let standard = TableLayout::standard(players);
    let (to_standard, matches) = align(&cards, &standard).ok_or_else(|| {
        format!("the cards do not lie as a deal of {players} seats (2 face down in front, 5 face up behind)")
    })?;
    let mut layout = standard.clone();
    layout.image_to_table = to_standard.then_after(&rectify).0;
    place_piles(&mut layout, &cards, &matches, &to_standard);
    // Each row where its cards lie: players do not deal to the millimetre.
    for (s, seat) in layout.seats.iter_mut().enumerate() {
        for (row, front) in [(&mut seat.front, true), (&mut seat.back, false)] {
            let points: Vec<(f64, Pt)> = matches
                .iter()
                .filter(|m| m.seat == s && m.front == front)
                .map(|m| (m.slot as f64, to_standard.apply(cards[m.card].0)))
                .collect();
            *row = refit_row(row, &points);
        }
    }
    Ok(layout.in_chair_order())
}

/// Who sits where at a table whose layout was fitted to the deal, in words: the names go
/// clockwise from the seat nearest the camera's bottom edge (`TableLayout::in_chair_order`).
pub fn seating(names: &[String]) -> String {
    let seats: Vec<String> = names.iter().enumerate().map(|(k, n)| format!("{} {n}", k + 1)).collect();
    format!(
        "the layout is fitted to the deal; seats are named clockwise from the one nearest the camera's bottom \
         edge: {} (a name in the wrong chair: start a new game with the names in that order)",
        seats.join(", ")
    )
}

/// The cards an outline holds on the rectified plane, each as (centre, direction of its top edge,
/// face up): one card, or cards side by side that the reader merged into one outline (as long
/// as a card is wide plus a slot's step for each further card).
fn rectified_cards(o: &Outline, rectify: &Homography) -> Vec<(Pt, f64, bool)> {
    let c = o.corners.map(|p| rectify.apply(p));
    let centre = Pt::new(c.iter().map(|p| p.x).sum::<f64>() / 4.0, c.iter().map(|p| p.y).sum::<f64>() / 4.0);
    let (first, second) =
        ((c[0].distance(c[1]) + c[2].distance(c[3])) / 2.0, (c[1].distance(c[2]) + c[3].distance(c[0])) / 2.0);
    // The long side's direction, and its length.
    let (long, axis) = if first >= second {
        (first, (c[1].y - c[0].y).atan2(c[1].x - c[0].x))
    } else {
        (second, (c[2].y - c[1].y).atan2(c[2].x - c[1].x))
    };
    let short = first.min(second);
    let columns = ((long - CARD_MM.0) / crate::layout::SLOT_MM).round();
    let merged = (short - CARD_MM.1).abs() < CARD_MM.1 * 0.2 && columns >= 1.0;
    if !merged {
        let top = (c[1].y - c[0].y).atan2(c[1].x - c[0].x);
        return vec![(centre, top, o.up)];
    }
    let n = columns as usize + 1;
    let gap = (long - CARD_MM.0) / columns;
    let (dx, dy) = (axis.cos(), axis.sin());
    (0..n)
        .map(|k| {
            let t = (k as f64 - (n - 1) as f64 / 2.0) * gap;
            (Pt::new(centre.x + dx * t, centre.y + dy * t), axis, o.up)
        })
        .collect()
}

/// A dealt card matched to its slot.
struct Match {
    card: usize,
    seat: usize,
    front: bool,
    slot: usize,
}

/// Dealt cards the fit does without: two cards dealt touching may make one outline the reader
/// neither splits nor places (both their slots then go unmatched), or a back may be lost against
/// the table. Every other slot must hold a card of its face, so a table that is no deal still
/// fits nothing.
fn unseen_allowed(players: usize) -> usize {
    if players <= 2 { 1 } else { 2 }
}

/// The slots of a deal: per seat, Front Row slots 0-1 (face down), Back Row slots 0-4 (face up).
fn deal_slots(layout: &TableLayout) -> Vec<(Pt, bool, usize, bool, usize)> {
    let mut out = Vec::new();
    for (s, seat) in layout.seats.iter().enumerate() {
        out.extend((0..2).map(|k| (seat.front.slot(k), false, s, true, k)));
        out.extend((0..5).map(|k| (seat.back.slot(k), true, s, false, k)));
    }
    out
}

/// The rigid motion taking the rectified plane onto the standard layout so that every dealt
/// slot holds a card of its face, and the matches. Tries both ways round (the cards' long sides
/// give the direction up to a half turn), refining each by nearest matches.
fn align(cards: &[(Pt, f64, bool)], layout: &TableLayout) -> Option<(Homography, Vec<Match>)> {
    let slots = deal_slots(layout);
    // The cards' common direction, up to a half turn: the mean of doubled angles.
    let (sx, sy) = cards.iter().fold((0.0, 0.0), |(x, y), (_, a, _)| (x + (2.0 * a).cos(), y + (2.0 * a).sin()));
    let base = sy.atan2(sx) / 2.0;
    let mut best: Option<(f64, Homography, Vec<Match>)> = None;
    // Rows are periodic: a card unseen shifts the centroid, and a start half a slot off settles a
    // whole slot off. So the start is also tried a slot either way along the rows.
    let starts = [0.0, std::f64::consts::PI]
        .into_iter()
        .flat_map(|turn| [0.0, -crate::layout::SLOT_MM, crate::layout::SLOT_MM].map(|shift| (turn, shift)));
    'turns: for (turn, shift) in starts {
        let mut t = rigid(-(base + turn), Pt::new(0.0, 0.0));
        // Start with the dealt cards' centroid on the slots' centroid.
        let moved: Vec<Pt> = cards.iter().map(|c| t.apply(c.0)).collect();
        let mean = |ps: &[Pt]| {
            let n = ps.len().max(1) as f64;
            Pt::new(ps.iter().map(|p| p.x).sum::<f64>() / n, ps.iter().map(|p| p.y).sum::<f64>() / n)
        };
        let (a, b) = (mean(&moved), mean(&slots.iter().map(|s| s.0).collect::<Vec<_>>()));
        t = Homography::translation(b.x - a.x + shift, b.y - a.y).then_after(&t);
        for _ in 0..8 {
            let matches = match_slots(cards, &slots, &t, SLOT_TOLERANCE_MM * 2.0);
            let pairs: Vec<(Pt, Pt)> = matches
                .iter()
                .map(|m| {
                    let slot = slots.iter().find(|s| s.2 == m.seat && s.3 == m.front && s.4 == m.slot).expect("slot");
                    (cards[m.card].0, slot.0)
                })
                .collect();
            let Some(next) = procrustes(&pairs) else {
                continue 'turns;
            };
            t = next;
        }
        let matches = match_slots(cards, &slots, &t, SLOT_TOLERANCE_MM);
        let error: f64 = matches
            .iter()
            .map(|m| {
                let slot = slots.iter().find(|s| s.2 == m.seat && s.3 == m.front && s.4 == m.slot).expect("slot");
                t.apply(cards[m.card].0).distance(slot.0)
            })
            .sum();
        // The most slots matched, then the least error.
        let unseen = slots.len() - matches.len();
        let better = |b: &(f64, Homography, Vec<Match>)| (unseen, error) < (slots.len() - b.2.len(), b.0);
        if unseen <= unseen_allowed(layout.seats.len()) && best.as_ref().is_none_or(better) {
            best = Some((error, t, matches));
        }
    }
    best.map(|(_, t, m)| (t, m))
}

/// Each slot's nearest card of its face within `tolerance` after `t` (each card used once).
fn match_slots(
    cards: &[(Pt, f64, bool)],
    slots: &[(Pt, bool, usize, bool, usize)],
    t: &Homography,
    tolerance: f64,
) -> Vec<Match> {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, c) in cards.iter().enumerate() {
        let p = t.apply(c.0);
        for (j, s) in slots.iter().enumerate() {
            let d = p.distance(s.0);
            if c.2 == s.1 && d < tolerance {
                pairs.push((d, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut card_used, mut slot_used) = (vec![false; cards.len()], vec![false; slots.len()]);
    let mut out = Vec::new();
    for (_, i, j) in pairs {
        if !card_used[i] && !slot_used[j] {
            card_used[i] = true;
            slot_used[j] = true;
            out.push(Match { card: i, seat: slots[j].2, front: slots[j].3, slot: slots[j].4 });
        }
    }
    out
}

fn rigid(angle: f64, shift: Pt) -> Homography {
    Homography::translation(shift.x, shift.y).then_after(&Homography::rotation(angle))
}

/// The rotation and translation that best take each pair's first point onto its second.
fn procrustes(pairs: &[(Pt, Pt)]) -> Option<Homography> {
    if pairs.len() < 2 {
        return None;
    }
    let n = pairs.len() as f64;
    let ca = Pt::new(pairs.iter().map(|p| p.0.x).sum::<f64>() / n, pairs.iter().map(|p| p.0.y).sum::<f64>() / n);
    let cb = Pt::new(pairs.iter().map(|p| p.1.x).sum::<f64>() / n, pairs.iter().map(|p| p.1.y).sum::<f64>() / n);
    let (mut dot, mut cross) = (0.0, 0.0);
    for (a, b) in pairs {
        let (ax, ay, bx, by) = (a.x - ca.x, a.y - ca.y, b.x - cb.x, b.y - cb.y);
        dot += ax * bx + ay * by;
        cross += ax * by - ay * bx;
    }
    let angle = cross.atan2(dot);
    let r = Homography::rotation(angle);
    let turned = r.apply(ca);
    Some(rigid(angle, Pt::new(cb.x - turned.x, cb.y - turned.y)))
}

/// A row moved onto `points` (slot number, position): first slot and step by least squares, the
/// cards' angle turned with the row. With fewer than two points the row stays.
/// The deck where the deal left it: players put it on either side of the middle, so a face-down
/// card outside the rows, nearer the discard pile's place than the deck's, swaps the two places.
fn place_piles(layout: &mut TableLayout, cards: &[(Pt, f64, bool)], matches: &[Match], to_standard: &Homography) {
    let deck = cards
        .iter()
        .enumerate()
        .filter(|(k, (_, _, up))| !up && !matches.iter().any(|m| m.card == *k))
        .map(|(_, (p, _, _))| to_standard.apply(*p))
        .min_by(|a, b| a.distance(Pt::new(0.0, 0.0)).total_cmp(&b.distance(Pt::new(0.0, 0.0))));
    if let Some(deck) = deck
        && deck.distance(layout.discard.centre) < deck.distance(layout.deck.centre)
    {
        std::mem::swap(&mut layout.deck.centre, &mut layout.discard.centre);
    }
}

fn refit_row(row: &Row, points: &[(f64, Pt)]) -> Row {
    if points.len() < 2 {
        return *row;
    }
    let n = points.len() as f64;
    let mk = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mx = points.iter().map(|p| p.1.x).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1.y).sum::<f64>() / n;
    let var: f64 = points.iter().map(|p| (p.0 - mk).powi(2)).sum();
    if var == 0.0 {
        return *row;
    }
    let step = Pt::new(
        points.iter().map(|p| (p.0 - mk) * (p.1.x - mx)).sum::<f64>() / var,
        points.iter().map(|p| (p.0 - mk) * (p.1.y - my)).sum::<f64>() / var,
    );
    let first = Pt::new(mx - step.x * mk, my - step.y * mk);
    let turn = step.y.atan2(step.x) - row.step.y.atan2(row.step.x);
    Row { first, step, angle: row.angle + turn }
}

/// The image → table-plane homography under which every outline is a 63×88 mm rectangle, found
/// by least squares over the homography and each card's position and turn (Levenberg-Marquardt,
/// started from the largest outline taken as exact). The plane's own position and turn are
/// arbitrary.
fn fit_plane(outlines: &[Outline]) -> Option<Homography> {
    let (h, errors) = fit_plane_once(outlines)?;
    // Outlines that are no single card (two merged, a card half hidden) fit badly: drop them and
    // fit again.
    let kept: Vec<Outline> =
        outlines.iter().zip(&errors).filter(|(_, e)| **e < OUTLIER_MM).map(|(o, _)| o.clone()).collect();
    if kept.len() == outlines.len() || kept.len() < 4 {
        let rms = (errors.iter().map(|e| e * e).sum::<f64>() / errors.len().max(1) as f64).sqrt();
        return (rms < OUTLIER_MM).then_some(h);
    }
    let (h, errors) = fit_plane_once(&kept)?;
    let rms = (errors.iter().map(|e| e * e).sum::<f64>() / errors.len().max(1) as f64).sqrt();
    (rms < OUTLIER_MM).then_some(h)
}

/// An outline whose corners lie further than this (root mean square, millimetres) from a 63×88
/// rectangle's is no single card.
const OUTLIER_MM: f64 = 5.0;

/// One least-squares fit: the homography and each outline's corner error (rms, millimetres).
fn fit_plane_once(outlines: &[Outline]) -> Option<(Homography, Vec<f64>)> {
    // Pixels scaled to about ±1, for a well-conditioned solve.
    let all: Vec<Pt> = outlines.iter().flat_map(|o| o.corners).collect();
    let (min, max) = all.iter().fold((Pt::new(f64::MAX, f64::MAX), Pt::new(f64::MIN, f64::MIN)), |(a, b), p| {
        (Pt::new(a.x.min(p.x), a.y.min(p.y)), Pt::new(b.x.max(p.x), b.y.max(p.y)))
    });
    let half = ((max.x - min.x).max(max.y - min.y) / 2.0).max(1.0);
    let norm = Homography::scale(1.0 / half, 1.0 / half)
        .then_after(&Homography::translation(-(min.x + max.x) / 2.0, -(min.y + max.y) / 2.0));
    let local = card_corners();
    // Started from the outline of median area (the largest may be two cards merged).
    let mut by_area: Vec<&Outline> = outlines.iter().collect();
    by_area.sort_by(|a, b| quad_area(&a.corners).total_cmp(&quad_area(&b.corners)));
    let largest = *by_area.get(by_area.len() / 2)?;
    let first = short_side_first(&largest.corners.map(|p| norm.apply(p)), &Homography::IDENTITY);
    let h0 = Homography::from_quads(&first, &local)?;
    // Each outline with its short side first as the first guess sees it.
    let quads: Vec<[Pt; 4]> =
        outlines.iter().map(|o| short_side_first(&o.corners.map(|p| norm.apply(p)), &h0)).collect();
    let mut params: Vec<f64> = h0.0.iter().flatten().take(8).map(|v| v / h0.0[2][2]).collect();
    for q in &quads {
        let c = q.map(|p| h0.apply(p));
        let centre = Pt::new(c.iter().map(|p| p.x).sum::<f64>() / 4.0, c.iter().map(|p| p.y).sum::<f64>() / 4.0);
        params.extend([centre.x, centre.y, (c[1].y - c[0].y).atan2(c[1].x - c[0].x)]);
    }
    let residuals = |p: &[f64]| -> Vec<f64> {
        let h = Homography([[p[0], p[1], p[2]], [p[3], p[4], p[5]], [p[6], p[7], 1.0]]);
        let mut out = Vec::with_capacity(quads.len() * 8);
        for (i, q) in quads.iter().enumerate() {
            let (cx, cy, a) = (p[8 + 3 * i], p[9 + 3 * i], p[10 + 3 * i]);
            let (s, c) = a.sin_cos();
            for (corner, l) in q.iter().zip(&local) {
                let m = h.apply(*corner);
                out.push(m.x - (cx + c * l.x - s * l.y));
                out.push(m.y - (cy + s * l.x + c * l.y));
            }
        }
        out
    };
    let fitted = levenberg_marquardt(&residuals, params, 30)?;
    let h =
        Homography([[fitted[0], fitted[1], fitted[2]], [fitted[3], fitted[4], fitted[5]], [fitted[6], fitted[7], 1.0]]);
    let result = h.then_after(&norm);
    let r = residuals(&fitted);
    let errors: Vec<f64> = r.chunks(8).map(|c| (c.iter().map(|v| v * v).sum::<f64>() / 4.0).sqrt()).collect();
    errors.iter().all(|e| e.is_finite()).then_some((result, errors))
}

/// A 63×88 mm card's corners about its centre, clockwise from the top-left (y down).
fn card_corners() -> [Pt; 4] {
    let (w, h) = (CARD_MM.0 / 2.0, CARD_MM.1 / 2.0);
    [Pt::new(-w, -h), Pt::new(w, -h), Pt::new(w, h), Pt::new(-w, h)]
}

/// The quad's corners turned so that its first side is a short one as seen through `h`.
fn short_side_first(q: &[Pt; 4], h: &Homography) -> [Pt; 4] {
    let m = q.map(|p| h.apply(p));
    let first = m[0].distance(m[1]) + m[2].distance(m[3]);
    let second = m[1].distance(m[2]) + m[3].distance(m[0]);
    if first <= second { *q } else { [q[1], q[2], q[3], q[0]] }
}

fn quad_area(q: &[Pt; 4]) -> f64 {
    (0..4).map(|i| q[i].x * q[(i + 1) % 4].y - q[(i + 1) % 4].x * q[i].y).sum::<f64>().abs() / 2.0
}

/// Minimises the sum of squared residuals from `start`; numeric derivatives.
fn levenberg_marquardt(f: &dyn Fn(&[f64]) -> Vec<f64>, start: Vec<f64>, iterations: usize) -> Option<Vec<f64>> {
    let mut p = start;
    let mut r = f(&p);
    let mut cost: f64 = r.iter().map(|v| v * v).sum();
    let mut lambda = 1e-3;
    let n = p.len();
    for _ in 0..iterations {
        // Jacobian by forward differences, column by column.
        let mut jac = vec![vec![0.0; n]; r.len()];
        for k in 0..n {
            let step = 1e-7 * p[k].abs().max(1e-3);
            let mut q = p.clone();
            q[k] += step;
            let rq = f(&q);
            for (row, (a, b)) in jac.iter_mut().zip(rq.iter().zip(&r)) {
                row[k] = (a - b) / step;
            }
        }
        let mut jtj = vec![vec![0.0; n]; n];
        let mut jtr = vec![0.0; n];
        for (row, res) in jac.iter().zip(&r) {
            for a in 0..n {
                if row[a] == 0.0 {
                    continue;
                }
                jtr[a] += row[a] * res;
                for b in 0..n {
                    jtj[a][b] += row[a] * row[b];
                }
            }
        }
        let mut improved = false;
        for _ in 0..10 {
            let mut m = jtj.clone();
            for (a, row) in m.iter_mut().enumerate() {
                row[a] += lambda * (row[a] + 1e-9);
            }
            let Some(delta) = solve(m, jtr.iter().map(|v| -v).collect()) else {
                lambda *= 10.0;
                continue;
            };
            let q: Vec<f64> = p.iter().zip(&delta).map(|(a, d)| a + d).collect();
            let rq = f(&q);
            let c: f64 = rq.iter().map(|v| v * v).sum();
            if c.is_finite() && c < cost {
                (p, r, cost) = (q, rq, c);
                lambda = (lambda / 10.0).max(1e-12);
                improved = true;
                break;
            }
            lambda *= 10.0;
        }
        if !improved {
            break;
        }
    }
    p.iter().all(|v| v.is_finite()).then_some(p)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            if f == 0.0 {
                continue;
            }
            let pivot_row = a[col].clone();
            for (cell, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                *cell -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| a[i][k] * x[k]).sum();
        x[i] = (b[i] - s) / a[i][i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::SeatZones;
    use crate::render::scene::{Camera, PlacedCard};
    use opencv::core::Size;

    /// The detections a perfect reader would give of a deal seen by `camera`.
    fn dealt(layout: &TableLayout, camera: &Camera) -> Vec<CardDetection> {
        let mut out = Vec::new();
        for seat in &layout.seats {
            for (k, row, up) in (0..2).map(|k| (k, seat.front, false)).chain((0..5).map(|k| (k, seat.back, true))) {
                let placed =
                    PlacedCard { card: "2C".parse().unwrap(), face_up: up, centre: row.slot(k), angle: row.angle };
                let quad = placed.corners_mm().map(|p| {
                    let q = camera.table_to_image.apply(p);
                    [q.x as f32, q.y as f32]
                });
                out.push(CardDetection {
                    card: None,
                    face: if up { Face::Up } else { Face::Down },
                    confidence: 0.9,
                    quad: Some(quad),
                    index_boxes: Vec::new(),
                });
            }
        }
        out
    }

    #[test]
    fn the_deal_gives_back_the_camera_s_view_of_the_table() {
        for players in [2, 3, 4] {
            let truth = TableLayout::standard(players);
            let camera = Camera::overhead(Size::new(1280, 720), Pt::new(10.0, -20.0), 1800.0, 0.25, 0.1);
            let learnt = learn_layout(&dealt(&truth, &camera), players).expect("learns");
            let to_table = learnt.image_to_table();
            for seat in &truth.seats {
                for p in [seat.front.slot(0), seat.back.slot(4)] {
                    let back = to_table.apply(camera.table_to_image.apply(p));
                    assert!(back.distance(p) < 2.0, "{players} players: {p:?} came back as {back:?}");
                }
            }
        }
    }

    #[test]
    fn the_first_seat_is_the_one_nearest_the_image_s_bottom_edge_however_the_table_is_turned() {
        for players in 2..=6 {
            for turn in [0.1, std::f64::consts::PI + 0.1] {
                let truth = TableLayout::standard(players);
                let camera = Camera::overhead(Size::new(1280, 720), Pt::new(0.0, 0.0), 2000.0, 0.2, turn);
                let learnt = learn_layout(&dealt(&truth, &camera), players).expect("learns");
                let to_image = learnt.image_to_table().inverse().unwrap();
                let bottom = |s: &SeatZones| to_image.apply(s.back.slot(2)).y;
                let lowest = learnt.seats.iter().map(bottom).fold(f64::MIN, f64::max);
                let first_side = players.div_ceil(2);
                let side_mean = |seats: &[SeatZones]| seats.iter().map(bottom).sum::<f64>() / seats.len() as f64;
                // The first seats form the side nearer the bottom edge (the larger side when the
                // table shows it there), and the lowest seat is among them.
                let (near, far) = learnt.seats.split_at(if turn > 1.0 { players - first_side } else { first_side });
                assert!(side_mean(near) > side_mean(far), "{players} players, turn {turn}");
                assert!(near.iter().any(|s| bottom(s) == lowest), "{players} players, turn {turn}");
            }
        }
    }

    #[test]
    fn the_deck_is_found_on_whichever_side_of_the_middle_it_lies() {
        let truth = TableLayout::standard(2);
        let camera = Camera::overhead(Size::new(1280, 720), Pt::new(10.0, -20.0), 1800.0, 0.25, 0.1);
        for deck_x in [-60.0, 60.0] {
            let mut seen = dealt(&truth, &camera);
            let deck =
                PlacedCard { card: "2C".parse().unwrap(), face_up: false, centre: Pt::new(deck_x, 0.0), angle: 0.0 };
            let quad = deck.corners_mm().map(|p| {
                let q = camera.table_to_image.apply(p);
                [q.x as f32, q.y as f32]
            });
            seen.push(CardDetection {
                card: None,
                face: Face::Down,
                confidence: 0.9,
                quad: Some(quad),
                index_boxes: Vec::new(),
            });
            let learnt = learn_layout(&seen, 2).expect("learns");
            // Where the deck lies on the table, as the learnt layout sees it.
            let at = learnt.image_to_table().apply(camera.table_to_image.apply(Pt::new(deck_x, 0.0)));
            assert!(learnt.deck.contains(at), "deck at x {deck_x}: seen at {at:?}, deck zone {:?}", learnt.deck);
            assert!(!learnt.discard.contains(at), "deck at x {deck_x} lies in the discard zone");
        }
    }

    #[test]
    fn a_deal_with_a_card_unseen_still_fits_and_more_do_not() {
        // Cards unseen: the first dealt, the last two of a Back Row side by side, a Front Row
        // card and a Back Row card of the same seat, cards of two seats.
        for unseen in [[0, 0], [5, 5], [9, 7], [12, 3]] {
            for players in [2, 3, 4] {
                let truth = TableLayout::standard(players);
                let camera = Camera::overhead(Size::new(1920, 1080), Pt::new(10.0, -20.0), 2200.0, 0.2, 0.1);
                let mut seen = dealt(&truth, &camera);
                let allowed = if players == 2 { 1 } else { 2 };
                for &k in &unseen[..allowed] {
                    seen.remove(k);
                }
                let learnt = learn_layout(&seen, players).expect("cards unseen");
                // Each seat's rows where the camera sees the true seat's (an even table's fit may
                // be turned half way round, its seats counted from the same chairs).
                let to_image = learnt.image_to_table().inverse().unwrap();
                for (s, seat) in truth.seats.iter().enumerate() {
                    let want = camera.table_to_image.apply(seat.back.slot(2));
                    let got = to_image.apply(learnt.seats[s].back.slot(2));
                    assert!(
                        got.distance(want) < 5.0,
                        "{players} players, {unseen:?} unseen, seat {s}: {want:?} at {got:?}"
                    );
                }
                seen.remove(1);
                assert!(learn_layout(&seen, players).is_err(), "{players} players: {} cards unseen", allowed + 1);
            }
        }
    }

    #[test]
    fn too_few_cards_are_refused() {
        let truth = TableLayout::standard(2);
        let camera = Camera::overhead(Size::new(1280, 720), Pt::new(0.0, 0.0), 1500.0, 0.1, 0.0);
        let mut seen = dealt(&truth, &camera);
        seen.truncate(10);
        let e = learn_layout(&seen, 2).unwrap_err();
        assert!(e.contains("10 cards seen"), "{e}");
        let e = learn_layout(&dealt(&truth, &camera), 3).unwrap_err();
        assert!(e.contains("3 seats"), "{e}");
    }
}
