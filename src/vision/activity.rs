//! Where the picture is busy: each frame's small grey copy is compared with the last one cell by
//! cell, and each cell remembers when it last changed; cells coloured like skin and unlike the
//! table mark a hand that rests without moving. The table is judged place by place from this: a
//! card in a quiet part of the picture is read and settles while hands work elsewhere, and a card
//! under a busy part is covered, neither gone nor moved.

use opencv::core::{self, Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::geometry::Pt;

/// Cells along the picture's longer side: a hand spans tens of them, a card several.
const CELLS_LONG: i32 = 160;
/// Grey levels a cell must change by to count as changed: sensor noise, averaged over the
/// pixels a cell holds, stays well under it.
const CELL_CHANGE: i32 = 12;
/// Seconds a cell stays busy after it last changed: a hand slows down before it leaves, and a
/// card let go settles for a moment.
const BUSY_SECS: f64 = 0.25;
/// BGR distance from the table's colour beyond which a skin-coloured cell is no part of a
/// wooden or skin-toned table.
const UNLIKE_TABLE: i32 = 45;

/// The activity of the picture, cell by cell, updated once a frame.
#[derive(Clone, Default)]
pub struct ActivityMap {
    size: Size,
    /// Image pixels per cell, across and down.
    cell: (f64, f64),
    previous: Option<Mat>,
    /// How far the whole picture moved with the last frame (a camera held by hand drifts),
    /// image pixels.
    shift: Pt,
    /// For each cell, the frame (counted from 1) in which it last changed; 0 never.
    changed_at: Vec<u64>,
    skin: Vec<bool>,
    frame: u64,
    /// Frames a cell stays busy after it changed.
    hold: u64,
    /// Cells that changed in the last frame.
    changed_now: usize,
    /// Each frame is a photo of its own: nothing is compared with the last one.
    stills: bool,
}

impl ActivityMap {
    /// A map for frames arriving at `fps`; `stills`: each frame is a separate photo (a folder),
    /// so only a hand's colour tells where the table is busy.
    pub fn new(fps: f64, stills: bool) -> ActivityMap {
        let fps = if fps.is_finite() && fps > 0.0 { fps } else { 30.0 };
        ActivityMap { hold: (BUSY_SECS * fps).ceil().max(2.0) as u64, stills, ..ActivityMap::default() }
    }

    /// Measures a BGR frame against the last one.
    pub fn measure(&mut self, frame: &Mat) -> opencv::Result<()> {
        let (w, h) = (frame.cols(), frame.rows());
        let (small, grey) = shrunk(frame)?;
        let size = grey.size()?;
        if size != self.size {
            *self = ActivityMap { size, hold: self.hold, stills: self.stills, ..ActivityMap::default() };
            self.changed_at = vec![0; (size.width * size.height) as usize];
        }
        self.cell = (f64::from(w) / f64::from(size.width), f64::from(h) / f64::from(size.height));
        self.frame += 1;
        self.changed_now = 0;
        self.shift = Pt::new(0.0, 0.0);
        if !self.stills
            && let Some(previous) = &self.previous
        {
            // The last frame moved as the camera drifted, so that only what moved on the table
            // counts as change.
            let (dx, dy) = drift(previous, &grey)?;
            self.shift = Pt::new(dx * self.cell.0, dy * self.cell.1);
            let mut moved = Mat::default();
            let m = Mat::from_slice_2d(&[[1.0f64, 0.0, dx], [0.0, 1.0, dy]])?;
            imgproc::warp_affine(
                previous,
                &mut moved,
                &m,
                size,
                imgproc::INTER_LINEAR,
                core::BORDER_REPLICATE,
                core::Scalar::default(),
            )?;
            let (high, low) = neighbourhood_range(&moved)?;
            let cells = grey.data_bytes()?.iter().zip(high.data_bytes()?).zip(low.data_bytes()?);
            for (k, ((&v, &hi), &lo)) in cells.enumerate() {
                if changed(v, hi, lo) {
                    self.changed_at[k] = self.frame;
                    self.changed_now += 1;
                }
            }
        }
        self.previous = Some(grey);
        let mut ycrcb = Mat::default();
        imgproc::cvt_color_def(&small, &mut ycrcb, imgproc::COLOR_BGR2YCrCb)?;
        self.skin = skin_cells(small.data_bytes()?, ycrcb.data_bytes()?);
        Ok(())
    }

    /// How far the whole picture moved with the last frame, image pixels.
    pub fn shift(&self) -> Pt {
        self.shift
    }

    /// The centre of each cell, image pixels, row by row (as `changed_share_in` takes a mask).
    pub fn cell_centres(&self) -> Vec<Pt> {
        let (w, h) = (self.size.width.max(0) as usize, self.size.height.max(0) as usize);
        let (cw, ch) = self.cell;
        (0..w * h).map(|k| Pt::new(((k % w) as f64 + 0.5) * cw, ((k / w) as f64 + 0.5) * ch)).collect()
    }

    /// The share of all cells that changed in the last `frames` frames and lie where `mask` is
    /// set.
    pub fn changed_share_in(&self, mask: &[bool], frames: u64) -> f64 {
        let since = self.frame.saturating_sub(frames.max(1));
        let changed = self.changed_at.iter().zip(mask).filter(|&(&at, &m)| m && at > since).count();
        changed as f64 / self.changed_at.len().max(1) as f64
    }

    /// Whether no cell changed in the last frame (always false for the first frame of a video).
    pub fn still(&self) -> bool {
        !self.stills && self.frame > 1 && self.changed_now == 0
    }

    /// The share of the cells under `region` (image pixels) that changed lately.
    pub fn busy_share(&self, region: &[Pt; 4]) -> f64 {
        if self.stills {
            return 0.0;
        }
        self.share(region, |k| self.changed_at[k] > 0 && self.frame - self.changed_at[k] < self.hold)
    }

    /// The share of the cells under `region` coloured like skin and unlike the table.
    pub fn skin_share(&self, region: &[Pt; 4]) -> f64 {
        self.share(region, |k| self.skin.get(k).copied().unwrap_or(false))
    }

    /// The share of the cells in `region`'s bounding box, shrunk by a cell, for which `set`
    /// holds.
    fn share(&self, region: &[Pt; 4], set: impl Fn(usize) -> bool) -> f64 {
        if self.size.width == 0 {
            return 0.0;
        }
        let (cw, ch) = self.cell;
        let min = |f: fn(&Pt) -> f64| region.iter().map(f).fold(f64::INFINITY, f64::min);
        let max = |f: fn(&Pt) -> f64| region.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        let clamp = |v: f64, n: i32| (v.floor() as i64).clamp(0, i64::from(n) - 1) as usize;
        let (x0, x1) =
            (clamp(min(|p| p.x) / cw + 1.0, self.size.width), clamp(max(|p| p.x) / cw - 1.0, self.size.width));
        let (y0, y1) =
            (clamp(min(|p| p.y) / ch + 1.0, self.size.height), clamp(max(|p| p.y) / ch - 1.0, self.size.height));
        let width = self.size.width as usize;
        let (mut all, mut hits) = (0usize, 0usize);
        for y in y0..=y1.max(y0) {
            for x in x0..=x1.max(x0) {
                all += 1;
                hits += usize::from(set(y * width + x));
            }
        }
        hits as f64 / all.max(1) as f64
    }
}

/// The frame shrunk to `CELLS_LONG` cells along its longer side (BGR as given), and grey.
pub(crate) fn shrunk(frame: &Mat) -> opencv::Result<(Mat, Mat)> {
    let (w, h) = (frame.cols(), frame.rows());
    let long = w.max(h).max(1);
    let size = Size::new((w * CELLS_LONG / long).max(1), (h * CELLS_LONG / long).max(1));
    let mut small = Mat::default();
    imgproc::resize(frame, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    let mut grey = Mat::default();
    if small.channels() == 1 {
        grey = small.try_clone()?;
    } else {
        imgproc::cvt_color_def(&small, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    }
    Ok((small, grey))
}

/// Each cell's highest and lowest value over its 3 x 3 neighbourhood. A cell changed when it
/// lies outside the range its neighbours spanned (`changed`): a textured patch (a card's back,
/// its pips) moved by part of a cell is no change.
pub(crate) fn neighbourhood_range(grey: &Mat) -> opencv::Result<(Mat, Mat)> {
    let kernel = Mat::default();
    let anchor = core::Point::new(-1, -1);
    let border = imgproc::morphology_default_border_value()?;
    let (mut high, mut low) = (Mat::default(), Mat::default());
    imgproc::dilate(grey, &mut high, &kernel, anchor, 1, core::BORDER_REPLICATE, border)?;
    imgproc::erode(grey, &mut low, &kernel, anchor, 1, core::BORDER_REPLICATE, border)?;
    Ok((high, low))
}

/// Whether a cell's value lies more than `CELL_CHANGE` outside its neighbourhood's range
/// (`high`, `low`) in the picture it is compared with.
pub(crate) fn changed(value: u8, high: u8, low: u8) -> bool {
    let v = i32::from(value);
    v > i32::from(high) + CELL_CHANGE || v < i32::from(low) - CELL_CHANGE
}

/// Cells the whole picture may drift between two frames (a hand-held camera's slow drift; more
/// is a hand sweeping across, not the camera).
const MAX_DRIFT: f64 = 3.0;
/// Phase correlation's response under which no drift is taken.
const DRIFT_RESPONSE: f64 = 0.2;

/// How far, in cells, the picture moved from `previous` to `grey` as a whole (zero when it did
/// not clearly move as one).
///
/// Both are cut to an even width and height first: OpenCV's phase correlation is half a cell
/// off along a side of odd length that its Fourier transform takes as it is (81, 3 to the
/// fourth: a 336×656 phone video's cells across), and that half cell, taken for the camera's
/// drift frame after frame, moved every card's expected place away from the card.
fn drift(previous: &Mat, grey: &Mat) -> opencv::Result<(f64, f64)> {
    let (a, b) = (even_floats(previous)?, even_floats(grey)?);
    let mut response = 0.0;
    let p = imgproc::phase_correlate(&a, &b, &core::no_array(), Some(&mut response))?;
    let small = p.x.abs() < MAX_DRIFT && p.y.abs() < MAX_DRIFT && p.x.hypot(p.y) > 0.25;
    if !small || response <= DRIFT_RESPONSE {
        return Ok((0.0, 0.0));
    }
    // A move of a cell or less is the camera's slow drift; more may be a hand's, and is taken
    // only where the picture's quarters move with it.
    let as_one = p.x.hypot(p.y) <= CHECKED_DRIFT || moved_as_one(&a, &b, p)?;
    Ok(if as_one { (p.x, p.y) } else { (0.0, 0.0) })
}

/// A small grey picture cut to an even width and height, as floats: what `drift` correlates.
fn even_floats(grey: &Mat) -> opencv::Result<Mat> {
    let even = core::Rect::new(0, 0, grey.cols() / 2 * 2, grey.rows() / 2 * 2);
    let mut out = Mat::default();
    Mat::roi(grey, even)?.convert_to(&mut out, core::CV_32F, 1.0, 0.0)?;
    Ok(out)
}

/// Cells the whole picture may move between two frames before its quarters are asked whether
/// they moved with it (`moved_as_one`). On the close-up patience video every move over 1.1
/// cells had three of four quarters against it, each while a hand carried cards; on the other
/// patience video no move measured over 0.4 cells.
const CHECKED_DRIFT: f64 = 1.0;
/// Cells a quarter of the picture may measure apart from the whole and still move with it.
const QUARTER_AGREES: f64 = 0.5;

/// Whether the shift `p` measured on the whole of `a` to `b` is the whole picture's: of the
/// picture's quarters that clearly moved or stood (phase correlation's response over
/// `DRIFT_RESPONSE`), at least two, and more than measured otherwise, moved with it. A hand
/// carrying cards across a close-up can take the whole picture's measure with it while the
/// table under the rest stands still.
fn moved_as_one(a: &Mat, b: &Mat, p: core::Point2d) -> opencv::Result<bool> {
    let (w, h) = (fourier_friendly(a.cols() / 2), fourier_friendly(a.rows() / 2));
    let (mut with, mut against) = (0, 0);
    for (x, y) in [(0, 0), (w, 0), (0, h), (w, h)] {
        let quarter = core::Rect::new(x, y, w, h);
        let mut response = 0.0;
        let q = imgproc::phase_correlate(
            &Mat::roi(a, quarter)?,
            &Mat::roi(b, quarter)?,
            &core::no_array(),
            Some(&mut response),
        )?;
        if response <= DRIFT_RESPONSE {
            continue;
        }
        if (q.x - p.x).hypot(q.y - p.y) > QUARTER_AGREES {
            against += 1;
        } else {
            with += 1;
        }
    }
    Ok(with >= 2 && with > against)
}

/// The largest even length up to `n` made of twos, threes and fives only, which OpenCV's
/// Fourier transform takes as it is: on other lengths (44 cells, a quarter of a 1280×720
/// picture's 90 down) its phase correlation measured a whole picture's move of 1.5 cells half a
/// cell off across, as on the odd lengths `drift` cuts away.
fn fourier_friendly(n: i32) -> i32 {
    let plain = |mut m: i32| {
        for p in [2, 3, 5] {
            while m % p == 0 {
                m /= p;
            }
        }
        m == 1
    };
    (2..=n.max(2)).rev().find(|&m| m % 2 == 0 && plain(m)).unwrap_or(2)
}

/// For each cell (BGR and the same in YCrCb): in the usual skin cluster of Cr and Cb, and farther
/// than `UNLIKE_TABLE` from the picture's median colour, the table's (it fills most of it).
fn skin_cells(bgr: &[u8], ycrcb: &[u8]) -> Vec<bool> {
    let table = median_colour(bgr);
    let skin = |p: &[u8]| (40..=250).contains(&p[0]) && (135..=175).contains(&p[1]) && (85..=130).contains(&p[2]);
    let unlike =
        |p: &[u8]| (0..3).map(|c| (i32::from(p[c]) - table[c]).pow(2)).sum::<i32>() > UNLIKE_TABLE * UNLIKE_TABLE;
    bgr.chunks_exact(3).zip(ycrcb.chunks_exact(3)).map(|(b, y)| skin(y) && unlike(b)).collect()
}

/// The median of each channel of packed BGR pixels.
pub fn median_colour(bgr: &[u8]) -> [i32; 3] {
    let pixels = bgr.len() / 3;
    let mut histograms = [[0u32; 256]; 3];
    for px in bgr.chunks_exact(3) {
        for (c, histogram) in histograms.iter_mut().enumerate() {
            histogram[usize::from(px[c])] += 1;
        }
    }
    histograms.map(|h| {
        let mut seen = 0;
        h.iter()
            .position(|&n| {
                seen += n;
                seen as usize * 2 > pixels
            })
            .unwrap_or(0) as i32
    })
}

/// A card's look, to tell whether it still lies where it lay when the reader misses it: the
/// region warped to a small grey patch.
#[derive(Clone, Debug, PartialEq)]
pub struct Look(Vec<u8>);

/// The patch a look is taken at: small enough to ignore a card's print, large enough to see a
/// hand or bare table where the card was.
const LOOK: Size = Size { width: 12, height: 16 };
/// How far in from its outline a card's look is taken, as a share of the way to its centre.
const INSET: f64 = 0.15;
/// Mean grey difference, once each look's own mean is taken away, under which two looks show the
/// same thing: a camera's exposure moves the whole patch together.
const SAME_PATTERN: f64 = 18.0;
/// Difference of the two looks' means under which they may be the same card: more is a card
/// taken away from a table unlike it, or put there.
const SAME_MEAN: f64 = 40.0;

impl Look {
    /// The look of `region` (image pixels, clockwise) in a BGR frame, its short side across
    /// (an outline may start at any corner).
    pub fn of(frame: &Mat, region: &[Pt; 4]) -> opencv::Result<Look> {
        let turn = usize::from(region[0].distance(region[1]) > region[1].distance(region[2]));
        // A little inside the outline: the outline found moves by a pixel or two from frame to
        // frame, and the table beside a card's edge would weigh in.
        let c = Pt::new(region.iter().map(|p| p.x).sum::<f64>() / 4.0, region.iter().map(|p| p.y).sum::<f64>() / 4.0);
        let from: core::Vector<core::Point2f> = (0..4)
            .map(|k| region[(k + turn) % 4].lerp(c, INSET))
            .map(|p| core::Point2f::new(p.x as f32, p.y as f32))
            .collect();
        let (w, h) = (LOOK.width as f32, LOOK.height as f32);
        let to: core::Vector<core::Point2f> =
            [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)].iter().map(|&(x, y)| core::Point2f::new(x, y)).collect();
        let m = imgproc::get_perspective_transform(&from, &to, core::DECOMP_LU)?;
        let mut patch = Mat::default();
        imgproc::warp_perspective(
            frame,
            &mut patch,
            &m,
            LOOK,
            imgproc::INTER_AREA,
            core::BORDER_REPLICATE,
            core::Scalar::default(),
        )?;
        let mut grey = Mat::default();
        imgproc::cvt_color_def(&patch, &mut grey, imgproc::COLOR_BGR2GRAY)?;
        Ok(Look(grey.data_bytes()?.to_vec()))
    }

    fn mean(&self) -> f64 {
        self.0.iter().map(|&v| f64::from(v)).sum::<f64>() / self.0.len().max(1) as f64
    }

    /// Whether `other` shows the same thing, lying still (under the same light or a little
    /// brighter or darker), either way round.
    pub fn same(&self, other: &Look) -> bool {
        let (a, b) = (self.mean(), other.mean());
        let n = self.0.len().max(1) as f64;
        let pattern = |theirs: &mut dyn Iterator<Item = &u8>| -> f64 {
            self.0.iter().zip(theirs).map(|(x, y)| ((f64::from(*x) - a) - (f64::from(*y) - b)).abs()).sum::<f64>() / n
        };
        let least = pattern(&mut other.0.iter()).min(pattern(&mut other.0.iter().rev()));
        (a - b).abs() < SAME_MEAN && least < SAME_PATTERN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(colour: [f64; 3]) -> Mat {
        let s = core::Scalar::new(colour[0], colour[1], colour[2], 0.0);
        Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, s).unwrap()
    }

    fn rect(x: f64, y: f64, w: f64, h: f64) -> [Pt; 4] {
        [Pt::new(x, y), Pt::new(x + w, y), Pt::new(x + w, y + h), Pt::new(x, y + h)]
    }

    fn paint(m: &mut Mat, r: core::Rect, colour: [f64; 3]) {
        let s = core::Scalar::new(colour[0], colour[1], colour[2], 0.0);
        imgproc::rectangle(m, r, s, -1, imgproc::LINE_8, 0).unwrap();
    }

    #[test]
    fn a_moving_hand_makes_its_part_busy_and_leaves_the_rest_quiet() {
        let felt = [60.0, 90.0, 30.0];
        let mut map = ActivityMap::new(30.0, false);
        map.measure(&frame(felt)).unwrap();
        for k in 0..5 {
            let mut f = frame(felt);
            paint(&mut f, core::Rect::new(100 + 20 * k, 100, 200, 150), [150.0, 175.0, 225.0]);
            map.measure(&f).unwrap();
        }
        assert!(map.busy_share(&rect(150.0, 120.0, 100.0, 100.0)) > 0.2, "under the hand");
        assert_eq!(map.busy_share(&rect(900.0, 400.0, 100.0, 140.0)), 0.0, "far from the hand");
        assert!(map.skin_share(&rect(220.0, 120.0, 60.0, 100.0)) > 0.9, "the hand's colour");
        assert_eq!(map.skin_share(&rect(900.0, 400.0, 100.0, 140.0)), 0.0);
        // Still for a while: nothing is busy any more, the hand's colour stays.
        let mut f = frame(felt);
        paint(&mut f, core::Rect::new(180, 100, 200, 150), [150.0, 175.0, 225.0]);
        for _ in 0..10 {
            map.measure(&f).unwrap();
        }
        assert!(map.still());
        assert_eq!(map.busy_share(&rect(150.0, 120.0, 100.0, 100.0)), 0.0);
        assert!(map.skin_share(&rect(220.0, 120.0, 60.0, 100.0)) > 0.9);
    }

    /// A speckled table, like stone or worn felt, `dx` pixels to the right of where it was.
    fn speckled(width: i32, height: i32, dx: i32) -> Mat {
        speckled_one_in(width, height, dx, 60)
    }

    /// A table with a speckle for every `pixels` pixels, `dx` pixels to the right of where it was.
    fn speckled_one_in(width: i32, height: i32, dx: i32, pixels: i32) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(height, width, core::CV_8UC3, core::Scalar::all(70.0)).unwrap();
        let mut seed = 7u64;
        for _ in 0..width * height / pixels {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Speckles from 20 px left of the picture to 20 px right of it, so that a shift
            // brings new ones in.
            let x = ((seed >> 33) % (width as u64 + 40)) as i32 - 20;
            let y = ((seed >> 13) % height as u64) as i32;
            let grey = 100.0 + (seed % 120) as f64;
            let centre = core::Point::new(x + dx, y);
            imgproc::circle(&mut m, centre, 3, core::Scalar::all(grey), -1, imgproc::LINE_8, 0).unwrap();
        }
        m
    }

    #[test]
    fn the_camera_s_drift_is_measured_whatever_the_number_of_cells_across() {
        // 336 × 656 gives 81 cells across (odd, and a size the Fourier transform takes as it
        // is); 368 × 656 gives 89; 1280 × 720 gives 160.
        for (w, h) in [(336, 656), (368, 656), (1280, 720)] {
            let mut map = ActivityMap::new(30.0, false);
            map.measure(&speckled(w, h, 0)).unwrap();
            map.measure(&speckled(w, h, 0)).unwrap();
            assert_eq!((map.shift().x, map.shift().y), (0.0, 0.0), "{w}×{h} standing still");
            let cell = f64::from(w.max(h)) / f64::from(CELLS_LONG);
            let dx = (3.0 * cell).round() as i32 / 2;
            map.measure(&speckled(w, h, dx)).unwrap();
            let shift = map.shift();
            assert!((shift.x - f64::from(dx)).abs() < 0.3 * cell && shift.y.abs() < 0.3 * cell, "{w}×{h}: {shift:?}");
        }
    }

    /// A table with a few speckles (a worn felt) and a hand holding cards over its top-left
    /// quarter, the hand `dx` pixels to the right of where it was.
    fn hand_over(width: i32, height: i32, dx: i32) -> Mat {
        let mut m = speckled_one_in(width, height, 0, 5000);
        let (w, h) = (width / 2, height / 2);
        paint(&mut m, core::Rect::new(dx, 0, w, h), [150.0, 175.0, 225.0]);
        for k in 0..12 {
            let card = core::Rect::new(dx + (k % 4) * w / 4, (k / 4) * h / 3, w / 5, h / 4);
            paint(&mut m, card, [245.0, 245.0, 245.0]);
            let pip =
                core::Rect::new(card.x + card.width / 3, card.y + card.height / 3, card.width / 4, card.height / 4);
            paint(&mut m, pip, [30.0, 30.0, 200.0]);
        }
        m
    }

    #[test]
    fn a_hand_sweeping_over_a_quarter_of_a_still_picture_is_no_drift() {
        // The close-up phone video's size, where a hand carrying cards was seen so.
        let (w, h) = (336, 656);
        let cell = f64::from(w.max(h)) / f64::from(CELLS_LONG);
        let dx = (2.0 * cell).round() as i32;
        let (a, b) = (hand_over(w, h, 0), hand_over(w, h, dx));
        // The picture as a whole measures the hand's move (what this test is about).
        let whole = |m: &Mat| even_floats(&shrunk(m).unwrap().1).unwrap();
        let p = imgproc::phase_correlate(&whole(&a), &whole(&b), &core::no_array(), None).unwrap();
        assert!(p.x > 1.0, "{w}×{h}: the whole picture measures {p:?}");
        let mut map = ActivityMap::new(30.0, false);
        map.measure(&a).unwrap();
        map.measure(&b).unwrap();
        assert_eq!((map.shift().x, map.shift().y), (0.0, 0.0), "{w}×{h}");
        // The whole picture moved as far is the camera's drift.
        let mut moved = Mat::default();
        let m = Mat::from_slice_2d(&[[1.0f64, 0.0, f64::from(dx)], [0.0, 1.0, 0.0]]).unwrap();
        imgproc::warp_affine(
            &a,
            &mut moved,
            &m,
            a.size().unwrap(),
            imgproc::INTER_LINEAR,
            core::BORDER_REPLICATE,
            core::Scalar::default(),
        )
        .unwrap();
        map.measure(&a).unwrap();
        map.measure(&moved).unwrap();
        assert!((map.shift().x - f64::from(dx)).abs() < 0.5 * cell, "{w}×{h}: {:?}", map.shift());
    }

    #[test]
    fn a_card_s_look_stays_the_same_until_something_lies_over_it() {
        let mut f = frame([60.0, 90.0, 30.0]);
        paint(&mut f, core::Rect::new(500, 300, 90, 130), [240.0, 240.0, 240.0]);
        paint(&mut f, core::Rect::new(510, 310, 12, 20), [20.0, 20.0, 200.0]);
        let card = rect(500.0, 300.0, 90.0, 130.0);
        let look = Look::of(&f, &card).unwrap();
        assert!(look.same(&Look::of(&f, &card).unwrap()));
        paint(&mut f, core::Rect::new(480, 320, 120, 100), [150.0, 175.0, 225.0]);
        assert!(!look.same(&Look::of(&f, &card).unwrap()), "a hand over it");
        let bare = frame([60.0, 90.0, 30.0]);
        assert!(!look.same(&Look::of(&bare, &card).unwrap()), "taken away");
    }
}
