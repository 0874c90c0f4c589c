//! Where the symbols go on a round card: varied sizes, any rotation, no overlaps, and always the
//! same arrangement for the same card (the layout is seeded by the card id, so a printed card and
//! its ground truth agree without storing anything).
//!
//! Coordinates are in card radii: the card is the unit disc centred on (0, 0), y down.

/// One symbol's spot: centre, diameter of the circle it must stay in, rotation in degrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slot {
    pub x: f32,
    pub y: f32,
    pub diameter: f32,
    pub rotation_deg: f32,
}

/// Symbols stay inside this radius, clear of the cut line.
const INNER: f32 = 0.93;
/// Minimum space between two symbols' circles.
const GAP: f32 = 0.02;
/// No symbol grows beyond this diameter, so one picture never dominates a card.
const MAX_DIAMETER: f32 = 0.9;

/// The arrangement of `count` symbols on the card with this seed (the card id).
pub fn layout(seed: u64, count: usize) -> Vec<Slot> {
    let mut rng = SplitMix(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ count as u64);
    // Several random starts; the one that covers the card best wins.
    let mut best: Option<(f32, Vec<(usize, Circle)>)> = None;
    for _ in 0..ATTEMPTS {
        let placed = attempt(&mut rng, count);
        let covered: f32 = placed.iter().map(|(_, c)| c.r * c.r).sum();
        if best.as_ref().is_none_or(|(b, _)| covered > *b) {
            best = Some((covered, placed));
        }
    }
    let mut placed = best.map(|(_, p)| p).unwrap_or_default();
    placed.sort_by_key(|(i, _)| *i);
    placed
        .into_iter()
        .map(|(_, c)| Slot { x: c.x, y: c.y, diameter: 2.0 * c.r, rotation_deg: rng.unit() * 360.0 - 180.0 })
        .collect()
}

/// Random starts per card.
const ATTEMPTS: usize = 12;

fn attempt(rng: &mut SplitMix, count: usize) -> Vec<(usize, Circle)> {
    // Varied sizes: factors between 0.7 and 1.4, scaled so the symbols first cover a third of the
    // card (easy to place at random), then grow together.
    let factors: Vec<f32> = (0..count).map(|_| 0.7 + 0.7 * rng.unit()).collect();
    let area: f32 = factors.iter().map(|f| f * f).sum();
    let base = (0.33 * INNER * INNER / area.max(f32::EPSILON)).sqrt();
    let mut order: Vec<usize> = (0..count).collect();
    // Place the largest first: small symbols fit in the gaps that large ones leave.
    order.sort_by(|&a, &b| factors[b].total_cmp(&factors[a]));
    let mut placed: Vec<(usize, Circle)> = Vec::with_capacity(count);
    for &i in &order {
        let circle = place(rng, base * factors[i], &placed);
        placed.push((i, circle));
    }
    grow_together(&mut placed);
    grow(&mut placed);
    placed
}

#[derive(Clone, Copy, Debug)]
struct Circle {
    x: f32,
    y: f32,
    r: f32,
}

fn fits(c: &Circle, others: &[(usize, Circle)], skip: Option<usize>) -> bool {
    (c.x * c.x + c.y * c.y).sqrt() + c.r <= INNER
        && others
            .iter()
            .enumerate()
            .filter(|(k, _)| Some(*k) != skip)
            .all(|(_, (_, o))| ((c.x - o.x).powi(2) + (c.y - o.y).powi(2)).sqrt() >= c.r + o.r + GAP)
}

/// Tries random spots; shrinks the symbol when it finds none, so placement always ends.
fn place(rng: &mut SplitMix, mut r: f32, placed: &[(usize, Circle)]) -> Circle {
    loop {
        for _ in 0..400 {
            let reach = (INNER - r).max(0.0);
            let (angle, dist) = (rng.unit() * std::f32::consts::TAU, reach * rng.unit().sqrt());
            let c = Circle { x: dist * angle.cos(), y: dist * angle.sin(), r };
            if fits(&c, placed, None) {
                return c;
            }
        }
        r *= 0.9;
        if r < 0.01 {
            return Circle { x: 0.0, y: 0.0, r };
        }
    }
}

