//! The live table as the page for the room shows it (`room::RoomView`): made from the parts of
//! what the referee thread snapshots for the window, or of a headless session, so both serve
//! the same.

use super::omphala::Said;
use crate::referee::Tone;
use crate::referee::minigame::Event as MiniGameEvent;
use crate::referee::omphala::RefereeEvent;
use crate::room::view::RULINGS_SHOWN;
use crate::room::{RoomView, Ruling, Standing};
use crate::rules::omphala::GameState;
use crate::rules::omphala::score::{leaders, scores};
use crate::symbols::games::GameKind;

/// The page's view of an Omphala game: the Front Row counts (or the final standings), whose turn,
/// the rulings, and what the referee waits for.
pub fn of_omphala(names: &[String], state: Option<&GameState>, log: &[Said]) -> RoomView {
    let name = |seat: usize| names.get(seat).cloned().unwrap_or_else(|| format!("P{}", seat + 1));
    let over = state.is_some_and(GameState::is_over);
    let standings = state.map_or_else(Vec::new, |state| standings_of(state, &name));
    let rulings: Vec<&Said> = log.iter().filter(|s| is_ruling(&s.event)).collect();
    RoomView {
        game: format!("Omphala: {}", names.join(", ")),
        turn: state.filter(|s| !s.is_over() && !s.players.is_empty()).map(|s| name(s.turn.player)),
        over,
        standings,
        status: status_of(log),
        rulings: rulings[rulings.len().saturating_sub(RULINGS_SHOWN)..].iter().map(|s| ruling(s)).collect(),
        last_frame: rulings.last().map(|s| s.event.at().frame),
    }
}

fn standings_of(state: &GameState, name: &dyn Fn(usize) -> String) -> Vec<Standing> {
    let now = scores(&state.players);
    let (order, winners) = match state.standings() {
        Some(end) => (end.scores.clone(), end.winners.clone()),
        None => {
            let best = leaders(&now);
            // Nobody leads an empty table.
            let best = if now.iter().all(|s| s.cards == 0) { Vec::new() } else { best };
            (now, best)
        }
    };
    order
        .iter()
        .map(|s| Standing {
            player: name(s.player),
            score: format!("{} Front Row card{}", s.cards, if s.cards == 1 { "" } else { "s" }),
            leads: winners.contains(&s.player),
        })
        .collect()
}

/// A ruling: a move committed or refused, a desync, the end.
fn is_ruling(event: &RefereeEvent) -> bool {
    matches!(
        event,
        RefereeEvent::Input { .. }
            | RefereeEvent::Illegal { .. }
            | RefereeEvent::Desync { .. }
            | RefereeEvent::Standings { .. }
    )
}

fn ruling(said: &Said) -> Ruling {
    let (tone, text) = said.event.words(said.answered_by_script.as_deref());
    Ruling { tone, text, frame: said.event.at().frame }
}

/// What the referee needs now: the last question, prompt, illegal move or desync, unless a
/// ruling or a restored table came after it.
fn status_of(log: &[Said]) -> Option<Ruling> {
    for said in log.iter().rev() {
        match &said.event {
            RefereeEvent::Input { .. } | RefereeEvent::Restored { .. } | RefereeEvent::Standings { .. } => {
                return None;
            }
            RefereeEvent::Confirm { .. } if said.answered_by_script.is_some() => {}
            RefereeEvent::Illegal { .. }
            | RefereeEvent::Desync { .. }
            | RefereeEvent::Prompt { .. }
            | RefereeEvent::Confirm { .. } => return Some(ruling(said)),
            RefereeEvent::Waiting { .. } | RefereeEvent::Note { .. } => {}
        }
    }
    None
}

/// The page's view of a mini-game of `kind` between `names`: the places so far (`ranking`, first
/// to last, each the seats sharing it), the verdicts and moves of its `log`.
pub fn of_minigame(
    kind: GameKind,
    names: &[String],
    over: bool,
    ranking: &[Vec<usize>],
    log: &[MiniGameEvent],
) -> RoomView {
    let name = |seat: usize| names.get(seat).cloned().unwrap_or_else(|| format!("P{}", seat + 1));
    let standings = ranking
        .iter()
        .enumerate()
        .flat_map(|(place, seats)| seats.iter().map(move |&seat| (place, seat)))
        .map(|(place, seat)| Standing { player: name(seat), score: ordinal(place + 1), leads: place == 0 })
        .collect();
    let rulings: Vec<(Tone, String, u64)> =
        log.iter().filter_map(|e| e.words().map(|(tone, text)| (tone, text, ms_of(e)))).collect();
    RoomView {
        game: format!("{kind}: {}", names.join(", ")),
        turn: None,
        over,
        standings,
        status: None,
        rulings: rulings[rulings.len().saturating_sub(RULINGS_SHOWN)..]
            .iter()
            .map(|(tone, text, ms)| Ruling { tone: *tone, text: text.clone(), frame: *ms })
            .collect(),
        last_frame: rulings.last().map(|r| r.2),
    }
}

/// A mini-game event's time (its events carry milliseconds, not frames).
fn ms_of(event: &MiniGameEvent) -> u64 {
    match event {
        MiniGameEvent::Verdict { ms, .. }
        | MiniGameEvent::Moved { ms, .. }
        | MiniGameEvent::WrongMove { ms, .. }
        | MiniGameEvent::Emptied { ms, .. }
        | MiniGameEvent::Round { ms, .. }
        | MiniGameEvent::Over { ms, .. } => *ms,
        MiniGameEvent::Start { .. } | MiniGameEvent::Piles { .. } | MiniGameEvent::Frame { .. } => 0,
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::omphala::Moment;

    fn said(event: RefereeEvent) -> Said {
        Said { event, answered_by_script: None }
    }

    #[test]
    fn the_page_shows_the_last_rulings_and_what_the_referee_waits_for() {
        let at = |frame| Moment { frame, ms: frame * 33 };
        let log = vec![
            said(RefereeEvent::Input {
                seat: Some(0),
                record: vec!["Alice draw".into()],
                verdict: "ok".into(),
                at: at(10),
            }),
            said(RefereeEvent::Desync { differences: vec!["Bob front 2: 4C".into()], at: at(20) }),
            said(RefereeEvent::Waiting { differences: vec![], at: at(21) }),
        ];
        let names = ["Alice".to_string(), "Bob".to_string()];
        let view = of_omphala(&names, None, &log);
        assert_eq!(view.last_frame, Some(20));
        assert_eq!(view.rulings.len(), 2);
        assert_eq!(view.status.as_ref().map(|s| s.tone), Some(Tone::Bad));
        let mut after = log.clone();
        after.push(said(RefereeEvent::Restored { at: at(30) }));
        assert_eq!(of_omphala(&names, None, &after).status, None);
        assert_eq!(
            [ordinal(1), ordinal(2), ordinal(3), ordinal(11), ordinal(22)],
            ["1st", "2nd", "3rd", "11th", "22nd"]
        );
    }
}
