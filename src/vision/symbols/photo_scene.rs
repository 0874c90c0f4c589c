//! Mini-game tables made of real photographs: each card cut from a labelled photo (found and
//! rectified by the detector), then laid in untidy piles on a cloth, neighbours sometimes
//! touching, with a hand reaching over a pile, a card held up above another, and things that are
//! not cards (a mug, coins). What the renderer cannot show: the real deck's print, its camera's
//! colour and blur. The truth says which card lies on top of each pile.

use std::path::Path;

use anyhow::{Context, Result, bail};
use opencv::core::{self, Mat, Point, Point2f, Scalar, Size};
use opencv::imgcodecs;
use opencv::imgproc;
use opencv::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::detect::{CANON, find_cards, rectify};
use super::labels::read_labels;
use crate::symbols::deck::CardId;

/// One card cut from a photo: a `CANON` x `CANON` disc.
#[derive(Clone, Debug)]
pub struct PhotoCard {
    pub card: CardId,
    pub disc: Mat,
}

/// Cuts the card out of every photo of `dir` that shows exactly one.
pub fn cut_cards(dir: &Path) -> Result<Vec<PhotoCard>> {
    let mut cards = Vec::new();
    for image in read_labels(dir)? {
        let [card] = image.cards[..] else { continue };
        let bgr = imgcodecs::imread(image.path.display().to_string().as_str(), imgcodecs::IMREAD_COLOR)?;
        if bgr.empty() {
            bail!("{}: cannot read the image", image.path.display());
        }
        let regions = find_cards(&bgr).with_context(|| image.path.display().to_string())?;
        let Some(region) = regions.iter().max_by(|a, b| a.radius().total_cmp(&b.radius())) else { continue };
        cards.push(PhotoCard { card, disc: rectify(&bgr, region)? });
    }
    Ok(cards)
}

/// A pile as laid: where, and its cards bottom first (the last is on top).
#[derive(Clone, Debug, PartialEq)]
pub struct PileTruth {
    pub center: (f32, f32),
    pub cards: Vec<CardId>,
}

impl PileTruth {
    pub fn top(&self) -> Option<CardId> {
        self.cards.last().copied()
    }
}

/// A table of photographed cards and its truth.
pub struct PhotoScene {
    pub image: Mat,
    /// The middle pile first, then the seats clockwise from the bottom.
    pub piles: Vec<PileTruth>,
    /// A card held up in a hand above a pile (not on it).
    pub held: Option<CardId>,
    /// The card's diameter on the table, in pixels.
    pub diameter: f32,
}

/// What a scene holds besides the piles.
#[derive(Clone, Copy, Debug)]
pub struct SceneExtras {
    /// Cards per pile, at most.
    pub depth: usize,
    pub hand: bool,
    pub held_card: bool,
    pub clutter: bool,
}

