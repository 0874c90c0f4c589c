//! Computer vision: what is on the table, from camera frames.

pub mod cards;
