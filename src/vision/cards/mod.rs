//! Playing-card recognition: card outlines, face up or down, and rank and suit read from the
//! index corners (`detect` runs the stages in order).

pub mod back;
pub mod blur;
pub mod classify;
pub mod corners;
pub mod detect;
pub mod detector;
pub mod edge_fit;
pub mod enroll;
pub mod enrolled;
pub mod face_down;
pub mod glyph_net;
pub mod guided_enroll;
pub mod index;
pub mod index_net;
pub mod labels;
pub mod light;
pub mod loose;
pub mod outlines;
pub mod output;
pub mod patch;
pub mod pixels;
pub mod placing;
pub mod profile;
pub mod quad;
pub mod types;
pub mod video_enroll;
pub mod witness;

pub use detector::{CardDetector, DetectorConfig, Reader};
pub use types::{CardDetection, Face};
