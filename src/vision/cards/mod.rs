//! Playing-card recognition: card outlines, face up or down, and rank and suit read from the
//! index corners. `detect` runs the `stages` in order with the `readers`; `decks` holds the deck
//! in use, `picture` the image work they share; `types` what they hand over; `detector` the
//! settings and models; `reuse` gives a stream's unchanged picture its last reading again;
//! `labels` and `output` the label files and the JSON the command line writes.

pub mod decks;
pub mod detect;
pub mod detector;
pub mod labels;
pub mod output;
pub mod picture;
pub mod readers;
pub mod reuse;
pub mod stages;
pub mod types;

pub use detector::{CardDetector, DetectorConfig, Reader};
pub use reuse::{Reading, ReadingReuse};
pub use types::{CardDetection, Face};
