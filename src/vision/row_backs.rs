//! Cards lying along a row of the table, found in the frame itself. The card reader finds a lone
//! back by its outline, but backs lying side by side with a shielded entity among them (a
//! Diamond's back offset over its base) make one blob that is no card-shaped outline, and the
//! reader drops it. Knowing where each Front Row lies, this looks along the row in a top view of
//! the table: where the row's strip is not the table's colour or hue over a card's width, a card
//! lies; where it also is below the card's lower edge, a second card lies over it. The strip's
//! colours tell a back from a face the reader could not read: a face is mostly bright,
//! unsaturated paper. `table::backs` puts what is found among the reader's sightings.

use opencv::core::{self, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::cards::CARD_MM;
use crate::geometry::{Homography, Pt};
use crate::layout::{EXTRA_SLOTS, MODIFIER_MM, ROW_SLOTS, Row, SLOT_MM, TableLayout};

/// The strip looked at, across the row (millimetres toward the seat from the row's line): from
/// past a base's far edge to past a modifier's near edge.
const ACROSS: (f64, f64) = (-60.0, 100.0);
/// The base's band (inside any card lying on the line) and the band only a modifier covers
/// (below the base's lower edge at 44 mm, above the modifier's at 81).
const BASE_BAND: (f64, f64) = (-36.0, 36.0);
const MODIFIER_BAND: (f64, f64) = (52.0, 76.0);
/// Colour distance from the table's colour above which a pixel is no table.
const NOT_TABLE: f64 = 45.0;
/// Chromaticity distance (each channel's share of the pixel's sum) from the table's above which
/// a pixel is no table either. A back's fine lattice seen at about a pixel a millimetre averages
/// to a colour as bright as a wooden table's but of another hue (red lattice on wood: 0.09, the
/// wood's own grain at most 0.06 at its 99.9th percentile); a lamp's glare or a card's shadow
/// scales a colour and keeps its chromaticity. Only pixels brighter than `CHROMA_DARK` (the sum
/// of the channels) have a chromaticity worth comparing.
const NOT_TABLE_CHROMA: f64 = 0.065;
const CHROMA_DARK: f64 = 120.0;
/// A channel's value is uncertain by a few units (sensor noise, compression), which moves a
/// dark pixel's chromaticity more than a bright one's: two chromaticities closer than this over
/// the darker one's channel sum may be one colour. Dark green felt in a compressed video (sum
/// about 150, red about 20) strays 0.1 from its own mean; the lattice on wood above (sum 270)
/// lies 0.097 from the wood.
const CHROMA_NOISE: f64 = 20.0;
/// The margins across the strip where the table shows (millimetres, as `ACROSS`): past a base's
/// far edge at -44 and a modifier's near edge at 81.
const TOP_MARGIN: (f64, f64) = (-60.0, -46.0);
const BOTTOM_MARGIN: (f64, f64) = (84.0, 100.0);
/// A margin pixel is table when within this colour distance of the strip's median (a lamp's
/// glare brightens a table by less), and the table's colour beside a column is averaged over
/// this many columns either side (24 mm).
const MARGIN_GATE: f64 = 90.0;
const MARGIN_WINDOW: usize = 12;
/// The strip's resolution: a card is 31 pixels wide.
const MM_PER_PX: f64 = 2.0;
/// Share of a band's pixels that must be no table for a card to lie there.
const COVERED: f64 = 0.5;
/// A card's edge: within this many strip columns (6 mm) the base band goes from less than
/// `EDGE_BARE` covered to more than `EDGE_FULL`.
const EDGE_COLUMNS: usize = 3;
const EDGE_BARE: f64 = 0.25;
const EDGE_FULL: f64 = 0.75;
/// A pixel is paper when its brightest channel is within this share of the strip's brightest
/// (95th percentile) and its saturation is below `PAPER_SATURATION`.
const PAPER_VALUE: f64 = 0.8;
const PAPER_SATURATION: f64 = 0.3;
/// Share of a card's base band that must be paper for it to be a face: a pip card's centre is
/// about 0.8 paper, the rendered back 0.1 (its white border), a court card about 0.6.
const PAPER_FACE: f64 = 0.5;

/// A card found along a Front Row, in table millimetres, and whether its colours are a face's
/// rather than a back's.
#[derive(Clone, Debug, PartialEq)]
pub struct RowCard {
    /// Its outline (a stack of two: one long outline, as the reader gives it) and its middle.
    pub outline: [Pt; 4],
    pub centre: Pt,
    pub looks_like_face: bool,
    /// For a stack of two, the card lying over the base's lower part alone (a shield).
    pub shield: Option<Shield>,
    /// The row's card angle (radians), which says where a card's index lies from its centre.
    pub angle: f64,
}

/// The card lying over a stacked base's lower part: its outline, its centre, and the middle of
/// its far edge, which only a stack's outline reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct Shield {
    pub outline: [Pt; 4],
    pub centre: Pt,
    pub far_end: Pt,
}

