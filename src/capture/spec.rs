//! Naming a source on the command line and in saved settings: `webcam:N`, `file:PATH`,
//! `folder:PATH`, `demo`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use super::CaptureError;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SourceSpec {
    Webcam(u32),
    File(PathBuf),
    Folder(PathBuf),
    Demo,
}

impl FromStr for SourceSpec {
    type Err = CaptureError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || CaptureError::BadSpec(text.to_string());
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        match kind {
            "demo" if rest.is_empty() => Ok(SourceSpec::Demo),
            "webcam" | "camera" => rest.parse().map(SourceSpec::Webcam).map_err(|_| bad()),
            "file" if !rest.is_empty() => Ok(SourceSpec::File(rest.into())),
            "folder" | "dir" if !rest.is_empty() => Ok(SourceSpec::Folder(rest.into())),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for SourceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceSpec::Webcam(n) => write!(f, "webcam:{n}"),
            SourceSpec::File(p) => write!(f, "file:{}", p.display()),
            SourceSpec::Folder(p) => write!(f, "folder:{}", p.display()),
            SourceSpec::Demo => f.write_str("demo"),
        }
    }
}

/// What to ask of a camera, and how big the demo table is.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CaptureOptions {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions { width: 1280, height: 720, fps: 30 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_text() {
        for text in ["webcam:2", "file:/tmp/a b.mp4", "folder:photos", "demo"] {
            let spec: SourceSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
    }

    #[test]
    fn bad_specs_are_refused_with_the_text() {
        for text in ["webcam:x", "file:", "tv:1", "", "demo:3"] {
            let err = text.parse::<SourceSpec>().unwrap_err();
            assert!(err.to_string().contains(&format!("'{text}'")), "{err}");
        }
    }
}
