//! Random table scenes for tests, evaluation and training: any deck design the face renderer can
//! vary, any table, tilt up to about 45°, cascades, overlapping modifiers, face-down cards, an
//! occluding hand, uneven light, blur and noise. Deterministic for a seed.

use opencv::core::Size;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::face::{BackStyle, CourtStyle, FaceLayout, FaceStyle, IndexFont, bgr};
use super::scene::{Camera, Hand, PlacedCard, Scene};
use super::table::{Lighting, TableKind};
use crate::cards::CARD_MM;
use crate::cards::Card;
use crate::geometry::Pt;

/// Limits for random scenes.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneOptions {
    pub size: Size,
    pub cards: std::ops::RangeInclusive<usize>,
    /// Largest camera tilt (0.45 ≈ 45° from overhead).
    pub max_tilt: f64,
    /// Chance that a hand covers part of the table.
    pub hand_chance: f64,
    pub max_blur: f64,
    pub max_noise: f64,
    /// Extra index typefaces to draw faces with, besides the two bundled ones.
    pub fonts: Vec<std::sync::Arc<[u8]>>,
    /// Millimetres of table across the bottom of the frame: smaller is closer, larger cards.
    pub view_width: std::ops::Range<f64>,
    /// Whether hands spread out on the table (cards side by side, each covering all but the
    /// left strip of the one below, straight or turning as in a fan) are laid too.
    pub spreads: bool,
    /// Whether faces vary beyond the default designs (see `vary_face_style`).
    pub varied_faces: bool,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            size: Size::new(1280, 720),
            cards: 6..=20,
            max_tilt: 0.45,
            hand_chance: 0.5,
            max_blur: 1.2,
            max_noise: 5.0,
            fonts: Vec::new(),
            view_width: 520.0..820.0,
            spreads: false,
            varied_faces: false,
        }
    }
}

/// A random scene, the same for the same seed and options.
pub fn random_scene(seed: u64, options: &SceneOptions) -> Scene {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let camera = Camera::overhead(
        options.size,
        Pt::new(0.0, 0.0),
        rng.random_range(options.view_width.clone()),
        rng.random_range(0.0..=options.max_tilt),
        rng.random_range(0.0..std::f64::consts::TAU),
    );
    let table = TableKind::ALL[rng.random_range(0..TableKind::ALL.len())];
    let mut deck = Card::deck();
    deck.shuffle(&mut rng);
    let wanted = rng.random_range(options.cards.clone()).min(52);
    let cards = lay_out_cards(&mut rng, &camera, &mut deck, wanted, options.spreads);
    let hand = (rng.random_bool(options.hand_chance) && !cards.is_empty()).then(|| random_hand(&mut rng, &cards));
    let mut scene = Scene {
        camera,
        table,
        table_seed: rng.random(),
        lighting: random_lighting(&mut rng, options.size),
        cards,
        hand,
        resting: Vec::new(),
        face_style: random_face_style(&mut rng, &options.fonts),
        back_style: random_back_style(&mut rng),
        blur_sigma: rng.random_range(0.0..=options.max_blur),
        noise_sigma: rng.random_range(0.0..=options.max_noise),
        noise_seed: rng.random(),
    };
    if options.varied_faces {
        // A draw of its own: the rest of the scene stays what it is without the variation.
        vary_face_style(&mut scene.face_style, &mut ChaCha8Rng::seed_from_u64(seed ^ 0x6661_6365_7320_7661));
    }
    scene
}

