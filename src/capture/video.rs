//! Video files through OpenCV's videoio.

use std::path::{Path, PathBuf};
use std::time::Duration;

use opencv::core::Mat;
use opencv::prelude::*;
use opencv::videoio::{self, VideoCapture};

use super::{CaptureError, Frame, FrameSource};

pub struct VideoSource {
    path: PathBuf,
    capture: VideoCapture,
    fps: f64,
    index: u64,
}

impl VideoSource {
    pub fn open(path: &Path) -> Result<VideoSource, CaptureError> {
        let name = path.display().to_string();
        if !path.exists() {
            return Err(CaptureError::NotFound(name));
        }
        let unreadable = |reason: &str| CaptureError::Unreadable { path: name.clone(), reason: reason.to_string() };
        let capture = open_capture(&name).ok_or_else(|| unreadable("not a video OpenCV can decode"))?;
        let fps = capture.get(videoio::CAP_PROP_FPS)?;
        let mut source = VideoSource {
            path: path.to_path_buf(),
            capture,
            fps: if fps > 0.0 && fps < 1000.0 { fps } else { 30.0 },
            index: 0,
        };
        // A file that opens but yields no first frame is not a usable video: say so now.
        if source.peek_readable()? { Ok(source) } else { Err(unreadable("it has no frames")) }
    }

    fn peek_readable(&mut self) -> Result<bool, CaptureError> {
        let mut probe = Mat::default();
        let ok = self.capture.read(&mut probe)? && !probe.empty();
        self.capture.set(videoio::CAP_PROP_POS_FRAMES, 0.0)?;
        Ok(ok)
    }
}

/// FFmpeg first (it reads files directly), then whatever other backend OpenCV has.
fn open_capture(name: &str) -> Option<VideoCapture> {
    [videoio::CAP_FFMPEG, videoio::CAP_ANY]
        .into_iter()
        .filter_map(|api| VideoCapture::from_file(name, api).ok())
        .find(|capture| capture.is_opened().unwrap_or(false))
}

impl FrameSource for VideoSource {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let mut image = Mat::default();
        if !self.capture.read(&mut image)? || image.empty() {
            return Ok(None);
        }
        let time = Duration::from_secs_f64(self.index as f64 / self.fps);
        let frame = Frame { image, index: self.index, time, truth: None };
        self.index += 1;
        Ok(Some(frame))
    }

    fn describe(&self) -> String {
        format!("file {}", self.path.display())
    }

    fn nominal_fps(&self) -> Option<f64> {
        Some(self.fps)
    }
}
