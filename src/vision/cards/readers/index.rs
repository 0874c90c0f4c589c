//! Finds index corners anywhere in a frame, without a card outline: a rank glyph with a suit pip
//! just below it, at any rotation. This reads cards whose outline is hidden, as in a fanned hand
//! or a cascade where only the top-left index shows.

use std::borrow::Cow;

use opencv::{core, imgproc, prelude::*};

use super::classify::{GlyphFeature, GlyphTemplates, check_black_suit, confidence, crop_to_ink, weaker};
use super::glyph_net::GlyphNet;
use super::index_net::{NetReading, QuickFirst};
use super::patch::{INDEX_H, INDEX_W, Window, cut, index_window};
use crate::cards::{Card, Rank, Suit};
use crate::vision::cards::decks::enrolled::Memory;
use crate::vision::cards::picture::blur::sharpened;
use crate::vision::cards::picture::pixels::{centroid, component, label_mask, min_channel, morph, percentile};
use crate::vision::cards::picture::quad::{box_centre, dist, inside};

/// The largest ink component (longer side, as a share of the frame's shorter side) searched for
/// glyphs tangled in it (`cut_free`): a court card's picture with its frame.
const LARGEST_TANGLE: f32 = 0.3;

/// How much darker than its neighbourhood's mean a pixel must be to be ink, and (`FAINT_INK`)
/// to be ink beside ink (levels of 255).
const INK: f64 = 20.0;

const FAINT_INK: f64 = 12.0;

/// How near ink (a square of this many pixels across, centred on the faint pixel) faint ink
/// joins it: a pixel's neighbours.
const INK_REACH: i32 = 3;

/// The most a ring of paper round a glyph may spread, as a share of its level.
const PLAIN_PAPER: f64 = 0.1;

/// How bright paper must be around a glyph, against the brightest paper near it.
const PAPER: f64 = 0.65;

/// The least share of the frame's brightest paper that paper somewhere in it is taken to have.
const DIMMEST_PAPER: f64 = 0.6;

const BLOCK: i32 = 16;

/// How much larger than its rank's blob a pip's may be. A pip is no taller than its rank, but
/// blur spreads a solid pip and thins a rank's strokes until only their cores pass as ink, and
/// blurred queens' and jacks' ranks shrink under their pips (models/README.md, "Tuning
/// measurements": `LARGEST_PIP`).
const LARGEST_PIP: f32 = 1.35;

/// How much longer than wide (the ratio of the spreads of its ink along its two axes) a blob
/// must be to be read as a rank and pip run together (`merged_candidates`). A rank above its
/// pip spans about two glyph heights and one glyph width, a ratio near 3. A diamond pip seen
/// slanted can pass 1.8, and is then read as an ace now and then; a round queen's bowl run into
/// a heart or diamond measures 1.9-2.2. Print such as a book title's "oo" measures 2.0-2.2 too:
/// such a blob must be read by the network itself (`read_by_network`), not by an enrolled deck's
/// vote alone (models/README.md, "A rank run into its pip" and "Tuning measurements").
const MERGED_ELONGATION: f32 = 2.0;

/// The least size (longer side, pixels at search scale) of a blob read as a rank and pip run
/// together: two glyphs of the least size a glyph blob may have (7) and a gap. Smaller ones
/// were lone pips read as an index (at an elongation bar of 1.8, three false readings in 600
/// rendered tables, seeds 30e6).
const MERGED_MIN_SIZE: f32 = 18.0;

/// How short a pip may be, against its rank's height (both measured along the card's "down"),
/// for the glyph templates to read it. A pip shorter than half its rank is mostly one cut by
/// the edge of the card lying over it (a spread hand, a cascade), and what shows of a club's
/// or a spade's upper or lower part, or of a heart's or a diamond's, is alike. Whole pips on
/// real photos measure about 0.58 of their rank and more (models/README.md, "Tuning
/// measurements": `SHORTEST_PIP`). The loose network, which sees the whole window, still reads
/// such candidates.
const SHORTEST_PIP: f32 = 0.5;

/// How sure the loose network, once it has read a loose candidate in full, must be that it shows
/// no index for the templates to leave it unread (`index_net::SURE_BLANK` still decides when the quick
/// network's "none" is enough). Between this and `SURE_BLANK` the templates mostly made a rank
/// of what is none, most often a pip cut to a sliver by the next card, beside a whole pip,
/// read as a seven; a lower bar costs right cards under other light (models/README.md, "Tuning
/// measurements": `LOOSE_BLANK`).
const LOOSE_BLANK: f32 = 0.9;

/// Where the templates read a pip the network takes for the other suit of its colour at least
/// this many times as surely, the templates' reading is not reported (`read_by_templates`): a
/// club and a spade, or a heart and a diamond, differ in one part of the pip, and a pip half
/// hidden by the card above shows the templates' binarised shape an even chance of either,
/// while the network sees the whole window. The network leaning the other way at all is enough;
/// a lower bar costs real photos under other light and cameras (models/README.md, "A pip the
/// two readers disagree on" and "Tuning measurements": `OTHER_SUIT_VETO`).
const OTHER_SUIT_VETO: f32 = 1.0;

/// One index read in the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexHit {
    pub card: Card,
    pub confidence: f32,
    /// Bounding box of the rank and suit glyphs, image pixels.
    pub bbox: core::Rect,
    /// Unit vector from the rank to the suit: the card's "down" direction at this corner.
    pub down: [f32; 2],
    /// Rank glyph height along `down`, pixels.
    pub size: f32,
    /// The window the loose network reads the candidate in, image pixels: where it is read
    /// again when this card proves to lie elsewhere (see `placing::one_of_each`).
    pub window: Window,
}

#[derive(Clone, Copy, Debug)]
struct Blob {
    id: i32,
    rect: core::Rect,
    centre: [f32; 2],
    size: f32,
}

/// Ink blobs of plausible glyph size that sit on paper.
/// Ink inside the `blank` quads (cards already read) is wiped first: labelling the frame's
/// components is the search's main cost, and a read card's pips and pictures are most of them.
/// Blobs whose centre passes `skip` are left out before the (costlier) paper test. `frame` is
/// the photo at `scale` times its size (`search_scale`), which judges its blur in the photo's
/// own pixels. Returns the ink's component labels and the blobs.
fn glyph_blobs(
    frame: &Mat,
    scale: f32,
    side: i32,
    blank: &[[[f32; 2]; 4]],
    skip: impl Fn([f32; 2]) -> bool,
) -> opencv::Result<(Mat, Vec<Blob>)> {
    let low = min_channel(frame)?;
    // A blurred frame's thin strokes fade under the ink levels; sharpened, they pass again.
    let low = sharpened(&low, scale)?.unwrap_or(low);
    // The blobs are of `ink`; the paper round them is judged clear of `sure` ink only: faint
    // ink takes the darker grains of a grainy table out of its ring, which then passes for
    // plain paper.
    let (mut ink, mut sure) = ink_of(&low, side)?;
    for quad in blank {
        let pts =
            core::Vector::<core::Point>::from_iter(quad.iter().map(|p| core::Point::new(p[0] as i32, p[1] as i32)));
        for mask in [&mut ink, &mut sure] {
            imgproc::fill_convex_poly(mask, &pts, core::Scalar::all(0.0), imgproc::LINE_8, 0)?;
        }
    }
    let mut labels = Mat::default();
    let mut stats = Mat::default();
    let mut centroids = Mat::default();
    // Grana's block-based labelling: on a busy frame's ink (thousands of specks of wood grain and
    // cloth) it took 2.3 ms where OpenCV's default (Spaghetti) took 6 ms, one thread.
    let n = imgproc::connected_components_with_stats_with_algorithm(
        &ink,
        &mut labels,
        &mut stats,
        &mut centroids,
        8,
        core::CV_32S,
        imgproc::CCL_GRANA,
    )?;
    // Paper: bright in every channel compared with the frame's brightest paper. The level is
    // taken near the top (the 97th percentile): where cards cover less than a tenth of the
    // frame, a lower one is the table's own, and a pale-streaked wood then passes for paper,
    // every streak for a glyph.
    let brightest = f64::from(percentile(&low, 0.97)?);
    let near = LocalBright::of(&low, side)?;
    let max_size = side as f32 * 0.12;
    let paper = Paper { low: &low, sure: &sure, near: &near, brightest };
    let mut blobs = Vec::new();
    let mut large = Vec::new();
    for i in 1..n {
        let (rect, area) = component(&stats, i)?;
        let size = rect.width.max(rect.height) as f32;
        if size > max_size && size <= side as f32 * LARGEST_TANGLE {
            large.push((i, rect));
        }
        if !glyph_shaped(rect, area, max_size) {
            continue;
        }
        let centre = centroid(&centroids, i)?;
        if skip(centre) || !paper.round(rect, centre)? {
            continue;
        }
        blobs.push(Blob { id: i, rect, centre, size });
    }
    let mut next_id = n;
    for (i, rect) in large {
        // Only a tangle lying on paper (a court card's picture) can hold an index; the table's
        // own texture makes most large marks.
        let middle = box_centre(&rect);
        if skip(middle) || !paper.round(rect, middle)? {
            continue;
        }
        let (parts, freed) = cut_free(&labels, i, rect)?;
        for part in freed {
            let at = core::Rect::new(rect.x + part.local.x, rect.y + part.local.y, part.local.width, part.local.height);
            let centre = [rect.x as f32 + part.centre[0], rect.y as f32 + part.centre[1]];
            if !glyph_shaped(at, part.area, max_size) || skip(centre) || !paper.round(at, centre)? {
                continue;
            }
            relabel(&mut labels, rect, &parts, &part, next_id)?;
            blobs.push(Blob { id: next_id, rect: at, centre, size: at.width.max(at.height) as f32 });
            next_id += 1;
        }
    }
    Ok((labels, blobs))
}

/// Whether an ink component's box and pixel count could be a glyph's. Solid blocks are not
/// glyphs, but a plain bar (the "1" of many a "10") is solid too, and so is a diamond pip on a
/// card turned near 45°: a solid square in the frame's axes. Taken for a block, it left its rank
/// unpaired (models/README.md, "Tuning measurements": square blobs).
fn glyph_shaped(rect: core::Rect, area: i32, max_size: f32) -> bool {
    let (w, h) = (rect.width, rect.height);
    let size = w.max(h) as f32;
    if size < 7.0 || size > max_size || area < 18 {
        return false;
    }
    let fill = area as f32 / (w * h) as f32;
    let bar = w.min(h) * 3 < w.max(h);
    let square = w.max(h) * 4 <= w.min(h) * 5;
    fill >= 0.12 && (fill <= 0.92 || bar || square)
}

