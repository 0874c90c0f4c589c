//! The operator's correction: when moves were missed that no explanation finds, the operator
//! says the table is right, and the game takes it as it lies. Each seat's rows are set as the
//! table shows them, the discard pile's top card as it shows, and whose turn it is. Cards stay
//! 52: a known card named in a row is taken from wherever the game had it, a known card gone
//! from the rows goes to the discard pile, and the deck holds the rest.

use serde::{Deserialize, Serialize};

use super::state::{DECK_SIZE, Entity, GameState, Pending, Seat, Step, Turn};
use crate::cards::Card;

/// One correction of the game to the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// A seat's two rows as the table shows them (Back Row entities are face up, so known).
    Rows { player: Seat, front: Vec<Entity>, back: Vec<Entity> },
    /// The card on top of the discard pile.
    DiscardTop(Card),
    /// `player` is to play: a turn of theirs begins as the table stands (any draw before it
    /// made).
    Turn(Seat),
}

/// Applies `correction`; `Err` says what is wrong with it (the state is then unchanged).
pub fn apply_correction(state: &mut GameState, correction: &Correction) -> Result<(), String> {
    let mut next = state.clone();
    match correction {
        Correction::Rows { player, front, back } => set_rows(&mut next, *player, front, back)?,
        Correction::DiscardTop(card) => {
            take_anywhere(&mut next, *card, None);
            next.to_discard([*card]);
        }
        Correction::Turn(player) => {
            if *player >= next.players.len() {
                return Err(format!("no seat {}", player + 1));
            }
            let number = next.turn.number + u32::from(next.turn.player != *player);
            next.turn = Turn { player: *player, number, step: Step::Acting, actions_used: 0, draws_owed: 0 };
            next.pending = Pending::Nothing;
        }
    }
    recount_deck(&mut next)?;
    drop_stale_pending(&mut next);
    *state = next;
    Ok(())
}

fn set_rows(state: &mut GameState, player: Seat, front: &[Entity], back: &[Entity]) -> Result<(), String> {
    if player >= state.players.len() {
        return Err(format!("no seat {}", player + 1));
    }
    if let Some(k) = back.iter().position(|e| e.card.is_none()) {
        return Err(format!("Back Row entity {} has no card named: Back Row cards lie face up", k + 1));
    }
    let named: Vec<Card> = front.iter().chain(back).flat_map(Entity::known_cards).collect();
    if let Some(card) = named.iter().enumerate().find_map(|(i, c)| named[..i].contains(c).then_some(*c)) {
        return Err(format!("{card} is named twice"));
    }
    let old = std::mem::take(&mut state.players[player].front)
        .into_iter()
        .chain(std::mem::take(&mut state.players[player].back))
        .collect::<Vec<_>>();
    for card in &named {
        take_anywhere(state, *card, Some(player));
    }
    // A known card that left the rows went to the discard pile (the deck is never shown).
    for card in old.iter().flat_map(Entity::known_cards).filter(|c| !named.contains(c)) {
        if !state.discard.contains(&card) {
            state.to_discard([card]);
        }
    }
    state.players[player].front = front.to_vec();
    state.players[player].back = back.to_vec();
    Ok(())
}

/// Takes a known card from wherever the game has it, other than `except`'s rows (about to be
/// set): an entity whose base it is leaves its row (its modifier to the discard pile), a
/// modifier leaves its entity, a discarded card leaves the pile.
fn take_anywhere(state: &mut GameState, card: Card, except: Option<Seat>) {
    state.discard.retain(|c| *c != card);
    let mut orphans = Vec::new();
    for (seat, p) in state.players.iter_mut().enumerate() {
        if Some(seat) == except {
            continue;
        }
        for row in [&mut p.front, &mut p.back] {
            if let Some(k) = row.iter().position(|e| e.card == Some(card)) {
                orphans.extend(row.remove(k).modifier);
            }
            for e in row.iter_mut().filter(|e| e.modifier == Some(card)) {
                e.modifier = None;
            }
        }
    }
    state.to_discard(orphans);
}

