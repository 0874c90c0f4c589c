//! The Omphala panel: whose turn it is, every seat's Front and Back Rows as card tiles, the
//! deck and discard counts, the open question as buttons, the log of rulings, and the standings
//! of the game that ended last.

use egui::{Color32, RichText};

use super::command::UiCommand;
use super::said;
use crate::cards::Card;
use crate::live::Snapshot;
use crate::referee::omphala::put_back::CARD_TO_NAME;
use crate::referee::omphala::question::{About, Candidate, Reply};
use crate::rules::omphala::replay::{entity_text, progress_line, standings_lines};
use crate::rules::omphala::{Entity, GameState, Phase, RuleOptions, TieBreakState};

/// Lines of the log shown, newest first.
const LOG_LINES: usize = 60;

pub fn show(ui: &mut egui::Ui, snapshot: &Snapshot, typed_card: &mut String, adjusting: bool) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    ui.heading(if snapshot.title.is_empty() { "Omphala" } else { &snapshot.title });
    if let Some(error) = &snapshot.error {
        ui.colored_label(said::BAD, error);
    }
    if let Some(question) = &snapshot.question {
        ui.separator();
        let lost = question.about == About::TableRight;
        let ask = if lost { "lost: is the table right?" } else { "confirm: which move was played?" };
        ui.label(RichText::new(ask).color(said::ASK).strong());
        for (index, candidate) in question.candidates.iter().enumerate() {
            commands.extend(candidate_line(ui, index, candidate, typed_card));
        }
        if lost {
            commands.extend(fix_line(ui, typed_card));
        }
    }
    ui.separator();
    match &snapshot.state {
        Some(state) => {
            seats(ui, state, &snapshot.names);
            commands.extend(ending(ui, state, typed_card));
        }
        None => {
            ui.label("waiting for the referee…");
        }
    }
    commands.extend(layout_line(ui, snapshot, adjusting));
    ui.horizontal(|ui| {
        if ui.button("End game by agreement").on_hover_text("Score the game as it stands (Ctrl+E)").clicked() {
            commands.push(UiCommand::EndByAgreement);
        }
        if ui.button("Undo last ruling").on_hover_text("Withdraw the last committed ruling (Ctrl+Z)").clicked() {
            commands.push(UiCommand::Undo);
        }
    });
    if let Some(finished) = &snapshot.finished
        && !finished.standings.is_empty()
    {
        ui.separator();
        ui.label(RichText::new("Last game's standings").strong());
        for line in &finished.standings {
            ui.label(line);
        }
    }
    ui.separator();
    ui.label(RichText::new("Rulings").strong());
    egui::ScrollArea::vertical().id_salt("rulings").show(ui, |ui| {
        for said in snapshot.log.iter().rev().take(LOG_LINES) {
            if let Some((colour, text)) = said::text(said) {
                ui.colored_label(colour, text);
            }
        }
    });
    commands
}

/// One candidate of the question: a button, or where it leaves a card to name (a failed
/// attack's target the camera never read, a card drawn that nobody saw) a field to type it and
/// a button (taken once a card is typed) that answers with the candidate and that card.
fn candidate_line(
    ui: &mut egui::Ui,
    index: usize,
    candidate: &Candidate,
    typed_card: &mut String,
) -> Option<UiCommand> {
    let line = candidate.line.as_str();
    if !candidate.names_card {
        return ui.button(line).clicked().then_some(UiCommand::Answer(Reply::Pick { index, card: None }));
    }
    let caption = line.strip_suffix(CARD_TO_NAME).unwrap_or(line).trim_end();
    let field = TypedField { caption, hint: "e.g. QS", width: 60.0, button: "That card", card: true };
    let card = field.show(ui, typed_card)?.parse::<Card>().ok()?;
    Some(UiCommand::Answer(Reply::Pick { index, card: Some(card) }))
}

/// While the referee is lost: a field to fix one place the camera got wrong (a card misread or
/// unread, or a card seen where none lies) and a button that answers with it.
fn fix_line(ui: &mut egui::Ui, typed: &mut String) -> Option<UiCommand> {
    let field = TypedField {
        caption: "Fix a card the camera got wrong:",
        hint: "e.g. Alice back 3 7H, or Alice front 6 none",
        width: 220.0,
        button: "Fix",
        card: false,
    };
    field.show(ui, typed).map(|fix| UiCommand::Answer(Reply::Fix(fix)))
}

