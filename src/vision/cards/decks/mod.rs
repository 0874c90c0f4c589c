//! The deck in use: a user's deck as the networks remember it (`profile`, `enrolled`), enrolled
//! from labelled photos (`enroll`), a video pass (`video_enroll`) or card by card on request
//! (`guided_enroll`), and its back (`back`).

pub mod back;
pub mod enroll;
pub mod enrolled;
pub mod guided_enroll;
pub mod profile;
pub mod video_enroll;
