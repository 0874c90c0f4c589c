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
pub mod seen;
pub mod simulate;

pub use deck::{Card, CardId, Deck, DeckError, DeckProblem, SymbolId};

use std::path::Path;

/// A deck named on the command line or in a match record: a built-in name (`cipher`, or
/// `plane-N` for the projective plane of order N), or else a path to a `deck.json`, read
/// relative to `base` when it is relative.
///
/// A name that looks like a built-in deck's (`plane-6`, `Cipher`) but is none, with no file of
/// that name, is refused saying so and naming the built-in decks, not as a missing file.
pub fn load_deck(spec: &str, base: &Path) -> Result<Deck, DeckError> {
    if let Some(deck) = builtin_deck(spec) {
        return Ok(deck);
    }
    let path = Path::new(spec);
    let path = if path.is_relative() { base.join(path) } else { path.to_path_buf() };
    if !path.exists()
        && let Some(reason) = not_a_builtin(spec)
    {
        return Err(DeckError::NoSuchBuiltin { name: spec.to_string(), reason });
    }
    Deck::load(&path)
}

/// The built-in decks, as an error lists them.
pub fn builtin_names() -> String {
    let orders: Vec<String> =
        deck::plane::plane_orders(deck::plane::MAX_PLANE_ORDER).iter().map(|q| q.to_string()).collect();
    format!("{}, plane-N for N = {}", cipher::NAME, orders.join(", "))
}

/// Why `spec`, which looks like a built-in deck's name, names none (`None` when it looks like a
/// file name instead).
fn not_a_builtin(spec: &str) -> Option<String> {
    if let Some(order) = spec.strip_prefix("plane-").or_else(|| spec.strip_prefix("Plane-")) {
        let why = match order.parse::<usize>() {
            Ok(q) => match deck::projective_plane(q) {
                Err(e) => e.to_string(),
                Ok(_) => "names are lower case".to_string(),
            },
            Err(_) => format!("{} is not a plane order", crate::text_input::escaped(order)),
        };
        return Some(format!(" ({why})"));
    }
    if spec.eq_ignore_ascii_case(cipher::NAME) {
        return Some(format!(" (names are lower case: {})", cipher::NAME));
    }
    // A bare word without a file extension or folder is meant as a built-in name.
    let bare = !spec.contains(['/', '\\', '.']) && !spec.is_empty();
    bare.then(String::new)
}

/// The built-in decks by name.
pub fn builtin_deck(name: &str) -> Option<Deck> {
    if name == cipher::NAME {
        return Some(cipher::cipher_deck());
    }
    let order: usize = name.strip_prefix("plane-")?.parse().ok()?;
    deck::projective_plane(order).ok()
}
