//! The pieces every part of the rules speaks of: a seat, an entity (a card with at most one
//! modifier) and a player's two rows. They depend on nothing else in the rules, so that the
//! game state, the scoring and the tie-break battle can all build on them.

use serde::{Deserialize, Serialize};

use super::options::RuleOptions;
use crate::cards::{Card, Suit};

/// A player's place at the table, 0-based in seat order (play passes to seat + 1).
pub type Seat = usize;

/// A card with at most one modifier (a Heart on a Back Row card, a Diamond on a Front Row card,
/// or a Heart carried along when an enhanced entity retires to the Front Row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entity {
    /// The base card; `None` while nobody at the table has seen it (a Front Row card dealt face
    /// down). Once seen it stays known, even face down again, so its power is known too.
    pub card: Option<Card>,
    /// Modifiers are always seen: they come face up from a Back Row.
    pub modifier: Option<Card>,
}

impl Entity {
    pub fn known(card: Card) -> Entity {
        Entity { card: Some(card), modifier: None }
    }

    pub fn unknown() -> Entity {
        Entity { card: None, modifier: None }
    }

    /// Cards in the entity: 1, or 2 with a modifier (the Front Row score counts both).
    pub fn card_count(&self) -> usize {
        1 + usize::from(self.modifier.is_some())
    }

    /// Base power plus modifier power; `None` while the base card is unknown.
    pub fn power(&self, options: &RuleOptions) -> Option<u8> {
        let base = options.power(self.card?);
        Some(base + self.modifier.map_or(0, |m| options.power(m)))
    }

    pub fn suit(&self) -> Option<Suit> {
        self.card.map(|c| c.suit)
    }

    /// The cards the table knows this entity is made of.
    pub fn known_cards(&self) -> impl Iterator<Item = Card> {
        self.card.into_iter().chain(self.modifier)
    }
}

/// One player's two rows, in placement order (index 0 is the first placed, leftmost).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub front: Vec<Entity>,
    pub back: Vec<Entity>,
}

impl Player {
    /// The Front Row score: cards, with a modifier counting as a second card.
    pub fn front_cards(&self) -> usize {
        self.front.iter().map(Entity::card_count).sum()
    }

    /// Where the Back Row entity whose base card is `card` sits.
    pub fn back_index(&self, card: Card) -> Option<usize> {
        self.back.iter().position(|e| e.card == Some(card))
    }
}
