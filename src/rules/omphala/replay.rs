//! Judging a whole record, line by line, and saying in words what happened: what the
//! `replay` command prints and what the record tests check.

use super::engine::{Illegal, apply};
use super::input::{Event, Outcome};
use super::notation::Record;
use super::score::Standings;
pub use super::state::entity_text;
use super::state::{GameState, Phase, Seat};

/// The ruling on one line of the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineVerdict {
    /// 1-based line number.
    pub line: usize,
    pub events: Vec<Event>,
}

/// A record judged up to its end or its first illegal line.
#[derive(Clone, Debug)]
pub struct Replay {
    pub state: GameState,
    pub verdicts: Vec<LineVerdict>,
    /// The first illegal line (1-based) and why; nothing after it is judged.
    pub illegal: Option<(usize, Illegal)>,
}

/// Feeds every input of `record` to a fresh game, stopping at the first illegal one.
pub fn replay(record: &Record) -> Replay {
    let mut state = GameState::new(record.options());
    let mut verdicts = Vec::new();
    for (index, input) in record.inputs() {
        match apply(&mut state, input) {
            Ok(events) => verdicts.push(LineVerdict { line: index + 1, events }),
            Err(illegal) => {
                return Replay { state, verdicts, illegal: Some((index + 1, illegal)) };
            }
        }
    }
    Replay { state, verdicts, illegal: None }
}

/// One event in words, using the state's player names.
pub fn describe(state: &GameState, event: &Event) -> String {
    let n = |seat: Seat| state.name(seat).to_string();
    match event {
        Event::Dealt { players, first, deck } => {
            format!("dealt to {players} players, {} plays first, {deck} cards in the deck", n(*first))
        }
        Event::TurnBegan { player, number } => format!("turn {number}: {}", n(*player)),
        Event::DrawNeeded { player } => format!("{} draws (waiting to see the card)", n(*player)),
        Event::Drew { player, card } => format!("{} drew {card}", n(*player)),
        Event::DrawSkipped { player } => {
            format!("{}'s draw does nothing: the deck is empty", n(*player))
        }
        Event::DiscardOwed { player } => format!("{}'s Back Row holds 8: discard one", n(*player)),
        Event::Discarded { player, entity } => {
            format!("{} discarded {}", n(*player), entity_text(entity))
        }
        Event::RevealNeeded { player, position } => {
            format!("reveal needed: {}'s Front Row entity {}", n(*player), position + 1)
        }
        Event::Revealed { player, position, card } => {
            format!("{}'s Front Row entity {} is {card}", n(*player), position + 1)
        }
        Event::Attacked { with, power, defender, position, target, target_power, outcome, .. } => {
            let verdict = match outcome {
                Outcome::Succeeded => "destroyed",
                Outcome::Failed => "attack failed, the target is turned face down, its power now known",
            };
            format!(
                "{} ({power}) attacks {}'s entity {} {} ({target_power}): {verdict}",
                entity_text(with),
                n(*defender),
                position + 1,
                entity_text(target)
            )
        }
        Event::AttackerDiscarded { player, entity } => {
            format!("the failed attacker {} of {} is discarded", entity_text(entity), n(*player))
        }
        Event::Stole { with, power, victim, target, target_power, .. } => format!(
            "{} ({power}) steals {} ({target_power}) from {}",
            entity_text(with),
            entity_text(target),
            n(*victim)
        ),
        Event::Retired { player, entity, position } => format!(
            "{} retires face down to {}'s Front Row, position {}",
            entity_text(entity),
            n(*player),
            position + 1
        ),
        Event::Shielded { player, diamond, position } => {
            format!("{diamond} shields {}'s Front Row entity {}", n(*player), position + 1)
        }
        Event::Enhanced { heart, target, .. } => format!("{heart} enhances {target}"),
        Event::RedReset { player, cards } => {
            format!("{} red reset: {} cards shuffled into the deck, draw 5", n(*player), cards.len())
        }
        Event::TurnEnded { player } => format!("{} ends the turn", n(*player)),
        Event::GameOver { by_agreement: true } => "game over by agreement".to_string(),
        Event::GameOver { by_agreement: false } => "game over: nobody has a possible move".to_string(),
        Event::TieBreakRevealNeeded { player, position } => {
            format!("tie-break: reveal {}'s Front Row entity {}", n(*player), position + 1)
        }
        Event::BattleStep(step) => {
            let shown: Vec<String> = step
                .entries
                .iter()
                .map(|e| format!("{} {} ({})", n(e.player), entity_text(&e.entity), e.power))
                .collect();
            let destroyed: Vec<String> = step.destroyed.iter().map(|&p| n(p)).collect();
            let destroyed = if destroyed.is_empty() { "none".to_string() } else { destroyed.join(", ") };
            format!("battle position {}: {}; destroyed: {destroyed}", step.position + 1, shown.join(" vs "))
        }
        Event::Finished(standings) => winner_line(state, standings),
        Event::Corrected(crate::rules::omphala::Correction::Turn(player)) => {
            format!("corrected by the operator: {} is to play", n(*player))
        }
        Event::Corrected(crate::rules::omphala::Correction::DiscardTop(card)) => {
            format!("corrected by the operator: {card} tops the discard pile")
        }
        Event::Corrected(crate::rules::omphala::Correction::Rows { player, .. }) => {
            format!("corrected by the operator: {}'s rows as the table shows them", n(*player))
        }
    }
}

