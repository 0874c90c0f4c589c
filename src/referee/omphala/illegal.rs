//! Moves a hand can make that the rules refuse. When no legal input explains the table, each
//! move a player could physically have made (a card of their Back Row laid on another card,
//! an attack, a steal, a card taken from the deck) is carried out on a copy of the rows as if it
//! were allowed, and compared with the view. One that matches is reported with the rule the
//! engine cites, and the game stays as it was.

use super::expect::{distance, expected};
use crate::cards::Suit;
use crate::rules::omphala::notation::format_action;
use crate::rules::omphala::state::Entity;
use crate::rules::omphala::{Action, GameState, check};
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
    for seat in 0..state.players.len() {
        for (action, moved) in physical_moves(state, seat, shown_discard(state, view)) {
            if !shows(view, seat, &action, &moved) {
                continue;
            }
            let text = format_action(names, seat, &action);
            return match check(state, seat, &action) {
                Err(illegal) => Some(Found { seat, text, rule: illegal.rule, sentence: illegal.message }),
                // A legal move would have been found by the search; nothing to report here.
                Ok(()) => None,
            };
        }
        if let Some(found) = foreign_shield(state, view, names, seat) {
            return Some(found);
        }
        if let Some(found) = draw_out_of_turn(state, view, names, seat) {
            return Some(found);
        }
    }
    None
}

