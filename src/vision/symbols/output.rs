//! Detection output: the JSON line of `symbols detect --json` (formats.md), a text summary, and
//! a drawing of the cards and symbol names on the image.

use anyhow::Result;
use opencv::core::{Mat, Point, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use serde_json::{Value, json};

use super::identify::SymbolCardDetection;

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One image's detections as the `symbols detect --json` object.
pub fn detections_json(image: &str, ms: f64, cards: &[SymbolCardDetection]) -> Value {
    let cards: Vec<Value> = cards
        .iter()
        .map(|c| {
            let symbols: Vec<Value> = c
                .symbols
                .iter()
                .filter_map(|s| {
                    Some(json!({
                        "name": s.name.clone()?,
                        "center": [round1(s.center.0 as f64), round1(s.center.1 as f64)],
                        "confidence": round3(s.confidence),
                    }))
                })
                .collect();
            json!({
                "card": c.card,
                "confidence": round3(c.confidence),
                "center": [round1(c.region.center.0 as f64), round1(c.region.center.1 as f64)],
                "radius": round1(c.region.radius() as f64),
                "symbols": symbols,
            })
        })
        .collect();
    json!({"image": image, "ms": round1(ms), "cards": cards})
}

/// A human-readable summary, one line per card.
pub fn detections_text(image: &str, ms: f64, cards: &[SymbolCardDetection]) -> String {
    let mut out = format!("{image}: {} card(s), {ms:.1} ms\n", cards.len());
    for c in cards {
        let names: Vec<&str> = c.symbols.iter().filter_map(|s| s.name.as_deref()).collect();
        let id = c.card.map_or("unknown".to_string(), |id| format!("card {id}"));
        out.push_str(&format!(
            "  {id} (confidence {:.2}) at ({:.0}, {:.0}) r {:.0}: {}\n",
            c.confidence,
            c.region.center.0,
            c.region.center.1,
            c.region.radius(),
            names.join(", ")
        ));
    }
    out
}

/// Draws the cards (ellipses, ids) and symbol names on a copy of the image.
pub fn draw(bgr: &Mat, cards: &[SymbolCardDetection]) -> Result<Mat> {
    let mut out = bgr.clone();
    let scale = (bgr.cols().max(bgr.rows()) as f64 / 900.0).max(0.35);
    for c in cards {
        let colour =
            if c.card.is_some() { Scalar::new(0.0, 200.0, 0.0, 0.0) } else { Scalar::new(0.0, 0.0, 230.0, 0.0) };
        let r = c.region;
        imgproc::ellipse(
            &mut out,
            Point::new(r.center.0 as i32, r.center.1 as i32),
            Size::new(r.axes.0 as i32, r.axes.1 as i32),
            r.angle_deg as f64,
            0.0,
            360.0,
            colour,
            2,
            imgproc::LINE_AA,
            0,
        )?;
        let label = c.card.map_or("unknown".to_string(), |id| format!("#{id} {:.2}", c.confidence));
        let top = Point::new((r.center.0 - r.radius() * 0.3) as i32, (r.center.1 - r.radius() - 6.0).max(12.0) as i32);
        imgproc::put_text(
            &mut out,
            &label,
            top,
            imgproc::FONT_HERSHEY_SIMPLEX,
            0.6 * scale * 1.5,
            colour,
            2,
            imgproc::LINE_AA,
            false,
        )?;
        for s in &c.symbols {
            let p = Point::new(s.center.0 as i32, s.center.1 as i32);
            imgproc::circle(&mut out, p, 3, Scalar::new(255.0, 0.0, 0.0, 0.0), -1, imgproc::LINE_AA, 0)?;
            if let Some(name) = &s.name {
                imgproc::put_text(
                    &mut out,
                    name,
                    p,
                    imgproc::FONT_HERSHEY_SIMPLEX,
                    0.45 * scale * 1.5,
                    Scalar::all(0.0),
                    1,
                    imgproc::LINE_AA,
                    false,
                )?;
            }
        }
    }
    Ok(out)
}
