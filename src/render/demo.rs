//! The built-in demo table: two players dealing and playing Omphala-style moves, animated with a
//! hand carrying each card. Shown when no camera is attached, and a moving test input.

use opencv::core::Size;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::face::{BackStyle, FaceStyle};
use super::geometry::Pt;
use super::scene::{CARD_MM, Camera, Hand, PlacedCard, Rendered, Renderer, Scene};
use super::table::{Lighting, TableKind};
use crate::cards::{Card, Suit};

/// Seconds one move takes: the card travels, then rests.
const MOVE_SECS: f64 = 1.5;
const TRAVEL_SECS: f64 = 1.0;
/// Turns played after the deal before the demo deals again.
const TURNS: usize = 14;

/// One entity as the demo lays it out: a card and maybe a modifier overlapping its lower part.
#[derive(Clone, Debug)]
struct Entity {
    base: Card,
    base_up: bool,
    modifier: Option<Card>,
}

/// The cards on the demo table.
#[derive(Clone, Debug, Default)]
struct Table {
    deck: Vec<Card>,
    discard: Vec<Card>,
    back: [Vec<Entity>; 2],
    front: [Vec<Entity>; 2],
}

/// A finished script: the table after each move and who made that move (the first entry is the
/// table before the deal).
struct Script {
    steps: Vec<(Table, usize)>,
}

/// Renders the demo at any time since it started.
pub struct DemoTable {
    size: Size,
    seed: u64,
    script: Script,
    renderer: Renderer,
}

impl DemoTable {
    pub fn new(size: Size, seed: u64) -> DemoTable {
        DemoTable { size, seed, script: write_script(seed), renderer: Renderer::new() }
    }

    /// How long one full game of the script lasts, in seconds.
    pub fn loop_secs(&self) -> f64 {
        (self.script.steps.len() - 1) as f64 * MOVE_SECS
    }

    /// The frame `t` seconds after the demo started, with ground truth.
    pub fn frame_at(&mut self, t: f64) -> opencv::Result<Rendered> {
        let scene = self.scene_at(t);
        self.renderer.render(&scene)
    }

    pub fn scene_at(&self, t: f64) -> Scene {
        let t = t.rem_euclid(self.loop_secs());
        let step = ((t / MOVE_SECS) as usize).min(self.script.steps.len() - 2);
        let progress = ((t - step as f64 * MOVE_SECS) / TRAVEL_SECS).min(1.0);
        let before = &self.script.steps[step].0;
        // Each step records the table after a move and who made that move.
        let (after, player) = &self.script.steps[step + 1];
        let (cards, moving) = interpolate(&lay_out(before), &lay_out(after), ease(progress));
        let hand = moving.filter(|_| progress < 1.0).map(|c| hand_for(&c, *player));
        Scene {
            camera: Camera::overhead(self.size, Pt::new(0.0, 0.0), 980.0, 0.12, 0.0),
            table: TableKind::GreenFelt,
            table_seed: self.seed,
            lighting: Lighting::default(),
            cards,
            hand,
            face_style: FaceStyle::default(),
            back_style: BackStyle::default(),
            blur_sigma: 0.6,
            noise_sigma: 2.0,
            noise_seed: (t * 30.0) as u64,
        }
    }
}

