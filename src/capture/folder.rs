//! A folder of still images, in file-name order, through OpenCV's imgcodecs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use opencv::imgcodecs;
use opencv::prelude::*;

use super::{CaptureError, Frame, FrameSource};

const IMAGE_EXTENSIONS: [&str; 7] = ["jpg", "jpeg", "png", "bmp", "webp", "tif", "tiff"];

pub struct FolderSource {
    folder: PathBuf,
    files: Vec<PathBuf>,
    index: usize,
}

impl FolderSource {
    pub fn open(folder: &Path) -> Result<FolderSource, CaptureError> {
        let name = folder.display().to_string();
        if !folder.exists() {
            return Err(CaptureError::NotFound(name));
        }
        let files = image_files(folder)?;
        if files.is_empty() {
            return Err(CaptureError::Unreadable {
                path: name,
                reason: "the folder holds no image (jpg, png, bmp, webp, tif)".into(),
            });
        }
        Ok(FolderSource { folder: folder.to_path_buf(), files, index: 0 })
    }
}

/// The images of a folder in the order a folder source shows them (by file name).
pub fn image_files(folder: &Path) -> Result<Vec<PathBuf>, CaptureError> {
    let name = folder.display().to_string();
    let entries =
        std::fs::read_dir(folder).map_err(|e| CaptureError::Unreadable { path: name, reason: e.to_string() })?;
    let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| is_image(p)).collect();
    files.sort();
    Ok(files)
}

pub fn is_image(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

impl FrameSource for FolderSource {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let Some(path) = self.files.get(self.index) else {
            return Ok(None);
        };
        let name = path.display().to_string();
        let image = imgcodecs::imread(&name, imgcodecs::IMREAD_COLOR)?;
        if image.empty() {
            return Err(CaptureError::Unreadable { path: name, reason: "not an image OpenCV can decode".into() });
        }
        let frame =
            Frame { image, index: self.index as u64, time: Duration::from_secs(self.index as u64), truth: None };
        self.index += 1;
        Ok(Some(frame))
    }

    fn describe(&self) -> String {
        format!("folder {} ({} images)", self.folder.display(), self.files.len())
    }

    fn nominal_fps(&self) -> Option<f64> {
        Some(1.0)
    }
}
