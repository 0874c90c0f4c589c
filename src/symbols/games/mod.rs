//! The spot-the-symbol mini-games as state machines (rules: `shared/spec/symbol-games.md`).
//!
//! A game holds only where the cards are. Which card was dealt where is an input (a [`Deal`]);
//! nothing here shuffles. Claims are judged by a [`Referee`], which asks the game which pairs of
//! cards the claimer may compare and, on a correct claim, tells it to move the cards.

pub mod claim;
pub mod hot_potato;
pub mod poisoned_gift;
pub mod series;
pub mod tower;
pub mod well;

use std::collections::HashSet;
use std::fmt;

use super::deck::{CardId, Deck};

pub use claim::{Claim, Outcome, Referee, RefereeOptions, Verdict};
pub use series::{GameResult, Match};

/// A player's seat at the table, 0-based, in the order the players were named.
pub type Seat = usize;

/// Where a visible card lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The top of a player's pile.
    Player(Seat),
    /// The top of the face-up draw pile.
    Draw,
    /// The centre card (The Well).
    Centre,
}

/// Two visible cards that a claim compares; `target` is the other player involved, when the
/// game lets the claimer pick one (Hot Potato, The Poisoned Gift).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub left: (Place, CardId),
    pub right: (Place, CardId),
    pub target: Option<Seat>,
}

/// The four mini-games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    Tower,
    Well,
    HotPotato,
    PoisonedGift,
}

impl GameKind {
    pub const ALL: [GameKind; 4] = [GameKind::Tower, GameKind::Well, GameKind::HotPotato, GameKind::PoisonedGift];

    /// The name used in match records: "tower", "well", "hot-potato", "poisoned-gift".
    pub fn code(self) -> &'static str {
        match self {
            GameKind::Tower => "tower",
            GameKind::Well => "well",
            GameKind::HotPotato => "hot-potato",
            GameKind::PoisonedGift => "poisoned-gift",
        }
    }

    pub fn from_code(code: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameKind::Tower => "The Tower",
            GameKind::Well => "The Well",
            GameKind::HotPotato => "Hot Potato",
            GameKind::PoisonedGift => "The Poisoned Gift",
        })
    }
}

/// How the cards were dealt. Every list is top card first. Each game uses the parts its rules
/// name and rejects the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deal {
    /// One pile per seat.
    pub piles: Vec<Vec<CardId>>,
    /// The face-up draw pile (The Tower, The Poisoned Gift).
    pub draw: Vec<CardId>,
    /// The centre card (The Well).
    pub centre: Option<CardId>,
    /// Hot Potato: the cards of each round, one per seat in seat order.
    pub rounds: Vec<Vec<CardId>>,
}

impl Deal {
    fn all_cards(&self) -> impl Iterator<Item = CardId> + '_ {
        self.piles.iter().flatten().chain(&self.draw).chain(&self.centre).chain(self.rounds.iter().flatten()).copied()
    }
}

/// Why a deal cannot start a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("a game needs at least 2 players, not {0}")]
    TooFewPlayers(usize),
    #[error("card {0} is not in the deck")]
    UnknownCard(CardId),
    #[error("card {0} is dealt twice")]
    DealtTwice(CardId),
    #[error("{0}")]
    Shape(String),
}

/// One mini-game's table: where every card is, what a claimer compares, how cards move.
pub trait MiniGame {
    fn kind(&self) -> GameKind;
    fn seats(&self) -> usize;
    /// The comparisons open to this claimer now; empty when they cannot claim.
    fn comparisons(&self, claimer: Seat) -> Vec<Comparison>;
    /// Moves the cards for a correct claim on `comparison` (one of `comparisons(claimer)`), and
    /// says what moved, naming players by `names` (one per seat).
    fn apply(&mut self, claimer: Seat, comparison: &Comparison, names: &[String]) -> String;
    fn is_over(&self) -> bool;
    /// The visible card at a place, if any.
    fn top(&self, place: Place) -> Option<CardId>;
    /// Every card at a place, bottom first (the renderer lays them as an untidy pile).
    fn pile(&self, place: Place) -> Vec<CardId>;
    /// Every card the game holds, wherever it lies (conserved by every move).
    fn cards_in_play(&self) -> usize;
    /// The number that decides the ranking; higher is better (e.g. minus the cards collected
    /// when fewest cards wins).
    fn score(&self, seat: Seat) -> i64;
    /// The number of cards the seat holds or has collected, for the score table.
    fn cards_of(&self, seat: Seat) -> usize;
}

/// Starts a game from a deal, after checking the deal against the deck and the rules.
pub fn start(
    kind: GameKind,
    deck: &Deck,
    seats: usize,
    deal: Deal,
    options: &RefereeOptions,
) -> Result<Box<dyn MiniGame>, DealError> {
    if seats < 2 {
        return Err(DealError::TooFewPlayers(seats));
    }
    let mut seen = HashSet::new();
    for card in deal.all_cards() {
        if deck.card(card).is_none() {
            return Err(DealError::UnknownCard(card));
        }
        if !seen.insert(card) {
            return Err(DealError::DealtTwice(card));
        }
    }
    Ok(match kind {
        GameKind::Tower => Box::new(tower::Tower::new(seats, deal)?),
        GameKind::Well => Box::new(well::Well::new(seats, deal)?.with_play_for_places(options.well_play_for_places)),
        GameKind::HotPotato => Box::new(hot_potato::HotPotato::new(seats, deal)?),
        GameKind::PoisonedGift => Box::new(poisoned_gift::PoisonedGift::new(seats, deal)?),
    })
}

fn shape(message: impl Into<String>) -> DealError {
    DealError::Shape(message.into())
}

/// Piles stored bottom first, so that the top card is `last()`.
fn bottom_first(top_first: &[CardId]) -> Vec<CardId> {
    top_first.iter().rev().copied().collect()
}

/// Checks that the deal gives exactly one card to every seat (The Tower, The Poisoned Gift).
fn one_card_each(game: &str, seats: usize, piles: &[Vec<CardId>]) -> Result<(), DealError> {
    if piles.len() != seats || piles.iter().any(|p| p.len() != 1) {
        return Err(shape(format!("{game} deals exactly one card to each of the {seats} players")));
    }
    Ok(())
}

fn no_part(game: &str, present: bool, part: &str) -> Result<(), DealError> {
    if present { Err(shape(format!("{game} has no {part}"))) } else { Ok(()) }
}

/// "1 card", "3 cards".
pub(crate) fn cards(n: usize) -> String {
    if n == 1 { "1 card".to_string() } else { format!("{n} cards") }
}
