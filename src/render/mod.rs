//! The synthetic table renderer: our own card faces drawn by code, laid on a table and seen through
//! a camera, with ground truth. Used by the demo source, by tests, and to make training data.

pub mod demo;
pub mod face;
pub mod fonts;
pub mod game;
pub mod match_video;
pub mod random;
pub mod scene;
pub mod table;

pub use demo::DemoTable;
pub use random::{SceneOptions, random_scene};
pub use scene::{CardTruth, PlacedCard, Rendered, Renderer, Scene};
