//! The mini-game panel: a key per seat to claim (1 to 6), then a type-ahead search of the deck's
//! symbols; each seat's cards and wrong calls, the places, and the referee's events.

use egui::RichText;

use super::command::UiCommand;
use super::said;
use crate::live::MiniGameView;
use crate::referee::minigame::Event;

/// Symbols offered under the search box.
const OFFERED: usize = 8;
/// Events shown, newest first.
const LOG_LINES: usize = 60;

/// A claim being typed: who claimed, when, and the symbol typed so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClaimDraft {
    pub seat: usize,
    pub ms: u64,
    pub typed: String,
}

pub fn show(ui: &mut egui::Ui, view: &MiniGameView, draft: &mut Option<ClaimDraft>) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    ui.heading(format!("{}", view.kind));
    ui.label("Press a seat's key when its player calls a symbol, then type the symbol.");
    for (seat, name) in view.names.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui
                .button(format!("{} {name}", seat + 1))
                .on_hover_text(format!("{name} calls (key {})", seat + 1))
                .clicked()
            {
                *draft = Some(ClaimDraft { seat, ms: view.ms, typed: String::new() });
            }
            let place = view.ranking.iter().position(|p| p.contains(&seat)).map_or(0, |k| k + 1);
            ui.weak(format!("place {place}"));
        });
    }
    if let Some(open) = draft {
        ui.separator();
        commands.extend(claim_box(ui, view, open));
        if commands.iter().any(|c| matches!(c, UiCommand::Claim { .. } | UiCommand::CancelClaim)) {
            *draft = None;
        }
    }
    if view.over {
        ui.separator();
        ui.label(RichText::new("Game over").strong());
        for (k, place) in view.ranking.iter().enumerate() {
            let names: Vec<&str> = place.iter().filter_map(|&s| view.names.get(s).map(String::as_str)).collect();
            ui.label(format!("{}. {}", k + 1, names.join(", ")));
        }
    }
    ui.separator();
    ui.label(RichText::new("Referee").strong());
    egui::ScrollArea::vertical().id_salt("minigame-log").show(ui, |ui| {
        for event in view.log.iter().rev().take(LOG_LINES) {
            if let Some((colour, text)) = event_text(event) {
                ui.colored_label(colour, text);
            }
        }
    });
    commands
}

/// The search box of an open claim: Enter takes the first symbol offered, Escape drops it.
fn claim_box(ui: &mut egui::Ui, view: &MiniGameView, draft: &mut ClaimDraft) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    let name = view.names.get(draft.seat).map_or("?", String::as_str);
    ui.label(RichText::new(format!("{name} calls… (at {:.1} s)", draft.ms as f64 / 1000.0)).color(said::ASK));
    let response = ui
        .horizontal(|ui| {
            let caption = ui.label("Symbol:");
            ui.add(egui::TextEdit::singleline(&mut draft.typed).hint_text("type to search").desired_width(220.0))
                .labelled_by(caption.id)
        })
        .inner;
    response.request_focus();
    let offered = matching(&view.symbols, &draft.typed);
    ui.horizontal_wrapped(|ui| {
        for symbol in &offered {
            if ui.button(*symbol).clicked() {
                commands.push(UiCommand::Claim { seat: draft.seat, called: symbol.to_string(), ms: draft.ms });
            }
        }
    });
    let (enter, escape) = ui.input(|i| (i.key_pressed(egui::Key::Enter), i.key_pressed(egui::Key::Escape)));
    if enter && let Some(first) = offered.first() {
        commands.push(UiCommand::Claim { seat: draft.seat, called: first.to_string(), ms: draft.ms });
    }
    if escape || ui.button("Cancel").clicked() {
        commands.push(UiCommand::CancelClaim);
    }
    commands
}

/// The symbols whose name starts with what was typed, then those that contain it.
pub fn matching<'a>(symbols: &'a [String], typed: &str) -> Vec<&'a str> {
    let typed = typed.trim().to_lowercase();
    let starts = symbols.iter().filter(|s| s.to_lowercase().starts_with(&typed));
    let contains =
        symbols.iter().filter(|s| !s.to_lowercase().starts_with(&typed) && s.to_lowercase().contains(&typed));
    starts.chain(contains).take(OFFERED).map(String::as_str).collect()
}

/// One event in words with its colour; `None` for bookkeeping.
pub fn event_text(event: &Event) -> Option<(egui::Color32, String)> {
    event.words().map(|(tone, text)| (said::colour(tone), text))
}

/// The banner: the last verdict, move or end.
pub fn banner(view: &MiniGameView) -> Option<(egui::Color32, String)> {
    view.log.iter().rev().find_map(|e| match e {
        Event::Verdict { .. } | Event::WrongMove { .. } | Event::Over { .. } => event_text(e),
        _ => None,
    })
}

/// Where the last verdict's shared symbol lies on the two compared cards, image pixels, until a
/// card moves.
pub fn shared_symbol_spots(view: &MiniGameView) -> Vec<[f32; 2]> {
    // Once a card has moved, the verdict's cards are no longer where it saw them.
    let last = view.log.iter().rev().find(|e| matches!(e, Event::Verdict { .. } | Event::Moved { .. }));
    let Some(Event::Verdict { compared, .. }) = last else {
        return Vec::new();
    };
    compared.iter().flat_map(|c| [c.left.symbol_at, c.right.symbol_at]).flatten().map(|(x, y)| [x, y]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_letters_offer_names_starting_with_them_first() {
        let symbols: Vec<String> = ["padlock", "key", "keyboard", "monkey"].map(String::from).to_vec();
        assert_eq!(matching(&symbols, "key"), ["key", "keyboard", "monkey"]);
        assert_eq!(matching(&symbols, " PAD"), ["padlock"]);
        assert_eq!(matching(&symbols, "").len(), 4);
    }
}
