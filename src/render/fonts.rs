//! Typefaces for card indices beyond the two bundled ones: any TrueType or OpenType file that
//! draws every index character. Used to vary training and test scenes; the product itself only
//! needs the bundled fonts.

use std::path::Path;
use std::sync::Arc;

use ab_glyph::{Font, FontRef};

/// Every character a card index uses.
const INDEX_CHARS: &str = "A234567891JQK0";

/// Whether `bytes` is a font that can draw every index character.
pub fn draws_indices(bytes: &[u8]) -> bool {
    FontRef::try_from_slice(bytes).is_ok_and(|font| {
        INDEX_CHARS.chars().all(|c| font.glyph_id(c).0 != 0 && font.outline(font.glyph_id(c)).is_some())
    })
}

/// The usable fonts found under `dir` (searched recursively), sorted by path so that a seed picks
/// the same font on the same machine.
pub fn fonts_under(dir: &Path) -> Vec<Arc<[u8]>> {
    let mut paths = Vec::new();
    collect(dir, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| std::fs::read(path).ok())
        .filter(|bytes| draws_indices(bytes))
        .map(Arc::from)
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e, "ttf" | "otf" | "TTF" | "OTF"))
        {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::Card;
    use crate::render::face::{FaceStyle, IndexFont, draw_face};
    use opencv::prelude::*;

    #[test]
    fn the_bundled_fonts_draw_every_index_and_garbage_does_not() {
        assert!(draws_indices(epaint_default_fonts::HACK_REGULAR));
        assert!(draws_indices(epaint_default_fonts::UBUNTU_LIGHT));
        assert!(!draws_indices(b"not a font at all"));
    }

    #[test]
    fn a_custom_font_draws_like_the_same_bundled_font() {
        let card: Card = "10S".parse().unwrap();
        let bundled = FaceStyle { font: IndexFont::Hack, ..FaceStyle::default() };
        let custom =
            FaceStyle { font: IndexFont::Custom(Arc::from(epaint_default_fonts::HACK_REGULAR)), ..bundled.clone() };
        let a = draw_face(card, &bundled, 150).unwrap();
        let b = draw_face(card, &custom, 150).unwrap();
        assert_eq!(a.data_bytes().unwrap(), b.data_bytes().unwrap());
        let ubuntu = draw_face(card, &FaceStyle { font: IndexFont::Ubuntu, ..bundled }, 150).unwrap();
        assert_ne!(a.data_bytes().unwrap(), ubuntu.data_bytes().unwrap());
    }

    #[test]
    fn a_folder_without_fonts_gives_none() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fake.ttf"), b"nope").unwrap();
        assert!(fonts_under(dir.path()).is_empty());
    }
}
