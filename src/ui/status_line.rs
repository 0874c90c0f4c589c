//! Lines under the view: source, state, resolution, frame rate and processing time; the
//! referee's frames, time per frame and frames it had no time for (the teaching's, while a deck
//! is taught).

use crate::capture::worker::{CaptureState, CaptureStatus};
use crate::live::Snapshot;

pub fn show(ui: &mut egui::Ui, status: &CaptureStatus) {
    ui.horizontal(|ui| {
        let (text, colour) = state_text(&status.state);
        ui.colored_label(colour, text);
        ui.separator();
        ui.label(&status.source);
        if status.frames > 0 {
            ui.separator();
            ui.label(format!("{}×{}", status.width, status.height));
            ui.separator();
            ui.label(format!("{:.1} fps", status.fps));
            ui.separator();
            ui.label(format!("{:.1} ms/frame", status.process_ms));
            ui.separator();
            ui.label(format!("frame {}", status.frames));
        }
    });
}

fn state_text(state: &CaptureState) -> (String, egui::Color32) {
    match state {
        CaptureState::Opening => ("opening…".into(), egui::Color32::GRAY),
        CaptureState::Running => ("live".into(), egui::Color32::from_rgb(80, 200, 120)),
        CaptureState::Ended => ("ended".into(), egui::Color32::GRAY),
        CaptureState::Reconnecting(why) => (format!("reconnecting: {why}"), egui::Color32::from_rgb(230, 170, 40)),
        CaptureState::Failed(why) => (format!("failed: {why}"), egui::Color32::from_rgb(230, 80, 70)),
    }
}

/// While a deck is taught: its frames and time per frame.
pub fn show_teaching(ui: &mut egui::Ui, view: &crate::live::teaching::TeachView) {
    ui.horizontal(|ui| {
        ui.label(format!("teaching the deck: {} frames", view.frames));
        ui.separator();
        ui.label(format!("{:.1} ms/frame", view.work_ms));
    });
}

pub fn show_referee(ui: &mut egui::Ui, snapshot: &Snapshot) {
    ui.horizontal(|ui| {
        ui.label(format!("refereed {} frames", snapshot.frames));
        ui.separator();
        ui.label(format!("{:.1} ms/frame vision and rules", snapshot.work_ms));
        if snapshot.dropped > 0 {
            ui.separator();
            ui.label(format!("{} camera frames skipped while busy", snapshot.dropped));
        }
    });
}