/// The deck holds every card not in a row or on the discard pile.
fn recount_deck(state: &mut GameState) -> Result<(), String> {
    let in_rows: usize = state.players.iter().flat_map(|p| p.front.iter().chain(&p.back)).map(Entity::card_count).sum();
    let shown = in_rows + state.discard.len();
    state.deck =
        DECK_SIZE.checked_sub(shown).ok_or_else(|| format!("{shown} cards in play: a deck has {DECK_SIZE}"))?;
    Ok(())
}

/// What the game waited for that the corrected table no longer holds is not waited for.
fn drop_stale_pending(state: &mut GameState) {
    let stale = match state.pending {
        Pending::Reveal(attack) => {
            let front = &state.players[attack.defender].front;
            front.get(attack.position).is_none_or(|e| e.card.is_some())
                || state.players[attack.attacker].back_index(attack.with).is_none()
        }
        Pending::Discard { player } => state.players[player].back.len() <= super::state::BACK_ROW_LIMIT,
        Pending::DrawnCard { .. } | Pending::Nothing => false,
    };
    if stale {
        state.pending = Pending::Nothing;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::omphala::notation::parse;
    use crate::rules::omphala::replay::replay;
    use crate::rules::omphala::{Input, apply};

    fn state_after(lines: &str) -> GameState {
        let deal = "seat Alice front ? ? back 5H 9D 7S 2C KC\nseat Bob front ? ? back QS 4D 8H 6C 3S\nfirst Alice\n";
        replay(&parse(&format!("{deal}{lines}")).unwrap()).state
    }

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    #[test]
    fn the_table_s_rows_are_taken_and_cards_stay_fifty_two() {
        let mut state = state_after("Alice attack KC Bob 1\nBob revealed 1 2D\n");
        // The table: Alice's 7S went to Bob (a steal nobody saw), Bob's 8H enhances his QS, and
        // Alice's Front Row holds a card more, face down.
        let bob = Correction::Rows {
            player: 1,
            front: vec![Entity::unknown()],
            back: vec![
                Entity { card: Some(card("QS")), modifier: Some(card("8H")) },
                Entity::known(card("4D")),
                Entity::known(card("6C")),
                Entity::known(card("3S")),
                Entity::known(card("7S")),
            ],
        };
        apply(&mut state, Input::Correct(bob)).unwrap();
        assert_eq!(state.card_total(), DECK_SIZE);
        assert!(state.players[0].back_index(card("7S")).is_none(), "taken from Alice's row");
        assert_eq!(state.players[1].back[0].modifier, Some(card("8H")));
        let alice = Correction::Rows {
            player: 0,
            front: vec![Entity::unknown(), Entity::unknown(), Entity::unknown()],
            back: ["5H", "9D", "2C"].iter().map(|c| Entity::known(card(c))).collect(),
        };
        apply(&mut state, Input::Correct(alice)).unwrap();
        assert_eq!(state.card_total(), DECK_SIZE);
        apply(&mut state, Input::Correct(Correction::DiscardTop(card("KC")))).unwrap();
        assert_eq!(state.discard.last(), Some(&card("KC")));
        assert!(state.players.iter().all(|p| p.back_index(card("KC")).is_none()));
        apply(&mut state, Input::Correct(Correction::Turn(1))).unwrap();
        assert_eq!((state.turn.player, state.turn.actions_used), (1, 0));
        assert_eq!(crate::rules::omphala::actor(&state), Some(1));
        assert_eq!(state.card_total(), DECK_SIZE);
    }

    #[test]
    fn a_correction_that_cannot_be_is_refused_and_changes_nothing() {
        let mut state = state_after("");
        let before = state.clone();
        let twice = Correction::Rows { player: 0, front: vec![], back: vec![Entity::known(card("KC")); 2] };
        let e = apply(&mut state, Input::Correct(twice)).unwrap_err();
        assert_eq!(
            (e.rule, e.message.as_str()),
            ("bad-correction", "The correction cannot be taken: KC is named twice.")
        );
        let hidden_back = Correction::Rows { player: 0, front: vec![], back: vec![Entity::unknown()] };
        assert!(apply(&mut state, Input::Correct(hidden_back)).is_err());
        assert!(apply(&mut state, Input::Correct(Correction::Turn(5))).is_err());
        assert_eq!(state, before);
    }
}
