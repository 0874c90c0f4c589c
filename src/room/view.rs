//! What the page shows of the live table: the game, whose turn, each player's standing, what
//! the referee needs now, and the last rulings. Made by the referee's side (`live::room`).

use serde::Serialize;

use crate::referee::Tone;

/// Rulings the page lists.
pub const RULINGS_SHOWN: usize = 12;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RoomView {
    /// The game and its players: "Omphala: Alice, Bob, Carol".
    pub game: String,
    pub turn: Option<String>,
    pub over: bool,
    /// Best first.
    pub standings: Vec<Standing>,
    /// What the referee needs now, if anything: a question, a desync, an illegal move to undo.
    pub status: Option<Ruling>,
    /// The last rulings, newest last.
    pub rulings: Vec<Ruling>,
    /// The frame of the last ruling, growing as the game goes on.
    pub last_frame: Option<u64>,
}

/// One player's standing in the live game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    pub player: String,
    /// "7 Front Row cards", "2 cards left", "1st".
    pub score: String,
    /// Leads now, or won.
    pub leads: bool,
}

/// One thing the referee said.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ruling {
    pub tone: Tone,
    pub text: String,
    pub frame: u64,
}