/// Groups of cards: cascades (each card covering all but the top index of the one below),
/// modifier pairs, face-down piles, loose cards and (with `spreads`) spread hands, placed where
/// the camera sees them.
fn lay_out_cards(
    rng: &mut ChaCha8Rng,
    camera: &Camera,
    deck: &mut Vec<Card>,
    wanted: usize,
    spreads: bool,
) -> Vec<PlacedCard> {
    let to_table = camera.table_to_image.inverse().expect("camera homography is invertible");
    let mut placed: Vec<PlacedCard> = Vec::new();
    let mut attempts = 0;
    while placed.len() < wanted && attempts < 200 {
        attempts += 1;
        let (kind, count) = match rng.random_range(0..if spreads { 13 } else { 10 }) {
            0..=2 => (Group::Cascade, rng.random_range(2..=5)),
            3..=4 => (Group::Cascade, 2),
            5..=6 => (Group::FaceDown, rng.random_range(1..=2)),
            7..=9 => (Group::Loose, 1),
            _ => (Group::Spread, rng.random_range(3..=10)),
        };
        let count = count.min(wanted - placed.len());
        let size = camera.size;
        let anchor_px = Pt::new(
            rng.random_range(0.12..0.88) * f64::from(size.width),
            rng.random_range(0.15..0.85) * f64::from(size.height),
        );
        let anchor = to_table.apply(anchor_px);
        let angle = rng.random_range(0.0..std::f64::consts::TAU);
        let step = match (kind, count) {
            (Group::Cascade, 2) if rng.random_bool(0.5) => 0.45 * CARD_MM.1,
            (Group::FaceDown, _) => 0.0,
            (Group::Spread, _) => rng.random_range(0.13..0.4) * CARD_MM.0,
            _ => rng.random_range(0.2..0.3) * CARD_MM.1,
        };
        let group: Vec<PlacedCard> = if kind == Group::Spread {
            spread(rng, deck, count, anchor, angle, step)
        } else {
            (0..count)
                .map(|k| {
                    let along = step * k as f64;
                    let jitter = if kind == Group::FaceDown {
                        rng.random_range(-0.15..0.15)
                    } else {
                        rng.random_range(-0.03..0.03)
                    };
                    PlacedCard {
                        card: deck.pop().expect("at most 52 cards are placed"),
                        face_up: kind != Group::FaceDown,
                        centre: Pt::new(anchor.x - along * angle.sin(), anchor.y + along * angle.cos()),
                        angle: angle + jitter,
                    }
                })
                .collect()
        };
        if fits(camera, &placed, &group) {
            placed.extend(group);
        } else {
            deck.extend(group.iter().map(|c| c.card));
            deck.shuffle(rng);
        }
    }
    placed
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Cascade,
    FaceDown,
    Loose,
    Spread,
}

/// A hand spread on the table: each card lies `step` mm to the right of the one below (along
/// that card's width) and turned a little further, so that the left strip of every card but the
/// last shows, with its top-left index.
fn spread(
    rng: &mut ChaCha8Rng,
    deck: &mut Vec<Card>,
    count: usize,
    anchor: Pt,
    angle: f64,
    step: f64,
) -> Vec<PlacedCard> {
    let turn = if rng.random_bool(0.5) { 0.0 } else { rng.random_range(-0.05..0.2) };
    let lift = rng.random_range(-0.08..0.08) * CARD_MM.1;
    let mut centre = anchor;
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let a = angle + turn * k as f64;
        out.push(PlacedCard {
            card: deck.pop().expect("at most 52 cards are placed"),
            face_up: true,
            centre,
            angle: a + rng.random_range(-0.02..0.02),
        });
        // Along this card's width (face x), and a little along its length (face y).
        centre = Pt::new(centre.x + step * a.cos() - lift * a.sin(), centre.y + step * a.sin() + lift * a.cos());
    }
    out
}

/// A group fits when it lies inside the frame and clear of the groups already placed (so only
/// intended overlaps happen: a hidden card would have no ground truth to find).
fn fits(camera: &Camera, placed: &[PlacedCard], group: &[PlacedCard]) -> bool {
    let size = camera.size;
    let inside = group.iter().flat_map(|c| c.corners_mm()).all(|p| {
        let q = camera.table_to_image.apply(p);
        q.x > 2.0 && q.y > 2.0 && q.x < f64::from(size.width) - 2.0 && q.y < f64::from(size.height) - 2.0
    });
    let clear = group.iter().all(|g| placed.iter().all(|c| c.centre.distance(g.centre) > CARD_MM.1 * 1.15));
    inside && clear
}

fn random_hand(rng: &mut ChaCha8Rng, cards: &[PlacedCard]) -> Hand {
    let near = cards[rng.random_range(0..cards.len())].centre;
    let offset = Pt::new(rng.random_range(-120.0..120.0), rng.random_range(-120.0..120.0));
    let skins = [[224, 172, 140], [198, 134, 96], [141, 85, 52], [246, 204, 180], [92, 56, 38]];
    Hand {
        palm: Pt::new(near.x + offset.x, near.y + offset.y),
        angle: rng.random_range(0.0..std::f64::consts::TAU),
        skin: skins[rng.random_range(0..skins.len())],
    }
}

pub fn random_lighting(rng: &mut ChaCha8Rng, size: Size) -> Lighting {
    let glare = rng.random_bool(0.3).then(|| {
        let centre =
            Pt::new(rng.random_range(0.0..f64::from(size.width)), rng.random_range(0.0..f64::from(size.height)));
        (centre, rng.random_range(40.0..160.0), rng.random_range(0.2..0.6))
    });
    Lighting {
        gradient: rng.random_range(0.0..0.35),
        gradient_angle: rng.random_range(0.0..std::f64::consts::TAU),
        vignette: rng.random_range(0.0..0.3),
        cast: std::array::from_fn(|_| rng.random_range(0.93..1.07)),
        glare,
    }
}

fn random_font(rng: &mut ChaCha8Rng, extra: &[std::sync::Arc<[u8]>]) -> IndexFont {
    match rng.random_range(0..2 + extra.len()) {
        0 => IndexFont::Hack,
        1 => IndexFont::Ubuntu,
        n => IndexFont::Custom(extra[n - 2].clone()),
    }
}

