//! What the referee said, in words for the screen, with the colour of its kind.

use egui::Color32;

use crate::live::Said;
use crate::referee::omphala::RefereeEvent;

pub const GOOD: Color32 = Color32::from_rgb(80, 200, 120);
pub const BAD: Color32 = Color32::from_rgb(235, 80, 70);
pub const ASK: Color32 = Color32::from_rgb(240, 190, 60);
pub const PLAIN: Color32 = Color32::from_rgb(200, 200, 200);

/// One line for the banner and the log; `None` for what is not worth a line (a view restored).
pub fn text(said: &Said) -> Option<(Color32, String)> {
    let line = match &said.event {
        RefereeEvent::Input { record, verdict, .. } => (GOOD, format!("{} — {verdict}", record.join(" / "))),
        RefereeEvent::Illegal { name, action, sentence, rule, .. } => {
            (BAD, format!("Illegal: {name}, {action}. {sentence} ({rule})"))
        }
        RefereeEvent::Restored { .. } => (PLAIN, "The table is back as the game stands".to_string()),
        RefereeEvent::Prompt { text, .. } => (ASK, text.clone()),
        RefereeEvent::Waiting { differences, .. } => (PLAIN, format!("Waiting for: {}", differences.join("; "))),
        RefereeEvent::Confirm { candidates, .. } => match &said.answered_by_script {
            Some(answer) => (PLAIN, format!("Which move? The demo's script says: {answer}")),
            None => (ASK, format!("Which move was played? {}", candidates.join("  |  "))),
        },
        RefereeEvent::Desync { differences, .. } => {
            (BAD, format!("The table does not match the game: {}", differences.join("; ")))
        }
        RefereeEvent::Standings { lines, .. } => (GOOD, format!("Game over. {}", lines.join("  "))),
        RefereeEvent::Note { text, .. } => (PLAIN, text.clone()),
    };
    Some(line)
}

/// The verdict the banner shows: the last ruling, illegal move, desync, question or end.
pub fn banner(log: &[Said]) -> Option<(Color32, String)> {
    log.iter()
        .rev()
        .find(|s| {
            matches!(
                s.event,
                RefereeEvent::Input { .. }
                    | RefereeEvent::Illegal { .. }
                    | RefereeEvent::Desync { .. }
                    | RefereeEvent::Standings { .. }
                    | RefereeEvent::Prompt { .. }
                    | RefereeEvent::Restored { .. }
            ) || (matches!(s.event, RefereeEvent::Confirm { .. }) && s.answered_by_script.is_none())
        })
        .and_then(text)
}
