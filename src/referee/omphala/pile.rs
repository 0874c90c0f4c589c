//! What the discard pile was seen to show since the last commit. A discard is laid on the pile
//! face up, in sight: one the pile never showed, while it looks as it did before (its old top,
//! or a card under it, read there), is no more than a card gone from a row. The row finder
//! misses a shield laid face down now and then, and a Diamond shielded unseen looks just like a
//! discard the pile hides; so such a discard is held, not committed, and put to the operator
//! when the pile goes on not showing it.

use super::expect::pile_tops;
use crate::cards::Card;
use crate::rules::omphala::{Action, GameState, Input};
use crate::table::TableView;

/// The cards read on the pile's top since the last commit, and the discard held meanwhile.
#[derive(Clone, Debug, Default)]
pub struct PileWatch {
    read: Vec<Card>,
    held: Option<Held>,
}

/// A discard held for want of being seen on the pile, since `since` (ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    pub card: Card,
    pub since: u64,
}

impl PileWatch {
    /// Takes in the card a view reads on the pile's top.
    pub fn see(&mut self, view: &TableView) {
        if let Some(top) = top_of(view)
            && !self.read.contains(&top)
        {
            self.read.push(top);
        }
    }

    /// The game changed: what the pile showed before says nothing of the moves to come.
    pub fn committed(&mut self) {
        self.read.clear();
        self.held = None;
    }

    /// The operator says `card` was discarded: it stands as seen.
    pub fn confirm(&mut self, card: Card) {
        if !self.read.contains(&card) {
            self.read.push(card);
        }
        self.held = None;
    }

    /// The first discard of `inputs` the pile has not shown while it looked as `committed`
    /// left it (`view` included), or none. Held from `at` on, the first time it is found.
    pub fn hold(&mut self, committed: &GameState, inputs: &[Input], view: &TableView, at: u64) -> Option<Card> {
        let card = self.unseen_discard(committed, inputs, view);
        self.held = match (card, self.held) {
            (Some(card), Some(held)) if held.card == card => Some(held),
            (Some(card), _) => Some(Held { card, since: at }),
            (None, _) => None,
        };
        card
    }

    /// The discard held, if any.
    pub fn held(&self) -> Option<Held> {
        self.held
    }

    fn unseen_discard(&self, committed: &GameState, inputs: &[Input], view: &TableView) -> Option<Card> {
        let read: Vec<Card> = self.read.iter().copied().chain(top_of(view)).collect();
        // A card of the same rank is the card read in another suit (`expect::suit_misread`).
        let shown = |card: Card| read.iter().any(|r| r.rank == card.rank);
        // A card the pile did not show before (a card come on top, or the old top misread): the
        // pile changed, and a discard may lie under what came on top of it.
        let before = pile_tops(committed);
        if read.iter().any(|r| !before.contains(r)) {
            return None;
        }
        inputs.iter().find_map(|input| match input {
            Input::Act { action: Action::Discard(card), .. } if !shown(*card) => Some(*card),
            _ => None,
        })
    }
}

/// The card read on the pile's top, face up.
fn top_of(view: &TableView) -> Option<Card> {
    view.discard.and_then(|c| c.shown())
}

/// The inputs of `inputs` up to and including the discard of `card`.
pub fn through_discard(inputs: &[Input], card: Card) -> &[Input] {
    let end = inputs.iter().position(|i| is_discard_of(i, card)).map_or(inputs.len(), |k| k + 1);
    &inputs[..end]
}

/// Whether `input` discards `card`.
pub fn is_discard_of(input: &Input, card: Card) -> bool {
    matches!(input, Input::Act { action: Action::Discard(c), .. } if *c == card)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Pt;
    use crate::rules::omphala::RuleOptions;
    use crate::table::CardView;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    fn pile_showing(top: &str) -> TableView {
        TableView { discard: Some(CardView::up(card(top), Pt::new(0.0, 0.0))), ..TableView::default() }
    }

    #[test]
    fn a_discard_is_held_only_while_the_pile_looks_as_it_did() {
        let mut state = GameState::new(RuleOptions::default());
        state.discard = vec![card("2D"), card("QC")];
        state.discarded_together = 1;
        let inputs = [Input::Act { player: 1, action: Action::Discard(card("8D")) }];
        let mut pile = PileWatch::default();
        // The old top read, then the card under it (a pile lies askew): held from the first.
        for (at, top) in [(0, "QC"), (500, "2D")] {
            pile.see(&pile_showing(top));
            assert_eq!(pile.hold(&state, &inputs, &pile_showing(top), at), Some(card("8D")), "{top}");
        }
        assert_eq!(pile.held(), Some(Held { card: card("8D"), since: 0 }));
        // Read in another suit, it is the card put there.
        assert_eq!(pile.hold(&state, &inputs, &pile_showing("8H"), 900), None);
        assert_eq!(pile.held(), None);
        // A card the pile did not show before came on top: the discard may lie under it.
        let mut pile = PileWatch::default();
        pile.see(&pile_showing("KS"));
        assert_eq!(pile.hold(&state, &inputs, &pile_showing("QC"), 0), None);
        // Said by the operator, it stands as seen.
        let mut pile = PileWatch::default();
        pile.confirm(card("8D"));
        assert_eq!(pile.hold(&state, &inputs, &pile_showing("QC"), 0), None);
    }
}
