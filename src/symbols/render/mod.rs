//! Drawing symbol cards: round cards with pictures at varied sizes and rotations, as SVG. The
//! same SVG feeds the raster renderer (resvg: images for the vision tests, with ground truth) and
//! the printable PDF (svg2pdf: vector output, so the sheets print sharp at any size).

pub mod layout;
pub mod pdf;
pub mod scene;

use std::fmt::Write as _;

use image::RgbaImage;
use resvg::{tiny_skia, usvg};

use super::cipher;
use super::deck::{Card, CardId, Deck, SymbolId};

pub use layout::{Slot, layout};
pub use pdf::{Paper, print_deck};
pub use scene::{CardTruth, Scene, SceneCard, render_scene};

/// A deck together with a picture for every symbol.
#[derive(Clone, Debug)]
pub struct PictureDeck {
    pub deck: Deck,
    /// One SVG document per symbol, indexed by [`SymbolId`].
    pictures: Vec<&'static str>,
}

impl PictureDeck {
    /// The built-in Cipher deck.
    pub fn cipher() -> PictureDeck {
        PictureDeck { deck: cipher::cipher_deck(), pictures: cipher::SYMBOLS.iter().map(|s| s.svg).collect() }
    }

    /// A built-in deck with pictures, by name ("cipher").
    pub fn builtin(name: &str) -> Option<PictureDeck> {
        (name == cipher::NAME).then(PictureDeck::cipher)
    }

    pub fn picture(&self, symbol: SymbolId) -> &'static str {
        self.pictures[symbol]
    }
}

/// Where one symbol was drawn, in the output's pixels: the ground truth for vision tests.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolPlacement {
    pub symbol: SymbolId,
    pub name: String,
    /// Centre of the picture.
    pub center: (f32, f32),
    /// Side of the picture's square (the drawing fills most of it).
    pub size: f32,
    /// Clockwise rotation of the picture, in degrees.
    pub rotation_deg: f32,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("the deck has no card {0}")]
    UnknownCard(CardId),
    #[error("cannot draw an image of {0} x {1} pixels")]
    BadSize(u32, u32),
    #[error("SVG rendering failed: {0}")]
    Svg(String),
    #[error("PDF writing failed: {0}")]
    Pdf(String),
}

/// A picture's drawing inside the circle its layout slot gives it: a bit smaller, so that rotated
/// corners of square drawings stay clear of the neighbours.
const PICTURE_IN_SLOT: f32 = 0.96;
/// Emoji pictures are drawn on a 128 x 128 view box.
const PICTURE_BOX: f32 = 128.0;

/// The SVG elements of one card whose top-left corner is at (0, 0), `diameter` user units wide:
/// white disc, thin cut circle, symbols. `ids` makes gradient ids unique when a document holds
/// several cards. Returns the elements and the symbols' placements in the same units.
pub fn card_svg(deck: &PictureDeck, card: &Card, diameter: f32, ids: &str) -> (String, Vec<SymbolPlacement>) {
    let r = diameter / 2.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<circle cx="{r}" cy="{r}" r="{}" fill="#ffffff" stroke="#7a7a7a" stroke-width="{}"/>"##,
        r - diameter * 0.002,
        diameter * 0.003
    );
    let slots = layout(u64::from(card.id), card.symbols.len());
    let mut placements = Vec::with_capacity(slots.len());
    for (k, (&symbol, slot)) in card.symbols.iter().zip(&slots).enumerate() {
        let center = (r + slot.x * r, r + slot.y * r);
        let size = slot.diameter * r * PICTURE_IN_SLOT;
        let scale = size / PICTURE_BOX;
        let _ = write!(
            svg,
            r#"<g transform="translate({} {}) rotate({}) scale({scale}) translate(-64 -64)">{}</g>"#,
            center.0,
            center.1,
            slot.rotation_deg,
            unique_ids(svg_body(deck.picture(symbol)), &format!("{ids}s{k}"))
        );
        let name = deck.deck.symbol_name(symbol).to_string();
        placements.push(SymbolPlacement { symbol, name, center, size, rotation_deg: slot.rotation_deg });
    }
    (svg, placements)
}

/// The inside of an `<svg>` document: what lies between its opening tag and `</svg>`.
fn svg_body(document: &str) -> &str {
    let start = document.find("<svg").and_then(|i| document[i..].find('>').map(|j| i + j + 1)).unwrap_or(0);
    let end = document.rfind("</svg>").unwrap_or(document.len());
    &document[start..end.max(start)]
}