/// A captioned text field and the button that takes what was typed.
struct TypedField<'a> {
    caption: &'a str,
    hint: &'a str,
    width: f32,
    button: &'a str,
    /// Whether what is typed must be a card's code (`QS`) for the button to take it.
    card: bool,
}

impl TypedField<'_> {
    /// The text typed, trimmed, once the button is clicked (the field is then cleared).
    fn show(&self, ui: &mut egui::Ui, typed: &mut String) -> Option<String> {
        ui.horizontal(|ui| {
            let caption = ui.label(self.caption);
            let edit = egui::TextEdit::singleline(typed).hint_text(self.hint).desired_width(self.width);
            ui.add(edit).labelled_by(caption.id);
            let text = typed.trim().to_string();
            let ready = !text.is_empty() && (!self.card || text.parse::<Card>().is_ok());
            let clicked = ui.add_enabled(ready, egui::Button::new(self.button)).clicked();
            clicked.then(|| {
                typed.clear();
                text
            })
        })
        .inner
    }
}

fn seats(ui: &mut egui::Ui, state: &GameState, names: &[String]) {
    ui.label(progress_line(state));
    ui.label(format!("deck {} · discard {}", state.deck, state.discard.len()));
    for (seat, player) in state.players.iter().enumerate() {
        let name = names.get(seat).map_or(player.name.as_str(), String::as_str);
        let turn = state.turn.player == seat && !state.is_over();
        let title = format!("{}{name} — Front Row {} cards", if turn { "» " } else { "" }, player.front_cards());
        ui.label(RichText::new(title).strong().color(if turn { said::ASK } else { Color32::WHITE }));
        row(ui, "Front", &player.front, &state.options);
        row(ui, "Back", &player.back, &state.options);
    }
}

fn row(ui: &mut egui::Ui, caption: &str, entities: &[Entity], options: &RuleOptions) {
    ui.horizontal_wrapped(|ui| {
        ui.weak(caption);
        if entities.is_empty() {
            ui.weak("—");
        }
        for entity in entities {
            let text = entity_text(entity);
            let power = entity.power(options).map_or(String::new(), |p| format!(" ({p})"));
            let colour = if entity.card.is_some() { Color32::from_gray(235) } else { Color32::from_rgb(150, 180, 255) };
            egui::Frame::new().stroke(egui::Stroke::new(1.0, colour)).inner_margin(3.0).corner_radius(3.0).show(
                ui,
                |ui| {
                    let tile = RichText::new(format!("{text}{power}")).monospace().color(colour);
                    ui.add(egui::Label::new(tile).wrap_mode(egui::TextWrapMode::Extend));
                },
            );
        }
    });
}

/// The tie-break battle as it goes (each position fought, the reveal awaited, read by the camera
/// or typed here) and the standings once the game is over.
fn ending(ui: &mut egui::Ui, state: &GameState, typed_card: &mut String) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    match &state.phase {
        Phase::TieBreak(battle) => {
            ui.separator();
            ui.label(RichText::new("Tie-break battle").strong().color(said::ASK));
            for line in battle_lines(state, battle) {
                ui.label(line);
            }
            if let Some((player, position)) = battle.awaited() {
                let name = state.name(player);
                ui.label(format!("{name}: reveal your Front Row card {}", position + 1));
                ui.horizontal(|ui| {
                    let caption = ui.label("Card read:");
                    ui.add(egui::TextEdit::singleline(typed_card).hint_text("e.g. QS").desired_width(60.0))
                        .labelled_by(caption.id);
                    if ui.button("Revealed").on_hover_text("Enter the card when the camera cannot read it").clicked() {
                        commands.push(UiCommand::Reveal { player, position, card: std::mem::take(typed_card) });
                    }
                });
            }
        }
        Phase::Over(standings) => {
            ui.separator();
            ui.label(RichText::new("Standings").strong().color(said::GOOD));
            for line in standings_lines(state, standings) {
                ui.label(line);
            }
        }
        Phase::Setup | Phase::Playing => {}
    }
    commands
}

/// Each position fought: who showed what, who was destroyed.
fn battle_lines(state: &GameState, battle: &TieBreakState) -> Vec<String> {
    battle
        .steps
        .iter()
        .map(|step| {
            let shown: Vec<String> = step
                .entries
                .iter()
                .map(|e| format!("{} {} ({})", state.name(e.player), entity_text(&e.entity), e.power))
                .collect();
            let destroyed: Vec<&str> = step.destroyed.iter().map(|&p| state.name(p)).collect();
            let result = if destroyed.is_empty() {
                "none destroyed".to_string()
            } else {
                format!("{} destroyed", destroyed.join(", "))
            };
            format!("Position {}: {}; {result}", step.position + 1, shown.join(" vs "))
        })
        .collect()
}

