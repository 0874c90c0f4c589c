//! card-referee: watches a real card table through a webcam and referees the game.
//!
//! Data flows one way: `capture` (frames) → `vision` (detections) → table observation →
//! `rules` (the referee) → events → `ui`. See ARCHITECTURE.md for the map.

pub mod capture;
pub mod cards;
pub mod cli;
pub mod geometry;
pub mod layout;
pub mod live;
pub mod referee;
pub mod render;
pub mod room;
pub mod rules;
pub mod scorebook;
pub mod symbols;
pub mod table;
pub mod text_input;
pub mod training;
pub mod ui;
pub mod vision;
