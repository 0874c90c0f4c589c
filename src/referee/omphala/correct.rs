//! The operator brings a lost game back: once the table stays unexplained (a `desync`), they are
//! asked whether the table is right, and whose turn it is. Said so, the game is corrected to the
//! table as the view shows it (`rules::omphala::Correction`), each correction a record line, and
//! refereeing goes on from there. The table the camera cannot fully read (a card unread, a
//! shield the game never knew) cannot be taken; the operator is told which card to show.

use crate::rules::omphala::{Correction, Entity, GameState};
use crate::table::{EntityView, Face, TableView};

/// The start of the candidates that say the table is right; the rest names who is to play.
pub const TABLE_IS_RIGHT: &str = "the table is right,";
/// The candidate that says the players will put the table back as the game has it.
pub const PUT_BACK: &str = "the table will be put back";

/// The candidates of the question put when the referee is lost: the table is right with each
/// player to play (the one whose turn the game has first), or it will be put back.
pub fn candidates(state: &GameState, names: &[String]) -> Vec<String> {
    let n = names.len();
    let mut out: Vec<String> =
        (0..n).map(|k| format!("{TABLE_IS_RIGHT} {} to play", names[(state.turn.player + k) % n])).collect();
    out.push(PUT_BACK.to_string());
    out
}

/// The seat an answer says is to play, when it says the table is right.
pub fn turn_in(answer: &str, names: &[String]) -> Option<usize> {
    let name = answer.trim().strip_prefix(TABLE_IS_RIGHT)?.trim().strip_suffix("to play")?.trim();
    names.iter().position(|n| n == name)
}

/// The corrections that make `state` the table `view` shows, `turn` to play: the rows of each
/// seat that differ, the discard pile's top card, and the turn. `Err` names what the view does
/// not show well enough to take.
pub fn corrections(
    state: &GameState,
    view: &TableView,
    names: &[String],
    turn: usize,
) -> Result<Vec<Correction>, String> {
    if view.seats.len() != state.players.len() {
        return Err(format!("the view shows {} seats, the game has {}", view.seats.len(), state.players.len()));
    }
    let mut out = Vec::new();
    for (player, (seat, known)) in view.seats.iter().zip(&state.players).enumerate() {
        let name = names.get(player).map_or("?", String::as_str);
        let front = seat
            .front
            .iter()
            .enumerate()
            .map(|(k, e)| {
                entity(e, known.front.get(k)).map_err(|why| format!("{name}'s Front Row entity {}: {why}", k + 1))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let back = seat
            .back
            .iter()
            .enumerate()
            .map(|(k, e)| match (e.base.face, entity(e, None)) {
                (Face::Down, _) => Err(format!("{name}'s Back Row card {} lies face down", k + 1)),
                (_, entity) => entity.map_err(|why| format!("{name}'s Back Row card {}: {why}", k + 1)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if front != known.front || back != known.back {
            out.push(Correction::Rows { player, front, back });
        }
    }
    if let Some(top) = view.discard.as_ref().and_then(|c| c.shown())
        && state.discard.last() != Some(&top)
    {
        out.push(Correction::DiscardTop(top));
    }
    out.push(Correction::Turn(turn));
    Ok(out)
}

/// One entity as the view shows it. A face-down card keeps the identity the game knew at its
/// place (a card once seen stays known); a face-down shield must be one the game knew there.
fn entity(view: &EntityView, known: Option<&Entity>) -> Result<Entity, String> {
    let card = match view.base.face {
        Face::Up => Some(view.base.card.ok_or("its card is not read: hold it face up until it is")?),
        Face::Down => known.and_then(|k| k.card),
    };
    let modifier = match &view.modifier {
        None => None,
        Some(m) if m.face == Face::Up => Some(m.card.ok_or("its modifier is not read")?),
        Some(_) => Some(known.and_then(|k| k.modifier).ok_or("its shield was never seen: turn it up to be read")?),
    };
    Ok(Entity { card, modifier })
}