/// What a glyph must have round it: paper.
struct Paper<'a> {
    low: &'a Mat,
    sure: &'a Mat,
    near: &'a LocalBright,
    brightest: f64,
}

impl Paper<'_> {
    /// Whether the ring round a mark's box `rect` (centred at `centre`) is paper: bright for
    /// the paper near it, and, below the frame's brightest paper, plain.
    fn round(&self, rect: core::Rect, centre: [f32; 2]) -> opencv::Result<bool> {
        let core::Rect { x, y, width: w, height: h } = rect;
        let m = (w.max(h) / 3).max(2);
        let whole = core::Rect::new(0, 0, self.low.cols(), self.low.rows());
        let outer = core::Rect::new(x - m, y - m, w + 2 * m, h + 2 * m) & whole;
        let roi_low = Mat::roi(self.low, outer)?;
        let roi_ink = Mat::roi(self.sure, outer)?;
        let mut not_ink = Mat::default();
        core::bitwise_not(&roi_ink, &mut not_ink, &core::no_array())?;
        let around = core::mean(&roi_low, &not_ink)?[0];
        if around < PAPER * self.near.level(centre, self.brightest)? {
            return Ok(false);
        }
        // Below the frame's brightest paper, only plain paper will do: a table's texture as
        // bright as paper in the shade is not (stone, wood grain: spreads of 0.08-0.17 of its
        // level round their specks, against 0.02-0.08 round the indices of cards in the shade).
        Ok(around >= PAPER * self.brightest || plain(&roi_low, &not_ink)?)
    }
}

/// A part of an ink mark left apart by `cut_free`: its label among the parts, its box, pixel
/// count and centre, all within the mark's box.
struct Part {
    label: i32,
    local: core::Rect,
    area: i32,
    centre: [f32; 2],
}

/// The parts of component `id` (box `rect`) of `labels` left apart once its hair-thin strokes
/// are opened away: the parts' labels over `rect`, and those reaching the edge of `rect`. A
/// queen's tail touching the thin frame round her picture made one mark of rank, frame and
/// picture, too large for a glyph, and her index went unread.
fn cut_free(labels: &Mat, id: i32, rect: core::Rect) -> opencv::Result<(Mat, Vec<Part>)> {
    let opened = morph(&label_mask(labels, &[id], rect)?, imgproc::MORPH_OPEN, imgproc::MORPH_RECT, 2)?;
    let (mut parts, mut stats, mut centroids) = (Mat::default(), Mat::default(), Mat::default());
    let n = imgproc::connected_components_with_stats(&opened, &mut parts, &mut stats, &mut centroids, 8, core::CV_32S)?;
    let mut out = Vec::new();
    if n <= 2 {
        // Nothing came apart.
        return Ok((parts, out));
    }
    for label in 1..n {
        let (local, area) = component(&stats, label)?;
        // An index stands outside the picture's frame, so it reaches the tangle's edge (within
        // the pixel the opening may shave off); the picture's own parts mostly lie within and,
        // let loose, each paired with its neighbours: 74 more marks on a deals photo made the
        // loose search 40 ms slower.
        let outside = local.x <= 1
            || local.y <= 1
            || local.x + local.width >= rect.width - 1
            || local.y + local.height >= rect.height - 1;
        if outside {
            let centre = centroid(&centroids, label)?;
            out.push(Part { label, local, area, centre });
        }
    }
    Ok((parts, out))
}

/// Gives the pixels of `part` (among the `parts` labelled over box `rect` of `labels`) the
/// label `id`.
fn relabel(labels: &mut Mat, rect: core::Rect, parts: &Mat, part: &Part, id: i32) -> opencv::Result<()> {
    let core::Rect { x, y, width, height } = part.local;
    let (from, to) = ((rect.x + x) as usize, (rect.x + x + width) as usize);
    for row_y in y..y + height {
        let marks = &parts.at_row::<i32>(row_y)?[x as usize..(x + width) as usize];
        let row = &mut labels.at_row_mut::<i32>(rect.y + row_y)?[from..to];
        for (l, m) in row.iter_mut().zip(marks) {
            if *m == part.label {
                *l = id;
            }
        }
    }
    Ok(())
}

/// The ink of a frame's darkest channel `low`: darker than its neighbourhood (a thirtieth of the
/// frame's shorter `side`) by `INK`, or by `FAINT_INK` within reach of that; and the sure ink,
/// by `INK` alone. Blur leaves a thin stroke's core as ink and its middle faint: a jack's hook
/// came apart from its stem, each too small to pair with a pip. Faint ink beside ink mends such
/// strokes without letting a faint texture (carpet, grain) pass on its own. A wider reach joins
/// thin lines to glyphs: a book's print makes index-like marks, and a queen's tail meets her
/// picture's frame (models/README.md, "Tuning measurements": `INK_REACH`).
fn ink_of(low: &Mat, side: i32) -> opencv::Result<(Mat, Mat)> {
    let darker = darker_than_around(low, side)?;
    let anchor = core::Point::new(-1, -1);
    let square = imgproc::get_structuring_element(imgproc::MORPH_RECT, core::Size::new(INK_REACH, INK_REACH), anchor)?;
    let mut near = Mat::default();
    let sure = at_least(&darker, INK)?;
    imgproc::dilate(&sure, &mut near, &square, anchor, 1, core::BORDER_CONSTANT, core::Scalar::all(0.0))?;
    let mut ink = Mat::default();
    core::bitwise_and(&at_least(&darker, FAINT_INK)?, &near, &mut ink, &core::no_array())?;
    Ok((ink, sure))
}

/// How much darker each pixel of `low` is than the mean of its block (a thirtieth of the
/// frame's shorter `side`), as OpenCV's adaptive threshold weighs it. Taken once for both ink
/// levels and compared without that threshold's lookup table: two levels take 0.8 ms on a
/// 1280 x 720 frame (one thread), one adaptive threshold 1.1 ms.
fn darker_than_around(low: &Mat, side: i32) -> opencv::Result<Mat> {
    let block = ((side / 30).max(11)) | 1;
    let (size, anchor) = (core::Size::new(block, block), core::Point::new(-1, -1));
    let mut mean = Mat::default();
    imgproc::box_filter(low, &mut mean, -1, size, anchor, true, core::BORDER_REPLICATE | core::BORDER_ISOLATED)?;
    let mut darker = Mat::default();
    core::subtract(&mean, low, &mut darker, &core::no_array(), -1)?;
    Ok(darker)
}

/// The pixels at least `levels` darker than around them (`darker_than_around`), set to 255.
fn at_least(darker: &Mat, levels: f64) -> opencv::Result<Mat> {
    let mut out = Mat::default();
    imgproc::threshold(darker, &mut out, levels - 1.0, 255.0, imgproc::THRESH_BINARY)?;
    Ok(out)
}

/// Whether the part of `low` clear of the `not_ink` mask's edge (the glyph's blurred rim) is
/// plain, as paper is: its spread under `PLAIN_PAPER` of its level.
fn plain(low: &impl core::ToInputArray, not_ink: &Mat) -> opencv::Result<bool> {
    let mut clear = Mat::default();
    let anchor = core::Point::new(-1, -1);
    let edge = core::Scalar::all(255.0);
    imgproc::erode(not_ink, &mut clear, &Mat::default(), anchor, 1, core::BORDER_CONSTANT, edge)?;
    let (mut level, mut spread) = (core::Scalar::default(), core::Scalar::default());
    core::mean_std_dev(low, &mut level, &mut spread, &clear)?;
    Ok(spread[0] < PLAIN_PAPER * level[0])
}

/// The brightest paper near each part of a frame: under uneven light a card in a dim part of it
/// is well below the frame's brightest paper, though its index is plain to see. Blocks of
/// `BLOCK` pixels are averaged (a card's paper stays, a glint goes), then each takes the
/// brightest block within a third of the frame's shorter side.
struct LocalBright {
    blocks: Mat,
}

impl LocalBright {
    fn of(low: &Mat, side: i32) -> opencv::Result<LocalBright> {
        // Halved four times (`quarter` twice; `BLOCK` is 16): 0.15 ms for a 1920 x 1080 frame,
        // where a sixteenth at once, averaging each block one pixel at a time, took 4.2 ms.
        if low.cols() < BLOCK || low.rows() < BLOCK {
            return Ok(LocalBright {
                blocks: Mat::new_rows_cols_with_default(1, 1, core::CV_8UC1, core::Scalar::all(255.0))?,
            });
        }
        let mean = quarter(&quarter(low)?)?;
        let reach = 2 * (side / 3 / BLOCK) + 1;
        Ok(LocalBright { blocks: morph(&mean, imgproc::MORPH_DILATE, imgproc::MORPH_RECT, reach)? })
    }

    /// The paper level at `p`: the brightest block near it, between `DIMMEST_PAPER` of the
    /// frame's `brightest` and `brightest` itself (a table's pale streaks far from any card stay
    /// below paper).
    fn level(&self, p: [f32; 2], brightest: f64) -> opencv::Result<f64> {
        let col = ((p[0] as i32) / BLOCK).clamp(0, self.blocks.cols() - 1);
        let row = ((p[1] as i32) / BLOCK).clamp(0, self.blocks.rows() - 1);
        let near = f64::from(*self.blocks.at_2d::<u8>(row, col)?);
        Ok(near.clamp(DIMMEST_PAPER * brightest, brightest))
    }
}

/// The mask of `ids` inside `labels`, rotated so that `down` points down, cropped to its ink.
fn upright_mask(labels: &Mat, ids: &[i32], rect: core::Rect, down: [f32; 2]) -> opencv::Result<Mat> {
    turned_upright(&label_mask(labels, ids, rect)?, down)
}

