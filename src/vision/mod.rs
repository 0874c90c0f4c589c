//! Vision: from frames to detections. Knows OpenCV, nothing of the UI or the rules.

pub mod activity;
pub mod alter;
pub mod cards;
pub mod image_file;
pub mod memory;
pub mod motion;
pub mod row_backs;
pub mod symbols;
