//! Synthetic table frames for testing and benchmarking: cards of a picture deck drawn by the
//! renderer on a random table, then seen through a mild perspective, blurred, and partly covered
//! (cards overlap, and a hand-like dark box covers part of one card).

use anyhow::Result;
use opencv::core::{self, Mat, Point2f, Scalar, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::enroll::rgba_on_white;
use crate::symbols::deck::CardId;
use crate::symbols::render::PictureDeck;
use crate::symbols::render::scene::{Scene, SceneCard, render_scene};

/// A card as placed in a synthetic frame (centre after the perspective).
#[derive(Clone, Debug, PartialEq)]
pub struct SynthCard {
    pub card: CardId,
    pub center: (f32, f32),
    pub radius: f32,
    /// Fraction of the card left uncovered by later cards and the occluder (approximate).
    pub visible: f32,
}

impl SynthCard {
    /// The detection that found this card: the one whose centre lies within 0.3 radius of it.
    pub fn found_in<'a>(&self, found: &'a [super::SymbolCardDetection]) -> Option<&'a super::SymbolCardDetection> {
        found.iter().find(|d| {
            let (dx, dy) = (d.region.center.0 - self.center.0, d.region.center.1 - self.center.1);
            (dx * dx + dy * dy).sqrt() < 0.3 * self.radius
        })
    }
}

/// Draws a `width` x `height` frame with `count` distinct cards, from `seed`.
pub fn synthetic_frame(
    deck: &PictureDeck,
    seed: u64,
    width: u32,
    height: u32,
    count: usize,
) -> Result<(Mat, Vec<SynthCard>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ids: Vec<CardId> = deck.deck.cards().iter().map(|c| c.id).collect();
    let mut chosen: Vec<CardId> = Vec::new();
    while chosen.len() < count.min(ids.len()) {
        let id = ids[rng.random_range(0..ids.len())];
        if !chosen.contains(&id) {
            chosen.push(id);
        }
    }
    let (w, h) = (width as f32, height as f32);
    // Cards on a loose grid with jitter, so that neighbours may touch or overlap a little.
    let cols = (count as f32).sqrt().ceil().max(1.0) as usize;
    let rows = count.div_ceil(cols).max(1);
    let cell = (w / cols as f32).min(h / rows as f32);
    let mut cards = Vec::new();
    for (k, &card) in chosen.iter().enumerate() {
        let (cx, cy) = (
            (k % cols) as f32 * (w / cols as f32) + w / cols as f32 / 2.0,
            (k / cols) as f32 * (h / rows as f32) + h / rows as f32 / 2.0,
        );
        let diameter = cell * rng.random_range(0.72..0.92);
        cards.push(SceneCard {
            card,
            center: (cx + rng.random_range(-0.1..0.1) * cell, cy + rng.random_range(-0.06..0.06) * cell),
            diameter,
            rotation_deg: rng.random_range(0.0..360.0),
        });
    }
    let table = [rng.random_range(10..200u8), rng.random_range(10..200u8), rng.random_range(10..200u8)];
    let scene = Scene { width, height, table_rgb: table, cards: cards.clone() };
    let (img, truth) = render_scene(deck, &scene)?;
    let flat = rgba_on_white(&img)?;
    // Mild perspective: the corners move by up to 6 % of the frame.
    let src: Vector<Point2f> =
        Vector::from_iter([(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)].map(|(x, y)| Point2f::new(x, y)));
    let dst: Vector<Point2f> = src
        .iter()
        .map(|p| Point2f::new(p.x + rng.random_range(-0.06..0.06) * w, p.y + rng.random_range(-0.06..0.06) * h))
        .collect();
    let m = imgproc::get_perspective_transform(&src, &dst, core::DECOMP_LU)?;
    let mut warped = Mat::default();
    let [r, g, b] = table;
    imgproc::warp_perspective(
        &flat,
        &mut warped,
        &m,
        Size::new(width as i32, height as i32),
        imgproc::INTER_LINEAR,
        core::BORDER_CONSTANT,
        Scalar::new(b as f64, g as f64, r as f64, 0.0),
    )?;
    let sigma = rng.random_range(0.5..1.5);
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(&warped, &mut blurred, Size::new(0, 0), sigma, sigma, core::BORDER_DEFAULT)?;
    let mv = |p: (f32, f32)| -> Result<(f32, f32)> {
        let mut e = [0.0f64; 9];
        for (i, v) in e.iter_mut().enumerate() {
            *v = *m.at_2d::<f64>((i / 3) as i32, (i % 3) as i32)?;
        }
        let (x, y) = (p.0 as f64, p.1 as f64);
        let z = e[6] * x + e[7] * y + e[8];
        Ok((((e[0] * x + e[1] * y + e[2]) / z) as f32, ((e[3] * x + e[4] * y + e[5]) / z) as f32))
    };
    let mut out = Vec::new();
    for (k, t) in truth.iter().enumerate() {
        // Visible share, by sampling the disc against later cards.
        let mut seen = 0;
        let total = 400;
        for i in 0..total {
            let (a, rr) = (i as f32 * 2.399_963, t.radius * ((i as f32 + 0.5) / total as f32).sqrt());
            let p = (t.center.0 + rr * a.cos(), t.center.1 + rr * a.sin());
            let covered = truth[k + 1..]
                .iter()
                .any(|o| (p.0 - o.center.0).powi(2) + (p.1 - o.center.1).powi(2) < o.radius * o.radius);
            if !covered {
                seen += 1;
            }
        }
        out.push(SynthCard {
            card: t.card,
            center: mv(t.center)?,
            radius: t.radius,
            visible: seen as f32 / total as f32,
        });
    }
    // A dark box covering the rim of one card, like a hand reaching in.
    if !out.is_empty() {
        let k = rng.random_range(0..out.len());
        let c = out[k].clone();
        let side = c.radius * 0.6;
        let angle = rng.random_range(0.0..std::f32::consts::TAU);
        let (bx, by) = (c.center.0 + angle.cos() * c.radius, c.center.1 + angle.sin() * c.radius);
        let rect = core::Rect::new((bx - side / 2.0) as i32, (by - side / 2.0) as i32, side as i32, side as i32);
        imgproc::rectangle(&mut blurred, rect, Scalar::new(60.0, 80.0, 110.0, 0.0), -1, imgproc::LINE_8, 0)?;
        out[k].visible -= 0.12;
    }
    Ok((blurred, out))
}
