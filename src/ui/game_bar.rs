//! The game bar: the seats at the table and their names, a new game, the last game to resume,
//! and large type for a room.

use super::app::UiCommand;
use super::settings::Settings;

pub fn show(ui: &mut egui::Ui, settings: &mut Settings, demo: bool, resume: Option<&str>) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    ui.horizontal(|ui| {
        ui.label("Omphala");
        ui.separator();
        if demo {
            ui.weak("seats and names come from the demo's script");
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
