//! What the mini-game referee says, as JSON lines (`docs/minigame-referee.md`). Every change of
//! the referee's state is one of these events, so that the journal of events is enough to resume.

use serde::{Deserialize, Serialize};

use super::piles::{Pile, PlaceName};
use crate::referee::Tone;
use crate::symbols::deck::CardId;
use crate::symbols::games::Seat;

/// A claim's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The called symbol is the one the compared cards share.
    Right,
    /// It is not (the shared symbol is given).
    Wrong,
    /// Someone was right first on this exchange.
    TooLate,
    /// A compared card could not be read when the claim was made.
    CannotSee,
    /// The name fits several symbols, or the symbol several players' cards.
    Ambiguous,
    /// No symbol of the deck has that name.
    UnknownName,
    /// The claimer cannot claim now (no card, not playing, the game is over).
    NotAllowed,
}

/// One of the two compared cards, and where the shared symbol lies on it in the frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub place: PlaceName,
    pub card: CardId,
    /// The shared symbol's centre in image pixels, when it was read on this card.
    pub symbol_at: Option<(f32, f32)>,
}

/// Two compared cards and the symbol they really share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compared {
    pub left: Evidence,
    pub right: Evidence,
    pub shared: String,
}

/// A card the referee expects to see moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    pub card: CardId,
    pub from: PlaceName,
    pub to: PlaceName,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The game's header, first in the journal.
    Start { game: String, players: Vec<String> },
    /// Where the piles lie, learnt from the deal.
    Piles { piles: Vec<Pile>, radius: f32 },
    Verdict {
        /// When the claim was made.
        ms: u64,
        seat: Seat,
        player: String,
        called: String,
        outcome: Outcome,
        /// The pairs compared (for a right or wrong claim).
        compared: Vec<Compared>,
        /// For a right claim: the move the game now calls for, and when the view it was judged
        /// on began (that exchange is won).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moves: Option<Move>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view_ms: Option<u64>,
        message: String,
    },
    /// The card moved as the game calls for.
    Moved { ms: u64, card: CardId, from: PlaceName, to: PlaceName, message: String },
    /// It went elsewhere.
    WrongMove { ms: u64, card: CardId, expected: PlaceName, seen: Option<PlaceName>, message: String },
    /// A pile was seen empty (The Well: that player is out; The Tower: the draw pile is done).
    Emptied { ms: u64, place: PlaceName },
    /// A new Hot Potato round: one card at each of these seats.
    Round { ms: u64, seats: Vec<Seat> },
    /// The game is over.
    Over { ms: u64, places: Vec<Vec<String>>, cards: Vec<usize>, wrong_calls: Vec<u32> },
    /// The last frame ruled on (a video source resumes after it).
    Frame { frame: u64 },
}

impl Event {
    /// One event in words, with how it reads; `None` for bookkeeping.
    pub fn words(&self) -> Option<(Tone, String)> {
        let line = match self {
            Event::Verdict { outcome: Outcome::Right, message, .. } => (Tone::Good, message.clone()),
            Event::Verdict { outcome: Outcome::Wrong, message, .. } => (Tone::Bad, message.clone()),
            Event::Verdict { message, .. } => (Tone::Plain, message.clone()),
            Event::Moved { message, .. } => (Tone::Plain, message.clone()),
            Event::WrongMove { message, .. } => (Tone::Bad, message.clone()),
            Event::Piles { piles, .. } => (Tone::Plain, format!("{} piles learnt from the deal", piles.len())),
            Event::Emptied { place, .. } => (Tone::Plain, format!("{place:?} is empty")),
            Event::Round { seats, .. } => (Tone::Plain, format!("A new round: {} cards dealt", seats.len())),
            Event::Over { places, .. } => {
                let first = places.first().map(|p| p.join(", ")).unwrap_or_default();
                (Tone::Good, format!("Game over: {first} first"))
            }
            Event::Start { .. } | Event::Frame { .. } => return None,
        };
        Some(line)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Reads a mini-game journal back: its events in order. A last line cut short by a crash is
/// ignored; any other bad line is an error naming it.
pub fn read_journal(path: &std::path::Path) -> Result<Vec<Event>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read the journal: {e}", path.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let mut events = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(event) => events.push(event),
            Err(_) if k + 1 == lines.len() && !text.ends_with('\n') => break,
            Err(e) => return Err(format!("{}: line {}: not a mini-game journal event: {e}", path.display(), k + 1)),
        }
    }
    match events.first() {
        Some(Event::Start { .. }) | None => Ok(events),
        Some(_) => Err(format!("{}: line 1: not a start event: not a mini-game journal", path.display())),
    }
}
