//! The cards as they lie on the rendered table: the deck and discard piles, and each seat's
//! rows of physical entities (every card known, face-down ones included). The script changes
//! this table one hand move at a time and lays it out with `placed` for each frame.

use std::collections::HashMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::cards::Card;
use crate::geometry::Pt;
use crate::layout::SLOT_MM;
use crate::layout::TableLayout;
use crate::render::scene::PlacedCard;

/// Cards of a pile drawn (the ones below are hidden by them).
const PILE_SHOWN: usize = 5;
/// Chance that a card lands visibly askew (a few millimetres and degrees off its slot).
const ASKEW_CHANCE: f64 = 0.12;

/// How far a card lies from where it should: millimetres and radians.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Jitter {
    pub dx: f64,
    pub dy: f64,
    pub da: f64,
}

/// A card with at most one modifier, as it lies in a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhysEntity {
    pub base: Card,
    pub base_up: bool,
    pub modifier: Option<Card>,
    pub modifier_up: bool,
}

impl PhysEntity {
    pub fn back_row(base: Card) -> PhysEntity {
        PhysEntity { base, base_up: true, modifier: None, modifier_up: true }
    }

    /// The entity turned face down, modifier included, as a retired attacker lies.
    pub fn face_down(self) -> PhysEntity {
        PhysEntity { base_up: false, modifier_up: false, ..self }
    }

    pub fn face_up(self) -> PhysEntity {
        PhysEntity { base_up: true, modifier_up: true, ..self }
    }

    pub fn cards(&self) -> impl Iterator<Item = Card> {
        std::iter::once(self.base).chain(self.modifier)
    }
}

/// One seat's rows. Front Row slots are `None` only for a moment, between a card leaving and
/// the cards to its right sliding left; Back Row slots are `None` wherever a slot is free.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhysSeat {
    pub front: Vec<Option<PhysEntity>>,
    pub back: Vec<Option<PhysEntity>>,
}

/// The whole table.
#[derive(Clone, Debug, PartialEq)]
pub struct PhysTable {
    /// Face down, top last.
    pub deck: Vec<Card>,
    /// Face up, newest last.
    pub discard: Vec<Card>,
    pub seats: Vec<PhysSeat>,
    /// How far each card lies off its place, set when it lands.
    pub jitter: HashMap<Card, Jitter>,
    /// A Back Row card slid forward out of its row: the attacker while its face-down target is
    /// shown (the referee reads who attacks from it).
    pub held: Option<Card>,
}

/// How far an attacker is slid forward, toward the middle of the table, millimetres: out of its
/// row's band and short of the piles.
pub const HELD_MM: f64 = 70.0;

/// How far from a pile's centre a slid attacker's centre stays, millimetres: a card's length,
/// so that it lies beside the pile, never on it.
const PILE_CLEAR_MM: f64 = 90.0;

/// How far a slid attacker moved along its row goes out of it: a card's length, so that it
/// lies clear of its neighbours in the row.
const HELD_CLEAR_MM: f64 = 95.0;

/// Where an attacker slid forward out of the slot at `at` of `line` lies: `HELD_MM` away from
/// its seat, or, where that lies on the deck or the discard pile, a card's length out and moved
/// along the row as far as needed (up to two slots) to lie clear of both, as a hand would put it
/// beside a pile rather than on it (and clear of the row, not over a neighbour).
pub fn held_at(layout: &TableLayout, line: &crate::layout::Row, at: Pt) -> Pt {
    let toward_seat = line.modifier_at(at);
    let (dx, dy) = (at.x - toward_seat.x, at.y - toward_seat.y);
    let away = dx.hypot(dy).max(1e-9);
    let (ax, ay) = (dx / away, dy / away);
    let len = line.step.x.hypot(line.step.y).max(1e-9);
    let (ux, uy) = (line.step.x / len, line.step.y / len);
    let clear = |p: &Pt| [layout.deck, layout.discard].iter().all(|z| p.distance(z.centre) >= PILE_CLEAR_MM);
    let slid = Pt::new(at.x + ax * HELD_MM, at.y + ay * HELD_MM);
    if clear(&slid) {
        return slid;
    }
    let out = Pt::new(at.x + ax * HELD_CLEAR_MM, at.y + ay * HELD_CLEAR_MM);
    let shifts = [0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0];
    shifts.iter().map(|s| Pt::new(out.x + ux * s * SLOT_MM, out.y + uy * s * SLOT_MM)).find(clear).unwrap_or(slid)
}