fn ease(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

/// Deals and plays a plausible game, recording the table before every move.
fn write_script(seed: u64) -> Script {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut table = Table { deck: Card::deck(), ..Table::default() };
    table.deck.shuffle(&mut rng);
    let mut steps = vec![(table.clone(), 0)];
    let record = |table: &Table, player: usize, steps: &mut Vec<(Table, usize)>| steps.push((table.clone(), player));
    for round in 0..7 {
        for player in 0..2 {
            let card = table.deck.pop().expect("a fresh deck has 52 cards");
            let row = if round < 5 { &mut table.back[player] } else { &mut table.front[player] };
            row.push(Entity { base: card, base_up: round < 5, modifier: None });
            record(&table, player, &mut steps);
        }
    }
    for turn in 0..TURNS {
        let player = turn % 2;
        for _ in 0..2 {
            if play_one(&mut table, player, &mut rng) {
                record(&table, player, &mut steps);
            }
        }
    }
    Script { steps }
}

/// Makes one move for `player`: enhance, attack or draw. Returns whether anything moved.
fn play_one(table: &mut Table, player: usize, rng: &mut ChaCha8Rng) -> bool {
    let back = &table.back[player];
    let hearts: Vec<usize> =
        (0..back.len()).filter(|&i| back[i].base.suit == Suit::Hearts && back[i].modifier.is_none()).collect();
    let bases: Vec<usize> = (0..back.len())
        .filter(|&i| {
            back[i].base.suit != Suit::Diamonds && back[i].base.suit != Suit::Hearts && back[i].modifier.is_none()
        })
        .collect();
    let attackers: Vec<usize> = (0..back.len()).filter(|&i| !back[i].base.is_red()).collect();
    let choice = rng.random_range(0..3);
    if choice == 0 && !hearts.is_empty() && !bases.is_empty() {
        let heart = table.back[player].remove(*hearts.choose(rng).expect("not empty"));
        let base = bases.iter().map(|&i| if i > hearts[0] { i - 1 } else { i }).find(|&i| {
            i < table.back[player].len()
                && table.back[player][i].modifier.is_none()
                && !table.back[player][i].base.is_red()
        });
        match base {
            Some(i) => table.back[player][i].modifier = Some(heart.base),
            None => table.back[player].push(heart),
        }
        return true;
    }
    if choice == 1 && !attackers.is_empty() && !table.front[1 - player].is_empty() {
        let attacker = table.back[player].remove(*attackers.choose(rng).expect("not empty"));
        let target = rng.random_range(0..table.front[1 - player].len());
        let victim = table.front[1 - player].remove(target);
        table.discard.extend(std::iter::once(victim.base).chain(victim.modifier));
        table.front[player].push(Entity { base_up: false, ..attacker });
        return true;
    }
    match table.deck.pop() {
        Some(card) if table.back[player].len() < 7 => {
            table.back[player].push(Entity { base: card, base_up: true, modifier: None });
            true
        }
        Some(card) => {
            table.deck.push(card);
            false
        }
        None => false,
    }
}

/// Where every visible card lies, bottom first.
fn lay_out(table: &Table) -> Vec<PlacedCard> {
    let mut cards = Vec::new();
    let pile = |list: &[Card], at: Pt, up: bool, cards: &mut Vec<PlacedCard>| {
        for (i, &card) in list.iter().enumerate().skip(list.len().saturating_sub(3)) {
            let nudge = i as f64 * 0.6;
            cards.push(PlacedCard {
                card,
                face_up: up,
                centre: Pt::new(at.x + nudge, at.y - nudge),
                angle: 0.02 * (i % 3) as f64,
            });
        }
    };
    pile(&table.discard, Pt::new(400.0, 0.0), true, &mut cards);
    pile(&table.deck, Pt::new(-400.0, 0.0), false, &mut cards);
    for player in 0..2 {
        let (side, angle) = if player == 0 { (1.0, 0.0) } else { (-1.0, std::f64::consts::PI) };
        for (row, y, first_x) in [(&table.front[player], 225.0, -160.0), (&table.back[player], 95.0, -250.0)] {
            for (i, entity) in row.iter().enumerate() {
                let centre = Pt::new(side * (first_x + 80.0 * i as f64), side * y);
                cards.push(PlacedCard { card: entity.base, face_up: entity.base_up, centre, angle });
                if let Some(modifier) = entity.modifier {
                    let offset = 0.42 * CARD_MM.1 * side;
                    cards.push(PlacedCard {
                        card: modifier,
                        face_up: entity.base_up,
                        centre: Pt::new(centre.x, centre.y + offset),
                        angle,
                    });
                }
            }
        }
    }
    cards
}

/// Cards part way from one layout to the next; the card that travels most is drawn on top and
/// returned as the one being carried.
fn interpolate(from: &[PlacedCard], to: &[PlacedCard], t: f64) -> (Vec<PlacedCard>, Option<PlacedCard>) {
    let mut moving: Option<(f64, PlacedCard)> = None;
    let mut cards = Vec::with_capacity(to.len());
    for end in to {
        let Some(start) = from.iter().find(|c| c.card == end.card) else {
            cards.push(*end);
            continue;
        };
        let distance = start.centre.distance(end.centre);
        let now = PlacedCard {
            card: end.card,
            face_up: if t < 0.5 { start.face_up } else { end.face_up },
            centre: start.centre.lerp(end.centre, t),
            angle: start.angle + (end.angle - start.angle) * t,
        };
        if distance > 1.0 && moving.is_none_or(|(d, _)| distance > d) {
            moving = Some((distance, now));
        } else {
            cards.push(now);
        }
    }
    let carried = moving.map(|(_, c)| c);
    cards.extend(carried);
    (cards, carried)
}

fn hand_for(card: &PlacedCard, player: usize) -> Hand {
    let (side, angle) =
        if player == 0 { (1.0, -std::f64::consts::FRAC_PI_2) } else { (-1.0, std::f64::consts::FRAC_PI_2) };
    Hand { palm: Pt::new(card.centre.x + 20.0, card.centre.y + side * 95.0), angle, skin: [214, 160, 128] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_deals_fourteen_cards_then_plays() {
        let script = write_script(3);
        let dealt = &script.steps[14].0;
        assert_eq!(dealt.back.iter().map(Vec::len).sum::<usize>(), 10);
        assert_eq!(dealt.front.iter().map(Vec::len).sum::<usize>(), 4);
        assert!(script.steps.len() > 20);
    }

    #[test]
    fn cards_are_conserved_through_the_script() {
        let script = write_script(5);
        for (table, _) in &script.steps {
            let entities = table.back.iter().chain(&table.front).flatten();
            let on_rows: usize = entities.map(|e| 1 + usize::from(e.modifier.is_some())).sum();
            assert_eq!(table.deck.len() + table.discard.len() + on_rows, 52);
        }
    }

    #[test]
    fn a_card_is_carried_by_a_hand_mid_move() {
        let demo = DemoTable::new(Size::new(640, 360), 1);
        let scene = demo.scene_at(MOVE_SECS * 3.0 + 0.4);
        assert!(scene.hand.is_some());
        let resting = demo.scene_at(MOVE_SECS * 3.0 + 1.3);
        assert!(resting.hand.is_none());
    }
}
