//! Training data for the card reader, made from the renderer's faces: damaged index glyphs for
//! the glyph templates (`glyphs`), and labelled corner and index patches from rendered tables for
//! the index network (`patches`). Used by the examples that train and evaluate the readers.

pub mod glyphs;
pub mod patches;
