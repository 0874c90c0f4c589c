//! The application object: persisted settings, transient state, and the draw → commands loop
//! (the UI returns commands; they run after drawing).

use super::camera_list::CameraList;
use super::live_view::LiveView;
use super::settings::Settings;
use super::{source_picker, status_line};
use crate::capture::worker::{CaptureStatus, CaptureWorker};
use crate::capture::{self, CaptureOptions, SourceSpec};

/// What the command line asked for when it opened the window.
#[derive(Clone, Debug, Default)]
pub struct StartOptions {
    pub source: Option<SourceSpec>,
    pub capture: Option<CaptureOptions>,
}

/// Something the user asked for while the UI was drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum UiCommand {
    SwitchSource(SourceSpec),
    /// Ask cameras for another resolution and frame rate; the source is reopened.
    SetMode(CaptureOptions),
    RefreshCameras,
}

pub struct RefereeApp {
    settings: Settings,
    source: SourceSpec,
    worker: CaptureWorker,
    status: CaptureStatus,
    view: LiveView,
    cameras: CameraList,
    frames_shown: u64,
}

impl RefereeApp {
    pub fn new(cc: &eframe::CreationContext<'_>, start: StartOptions) -> RefereeApp {
        let mut settings = Settings::load(cc.storage);
        if let Some(capture) = start.capture {
            settings.capture = capture;
        }
        let source = start.source.or_else(|| settings.last_source.clone()).unwrap_or_else(capture::default_source);
        settings.last_source = Some(source.clone());
        let worker = spawn_worker(&cc.egui_ctx, &source, &settings.capture);
        let mut cameras = CameraList::default();
        cameras.refresh();
        RefereeApp {
            status: worker.status(),
            settings,
            source,
            worker,
            view: LiveView::default(),
            cameras,
            frames_shown: 0,
        }
    }

    /// Frames drawn on screen since start (tests wait on this).
    pub fn frames_shown(&self) -> u64 {
        self.frames_shown
    }

    pub fn status(&self) -> &CaptureStatus {
        &self.status
    }

    /// The camera mode in use (saved with the settings).
    pub fn capture_options(&self) -> &CaptureOptions {
        &self.settings.capture
    }

    pub fn source(&self) -> &SourceSpec {
        &self.source
    }

    pub fn run_command(&mut self, ctx: &egui::Context, command: UiCommand) {
        match command {
            UiCommand::SwitchSource(source) => {
                // Stop the old thread before opening the new source: a camera allows one reader.
                self.worker = spawn_worker(ctx, &source, &self.settings.capture);
                self.settings.last_source = Some(source.clone());
                self.source = source;
                self.status = self.worker.status();
            }
            UiCommand::SetMode(options) => {
                self.settings.capture = options;
                self.worker = spawn_worker(ctx, &self.source, &self.settings.capture);
                self.status = self.worker.status();
            }
            UiCommand::RefreshCameras => self.cameras.refresh(),
        }
    }
}

fn spawn_worker(ctx: &egui::Context, source: &SourceSpec, options: &CaptureOptions) -> CaptureWorker {
    let repaint = ctx.clone();
    CaptureWorker::spawn(source.clone(), options.clone(), Box::new(move || repaint.request_repaint()))
}

impl eframe::App for RefereeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        if let Some(shown) = self.worker.take_frame() {
            self.view.update(&ctx, &shown);
            self.frames_shown += 1;
        }
        self.status = self.worker.status();
        let mut commands = Vec::new();
        egui::Panel::top("source-bar").show(ui, |ui| {
            commands.extend(source_picker::show(
                ui,
                &self.source,
                &self.settings.capture,
                &mut self.cameras,
                &mut self.settings.typed_path,
            ));
        });
        egui::Panel::bottom("status-bar").show(ui, |ui| status_line::show(ui, &self.status));
        egui::CentralPanel::default().show(ui, |ui| self.view.show(ui, "waiting for the first frame…"));
        for command in commands {
            self.run_command(&ctx, command);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        self.settings.save(storage);
    }
}