/// Lays `seats` piles round a middle one, 1280x720, from `seed`.
pub fn photo_scene(cards: &[PhotoCard], seats: usize, extras: SceneExtras, seed: u64) -> Result<PhotoScene> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (w, h) = (1280.0f32, 720.0f32);
    let piles_needed = seats + 1;
    let mut order: Vec<&PhotoCard> = cards.iter().collect();
    order.shuffle(&mut rng);
    if order.len() < piles_needed * extras.depth.max(1) + 1 {
        bail!("{} cards are too few for {piles_needed} piles of {}", order.len(), extras.depth);
    }
    let mut image = cloth(&mut rng, w as i32, h as i32)?;
    let diameter = rng.random_range(170.0..215.0f32);
    let middle = (w / 2.0 + rng.random_range(-30.0..30.0), h / 2.0 + rng.random_range(-20.0..20.0));
    let (rx, ry) = (0.34 * w, 0.33 * h);
    let mut centers = vec![middle];
    for s in 0..seats {
        let a = std::f32::consts::FRAC_PI_2
            + s as f32 * std::f32::consts::TAU / seats as f32
            + rng.random_range(-0.12..0.12);
        let reach = rng.random_range(0.9..1.05);
        centers.push((middle.0 + reach * rx * a.cos(), middle.1 + reach * ry * a.sin()));
    }
    if extras.clutter {
        clutter(&mut image, &mut rng, &centers, diameter)?;
    }
    let mut next = order.into_iter();
    let mut piles = Vec::new();
    for &center in &centers {
        let depth = rng.random_range(1..=extras.depth.max(1));
        let mut pile = PileTruth { center, cards: Vec::new() };
        for _ in 0..depth {
            let card = next.next().expect("counted above");
            let a: f32 = rng.random_range(0.0..std::f32::consts::TAU);
            let r = rng.random_range(0.02..0.12) * diameter;
            let at = (center.0 + r * a.cos(), center.1 + r * a.sin());
            lay(&mut image, &card.disc, at, diameter, rng.random_range(0.0..360.0))?;
            pile.cards.push(card.card);
        }
        piles.push(pile);
    }
    let mut held = None;
    if extras.held_card {
        // Held up above a seat's pile: nearer the camera, so larger, and off the pile's centre.
        let k = rng.random_range(1..piles.len());
        let card = next.next().expect("counted above");
        let a: f32 = rng.random_range(0.0..std::f32::consts::TAU);
        let at = (piles[k].center.0 + 0.35 * diameter * a.cos(), piles[k].center.1 + 0.35 * diameter * a.sin());
        let size = diameter * rng.random_range(1.2..1.35);
        lay(&mut image, &card.disc, at, size, rng.random_range(0.0..360.0))?;
        hand(&mut image, at, (at.0 + 3.0 * (at.0 - middle.0), at.1 + 3.0 * (at.1 - middle.1)), size, 0.35, &mut rng)?;
        held = Some(card.card);
    }
    if extras.hand {
        // A hand resting at the edge of a pile, its fingers over the top card's rim.
        let k = rng.random_range(0..piles.len());
        let c = piles[k].center;
        let a: f32 = rng.random_range(0.0..std::f32::consts::TAU);
        let palm = (c.0 + 0.75 * diameter * a.cos(), c.1 + 0.75 * diameter * a.sin());
        let from = (palm.0 + 3.0 * (palm.0 - c.0), palm.1 + 3.0 * (palm.1 - c.1));
        hand(&mut image, palm, from, diameter, 0.3, &mut rng)?;
    }
    camera(&mut image, &mut rng)?;
    Ok(PhotoScene { image, piles, held, diameter })
}

/// A cloth of one colour with a fine weave and light falling off from a lamp.
fn cloth(rng: &mut ChaCha8Rng, w: i32, h: i32) -> Result<Mat> {
    let colour =
        Scalar::new(rng.random_range(20.0..150.0), rng.random_range(20.0..150.0), rng.random_range(20.0..150.0), 0.0);
    let mut image = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, colour)?;
    let mut weave = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, Scalar::all(0.0))?;
    core::RNG::new(rng.random())?.fill(&mut weave, core::RNG_NORMAL, &Scalar::all(0.0), &Scalar::all(7.0), false)?;
    let plain = image.clone();
    core::add(&plain, &weave, &mut image, &core::no_array(), -1)?;
    Ok(image)
}

/// A disc laid at `at`, `size` pixels across, turned, with a soft shadow.
fn lay(image: &mut Mat, disc: &Mat, at: (f32, f32), size: f32, turn: f32) -> Result<()> {
    let scale = f64::from(size) / f64::from(CANON);
    let centre = Point2f::new(CANON as f32 / 2.0, CANON as f32 / 2.0);
    let mut m = imgproc::get_rotation_matrix_2d(centre, f64::from(turn), scale)?;
    *m.at_2d_mut::<f64>(0, 2)? += f64::from(at.0) - f64::from(CANON) / 2.0;
    *m.at_2d_mut::<f64>(1, 2)? += f64::from(at.1) - f64::from(CANON) / 2.0;
    let size_px = image.size()?;
    let mut warped = Mat::default();
    imgproc::warp_affine(
        disc,
        &mut warped,
        &m,
        size_px,
        imgproc::INTER_LINEAR,
        core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )?;
    // The mask: the card's disc, a little inside the rectified edge (which holds the table).
    let mut mask = Mat::new_size_with_default(size_px, core::CV_8UC1, Scalar::all(0.0))?;
    let c = Point::new(at.0.round() as i32, at.1.round() as i32);
    let shadow = Point::new((at.0 + 0.03 * size).round() as i32, (at.1 + 0.04 * size).round() as i32);
    let r = (size / 2.0 * 0.97).round() as i32;
    let mut shade = Mat::new_size_with_default(size_px, core::CV_8UC1, Scalar::all(0.0))?;
    imgproc::circle(&mut shade, shadow, r, Scalar::all(255.0), -1, imgproc::LINE_AA, 0)?;
    let mut dark = Mat::default();
    image.convert_to(&mut dark, -1, 0.7, 0.0)?;
    dark.copy_to_masked(image, &shade)?;
    imgproc::circle(&mut mask, c, r, Scalar::all(255.0), -1, imgproc::LINE_AA, 0)?;
    warped.copy_to_masked(image, &mask)?;
    Ok(())
}

