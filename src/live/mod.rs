//! The live session behind the window: frames from the capture thread refereed on a thread of
//! their own (`worker`), one Omphala game at a time (`omphala`), and what the window draws over
//! the image (`marks`). Free of egui; the command line drives the same path through
//! `table::watch` and the referees.

pub mod marks;
pub mod omphala;
pub mod referee;
pub mod worker;

pub use omphala::{OmphalaSession, Said};
pub use referee::{LiveReferee, journal_summary};
pub use worker::{FrameSink, LiveGame, Order, RefereeWorker, Snapshot};
