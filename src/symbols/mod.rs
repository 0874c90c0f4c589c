//! Spot-the-symbol decks and the mini-games referee: pure Rust, no camera and no window.
//!
//! - [`deck`]: symbol decks (load, validate, generate projective planes, decode a card from
//!   recognised symbols).
//! - [`names`]: forgiving matching of called names against a deck's symbols.
//! - [`games`]: the four mini-games as state machines, claims and matches.
//! - [`notation`]: the line-based match record and its replay.
//! - [`cipher`]: the built-in "Cipher deck" (57 cryptography symbols with pictures).
//! - [`render`]: round card layout, raster rendering with ground truth, printable PDF.

pub mod cipher;
pub mod deck;
pub mod games;
pub mod names;
pub mod notation;
pub mod render;

pub use deck::{Card, CardId, Deck, DeckError, DeckProblem, SymbolId};

use std::path::Path;

/// A deck named on the command line or in a match record: a built-in name (`cipher`, or
/// `plane-N` for the projective plane of order N), or else a path to a `deck.json`, read
/// relative to `base` when it is relative.
pub fn load_deck(spec: &str, base: &Path) -> Result<Deck, DeckError> {
    if let Some(deck) = builtin_deck(spec) {
        return Ok(deck);
    }
    let path = Path::new(spec);
    let path = if path.is_relative() { base.join(path) } else { path.to_path_buf() };
    Deck::load(&path)
}

/// The built-in decks by name.
pub fn builtin_deck(name: &str) -> Option<Deck> {
    if name == cipher::NAME {
        return Some(cipher::cipher_deck());
    }
    let order: usize = name.strip_prefix("plane-")?.parse().ok()?;
    deck::projective_plane(order).ok()
}
