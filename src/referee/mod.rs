//! The live referees: which inputs explain each change of the settled table view, the verdicts,
//! the prompts, and the session journal. Fed by `table` (settled views), feeding the UI and the
//! command line with `RefereeEvent`s. Free of OpenCV and egui.

pub mod journal;
pub mod minigame;
pub mod omphala;

/// How a thing said reads: a ruling that stands, a move refused or a referee lost, a question
/// or a prompt, or plain news.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    Good,
    Bad,
    Ask,
    Plain,
}
