//! What the window asks of the referee thread: the game to referee (`LiveGame`), the operator's
//! orders while it runs (`Order`), and what a game that ended leaves for the screen (`Finished`).

use std::path::PathBuf;

use crate::referee::minigame::SeatClaim;
use crate::referee::omphala::question::Reply;
use crate::symbols::games::GameKind;

/// The game to referee.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveGame {
    /// Omphala at a real table: the players' names in seat order, the layout file saying where
    /// their rows lie (`None`: the standard layout, fitted to the deal), the journal to keep, and
    /// the deck profile the cards are read with (`None`: the built-in reader alone).
    Omphala { names: Vec<String>, layout: Option<PathBuf>, journal: Option<PathBuf>, deck: Option<PathBuf> },
    /// A spot-the-symbol game: the players, the deck ("cipher", "plane-N" or a deck.json) and
    /// how it was enrolled (none: the Cipher deck's built-in appearance), the journal to keep.
    /// `claims` are made at their times as the video plays (a recorded game's claims file).
    MiniGame {
        kind: GameKind,
        names: Vec<String>,
        deck: String,
        profile: Option<PathBuf>,
        journal: Option<PathBuf>,
        claims: Vec<SeatClaim>,
    },
    /// The Omphala game journalled at `journal`, going on where it stopped.
    Resume { journal: PathBuf, layout: Option<PathBuf>, deck: Option<PathBuf> },
    /// The demo table's loop of rendered games (`render::demo`, frames `width`×`height`): each
    /// game refereed as it plays, questions answered from its script.
    Demo { width: i32, height: i32 },
}

/// What the UI asks the referee thread.
#[derive(Clone, Debug, PartialEq)]
pub enum Order {
    /// The operator's answer to the open `confirm`: a candidate by index, or a fix.
    Answer(Reply),
    /// The players stop: score the game as it stands.
    EndByAgreement,
    /// A mini-game claim: `seat` called `called` at `ms` (the refereed frame's time when the
    /// claimer's key was pressed).
    Claim {
        seat: usize,
        called: String,
        ms: u64,
    },
    /// The operator read a card the camera could not: `player`'s Front Row entity `position`
    /// is `card` (a tie-break reveal).
    Reveal {
        player: usize,
        position: usize,
        card: String,
    },
    /// Withdraw the last committed ruling.
    Undo,
    /// Write the table layout in use (fitted to the deal) to this file.
    SaveLayout(PathBuf),
    /// Use this layout, adjusted by hand on the live image.
    UseLayout(crate::table::TableLayout),
    NewGame(LiveGame),
}

/// A game that ended while the window was open: names and standings, for the screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub names: Vec<String>,
    pub standings: Vec<String>,
}
