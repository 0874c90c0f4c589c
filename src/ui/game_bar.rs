//! The game bar: the seats at the table and their names, a new game, the last game to resume,
//! and large type for a room.

use super::command::UiCommand;
use super::settings::Settings;
use crate::symbols::games::GameKind;

pub fn show(ui: &mut egui::Ui, settings: &mut Settings, demo: bool, resume: Option<&str>) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    ui.horizontal(|ui| {
        let caption = ui.label("Game:");
        let chosen = settings.game.clone();
        egui::ComboBox::from_id_salt("game")
            .selected_text(game_title(&chosen))
            .show_ui(ui, |ui| {
                for code in std::iter::once("omphala").chain(GameKind::ALL.iter().map(|k| k.code())) {
                    if ui.selectable_label(chosen == code, game_title(code)).clicked() && chosen != code {
                        settings.game = code.to_string();
                        commands.push(UiCommand::NewGame);
                    }
                }
            })
            .response
            .labelled_by(caption.id);
        ui.separator();
        if demo {
            ui.weak("the demo plays Omphala; seats and names come from its script");
        } else {
            let caption = ui.label("Seats:");
            ui.add(egui::DragValue::new(&mut settings.players).range(2..=6)).labelled_by(caption.id);
            let caption = ui.label("Names:");
            ui.add(egui::TextEdit::singleline(&mut settings.names).hint_text("Ann, Ben, …").desired_width(220.0))
                .labelled_by(caption.id);
        }
        if ui.button("New game").on_hover_text("Referee a new game from the deal (Ctrl+N)").clicked() {
            commands.push(UiCommand::NewGame);
        }
        if let Some(offer) = resume.filter(|_| !demo)
            && ui.button(format!("Resume {offer}")).on_hover_text("Go on with the last game from its journal").clicked()
        {
            commands.push(UiCommand::Resume);
        }
        ui.separator();
        if ui.checkbox(&mut settings.large_type, "Large type").changed() {
            commands.push(UiCommand::ApplyLook);
        }
    });
    commands
}

/// "Omphala" or the mini-game's title.
fn game_title(code: &str) -> String {
    GameKind::from_code(code).map_or_else(|| "Omphala".to_string(), |k| k.to_string())
}