/// Cards found along every Front Row (stacks of two as one long outline, as the reader gives
/// them).
pub fn front_row_backs(frame: &Mat, layout: &TableLayout) -> opencv::Result<Vec<RowCard>> {
    let Some(to_image) = layout.image_to_table().inverse() else {
        return Ok(Vec::new());
    };
    let bright = brightest(frame)?;
    let mut out = Vec::new();
    for (k, seat) in layout.seats.iter().enumerate() {
        out.extend(row_backs(frame, &seat.front, strip_slots(layout, k), &to_image, bright)?);
    }
    Ok(out)
}

/// How many slots of `seat`'s Front Row its strip covers: the drawn ones, and past them (entities
/// retire to the row's right end, and a long game's row outgrows the drawn slots) each slot that
/// lies at least a slot's width from every drawn slot of the other rows and off the piles, as far
/// as the placing reaches (`EXTRA_SLOTS`). Two seats leave room for all of them; at three or four
/// the next seat's row begins about a slot and a half on.
fn strip_slots(layout: &TableLayout, seat: usize) -> usize {
    let row = layout.seats[seat].front;
    let others: Vec<Pt> = layout
        .seats
        .iter()
        .enumerate()
        .flat_map(|(k, s)| [(k, s.front), (k, s.back)])
        .filter(|&(k, r)| k != seat || r != row)
        .flat_map(|(_, r)| (0..ROW_SLOTS).map(move |j| r.slot(j)))
        .collect();
    let free = |p: Pt| {
        others.iter().all(|o| o.distance(p) >= SLOT_MM - 1e-9)
            && !layout.deck.contains(p)
            && !layout.discard.contains(p)
    };
    (ROW_SLOTS..ROW_SLOTS + EXTRA_SLOTS as usize).take_while(|&k| free(row.slot(k))).count() + ROW_SLOTS
}

