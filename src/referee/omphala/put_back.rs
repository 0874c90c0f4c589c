//! An attacker slid out of its row and put back before any reveal was read. At a real table
//! that is either no attack (the player changed their mind) or a failed attack whose target was
//! turned up and down again while hands hid it: the table ends the same. Only the operator can
//! tell, so they are asked, and for a failed attack they name the card the target showed.

use super::search::Hypothesis;
use crate::cards::Card;
use crate::rules::omphala::notation::input_lines;
use crate::rules::omphala::state::Pending;
use crate::rules::omphala::{Awaited, GameState, Input, Observation, apply, awaited};

/// The candidate that says the card was only slid out.
pub const NO_ATTACK: &str = "no attack";

/// Stands for the revealed card in a candidate: the operator writes the card in its place.
pub const CARD_TO_NAME: &str = "?";

/// One attack that may have been made and failed unseen.
#[derive(Clone, Debug, PartialEq)]
pub struct PutBack {
    /// The inputs before the attack, past the committed game.
    pub before: Vec<Input>,
    pub attack: Input,
    /// Whose Front Row card was the target, and where.
    pub target: (usize, usize),
}

impl PutBack {
    /// The attack a hypothesis awaits its target's reveal for.
    pub fn of(h: &Hypothesis) -> Option<PutBack> {
        let Pending::Reveal(_) = h.state.pending else { return None };
        let Some(Awaited::Reveal { player, position }) = awaited(&h.state) else { return None };
        let (attack, before) = h.inputs.split_last()?;
        Some(PutBack { before: before.to_vec(), attack: attack.clone(), target: (player, position) })
    }

    /// The candidate line: the attack and the reveal, its card left for the operator to name.
    pub fn candidate(&self, names: &[String]) -> String {
        let mut lines = input_lines(names, &self.attack);
        lines.push(format!("{} {CARD_TO_NAME}", self.reveal_prefix(names)));
        lines.join(" / ")
    }

    /// "Bob revealed 1": the reveal's record line without its card.
    fn reveal_prefix(&self, names: &[String]) -> String {
        let (player, position) = self.target;
        let Some(any) = Card::from_index(0) else { return String::new() };
        let line = input_lines(names, &Input::Observe(Observation::Revealed { player, position, card: any }))
            .pop()
            .unwrap_or_default();
        line.rsplit_once(' ').map_or(line.clone(), |(prefix, _)| prefix.to_string())
    }

    /// The card named in `answer` when it is this candidate with the card filled in.
    pub fn card_in(&self, names: &[String], answer: &str) -> Option<Result<Card, String>> {
        let candidate = self.candidate(names);
        let stem = candidate.strip_suffix(CARD_TO_NAME)?;
        let code = answer.trim().strip_prefix(stem)?.trim();
        Some(code.parse::<Card>().map_err(|e| format!("'{code}' is no card: {e}")))
    }

    /// The explanations with this attack failed against `card` put in before each open
    /// hypothesis's later inputs; those the engine refuses are dropped.
    pub fn replay(&self, committed: &GameState, open: &[Hypothesis], card: Card) -> Result<Vec<Hypothesis>, String> {
        let (player, position) = self.target;
        let mut state = committed.clone();
        let mut inputs = self.before.clone();
        inputs.push(self.attack.clone());
        inputs.push(Input::Observe(Observation::Revealed { player, position, card }));
        for input in &inputs {
            apply(&mut state, input.clone()).map_err(|e| e.to_string())?;
        }
        let mut out = Vec::new();
        for h in open.iter().filter(|h| h.inputs.starts_with(&self.before)) {
            let mut state = state.clone();
            let rest = &h.inputs[self.before.len()..];
            if rest.iter().all(|i| apply(&mut state, i.clone()).is_ok()) {
                let mut all = inputs.clone();
                all.extend_from_slice(rest);
                out.push(Hypothesis { state, inputs: all, lag: Vec::new() });
            }
        }
        Ok(out)
    }
}
