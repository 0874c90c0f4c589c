//! The live session behind the window: frames from the capture thread refereed on a thread of
//! their own (`worker`, told what to do by `orders`), one game at a time (`referee`: Omphala in `omphala`, the
//! spot-the-symbol games in `minigame`), what the window draws over the image (`marks`), and a
//! deck taught card by card on a thread of its own (`teaching`). Free of egui; the command line
//! drives the same path through `table::watch` and the referees.

pub mod marks;
pub mod minigame;
pub mod omphala;
pub mod orders;
pub mod referee;
pub mod room;
pub mod teaching;
pub mod worker;

pub use minigame::MiniGameSession;
pub use omphala::{OmphalaSession, Said};
pub use orders::{Finished, LiveGame, Order};
pub use referee::{LiveReferee, journal_summary};
pub use worker::{FrameSink, MiniGameView, RefereeWorker, RoundMark, Snapshot};
