//! The views a perfect camera would settle on while a scripted game is played: after each input,
//! the table as the rules leave it, with an attack's revealed target first shown face up in place
//! and tie-break reveals left face up. The test bed for the referee without any vision, and the
//! ground truth a rendered game is compared with.

use super::expect::{Expected, expected, ideal_view};
use crate::rules::omphala::state::Pending;
use crate::rules::omphala::{GameState, Input, Observation, Phase, RuleOptions, apply};
use crate::table::{Face, TableLayout, TableView};

/// One settled view and the number of inputs applied when it shows.
#[derive(Clone, Debug)]
pub struct ScriptedView {
    pub view: TableView,
    pub inputs_done: usize,
}

/// The views of a game played input by input (consecutive equal views kept once). Stops at the
/// first input the engine refuses, with its index.
pub fn ideal_views(options: RuleOptions, inputs: &[Input]) -> Result<Vec<ScriptedView>, (usize, String)> {
    let mut state = GameState::new(options);
    let mut out: Vec<ScriptedView> = Vec::new();
    let mut layout: Option<TableLayout> = None;
    let mut shown: Vec<(usize, usize, crate::cards::Card)> = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        let before = expected(&state);
        let pending = state.pending;
        apply(&mut state, input.clone()).map_err(|e| (k, e.to_string()))?;
        let layout = layout.get_or_insert_with(|| TableLayout::standard(state.players.len()));
        if let Input::Observe(Observation::Revealed { player, position, card }) = input {
            if let (Phase::Playing, Pending::Reveal(attack)) = (&state.phase, pending) {
                // The attacker slides forward while the target is shown.
                let shown =
                    before.with_front_shown(*player, *position, *card).with_held_out(attack.attacker, attack.with);
                push(&mut out, ideal_view(&shown, layout), k + 1);
            } else {
                shown.push((*player, *position, *card));
            }
        }
        let mut now: Expected = expected(&state);
        for &(player, position, card) in &shown {
            now = now.with_front_shown(player, position, card);
        }
        push(&mut out, ideal_view(&now, layout), k + 1);
    }
    Ok(out)
}

fn push(out: &mut Vec<ScriptedView>, view: TableView, inputs_done: usize) {
    if out.last().is_some_and(|last| last.view == view) {
        if let Some(last) = out.last_mut() {
            last.inputs_done = inputs_done;
        }
        return;
    }
    out.push(ScriptedView { view, inputs_done });
}

/// Face-down cards lose the identity a camera could not follow: what a tracker that lost sight
/// of them would report.
pub fn forget_face_down(view: &mut TableView) {
    for seat in &mut view.seats {
        for e in seat.front.iter_mut().chain(seat.back.iter_mut()) {
            for c in std::iter::once(&mut e.base).chain(e.modifier.as_mut()) {
                if c.face == Face::Down {
                    c.card = None;
                }
            }
        }
    }
}