impl PhysTable {
    pub fn new(deck: Vec<Card>, players: usize) -> PhysTable {
        PhysTable {
            deck,
            discard: Vec::new(),
            seats: vec![PhysSeat::default(); players],
            jitter: HashMap::new(),
            held: None,
        }
    }

    /// A new resting place for `card`: nearly exact, now and then visibly askew. Pile cards lie
    /// looser than row cards.
    pub fn land(&mut self, card: Card, rng: &mut ChaCha8Rng, loose: bool) {
        let (mm, rad) = if loose {
            (4.0, 0.12)
        } else if rng.random_bool(ASKEW_CHANCE) {
            (rng.random_range(2.0..5.0), rng.random_range(0.03..0.08))
        } else {
            (0.8, 0.01)
        };
        let jitter =
            Jitter { dx: rng.random_range(-mm..=mm), dy: rng.random_range(-mm..=mm), da: rng.random_range(-rad..=rad) };
        self.jitter.insert(card, jitter);
    }

    pub fn land_entity(&mut self, entity: &PhysEntity, rng: &mut ChaCha8Rng) {
        for card in entity.cards() {
            self.land(card, rng, false);
        }
    }

    /// Takes `card` out of the deck (from wherever it lies: its order is never seen).
    pub fn take_from_deck(&mut self, card: Card) -> bool {
        match self.deck.iter().rposition(|&c| c == card) {
            Some(i) => {
                self.deck.remove(i);
                true
            }
            None => false,
        }
    }

    /// Puts an entity into the first free Back Row slot.
    pub fn put_back(&mut self, seat: usize, entity: PhysEntity) {
        let row = &mut self.seats[seat].back;
        match row.iter().position(Option::is_none) {
            Some(i) => row[i] = Some(entity),
            None => row.push(Some(entity)),
        }
    }

    /// Takes the Back Row entity whose base is `card` out of its slot.
    pub fn take_back(&mut self, seat: usize, card: Card) -> Option<PhysEntity> {
        let row = &mut self.seats.get_mut(seat)?.back;
        let slot = row.iter().position(|e| e.is_some_and(|e| e.base == card))?;
        row[slot].take()
    }

    pub fn back_entity_mut(&mut self, seat: usize, card: Card) -> Option<&mut PhysEntity> {
        self.seats.get_mut(seat)?.back.iter_mut().flatten().find(|e| e.base == card)
    }

    /// The Front Row entity at `position` (0-based, placement order).
    pub fn front_mut(&mut self, seat: usize, position: usize) -> Option<&mut PhysEntity> {
        self.seats.get_mut(seat)?.front.iter_mut().flatten().nth(position)
    }

    /// Takes a Front Row entity out, leaving a gap until `close_gaps`.
    pub fn take_front(&mut self, seat: usize, position: usize) -> Option<PhysEntity> {
        let row = &mut self.seats.get_mut(seat)?.front;
        let slot = row.iter().enumerate().filter(|(_, e)| e.is_some()).nth(position)?.0;
        row[slot].take()
    }

    /// The entities right of a gap slide left into it, as the notation's positions do.
    pub fn close_gaps(&mut self, seat: usize) {
        self.seats[seat].front.retain(Option::is_some);
    }

    pub fn has_gaps(&self, seat: usize) -> bool {
        self.seats[seat].front.iter().any(Option::is_none)
    }

    /// Adds an entity at the right end of the Front Row, face down.
    pub fn retire(&mut self, seat: usize, entity: PhysEntity) {
        self.seats[seat].front.push(Some(entity.face_down()));
    }

