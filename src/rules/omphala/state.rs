//! What the referee knows about a game in progress: rows, deck count, discard pile, turn and
//! whatever it is waiting for. Only what the table has shown is known.

use serde::{Deserialize, Serialize};

use super::battle::TieBreakState;
use super::options::RuleOptions;
use super::score::Standings;
use crate::cards::{Card, Suit};

/// A player's place at the table, 0-based in seat order (play passes to seat + 1).
pub type Seat = usize;

/// Most entities a Back Row may hold once a draw has been settled.
pub const BACK_ROW_LIMIT: usize = 7;
/// Actions a player may take in one turn.
pub const ACTIONS_PER_TURN: u8 = 2;
/// Cards dealt to each player: 2 to the Front Row, 5 to the Back Row.
pub const FRONT_DEAL: usize = 2;
pub const BACK_DEAL: usize = 5;
pub const MIN_PLAYERS: usize = 2;
pub const MAX_PLAYERS: usize = 6;
pub const DECK_SIZE: usize = 52;

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

/// Where the current turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// Two players only: the draw before the turn.
    DrawsBefore,
    /// The player may act (and draws owed now come from Draw or a red reset).
    Acting,
    /// The draws after the turn.
    DrawsAfter,
}

/// The turn in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub player: Seat,
    /// 1 for the first turn of the game.
    pub number: u32,
    pub step: Step,
    pub actions_used: u8,
    /// Cards the player must still take from the deck before play goes on.
    pub draws_owed: u8,
}

/// An attack waiting for its face-down target to be turned up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingAttack {
    pub attacker: Seat,
    /// Base card of the attacking Back Row entity.
    pub with: Card,
    pub defender: Seat,
    /// 0-based position in the defender's Front Row.
    pub position: usize,
}

/// Something the game cannot go on without.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pending {
    Nothing,
    /// The camera must read the card a player just took from the deck.
    DrawnCard {
        player: Seat,
    },
    /// A face-down Front Row target must be turned up.
    Reveal(PendingAttack),
    /// The player's Back Row holds 8 entities: they must discard one.
    Discard {
        player: Seat,
    },
}

/// The observation the engine waits for, as the UI should ask for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Awaited {
    /// The setup deal.
    Deal,
    /// The identity of the card `player` just drew (it lands face up in their Back Row).
    DrawnCard { player: Seat },
    /// The identity of `player`'s Front Row entity at `position` (0-based), turned face up.
    Reveal { player: Seat, position: usize },
}

/// Where the game is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Waiting for the deal.
    Setup,
    Playing,
    /// The game is over and tied players are breaking the tie, one reveal at a time.
    TieBreak(TieBreakState),
    Over(Standings),
}

/// The whole game as the referee knows it. Serializable so the UI can save it after every input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub options: RuleOptions,
    /// In seat order; empty until the deal.
    pub players: Vec<Player>,
    /// Cards left in the deck; their order and identities are unknown.
    pub deck: usize,
    /// Destroyed and discarded cards, in the order they went there (all seen on the way).
    pub discard: Vec<Card>,
    pub turn: Turn,
    pub pending: Pending,
    pub phase: Phase,
    /// The game was ended by agreement rather than by running out of moves.
    pub ended_by_agreement: bool,
}

impl GameState {
    /// A game waiting for its deal.
    pub fn new(options: RuleOptions) -> GameState {
        GameState {
            options,
            players: Vec::new(),
            deck: DECK_SIZE,
            discard: Vec::new(),
            turn: Turn { player: 0, number: 0, step: Step::Acting, actions_used: 0, draws_owed: 0 },
            pending: Pending::Nothing,
            phase: Phase::Setup,
            ended_by_agreement: false,
        }
    }

    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    /// The final standings, once the game and any tie-break are done.
    pub fn standings(&self) -> Option<&Standings> {
        match &self.phase {
            Phase::Over(standings) => Some(standings),
            _ => None,
        }
    }

    /// Cards in every zone: deck, rows, discard pile. Always 52 after the deal.
    pub fn card_total(&self) -> usize {
        let in_rows: usize =
            self.players.iter().flat_map(|p| p.front.iter().chain(&p.back)).map(Entity::card_count).sum();
        self.deck + in_rows + self.discard.len()
    }

    /// A bit per card (by `Card::index`) for every card the table has seen where it now is.
    pub fn seen_cards(&self) -> u64 {
        let rows = self.players.iter().flat_map(|p| p.front.iter().chain(&p.back));
        let cards = rows.flat_map(Entity::known_cards).chain(self.discard.iter().copied());
        cards.fold(0, |mask, card| mask | (1u64 << card.index()))
    }

    /// Where a seen card is, in words ("Bob's Back Row"), to explain a refusal.
    pub fn whereabouts(&self, card: Card) -> Option<String> {
        if self.discard.contains(&card) {
            return Some("the discard pile".to_string());
        }
        self.players.iter().find_map(|p| {
            let holds = |row: &[Entity]| row.iter().any(|e| e.known_cards().any(|c| c == card));
            if holds(&p.front) {
                Some(format!("{}'s Front Row", p.name))
            } else if holds(&p.back) {
                Some(format!("{}'s Back Row", p.name))
            } else {
                None
            }
        })
    }

    /// Hides every face-down identity the table could forget: each Front Row base card becomes
    /// unknown. Used to check that legal moves depend only on what is known.
    pub fn with_front_rows_hidden(&self) -> GameState {
        let mut hidden = self.clone();
        for player in &mut hidden.players {
            for entity in &mut player.front {
                entity.card = None;
            }
        }
        hidden
    }

    pub fn name(&self, seat: Seat) -> &str {
        self.players.get(seat).map_or("?", |p| p.name.as_str())
    }
}