fn row_backs(frame: &Mat, row: &Row, slots: usize, to_image: &Homography, bright: f64) -> opencv::Result<Vec<RowCard>> {
    let step = row.step.x.hypot(row.step.y);
    let u = Pt::new(row.step.x / step, row.step.y / step);
    let d = {
        let m = row.modifier_at(Pt::new(0.0, 0.0));
        let len = m.x.hypot(m.y);
        Pt::new(m.x / len, m.y / len)
    };
    let (a0, a1) = (-0.5 * step, (slots as f64 - 0.5) * step);
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
    // A back's lattice has threads near a wooden table's colour: the mask closed over 3 pixels
    // fills them. Bare table between cards is judged on the mask as seen, since closing also
    // fills a narrow gap's grain and shade.
    let seen = not_table(&strip, &valid)?;
    let covered = close(&seen)?;
    let paper = paper(&strip, &valid, bright)?;
    let band = |i: usize, band: (f64, f64)| share(&covered, i..i + 1, band, c0);
    let seen_band = |i: usize| share(&seen, i..i + 1, BASE_BAND, c0);
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
        if run < CARD_MM.0 * 0.6 || !sharp_edges(&|c| band(c, BASE_BAND), &seen_band, start, i, width) {
            continue;
        }
        let cards = (((run - CARD_MM.0) / step).round().max(0.0) as usize) + 1;
        let gap = if cards > 1 { (run - CARD_MM.0) / (cards - 1) as f64 } else { 0.0 };
        for k in 0..cards {
            let centre = start as f64 * MM_PER_PX + CARD_MM.0 / 2.0 + gap * k as f64;
            let span =
                ((centre - 25.0).max(0.0) / MM_PER_PX) as usize..(((centre + 25.0) / MM_PER_PX) as usize).min(width);
            let n = span.len().max(1) as f64;
            let shielded = span.clone().map(|c| band(c, MODIFIER_BAND)).sum::<f64>() / n > COVERED;
            let looks_like_face = share(&paper, span, BASE_BAND, c0) > PAPER_FACE;
            let (half_w, near, far) = (
                CARD_MM.0 / 2.0,
                -CARD_MM.1 / 2.0 - c0,
                CARD_MM.1 / 2.0 + if shielded { MODIFIER_MM } else { 0.0 } - c0,
            );
            let outline =
                [(centre - half_w, near), (centre + half_w, near), (centre + half_w, far), (centre - half_w, far)]
                    .map(|(x, y)| to_table(x, y));
            let middle = to_table(centre, (near + far) / 2.0);
            let shield = shielded.then(|| {
                let (near, far) = (MODIFIER_MM - CARD_MM.1 / 2.0 - c0, MODIFIER_MM + CARD_MM.1 / 2.0 - c0);
                let outline =
                    [(centre - half_w, near), (centre + half_w, near), (centre + half_w, far), (centre - half_w, far)]
                        .map(|(x, y)| to_table(x, y));
                Shield { outline, centre: to_table(centre, MODIFIER_MM - c0), far_end: to_table(centre, far - 6.0) }
            });
            out.push(RowCard { outline, centre: middle, looks_like_face, shield, angle: row.angle });
        }
    }
    Ok(out)
}

/// Whether the run of covered columns `start..end` begins or ends at a card's straight edge:
/// the base band goes from bare table (`seen`: the share before closing) to covered within
/// `EDGE_COLUMNS` either side of it. A light's glare on the table fades in and out over many
/// columns.
fn sharp_edges(
    covered: &dyn Fn(usize) -> f64,
    seen: &dyn Fn(usize) -> f64,
    start: usize,
    end: usize,
    width: usize,
) -> bool {
    let (inner_start, inner_end) = (start + EDGE_COLUMNS, end.saturating_sub(EDGE_COLUMNS + 1));
    // Bare table within a few columns outside the run (cards lie as close as 4 mm apart); past
    // the strip's ends nothing tells: no edge there.
    let bare = |columns: std::ops::Range<usize>| columns.take_while(|&c| c < width).any(|c| seen(c) < EDGE_BARE);
    let full = |c: usize| covered(c) > EDGE_FULL;
    // One straight edge is enough: a hand beside a card (counted as covered) blurs the other.
    inner_start <= inner_end
        && ((bare(start.saturating_sub(EDGE_COLUMNS)..start) && full(inner_start))
            || (bare(end..end + EDGE_COLUMNS) && full(inner_end)))
}

/// The share of `cells` true over the strip columns `span` and the band `(lo, hi)` across the
/// row (millimetres; the strip starts at `c0`).
fn share(cells: &[Vec<bool>], span: std::ops::Range<usize>, (lo, hi): (f64, f64), c0: f64) -> f64 {
    let (j0, j1) = (((lo - c0) / MM_PER_PX) as usize, ((hi - c0) / MM_PER_PX) as usize);
    let rows = &cells[j0.min(cells.len())..j1.min(cells.len())];
    let total = rows.len() * span.len();
    let count: usize = rows.iter().map(|line| span.clone().filter(|&i| line.get(i) == Some(&true)).count()).sum();
    count as f64 / total.max(1) as f64
}