/// Appends `suffix` to every id defined in `body` and to the references to them, so that two
/// copies of a picture in one document do not share gradient definitions.
fn unique_ids(body: &str, suffix: &str) -> String {
    let mut out = body.to_string();
    let mut ids = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find(" id=\"") {
        let after = &rest[i + 5..];
        let Some(end) = after.find('"') else { break };
        ids.push(after[..end].to_string());
        rest = &after[end..];
    }
    for id in ids {
        out = out
            .replace(&format!(" id=\"{id}\""), &format!(" id=\"{id}-{suffix}\""))
            .replace(&format!("#{id})"), &format!("#{id}-{suffix})"))
            .replace(&format!("#{id}\""), &format!("#{id}-{suffix}\""));
    }
    out
}

/// Parses an SVG document we generated. Text uses the font compiled into the program (no system
/// fonts needed).
pub(crate) fn parse_svg(svg: &str) -> Result<usvg::Tree, RenderError> {
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_font_data(epaint_default_fonts::UBUNTU_LIGHT.to_vec());
    if let Some(family) = options.fontdb.faces().next().and_then(|f| f.families.first()) {
        options.font_family = family.0.clone();
    }
    usvg::Tree::from_str(svg, &options).map_err(|e| RenderError::Svg(e.to_string()))
}

/// Rasterises an SVG document to an RGBA image of the given size.
pub(crate) fn rasterise(svg: &str, width: u32, height: u32) -> Result<RgbaImage, RenderError> {
    let tree = parse_svg(svg)?;
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or(RenderError::BadSize(width, height))?;
    let scale = (width as f32 / tree.size().width(), height as f32 / tree.size().height());
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale.0, scale.1), &mut pixmap.as_mut());
    // tiny-skia stores premultiplied alpha; images want it straight.
    let pixels = pixmap.pixels().iter().flat_map(|p| {
        let c = p.demultiply();
        [c.red(), c.green(), c.blue(), c.alpha()]
    });
    RgbaImage::from_raw(width, height, pixels.collect()).ok_or(RenderError::BadSize(width, height))
}

/// Draws one card, `diameter_px` wide, on a transparent square. Returns the image and where each
/// symbol was drawn (centre, size and rotation in the image's pixels).
pub fn render_card(
    deck: &PictureDeck,
    card_id: CardId,
    diameter_px: u32,
) -> Result<(RgbaImage, Vec<SymbolPlacement>), RenderError> {
    let card = deck.deck.card(card_id).ok_or(RenderError::UnknownCard(card_id))?;
    if diameter_px == 0 || diameter_px > 8192 {
        return Err(RenderError::BadSize(diameter_px, diameter_px));
    }
    let d = diameter_px as f32;
    let (body, placements) = card_svg(deck, card, d, "c");
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{d}" height="{d}" viewBox="0 0 {d} {d}">{body}</svg>"#
    );
    Ok((rasterise(&svg, diameter_px, diameter_px)?, placements))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_and_ids() {
        let doc = r##"<svg xmlns="x" viewBox="0 0 128 128"><linearGradient id="g1"/><path fill="url(#g1)" xlink:href="#g1"/></svg>"##;
        assert_eq!(svg_body(doc), r##"<linearGradient id="g1"/><path fill="url(#g1)" xlink:href="#g1"/>"##);
        let unique = unique_ids(svg_body(doc), "c1");
        assert_eq!(unique, r##"<linearGradient id="g1-c1"/><path fill="url(#g1-c1)" xlink:href="#g1-c1"/>"##);
    }

    #[test]
    fn rendered_card_shows_its_symbols() {
        let deck = PictureDeck::cipher();
        let (image, placements) = render_card(&deck, 1, 300).unwrap();
        assert_eq!(image.dimensions(), (300, 300));
        let names: Vec<&str> = placements.iter().map(|p| p.name.as_str()).collect();
        let card = deck.deck.card(1).unwrap();
        let expected: Vec<&str> = card.symbols.iter().map(|&s| deck.deck.symbol_name(s)).collect();
        assert_eq!(names, expected);
        // Corners are off the card (transparent); the centre of the card is painted.
        assert_eq!(image.get_pixel(2, 2)[3], 0);
        assert_eq!(image.get_pixel(150, 150)[3], 255);
        // Each picture puts colour (not just white card) inside its box.
        for p in &placements {
            let (cx, cy, half) = (p.center.0 as i32, p.center.1 as i32, (p.size / 4.0) as i32);
            let coloured = (-half..=half)
                .flat_map(|dx| (-half..=half).map(move |dy| (dx, dy)))
                .filter(|(dx, dy)| {
                    let px = image.get_pixel((cx + dx) as u32, (cy + dy) as u32);
                    px[0].min(px[1]).min(px[2]) < 200
                })
                .count();
            assert!(coloured > 0, "{} is not drawn", p.name);
        }
        assert!(render_card(&deck, 99, 300).is_err());
        assert!(render_card(&deck, 1, 0).is_err());
    }
}
