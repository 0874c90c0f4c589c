//! Playing-card recognition (issue 5): outlines, face up or down, and rank and suit read from the
//! index corners.

pub mod back;
pub mod blur;
pub mod classify;
pub mod detect;
pub mod edge_fit;
pub mod labels;
pub mod light;

pub use detect::{CardDetection, CardDetector, DetectorConfig, Face, Reader};
pub mod enroll;
pub mod enrolled;
pub mod glyph_net;
pub mod index;
pub mod index_net;
pub mod output;
pub mod patch;
pub mod patch_set;
pub mod train;
pub mod video_enroll;
