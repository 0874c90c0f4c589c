//! A round card as a frame shows it, free of the vision types: what the symbol reader hands to
//! the mini-game referee.

use super::deck::{CardId, SymbolId};

/// A round card found in a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundCard {
    /// `None`: a round thing not read as a card of the deck.
    pub card: Option<CardId>,
    /// Centre and radius in image pixels.
    pub center: (f32, f32),
    pub radius: f32,
    /// The symbols read on it, with where each lies in the image.
    pub symbols: Vec<(SymbolId, (f32, f32))>,
}
