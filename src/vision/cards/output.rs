//! The detection JSON of `card-referee detect --json` (shared/spec/formats.md), and drawing.

use opencv::{core, imgproc, prelude::*};
use serde::Serialize;

use super::types::{CardDetection, Face};

#[derive(Serialize)]
pub struct CardJson {
    pub card: Option<String>,
    pub face: Face,
    pub confidence: f32,
    pub quad: Option<[[f32; 2]; 4]>,
    pub index_boxes: Vec<[i32; 4]>,
}

#[derive(Serialize)]
pub struct ImageJson {
    pub image: String,
    pub width: i32,
    pub height: i32,
    pub ms: f64,
    pub cards: Vec<CardJson>,
}

impl ImageJson {
    pub fn new(image: String, width: i32, height: i32, ms: f64, cards: &[CardDetection]) -> ImageJson {
        let round = |v: f32| (v * 100.0).round() / 100.0;
        let cards = cards
            .iter()
            .map(|c| CardJson {
                card: c.card.map(|k| k.code()),
                face: c.face,
                confidence: round(c.confidence),
                quad: c.quad.map(|q| q.map(|p| [round(p[0]), round(p[1])])),
                index_boxes: c.index_boxes.clone(),
            })
            .collect();
        ImageJson { image, width, height, ms: (ms * 100.0).round() / 100.0, cards }
    }
}

/// Draws outlines (green face up, blue face down), index boxes and labels on a BGR image.
pub fn draw(image: &mut Mat, cards: &[CardDetection]) -> opencv::Result<()> {
    for card in cards {
        let color = match card.face {
            Face::Up => core::Scalar::new(0.0, 200.0, 0.0, 0.0),
            Face::Down => core::Scalar::new(255.0, 80.0, 0.0, 0.0),
        };
        let mut anchor = core::Point::new(0, 0);
        if let Some(q) = card.quad {
            let pts =
                core::Vector::<core::Point>::from_iter(q.iter().map(|p| core::Point::new(p[0] as i32, p[1] as i32)));
            imgproc::polylines(image, &pts, true, color, 2, imgproc::LINE_AA, 0)?;
            anchor = core::Point::new(q[0][0] as i32, q[0][1] as i32 - 6);
        }
        for b in &card.index_boxes {
            let rect = core::Rect::new(b[0], b[1], b[2], b[3]);
            imgproc::rectangle(image, rect, core::Scalar::new(0.0, 200.0, 255.0, 0.0), 1, imgproc::LINE_8, 0)?;
            if card.quad.is_none() {
                anchor = core::Point::new(b[0], b[1] - 4);
            }
        }
        let text = match (card.face, card.card) {
            (Face::Down, _) => "down".to_string(),
            (Face::Up, Some(c)) => format!("{} {:.2}", c.code(), card.confidence),
            (Face::Up, None) => format!("? {:.2}", card.confidence),
        };
        imgproc::put_text(
            image,
            &text,
            anchor,
            imgproc::FONT_HERSHEY_SIMPLEX,
            0.6,
            core::Scalar::new(0.0, 0.0, 255.0, 0.0),
            2,
            imgproc::LINE_AA,
            false,
        )?;
    }
    Ok(())
}
