//! The source picker: demo table, each webcam, a video file or an image folder.

use std::path::PathBuf;

use super::camera_list::CameraList;
use super::command::UiCommand;
use crate::capture::{CaptureOptions, SourceSpec};

/// Camera modes offered in the picker; a camera gives the nearest it supports.
const MODES: [(u32, u32, u32); 6] =
    [(640, 480, 30), (1280, 720, 30), (1280, 720, 60), (1920, 1080, 30), (1920, 1080, 15), (3840, 2160, 30)];

/// Draws the picker; returns what the user asked for.
pub fn show(
    ui: &mut egui::Ui,
    current: &SourceSpec,
    capture: &CaptureOptions,
    cameras: &mut CameraList,
    typed_path: &mut String,
) -> Option<UiCommand> {
    let mut command = None;
    ui.horizontal(|ui| {
        let caption = ui.label("Source:");
        let found = cameras.poll().to_vec();
        egui::ComboBox::from_id_salt("source")
            .selected_text(label(current))
            .width(260.0)
            .show_ui(ui, |ui| {
                if ui.selectable_label(*current == SourceSpec::Demo, "Demo table").clicked() {
                    command = Some(UiCommand::SwitchSource(SourceSpec::Demo));
                }
                for camera in &found {
                    let spec = SourceSpec::Webcam(camera.index);
                    let text = format!("Webcam {}: {}", camera.index, camera.name);
                    if ui.selectable_label(*current == spec, text).clicked() {
                        command = Some(UiCommand::SwitchSource(spec));
                    }
                }
            })
            .response
            .labelled_by(caption.id);
        mode_picker(ui, capture, &mut command);
        if ui.button("Find cameras").on_hover_text("Look for cameras again").clicked() {
            command = Some(UiCommand::RefreshCameras);
        }
        if cameras.searching() {
            ui.spinner();
        } else if found.is_empty() {
            ui.weak("no camera found");
        }
        ui.separator();
        let path_caption = ui.label("Path:");
        ui.add(egui::TextEdit::singleline(typed_path).hint_text("video file or image folder").desired_width(280.0))
            .labelled_by(path_caption.id);
        let path = PathBuf::from(typed_path.trim());
        if ui.button("Open video").clicked() {
            command = Some(UiCommand::SwitchSource(SourceSpec::File(path.clone())));
        }
        if ui.button("Open folder").clicked() {
            command = Some(UiCommand::SwitchSource(SourceSpec::Folder(path)));
        }
    });
    command
}

/// Resolution and frame rate asked of cameras (and the size of the demo table).
fn mode_picker(ui: &mut egui::Ui, current: &CaptureOptions, command: &mut Option<UiCommand>) {
    let text = |w: u32, h: u32, fps: u32| format!("{w}×{h} @ {fps} fps");
    let caption = ui.label("Mode:");
    egui::ComboBox::from_id_salt("mode")
        .selected_text(text(current.width, current.height, current.fps))
        .show_ui(ui, |ui| {
            for (width, height, fps) in MODES {
                let chosen = (current.width, current.height, current.fps) == (width, height, fps);
                if ui.selectable_label(chosen, text(width, height, fps)).clicked() && !chosen {
                    *command = Some(UiCommand::SetMode(CaptureOptions { width, height, fps }));
                }
            }
        })
        .response
        .labelled_by(caption.id);
}

fn label(spec: &SourceSpec) -> String {
    match spec {
        SourceSpec::Demo => "Demo table".into(),
        SourceSpec::Webcam(n) => format!("Webcam {n}"),
        SourceSpec::File(p) => format!("Video {}", p.display()),
        SourceSpec::Folder(p) => format!("Folder {}", p.display()),
    }
}
