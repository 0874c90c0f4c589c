//! What the user asked for while the window was drawn: the panels return these, and the app
//! carries them out after drawing.

use crate::capture::{CaptureOptions, SourceSpec};
use crate::live::teaching::TeachOrder;

/// Something the user asked for while the UI was drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum UiCommand {
    SwitchSource(SourceSpec),
    /// Ask cameras for another resolution and frame rate; the source is reopened.
    SetMode(CaptureOptions),
    RefreshCameras,
    /// The operator's answer to the open `confirm` question.
    Answer(crate::referee::omphala::question::Reply),
    /// The players stop: the game is scored as it stands.
    EndByAgreement,
    /// Referee a new game from the deal, with the seats and names set.
    NewGame,
    /// Large type was switched on or off.
    ApplyLook,
    /// Go on with the last journalled game.
    Resume,
    /// A mini-game claim: `seat` called `called` at `ms` (the refereed time when its key was
    /// pressed).
    Claim {
        seat: usize,
        called: String,
        ms: u64,
    },
    /// The claim being typed is dropped.
    CancelClaim,
    /// Keep the layout fitted to the deal (or adjusted by hand) as this table's layout file.
    SaveLayout,
    /// Start adjusting the layout in use by dragging its rows and piles on the live image.
    AdjustLayout,
    /// Referee with the layout as adjusted.
    UseAdjustedLayout,
    /// Drop the adjustments.
    CancelAdjusting,
    /// Withdraw the last committed ruling.
    Undo,
    /// Teach the reader this table's deck, card by card (the camera's frames go to the teaching
    /// until it ends).
    TeachDeck,
    /// A button of the teaching: skip the card asked for, teach the last again, or take the card
    /// held as the one asked for.
    Teach(TeachOrder),
    /// Keep the cards taught as the deck's profile and read with it from the next game on.
    FinishTeaching,
    /// Drop the teaching; the deck in use stays.
    CancelTeaching,
    /// Read with the built-in reader alone again.
    ForgetDeck,
    /// Open the Scorebook screen on tonight's games.
    OpenScorebook,
    /// The Scorebook screen asks for the book to be read again or exported.
    Book(BookOrder),
    /// The operator read `player`'s Front Row card `position` as `card` (a tie-break reveal).
    Reveal {
        player: usize,
        position: usize,
        card: String,
    },
}

/// What the Scorebook screen asks the app to do with the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookOrder {
    /// Read the games and the table again, with the filter as set.
    Reload,
    ExportCsv,
    ExportJson,
    /// Read the chosen game's steps and thumbnails.
    Steps,
}
