//! Symbol-card recognition for spot-the-symbol decks: find the round cards in a frame
//! ([`detect`]), cut each into symbol blobs ([`blobs`]), describe every blob with features that
//! survive a change of camera, scale and rotation ([`describe`]), and name the card with the deck's
//! structure ([`identify`]). [`enroll`] learns a deck's symbol appearances from labelled photos (or
//! from the renderer for the built-in Cipher deck), [`unlabelled`] from photos without card ids (their crops
//! matched into classes by [`cluster`], a few classes named by the user); [`referee`] checks a called symbol.

pub mod blobs;
pub mod cluster;
pub mod describe;
pub mod detect;
pub mod enroll;
pub mod eval;
pub mod identify;
pub mod labels;
pub mod output;
pub mod photo_scene;
pub mod referee;
pub mod synth;
pub mod unlabelled;

pub use enroll::{SymbolAppearance, SymbolProfile};
pub use identify::{SeenSymbol, SymbolCardDetection, SymbolRecognizer};
pub use referee::{RefereeVerdict, referee_check};
