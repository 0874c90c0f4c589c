//! What the window remembers between runs (kept apart from transient state such as textures and
//! the capture thread).

use crate::capture::{CaptureOptions, SourceSpec};

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The source last shown; reopened at the next start when no `--source` is given.
    pub last_source: Option<SourceSpec>,
    pub capture: CaptureOptions,
    /// The path typed in the picker's file and folder boxes.
    pub typed_path: String,
    /// Seats at a real table, 2 to 6.
    pub players: usize,
    /// The players' names in seat order, comma-separated (blank: P1, P2, …).
    pub names: String,
    /// Text and controls drawn large enough to read from the table.
    pub large_type: bool,
    /// The game played at a real table: "omphala" or a mini-game's code ("tower", …).
    pub game: String,
    /// The symbol deck of the mini-games ("cipher", "plane-N" or a deck.json) and its enrolled
    /// profile (none: the Cipher deck's built-in appearance).
    pub symbol_deck: String,
    pub symbol_profile: Option<std::path::PathBuf>,
    /// Where each seat's rows lie at the real table (`calibrate table` writes one); none: the
    /// standard layout, fitted to the deal.
    pub layout: Option<std::path::PathBuf>,
    /// The deck profile the cards are read with (taught in the window, or made by `enroll
    /// cards`); none: the built-in reader alone.
    pub card_profile: Option<std::path::PathBuf>,
    /// The journal of the last real table's game that had a ruling (offered for resuming).
    pub last_journal: Option<std::path::PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            last_source: None,
            capture: CaptureOptions::default(),
            typed_path: String::new(),
            players: 2,
            names: String::new(),
            large_type: false,
            last_journal: None,
            game: "omphala".to_string(),
            symbol_deck: "cipher".to_string(),
            symbol_profile: None,
            layout: None,
            card_profile: None,
        }
    }
}

impl Settings {
    pub const KEY: &'static str = "card-referee/settings";

    /// Loads saved settings; anything unreadable (an older or corrupt file) falls back to defaults.
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Settings {
        storage.and_then(|s| eframe::get_value(s, Self::KEY)).unwrap_or_default()
    }

    /// The names of the seats: those typed, then P1, P2, … for the seats left unnamed.
    pub fn seat_names(&self) -> Vec<String> {
        let players = self.players.clamp(2, 6);
        let typed: Vec<String> =
            self.names.split(',').map(str::trim).filter(|n| !n.is_empty()).map(String::from).collect();
        (0..players).map(|k| typed.get(k).cloned().unwrap_or_else(|| format!("P{}", k + 1))).collect()
    }

    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, Self::KEY, self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_seats_are_numbered_and_extra_names_are_left_out() {
        let settings = Settings { players: 3, names: "Ann, ,Ben".into(), ..Settings::default() };
        assert_eq!(settings.seat_names(), ["Ann", "Ben", "P3"]);
        let settings = Settings { players: 2, names: "Ann,Ben,Cleo".into(), ..Settings::default() };
        assert_eq!(settings.seat_names(), ["Ann", "Ben"]);
    }
}
