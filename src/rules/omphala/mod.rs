//! Omphala, refereed: the rules of `shared/spec/omphala.md` as a pure state machine.
//!
//! The UI feeds `Input`s (players' actions, the camera's observations) to `apply`, shows the
//! `Event`s it returns, and asks `legal_actions` / `awaited` what may or must come next.
//! Nothing here touches the camera, the window or a random number generator (except
//! `simulate`, which plays the table for random play-outs).

pub mod battle;
pub mod correct;
pub mod engine;
pub mod entity;
pub mod hand;
pub mod input;
pub mod notation;
pub mod options;
pub mod replay;
pub mod score;
pub mod simulate;
pub mod state;

pub use battle::{BattleStep, TieBreakState};
pub use correct::Correction;
pub use engine::{Illegal, actor, apply, awaited, check, legal_actions};
pub use input::{Action, Deal, Event, Input, Observation, SeatDeal};
pub use options::{AcePower, RuleOptions, TieBreak};
pub use score::{Decider, Standings};
pub use state::{Awaited, Entity, GameState, Phase, Seat};
