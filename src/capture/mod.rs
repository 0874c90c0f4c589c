//! Frames in: one `FrameSource` abstraction over webcams (nokhwa), video files and image folders
//! (OpenCV) and the synthetic demo table. Sources are opened on the thread that reads them, since
//! camera handles may not move between threads; `worker` runs that thread for the window.

mod demo;
mod folder;
pub use folder::image_files;
mod spec;
mod video;
mod webcam;
pub mod worker;

use std::time::Duration;

use opencv::core::Mat;
use opencv::prelude::*;

pub use spec::{CaptureOptions, SourceSpec};
pub use webcam::{CameraEntry, list_cameras};

use crate::render::CardTruth;

/// One frame: BGR pixels, its number from the start of the source, when it was taken relative to
/// the source's start, and the ground truth when the source is synthetic.
pub struct Frame {
    pub image: Mat,
    pub index: u64,
    pub time: Duration,
    pub truth: Option<Vec<CardTruth>>,
}

impl Frame {
    pub fn width(&self) -> i32 {
        self.image.cols()
    }

    pub fn height(&self) -> i32 {
        self.image.rows()
    }
}

/// Why a source could not give a frame. Each message names the thing that failed.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("'{0}' does not exist")]
    NotFound(String),
    #[error("cannot read '{path}': {reason}")]
    Unreadable { path: String, reason: String },
    #[error("camera {index} does not exist ({available})")]
    NoSuchCamera { index: u32, available: String },
    #[error("camera {index}: {reason}")]
    Camera { index: u32, reason: String },
    #[error("bad source '{0}': expected webcam:N, file:PATH, folder:PATH or demo")]
    BadSpec(String),
    #[error("{0}")]
    OpenCv(#[from] opencv::Error),
}

/// Anything that yields frames. `Ok(None)` means the source has ended (end of file or folder).
pub trait FrameSource {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError>;
    /// A short human description: "webcam 0 (HD Pro Webcam C920)", "file demo.mp4".
    fn describe(&self) -> String;
    /// The rate frames are meant to be shown at; `None` for a live camera, which sets its own pace.
    fn nominal_fps(&self) -> Option<f64>;
}

/// Opens a source on the calling thread.
pub fn open(spec: &SourceSpec, options: &CaptureOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
    Ok(match spec {
        SourceSpec::Webcam(index) => Box::new(webcam::WebcamSource::open(*index, options)?),
        SourceSpec::File(path) => Box::new(video::VideoSource::open(path)?),
        SourceSpec::Folder(path) => Box::new(folder::FolderSource::open(path)?),
        SourceSpec::Demo => Box::new(demo::DemoSource::new(options)),
    })
}

/// The source to use when none was named: the first camera if there is one, else the demo.
pub fn default_source() -> SourceSpec {
    match list_cameras() {
        Ok(cameras) if !cameras.is_empty() => SourceSpec::Webcam(cameras[0].index),
        _ => SourceSpec::Demo,
    }
}