/// An arm from `from` to a palm at `palm`, with fingers reaching `reach` card diameters on.
fn hand(
    image: &mut Mat,
    palm: (f32, f32),
    from: (f32, f32),
    size: f32,
    reach: f32,
    rng: &mut ChaCha8Rng,
) -> Result<()> {
    let tones = [(205.0, 170.0, 150.0), (150.0, 110.0, 85.0), (95.0, 65.0, 50.0), (225.0, 190.0, 170.0)];
    let (r, g, b) = tones[rng.random_range(0..tones.len())];
    let skin = Scalar::new(b, g, r, 0.0);
    let p = Point::new(palm.0 as i32, palm.1 as i32);
    imgproc::line(image, Point::new(from.0 as i32, from.1 as i32), p, skin, (0.42 * size) as i32, imgproc::LINE_AA, 0)?;
    imgproc::circle(image, p, (0.24 * size) as i32, skin, -1, imgproc::LINE_AA, 0)?;
    let (dx, dy) = (palm.0 - from.0, palm.1 - from.1);
    let n = dx.hypot(dy).max(1.0);
    for k in -2..=2 {
        let side = (-dy / n * k as f32 * 0.08 * size, dx / n * k as f32 * 0.08 * size);
        let base = Point::new((palm.0 + side.0) as i32, (palm.1 + side.1) as i32);
        let tip = Point::new(
            (palm.0 + side.0 + dx / n * reach * size) as i32,
            (palm.1 + side.1 + dy / n * reach * size) as i32,
        );
        imgproc::line(image, base, tip, skin, (0.065 * size) as i32, imgproc::LINE_AA, 0)?;
    }
    Ok(())
}

/// Things on the table that are not cards: a mug seen from above and a few coins, away from the
/// piles' centres (they may touch a pile's edge).
fn clutter(image: &mut Mat, rng: &mut ChaCha8Rng, piles: &[(f32, f32)], diameter: f32) -> Result<()> {
    let (w, h) = (image.cols() as f32, image.rows() as f32);
    let free = |p: (f32, f32)| piles.iter().all(|c| (c.0 - p.0).hypot(c.1 - p.1) > 0.85 * diameter);
    for k in 0..12 {
        let p = (rng.random_range(0.05..0.95) * w, rng.random_range(0.05..0.95) * h);
        if !free(p) {
            continue;
        }
        let c = Point::new(p.0 as i32, p.1 as i32);
        if k == 0 {
            // A mug: a white rim round dark coffee, and its handle.
            let r = (0.42 * diameter) as i32;
            imgproc::circle(image, c, r, Scalar::new(235.0, 235.0, 235.0, 0.0), -1, imgproc::LINE_AA, 0)?;
            imgproc::circle(image, c, r * 4 / 5, Scalar::new(20.0, 40.0, 60.0, 0.0), -1, imgproc::LINE_AA, 0)?;
            let handle = Point::new(c.x + r + r / 3, c.y);
            imgproc::circle(image, handle, r / 3, Scalar::new(235.0, 235.0, 235.0, 0.0), r / 6, imgproc::LINE_AA, 0)?;
        } else {
            let r = (0.1 * diameter) as i32;
            let tone = rng.random_range(120.0..200.0);
            imgproc::circle(image, c, r, Scalar::new(tone * 0.6, tone * 0.8, tone, 0.0), -1, imgproc::LINE_AA, 0)?;
        }
    }
    Ok(())
}

/// The camera: a light gradient, a slight blur and sensor noise.
fn camera(image: &mut Mat, rng: &mut ChaCha8Rng) -> Result<()> {
    let gain = rng.random_range(0.8..1.15);
    let mut lit = Mat::default();
    image.convert_to(&mut lit, -1, gain, 0.0)?;
    let mut blurred = Mat::default();
    let sigma = rng.random_range(0.3..1.2);
    imgproc::gaussian_blur_def(&lit, &mut blurred, Size::new(5, 5), sigma)?;
    let mut noise = Mat::new_size_with_default(blurred.size()?, core::CV_16SC3, Scalar::all(0.0))?;
    core::RNG::new(rng.random())?.fill(&mut noise, core::RNG_NORMAL, &Scalar::all(0.0), &Scalar::all(4.0), false)?;
    core::add(&blurred, &noise, image, &core::no_array(), core::CV_8UC3)?;
    Ok(())
}