    /// Puts an entity's cards on the discard pile, face up, base first.
    pub fn discard_entity(&mut self, entity: &PhysEntity, rng: &mut ChaCha8Rng) {
        for card in entity.cards() {
            self.discard.push(card);
            self.land(card, rng, true);
        }
    }

    /// Every card on the table, in no particular order (52 once dealt).
    pub fn all_cards(&self) -> Vec<Card> {
        let rows = self.seats.iter().flat_map(|s| s.front.iter().chain(&s.back)).flatten();
        self.deck.iter().chain(&self.discard).copied().chain(rows.flat_map(PhysEntity::cards)).collect()
    }

    /// Where every visible card lies, bottom first: the piles, then each row's bases with their
    /// modifiers on top.
    pub fn placed(&self, layout: &TableLayout) -> Vec<PlacedCard> {
        let mut out = Vec::new();
        let jitter = |card: Card| self.jitter.get(&card).copied().unwrap_or_default();
        let mut put = |card: Card, face_up: bool, at: Pt, angle: f64| {
            let j = jitter(card);
            out.push(PlacedCard { card, face_up, centre: Pt::new(at.x + j.dx, at.y + j.dy), angle: angle + j.da });
        };
        for (pile, zone, face_up) in [(&self.deck, layout.deck, false), (&self.discard, layout.discard, true)] {
            let shown = pile.len().saturating_sub(PILE_SHOWN);
            for (i, &card) in pile.iter().enumerate().skip(shown) {
                // A pile is a little thicker toward its top.
                let lift = 0.4 * i as f64;
                put(card, face_up, Pt::new(zone.centre.x + lift * 0.3, zone.centre.y - lift), 0.0);
            }
        }
        for (seat, zones) in self.seats.iter().zip(&layout.seats) {
            for (row, line) in [(&seat.back, zones.back), (&seat.front, zones.front)] {
                for (slot, entity) in row.iter().enumerate() {
                    let Some(entity) = entity else { continue };
                    let mut at = line.slot(slot);
                    if self.held == Some(entity.base) {
                        at = held_at(layout, &line, at);
                    }
                    put(entity.base, entity.base_up, at, line.angle);
                    if let Some(modifier) = entity.modifier {
                        put(modifier, entity.modifier_up, line.modifier_at(at), line.angle);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    #[test]
    fn a_front_row_gap_closes_leftward_and_back_row_slots_are_reused() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut table = PhysTable::new(Vec::new(), 2);
        for code in ["2C", "3C", "4C"] {
            table.retire(0, PhysEntity::back_row(card(code)));
        }
        let taken = table.take_front(0, 1).unwrap();
        assert_eq!(taken.base, card("3C"));
        assert!(table.has_gaps(0));
        assert_eq!(table.front_mut(0, 1).unwrap().base, card("4C"), "positions skip the gap");
        table.close_gaps(0);
        assert_eq!(table.seats[0].front.len(), 2);
        for code in ["5H", "6H", "7H"] {
            table.put_back(1, PhysEntity::back_row(card(code)));
        }
        table.take_back(1, card("5H")).unwrap();
        table.put_back(1, PhysEntity::back_row(card("8H")));
        assert_eq!(table.seats[1].back[0].unwrap().base, card("8H"), "first free slot");
        table.discard_entity(&taken, &mut rng);
        assert_eq!(table.discard, [card("3C")]);
    }

    #[test]
    fn a_modifier_lies_on_top_of_its_base_toward_the_seat() {
        let layout = TableLayout::standard(2);
        let mut table = PhysTable::new(vec![card("AS")], 2);
        let mut entity = PhysEntity::back_row(card("KC"));
        entity.modifier = Some(card("5H"));
        table.put_back(0, entity);
        let placed = table.placed(&layout);
        let base = placed.iter().position(|p| p.card == card("KC")).unwrap();
        let modifier = placed.iter().position(|p| p.card == card("5H")).unwrap();
        assert!(modifier > base, "drawn later, so on top");
        assert!(placed[modifier].centre.y > placed[base].centre.y, "toward the bottom seat");
        assert!(placed.iter().any(|p| p.card == card("AS") && !p.face_up), "the deck lies face down");
    }
}
