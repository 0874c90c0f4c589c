//! What reads a card's index or face: the patches the networks see (`patch`), the index networks
//! (`index_net`), the index search without an outline (`index`), glyph templates (`classify`) and
//! glyph networks (`glyph_net`), and the face's centre as a second witness (`witness`).

pub mod classify;
pub mod glyph_net;
pub mod index;
pub mod index_net;
pub mod patch;
pub mod witness;
