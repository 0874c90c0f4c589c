//! What a hand can do with the cards, whether or not the rules allow it: a Back Row card laid on
//! another card, an attack, a steal, a card taken from the deck. The referee compares the table
//! with these when no legal input explains it; the rules say which rule each breaks (`judge`)
//! and what each does to the rows (`carried_out`), as `apply` would if it were allowed.

use super::engine::{Illegal, check, check_laid_on_others_row, take_back};
use super::input::Action;
use super::state::{Entity, GameState, Seat};
use crate::cards::Card;

/// Something a hand did with the cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandMove {
    /// An action as the notation writes it.
    Act(Action),
    /// A card of the player's Back Row laid on `owner`'s Front Row entity `position`: another
    /// player's row, which no action of the notation names.
    LaidOnOthersRow { card: Card, owner: Seat, position: usize },
}

/// The rule `seat`'s move breaks, if it breaks one.
pub fn judge(state: &GameState, seat: Seat, mv: &HandMove) -> Result<(), Illegal> {
    match mv {
        HandMove::Act(action) => check(state, seat, action),
        HandMove::LaidOnOthersRow { card, owner, .. } => Err(check_laid_on_others_row(state, *card, *owner)),
    }
}

/// The move in record notation, with the players' `names` (a card laid on another player's
/// row names that player before the position: `Bob shield 5D Alice 2`).
pub fn text(names: &[String], seat: Seat, mv: &HandMove) -> String {
    match mv {
        HandMove::Act(action) => super::notation::format_action(names, seat, action),
        HandMove::LaidOnOthersRow { card, owner, position } => {
            let name = |s: usize| names.get(s).map_or("?", String::as_str).to_string();
            format!("{} shield {card} {} {}", name(seat), name(*owner), position + 1)
        }
    }
}

/// The rows after `seat`'s move as a hand makes it, the rules aside: a card laid on another
/// lies there as its modifier, an attack destroys its target (whose identity, when the table
/// never knew it, is `unseen_top`: the card now on top of the discard pile), a steal takes its
/// target, a card taken from the deck is `drawn`. `None` when the move cannot be made at all
/// (a card not in the row, a modifier already there, an unknown target and no card on the
/// pile to show it).
pub fn carried_out(
    state: &GameState,
    seat: Seat,
    mv: &HandMove,
    unseen_top: Option<Card>,
    drawn: Option<Card>,
) -> Option<GameState> {
    match *mv {
        HandMove::Act(Action::Enhance { heart, target }) => lay_on_back(state, seat, heart, target),
        HandMove::Act(Action::Shield { diamond, position }) => lay_on_front(state, seat, diamond, seat, position),
        HandMove::LaidOnOthersRow { card, owner, position } => lay_on_front(state, seat, card, owner, position),
        HandMove::Act(Action::Attack { with, defender, position }) => {
            attack(state, seat, with, defender, position, unseen_top)
        }
        HandMove::Act(Action::Steal { with, victim, target }) => steal(state, seat, with, victim, target),
        HandMove::Act(Action::Draw) => {
            let mut moved = state.clone();
            moved.players.get_mut(seat)?.back.push(Entity::known(drawn?));
            Some(moved)
        }
        HandMove::Act(_) => None,
    }
}

fn lay_on_back(state: &GameState, seat: Seat, card: Card, target: Card) -> Option<GameState> {
    let mut moved = state.clone();
    let piece = take_back(&mut moved, seat, card)?;
    let p = &mut moved.players[seat];
    let i = p.back_index(target)?;
    if piece.modifier.is_some() || p.back[i].modifier.is_some() {
        return None;
    }
    p.back[i].modifier = piece.card;
    Some(moved)
}

fn lay_on_front(state: &GameState, seat: Seat, card: Card, owner: Seat, position: usize) -> Option<GameState> {
    let mut moved = state.clone();
    let piece = take_back(&mut moved, seat, card)?;
    let target = moved.players.get_mut(owner)?.front.get_mut(position)?;
    if piece.modifier.is_some() || target.modifier.is_some() {
        return None;
    }
    target.modifier = piece.card;
    Some(moved)
}

/// An attack carried out as if it succeeded: on a target whose identity the table knows, or on
/// an unknown one whose card now lies on top of the discard pile (`unseen_top`) or under its
/// shield there. An unknown target revealed first is a legal attack's start.
fn attack(
    state: &GameState,
    seat: Seat,
    card: Card,
    defender: Seat,
    position: usize,
    unseen_top: Option<Card>,
) -> Option<GameState> {
    let mut moved = state.clone();
    let attacker = take_back(&mut moved, seat, card)?;
    let target = moved.players.get(defender)?.front.get(position)?;
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

fn steal(state: &GameState, seat: Seat, card: Card, victim: Seat, target: Card) -> Option<GameState> {
    let mut moved = state.clone();
    let thief = take_back(&mut moved, seat, card)?;
    let stolen = take_back(&mut moved, victim, target)?;
    moved.players[seat].back.push(stolen);
    moved.players[seat].front.push(thief);
    Some(moved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::omphala::input::{Deal, Input, Observation, SeatDeal};
    use crate::rules::omphala::{RuleOptions, apply};

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    /// Two seats dealt, Ann to play: Ann's Back Row 2C 3D 4H 5S 6C, Ben's 7C 8D 9H 10S JC.
    fn dealt() -> GameState {
        let mut state = GameState::new(RuleOptions::default());
        let seat = |name: &str, back: [&str; 5]| SeatDeal {
            name: name.into(),
            front: vec![None, None],
            back: back.map(card).to_vec(),
        };
        let deal = Deal {
            seats: vec![seat("Ann", ["2C", "3D", "4H", "5S", "6C"]), seat("Ben", ["7C", "8D", "9H", "10S", "JC"])],
            first: 0,
        };
        apply(&mut state, Input::Observe(Observation::Deal(deal))).unwrap();
        state
    }

    #[test]
    fn a_diamond_on_another_player_s_row_breaks_the_shield_rule_and_lies_there() {
        let state = dealt();
        let mv = HandMove::LaidOnOthersRow { card: card("3D"), owner: 1, position: 0 };
        let illegal = judge(&state, 0, &mv).unwrap_err();
        assert_eq!(illegal.rule, "shield-own-front-row");
        assert!(illegal.message.contains("3D lies on Ben's Front Row"), "{}", illegal.message);
        let moved = carried_out(&state, 0, &mv, None, None).unwrap();
        assert_eq!(moved.players[1].front[0].modifier, Some(card("3D")));
        assert_eq!(moved.players[0].back.len(), 4);
        assert_eq!(text(&["Ann".into(), "Ben".into()], 0, &mv), "Ann shield 3D Ben 1");
    }

    #[test]
    fn a_legal_shield_is_judged_and_carried_out_as_the_engine_applies_it() {
        let state = dealt();
        let action = Action::Shield { diamond: card("3D"), position: 1 };
        assert!(judge(&state, 0, &HandMove::Act(action)).is_ok());
        let moved = carried_out(&state, 0, &HandMove::Act(action), None, None).unwrap();
        let mut applied = state.clone();
        apply(&mut applied, Input::Act { player: 0, action }).unwrap();
        assert_eq!(moved.players, applied.players);
    }
}