/// The verdict on one accepted line: its events in words, joined by "; " (the winner is left
/// to `standings_lines`).
pub fn verdict_text(state: &GameState, events: &[Event]) -> String {
    let said: Vec<String> =
        events.iter().filter(|e| !matches!(e, Event::Finished(_))).map(|e| describe(state, e)).collect();
    said.join("; ")
}

fn winner_line(state: &GameState, standings: &Standings) -> String {
    let names: Vec<&str> = standings.winners.iter().map(|&w| state.name(w)).collect();
    let noun = if names.len() > 1 { "winners" } else { "winner" };
    format!("{noun}: {} (decided by {})", names.join(", "), standings.decided_by.label())
}

/// The standings with every tie-break detail, one line each.
pub fn standings_lines(state: &GameState, standings: &Standings) -> Vec<String> {
    let mut lines = vec!["standings:".to_string()];
    for (rank, score) in standings.scores.iter().enumerate() {
        lines.push(format!(
            "  {}. {}: {} Front Row cards ({} entities)",
            rank + 1,
            state.name(score.player),
            score.cards,
            score.entities
        ));
    }
    if let Some(report) = &standings.tie_break {
        let tied: Vec<&str> = report.players.iter().map(|&p| state.name(p)).collect();
        lines.push(format!("tie-break between {}:", tied.join(", ")));
        for step in &report.battle {
            lines.push(format!("  {}", describe(state, &Event::BattleStep(step.clone()))));
        }
        if !report.survivors.is_empty() {
            let s: Vec<String> = report.survivors.iter().map(|&(p, k)| format!("{} {k}", state.name(p))).collect();
            lines.push(format!("  survivors: {}", s.join(", ")));
        }
        if !report.totals.is_empty() {
            let t: Vec<String> = report.totals.iter().map(|&(p, k)| format!("{} {k}", state.name(p))).collect();
            lines.push(format!("  total power: {}", t.join(", ")));
        }
    }
    lines.push(winner_line(state, standings));
    lines
}

/// Where an unfinished game stands, in one line.
pub fn progress_line(state: &GameState) -> String {
    match &state.phase {
        Phase::Setup => "the game has not been dealt".to_string(),
        Phase::Playing => format!(
            "game not over: turn {} of {}, {} actions used, {} cards in the deck",
            state.turn.number,
            state.name(state.turn.player),
            state.turn.actions_used,
            state.deck
        ),
        Phase::TieBreak(_) => "game over, tie-break waiting for a reveal".to_string(),
        Phase::Over(_) => "game over".to_string(),
    }
}
