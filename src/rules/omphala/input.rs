//! Everything that can happen at the table, as inputs to the engine: the players' actions and
//! what the camera (or the operator) observes. The engine draws no random numbers: whatever
//! chance decides (the deal, the card drawn, a face-down card) arrives as an observation.

use serde::{Deserialize, Serialize};

use super::state::{Entity, Seat};
use crate::cards::Card;

/// A player's move. Back Row entities are named by their base card (Back Row cards are always
/// face up, so always known); Front Row entities by their 0-based position, since they may be
/// face down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Take the top deck card; its identity follows as `Observation::Drawn`.
    Draw,
    /// A Club or Spade entity attacks an opponent's Front Row entity.
    Attack { with: Card, defender: Seat, position: usize },
    /// A Spade entity steals an opponent's Back Row entity.
    Steal { with: Card, victim: Seat, target: Card },
    /// An unmodified Diamond shields one of the player's own Front Row entities.
    Shield { diamond: Card, position: usize },
    /// An unmodified Heart enhances another of the player's own Back Row entities.
    Enhance { heart: Card, target: Card },
    /// The free move of a Back Row of 7 red entities: shuffle them into the deck, draw 5.
    RedReset,
    /// Stop acting (pass); the end-of-turn draws follow.
    EndTurn,
    /// Give up a Back Row entity after a draw took the row to 8.
    Discard(Card),
}

/// The face-down cards of one seat at the deal, as the table saw them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatDeal {
    pub name: String,
    /// The 2 Front Row cards, usually `None` (dealt face down, never seen).
    pub front: Vec<Option<Card>>,
    /// The 5 Back Row cards, face up.
    pub back: Vec<Card>,
}

/// The setup: seats in play order and who goes first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    pub seats: Vec<SeatDeal>,
    pub first: Seat,
}

/// What the table shows the referee.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Observation {
    Deal(Deal),
    /// The card `player` took from the deck.
    Drawn {
        player: Seat,
        card: Card,
    },
    /// `player`'s Front Row entity at `position` (0-based) turned face up: its base card.
    Revealed {
        player: Seat,
        position: usize,
        card: Card,
    },
}

/// One input to `engine::apply`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    Act {
        player: Seat,
        action: Action,
    },
    Observe(Observation),
    /// The players agree to stop; the game is scored as it stands.
    EndByAgreement,
    /// The operator says the table is right where the game lost track of it.
    Correct(super::correct::Correction),
}

/// How an attack turned out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Succeeded,
    Failed,
}

/// What happened, for the UI to show and the record to explain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    Dealt {
        players: usize,
        first: Seat,
        deck: usize,
    },
    TurnBegan {
        player: Seat,
        number: u32,
    },
    /// The referee waits for the camera to read the card `player` takes now.
    DrawNeeded {
        player: Seat,
    },
    Drew {
        player: Seat,
        card: Card,
    },
    /// A draw owed from an empty deck does nothing.
    DrawSkipped {
        player: Seat,
    },
    DiscardOwed {
        player: Seat,
    },
    Discarded {
        player: Seat,
        entity: Entity,
    },
    /// The attack waits for this face-down entity to be turned up.
    RevealNeeded {
        player: Seat,
        position: usize,
    },
    Revealed {
        player: Seat,
        position: usize,
        card: Card,
    },
    Attacked {
        attacker: Seat,
        with: Entity,
        power: u8,
        defender: Seat,
        position: usize,
        target: Entity,
        target_power: u8,
        outcome: Outcome,
    },
    /// A failed attacker goes to the discard pile (option `failed_attacker_discarded`).
    AttackerDiscarded {
        player: Seat,
        entity: Entity,
    },
    Stole {
        thief: Seat,
        with: Entity,
        power: u8,
        victim: Seat,
        target: Entity,
        target_power: u8,
    },
    /// A successful attacker or thief is turned face down at the right end of the Front Row.
    Retired {
        player: Seat,
        entity: Entity,
        position: usize,
    },
    Shielded {
        player: Seat,
        diamond: Card,
        position: usize,
    },
    Enhanced {
        player: Seat,
        heart: Card,
        target: Card,
    },
    RedReset {
        player: Seat,
        cards: Vec<Card>,
    },
    TurnEnded {
        player: Seat,
    },
    /// Nobody has a possible move any more (or the players agreed to stop).
    GameOver {
        by_agreement: bool,
    },
    /// A tie-break needs this Front Row entity turned up.
    TieBreakRevealNeeded {
        player: Seat,
        position: usize,
    },
    BattleStep(super::battle::BattleStep),
    Finished(super::score::Standings),
    /// The operator corrected the game to the table.
    Corrected(super::correct::Correction),
}
