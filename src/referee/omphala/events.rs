//! What the referee says, as JSON lines (`docs/referee-events.md`): each committed input with
//! the engine's ruling in words, illegal moves with the rule's id and sentence, prompts (a card
//! to reveal, to draw, to move), questions for the operator, desyncs and the end of the game.

use serde::Serialize;

use super::super::Tone;

use crate::rules::omphala::notation::input_lines;
use crate::rules::omphala::replay::{describe, standings_lines};
use crate::rules::omphala::{Event, GameState, Input, Observation};

/// When: the frame a settled view came from and its time since the source started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Moment {
    pub frame: u64,
    pub ms: u64,
}

/// What a question is about, which says how it is answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum About {
    /// Which of the explanations' next inputs was played.
    #[default]
    WhichMove,
    /// Whether attackers put back with no reveal read had attacked, and with what card shown
    /// (or `no attack`).
    PutBack,
    /// Which chain of moves nobody saw explains the table (or `none of these`).
    MovesUnseen,
    /// Whether the moves ending in a discard the pile never showed were played (or `none of
    /// these`): a card gone from a row may have been laid where the camera missed it.
    DiscardUnseen,
    /// The referee is lost: the table is right with a player to play, or it will be put back;
    /// or the operator fixes a place the camera got wrong.
    TableRight,
}

/// One thing the referee says.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RefereeEvent {
    /// An input committed to the game: its record line(s) and the ruling.
    Input {
        seat: Option<usize>,
        record: Vec<String>,
        verdict: String,
        #[serde(flatten)]
        at: Moment,
    },
    /// A move the table shows that the rules refuse; the game stays as it was until the table
    /// is put back.
    Illegal {
        seat: usize,
        name: String,
        action: String,
        rule: String,
        sentence: String,
        #[serde(flatten)]
        at: Moment,
    },
    /// The table is back as the game stands after an illegal move or a desync.
    Restored {
        #[serde(flatten)]
        at: Moment,
    },
    /// Something a player must do now.
    Prompt {
        seat: Option<usize>,
        text: String,
        #[serde(flatten)]
        at: Moment,
    },
    /// The ruling is made but the table does not show it yet: what is still to be moved.
    Waiting {
        differences: Vec<String>,
        #[serde(flatten)]
        at: Moment,
    },
    /// Several explanations fit the table: the operator picks one (by its record line).
    Confirm {
        candidates: Vec<String>,
        /// What is asked (not written: the candidates say it in words).
        #[serde(skip)]
        about: About,
        #[serde(flatten)]
        at: Moment,
    },
    /// Nothing explains the table: the places that differ from the game as it stands.
    Desync {
        differences: Vec<String>,
        #[serde(flatten)]
        at: Moment,
    },
    /// The game is over: the standings, one line each, and the winner.
    Standings {
        lines: Vec<String>,
        #[serde(flatten)]
        at: Moment,
    },
    /// Anything else worth saying.
    Note {
        text: String,
        #[serde(flatten)]
        at: Moment,
    },
}

impl RefereeEvent {
    /// One line in words, with how it reads; `answered_by_script` is the answer a script gave
    /// to a `confirm`.
    pub fn words(&self, answered_by_script: Option<&str>) -> (Tone, String) {
        match self {
            RefereeEvent::Input { record, verdict, .. } => (Tone::Good, format!("{} — {verdict}", record.join(" / "))),
            RefereeEvent::Illegal { name, action, sentence, rule, .. } => {
                (Tone::Bad, format!("Illegal: {name}, {action}. {sentence} ({rule})"))
            }
            RefereeEvent::Restored { .. } => (Tone::Plain, "The table is back as the game stands".to_string()),
            RefereeEvent::Prompt { text, .. } => (Tone::Ask, text.clone()),
            RefereeEvent::Waiting { differences, .. } => {
                (Tone::Plain, format!("Waiting for: {}", differences.join("; ")))
            }
            RefereeEvent::Confirm { candidates, .. } => match answered_by_script {
                Some(answer) => (Tone::Plain, format!("Which move? The demo's script says: {answer}")),
                None => (Tone::Ask, format!("Which move was played? {}", candidates.join("  |  "))),
            },
            RefereeEvent::Desync { differences, .. } => {
                (Tone::Bad, format!("The table does not match the game: {}", differences.join("; ")))
            }
            RefereeEvent::Standings { lines, .. } => (Tone::Good, format!("Game over. {}", lines.join("  "))),
            RefereeEvent::Note { text, .. } => (Tone::Plain, text.clone()),
        }
    }