/// Grows all symbols by the same factor, pushing them apart as they touch, until they no longer
/// fit: this fills the card densely while keeping the size differences.
fn grow_together(placed: &mut [(usize, Circle)]) {
    let mut step = 1.02;
    for _ in 0..300 {
        let before: Vec<(usize, Circle)> = placed.to_vec();
        for (_, c) in placed.iter_mut() {
            c.r = (c.r * step).min(MAX_DIAMETER / 2.0);
            // A little pull to the centre, so a ring of symbols closes in rather than jamming
            // against the rim around an empty middle.
            c.x *= 0.99;
            c.y *= 0.99;
        }
        if !separate(placed) {
            placed.copy_from_slice(&before);
            // Jammed: try smaller steps before giving up.
            step = 1.0 + (step - 1.0) / 2.0;
            if step < 1.002 {
                return;
            }
        }
    }
}

/// Moves overlapping symbols apart and back inside the card; false if they cannot all fit.
fn separate(placed: &mut [(usize, Circle)]) -> bool {
    for _ in 0..200 {
        let mut moved = false;
        for i in 0..placed.len() {
            for j in i + 1..placed.len() {
                let (a, b) = (placed[i].1, placed[j].1);
                let (dx, dy) = (b.x - a.x, b.y - a.y);
                let d = (dx * dx + dy * dy).sqrt().max(1e-6);
                let need = a.r + b.r + GAP;
                if d < need {
                    let push = (need - d) / 2.0 + 1e-5;
                    let (ux, uy) = (dx / d, dy / d);
                    placed[i].1.x -= ux * push;
                    placed[i].1.y -= uy * push;
                    placed[j].1.x += ux * push;
                    placed[j].1.y += uy * push;
                    moved = true;
                }
            }
        }
        for (_, c) in placed.iter_mut() {
            let d = (c.x * c.x + c.y * c.y).sqrt();
            if d + c.r > INNER {
                let scale = (INNER - c.r).max(0.0) / d.max(1e-6);
                c.x *= scale;
                c.y *= scale;
                moved = true;
            }
        }
        if !moved {
            return true;
        }
    }
    false
}

/// Lets every symbol grow while it still fits, filling the card the way printed decks do.
fn grow(placed: &mut [(usize, Circle)]) {
    for _ in 0..60 {
        for k in 0..placed.len() {
            let mut bigger = placed[k].1;
            bigger.r = (bigger.r * 1.02).min(MAX_DIAMETER / 2.0);
            if fits(&bigger, placed, Some(k)) {
                placed[k].1 = bigger;
            }
        }
    }
}

/// SplitMix64: a tiny, fixed generator, so layouts never change with a library's version.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_do_not_overlap_and_stay_on_the_card() {
        for card in 1..=57 {
            let slots = layout(card, 8);
            assert_eq!(slots.len(), 8);
            for (i, a) in slots.iter().enumerate() {
                assert!((a.x * a.x + a.y * a.y).sqrt() + a.diameter / 2.0 <= INNER + 1e-4);
                assert!(a.diameter > 0.2, "card {card}: symbol {i} is tiny ({})", a.diameter);
                for b in &slots[i + 1..] {
                    let d = ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt();
                    assert!(d + 1e-4 >= (a.diameter + b.diameter) / 2.0 + GAP, "card {card} overlaps");
                }
            }
        }
    }

    #[test]
    fn layout_is_deterministic_and_varied() {
        assert_eq!(layout(7, 8), layout(7, 8));
        assert_ne!(layout(7, 8), layout(8, 8));
        let sizes: Vec<f32> = layout(3, 8).iter().map(|s| s.diameter).collect();
        let (min, max) = sizes.iter().fold((f32::MAX, 0.0f32), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        assert!(max > 1.3 * min, "sizes should vary: {sizes:?}");
    }
}
