//! A card drawn that nobody saw: drawn into a full Back Row and discarded while a hand or a
//! stalled camera hid it, or lying in the row unread. The far search lets one such draw stand
//! in an explanation, with a stand-in card, and the operator names the card when the
//! explanation is put (`Bob drew ? / Bob discard ?`): without it the game is never explained
//! again, since the pile covers the card before anyone reads it.

use super::put_back::CARD_TO_NAME;
use super::search::{Hypothesis, step_or_refusal};
use crate::cards::Card;
use crate::rules::omphala::notation::input_lines;
use crate::rules::omphala::{Action, GameState, Input, Observation};

/// An explanation's record lines past the committed game, joined by " / ", the stand-in card
/// written as the card left to name.
pub fn line(names: &[String], h: &Hypothesis) -> String {
    let lines = h.inputs.iter().flat_map(|i| input_lines(names, i));
    let lines = lines.map(|l| match h.unseen {
        Some(card) => with_card_to_name(&l, card),
        None => l,
    });
    lines.collect::<Vec<_>>().join(" / ")
}

fn with_card_to_name(line: &str, card: Card) -> String {
    let code = card.to_string();
    line.split(' ').map(|w| if w == code { CARD_TO_NAME } else { w }).collect::<Vec<_>>().join(" ")
}

/// The card the operator named in `answer` for `candidate` (a line with cards left to name):
/// `None` when the answer is not this candidate, an error when what stands in the card's place
/// is no card or not one card throughout.
pub fn named_card(candidate: &str, answer: &str) -> Option<Result<Card, String>> {
    let want: Vec<&str> = candidate.split_whitespace().collect();
    let got: Vec<&str> = answer.split_whitespace().collect();
    if want.len() != got.len() || !want.contains(&CARD_TO_NAME) {
        return None;
    }
    let mut code: Option<&str> = None;
    for (w, g) in want.iter().zip(&got) {
        if *w != CARD_TO_NAME {
            if w != g {
                return None;
            }
        } else if code.is_some_and(|c| c != *g) {
            return Some(Err(format!("'{}' names two cards for the one drawn", answer.trim())));
        } else {
            code = Some(g);
        }
    }
    let code = code?;
    Some(code.parse::<Card>().map_err(|e| format!("'{code}' is no card: {e}")))
}

/// The explanation `h` with its stand-in card replaced by `card`, replayed from the committed
/// game; the engine's reason when it refuses (the card was seen elsewhere).
pub fn replay(committed: &GameState, h: &Hypothesis, card: Card) -> Result<Hypothesis, String> {
    let from = h.unseen.ok_or_else(|| "no card is left to name".to_string())?;
    h.inputs
        .iter()
        .map(|i| renamed(i, from, card))
        .try_fold(Hypothesis::new(committed.clone()), |node, input| step_or_refusal(&node, input))
}

/// `input` with every mention of card `from` made `to`.
fn renamed(input: &Input, from: Card, to: Card) -> Input {
    let c = |card: Card| if card == from { to } else { card };
    match input.clone() {
        Input::Act { player, action } => {
            let action = match action {
                Action::Attack { with, defender, position } => Action::Attack { with: c(with), defender, position },
                Action::Steal { with, victim, target } => Action::Steal { with: c(with), victim, target: c(target) },
                Action::Shield { diamond, position } => Action::Shield { diamond: c(diamond), position },
                Action::Enhance { heart, target } => Action::Enhance { heart: c(heart), target: c(target) },
                Action::Discard(card) => Action::Discard(c(card)),
                other @ (Action::Draw | Action::RedReset | Action::EndTurn) => other,
            };
            Input::Act { player, action }
        }
        Input::Observe(Observation::Drawn { player, card }) => {
            Input::Observe(Observation::Drawn { player, card: c(card) })
        }
        Input::Observe(Observation::Revealed { player, position, card }) => {
            Input::Observe(Observation::Revealed { player, position, card: c(card) })
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_named_must_be_one_card_in_every_place_left_to_name() {
        let candidate = "Bob drew ? / Bob discard ? / Carol end";
        let card = named_card(candidate, "Bob drew 3H / Bob discard 3H / Carol end");
        assert_eq!(card, Some(Ok("3H".parse().unwrap())));
        assert!(matches!(named_card(candidate, "Bob drew 3H / Bob discard 4H / Carol end"), Some(Err(_))));
        assert!(matches!(named_card(candidate, "Bob drew XX / Bob discard XX / Carol end"), Some(Err(_))));
        assert_eq!(named_card(candidate, "Bob drew 3H / Bob discard 3H / Alice end"), None);
        assert_eq!(named_card("Carol end", "Carol end"), None);
    }

    #[test]
    fn the_stand_in_is_written_as_the_card_left_to_name() {
        let card: Card = "2C".parse().unwrap();
        assert_eq!(with_card_to_name("Bob discard 2C", card), "Bob discard ?");
        assert_eq!(with_card_to_name("Bob enhance 2H 2C", card), "Bob enhance 2H ?");
    }
}
