//! The table, game-free: what the camera shows placed in the rows of the table's layout
//! (`crate::layout`, re-exported here) (`view`), and the settled view over frames
//! (`settle`, `watch`). Fed by `vision`, read by `referee`;
//! knows nothing of the rules or the window.

pub mod backs;
pub mod calibrate;
pub mod footage;
pub mod place;
pub mod settle;
pub mod tracks;
pub mod view;
pub mod watch;

pub use crate::layout::{Row, SeatZones, TableLayout, Zone};
pub use crate::vision::motion::MotionGate;
pub use backs::place_frame;
pub use calibrate::learn_layout;
pub use place::{Sighting, place, place_in_image, place_sightings};
pub use settle::{Change, ChangeKind, Motion, Place, SettleConfig, Settled, Settler};
pub use tracks::{CardTracker, TrackConfig};
pub use view::{CardView, EntityView, Face, SeatView, TableView};
pub use watch::{TableWatch, Watched};