/// The frame's brightest channel value at its 99th percentile (every 7th pixel looked at): the
/// face-up cards' paper, since a table in play always shows some (the Back Rows lie face up).
fn brightest(frame: &Mat) -> opencv::Result<f64> {
    let pixels = frame.data_bytes()?;
    let mut histogram = [0u32; 256];
    let mut counted = 0u32;
    for px in pixels.chunks_exact(3).step_by(7) {
        histogram[usize::from(px.iter().copied().max().unwrap_or(0))] += 1;
        counted += 1;
    }
    let mut seen = 0;
    let at = histogram.iter().position(|&n| {
        seen += n;
        seen * 100 >= counted * 99
    });
    Ok(at.unwrap_or(255) as f64)
}

/// Per strip pixel (row-major, `[j][i]`), whether it looks like a card face's paper: near the
/// frame's brightest (`bright`) and nearly grey. Brightness is relative, so a dim or warm light
/// changes little.
fn paper(strip: &Mat, valid: &Mat, bright: f64) -> opencv::Result<Vec<Vec<bool>>> {
    mask(strip, valid, |px| {
        let (hi, lo) =
            (f64::from(px.iter().copied().max().unwrap_or(0)), f64::from(px.iter().copied().min().unwrap_or(0)));
        hi >= PAPER_VALUE * bright && hi > 0.0 && (hi - lo) / hi < PAPER_SATURATION
    })
}

/// Per strip pixel (row-major, `[j][i]`), whether its BGR value passes `test`; pixels outside
/// the frame (`valid` 0) never do.
fn mask(strip: &Mat, valid: &Mat, test: impl Fn(&[u8]) -> bool) -> opencv::Result<Vec<Vec<bool>>> {
    let (rows, cols) = (strip.rows() as usize, strip.cols() as usize);
    let (pixels, valid) = (strip.data_bytes()?, valid.data_bytes()?);
    let mut out = vec![vec![false; cols]; rows];
    for (j, line) in out.iter_mut().enumerate() {
        for (i, cell) in line.iter_mut().enumerate() {
            let k = j * cols + i;
            *cell = valid[k] != 0 && test(&pixels[3 * k..3 * k + 3]);
        }
    }
    Ok(out)
}

/// Per strip pixel (row-major, `[j][i]`), whether it is no table: far from the table's colour
/// where it lies. A lamp's glare brightens a table over a hand's breadth, so the
/// table's colour is taken beside each column from the strip's margins (bare table past a
/// base's far edge and a modifier's near edge), blended across the strip; a margin hidden there
/// leaves the other, both hidden the margins' median colour. A hand counts as cards: the
/// settler keeps frames with a hand over a changed table out (see `settle`).
fn not_table(strip: &Mat, valid_mat: &Mat) -> opencv::Result<Vec<Vec<bool>>> {
    let (rows, cols) = (strip.rows() as usize, strip.cols() as usize);
    let (pixels, valid) = (strip.data_bytes()?, valid_mat.data_bytes()?);
    let colour = |k: usize| [0, 1, 2].map(|c| f64::from(pixels[3 * k + c]));
    let band_rows = |(lo, hi): (f64, f64)| {
        let (j0, j1) = (((lo - ACROSS.0) / MM_PER_PX) as usize, ((hi - ACROSS.0) / MM_PER_PX) as usize);
        (j0.min(rows)..j1.min(rows), (j0 + j1) as f64 / 2.0)
    };
    let (top_rows, bottom_rows) = (band_rows(TOP_MARGIN).0, band_rows(BOTTOM_MARGIN).0);
    // A long Front Row covers more than half of its strip: the table's colour is the margins'
    // median, where only a modifier's or a hand's edge reaches; the whole strip's where neither
    // margin is in the frame.
    let median = median_colour(pixels, valid, cols, top_rows.chain(bottom_rows))
        .or_else(|| median_colour(pixels, valid, cols, 0..rows))
        .unwrap_or([0.0; 3]);
    let margin = |band: (f64, f64)| {
        let (rows, middle) = band_rows(band);
        (margin_colours(&colour, valid, cols, rows, median), middle)
    };
    let ((top, top_row), (bottom, bottom_row)) = (margin(TOP_MARGIN), margin(BOTTOM_MARGIN));
    let limit = NOT_TABLE * NOT_TABLE;
    let mut out = vec![vec![false; cols]; rows];
    for (j, line) in out.iter_mut().enumerate() {
        let t = ((j as f64 - top_row) / (bottom_row - top_row)).clamp(0.0, 1.0);
        for (i, cell) in line.iter_mut().enumerate() {
            let table = match (top[i], bottom[i]) {
                (Some(a), Some(b)) => [0, 1, 2].map(|c| a[c] + (b[c] - a[c]) * t),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => median,
            };
            let k = j * cols + i;
            let px = colour(k);
            *cell = valid[k] != 0
                && ((0..3).map(|c| (px[c] - table[c]).powi(2)).sum::<f64>() > limit || other_hue(px, table));
        }
    }
    Ok(out)
}

