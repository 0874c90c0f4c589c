//! The window: source picker, live view and status line. The UI draws state and returns commands;
//! it owns no game or vision logic (those come from `rules` and `vision`), and never waits on the
//! camera (frames come from `capture::worker`).

mod app;
mod camera_list;
mod live_view;
mod settings;
mod source_picker;
mod status_line;

pub use app::{RefereeApp, StartOptions, UiCommand};
pub use settings::Settings;

/// Opens the window and runs until it is closed.
pub fn run(start: StartOptions) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_title("card-referee").with_inner_size([1320.0, 860.0]),
        ..Default::default()
    };
    eframe::run_native("card-referee", options, Box::new(move |cc| Ok(Box::new(RefereeApp::new(cc, start)))))
}