pub fn random_face_style(rng: &mut ChaCha8Rng, fonts: &[std::sync::Arc<[u8]>]) -> FaceStyle {
    let shade = |rng: &mut ChaCha8Rng, r: (u8, u8), g: (u8, u8), b: (u8, u8)| {
        bgr(rng.random_range(r.0..=r.1), rng.random_range(g.0..=g.1), rng.random_range(b.0..=b.1))
    };
    FaceStyle {
        font: random_font(rng, fonts),
        index_height: rng.random_range(0.13..0.17),
        weight: rng.random_range(0.5..2.5),
        paper: shade(rng, (225, 255), (225, 252), (215, 245)),
        red: shade(rng, (170, 230), (0, 50), (0, 60)),
        black: shade(rng, (0, 40), (0, 40), (0, 50)),
        court_accent: shade(rng, (0, 200), (0, 200), (0, 200)),
        font_suits: rng.random_bool(0.5),
        layout: FaceLayout::default(),
        court: CourtStyle::Letter,
    }
}

/// Varies a face style beyond `random_face_style`, as decks differ: index size, place and
/// stroke weight, pip size and spacing (never over the index), and court pictures instead of
/// framed letters.
pub fn vary_face_style(style: &mut FaceStyle, rng: &mut ChaCha8Rng) {
    style.index_height = rng.random_range(0.11..0.2);
    // From the typeface's own hairlines (a large serif index) to heavy strokes.
    style.weight = rng.random_range(0.0..2.5);
    let mut layout = FaceLayout {
        index_x: rng.random_range(0.015..0.07),
        index_y: rng.random_range(0.02..0.08),
        pip_size: rng.random_range(0.13..0.25),
        pip_column: rng.random_range(0.16..0.26),
        pip_top: rng.random_range(0.13..0.23),
    };
    // Pips in the index's rows stay clear of its column.
    let index_right = layout.index_x + 0.19;
    let index_bottom = layout.index_y + 2.3 * style.index_height + 0.05;
    if layout.pip_top * super::face::CARD_ASPECT - layout.pip_size / 2.0 < index_bottom {
        layout.pip_column = layout.pip_column.min(0.5 - index_right - 0.45 * layout.pip_size).max(0.12);
    }
    let clear = layout.index_x + 0.75 * style.index_height + 0.01;
    style.layout = layout;
    if rng.random_bool(0.85) {
        let inset = clear.max(0.12) + rng.random_range(0.0..0.08);
        style.court = CourtStyle::Picture { seed: rng.random(), inset };
    }
}

/// A calibration photo of a card back: a random table that is not pale (a dark back on a pale
/// table shows no outline of its own), light, blur and noise, no hand, and one face-down card drawn
/// with `style` near the middle of a closer view (about a quarter of the frame across), turned any
/// way.
pub fn back_photo_scene(seed: u64, style: &BackStyle) -> Scene {
    let options = SceneOptions { cards: 1..=1, hand_chance: 0.0, max_tilt: 0.25, ..SceneOptions::default() };
    let mut scene = random_scene(seed, &options);
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(0x6261_636b));
    scene.camera = Camera::overhead(
        options.size,
        Pt::new(0.0, 0.0),
        rng.random_range(220.0..320.0),
        rng.random_range(0.0..=options.max_tilt),
        rng.random_range(0.0..std::f64::consts::TAU),
    );
    scene.table = [TableKind::GreenFelt, TableKind::Wood, TableKind::Dark][rng.random_range(0..3)];
    scene.cards = vec![PlacedCard {
        card: Card::deck()[0],
        face_up: false,
        centre: Pt::new(rng.random_range(-20.0..20.0), rng.random_range(-10.0..10.0)),
        angle: rng.random_range(0.0..std::f64::consts::TAU),
    }];
    scene.back_style = style.clone();
    scene
}

/// A random back design: a coloured field and lattice on the white margin.
pub fn random_back_style(rng: &mut ChaCha8Rng) -> BackStyle {
    let field = bgr(rng.random_range(20..200), rng.random_range(20..120), rng.random_range(20..200));
    BackStyle {
        field,
        lattice: bgr(rng.random_range(80..255), rng.random_range(80..255), rng.random_range(80..255)),
        ..BackStyle::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_are_deterministic_and_use_each_card_once() {
        let options = SceneOptions::default();
        for seed in 0..20 {
            let a = random_scene(seed, &options);
            assert_eq!(a, random_scene(seed, &options));
            let mut cards: Vec<_> = a.cards.iter().map(|c| c.card).collect();
            let n = cards.len();
            cards.sort();
            cards.dedup();
            assert_eq!(cards.len(), n, "seed {seed} repeats a card");
            assert!(n >= 1, "seed {seed} placed no card");
        }
    }
}