/// Whether `view` is the table after `seat`'s `action`. A card laid on a Front Row card may lie
/// face down, as a shield does, or face up, as the Heart or black card it is.
fn shows(view: &TableView, seat: usize, action: &Action, moved: &GameState) -> bool {
    let mut table = expected(moved);
    if distance(&table, view) == 0 {
        return true;
    }
    let Action::Shield { position, .. } = action else {
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

/// Every move of `seat`'s Back Row cards, with the rows as they would lie after it. `unseen_top`
/// is the discard pile's top when the game has never seen that card: the identity of an unknown
/// Front Row card destroyed at once by an attack that never asked for its reveal.
fn physical_moves(state: &GameState, seat: usize, unseen_top: Option<crate::cards::Card>) -> Vec<(Action, GameState)> {
    let mut out = Vec::new();
    let me = &state.players[seat];
    let cards: Vec<_> = me.back.iter().filter_map(|e| e.card).collect();
    for &card in &cards {
        for &target in cards.iter().filter(|&&t| t != card) {
            if let Some(moved) = lay_on_back(state, seat, card, target) {
                out.push((Action::Enhance { heart: card, target }, moved));
            }
        }
        for position in 0..me.front.len() {
            if let Some(moved) = lay_on_front(state, seat, card, seat, position) {
                out.push((Action::Shield { diamond: card, position }, moved));
            }
        }
        for (other, player) in state.players.iter().enumerate().filter(|(o, _)| *o != seat) {
            for position in 0..player.front.len() {
                if let Some(moved) = attack(state, seat, card, other, position, unseen_top) {
                    out.push((Action::Attack { with: card, defender: other, position }, moved));
                }
            }
            for target in player.back.iter().filter_map(|e| e.card) {
                if let Some(moved) = steal(state, seat, card, other, target) {
                    out.push((Action::Steal { with: card, victim: other, target }, moved));
                }
            }
        }
    }
    out
}

fn take(state: &mut GameState, seat: usize, card: crate::cards::Card) -> Option<Entity> {
    let p = &mut state.players[seat];
    p.back_index(card).map(|i| p.back.remove(i))
}

fn lay_on_back(
    state: &GameState,
    seat: usize,
    card: crate::cards::Card,
    target: crate::cards::Card,
) -> Option<GameState> {
    let mut moved = state.clone();
    let piece = take(&mut moved, seat, card)?;
    let p = &mut moved.players[seat];
    let i = p.back_index(target)?;
    if piece.modifier.is_some() || p.back[i].modifier.is_some() {
        return None;
    }
    p.back[i].modifier = piece.card;
    Some(moved)
}

fn lay_on_front(
    state: &GameState,
    seat: usize,
    card: crate::cards::Card,
    owner: usize,
    position: usize,
) -> Option<GameState> {
    let mut moved = state.clone();
    let piece = take(&mut moved, seat, card)?;
    let target = moved.players[owner].front.get_mut(position)?;
    if piece.modifier.is_some() || target.modifier.is_some() {
        return None;
    }
    target.modifier = piece.card;
    Some(moved)
}

/// An attack carried out as if it succeeded: on a target whose identity the table knows, or on
/// an unknown one whose card now lies on top of the discard pile (`unseen_top`) or under its
/// shield there. An unknown target revealed first is a legal attack's start, which the legal
/// search covers.
fn attack(
    state: &GameState,
    seat: usize,
    card: crate::cards::Card,
    defender: usize,
    position: usize,
    unseen_top: Option<crate::cards::Card>,
) -> Option<GameState> {
    let mut moved = state.clone();
    let attacker = take(&mut moved, seat, card)?;
    let target = moved.players[defender].front.get(position)?;
    let discarded = match (target.card, target.modifier, unseen_top) {
        (Some(_), _, _) => target.known_cards().collect(),
        (None, None, top) => vec![top?],
        // An unknown base under its shield: on top of the pile it shows itself; under the
        // shield it stays unknown, and only the pile's top is ever compared.
        (None, Some(shield), Some(top)) => vec![shield, top],
        (None, Some(shield), None) => vec![shield],
    };
    moved.players[defender].front.remove(position);
    moved.to_discard(discarded);
    moved.players[seat].front.push(attacker);
    Some(moved)
}

fn steal(
    state: &GameState,
    seat: usize,
    card: crate::cards::Card,
    victim: usize,
    target: crate::cards::Card,
) -> Option<GameState> {
    let mut moved = state.clone();
    let thief = take(&mut moved, seat, card)?;
    let stolen = take(&mut moved, victim, target)?;
    moved.players[seat].back.push(stolen);
    moved.players[seat].front.push(thief);
    Some(moved)
}

/// A Diamond laid on another player's Front Row: the notation has no line for it (a shield
/// names only the player's own positions), so it is named here.
fn foreign_shield(state: &GameState, view: &TableView, names: &[String], seat: usize) -> Option<Found> {
    let me = &state.players[seat];
    for card in me.back.iter().filter_map(|e| e.card) {
        for (owner, player) in state.players.iter().enumerate().filter(|(o, _)| *o != seat) {
            for position in 0..player.front.len() {
                let Some(moved) = lay_on_front(state, seat, card, owner, position) else { continue };
                if distance(&expected(&moved), view) != 0 {
                    continue;
                }
                let name = |s: usize| names.get(s).map_or("?", String::as_str).to_string();
                let sentence = if card.suit == Suit::Diamonds {
                    format!(
                        "A Diamond shields one of its owner's own Front Row entities, never another player's: {card} lies on {}'s Front Row.",
                        name(owner)
                    )
                } else {
                    format!(
                        "Only a Diamond can shield, and only its owner's own Front Row: {card} lies on {}'s.",
                        name(owner)
                    )
                };
                return Some(Found {
                    seat,
                    text: format!("{} shield {card} {} {}", name(seat), name(owner), position + 1),
                    rule: "shield-own-front-row",
                    sentence,
                });
            }
        }
    }
    None
}

/// A card taken from the deck into `seat`'s Back Row when the rules give it no draw (another
/// player's turn, both actions used): the view shows one new card there and nothing else new.
fn draw_out_of_turn(state: &GameState, view: &TableView, names: &[String], seat: usize) -> Option<Found> {
    let seen = state.seen_cards();
    let shown = view.seats.get(seat)?.back.iter().filter_map(|e| e.base.shown());
    for card in shown.filter(|c| seen & (1u64 << c.index()) == 0) {
        let mut moved = state.clone();
        moved.players[seat].back.push(Entity::known(card));
        if distance(&expected(&moved), view) != 0 {
            continue;
        }
        let text = format_action(names, seat, &Action::Draw);
        return check(state, seat, &Action::Draw).err().map(|illegal| Found {
            seat,
            text,
            rule: illegal.rule,
            sentence: illegal.message,
        });
    }
    None
}