/// Whether `px` is of another hue than `table`: their chromaticities lie more than
/// `NOT_TABLE_CHROMA` apart, and further than noise moves the darker (`CHROMA_NOISE`), both
/// bright enough to have one.
fn other_hue(px: [f64; 3], table: [f64; 3]) -> bool {
    let (sum_px, sum_table) = (px.iter().sum::<f64>(), table.iter().sum::<f64>());
    let least = NOT_TABLE_CHROMA.max(CHROMA_NOISE / sum_px.min(sum_table));
    sum_px > CHROMA_DARK
        && sum_table > CHROMA_DARK
        && (0..3).map(|c| (px[c] / sum_px - table[c] / sum_table).powi(2)).sum::<f64>() > least * least
}

/// The median colour of the strip's pixels inside the frame in the rows `rows`; `None` when
/// none is.
fn median_colour(pixels: &[u8], valid: &[u8], cols: usize, rows: impl Iterator<Item = usize>) -> Option<[f64; 3]> {
    let mut histograms = [[0u32; 256]; 3];
    let mut counted = 0;
    let pixels_in = rows.flat_map(|j| j * cols..((j + 1) * cols).min(valid.len()));
    for k in pixels_in.filter(|&k| valid[k] > 0) {
        for (c, histogram) in histograms.iter_mut().enumerate() {
            histogram[usize::from(pixels[3 * k + c])] += 1;
        }
        counted += 1;
    }
    (counted > 0).then(|| {
        histograms.each_ref().map(|histogram| {
            let mut seen = 0;
            histogram
                .iter()
                .position(|&n| {
                    seen += n;
                    seen * 2 > counted
                })
                .unwrap_or(0) as f64
        })
    })
}

/// Per strip column, the table's mean colour in the margin rows `rows` over the columns within
/// `MARGIN_WINDOW`, counting only pixels within `MARGIN_GATE` of the strip's median and of its
/// hue (a card or a hand reaching into the margin is no table: a brown hand resting on green
/// felt lies within the gate, and taken for the table it made the felt above it look like a
/// card); `None` where under a quarter of them are.
fn margin_colours(
    colour: &dyn Fn(usize) -> [f64; 3],
    valid: &[u8],
    cols: usize,
    rows: std::ops::Range<usize>,
    median: [f64; 3],
) -> Vec<Option<[f64; 3]>> {
    let gate = MARGIN_GATE * MARGIN_GATE;
    // Per column: the sums of the table pixels' colours, their count, and the pixels looked at.
    let mut sums = vec![([0.0; 3], 0usize); cols];
    for (i, (sum, n)) in sums.iter_mut().enumerate() {
        for j in rows.clone() {
            let k = j * cols + i;
            let px = colour(k);
            if valid[k] != 0
                && (0..3).map(|c| (px[c] - median[c]).powi(2)).sum::<f64>() < gate
                && !other_hue(px, median)
            {
                (0..3).for_each(|c| sum[c] += px[c]);
                *n += 1;
            }
        }
    }
    (0..cols)
        .map(|i| {
            let window = i.saturating_sub(MARGIN_WINDOW)..(i + MARGIN_WINDOW + 1).min(cols);
            let looked = window.len() * rows.len();
            let (sum, n) = sums[window]
                .iter()
                .fold(([0.0; 3], 0), |(s, n), (c, m)| ([s[0] + c[0], s[1] + c[1], s[2] + c[2]], n + m));
            (n * 4 >= looked && n > 0).then(|| sum.map(|v| v / n as f64))
        })
        .collect()
}

