//! Face-down cards in the Front Rows, found in the frame itself. The card reader finds a lone back
//! by its outline, but backs lying side by side with a shielded entity among them (a Diamond's
//! back offset over its base) make one blob that is no card-shaped outline, and the reader drops
//! it. Knowing where each Front Row lies, this looks along the row in a top view of the table:
//! where the row's strip is not the table's colour over a card's width, a card lies; where it also
//! is below the card's lower edge, a second back lies over it.

use opencv::core::{self, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::render::geometry::{Homography, Pt, quad_contains};
use crate::render::scene::CARD_MM;

use super::layout::{ROW_SLOTS, Row, TableLayout};
use super::place::{MODIFIER_MM, Sighting};
use super::view::Face;

/// The strip looked at, across the row (millimetres toward the seat from the row's line): from
/// past a base's far edge to past a modifier's near edge.
const ACROSS: (f64, f64) = (-60.0, 100.0);
/// The base's band (inside any card lying on the line) and the band only a modifier covers
/// (below the base's lower edge at 44 mm, above the modifier's at 81).
const BASE_BAND: (f64, f64) = (-36.0, 36.0);
const MODIFIER_BAND: (f64, f64) = (52.0, 76.0);
/// Colour distance from the table's colour above which a pixel is no table.
const NOT_TABLE: f64 = 45.0;
/// The strip's resolution: a card is 31 pixels wide.
const MM_PER_PX: f64 = 2.0;
/// Share of a band's pixels that must be no table for a card to lie there.
const COVERED: f64 = 0.5;

/// Face-down cards found along every Front Row, as sightings in table millimetres (stacks of two
/// as one long outline, as the reader gives them).
pub fn front_row_backs(frame: &Mat, layout: &TableLayout) -> opencv::Result<Vec<Sighting>> {
    let Some(to_image) = layout.image_to_table().inverse() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for seat in &layout.seats {
        out.extend(row_backs(frame, &seat.front, &to_image)?);
    }
    Ok(out)
}

/// `sightings` with the backs found along the Front Rows: each back found replaces the reader's
/// face-down outlines over it (the reader merges backs lying close into one outline, or sees one
/// card of a stack of two), and stands aside where the reader saw a face-up card.
pub fn add_missed_backs(sightings: &mut Vec<Sighting>, backs: Vec<Sighting>) {
    let mut found = Vec::new();
    for b in backs {
        let overlaps = |s: &Sighting| {
            s.centre.distance(b.centre) < 30.0
                || s.outline.as_ref().is_some_and(|o| quad_contains(o, b.centre))
                || b.outline.as_ref().is_some_and(|o| quad_contains(o, s.centre))
        };
        if sightings.iter().any(|s| s.face == Face::Up && overlaps(s)) {
            continue;
        }
        sightings.retain(|s| !overlaps(s));
        found.push(b);
    }
    sightings.extend(found);
}

fn row_backs(frame: &Mat, row: &Row, to_image: &Homography) -> opencv::Result<Vec<Sighting>> {
    let step = row.step.x.hypot(row.step.y);
    let u = Pt::new(row.step.x / step, row.step.y / step);
    let d = {
        let m = row.modifier_at(Pt::new(0.0, 0.0));
        let len = m.x.hypot(m.y);
        Pt::new(m.x / len, m.y / len)
    };
    let (a0, a1) = (-0.5 * step, (ROW_SLOTS as f64 - 0.5) * step);
    let c0 = ACROSS.0;
    // Strip millimetres (along, across from the strip's corner) → table point.
    let strip_to_table = Homography([
        [u.x, d.x, row.first.x + u.x * a0 + d.x * c0],
        [u.y, d.y, row.first.y + u.y * a0 + d.y * c0],
        [0.0, 0.0, 1.0],
    ]);
    let to_table = |i: f64, j: f64| strip_to_table.apply(Pt::new(i, j));
    let size = Size::new(((a1 - a0) / MM_PER_PX) as i32, ((ACROSS.1 - ACROSS.0) / MM_PER_PX) as i32);
    let pixel_to_table = strip_to_table.then_after(&Homography::scale(MM_PER_PX, MM_PER_PX));
    let m = to_image.then_after(&pixel_to_table).to_mat()?;
    let flags = imgproc::INTER_LINEAR | imgproc::WARP_INVERSE_MAP;
    let mut strip = Mat::default();
    imgproc::warp_perspective(frame, &mut strip, &m, size, flags, core::BORDER_CONSTANT, Scalar::all(0.0))?;
    let ones = Mat::new_size_with_default(frame.size()?, core::CV_8UC1, Scalar::all(255.0))?;
    let mut valid = Mat::default();
    imgproc::warp_perspective(
        &ones,
        &mut valid,
        &m,
        size,
        imgproc::INTER_NEAREST | imgproc::WARP_INVERSE_MAP,
        core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )?;
    let covered = not_table(&strip, &valid)?;
    let band = |i: usize, (lo, hi): (f64, f64)| {
        let (j0, j1) = (((lo - c0) / MM_PER_PX) as usize, ((hi - c0) / MM_PER_PX) as usize);
        (j0..j1).filter(|&j| covered[j][i]).count() as f64 / (j1 - j0) as f64
    };
    let width = size.width as usize;
    let base: Vec<bool> = (0..width).map(|i| band(i, BASE_BAND) > COVERED).collect();

    let mut out = Vec::new();
    let mut i = 0;
    while i < width {
        if !base[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < width && base[i] {
            i += 1;
        }
        let run = (i - start) as f64 * MM_PER_PX;
        if run < CARD_MM.0 * 0.6 {
            continue;
        }
        let cards = (((run - CARD_MM.0) / step).round().max(0.0) as usize) + 1;
        let gap = if cards > 1 { (run - CARD_MM.0) / (cards - 1) as f64 } else { 0.0 };
        for k in 0..cards {
            let centre = start as f64 * MM_PER_PX + CARD_MM.0 / 2.0 + gap * k as f64;
            let span =
                ((centre - 25.0).max(0.0) / MM_PER_PX) as usize..(((centre + 25.0) / MM_PER_PX) as usize).min(width);
            let n = span.len().max(1) as f64;
            let shielded = span.map(|c| band(c, MODIFIER_BAND)).sum::<f64>() / n > COVERED;
            let (half_w, near, far) = (
                CARD_MM.0 / 2.0,
                -CARD_MM.1 / 2.0 - c0,
                CARD_MM.1 / 2.0 + if shielded { MODIFIER_MM } else { 0.0 } - c0,
            );
            let outline =
                [(centre - half_w, near), (centre + half_w, near), (centre + half_w, far), (centre - half_w, far)]
                    .map(|(x, y)| to_table(x, y));
            let middle = to_table(centre, (near + far) / 2.0);
            out.push(Sighting {
                centre: middle,
                face: Face::Down,
                card: None,
                confidence: 0.5,
                outline: Some(outline),
                index: None,
            });
        }
    }
    Ok(out)
}

/// Per strip pixel (row-major, `[j][i]`), whether it is no table: far from the strip's median
/// colour (the table's, since cards cover less than half of a row). A hand counts as cards: the
/// settler keeps frames with a hand over a changed table out (see `settle`).
fn not_table(strip: &Mat, valid: &Mat) -> opencv::Result<Vec<Vec<bool>>> {
    let (rows, cols) = (strip.rows() as usize, strip.cols() as usize);
    let (pixels, valid) = (strip.data_bytes()?, valid.data_bytes()?);
    let mut histograms = [[0u32; 256]; 3];
    let mut counted = 0;
    for k in (0..rows * cols).filter(|&k| valid[k] > 0) {
        for (c, histogram) in histograms.iter_mut().enumerate() {
            histogram[usize::from(pixels[3 * k + c])] += 1;
        }
        counted += 1;
    }
    let median = |histogram: &[u32; 256]| {
        let mut seen = 0;
        histogram.iter().position(|&n| {
            seen += n;
            seen * 2 > counted
        })
    };
    let table = histograms.each_ref().map(|h| median(h).unwrap_or(0) as i32);
    let limit = (NOT_TABLE * NOT_TABLE) as i32;
    let mut out = vec![vec![false; cols]; rows];
    for (j, line) in out.iter_mut().enumerate() {
        for (i, cell) in line.iter_mut().enumerate() {
            let k = j * cols + i;
            if valid[k] == 0 {
                continue;
            }
            let distance: i32 = (0..3).map(|c| (i32::from(pixels[3 * k + c]) - table[c]).pow(2)).sum();
            *cell = distance > limit;
        }
    }
    Ok(out)
}
