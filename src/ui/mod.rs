//! The window: source picker and game bar, the live view with the referee's marks over it, the
//! verdict banner, the Omphala panel and the status lines, and the deck's teaching in place of
//! the game panel while it runs. The UI draws state and returns
//! commands; it owns no game or vision logic, and never waits on the camera or the referee
//! (frames come from `capture::worker`, rulings from `live::worker`).

mod app;
mod camera_list;
mod command;
mod game_bar;
mod live_view;
mod minigame_panel;
mod omphala_panel;
mod overlay;
mod said;
mod scorebook_screen;
mod screenshot;
mod settings;
mod source_picker;
mod status_line;
mod teach_panel;

pub use app::{RefereeApp, StartOptions};
pub use command::UiCommand;
pub use screenshot::ScreenshotPlan;
pub use settings::Settings;

/// The name the window's settings and journals are kept under.
pub const APP_ID: &str = "card-referee";

/// Opens the window and runs until it is closed.
pub fn run(start: StartOptions) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_title("card-referee").with_inner_size([1320.0, 860.0]),
        ..Default::default()
    };
    eframe::run_native(APP_ID, options, Box::new(move |cc| Ok(Box::new(RefereeApp::new(cc, start)))))
}