    /// When it was said.
    pub fn at(&self) -> Moment {
        match self {
            RefereeEvent::Input { at, .. }
            | RefereeEvent::Illegal { at, .. }
            | RefereeEvent::Restored { at }
            | RefereeEvent::Prompt { at, .. }
            | RefereeEvent::Waiting { at, .. }
            | RefereeEvent::Confirm { at, .. }
            | RefereeEvent::Desync { at, .. }
            | RefereeEvent::Standings { at, .. }
            | RefereeEvent::Note { at, .. } => *at,
        }
    }

    /// The event for one committed input.
    pub fn input(after: &GameState, names: &[String], input: &Input, events: &[Event], at: Moment) -> RefereeEvent {
        let seat = match input {
            Input::Act { player, .. } => Some(*player),
            Input::Observe(Observation::Drawn { player, .. } | Observation::Revealed { player, .. }) => Some(*player),
            _ => None,
        };
        let said: Vec<String> =
            events.iter().filter(|e| !matches!(e, Event::Finished(_))).map(|e| describe(after, e)).collect();
        let verdict = if said.is_empty() { "ok".to_string() } else { format!("ok: {}", said.join("; ")) };
        RefereeEvent::Input { seat, record: input_lines(names, input), verdict, at }
    }
}

/// What the players must do after these engine events, in words addressed to them. A request
/// already met by a later event of the same batch (a reveal the table already showed) is not said.
pub fn prompts(state: &GameState, events: &[Event], at: Moment) -> Vec<RefereeEvent> {
    let met = |k: usize, done: &dyn Fn(&Event) -> bool| events[k + 1..].iter().any(done);
    let name = |seat: usize| state.name(seat).to_string();
    let mut out = Vec::new();
    let mut standings = Vec::new();
    let mut say = |seat: Option<usize>, text: String| out.push(RefereeEvent::Prompt { seat, text, at });
    for (k, event) in events.iter().enumerate() {
        match event {
            Event::RevealNeeded { player, position }
                if met(
                    k,
                    &|e| matches!(e, Event::Revealed { player: p, position: q, .. } if p == player && q == position),
                ) => {}
            Event::TieBreakRevealNeeded { player, position }
                if met(
                    k,
                    &|e| matches!(e, Event::Revealed { player: p, position: q, .. } if p == player && q == position),
                ) => {}
            Event::DiscardOwed { player }
                if met(k, &|e| matches!(e, Event::Discarded { player: p, .. } if p == player)) => {}
            Event::RevealNeeded { player, position } => {
                say(Some(*player), format!("{}: reveal your Front Row card {}", name(*player), position + 1))
            }
            Event::TieBreakRevealNeeded { player, position } => say(
                Some(*player),
                format!("{}: reveal your Front Row card {} for the tie-break", name(*player), position + 1),
            ),
            Event::DiscardOwed { player } => {
                let held = state.players.get(*player).map_or(0, |p| p.back.len());
                say(Some(*player), format!("{}: discard one Back Row card ({held} in the row)", name(*player)))
            }
            Event::Attacked { defender, position, target, outcome, .. } => {
                let card = target.card.map_or("the card".to_string(), |c| c.to_string());
                match outcome {
                    crate::rules::omphala::input::Outcome::Succeeded => say(
                        Some(*defender),
                        format!("{}: put {card} (Front Row {}) on the discard pile", name(*defender), position + 1),
                    ),
                    crate::rules::omphala::input::Outcome::Failed => say(
                        Some(*defender),
                        format!("{}: turn {card} (Front Row {}) face down again", name(*defender), position + 1),
                    ),
                }
            }
            Event::Retired { player, entity, .. } => {
                let card = entity.card.map_or("the card".to_string(), |c| c.to_string());
                say(
                    Some(*player),
                    format!("{}: move the {card} face down to the right end of your Front Row", name(*player)),
                )
            }
            Event::AttackerDiscarded { player, entity } => {
                let card = entity.card.map_or("the card".to_string(), |c| c.to_string());
                say(Some(*player), format!("{}: put the failed attacker {card} on the discard pile", name(*player)))
            }
            Event::Finished(s) => {
                standings.push(RefereeEvent::Standings { lines: standings_lines(state, s), at });
            }
            _ => {}
        }
    }
    out.extend(standings);
    out
}
