//! The table, game-free: where each seat's rows, the deck and the discard pile lie (`layout`),
//! what the camera shows placed in those rows (`view`), and the settled view over frames
//! (`settle`, `watch`). Fed by `vision`, read by `referee`;
//! knows nothing of the rules or the window.

pub mod backs;
pub mod calibrate;
pub mod footage;
pub mod layout;
pub mod place;
pub mod settle;
pub mod tracks;
pub mod view;
pub mod watch;

pub use calibrate::learn_layout;
pub use layout::{Row, SeatZones, TableLayout, Zone};
pub use place::{Sighting, place, place_frame, place_in_image, place_sightings};
pub use settle::{Change, ChangeKind, Motion, MotionGate, Place, SettleConfig, Settled, Settler};
pub use tracks::{CardTracker, TrackConfig};
pub use view::{CardView, EntityView, Face, SeatView, TableView};
pub use watch::{TableWatch, Watched};