/// A mask rotated about its centre so that `down` points down, cropped to its ink.
fn turned_upright(mask: &Mat, down: [f32; 2]) -> opencv::Result<Mat> {
    let side = ((mask.cols().max(mask.rows()) as f32) * 1.6) as i32 + 4;
    let (c_x, c_y) = (mask.cols() as f32 / 2.0, mask.rows() as f32 / 2.0);
    let h = side as f32 / 2.0;
    let (a, b, c, d) = (down[1], -down[0], down[0], down[1]);
    let m = Mat::from_slice_2d(&[
        [f64::from(a), f64::from(b), f64::from(h - (a * c_x + b * c_y))],
        [f64::from(c), f64::from(d), f64::from(h - (c * c_x + d * c_y))],
    ])?;
    let mut out = Mat::default();
    imgproc::warp_affine(
        mask,
        &mut out,
        &m,
        core::Size::new(side, side),
        imgproc::INTER_LINEAR,
        core::BORDER_CONSTANT,
        core::Scalar::all(0.0),
    )?;
    if core::count_non_zero(&out)? == 0 {
        return Ok(out);
    }
    crop_to_ink(&out)
}

/// A pip cut again from the frame itself, four times enlarged and thresholded on its own, so
/// that its outline keeps the shape a native-resolution mask rounds off; upright.
fn smooth_pip(frame: &Mat, pip: &Blob, down: [f32; 2]) -> opencv::Result<Option<GlyphFeature>> {
    let m = (pip.size / 4.0).ceil() as i32 + 1;
    let r = pip.rect;
    let area = core::Rect::new(r.x - m, r.y - m, r.width + 2 * m, r.height + 2 * m)
        & core::Rect::new(0, 0, frame.cols(), frame.rows());
    let low = min_channel(&Mat::roi(frame, area)?.try_clone()?)?;
    let mut big = Mat::default();
    imgproc::resize(&low, &mut big, core::Size::new(0, 0), 4.0, 4.0, imgproc::INTER_CUBIC)?;
    let mut ink = Mat::default();
    imgproc::threshold(&big, &mut ink, 0.0, 255.0, imgproc::THRESH_BINARY_INV | imgproc::THRESH_OTSU)?;
    // The pip: the component under the blob's centre.
    let mut labels = Mat::default();
    imgproc::connected_components(&ink, &mut labels, 8, core::CV_32S)?;
    let (cx, cy) = (((pip.centre[0] - area.x as f32) * 4.0) as i32, ((pip.centre[1] - area.y as f32) * 4.0) as i32);
    let (cx, cy) = (cx.clamp(0, labels.cols() - 1), cy.clamp(0, labels.rows() - 1));
    let id = *labels.at_2d::<i32>(cy, cx)?;
    if id == 0 {
        return Ok(None);
    }
    let whole = core::Rect::new(0, 0, labels.cols(), labels.rows());
    let mask = label_mask(&labels, &[id], whole)?;
    // Reaching the edge of the cut, it is joined to something else (a card's edge, a glyph).
    let r = imgproc::bounding_rect(&mask)?;
    if r.x == 0 || r.y == 0 || r.x + r.width >= whole.width || r.y + r.height >= whole.height {
        return Ok(None);
    }
    let upright = turned_upright(&mask, down)?;
    if upright.rows() < 8 {
        return Ok(None);
    }
    Ok(Some(GlyphFeature::from_mask(&upright)?))
}

fn ink_is_red(frame: &Mat, labels: &Mat, blob: &Blob) -> opencv::Result<Option<bool>> {
    let roi = Mat::roi(frame, blob.rect)?;
    let lab = Mat::roi(labels, blob.rect)?;
    let mut mask = Mat::default();
    core::compare(&lab, &core::Scalar::all(f64::from(blob.id)), &mut mask, core::CMP_EQ)?;
    let m = core::mean(&roi, &mask)?;
    let redness = m[2] - m[1].max(m[0]);
    Ok(if redness > 35.0 {
        Some(true)
    } else if redness < 12.0 {
        Some(false)
    } else {
        None
    })
}

/// Reads a rank of two glyphs side by side as a "10" (see `GlyphTemplates::read_ten`), the
/// glyphs taken left to right across `down`.
fn read_ten(
    templates: &GlyphTemplates,
    labels: &Mat,
    blobs: &[Blob],
    ids: &[i32],
    down: [f32; 2],
) -> opencv::Result<(f32, f32)> {
    let right = [down[1], -down[0]];
    let mut pieces: Vec<&Blob> = blobs.iter().filter(|b| ids.contains(&b.id)).collect();
    pieces.sort_by(|a, b| {
        let across = |p: &Blob| p.centre[0] * right[0] + p.centre[1] * right[1];
        across(a).total_cmp(&across(b))
    });
    let [left, right] = pieces.as_slice() else {
        return Ok((0.0, 1.0));
    };
    let glyph = |b: &Blob| GlyphFeature::from_mask(&deskewed(&upright_mask(labels, &[b.id], b.rect, down)?)?);
    let (one, zero) = templates.read_ten_digits(&glyph(left)?, &glyph(right)?);
    // A "1" drawn as a plain bar a few pixels wide is told by its shape better than by any
    // template (enlarged from so few pixels, its steps dominate): then the "0" decides.
    if is_bar(labels, left)? { Ok(zero) } else { Ok(weaker(one, zero)) }
}

/// Whether a blob is a straight bar: long and thin, filling its tightest rotated rectangle.
fn is_bar(labels: &Mat, blob: &Blob) -> opencv::Result<bool> {
    let mask = label_mask(labels, &[blob.id], blob.rect)?;
    let mut points = core::Vector::<core::Point>::new();
    core::find_non_zero(&mask, &mut points)?;
    if points.len() < 6 {
        return Ok(false);
    }
    let rect = imgproc::min_area_rect(&points)?;
    // Pixel centres: the rectangle through them is a pixel short each way.
    let (w, h) = (rect.size.width + 1.0, rect.size.height + 1.0);
    let (short, long) = (w.min(h), w.max(h));
    Ok(long >= 4.0 * short && points.len() as f32 >= 0.6 * w * h)
}

/// Whether two glyphs have one shape, either way up (two pips of a card's middle); `a_turned`
/// is `a` turned over.
fn same_shape(a: &GlyphFeature, a_turned: &GlyphFeature, b: &GlyphFeature) -> bool {
    a.similarity(b).max(a_turned.similarity(b)) > 0.85
}

/// Whether `glyph`, upright or turned over (`turned`), is closer to a suit pip than `rank_best`.
fn looks_like_pip(suits: &GlyphTemplates, glyph: &GlyphFeature, turned: &GlyphFeature, rank_best: f32) -> bool {
    [glyph, turned].iter().any(|g| suits.best_suit(g, &Suit::ALL).is_some_and(|(_, pip_like, _)| pip_like > rank_best))
}

/// A thin glyph (a "1") set straight: `down` comes from the whole index, and a few degrees off
/// turn a bar a few pixels wide into a slanted band that no longer looks like a bar. The slant is
/// measured from the glyph's own second moments.
fn deskewed(mask: &Mat) -> opencv::Result<Mat> {
    if mask.rows() == 0 || mask.cols() * 5 > mask.rows() * 2 {
        return Ok(mask.clone());
    }
    let m = imgproc::moments(mask, true)?;
    if m.mu02 <= 0.0 {
        return Ok(mask.clone());
    }
    let skew = m.mu11 / m.mu02;
    let (w, h) = (mask.cols(), mask.rows());
    let pad = (f64::from(h) * skew.abs()).ceil() as i32 + 2;
    let centre_y = m.m01 / m.m00.max(1.0);
    let shear = Mat::from_slice_2d(&[[1.0, -skew, skew * centre_y + f64::from(pad)], [0.0, 1.0, 0.0]])?;
    let mut out = Mat::default();
    imgproc::warp_affine(
        mask,
        &mut out,
        &shear,
        core::Size::new(w + 2 * pad, h),
        imgproc::INTER_LINEAR,
        core::BORDER_CONSTANT,
        core::Scalar::all(0.0),
    )?;
    if core::count_non_zero(&out)? == 0 {
        return Ok(mask.clone());
    }
    crop_to_ink(&out)
}

/// The part of the frame where paper is left once the read cards are taken away (with a
/// margin), or `None` when there is none: the search labels every ink mark in what it is given.
fn unread_area(frame: &Mat, read: &[[[f32; 2]; 4]]) -> opencv::Result<Option<core::Rect>> {
    let whole = core::Rect::new(0, 0, frame.cols(), frame.rows());
    if read.is_empty() {
        return Ok(Some(whole));
    }
    const K: i32 = 4;
    let low = min_channel(&quarter(frame)?)?;
    // Under uneven light a card in a dim corner of the frame is well below the brightest paper
    // (on a synthetic table, at two thirds of it, its index plain to see): paper here is no stricter
    // than the glyph search's own (`glyph_blobs`: 0.65 of the 97th percentile).
    let level = f64::from(percentile(&low, 0.9)?) * 0.6;
    let mut paper = Mat::default();
    imgproc::threshold(&low, &mut paper, level, 255.0, imgproc::THRESH_BINARY)?;
    for quad in read {
        let pts = core::Vector::<core::Point>::from_iter(
            quad.iter().map(|p| core::Point::new((p[0] / K as f32) as i32, (p[1] / K as f32) as i32)),
        );
        imgproc::fill_convex_poly(&mut paper, &pts, core::Scalar::all(0.0), imgproc::LINE_8, 0)?;
        // The outline found lies a pixel or two off the card's edge: no sliver of it remains.
        let rings = core::Vector::<core::Vector<core::Point>>::from_iter([pts]);
        imgproc::polylines(&mut paper, &rings, true, core::Scalar::all(0.0), 3, imgproc::LINE_8, 0)?;
    }
    let opened = morph(&paper, imgproc::MORPH_OPEN, imgproc::MORPH_RECT, 3)?;
    let r = imgproc::bounding_rect(&opened)?;
    if r.width == 0 || r.height == 0 {
        return Ok(None);
    }
    let pad = frame.rows().min(frame.cols()) / 20;
    let grown = core::Rect::new(r.x * K - pad, r.y * K - pad, r.width * K + 2 * pad, r.height * K + 2 * pad);
    Ok(Some(grown & whole))
}

