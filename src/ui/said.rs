//! What the referee said, in words for the screen, with the colour of its kind.

use egui::Color32;

use crate::live::Said;
use crate::referee::Tone;
use crate::referee::omphala::RefereeEvent;

pub const GOOD: Color32 = Color32::from_rgb(80, 200, 120);
pub const BAD: Color32 = Color32::from_rgb(235, 80, 70);
pub const ASK: Color32 = Color32::from_rgb(240, 190, 60);
pub const PLAIN: Color32 = Color32::from_rgb(200, 200, 200);

/// The colour of a tone.
pub fn colour(tone: Tone) -> Color32 {
    match tone {
        Tone::Good => GOOD,
        Tone::Bad => BAD,
        Tone::Ask => ASK,
        Tone::Plain => PLAIN,
    }
}

/// One line for the banner and the log.
pub fn text(said: &Said) -> Option<(Color32, String)> {
    let (tone, text) = said.event.words(said.answered_by_script.as_deref());
    Some((colour(tone), text))
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
