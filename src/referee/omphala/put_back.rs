//! An attacker slid out of its row and put back before any reveal was read. At a real table
//! that is either no attack (the player changed their mind) or a failed attack whose target was
//! turned up and down again while hands hid it: the table ends the same. Only the operator can
//! tell, so they are asked, and for a failed attack they name the card the target showed.
//! The same holds for a target seen turned up while the referee was lost: once the table is
//! explained again, the attacks that would have failed against it are put to the operator.

use super::search::{Hypothesis, after_passes, step_or_refusal};
use crate::cards::Card;
use crate::rules::omphala::notation::input_lines;
use crate::rules::omphala::state::Pending;
use crate::rules::omphala::{Action, Awaited, GameState, Input, Observation, actor, apply, awaited, legal_actions};

/// The candidate that says the card was only slid out.
pub const NO_ATTACK: &str = "no attack";

/// Stands for the revealed card in a candidate: the operator writes the card in its place.
pub const CARD_TO_NAME: &str = "?";

/// One attack that may have been made and failed unseen.
#[derive(Clone, Debug, PartialEq)]
pub struct PutBack {
    /// The inputs before the attack, past the committed game: a prefix of an explanation's.
    pub before: Vec<Input>,
    /// Passes after `before` that left no trace (the deck empty), up to the attacker's turn.
    pub passes: Vec<Input>,
    pub attack: Input,
    /// Whose Front Row card was the target, and where.
    pub target: (usize, usize),
}

impl PutBack {
    /// The attacks that may have been made and failed unseen along an explanation `h` of the
    /// table (inputs past `committed`), each where the player to act could first have made it:
    /// the target `(player, position)` was seen turned up showing `card` while the referee was
    /// lost, the attack fails against it, and the table ends as it was. None where `h` itself
    /// reveals that target.
    pub fn failed_along(
        committed: &GameState,
        h: &Hypothesis,
        (defender, position): (usize, usize),
        card: Card,
    ) -> Vec<PutBack> {
        let reveals = |i: &Input| matches!(i, Input::Observe(Observation::Revealed { player, position: p, .. }) if (*player, *p) == (defender, position));
        if h.inputs.iter().any(reveals) {
            return Vec::new();
        }
        let mut out: Vec<PutBack> = Vec::new();
        let mut state = committed.clone();
        for k in 0..=h.inputs.len() {
            // Passes nobody saw only after the explanation's last input: within it, the next
            // input says whose turn it was.
            let turns = if k == h.inputs.len() { after_passes(&state) } else { vec![(Vec::new(), state.clone())] };
            for (passes, turn) in turns {
                let Some(player) = actor(&turn) else { continue };
                for action in legal_actions(&turn) {
                    let Action::Attack { with, defender: d, position: p } = action else { continue };
                    if (d, p) != (defender, position) {
                        continue;
                    }
                    let attack = Input::Act { player, action };
                    let mut after = turn.clone();
                    let reveal = Input::Observe(Observation::Revealed { player: defender, position, card });
                    if apply(&mut after, attack.clone()).is_err() || apply(&mut after, reveal).is_err() {
                        continue;
                    }
                    let failed = after.players[player].back.iter().any(|e| e.card == Some(with))
                        && after.players[defender].front.len() == turn.players[defender].front.len();
                    let found = PutBack {
                        before: h.inputs[..k].to_vec(),
                        passes: passes.clone(),
                        attack,
                        target: (defender, position),
                    };
                    if failed && !out.iter().any(|o| o.attack == found.attack) {
                        out.push(found);
                    }
                }
            }
            match h.inputs.get(k) {
                Some(input) if apply(&mut state, input.clone()).is_ok() => {}
                _ => break,
            }
        }
        out
    }

    /// The attack a hypothesis awaits its target's reveal for.
    pub fn of(h: &Hypothesis) -> Option<PutBack> {
        let Pending::Reveal(_) = h.state.pending else { return None };
        let Some(Awaited::Reveal { player, position }) = awaited(&h.state) else { return None };
        let (attack, before) = h.inputs.split_last()?;
        Some(PutBack {
            before: before.to_vec(),
            passes: Vec::new(),
            attack: attack.clone(),
            target: (player, position),
        })
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
    /// hypothesis's later inputs; those the engine refuses are dropped. With nothing after the
    /// reveal, the table may still show the target face up (the operator answers while it is
    /// being shown).
    pub fn replay(&self, committed: &GameState, open: &[Hypothesis], card: Card) -> Result<Vec<Hypothesis>, String> {
        let (player, position) = self.target;
        let mut node = Hypothesis::new(committed.clone());
        let reveal = Input::Observe(Observation::Revealed { player, position, card });
        for input in self.before.iter().chain(&self.passes).chain([&self.attack, &reveal]) {
            node = step_or_refusal(&node, input.clone())?;
        }
        let mut out = Vec::new();
        for h in open.iter().filter(|h| h.inputs.starts_with(&self.before)) {
            let rest = &h.inputs[self.before.len()..];
            // The passes put before the attack may be the explanation's own next inputs.
            let rest = rest.strip_prefix(&self.passes[..]).unwrap_or(rest);
            let replayed = rest.iter().try_fold(node.clone(), |n, i| step_or_refusal(&n, i.clone()));
            out.extend(replayed.ok());
        }
        Ok(out)
    }
}
