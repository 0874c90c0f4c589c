//! The game bar: the seats at the table and their names, a new game, the last game to resume,
//! the deck the cards are read with (and teaching one), the scorebook, and large type for a room.

use super::command::UiCommand;
use super::settings::Settings;
use crate::symbols::games::GameKind;

/// What the bar needs besides the settings.
pub struct BarState<'a> {
    pub demo: bool,
    /// The last game offered for resuming, in words.
    pub resume: Option<&'a str>,
    /// Many face-up cards stay unread: teaching the deck is suggested.
    pub suggest_teaching: bool,
    pub teaching: bool,
}

pub fn show(ui: &mut egui::Ui, settings: &mut Settings, bar: &BarState) -> Vec<UiCommand> {
    let BarState { demo, resume, .. } = *bar;
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
        if !demo && !bar.teaching {
            ui.separator();
            commands.extend(deck(ui, settings, bar.suggest_teaching));
        }
        ui.separator();
        if ui.button("Scorebook").on_hover_text("Tonight's table and every game kept").clicked() {
            commands.push(UiCommand::OpenScorebook);
        }
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

/// The deck the cards are read with, and the buttons to teach one or forget it.
fn deck(ui: &mut egui::Ui, settings: &Settings, suggest: bool) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    if let Some(path) = &settings.card_profile {
        ui.label(format!("Deck: {}", crate::live::referee::file_name(path))).on_hover_text(path.display().to_string());
        if ui.small_button("Forget").on_hover_text("Read with the built-in reader alone").clicked() {
            commands.push(UiCommand::ForgetDeck);
        }
    }
    let teach = if suggest {
        egui::Button::new(egui::RichText::new("Many cards stay unread: teach this deck").strong())
            .fill(egui::Color32::from_rgb(140, 90, 20))
    } else {
        egui::Button::new("Teach this deck")
    };
    if ui.add(teach).on_hover_text("Hold up each card once; from then on the cards are read as this deck").clicked() {
        commands.push(UiCommand::TeachDeck);
    }
    commands
}