/// `frame` at a quarter of its size, each pixel the mean of the 4 x 4 it covers: halved twice,
/// which costs a tenth of shrinking it by 4 at once (OpenCV averages 2 x 2 blocks with vector
/// instructions and larger blocks one pixel at a time; 1.6 ms a 1280 x 720 frame).
fn quarter(frame: &Mat) -> opencv::Result<Mat> {
    let mut half = Mat::default();
    let size = core::Size::new(frame.cols() / 2, frame.rows() / 2);
    imgproc::resize(frame, &mut half, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    let mut out = Mat::default();
    imgproc::resize(&half, &mut out, core::Size::new(size.width / 2, size.height / 2), 0.0, 0.0, imgproc::INTER_AREA)?;
    Ok(out)
}

/// Reads a rank and a pip found by the search as one index.
struct PairReader<'a> {
    frame: &'a Mat,
    labels: &'a Mat,
    blobs: &'a [Blob],
    templates: &'a GlyphTemplates,
    suit_templates: &'a GlyphTemplates,
    net: &'a GlyphNet,
    suit_net: &'a GlyphNet,
    min_confidence: f32,
}

impl PairReader<'_> {
    /// The card and confidence of the index whose rank is the blobs `ids` (bounding box `rect`)
    /// and whose pip is `s`, turned so that `down` points down; `None` below the confidence
    /// wanted.
    fn read(&self, ids: &[i32], rect: core::Rect, s: &Blob, down: [f32; 2]) -> opencv::Result<Option<(Card, f32)>> {
        let (labels, min_confidence) = (self.labels, self.min_confidence);
        let suit_glyph = GlyphFeature::from_mask(&upright_mask(labels, &[s.id], s.rect, down)?)?;
        let rank_glyph = GlyphFeature::from_mask(&upright_mask(labels, ids, rect, down)?)?;
        let rank_turned = rank_glyph.turned();
        // Two pips in a row (a card's middle) are the commonest pair of marks: a "rank" shaped
        // like the pip below it, either way up, is one, and needs no comparing with templates.
        if same_shape(&rank_glyph, &rank_turned, &suit_glyph) {
            return Ok(None);
        }
        // The pip first: it has fewer templates, and most pairs of marks fail it.
        let allowed: &[Suit] = match ink_is_red(self.frame, labels, s)? {
            Some(true) => &[Suit::Diamonds, Suit::Hearts],
            Some(false) => &[Suit::Clubs, Suit::Spades],
            None => &Suit::ALL,
        };
        let Some(read) = self.suit_templates.best_suit(&suit_glyph, allowed) else {
            return Ok(None);
        };
        let (mut suit, suit_best, suit_second) = check_black_suit(&suit_glyph, read, false);
        let mut suit_conf = confidence(suit_best, suit_second);
        if suit_conf < min_confidence {
            return Ok(None);
        }
        let Some((mut rank, rank_best, runner_up, rank_second)) = self.templates.best_two_ranks(&rank_glyph) else {
            return Ok(None);
        };
        let mut rank_conf = confidence(rank_best, rank_second);
        let net = self.net.scores(&rank_glyph)?;
        // Templates all but tied between two ranks (a flat-topped 3 and a 5): the network picks.
        if let Some(other) = runner_up
            && net.breaks_tie((rank_best, other, rank_second), min_confidence)
        {
            rank = other;
        }
        if ids.len() == 2 {
            let (ten, other) = read_ten(self.templates, labels, self.blobs, ids, down)?;
            if confidence(ten, other) > rank_conf {
                (rank, rank_conf) = (Rank::new(10).expect("10 is a rank"), confidence(ten, other));
            }
        }
        // A "10" read as two glyphs is left alone: the network reads single glyphs.
        if ids.len() == 1 || rank.value() != 10 {
            rank_conf = net.check_loose(rank, rank_conf);
        }
        if rank_conf * suit_conf < min_confidence {
            return Ok(None);
        }
        // A rank glyph must look more like a rank than like a pip, either way up: in a card's
        // middle, a pip stands above another pip, often upside down.
        if looks_like_pip(self.suit_templates, &rank_glyph, &rank_turned, rank_best) {
            return Ok(None);
        }
        // A black pip is checked again on a smooth cut of it, where its top can decide alone
        // (last, as it costs more than the rest of a pair's reading).
        if matches!(suit, Suit::Spades | Suit::Clubs)
            && let Some(pip) = smooth_pip(self.frame, s, down)?
        {
            let (checked, best, second) = check_black_suit(&pip, read, true);
            (suit, suit_conf) = (checked, confidence(best, second));
        }
        suit_conf = self.suit_net.scores(&suit_glyph)?.weigh_suit(allowed, suit, suit_conf, true);
        let conf = rank_conf * suit_conf;
        if conf < min_confidence {
            return Ok(None);
        }
        Ok(Some((Card::new(rank, suit), conf)))
    }
}

/// A candidate index: a rank (one glyph, or two side by side as in "10") with a pip below it.
#[derive(Clone, Debug)]
struct Candidate {
    /// The rank's blobs, the first being `rank`.
    ids: Vec<i32>,
    /// Bounding box of the rank's blobs.
    rect: core::Rect,
    rank: Blob,
    pip: Blob,
    /// Unit vector from the rank's centre to the pip's: the card's "down" at this corner.
    down: [f32; 2],
    /// Centre of the rank (of its blobs together).
    centre: [f32; 2],
}

/// Every pair of blobs that could be a rank with its pip: the pip not much larger than the rank
/// (`LARGEST_PIP`) nor much smaller, about a rank's height away. A rank with a same-height neighbour across
/// `down` gives two candidates: alone, and glued to the neighbour (in a tight fan that neighbour
/// is the next card's rank, not the "0" of a 10).
fn candidates(blobs: &[Blob]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for r in blobs {
        for s in blobs {
            if r.id == s.id || s.size > r.size * LARGEST_PIP || s.size < r.size * 0.35 {
                continue;
            }
            let dx = s.centre[0] - r.centre[0];
            let dy = s.centre[1] - r.centre[1];
            let d = (dx * dx + dy * dy).sqrt();
            if d < r.size * 0.55 || d > r.size * 1.5 {
                continue;
            }
            let alone = [dx / d, dy / d];
            // Glue side-by-side glyphs of similar size (the "1" and "0" of 10).
            let right = [alone[1], -alone[0]];
            let mut ids = vec![r.id];
            let mut rect = r.rect;
            let mut centre = r.centre;
            for o in blobs {
                if o.id == r.id || o.id == s.id || o.size < r.size * 0.6 || o.size > r.size * 1.4 {
                    continue;
                }
                let ox = (o.centre[0] - r.centre[0]) * right[0] + (o.centre[1] - r.centre[1]) * right[1];
                let oy = (o.centre[0] - r.centre[0]) * alone[0] + (o.centre[1] - r.centre[1]) * alone[1];
                if oy.abs() < r.size * 0.25 && ox.abs() < r.size * 1.1 {
                    ids.push(o.id);
                    rect |= o.rect;
                    centre = [(centre[0] + o.centre[0]) / 2.0, (centre[1] + o.centre[1]) / 2.0];
                }
            }
            out.push(Candidate { ids: vec![r.id], rect: r.rect, rank: *r, pip: *s, down: alone, centre: r.centre });
            if ids.len() == 2 {
                let (dx, dy) = (s.centre[0] - centre[0], s.centre[1] - centre[1]);
                let d = (dx * dx + dy * dy).sqrt();
                out.push(Candidate { ids, rect, rank: *r, pip: *s, down: [dx / d, dy / d], centre });
            }
        }
    }
    out
}

/// Every candidate index among `blobs` (labelled in `labels`): pairs of blobs (`candidates`) and
/// single blobs holding both (`merged_candidates`).
fn all_candidates(labels: &Mat, blobs: &[Blob]) -> opencv::Result<Vec<Candidate>> {
    let mut all = candidates(blobs);
    all.extend(merged_candidates(labels, blobs)?);
    Ok(all)
}

/// Blobs that may be a rank and its pip run together into one mark: a queen's tail reaching the
/// pip below it (the renderer's tables miss most queens' indices otherwise: 59 % of visible
/// queen indices made a candidate against 97-100 % for the other ranks), or a rank touching its
/// pip under blur. Each elongated blob of two glyph heights gives two candidates, one for each
/// end taken as the rank (nothing in the blob says which end is the top); the loose network
/// reads both and a rank read upside down is no index.
fn merged_candidates(labels: &Mat, blobs: &[Blob]) -> opencv::Result<Vec<Candidate>> {
    let mut out = Vec::new();
    for b in blobs.iter().filter(|b| b.size >= MERGED_MIN_SIZE) {
        let m = imgproc::moments(&label_mask(labels, &[b.id], b.rect)?, true)?;
        if m.m00 <= 0.0 {
            continue;
        }
        let (a, c, d) = ((m.mu20 / m.m00) as f32, (m.mu02 / m.m00) as f32, (m.mu11 / m.m00) as f32);
        // The spreads along the blob's long and short axes (the eigenvalues of its covariance).
        let mid = (a + c) / 2.0;
        let half = (((a - c) / 2.0).powi(2) + d * d).sqrt();
        let (long, short) = ((mid + half).max(0.0).sqrt(), (mid - half).max(1e-3).sqrt());
        // A plain bar (a letter "I" in a maker's name, a streak of wood grain) is long enough
        // but has no rank's shape at either end.
        if long / short < MERGED_ELONGATION || is_bar(labels, b)? {
            continue;
        }
        let angle = 0.5 * (2.0 * d).atan2(a - c);
        let axis = [angle.cos(), angle.sin()];
        // Ink spread evenly over a length L has a spread of L / sqrt(12).
        let length = long * 12f32.sqrt();
        for sign in [1.0f32, -1.0] {
            let down = [axis[0] * sign, axis[1] * sign];
            let at = |t: f32| [b.centre[0] + down[0] * t * length, b.centre[1] + down[1] * t * length];
            let (rank_centre, pip_centre) = (at(-0.28), at(0.28));
            let glyph = Blob { id: b.id, rect: b.rect, centre: rank_centre, size: 0.48 * length };
            let pip = Blob { centre: pip_centre, ..glyph };
            out.push(Candidate { ids: vec![b.id], rect: b.rect, rank: glyph, pip, down, centre: rank_centre });
        }
    }
    Ok(out)
}

