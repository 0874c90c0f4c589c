//! Moves a hand can make that the rules refuse. When no legal input explains the table, each
//! move a player could physically have made (`rules::omphala::hand`: a card of their Back Row laid
//! on another card, an attack, a steal, a card taken from the deck) is carried out by the rules
//! on a copy of the rows as if it were allowed, and compared with the view. One that matches is
//! reported with the rule the rules cite, and the game stays as it was.

use super::expect::{distance, expected};
use crate::rules::omphala::hand::{HandMove, carried_out, judge, text};
use crate::rules::omphala::{Action, GameState};
use crate::table::TableView;

/// An illegal move the table shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub seat: usize,
    /// The move in record notation.
    pub text: String,
    pub rule: &'static str,
    pub sentence: String,
}

/// The illegal move that turns `state`'s table into `view`, if one does.
pub fn explain(state: &GameState, view: &TableView, names: &[String]) -> Option<Found> {
    let unseen_top = shown_discard(state, view);
    for seat in 0..state.players.len() {
        for mv in laid_and_played(state, seat) {
            let Some(moved) = carried_out(state, seat, &mv, unseen_top, None) else { continue };
            if !shows(view, seat, &mv, &moved) {
                continue;
            }
            // A legal move would have been found by the search; nothing to report here.
            return judge(state, seat, &mv).err().map(|illegal| found(names, seat, &mv, illegal));
        }
        for mv in laid_on_others_rows(state, seat) {
            let Some(moved) = carried_out(state, seat, &mv, None, None) else { continue };
            if distance(&expected(&moved), view) == 0 {
                return judge(state, seat, &mv).err().map(|illegal| found(names, seat, &mv, illegal));
            }
        }
        if let Some(found) = draw_out_of_turn(state, view, names, seat) {
            return Some(found);
        }
    }
    None
}

fn found(names: &[String], seat: usize, mv: &HandMove, illegal: crate::rules::omphala::Illegal) -> Found {
    Found { seat, text: text(names, seat, mv), rule: illegal.rule, sentence: illegal.message }
}

/// Whether `view` is the table after `seat`'s move. A card laid on a Front Row card may lie
/// face down, as a shield does, or face up, as the Heart or black card it is.
fn shows(view: &TableView, seat: usize, mv: &HandMove, moved: &GameState) -> bool {
    let mut table = expected(moved);
    if distance(&table, view) == 0 {
        return true;
    }
    let HandMove::Act(Action::Shield { position, .. }) = mv else {
        return false;
    };
    let Some(modifier) =
        table.seats.get_mut(seat).and_then(|s| s.front.get_mut(*position)).and_then(|e| e.modifier.as_mut())
    else {
        return false;
    };
    modifier.face = crate::table::Face::Up;
    distance(&table, view) == 0
}

/// The card on top of the discard pile in `view` when the game has never seen it: a Front Row
/// card that nobody had seen, just put there.
fn shown_discard(state: &GameState, view: &TableView) -> Option<crate::cards::Card> {
    let card = view.discard.filter(|c| c.face == crate::table::Face::Up)?.card?;
    (state.seen_cards() & (1u64 << card.index()) == 0).then_some(card)
}

/// Every move of `seat`'s Back Row cards the notation names: each card laid on another of the
/// row, on one of the player's own Front Row entities, or played against another player's rows.
fn laid_and_played(state: &GameState, seat: usize) -> Vec<HandMove> {
    let mut out = Vec::new();
    let me = &state.players[seat];
    let cards: Vec<_> = me.back.iter().filter_map(|e| e.card).collect();
    for &card in &cards {
        for &target in cards.iter().filter(|&&t| t != card) {
            out.push(HandMove::Act(Action::Enhance { heart: card, target }));
        }
        for position in 0..me.front.len() {
            out.push(HandMove::Act(Action::Shield { diamond: card, position }));
        }
        for (other, player) in state.players.iter().enumerate().filter(|(o, _)| *o != seat) {
            for position in 0..player.front.len() {
                out.push(HandMove::Act(Action::Attack { with: card, defender: other, position }));
            }
            for target in player.back.iter().filter_map(|e| e.card) {
                out.push(HandMove::Act(Action::Steal { with: card, victim: other, target }));
            }
        }
    }
    out
}

/// Every card of `seat`'s Back Row laid on another player's Front Row entity.
fn laid_on_others_rows(state: &GameState, seat: usize) -> Vec<HandMove> {
    let mut out = Vec::new();
    for card in state.players[seat].back.iter().filter_map(|e| e.card) {
        for (owner, player) in state.players.iter().enumerate().filter(|(o, _)| *o != seat) {
            for position in 0..player.front.len() {
                out.push(HandMove::LaidOnOthersRow { card, owner, position });
            }
        }
    }
    out
}

/// A card taken from the deck into `seat`'s Back Row when the rules give it no draw (another
/// player's turn, both actions used): the view shows one new card there and nothing else new.
fn draw_out_of_turn(state: &GameState, view: &TableView, names: &[String], seat: usize) -> Option<Found> {
    let seen = state.seen_cards();
    let shown = view.seats.get(seat)?.back.iter().filter_map(|e| e.base.shown());
    let draw = HandMove::Act(Action::Draw);
    for card in shown.filter(|c| seen & (1u64 << c.index()) == 0) {
        let Some(moved) = carried_out(state, seat, &draw, None, Some(card)) else { continue };
        if distance(&expected(&moved), view) != 0 {
            continue;
        }
        return judge(state, seat, &draw).err().map(|illegal| found(names, seat, &draw, illegal));
    }
    None
}
