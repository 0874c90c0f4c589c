//! The table, game-free: where each seat's rows, the deck and the discard pile lie (`layout`),
//! and what the camera shows placed in those rows (`view`). Fed by `vision`, read by `referee`;
//! knows nothing of the rules or the window.

pub mod layout;
pub mod view;

pub use layout::{Row, SeatZones, TableLayout, Zone};
pub use view::{CardView, EntityView, Face, SeatView, TableView};