/// Where a candidate index lies, for cutting the network's patch (see `patch::index_window`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexSpot {
    /// Centre of the rank glyph(s), image pixels.
    pub rank: [f32; 2],
    /// Unit vector from the rank's centre towards the pip's.
    pub down: [f32; 2],
    /// Distance from the rank's centre to the pip's, pixels.
    pub unit: f32,
    /// Bounding box of the rank and pip glyphs.
    pub bbox: core::Rect,
}

impl Candidate {
    /// Whether the pip is under `SHORTEST_PIP` of its rank's height, both measured along
    /// `down` (so that a card seen at a slant, both shortened alike, measures as square on).
    fn pip_cut_short(&self, labels: &Mat) -> opencv::Result<bool> {
        let pip = extent_along(labels, &self.pip, self.down)?;
        let rank = extent_along(labels, &self.rank, self.down)?;
        Ok(pip < SHORTEST_PIP * rank)
    }

    /// Whether rank and pip are one ink blob (`merged_candidates`): only the network reads it,
    /// the templates needing the two apart.
    fn merged(&self) -> bool {
        self.rank.id == self.pip.id
    }

    /// The marks a reading of this candidate uses: its rank's blobs and its pip.
    fn marks(&self) -> Vec<i32> {
        let mut ids = self.ids.clone();
        ids.push(self.pip.id);
        ids
    }

    /// Whether a reading of this candidate would use any of `marks` (without building its list).
    fn uses_any(&self, marks: &[i32]) -> bool {
        self.ids.iter().chain([&self.pip.id]).any(|id| marks.contains(id))
    }

    fn spot(&self) -> IndexSpot {
        let unit = dist(self.centre, self.pip.centre).max(1.0);
        IndexSpot { rank: self.centre, down: self.down, unit, bbox: self.rect | self.pip.rect }
    }
}

/// Every candidate index of a whole frame, with nothing left out (for building training sets):
/// the places the loose search reads. A frame under `small` pixels across is searched at twice
/// its size, as the detector does.
pub fn candidate_spots(frame: &Mat, small: i32) -> opencv::Result<Vec<IndexSpot>> {
    candidate_spots_at(frame, small, 0)
}

/// As `candidate_spots`, with glyph sizes judged as in a frame at least `side` pixels across
/// (its shorter side): a close-up of one card (enrolment) holds glyphs far larger than a table
/// frame of its size could.
pub fn candidate_spots_at(frame: &Mat, small: i32, side: i32) -> opencv::Result<Vec<IndexSpot>> {
    let (work, k) = search_scale(frame, small)?;
    let side = work.rows().min(work.cols()).max((side as f32 * k) as i32);
    let (labels, blobs) = glyph_blobs(&work, k, side, &[], |_| false)?;
    Ok(all_candidates(&labels, &blobs)?.iter().map(|c| in_frame(c.spot(), [0.0, 0.0], k)).collect())
}

/// The frame the loose search looks for marks in, and its scale: a frame under `small` pixels
/// across doubled (its glyphs are too few pixels for their masks to keep their shape), any
/// other the frame itself, not copied.
fn search_scale(frame: &Mat, small: i32) -> opencv::Result<(Cow<'_, Mat>, f32)> {
    if frame.cols().max(frame.rows()) >= small {
        return Ok((Cow::Borrowed(frame), 1.0));
    }
    let mut work = Mat::default();
    imgproc::resize(frame, &mut work, core::Size::new(0, 0), 2.0, 2.0, imgproc::INTER_CUBIC)?;
    Ok((Cow::Owned(work), 2.0))
}

/// A spot of the searched frame (its part from `offset` on, at scale `k`) in the frame's own
/// pixels.
fn in_frame(spot: IndexSpot, offset: [f32; 2], k: f32) -> IndexSpot {
    let b = spot.bbox;
    IndexSpot {
        rank: [(spot.rank[0] + offset[0]) / k, (spot.rank[1] + offset[1]) / k],
        down: spot.down,
        unit: spot.unit / k,
        bbox: core::Rect::new(
            ((b.x as f32 + offset[0]) / k) as i32,
            ((b.y as f32 + offset[1]) / k) as i32,
            (b.width as f32 / k).ceil() as i32,
            (b.height as f32 / k).ceil() as i32,
        ),
    }
}

/// Hits, surest first, each mark used by one hit only; and the marks they use.
fn best_first(mut hits: Vec<(IndexHit, Vec<i32>)>) -> (Vec<IndexHit>, Vec<i32>) {
    hits.sort_by(|a, b| b.0.confidence.total_cmp(&a.0.confidence));
    let mut used: Vec<i32> = Vec::new();
    let mut out = Vec::new();
    for (hit, ids) in hits {
        if ids.iter().any(|id| used.contains(id)) {
            continue;
        }
        used.extend(&ids);
        out.push(hit);
    }
    (out, used)
}

/// Whether a loose candidate's reading says, surely enough for the templates, that it shows no
/// index (`LOOSE_BLANK`).
fn loose_blank(reading: &NetReading) -> bool {
    reading.card().is_none() && reading.nothing() >= LOOSE_BLANK
}

/// What the loose network made of the candidates: its hits, best first; the marks (ink
/// components) they use; by candidate whether it is sure the candidate shows no index; and by
/// candidate its suit probabilities (`index_net::NetReading::suits`; empty when the network did
/// not read).
#[derive(Default)]
pub struct NetworkRead {
    pub hits: Vec<IndexHit>,
    marks: Vec<i32>,
    blank: Vec<bool>,
    suits: Vec<[f32; 5]>,
}

impl NetworkRead {
    /// Whether the network read candidate `i` as the other suit of `card`'s colour at least
    /// `OTHER_SUIT_VETO` times as surely as `card`'s own suit.
    fn leans_to_other_suit(&self, i: usize, card: Card) -> bool {
        let Some(suits) = self.suits.get(i) else { return false };
        let p = |suit: Suit| suits[suit.index()];
        p(card.suit.other_of_colour()) >= OTHER_SUIT_VETO * p(card.suit)
    }
}

/// The loose search's marks, found once for every reader: the part of the frame left once the
/// read cards are taken away (at search scale), its ink components, and every candidate index.
pub struct LooseMarks {
    /// The searched part of the frame, at search scale.
    part: Mat,
    /// Where `part` starts in the frame at search scale.
    offset: [f32; 2],
    /// The search scale (see `search_scale`).
    k: f32,
    labels: Mat,
    blobs: Vec<Blob>,
    candidates: Vec<Candidate>,
}

impl LooseMarks {
    /// The marks outside the `read` quads (cards already read from an outline), or `None` when
    /// no paper is left. A frame under `small` pixels across has its marks found at twice its
    /// size (its glyphs are too few pixels for their masks to keep their shape).
    pub fn find(frame: &Mat, read: &[[[f32; 2]; 4]], small: i32) -> opencv::Result<Option<LooseMarks>> {
        let (work, k) = search_scale(frame, small)?;
        let read: Vec<[[f32; 2]; 4]> = read.iter().map(|q| q.map(|p| [p[0] * k, p[1] * k])).collect();
        let Some(area) = unread_area(&work, &read)? else {
            return Ok(None);
        };
        let offset = [area.x as f32, area.y as f32];
        let shifted: Vec<[[f32; 2]; 4]> =
            read.iter().map(|q| q.map(|p| [p[0] - offset[0], p[1] - offset[1]])).collect();
        let part = Mat::roi(&*work, area)?.try_clone()?;
        let in_read = |p: [f32; 2]| shifted.iter().any(|q| inside(q, p));
        let (labels, blobs) = glyph_blobs(&part, k, work.rows().min(work.cols()), &shifted, in_read)?;
        let candidates = all_candidates(&labels, &blobs)?;
        Ok(Some(LooseMarks { part, offset, k, labels, blobs, candidates }))
    }

    /// Where candidate `c` lies in the frame's own pixels.
    fn frame_spot(&self, c: &Candidate) -> IndexSpot {
        in_frame(c.spot(), self.offset, self.k)
    }

    /// Where candidate `c` lies in the frame's own pixels: the box of its marks, and its rank's
    /// height.
    fn frame_box(&self, c: &Candidate) -> (core::Rect, f32) {
        (self.frame_spot(c).bbox, c.rank.size / self.k)
    }

    /// The hit a reading of candidate `c` makes, in the frame's own pixels.
    fn hit(&self, c: &Candidate, card: Card, confidence: f32) -> IndexHit {
        let (bbox, size) = self.frame_box(c);
        let spot = self.frame_spot(c);
        let window = index_window(spot.rank, spot.down, spot.unit);
        IndexHit { card, confidence, bbox, down: c.down, size, window }
    }

    /// Every index the loose networks read among the candidates (the quick one first unless
    /// `full_only`; see `QuickFirst`), best first, each glyph used once; an enrolled deck's
    /// patches (`memory`) vote on each reading. Patches are cut from the `frame` itself, not from
    /// the (maybe doubled) part searched.
    pub fn read_by_network(
        &self,
        frame: &Mat,
        net: &QuickFirst,
        full_only: bool,
        memory: &Memory,
        min_confidence: f32,
    ) -> opencv::Result<NetworkRead> {
        let mut patches = Vec::with_capacity(self.candidates.len());
        for c in &self.candidates {
            let spot = self.frame_spot(c);
            let window = index_window(spot.rank, spot.down, spot.unit);
            patches.push(cut(frame, &window, INDEX_W, INDEX_H)?);
        }
        let readings = net.read(&patches.iter().collect::<Vec<_>>(), full_only)?;
        let blank = readings.iter().map(loose_blank).collect();
        let suits = readings.iter().map(|r| r.suits).collect();
        let mut hits: Vec<(IndexHit, Vec<i32>)> = Vec::new();
        for (c, reading) in self.candidates.iter().zip(readings) {
            // An enrolled deck's patches may say which card a merged blob is, not that it is one:
            // two letters run together make such a blob as well.
            if c.merged() && reading.card().is_none_or(|(_, p)| p < min_confidence) {
                continue;
            }
            let Some((card, confidence)) = memory.weigh(&reading) else { continue };
            if confidence >= min_confidence {
                hits.push((self.hit(c, card, confidence), c.marks()));
            }
        }
        let (hits, marks) = best_first(hits);
        Ok(NetworkRead { hits, marks, blank, suits })
    }

