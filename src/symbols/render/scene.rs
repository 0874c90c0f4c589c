//! Synthetic table scenes for the vision tests: several cards on a coloured table, each at its own
//! place, size and rotation, drawn by the same renderer as the printed cards, with ground truth.

use std::fmt::Write as _;

use image::RgbaImage;

use super::{PictureDeck, RenderError, SymbolPlacement, card_svg, rasterise};
use crate::symbols::deck::CardId;

/// One card lying on the table.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneCard {
    pub card: CardId,
    pub center: (f32, f32),
    pub diameter: f32,
    /// Clockwise, degrees.
    pub rotation_deg: f32,
}

/// A table: its size in pixels, its colour, and the cards on it (later cards lie on top).
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub width: u32,
    pub height: u32,
    pub table_rgb: [u8; 3],
    pub cards: Vec<SceneCard>,
}

/// What was drawn for one card: the ground truth a detector should find.
#[derive(Clone, Debug, PartialEq)]
pub struct CardTruth {
    pub card: CardId,
    pub center: (f32, f32),
    pub radius: f32,
    /// The card's symbols in scene pixels (rotations include the card's own).
    pub symbols: Vec<SymbolPlacement>,
}

/// Draws a scene and returns it with the ground truth of every card.
pub fn render_scene(deck: &PictureDeck, scene: &Scene) -> Result<(RgbaImage, Vec<CardTruth>), RenderError> {
    if scene.width == 0 || scene.height == 0 || scene.width > 8192 || scene.height > 8192 {
        return Err(RenderError::BadSize(scene.width, scene.height));
    }
    let [r, g, b] = scene.table_rgb;
    let (w, h) = (scene.width, scene.height);
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{w}" height="{h}" viewBox="0 0 {w} {h}"><rect width="{w}" height="{h}" fill="rgb({r},{g},{b})"/>"#
    );
    let mut truth = Vec::with_capacity(scene.cards.len());
    for (i, placed) in scene.cards.iter().enumerate() {
        let card = deck.deck.card(placed.card).ok_or(RenderError::UnknownCard(placed.card))?;
        let d = placed.diameter;
        let (body, symbols) = card_svg(deck, card, d, &format!("k{i}"));
        let (cx, cy) = placed.center;
        // A soft shadow below the card, as on a real table.
        let _ = write!(
            svg,
            r#"<circle cx="{}" cy="{}" r="{}" fill="rgb(0,0,0)" fill-opacity="0.25"/>"#,
            cx + d * 0.015,
            cy + d * 0.02,
            d / 2.0
        );
        let _ = write!(
            svg,
            r#"<g transform="translate({cx} {cy}) rotate({}) translate({} {})">{body}</g>"#,
            placed.rotation_deg,
            -d / 2.0,
            -d / 2.0
        );
        let symbols = symbols.into_iter().map(|s| to_scene(s, placed)).collect();
        truth.push(CardTruth { card: placed.card, center: placed.center, radius: d / 2.0, symbols });
    }
    svg.push_str("</svg>");
    Ok((rasterise(&svg, w, h)?, truth))
}

/// Moves a placement from card coordinates (top-left origin) into the scene.
fn to_scene(mut s: SymbolPlacement, placed: &SceneCard) -> SymbolPlacement {
    let half = placed.diameter / 2.0;
    let (x, y) = (s.center.0 - half, s.center.1 - half);
    let (sin, cos) = placed.rotation_deg.to_radians().sin_cos();
    s.center = (placed.center.0 + x * cos - y * sin, placed.center.1 + x * sin + y * cos);
    s.rotation_deg = normalise_degrees(s.rotation_deg + placed.rotation_deg);
    s
}

fn normalise_degrees(d: f32) -> f32 {
    (d + 180.0).rem_euclid(360.0) - 180.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::render::render_card;

    /// Mean colour of a disc: unlike single pixels, it does not change when the picture turns.
    fn disc_mean(image: &RgbaImage, center: (f32, f32), radius: f32) -> [f32; 3] {
        let (mut sum, mut n) = ([0.0f32; 3], 0.0f32);
        let r = radius.ceil() as i32;
        for dy in -r..=r {
            for dx in -r..=r {
                if ((dx * dx + dy * dy) as f32) <= radius * radius {
                    let p = image.get_pixel((center.0 as i32 + dx) as u32, (center.1 as i32 + dy) as u32);
                    (0..3).for_each(|c| sum[c] += p[c] as f32);
                    n += 1.0;
                }
            }
        }
        sum.map(|v| v / n)
    }

    /// A symbol drawn in a scene sits where the ground truth says: the colours around its centre
    /// match those of the same symbol on the card drawn alone, upright.
    #[test]
    fn ground_truth_follows_the_card() {
        let deck = PictureDeck::cipher();
        let placed = SceneCard { card: 5, center: (260.0, 200.0), diameter: 300.0, rotation_deg: 90.0 };
        let scene = Scene { width: 520, height: 400, table_rgb: [30, 90, 50], cards: vec![placed] };
        let (image, truth) = render_scene(&deck, &scene).unwrap();
        let (alone, upright) = render_card(&deck, 5, 300).unwrap();
        assert_eq!(truth[0].symbols.len(), 8);
        for (s, u) in truth[0].symbols.iter().zip(&upright) {
            let a = disc_mean(&image, s.center, s.size / 4.0);
            let b = disc_mean(&alone, u.center, u.size / 4.0);
            let diff: f32 = (0..3).map(|c| (a[c] - b[c]).abs()).sum();
            assert!(diff < 20.0, "{}: {a:?} vs {b:?}", s.name);
            assert!((normalise_degrees(s.rotation_deg - u.rotation_deg - 90.0)).abs() < 1e-3);
        }
        // A wrong centre would not match: the card's first symbol is not where its second is.
        let first = disc_mean(&alone, upright[0].center, upright[0].size / 4.0);
        let elsewhere = disc_mean(&image, truth[0].symbols[1].center, truth[0].symbols[0].size / 4.0);
        assert!((0..3).map(|c| (first[c] - elsewhere[c]).abs()).sum::<f32>() > 20.0);
        // The table shows around the card.
        assert_eq!(image.get_pixel(5, 5).0, [30, 90, 50, 255]);
    }
}
