//! Vision: what the camera sees, turned into detections.

pub mod symbols;