/// The mask closed by a 3×3 square: grown by a pixel, then shrunk by one (past the strip's
/// border nothing grows or shrinks it).
fn close(mask: &[Vec<bool>]) -> opencv::Result<Vec<Vec<bool>>> {
    let (rows, cols) = (mask.len(), mask.first().map_or(0, Vec::len));
    let bytes: Vec<u8> = mask.iter().flatten().map(|&v| if v { 255 } else { 0 }).collect();
    let image = Mat::from_slice(&bytes)?.reshape(1, rows as i32)?.try_clone()?;
    let kernel = imgproc::get_structuring_element(imgproc::MORPH_RECT, Size::new(3, 3), core::Point::new(-1, -1))?;
    let mut closed = Mat::default();
    imgproc::morphology_ex(
        &image,
        &mut closed,
        imgproc::MORPH_CLOSE,
        &kernel,
        core::Point::new(-1, -1),
        1,
        core::BORDER_CONSTANT,
        imgproc::morphology_default_border_value()?,
    )?;
    let closed = closed.data_bytes()?;
    Ok((0..rows).map(|j| closed[j * cols..(j + 1) * cols].iter().map(|&v| v != 0).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_front_row_s_strip_runs_past_its_drawn_slots_as_far_as_no_other_row_lies() {
        // Two seats face each other: nothing lies along either row's end.
        let two = TableLayout::standard(2);
        assert!((0..2).all(|k| strip_slots(&two, k) == ROW_SLOTS + EXTRA_SLOTS as usize));
        // Four seats sit two a side: a row's end meets the next seat's first slot after one slot
        // more, and a row ending at the table's edge runs on.
        let four = TableLayout::standard(4);
        let slots: Vec<usize> = (0..4).map(|k| strip_slots(&four, k)).collect();
        assert!(slots.iter().all(|&n| n > ROW_SLOTS), "{slots:?}");
        assert!(slots.contains(&(ROW_SLOTS + 1)), "{slots:?}");
        for (k, &n) in slots.iter().enumerate() {
            let end = four.seats[k].front.slot(n - 1);
            for (j, seat) in four.seats.iter().enumerate().filter(|(j, _)| *j != k) {
                let nearest = (0..ROW_SLOTS).map(|i| seat.front.slot(i).distance(end)).fold(f64::MAX, f64::min);
                assert!(nearest >= SLOT_MM - 1e-9, "seat {k}'s strip reaches seat {j}'s row");
            }
        }
    }

    /// A strip 100 columns long with one card over the base band at columns 10..42, coloured
    /// by `pixel(column, row, on_card)` (BGR), as `not_table` then `close` cover it.
    fn covered_strip(pixel: impl Fn(usize, usize, bool) -> [u8; 3]) -> Vec<Vec<bool>> {
        let (rows, cols) = (((ACROSS.1 - ACROSS.0) / MM_PER_PX) as usize, 100);
        let base_rows = ((BASE_BAND.0 - 8.0 - ACROSS.0) / MM_PER_PX) as usize
            ..((BASE_BAND.1 + 8.0 - ACROSS.0) / MM_PER_PX) as usize;
        let mut bytes = Vec::with_capacity(rows * cols * 3);
        for j in 0..rows {
            for i in 0..cols {
                bytes.extend(pixel(i, j, (10..42).contains(&i) && base_rows.contains(&j)));
            }
        }
        let strip = Mat::from_slice(&bytes).unwrap().reshape(3, rows as i32).unwrap().try_clone().unwrap();
        let valid =
            Mat::new_rows_cols_with_default(rows as i32, cols as i32, core::CV_8UC1, Scalar::all(255.0)).unwrap();
        close(&not_table(&strip, &valid).unwrap()).unwrap()
    }

    /// A wooden table (BGR 55, 90, 150) under a lamp that brightens its right half by up to 40 %,
    /// with one back over the base band at columns 10..42: a lattice whose every other pixel is
    /// a thread near the wood's colour.
    #[test]
    fn a_lattice_back_on_wood_is_covered_and_a_lamp_s_glare_is_not() {
        let covered = covered_strip(|i, j, on_card| {
            let glare = 1.0 + 0.4 * (i.saturating_sub(50) as f64 / 49.0);
            match on_card {
                true if (i + j) % 2 == 0 => [70, 30, 60],
                true => [70, 80, 150],
                false => [55.0, 90.0, 150.0].map(|v: f64| (v * glare).min(255.0) as u8),
            }
        });
        let band = |span: std::ops::Range<usize>| share(&covered, span, BASE_BAND, ACROSS.0);
        assert!(band(12..40) > 0.95, "the back: {}", band(12..40));
        assert!(band(0..8) < 0.05, "bare wood: {}", band(0..8));
        assert!(band(60..100) < 0.05, "wood in the glare: {}", band(60..100));
    }

    /// A back seen at a pixel a millimetre: its red lattice averages to a colour as bright as
    /// the wood's (BGR 61, 72, 147 against 58, 88, 123: 28 apart, under `NOT_TABLE`), but
    /// redder. The wood's grain varies its brightness by a tenth either way.
    #[test]
    fn a_lattice_averaged_to_the_wood_s_brightness_is_covered_by_its_hue() {
        let covered = covered_strip(|i, j, on_card| {
            let grain = 1.0 + 0.1 * ((j as f64 * 0.9).sin() + (i as f64 * 0.37).cos()) / 2.0;
            let colour = if on_card { [61.0, 72.0, 147.0] } else { [58.0, 88.0, 123.0] };
            colour.map(|v: f64| (v * grain) as u8)
        });
        let band = |span: std::ops::Range<usize>| share(&covered, span, BASE_BAND, ACROSS.0);
        assert!(band(12..40) > 0.95, "the back: {}", band(12..40));
        assert!(band(50..100) < 0.05, "the wood: {}", band(50..100));
    }

    #[test]
    fn a_row_covering_most_of_its_strip_leaves_the_table_beyond_it_bare() {
        // Stacks of two backs (BGR 120, 40, 150, a base and its shield, 44 mm before the row's
        // line to 81 mm past it) along columns 0..80 of 100, on green felt, the strip's lower
        // margin beyond the picture's edge: most of the strip in the frame is backs, and only
        // its upper margin shows the felt.
        let (rows, cols) = (((ACROSS.1 - ACROSS.0) / MM_PER_PX) as usize, 100);
        let row = |mm: f64| ((mm - ACROSS.0) / MM_PER_PX) as usize;
        let (stacks, in_frame) = (row(-44.0)..row(81.0), row(BOTTOM_MARGIN.0 - 2.0));
        let mut bytes = Vec::with_capacity(rows * cols * 3);
        for j in 0..rows {
            for i in 0..cols {
                bytes.extend(if i < 80 && stacks.contains(&j) { [120u8, 40, 150] } else { [57, 105, 26] });
            }
        }
        let strip = Mat::from_slice(&bytes).unwrap().reshape(3, rows as i32).unwrap().try_clone().unwrap();
        let inside: Vec<u8> = (0..rows * cols).map(|k| if k / cols < in_frame { 255 } else { 0 }).collect();
        let valid = Mat::from_slice(&inside).unwrap().reshape(1, rows as i32).unwrap().try_clone().unwrap();
        let covered = close(&not_table(&strip, &valid).unwrap()).unwrap();
        let band = |span: std::ops::Range<usize>| share(&covered, span, BASE_BAND, ACROSS.0);
        assert!(band(2..78) > 0.95, "the backs: {}", band(2..78));
        assert!(band(84..100) < 0.05, "the felt beyond: {}", band(84..100));
    }

    #[test]
    fn a_hand_resting_below_the_row_leaves_the_felt_beside_it_bare() {
        // Green felt (BGR 56, 101, 32) with a back at columns 10..42 and a brown hand (BGR 46,
        // 80, 117: 88 from the felt, within `MARGIN_GATE`, of another hue) resting over the
        // strip's lower margin and the modifier's band at columns 50..70, reaching no higher:
        // the felt above the hand is no card (a rendered game's resting hand made a fifth
        // Front Row entity there for seconds at a time).
        let hand_from = ((MODIFIER_BAND.0 - ACROSS.0) / MM_PER_PX) as usize;
        let covered = covered_strip(|i, j, on_card| match () {
            _ if on_card => [60, 40, 150],
            _ if (50..70).contains(&i) && j >= hand_from => [46, 80, 117],
            _ => [56, 101, 32],
        });
        let band = |span: std::ops::Range<usize>, band| share(&covered, span, band, ACROSS.0);
        assert!(band(12..40, BASE_BAND) > 0.95, "the back: {}", band(12..40, BASE_BAND));
        assert!(band(45..75, BASE_BAND) < 0.05, "the felt above the hand: {}", band(45..75, BASE_BAND));
        assert!(band(52..68, MODIFIER_BAND) > 0.95, "the hand: {}", band(52..68, MODIFIER_BAND));
    }

    #[test]
    fn dark_felt_s_noise_is_no_other_hue() {
        // Green felt (BGR 57, 105, 26) with a compressed video's noise of up to 10 a channel,
        // which moves its chromaticity by up to 0.1, and a red back on it at columns 10..42.
        let covered = covered_strip(|i, j, on_card| {
            let noise = |k: usize| ((i * 7 + j * 13 + k * 5) % 21) as f64 - 10.0;
            let colour = if on_card { [60.0, 40.0, 150.0] } else { [57.0, 105.0, 26.0] };
            [0, 1, 2].map(|c| (colour[c] + noise(c)).clamp(0.0, 255.0) as u8)
        });
        let band = |span: std::ops::Range<usize>| share(&covered, span, BASE_BAND, ACROSS.0);
        assert!(band(12..40) > 0.95, "the back: {}", band(12..40));
        assert!(band(50..100) < 0.05, "the felt: {}", band(50..100));
    }

    #[test]
    fn a_covered_run_is_a_card_only_between_sharp_edges() {
        // Per strip column, the base band's covered share: a card 32 columns wide, and a glare
        // rising and falling over 20 columns each side.
        let card: Vec<f64> = (0..60).map(|c| if (14..46).contains(&c) { 1.0 } else { 0.02 }).collect();
        let glare: Vec<f64> = (0..80).map(|c| (1.0 - (c as f64 - 40.0).abs() / 20.0).clamp(0.0, 1.0)).collect();
        let run = |share: &[f64]| {
            let start = share.iter().position(|&v| v > COVERED).unwrap();
            let end = start + share[start..].iter().take_while(|&&v| v > COVERED).count();
            sharp_edges(&|c| share[c], &|c| share[c], start, end, share.len())
        };
        assert!(run(&card));
        assert!(!run(&glare));
        // Two cards 4 mm apart at the strip's start: the gap is their edge.
        let close: Vec<f64> =
            (0..80).map(|c| if (2..34).contains(&c) || (36..68).contains(&c) { 1.0 } else { 0.02 }).collect();
        assert!(sharp_edges(&|c| close[c], &|c| close[c], 2, 34, close.len()));
        // A hand beside the card, covering the table up to it and fading out.
        let handed: Vec<f64> =
            (0..80).map(|c| if c < 46 { card[c] } else { (1.0 - (c as f64 - 46.0) / 20.0).max(0.02) }).collect();
        assert!(run(&handed));
    }
}