    /// Every index the glyph templates read, best first, each glyph used once: ranks compared
    /// with `templates`, the suit pip with `suit_templates`, both weighed by `nets` (the rank
    /// and the suit networks). After the network (`first`; `NetworkRead::default()` when it did
    /// not read) they leave the candidates it settled: those using a mark of one of its hits or
    /// lying close to one (its card stands there), and those it is sure are blank.
    pub fn read_by_templates(
        &self,
        templates: &GlyphTemplates,
        suit_templates: &GlyphTemplates,
        nets: [&GlyphNet; 2],
        min_confidence: f32,
        first: &NetworkRead,
    ) -> opencv::Result<Vec<IndexHit>> {
        let [net, suit_net] = nets;
        let (frame, labels, blobs) = (&self.part, &self.labels, &self.blobs[..]);
        let pair = PairReader { frame, labels, blobs, templates, suit_templates, net, suit_net, min_confidence };
        // Every candidate stands: the surer reading takes its marks first, and when a better index
        // has taken a rank's neighbour, the rank alone is still there.
        let mut hits: Vec<(IndexHit, Vec<i32>)> = Vec::new();
        for (i, c) in self.candidates.iter().enumerate() {
            let (bbox, size) = self.frame_box(c);
            let settled = c.merged()
                || c.uses_any(&first.marks)
                || !clear_of(&first.hits, bbox, size)
                || first.blank.get(i).copied().unwrap_or(false);
            if settled || c.pip_cut_short(labels)? {
                continue;
            }
            if let Some((card, confidence)) = pair.read(&c.ids, c.rect, &c.pip, c.down)?
                && !first.leans_to_other_suit(i, card)
            {
                hits.push((self.hit(c, card, confidence), c.marks()));
            }
        }
        Ok(best_first(hits).0)
    }
}

/// How far `blob`'s ink (its pixels in `labels`) reaches along `direction` (a unit vector), in
/// pixels: from its first pixel's to its last's, both counted.
fn extent_along(labels: &Mat, blob: &Blob, direction: [f32; 2]) -> opencv::Result<f32> {
    let (mut lo, mut hi) = (f32::MAX, f32::MIN);
    let core::Rect { x, y, width, height } = blob.rect;
    for row_y in y..y + height {
        let row = &labels.at_row::<i32>(row_y)?[x as usize..(x + width) as usize];
        for (dx, _) in row.iter().enumerate().filter(|(_, id)| **id == blob.id) {
            let t = (x + dx as i32) as f32 * direction[0] + row_y as f32 * direction[1];
            (lo, hi) = (lo.min(t), hi.max(t));
        }
    }
    Ok(if hi >= lo { hi - lo + 1.0 } else { 0.0 })
}

