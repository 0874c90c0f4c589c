//! What the referee knows about a game in progress: rows, deck count, discard pile, turn and
//! whatever it is waiting for. Only what the table has shown is known.

use serde::{Deserialize, Serialize};

use super::battle::TieBreakState;
pub use super::entity::{Entity, Player, Seat};
use super::options::RuleOptions;
use super::score::Standings;
use crate::cards::Card;

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
    /// How many of the pile's last cards went there together (an entity with its modifier): a
    /// player lays them in either order, so any of them may lie on top.
    #[serde(default)]
    pub discarded_together: usize,
    pub turn: Turn,
    pub pending: Pending,
    pub phase: Phase,
    /// The game was ended by agreement rather than by running out of moves.
    pub ended_by_agreement: bool,
}

impl GameState {
    /// Puts `cards` on the discard pile together (an entity's base and modifier).
    pub fn to_discard(&mut self, cards: impl IntoIterator<Item = Card>) {
        let before = self.discard.len();
        self.discard.extend(cards);
        if self.discard.len() > before {
            self.discarded_together = self.discard.len() - before;
        }
    }

    /// The cards that may lie on top of the discard pile: the last ones put there together,
    /// the last first.
    pub fn discard_tops(&self) -> Vec<Card> {
        self.discard.iter().rev().take(self.discarded_together.max(1)).copied().collect()
    }

    /// A game waiting for its deal.
    pub fn new(options: RuleOptions) -> GameState {
        GameState {
            options,
            players: Vec::new(),
            deck: DECK_SIZE,
            discard: Vec::new(),
            discarded_together: 0,
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
/// An entity as the table knows it: `KC`, `KC+5H`, `?` (never seen), `?+4D`.
pub fn entity_text(entity: &Entity) -> String {
    let base = entity.card.map_or("?".to_string(), |c| c.to_string());
    match entity.modifier {
        Some(m) => format!("{base}+{m}"),
        None => base,
    }
}