/// Where the seats' rows come from; the layout in use can be adjusted on the live image, and one
/// fitted or adjusted here kept for this table.
fn layout_line(ui: &mut egui::Ui, snapshot: &Snapshot, adjusting: bool) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    if adjusting {
        ui.label(
            RichText::new("Drag the round handles: each row's first and last card, the deck, the discard pile.")
                .color(said::ASK),
        );
        ui.horizontal(|ui| {
            if ui.button("Use this layout").clicked() {
                commands.push(UiCommand::UseAdjustedLayout);
            }
            if ui.button("Cancel").clicked() {
                commands.push(UiCommand::CancelAdjusting);
            }
        });
        return commands;
    }
    ui.horizontal_wrapped(|ui| {
        match (&snapshot.layout_file, snapshot.layout_fitted, snapshot.layout_ready) {
            (Some(path), _, _) => ui.weak(format!("layout: {}", path.display())),
            (None, true, _) => ui.weak("layout: fitted here"),
            (None, false, true) => ui.weak("layout: known from the demo's camera"),
            (None, false, false) => ui.weak("layout: fitted once a deal lies on the table"),
        };
        if snapshot.layout_fitted
            && snapshot.layout_file.is_none()
            && ui.button("Save layout").on_hover_text("Keep this table's layout for the next games").clicked()
        {
            commands.push(UiCommand::SaveLayout);
        }
        if snapshot.layout.is_some()
            && ui
                .button("Adjust layout")
                .on_hover_text("Drag the rows and piles where they lie on this table")
                .clicked()
        {
            commands.push(UiCommand::AdjustLayout);
        }
    });
    commands
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;

    use crate::referee::omphala::RefereeEvent;
    use crate::referee::omphala::question::Question;

    fn question(about: About, lines: &[&str]) -> Question {
        let candidates = lines.iter().map(|l| l.to_string()).collect();
        let event = RefereeEvent::Confirm { candidates, about, at: Default::default() };
        Question::of(&event).expect("a confirm is a question")
    }

    #[test]
    fn a_failed_attack_s_card_is_typed_and_answered_with_its_candidate() {
        let snapshot = Snapshot {
            question: Some(question(About::PutBack, &["Alice attack 7S Bob 1 / Bob revealed 1 ?", "no attack"])),
            ..Snapshot::default()
        };
        let mut harness = Harness::new_ui_state(
            |ui, (typed, commands): &mut (String, Vec<UiCommand>)| {
                commands.extend(show(ui, &snapshot, typed, false));
            },
            (String::new(), Vec::new()),
        );
        let field = "Alice attack 7S Bob 1 / Bob revealed 1";
        harness.get_by_label(field).click();
        harness.step();
        harness.get_by_label(field).type_text("JD");
        harness.step();
        assert_eq!(harness.state().0, "JD");
        harness.get_by_label("That card").click();
        harness.run();
        let answers: Vec<&UiCommand> = harness.state().1.iter().filter(|c| matches!(c, UiCommand::Answer(_))).collect();
        assert!(
            matches!(answers[..], [UiCommand::Answer(Reply::Pick { index: 0, card: Some(c) })] if c.to_string() == "JD"),
            "{answers:?}"
        );
    }

    #[test]
    fn a_card_drawn_unseen_is_named_in_every_place_left_for_it() {
        let candidate = "Bob drew ? / Bob discard ? / Carol end";
        let snapshot = Snapshot {
            question: Some(question(About::MovesUnseen, &[candidate, "none of these"])),
            ..Snapshot::default()
        };
        let mut harness = Harness::new_ui_state(
            |ui, (typed, commands): &mut (String, Vec<UiCommand>)| {
                commands.extend(show(ui, &snapshot, typed, false));
            },
            (String::new(), Vec::new()),
        );
        harness.get_by_label(candidate).click();
        harness.step();
        harness.get_by_label(candidate).type_text("3H");
        harness.step();
        harness.get_by_label("That card").click();
        harness.run();
        let answers: Vec<&UiCommand> = harness.state().1.iter().filter(|c| matches!(c, UiCommand::Answer(_))).collect();
        assert!(
            matches!(answers[..], [UiCommand::Answer(Reply::Pick { index: 0, card: Some(c) })] if c.to_string() == "3H"),
            "{answers:?}"
        );
    }
}
