//! The reader's stages, in the order `detect` runs them: card outlines (`outlines`, sharpened by
//! `edge_fit`), each outline's index corners read (`corners`), pairs and cascades split and each
//! card placed once (`placing`), face up or down (`face_down`), and indices found without their
//! outline (`loose`).

pub mod corners;
pub mod edge_fit;
pub mod face_down;
pub mod loose;
pub mod outlines;
pub mod placing;
