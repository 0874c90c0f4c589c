//! Webcams through nokhwa's native backend (V4L2 on Linux, Media Foundation on Windows,
//! AVFoundation on macOS).

use std::time::{Duration, Instant};

use nokhwa::Camera;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{
    ApiBackend, CameraFormat, CameraIndex, FrameFormat, RequestedFormat, RequestedFormatType, Resolution,
};
use opencv::core::Mat;
use opencv::imgproc;
use opencv::prelude::*;

use super::{CaptureError, CaptureOptions, Frame, FrameSource};

/// A camera the system reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CameraEntry {
    pub index: u32,
    pub name: String,
    pub description: String,
}

/// Every camera the native backend can see.
pub fn list_cameras() -> Result<Vec<CameraEntry>, CaptureError> {
    let found =
        nokhwa::query(ApiBackend::Auto).map_err(|e| CaptureError::Camera { index: 0, reason: e.to_string() })?;
    Ok(found
        .into_iter()
        .filter_map(|info| {
            let index = info.index().as_index().ok()?;
            Some(CameraEntry { index, name: info.human_name(), description: info.description().to_string() })
        })
        .collect())
}

pub struct WebcamSource {
    index: u32,
    name: String,
    camera: Camera,
    started: Instant,
    count: u64,
}

impl WebcamSource {
    pub fn open(index: u32, options: &CaptureOptions) -> Result<WebcamSource, CaptureError> {
        let cameras = list_cameras().unwrap_or_default();
        let Some(entry) = cameras.iter().find(|c| c.index == index) else {
            let available = if cameras.is_empty() {
                "no camera was found".to_string()
            } else {
                format!("cameras found: {}", cameras.iter().map(|c| c.index.to_string()).collect::<Vec<_>>().join(", "))
            };
            return Err(CaptureError::NoSuchCamera { index, available });
        };
        let fail = |e: nokhwa::NokhwaError| CaptureError::Camera { index, reason: e.to_string() };
        let wanted = CameraFormat::new(Resolution::new(options.width, options.height), FrameFormat::MJPEG, options.fps);
        let format = RequestedFormat::new::<RgbFormat>(RequestedFormatType::Closest(wanted));
        let mut camera = Camera::new(CameraIndex::Index(index), format).map_err(fail)?;
        camera.open_stream().map_err(fail)?;
        Ok(WebcamSource { index, name: entry.name.clone(), camera, started: Instant::now(), count: 0 })
    }
}

impl FrameSource for WebcamSource {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let lost = |e: nokhwa::NokhwaError| CaptureError::Camera { index: self.index, reason: format!("lost ({e})") };
        let buffer = self.camera.frame().map_err(lost)?;
        let rgb = buffer.decode_image::<RgbFormat>().map_err(lost)?;
        let (w, h) = (rgb.width() as i32, rgb.height() as i32);
        let packed = Mat::from_slice(rgb.as_raw())?;
        let shaped = packed.reshape(3, h)?;
        debug_assert_eq!(shaped.cols(), w);
        let mut image = Mat::default();
        imgproc::cvt_color_def(&shaped, &mut image, imgproc::COLOR_RGB2BGR)?;
        let frame = Frame { image, index: self.count, time: self.started.elapsed(), truth: None };
        self.count += 1;
        Ok(Some(frame))
    }

    fn describe(&self) -> String {
        let format = self.camera.camera_format();
        format!(
            "webcam {} ({}) {}x{} @ {} fps",
            self.index,
            self.name,
            format.width(),
            format.height(),
            format.frame_rate()
        )
    }

    fn nominal_fps(&self) -> Option<f64> {
        None
    }
}

impl Drop for WebcamSource {
    fn drop(&mut self) {
        // Release the device so that a reconnect or another program can open it.
        let _ = self.camera.stop_stream();
    }
}

/// How long to wait between attempts to reopen a lost camera.
pub const RECONNECT_EVERY: Duration = Duration::from_secs(1);
