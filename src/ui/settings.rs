//! What the window remembers between runs (kept apart from transient state such as textures and
//! the capture thread).

use crate::capture::{CaptureOptions, SourceSpec};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The source last shown; reopened at the next start when no `--source` is given.
    pub last_source: Option<SourceSpec>,
    pub capture: CaptureOptions,
    /// The path typed in the picker's file and folder boxes.
    pub typed_path: String,
}

impl Settings {
    pub const KEY: &'static str = "card-referee/settings";

    /// Loads saved settings; anything unreadable (an older or corrupt file) falls back to defaults.
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Settings {
        storage.and_then(|s| eframe::get_value(s, Self::KEY)).unwrap_or_default()
    }

    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, Self::KEY, self);
    }
}