/// Whether an index with marks in `bbox` and a rank `size` high lies clear of every hit in
/// `taken`: a glyph height from each. (Pairings that reuse a hit's marks are left out by
/// marks, not by distance: a tight fan's next index may lie closer than one and a half glyph
/// heights.)
fn clear_of(taken: &[IndexHit], bbox: core::Rect, size: f32) -> bool {
    let c = box_centre(&bbox);
    taken.iter().all(|t| dist(box_centre(&t.bbox), c) >= t.size.max(size))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob_of(draw: impl Fn(&mut Mat)) -> (Mat, Blob) {
        let mut ink = Mat::zeros(40, 40, core::CV_8UC1).unwrap().to_mat().unwrap();
        draw(&mut ink);
        let mut labels = Mat::default();
        imgproc::connected_components(&ink, &mut labels, 8, core::CV_32S).unwrap();
        let rect = imgproc::bounding_rect(&ink).unwrap();
        (labels, Blob { id: 1, rect, centre: [0.0, 0.0], size: rect.width.max(rect.height) as f32 })
    }

    /// A blob drawn on an 80 x 80 ink image, with its centroid as `glyph_blobs` gives it.
    fn centred_blob_of(draw: impl Fn(&mut Mat)) -> (Mat, Blob) {
        let mut ink = Mat::zeros(80, 80, core::CV_8UC1).unwrap().to_mat().unwrap();
        draw(&mut ink);
        let mut labels = Mat::default();
        assert_eq!(imgproc::connected_components(&ink, &mut labels, 8, core::CV_32S).unwrap(), 2, "one blob");
        let rect = imgproc::bounding_rect(&ink).unwrap();
        let m = imgproc::moments(&ink, true).unwrap();
        let centre = [(m.m10 / m.m00) as f32, (m.m01 / m.m00) as f32];
        (labels, Blob { id: 1, rect, centre, size: rect.width.max(rect.height) as f32 })
    }

    #[test]
    fn ink_at_one_level_is_what_opencv_s_adaptive_threshold_gives() {
        // Noise over a gradient: every difference from the mean occurs, at the frame's edge too.
        let mut low = Mat::zeros(90, 160, core::CV_8UC1).unwrap().to_mat().unwrap();
        for (i, v) in low.data_bytes_mut().unwrap().iter_mut().enumerate() {
            *v = ((i % 160) as u32 + (i as u32).wrapping_mul(2_654_435_761) % 97) as u8;
        }
        let side = 90;
        let darker = darker_than_around(&low, side).unwrap();
        for levels in [FAINT_INK, INK] {
            let mut expected = Mat::default();
            let (mean, inv) = (imgproc::ADAPTIVE_THRESH_MEAN_C, imgproc::THRESH_BINARY_INV);
            imgproc::adaptive_threshold(&low, &mut expected, 255.0, mean, inv, 11, levels).unwrap();
            let ours = at_least(&darker, levels).unwrap();
            assert_eq!(ours.data_bytes().unwrap(), expected.data_bytes().unwrap(), "at {levels}");
        }
    }

    #[test]
    fn faint_ink_mends_a_stroke_beside_ink_and_is_no_ink_alone() {
        // On paper (200): a stroke dark (150) at both ends and faint (178) in its middle, as
        // blur leaves a thin glyph; and apart from it, a faint mark alone.
        let mut low = Mat::new_rows_cols_with_default(60, 60, core::CV_8UC1, core::Scalar::all(200.0)).unwrap();
        let mut line = |x: i32, y0: i32, y1: i32, v: f64| {
            let r = core::Rect::new(x, y0, 2, y1 - y0);
            imgproc::rectangle(&mut low, r, core::Scalar::all(v), -1, imgproc::LINE_8, 0).unwrap();
        };
        line(15, 10, 20, 150.0);
        line(15, 20, 22, 178.0);
        line(15, 22, 33, 150.0);
        line(45, 10, 33, 184.0);
        let (ink, _) = ink_of(&low, 60).unwrap();
        let mut labels = Mat::default();
        let mut stats = Mat::default();
        let mut centroids = Mat::default();
        let n =
            imgproc::connected_components_with_stats(&ink, &mut labels, &mut stats, &mut centroids, 8, core::CV_32S)
                .unwrap();
        assert_eq!(n, 2, "one blob besides the paper");
        let (rect, _) = component(&stats, 1).unwrap();
        assert_eq!((rect.x, rect.y, rect.height), (15, 10, 23), "the whole stroke");
    }

    #[test]
    fn a_pip_blurred_larger_than_its_rank_still_pairs_with_it_and_a_far_larger_one_does_not() {
        // A thin rank 10 px tall, a pip below it spread by blur to 13 px; and beside them, the
        // same rank over a mark twice its size (a court card's picture, a large pip).
        let blob = |id, x: i32, y: i32, size: i32| Blob {
            id,
            rect: core::Rect::new(x - size / 2, y - size / 2, size, size),
            centre: [x as f32, y as f32],
            size: size as f32,
        };
        let pairs =
            |blobs: &[Blob]| -> Vec<(i32, i32)> { candidates(blobs).iter().map(|c| (c.rank.id, c.pip.id)).collect() };
        // (Either may be taken as the rank: the network reads a pip over a rank as no index.)
        assert!(pairs(&[blob(1, 20, 10, 10), blob(2, 20, 22, 13)]).contains(&(1, 2)));
        assert!(!pairs(&[blob(1, 20, 10, 10), blob(2, 20, 26, 20)]).contains(&(1, 2)));
    }

    #[test]
    fn a_pip_under_half_its_rank_s_height_is_cut_short_at_any_slant() {
        // A rank 20 px tall over a pip 12 px tall (a whole pip) or 7 px tall (the top of one, the
        // rest under the next card), both 12 px wide, the card turned any way.
        for angle in [0.0f32, 0.6, 2.2, 4.0] {
            let down = [-angle.sin(), angle.cos()];
            let across = [down[1], -down[0]];
            for (pip_height, cut) in [(12.0f32, false), (7.0, true)] {
                let mut ink = Mat::zeros(100, 100, core::CV_8UC1).unwrap().to_mat().unwrap();
                // A rectangle `along` by `wide` centred `at` pixels down from the image's centre.
                let mut draw = |at: f32, along: f32, wide: f32| {
                    let corner = |a: f32, c: f32| {
                        let (a, c) = (at + a * along / 2.0, c * wide / 2.0);
                        core::Point::new(
                            (50.0 + a * down[0] + c * across[0]).round() as i32,
                            (50.0 + a * down[1] + c * across[1]).round() as i32,
                        )
                    };
                    let pts = core::Vector::<core::Point>::from_iter([
                        corner(-1.0, -1.0),
                        corner(-1.0, 1.0),
                        corner(1.0, 1.0),
                        corner(1.0, -1.0),
                    ]);
                    imgproc::fill_convex_poly(&mut ink, &pts, core::Scalar::all(255.0), imgproc::LINE_8, 0).unwrap();
                };
                draw(-12.0, 20.0, 10.0);
                draw(4.0 + pip_height / 2.0, pip_height, 12.0);
                let (mut labels, mut stats, mut centroids) = (Mat::default(), Mat::default(), Mat::default());
                let n = imgproc::connected_components_with_stats(
                    &ink,
                    &mut labels,
                    &mut stats,
                    &mut centroids,
                    8,
                    core::CV_32S,
                )
                .unwrap();
                assert_eq!(n, 3, "two blobs");
                let blob = |id| {
                    let (rect, _) = component(&stats, id).unwrap();
                    Blob { id, rect, centre: [0.0, 0.0], size: rect.width.max(rect.height) as f32 }
                };
                // Labels go in raster order: the rank is the blob further up the card.
                let up = |id: i32| {
                    let (x, y) = (*centroids.at_2d::<f64>(id, 0).unwrap(), *centroids.at_2d::<f64>(id, 1).unwrap());
                    x as f32 * down[0] + y as f32 * down[1]
                };
                let (rank, pip) = if up(1) < up(2) { (blob(1), blob(2)) } else { (blob(2), blob(1)) };
                let c = Candidate { ids: vec![rank.id], rect: rank.rect, rank, pip, down, centre: [0.0, 0.0] };
                assert_eq!(c.pip_cut_short(&labels).unwrap(), cut, "pip {pip_height} px at {angle} rad");
            }
        }
    }

    #[test]
    fn a_rank_run_into_its_pip_is_a_candidate_each_way_and_a_lone_pip_is_none() {
        // A ring (a queen's bowl) whose tail runs into a round pip below it, along `down`.
        let draw_index = |down: [f64; 2]| {
            move |ink: &mut Mat| {
                let at = |t: f64| core::Point::new((40.0 + down[0] * t) as i32, (40.0 + down[1] * t) as i32);
                let white = core::Scalar::all(255.0);
                imgproc::circle(ink, at(-9.0), 7, white, 2, imgproc::LINE_8, 0).unwrap();
                imgproc::line(ink, at(-3.0), at(5.0), white, 2, imgproc::LINE_8, 0).unwrap();
                imgproc::circle(ink, at(10.0), 6, white, -1, imgproc::LINE_8, 0).unwrap();
            }
        };
        for down in [[0.0, 1.0], [0.6, 0.8], [-1.0, 0.0]] {
            let (labels, blob) = centred_blob_of(draw_index(down));
            let found = merged_candidates(&labels, &[blob]).unwrap();
            assert_eq!(found.len(), 2, "down {down:?}");
            assert!(found.iter().all(|c| c.merged() && c.ids == [1]));
            // One of the two reads the index upright: its down along the drawn one, its rank's
            // centre near the ring's and its pip's near the pip.
            let upright = found.iter().find(|c| c.down[0] * down[0] as f32 + c.down[1] * down[1] as f32 > 0.95);
            let c = upright.unwrap_or_else(|| panic!("no candidate along {down:?}: {found:?}"));
            let near = |p: [f32; 2], t: f32| dist(p, [40.0 + down[0] as f32 * t, 40.0 + down[1] as f32 * t]) < 5.0;
            assert!(near(c.centre, -9.0) && near(c.pip.centre, 10.0), "{c:?}");
        }
        // A lone pip, and a pip drawn a little long (a diamond seen slanted), are not indices.
        for axes in [(6, 6), (9, 5)] {
            let (labels, blob) = centred_blob_of(|ink| {
                let size = core::Size::new(axes.0, axes.1);
                let white = core::Scalar::all(255.0);
                imgproc::ellipse(ink, core::Point::new(40, 40), size, 30.0, 0.0, 360.0, white, -1, imgproc::LINE_8, 0)
                    .unwrap();
            });
            assert!(merged_candidates(&labels, &[blob]).unwrap().is_empty(), "{axes:?}");
        }
        // Nor is a plain slanted bar of the same length (a letter "I", a streak of grain).
        let (labels, blob) = centred_blob_of(|ink| {
            let (from, to) = (core::Point::new(30, 26), core::Point::new(48, 54));
            imgproc::line(ink, from, to, core::Scalar::all(255.0), 5, imgproc::LINE_8, 0).unwrap();
        });
        assert!(merged_candidates(&labels, &[blob]).unwrap().is_empty(), "a bar");
    }

    #[test]
    fn a_diamond_pip_turned_square_on_pairs_with_its_rank_and_a_solid_oblong_does_not() {
        // Two cards on a dark table, each with a rank "2" above a solid mark: on the left a
        // diamond on a card turned by 45° (a square in the frame's axes), on the right an oblong
        // block half as long again as it is wide.
        let mut frame = Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, core::Scalar::all(60.0)).unwrap();
        let ink = core::Scalar::all(30.0);
        for (x, mark) in [(300, core::Size::new(13, 13)), (800, core::Size::new(18, 12))] {
            let card = core::Rect::new(x, 150, 200, 280);
            imgproc::rectangle(&mut frame, card, core::Scalar::all(235.0), -1, imgproc::LINE_8, 0).unwrap();
            let at = core::Point::new(x + 30, 230);
            imgproc::put_text(&mut frame, "2", at, imgproc::FONT_HERSHEY_SIMPLEX, 1.1, ink, 3, imgproc::LINE_AA, false)
                .unwrap();
            let block = core::Rect::new(x + 42 - mark.width / 2, 244, mark.width, mark.height);
            imgproc::rectangle(&mut frame, block, ink, -1, imgproc::LINE_8, 0).unwrap();
        }
        let spots = candidate_spots(&frame, 0).unwrap();
        let paired = |x0: i32| {
            spots.iter().any(|s| (x0..x0 + 100).contains(&s.bbox.x) && s.bbox.y < 215 && s.bbox.y + s.bbox.height > 250)
        };
        assert!(paired(300), "the square diamond: {spots:?}");
        assert!(!paired(800), "the oblong block: {spots:?}");
    }

    #[test]
    fn a_rank_touching_its_picture_s_thin_frame_is_cut_free_and_the_picture_s_own_marks_are_not() {
        // A card on a dark table with a picture in a frame of hair-thin lines. The rank "Q"
        // left of the picture touches its frame by a hair-thin stroke (a queen's tail), its pip
        // below it; inside the frame, a rank-like mark over a pip-like one, the left one touching
        // the frame by a hair-thin stroke too.
        let mut frame = Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, core::Scalar::all(60.0)).unwrap();
        let ink = core::Scalar::all(30.0);
        let thin = |frame: &mut Mat, a: (i32, i32), b: (i32, i32)| {
            let (a, b) = (core::Point::new(a.0, a.1), core::Point::new(b.0, b.1));
            imgproc::line(frame, a, b, ink, 1, imgproc::LINE_8, 0).unwrap();
        };
        let card = core::Rect::new(300, 150, 240, 330);
        imgproc::rectangle(&mut frame, card, core::Scalar::all(235.0), -1, imgproc::LINE_8, 0).unwrap();
        let picture = core::Rect::new(370, 190, 130, 200);
        imgproc::rectangle(&mut frame, picture, ink, 1, imgproc::LINE_8, 0).unwrap();
        let text = |frame: &mut Mat, at: (i32, i32)| {
            let at = core::Point::new(at.0, at.1);
            imgproc::put_text(frame, "Q", at, imgproc::FONT_HERSHEY_SIMPLEX, 1.0, ink, 3, imgproc::LINE_AA, false)
                .unwrap();
        };
        let pip = |frame: &mut Mat, at: (i32, i32)| {
            imgproc::circle(frame, core::Point::new(at.0, at.1), 7, ink, -1, imgproc::LINE_8, 0).unwrap();
        };
        // The index, left of the frame, and its tail's stroke to the frame.
        text(&mut frame, (320, 230));
        pip(&mut frame, (333, 252));
        thin(&mut frame, (336, 228), (370, 228));
        // The picture's marks, and their stroke to the frame's left side.
        text(&mut frame, (410, 300));
        pip(&mut frame, (423, 322));
        thin(&mut frame, (370, 290), (416, 290));
        let spots = candidate_spots(&frame, 0).unwrap();
        let paired = |x: std::ops::Range<i32>| {
            spots.iter().any(|s| x.contains(&(s.rank[0].round() as i32)) && s.bbox.height > 30 && s.bbox.height < 60)
        };
        assert!(paired(320..345), "the index cut free: {spots:?}");
        assert!(!paired(400..450), "the picture's own marks: {spots:?}");
    }

    #[test]
    fn a_dim_card_beside_the_read_ones_is_still_searched() {
        // A bright read card covering a fifth of the frame, and on the far left an unread card
        // in the shade at 0.64 of its brightness.
        let mut frame = Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, core::Scalar::all(40.0)).unwrap();
        let mut fill = |r: core::Rect, v: f64| {
            imgproc::rectangle(&mut frame, r, core::Scalar::all(v), -1, imgproc::LINE_8, 0).unwrap();
        };
        fill(core::Rect::new(600, 150, 500, 400), 230.0);
        fill(core::Rect::new(60, 300, 110, 160), 147.0);
        let read = [[[600.0, 150.0], [1100.0, 150.0], [1100.0, 550.0], [600.0, 550.0]]];
        let area = unread_area(&frame, &read).unwrap().expect("paper is left");
        assert!(area.contains(core::Point::new(65, 305)) && area.x + area.width >= 170, "{area:?}");
    }

    #[test]
    fn an_index_in_the_shade_is_on_paper_and_a_mark_on_the_table_is_not() {
        // Light falling off across the table: a card at full light on the right, one at 0.55 of
        // it on the left (its index plain to see), and between them index-like marks on the
        // table.
        let mut frame = Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, core::Scalar::all(70.0)).unwrap();
        // An index at (x, y): a rank with its pip below, in ink of an eighth of `paper`'s level,
        // on a card of that level or on the table.
        let index = |frame: &mut Mat, x: i32, y: i32, paper: f64, on_card: bool| {
            let ink = core::Scalar::all(paper * 0.12);
            if on_card {
                let card = core::Rect::new(x, y - 50, 180, 250);
                imgproc::rectangle(frame, card, core::Scalar::all(paper), -1, 8, 0).unwrap();
            }
            let at = core::Point::new(x + 20, y);
            imgproc::put_text(frame, "7", at, imgproc::FONT_HERSHEY_SIMPLEX, 1.1, ink, 3, imgproc::LINE_AA, false)
                .unwrap();
            let centre = crate::geometry::Pt::new(f64::from(x) + 31.0, f64::from(y) + 22.0);
            crate::render::face::draw_pip(frame, Suit::Hearts, centre, 22.0, false, ink).unwrap();
        };
        index(&mut frame, 1000, 250, 235.0, true);
        index(&mut frame, 60, 250, 0.55 * 235.0, true);
        index(&mut frame, 600, 250, 70.0, false);
        // Below, a stretch of table as bright as the shaded card but grainy, with the same mark.
        let mut grain = Mat::new_rows_cols_with_default(200, 300, core::CV_8UC3, core::Scalar::all(0.0)).unwrap();
        core::randn(&mut grain, &core::Scalar::all(0.55 * 235.0), &core::Scalar::all(22.0)).unwrap();
        grain.copy_to(&mut Mat::roi_mut(&mut frame, core::Rect::new(500, 500, 300, 200)).unwrap()).unwrap();
        index(&mut frame, 600, 600, 125.0, false);
        let spots = candidate_spots(&frame, 0).unwrap();
        let within = |x0: i32, x1: i32| spots.iter().filter(|s| s.bbox.y < 480 && (x0..x1).contains(&s.bbox.x)).count();
        assert!(within(1000, 1180) > 0, "the card in full light: {spots:?}");
        assert!(within(60, 240) > 0, "the card in the shade: {spots:?}");
        assert_eq!(within(560, 700), 0, "the table: {spots:?}");
        let grainy = spots.iter().filter(|s| s.bbox.y > 520 && (560..700).contains(&s.bbox.x)).count();
        assert_eq!(grainy, 0, "the grainy table: {spots:?}");
    }

    #[test]
    fn a_small_blurred_club_cut_again_smoothly_shows_its_round_top() {
        use crate::geometry::Pt;
        use crate::vision::cards::readers::classify::spade_or_club;
        for (suit, px) in [(Suit::Spades, 13.0), (Suit::Clubs, 13.0), (Suit::Spades, 20.0), (Suit::Clubs, 20.0)] {
            // A pip `px` tall, printed black on white and blurred as a webcam does.
            let mut sharp = Mat::new_rows_cols_with_default(60, 60, core::CV_8UC3, core::Scalar::all(245.0)).unwrap();
            let ink = core::Scalar::all(20.0);
            crate::render::face::draw_pip(&mut sharp, suit, Pt::new(30.0, 30.0), px, false, ink).unwrap();
            let mut frame = Mat::default();
            imgproc::gaussian_blur(&sharp, &mut frame, core::Size::new(5, 5), 1.0, 1.0, core::BORDER_DEFAULT).unwrap();
            let low = min_channel(&frame).unwrap();
            let mut mask = Mat::default();
            imgproc::threshold(&low, &mut mask, 128.0, 255.0, imgproc::THRESH_BINARY_INV).unwrap();
            let rect = imgproc::bounding_rect(&mask).unwrap();
            let pip = Blob {
                id: 1,
                rect,
                centre: [rect.x as f32 + rect.width as f32 / 2.0, rect.y as f32 + rect.height as f32 / 2.0],
                size: rect.width.max(rect.height) as f32,
            };
            let smooth = smooth_pip(&frame, &pip, [0.0, 1.0]).unwrap().expect("the pip is found again");
            // The club's round top shows; the spade's point, blunted by the blur, is left to
            // the templates, but never taken for a club's lobe.
            let said = spade_or_club(&smooth, true);
            match suit {
                Suit::Clubs => assert_eq!(said, Some(Suit::Clubs), "{px} px"),
                _ => assert_ne!(said, Some(Suit::Clubs), "{px} px"),
            }
        }
    }

    #[test]
    fn ranks_side_by_side_in_a_tight_fan_are_read_one_by_one() {
        // Indices of a tight fan: each rank with its pip below, the next card's rank close
        // beside it at the same height (closer than a "10" keeps its two digits).
        let mut frame = Mat::new_rows_cols_with_default(480, 640, core::CV_8UC3, core::Scalar::all(240.0)).unwrap();
        let ink = core::Scalar::all(25.0);
        let cards = [("K", Suit::Spades), ("5", Suit::Clubs), ("Q", Suit::Spades), ("8", Suit::Clubs)];
        for (i, (rank, suit)) in cards.iter().enumerate() {
            let x = 40 + 34 * i as i32;
            let at = core::Point::new(x, 70);
            imgproc::put_text(
                &mut frame,
                rank,
                at,
                imgproc::FONT_HERSHEY_SIMPLEX,
                1.1,
                ink,
                3,
                imgproc::LINE_AA,
                false,
            )
            .unwrap();
            let centre = crate::geometry::Pt::new(f64::from(x) + 11.0, 92.0);
            crate::render::face::draw_pip(&mut frame, *suit, centre, 22.0, false, ink).unwrap();
        }
        let templates = GlyphTemplates::builtin().unwrap();
        let marks = LooseMarks::find(&frame, &[], 0).unwrap().expect("paper left");
        let nets = [&GlyphNet::ranks().unwrap(), &GlyphNet::suits().unwrap()];
        let hits = marks.read_by_templates(&templates, &templates, nets, 0.45, &NetworkRead::default()).unwrap();
        let read: Vec<String> = hits.iter().map(|h| h.card.to_string()).collect();
        for card in ["KS", "5C", "QS", "8C"] {
            assert!(read.iter().any(|r| r == card), "{card} not read: {read:?}");
        }
        // The marks of an index the network read are left to it: the five and its club, and
        // every other pairing that uses either; the neighbours are still read.
        let five = hits.iter().find(|h| h.card.to_string() == "5C").unwrap();
        let its = marks.candidates.iter().find(|c| marks.frame_box(c).0 == five.bbox).unwrap();
        let first = NetworkRead { marks: its.marks(), ..NetworkRead::default() };
        let hits = marks.read_by_templates(&templates, &templates, nets, 0.45, &first).unwrap();
        let read: Vec<String> = hits.iter().map(|h| h.card.to_string()).collect();
        assert!(!read.iter().any(|r| r == "5C"), "{read:?}");
        for card in ["KS", "QS", "8C"] {
            assert!(read.iter().any(|r| r == card), "{card} not read: {read:?}");
        }
        // Candidates a network found blank are left unread.
        let first = NetworkRead { blank: vec![true; marks.candidates.len()], ..NetworkRead::default() };
        assert_eq!(marks.read_by_templates(&templates, &templates, nets, 0.45, &first).unwrap(), []);
        // Where the network takes every pip for a spade (clubs 0.2, spades 0.5), the clubs the
        // templates read are left unread and the spades stand.
        let first =
            NetworkRead { suits: vec![[0.2, 0.0, 0.0, 0.5, 0.3]; marks.candidates.len()], ..NetworkRead::default() };
        let hits = marks.read_by_templates(&templates, &templates, nets, 0.45, &first).unwrap();
        let read: Vec<String> = hits.iter().map(|h| h.card.to_string()).collect();
        assert!(!read.iter().any(|r| r.ends_with('C')), "{read:?}");
        for card in ["KS", "QS"] {
            assert!(read.iter().any(|r| r == card), "{card} not read: {read:?}");
        }
    }

    #[test]
    fn a_loose_candidate_the_network_reads_as_none_at_0_9_is_left_to_it() {
        let reading = |none: f32| {
            let mut ranks = [(1.0 - none) / 13.0; 14];
            ranks[13] = none;
            let mut suits = [(1.0 - none) / 4.0; 5];
            suits[4] = none;
            NetReading { ranks, suits, embedding: Vec::new() }
        };
        assert!(loose_blank(&reading(0.92)));
        assert!(!loose_blank(&reading(0.85)));
        // A candidate read as a card is no blank.
        let mut read = reading(0.92);
        read.ranks = [0.0; 14];
        read.ranks[6] = 1.0;
        read.suits = [0.0, 0.0, 1.0, 0.0, 0.0];
        assert!(!loose_blank(&read));
    }

    #[test]
    fn the_network_leaning_to_the_other_suit_of_a_colour_vetoes_the_templates() {
        let card = |s: &str| s.parse::<Card>().unwrap();
        // Clubs, diamonds, hearts, spades, none.
        let read = NetworkRead {
            suits: vec![[0.2, 0.05, 0.05, 0.4, 0.3], [0.02, 0.3, 0.5, 0.08, 0.1]],
            ..NetworkRead::default()
        };
        assert!(read.leans_to_other_suit(0, card("9C")));
        assert!(!read.leans_to_other_suit(0, card("9S")));
        // Leaning at all is the bar: hearts 0.5 over diamonds' 0.3 vetoes a diamond, not a heart.
        assert!(read.leans_to_other_suit(1, card("7D")));
        assert!(!read.leans_to_other_suit(1, card("7H")));
        // A red pip the network took for a spade: it backs neither red suit (0.05 each), so it
        // doubts the templates' heart as much as a diamond, and the heart is not reported.
        assert!(read.leans_to_other_suit(0, card("9H")));
        // No reading, no veto.
        assert!(!read.leans_to_other_suit(2, card("9C")));
    }

    #[test]
    fn a_second_reader_reads_only_where_the_first_found_nothing() {
        let first = IndexHit {
            card: "3S".parse().unwrap(),
            confidence: 0.8,
            bbox: core::Rect::new(100, 100, 10, 24),
            down: [0.0, 1.0],
            size: 12.0,
            window: [[95.0, 88.0], [115.0, 88.0], [115.0, 124.0], [95.0, 124.0]],
        };
        // Within a glyph height the first reader's card stands; further off the second reads
        // (a tight fan's next index can lie closer than one and a half).
        let taken = [first];
        assert!(!clear_of(&taken, core::Rect::new(104, 100, 10, 24), 12.0));
        assert!(!clear_of(&taken, core::Rect::new(100, 110, 10, 24), 12.0));
        assert!(clear_of(&taken, core::Rect::new(115, 100, 10, 24), 12.0));
        assert!(clear_of(&taken, core::Rect::new(130, 100, 10, 24), 12.0));
        assert!(clear_of(&[], core::Rect::new(104, 100, 10, 24), 12.0));
    }

    #[test]
    fn a_thin_slanted_stroke_is_a_bar_and_a_ring_is_not() {
        let white = core::Scalar::all(255.0);
        let (labels, stroke) = blob_of(|m| {
            imgproc::line(m, core::Point::new(18, 8), core::Point::new(21, 30), white, 2, imgproc::LINE_8, 0).unwrap()
        });
        assert!(is_bar(&labels, &stroke).unwrap());
        let (labels, ring) = blob_of(|m| {
            imgproc::ellipse(
                m,
                core::Point::new(20, 20),
                core::Size::new(5, 10),
                0.0,
                0.0,
                360.0,
                white,
                2,
                imgproc::LINE_8,
                0,
            )
            .unwrap()
        });
        assert!(!is_bar(&labels, &ring).unwrap());
    }
}
