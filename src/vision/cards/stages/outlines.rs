//! The first stage: card outlines found in a frame, by the paper's brightness at several
//! levels and by edges, each fitted to a card's quadrilateral; outlines too long for one card
//! (cascades, pairs) kept apart for the stages that split them.

use opencv::{core, imgproc, prelude::*};

use super::edge_fit;
use crate::vision::cards::picture::light;
use crate::vision::cards::picture::pixels::*;
use crate::vision::cards::picture::quad::*;
use crate::vision::cards::types::*;

/// A dark frame around the image lets a card that fills it, or leaves it, close its outline.
pub(in crate::vision::cards) const PAD: i32 = 4;

/// The disc that peels a shapeless outline (`peeled`), as a share of the square root of its area:
/// wider than a face-down card's white rim, narrower than the white between a face's pips.
const PEEL_DISC: f64 = 0.1;

/// The least length, in pixels, of a card peeled out of a shapeless outline: a guess at a card is
/// made only where its corners are large enough to be read surely (a smaller card's index is
/// left to the loose search, as it was).
const PEEL_MIN_LENGTH: f32 = 80.0;

/// Holes in a shapeless outline smaller than this share of its area are filled before it is peeled
/// (a face's pips and index; a face-down card's middle is larger).
const PEEL_HOLE: f64 = 0.1;

/// Canny's lower gradient threshold for `edge_outlines` (the upper is 2.5 times it): the
/// face-down count on fresh synthetic tables (seeds 9e6, not the test seeds) was the same from
/// 15 to 30.
pub(in crate::vision::cards) const EDGE_LOW: f64 = 20.0;

/// The least share of an unread outline that must run along an edge (`edge_support`) for it to
/// count as a card: contours through a table's shading measured 0–0.2 on rendered felt and pale
/// cloth, and 0.31–0.36 where a phone video's paler table joined a card's side to the frame's
/// edge; of 1,154 outlines sampled from the shared footage, 1 measured 0.3–0.4 (a blackjack card
/// coming into the picture at its edge, a photo before it was dealt) and nearly all above 0.6.
pub(in crate::vision::cards) const MIN_EDGE_SUPPORT: f32 = 0.4;

/// Card-shaped bright regions of a BGR frame, as quads clockwise from the card's top-left.
///
/// One global threshold cannot serve every table: on a pale carpet or wood the brightness of
/// the table reaches the card's, and the two merge. White card stock is bright in every colour
/// channel while a beige or brown table is not, so the per-pixel minimum channel is thresholded
/// too, and each mask is also opened a little to cut thin bridges (fibres, edges of glare).
/// Quads found in several masks count once.
pub fn find_card_quads(frame: &Mat, min_area_fraction: f64) -> opencv::Result<Vec<[[f32; 2]; 4]>> {
    Ok(find_outlines(frame, min_area_fraction)?.cards)
}

/// `find_card_quads` in the frame seen under white light (`light::balanced`), as `detect` looks
/// for outlines: what back calibration (and enrolment, which balances the frame once itself)
/// remembers is cut from the outline the detector will find: under a warm lamp the outline
/// found in the camera's colours strays from the one found in white light (models/README.md,
/// "Tuning measurements": outlines in balanced light).
pub fn find_card_quads_in_light(frame: &Mat, min_area_fraction: f64) -> opencv::Result<Vec<[[f32; 2]; 4]>> {
    find_card_quads(light::balanced(frame)?.as_ref(), min_area_fraction)
}

/// The card outlines of a frame (see `find_card_quads`), how well edges back them, and the
/// outlines too long for one card.
pub(in crate::vision::cards) fn find_outlines(frame: &Mat, min_area_fraction: f64) -> opencv::Result<Outlines> {
    // Outlines are looked for at most ~640 px across (cards stay hundreds of pixels in area);
    // each is then refined at full resolution.
    let scale = (frame.cols().max(frame.rows()) / 640).max(1);
    let shrunk;
    let small = if scale > 1 {
        let size = core::Size::new(frame.cols() / scale, frame.rows() / scale);
        let mut out = Mat::default();
        // The frame cut to whole multiples of the scale: each small pixel is then exactly
        // `scale` frame pixels across, as the outlines' scaling back assumes (and the area
        // resize takes its quick path).
        let whole = core::Rect::new(0, 0, size.width * scale, size.height * scale);
        imgproc::resize(&Mat::roi(frame, whole)?, &mut out, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        shrunk = out;
        &shrunk
    } else {
        frame
    };
    let mut gray = Mat::default();
    imgproc::cvt_color_def(small, &mut gray, imgproc::COLOR_BGR2GRAY)?;
    let small_low = min_channel(small)?;
    let small_white = whiteness(small, &small_low)?;
    let small_local = above_surroundings(&small_white)?;
    let small_area = f64::from(small.rows()) * f64::from(small.cols());
    let mut outlines: Vec<Outline> = Vec::new();
    // The gray image's blurred copy serves the edge search too.
    let (mut masks, blurred_gray) = bright_masks(&gray)?;
    for channel in [&small_low, &small_white] {
        masks.extend(bright_masks(channel)?.0);
    }
    masks.push(otsu_mask(&small_local)?.0);
    {
        for mask in masks {
            for found in quads_in_mask(&mask, small_area * min_area_fraction)? {
                match outlines.iter_mut().find(|o| same_card(&o.quad, &found.quad)) {
                    // A card's card-shaped outline is surer than a square one of it, and any
                    // outline found whole surer than one peeled out of a shapeless one.
                    Some(known) if known.peeled != found.peeled => {
                        if known.peeled {
                            *known = found
                        }
                    }
                    Some(known)
                        if (found.clean && !known.clean && found.square == known.square)
                            || (known.square && !found.square) =>
                    {
                        *known = found
                    }
                    Some(_) => {}
                    None => outlines.push(found),
                }
            }
        }
    }
    // A square outline on a card-shaped one is a piece of that card (cut off by glare or a
    // shadow), not a card seen steeply.
    let pieces: Vec<Quad> = outlines
        .iter()
        .filter(|o| o.square && outlines.iter().any(|b| !b.square && inside(&b.quad, quad_centre(&o.quad))))
        .map(|o| o.quad)
        .collect();
    outlines.retain(|o| !pieces.contains(&o.quad));
    let mut quads: Vec<[[f32; 2]; 4]> = outlines.iter().filter(|o| !o.long).map(|o| o.quad).collect();
    let (edged, edges) = edge_outlines(&blurred_gray, small_area * min_area_fraction)?;
    // A peeled outline stands only if read: a card its edges draw whole comes in beside it.
    let whole: Vec<Outline> = outlines.iter().filter(|o| !o.peeled).copied().collect();
    quads.extend(new_edge_cards(&edged, &whole));
    let size = [small.cols() as f32, small.rows() as f32];
    let supports = quads.iter().map(|q| Ok((*q, edge_support(&edges, q)?))).collect::<opencv::Result<Vec<_>>>()?;
    let support_of = |q: &Quad| supports.iter().find(|(s, _)| s == q).and_then(|(_, v)| *v);
    // The table's own light and shade can pass a level in one piece around a card: an outline
    // with hardly any edge along it holding a card is the table.
    let shading = |q: &Quad| support_of(q).is_some_and(|s| s < MIN_EDGE_SUPPORT);
    drop_nested(&mut quads, shading, |q| spans_frame(q, size));
    let support = quads.iter().map(support_of).collect();
    let peeled = quads.iter().map(|q| outlines.iter().any(|o| o.quad == *q && o.peeled)).collect();
    let cascades: Vec<Quad> = outlines
        .iter()
        .filter(|o| o.long && !quads.iter().any(|q| inside(&o.quad, quad_centre(q))))
        .map(|o| o.quad)
        .collect();
    let k = scale as f32;
    // `fit`: whether a clean outline's sides may be found again as straight lines (not a
    // cascade's, whose long sides are the edges of several cards lying a little askew).
    let refined = |quads: Vec<Quad>, fit: bool| -> opencv::Result<Vec<Quad>> {
        let mut out = Vec::with_capacity(quads.len());
        for quad in quads {
            let clean = outlines.iter().any(|o| o.quad == quad && o.clean);
            let full = quad.map(|p| [p[0] * k, p[1] * k]);
            out.push(if !clean {
                refine_quad(frame, &full, true)?
            } else if scale == 1 {
                full
            } else {
                // A clean outline needs refining only to regain the resolution lost to
                // downscaling: its sides are found again along their length in the full frame,
                // or where they are not clear there, the outline is re-found around them.
                let fitted = if fit { edge_fit::fit_sides(frame, &full, 2.0 * k + 1.0)? } else { None };
                match fitted {
                    Some(fitted) => fitted,
                    None => refine_quad(frame, &full, false)?,
                }
            });
        }
        Ok(out)
    };
    Ok(Outlines { cards: refined(quads, true)?, edge_support: support, peeled, cascades: refined(cascades, false)? })
}

/// What `find_outlines` finds.
pub(in crate::vision::cards) struct Outlines {
    /// Card outlines.
    pub(in crate::vision::cards) cards: Vec<Quad>,
    /// For each card outline, how much of it runs along an edge (`edge_support`).
    pub(in crate::vision::cards) edge_support: Vec<Option<f32>>,
    /// For each card outline, whether it was cut out of a shapeless one (`peeled`): a guess
    /// that stands only if a card is read on it.
    pub(in crate::vision::cards) peeled: Vec<bool>,
    /// Outlines too long for one card that may be several lying end to end (a cascade): these
    /// hold no card outline.
    pub(in crate::vision::cards) cascades: Vec<Quad>,
}

/// Re-finds one outline with a threshold of its own neighbourhood: in a busy frame the global
/// levels let the table's bright specks cling to the card, and a reader wants exact corners.
/// `specks` says whether bright specks may cling to the outline (an unclean contour): only then
/// is the mask opened, which costs more than the rest together.
pub(in crate::vision::cards) fn refine_quad(
    frame: &Mat,
    quad: &[[f32; 2]; 4],
    specks: bool,
) -> opencv::Result<[[f32; 2]; 4]> {
    let (short, _) = side_lengths(quad);
    let margin = short * 0.2;
    let xs = quad.iter().map(|p| p[0]);
    let ys = quad.iter().map(|p| p[1]);
    let (x0, x1) = (xs.clone().fold(f32::MAX, f32::min) - margin, xs.fold(f32::MIN, f32::max) + margin);
    let (y0, y1) = (ys.clone().fold(f32::MAX, f32::min) - margin, ys.fold(f32::MIN, f32::max) + margin);
    let bounds = core::Rect::new(0, 0, frame.cols(), frame.rows());
    let roi = core::Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32) & bounds;
    if roi.width < 8 || roi.height < 8 {
        return Ok(*quad);
    }
    // Worked at most ~120 px across the card's short side: the opening's disc stays small.
    let k = (short / 120.0).max(1.0);
    let size = core::Size::new((roi.width as f32 / k) as i32, (roi.height as f32 / k) as i32);
    let low = min_channel(&Mat::roi(frame, roi)?.try_clone()?)?;
    // At one frame pixel to one patch pixel the resize would only copy.
    let patch = if size == low.size()? {
        low
    } else {
        let mut patch = Mat::default();
        imgproc::resize(&low, &mut patch, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        patch
    };
    let mask = otsu_mask(&patch)?.0;
    let mask = if specks { solid_opened(&mask, (short / k / 6.0) as i32)? } else { mask };
    let back = |q: [[f32; 2]; 4]| q.map(|p| [p[0] * k + roi.x as f32, p[1] * k + roi.y as f32]);
    let min_area = f64::from((short / k).powi(2)) * 0.5;
    // Otsu's level in a small neighbourhood, a fifth of it the dark pad, can fall between the
    // pad and a pale table, which then passes with the card: an outline reaching the
    // neighbourhood's edge inside the frame is that, not the card.
    let open = [roi.x > 0, roi.y > 0, roi.x + roi.width < frame.cols(), roi.y + roi.height < frame.rows()];
    let found = quads_in_mask(&mask, min_area)?
        .into_iter()
        .filter(|o| !reaches_edge(&o.quad, [patch.cols() as f32, patch.rows() as f32], open))
        .map(|o| back(o.quad))
        .find(|q| same_card(q, quad));
    Ok(found.unwrap_or(*quad))
}

/// Whether `quad` (in a patch `size` pixels across) comes within a pixel of the patch's left, top,
/// right or bottom edge, of those `open` says lie inside the frame.
fn reaches_edge(quad: &Quad, size: [f32; 2], open: [bool; 4]) -> bool {
    let near = [
        quad.iter().any(|p| p[0] <= 1.0),
        quad.iter().any(|p| p[1] <= 1.0),
        quad.iter().any(|p| p[0] >= size[0] - 2.0),
        quad.iter().any(|p| p[1] >= size[1] - 2.0),
    ];
    near.iter().zip(open).any(|(&n, o)| n && o)
}

/// Masks of the bright parts of a single-channel image, blurred and padded: Otsu's threshold,
/// and two levels just under the brightest paper, where a pale textured table (carpet, wood
/// grain) falls away from the card while the card's white border still closes its outline.
/// The blurred, padded image comes back too.
pub(in crate::vision::cards) fn bright_masks(channel: &Mat) -> opencv::Result<(Vec<Mat>, Mat)> {
    let (otsu, level, blurred) = otsu_mask(channel)?;
    let mut masks = vec![otsu];
    let paper = f64::from(percentile(&blurred, 0.99)?);
    for fraction in [0.7, 0.85] {
        let at = paper * fraction;
        if at > level + 8.0 {
            let mut mask = Mat::default();
            imgproc::threshold(&blurred, &mut mask, at, 255.0, imgproc::THRESH_BINARY)?;
            masks.push(mask);
        }
    }
    Ok((masks, blurred))
}

/// The card outlines among `edged` (from `edge_outlines`) that the levels missed (not one of
/// `outlines`), the outermost only: inside a card, edges outline its parts (a court card's
/// picture frame). They join the levels' outlines before `drop_nested`, so that an outline of
/// the whole pale table holding them goes as a table.
pub(in crate::vision::cards) fn new_edge_cards(edged: &[Outline], outlines: &[Outline]) -> Vec<Quad> {
    let whole: Vec<Quad> = edged.iter().filter(|o| !o.long).map(|o| o.quad).collect();
    whole
        .iter()
        .filter(|q| {
            let centre = quad_centre(q);
            let within = |big: &Quad| big != *q && inside(big, centre);
            !whole.iter().any(within) && !outlines.iter().any(|o| same_card(&o.quad, q))
        })
        .copied()
        .collect()
}

/// Card outlines drawn by edges: on a table as pale as the cards no level parts them, but their
/// borders still make edges. The outer contour of each cluster of (closed) edges is looked at;
/// a textured table's edges run together into clusters reaching the frame's border, and those
/// are left out (the levels look there). `blurred` is a blurred gray image padded by `PAD`.
pub(in crate::vision::cards) fn edge_outlines(blurred: &Mat, min_area: f64) -> opencv::Result<(Vec<Outline>, Mat)> {
    let mut edges = Mat::default();
    imgproc::canny(blurred, &mut edges, EDGE_LOW, EDGE_LOW * 2.5, 3, false)?;
    // The pad's own edge would enclose everything: it goes, with a pixel of the frame.
    let (w, h) = (edges.cols(), edges.rows());
    let band = core::Rect::new(0, 0, w, h);
    imgproc::rectangle(&mut edges, band, core::Scalar::all(0.0), 2 * (PAD + 1), imgproc::LINE_8, 0)?;
    let closed = morph(&edges, imgproc::MORPH_DILATE, imgproc::MORPH_RECT, 3)?;
    let mut out = Vec::new();
    for contour in outer_contours(&closed)?.iter() {
        let r = imgproc::bounding_rect(&contour)?;
        if r.x <= PAD + 1 || r.y <= PAD + 1 || r.x + r.width >= w - PAD - 1 || r.y + r.height >= h - PAD - 1 {
            continue;
        }
        let area = imgproc::contour_area(&contour, false)?;
        if area < min_area {
            continue;
        }
        // Not among the levels' clean outlines, each is refined at full size: the edges were
        // thickened, and a pale card wants its corners re-found.
        out.extend(card_quad(&contour, area, false)?);
    }
    Ok((out, closed))
}

/// How much of an outline's edge runs along `edges` (from `edge_outlines`: padded, thickened,
/// its border band cleared): the share of points along its four sides with an edge pixel within
/// two pixels. `None` when too little of the outline lies inside the band to tell.
pub(in crate::vision::cards) fn edge_support(edges: &Mat, quad: &Quad) -> opencv::Result<Option<f32>> {
    const STEPS: usize = 25;
    let (w, h) = (edges.cols(), edges.rows());
    let pixels = edges.data_bytes()?;
    let set = |x: i32, y: i32| pixels[(y * w + x) as usize] > 0;
    let margin = 2 * (PAD + 1) + 2;
    let (mut looked, mut found) = (0, 0);
    for i in 0..4 {
        let (a, b) = (quad[i], quad[(i + 1) % 4]);
        for s in 0..STEPS {
            let t = (s as f32 + 0.5) / STEPS as f32;
            let x = (a[0] + t * (b[0] - a[0])).round() as i32 + PAD;
            let y = (a[1] + t * (b[1] - a[1])).round() as i32 + PAD;
            if x < margin || y < margin || x >= w - margin || y >= h - margin {
                continue;
            }
            looked += 1;
            let hit = (-2..=2).any(|dy| (-2..=2).any(|dx| set(x + dx, y + dy)));
            found += usize::from(hit);
        }
    }
    Ok((looked >= 20).then(|| found as f32 / looked as f32))
}

/// Otsu's threshold of a blurred, padded single-channel image: the mask, the level, and the
/// blurred image.
pub(in crate::vision::cards) fn otsu_mask(channel: &Mat) -> opencv::Result<(Mat, f64, Mat)> {
    let mut padded = Mat::default();
    core::copy_make_border(channel, &mut padded, PAD, PAD, PAD, PAD, core::BORDER_CONSTANT, core::Scalar::all(0.0))?;
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(&padded, &mut blurred, core::Size::new(5, 5), 0.0, 0.0, core::BORDER_DEFAULT)?;
    let mut otsu = Mat::default();
    let level = imgproc::threshold(&blurred, &mut otsu, 0.0, 255.0, imgproc::THRESH_BINARY | imgproc::THRESH_OTSU)?;
    Ok((otsu, level, blurred))
}

/// Fills every outer contour of a (padded) mask, so that the dark picture of a court card stops
/// mattering, then opens it with a disc of `size` pixels: specks of table clinging to the card
/// come off. The opening rounds the card's corners off; growing it back inside the filled mask
/// restores them while specks further out stay cut.
pub(in crate::vision::cards) fn solid_opened(mask: &Mat, size: i32) -> opencv::Result<Mat> {
    let mut solid = Mat::zeros(mask.rows(), mask.cols(), core::CV_8UC1)?.to_mat()?;
    imgproc::draw_contours(
        &mut solid,
        &outer_contours(mask)?,
        -1,
        core::Scalar::all(255.0),
        -1,
        imgproc::LINE_8,
        &core::no_array(),
        i32::MAX,
        core::Point::new(0, 0),
    )?;
    let k = size.max(3) | 1;
    let opened = morph(&solid, imgproc::MORPH_OPEN, imgproc::MORPH_ELLIPSE, k)?;
    let grown = morph(&opened, imgproc::MORPH_DILATE, imgproc::MORPH_ELLIPSE, k)?;
    let mut restored = Mat::default();
    core::bitwise_and(&grown, &solid, &mut restored, &core::no_array())?;
    Ok(restored)
}

/// The outer contours of a mask.
pub(in crate::vision::cards) fn outer_contours(mask: &Mat) -> opencv::Result<core::Vector<core::Vector<core::Point>>> {
    let mut contours = core::Vector::<core::Vector<core::Point>>::new();
    let origin = core::Point::new(0, 0);
    imgproc::find_contours(mask, &mut contours, imgproc::RETR_EXTERNAL, imgproc::CHAIN_APPROX_SIMPLE, origin)?;
    Ok(contours)
}

/// The outer contours of a (padded) mask that are card-shaped quads of at least `min_area`.
pub(in crate::vision::cards) fn quads_in_mask(mask: &Mat, min_area: f64) -> opencv::Result<Vec<Outline>> {
    let contours = outer_contours(mask)?;
    let mut quads = Vec::new();
    for contour in contours.iter() {
        let area = imgproc::contour_area(&contour, false)?;
        if area < min_area {
            continue;
        }
        match card_quad(&contour, area, true)? {
            Some(outline) => quads.push(outline),
            None => quads.extend(peeled(mask, &contour, area, min_area)?),
        }
    }
    Ok(quads)
}

/// The cards inside a contour of no card's shape: a face-up card touching something as bright at
/// its rim (the white border of a face-down card laid against it) makes one outline with it.
/// The mask within the contour, opened with a disc wider than such a rim but narrower than the
/// white of a face, loses the rim and keeps the face; each piece left is tried as a card.
fn peeled(mask: &Mat, contour: &core::Vector<core::Point>, area: f64, min_area: f64) -> opencv::Result<Vec<Outline>> {
    let rect = imgproc::bounding_rect(contour)?;
    let mut within = Mat::zeros(rect.height, rect.width, core::CV_8UC1)?.to_mat()?;
    let one: core::Vector<core::Vector<core::Point>> = std::iter::once(contour.clone()).collect();
    let (white, offset) = (core::Scalar::all(255.0), core::Point::new(-rect.x, -rect.y));
    imgproc::draw_contours(&mut within, &one, -1, white, -1, imgproc::LINE_8, &core::no_array(), i32::MAX, offset)?;
    let mut raw = Mat::default();
    core::bitwise_and(&Mat::roi(mask, rect)?, &within, &mut raw, &core::no_array())?;
    // The pips and index are small holes in a face's white, filled so that the opening cannot
    // cut the face's margin beside them; the dark middle of a back inside its rim is large, and
    // stays open.
    let mut holes = Mat::default();
    core::bitwise_xor(&raw, &within, &mut holes, &core::no_array())?;
    let small_holes: core::Vector<core::Vector<core::Point>> = outer_contours(&holes)?
        .into_iter()
        .filter(|h| imgproc::contour_area(h, false).is_ok_and(|a| a < PEEL_HOLE * area))
        .collect();
    let origin = core::Point::new(0, 0);
    imgproc::draw_contours(
        &mut raw,
        &small_holes,
        -1,
        white,
        -1,
        imgproc::LINE_8,
        &core::no_array(),
        i32::MAX,
        origin,
    )?;
    let k = ((PEEL_DISC * area.sqrt()) as i32).max(5) | 1;
    let opened = morph(&raw, imgproc::MORPH_OPEN, imgproc::MORPH_ELLIPSE, k)?;
    let mut pieces = core::Vector::<core::Vector<core::Point>>::new();
    let back = core::Point::new(rect.x, rect.y);
    imgproc::find_contours(&opened, &mut pieces, imgproc::RETR_EXTERNAL, imgproc::CHAIN_APPROX_SIMPLE, back)?;
    let mut found = Vec::new();
    for piece in pieces.iter() {
        let piece_area = imgproc::contour_area(&piece, false)?;
        // A piece as large as the whole lost nothing: it is the same shapeless outline.
        if piece_area < min_area || piece_area > 0.8 * area {
            continue;
        }
        let whole_enough = |o: &Outline| !o.long && side_lengths(&o.quad).1 >= PEEL_MIN_LENGTH;
        found.extend(card_quad(&piece, piece_area, true)?.filter(whole_enough).map(|o| Outline { peeled: true, ..o }));
    }
    Ok(found)
}

/// A contour's card outline: its 4-corner polygon when convex, otherwise its minimum-area
/// rectangle when the contour fills it (rounded or chipped corners) and `rounded` allows it;
/// `None` when not card-shaped.
pub(in crate::vision::cards) fn card_quad(
    contour: &core::Vector<core::Point>,
    area: f64,
    rounded: bool,
) -> opencv::Result<Option<Outline>> {
    let perimeter = imgproc::arc_length(contour, true)?;
    let mut approx = core::Vector::<core::Point>::new();
    imgproc::approx_poly_dp(contour, &mut approx, 0.03 * perimeter, true)?;
    let points: Vec<[f32; 2]> = if approx.len() == 4
        && imgproc::is_contour_convex(&approx)?
        && area > 0.85 * imgproc::contour_area(&approx, false)?
    {
        approx.iter().map(|p| [p.x as f32, p.y as f32]).collect()
    } else if rounded {
        let rect = imgproc::min_area_rect(contour)?;
        if area < 0.88 * f64::from(rect.size.width * rect.size.height) {
            return Ok(None);
        }
        let mut pts = [core::Point2f::default(); 4];
        rect.points(&mut pts)?;
        pts.iter().map(|p| [p.x, p.y]).collect()
    } else {
        return Ok(None);
    };
    let mut quad = [[0.0f32; 2]; 4];
    for (q, p) in quad.iter_mut().zip(&points) {
        *q = [p[0] - PAD as f32, p[1] - PAD as f32];
    }
    let quad = order_quad(quad);
    let (short, long) = side_lengths(&quad);
    // Clean: the contour is the quad, with no specks of table on its edge to refine away.
    let quad_perimeter = (0..4).map(|i| dist(quad[i], quad[(i + 1) % 4])).sum::<f32>();
    let fill = area / f64::from(short * long);
    let clean = (0.92..=1.04).contains(&fill) && perimeter < 1.12 * f64::from(quad_perimeter);
    let ratio = long / short.max(1.0);
    Ok((ratio <= 4.0).then_some(Outline { quad, clean, long: ratio > 2.1, square: ratio < SQUARE, peeled: false }))
}

/// A card outline found in a mask, and whether its contour was exactly that quad.
#[derive(Clone, Copy, Debug)]
pub(in crate::vision::cards) struct Outline {
    quad: [[f32; 2]; 4],
    clean: bool,
    /// Too long for one card: maybe several lying end to end.
    long: bool,
    /// Nearly square (`SQUARE`): a card seen steeply along its length, or not a card at all.
    square: bool,
    /// Cut out of a shapeless outline (`peeled`).
    peeled: bool,
}

/// Sorts out outlines that lie inside others. One holding several much smaller outlines is not
/// a card but something the cards lie on (a folder, a tile, a mat): it goes; so does one that
/// is the table's own shading (`shading`) holding even one. Otherwise an outline inside another
/// is part of that card (a court card's picture frame, a pip area, a half card split off by a
/// threshold): it goes, since a card cannot lie wholly on another. Two kinds of outline keep
/// what they hold, since only reading tells what they are (`CardDetector::detect`): one of most
/// of the frame (`whole_frame`), a pale table or a card close up, which stays itself however
/// much it holds (a close-up court card's picture parts and large pips pass for cards); and one
/// holding a single card-sized outline (`holds_small`), a card and a part of it, or a mat or
/// board under one card.
pub(in crate::vision::cards) fn drop_nested(
    quads: &mut Vec<[[f32; 2]; 4]>,
    shading: impl Fn(&Quad) -> bool,
    whole_frame: impl Fn(&Quad) -> bool,
) {
    // Each outline with how many card-sized outlines it holds.
    let held: Vec<(Quad, usize)> =
        quads.iter().map(|q| (*q, quads.iter().filter(|small| holds_small(q, small)).count())).collect();
    let cards: Vec<(Quad, usize)> =
        held.into_iter().filter(|(q, n)| whole_frame(q) || !(*n >= 2 || (*n == 1 && shading(q)))).collect();
    let keeps = |(big, n): &(Quad, usize), q: &Quad| whole_frame(big) || (*n == 1 && holds_small(big, q));
    quads.retain(|q| cards.iter().any(|(c, _)| c == q) && !cards.iter().any(|big| holds(&big.0, q) && !keeps(big, q)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_card_on_a_pale_table_keeps_its_refined_outline_on_the_card() {
        // A phone video's patience card (52×36 px) on a grey table (minimum channel 145 to the
        // card's 240, as measured): in the card's neighbourhood the dark pad is a fifth of the
        // patch, and Otsu's level taken with it fell between the pad and the table.
        let mut frame = Mat::new_rows_cols_with_default(200, 300, core::CV_8UC3, core::Scalar::all(145.0)).unwrap();
        let card = core::Rect::new(100, 80, 52, 36);
        imgproc::rectangle(&mut frame, card, core::Scalar::all(240.0), -1, imgproc::LINE_8, 0).unwrap();
        imgproc::circle(&mut frame, core::Point::new(126, 98), 4, core::Scalar::all(30.0), -1, imgproc::LINE_8, 0)
            .unwrap();
        let truth = [[100.0, 80.0], [151.0, 80.0], [151.0, 115.0], [100.0, 115.0]];
        // The outline as a level found it, a pixel off.
        let found = [[99.0, 81.0], [152.0, 79.0], [152.0, 116.0], [100.0, 116.0]];
        let refined = refine_quad(&frame, &found, true).unwrap();
        let off = |p: &[f32; 2]| truth.iter().map(|t| (t[0] - p[0]).hypot(t[1] - p[1])).fold(f32::MAX, f32::min);
        assert!(refined.iter().all(|p| off(p) <= 2.5), "{refined:?}");
    }

    /// A padded mask 400×300: a face 80×120 with eight pip holes, and a face-down card's white
    /// rim (7 px wide, 90×110, turned 20°) laid against its right side, as one bright region.
    fn face_against_rim() -> Mat {
        let mut mask = Mat::zeros(300, 400, core::CV_8UC1).unwrap().to_mat().unwrap();
        let white = core::Scalar::all(255.0);
        let rect = core::RotatedRect::new(core::Point2f::new(240.0, 140.0), core::Size2f::new(90.0, 110.0), 20.0);
        let mut corners = [core::Point2f::default(); 4];
        rect.unwrap().points(&mut corners).unwrap();
        let rim: core::Vector<core::Point> =
            corners.iter().map(|p| core::Point::new(p.x.round() as i32, p.y.round() as i32)).collect();
        let rims: core::Vector<core::Vector<core::Point>> = std::iter::once(rim).collect();
        imgproc::polylines(&mut mask, &rims, true, white, 7, imgproc::LINE_8, 0).unwrap();
        let face = core::Rect::new(130, 90, 80, 120);
        imgproc::rectangle(&mut mask, face, white, -1, imgproc::LINE_8, 0).unwrap();
        for (x, y) in [(150, 110), (190, 110), (150, 140), (190, 140), (170, 125), (150, 170), (190, 170), (170, 185)] {
            imgproc::circle(&mut mask, core::Point::new(x, y), 7, core::Scalar::all(0.0), -1, imgproc::LINE_8, 0)
                .unwrap();
        }
        mask
    }

    #[test]
    fn a_face_merged_with_a_backs_rim_is_peeled_out_of_the_shapeless_outline() {
        let mask = face_against_rim();
        let contours = outer_contours(&mask).unwrap();
        assert_eq!(contours.len(), 1, "face and rim make one outline");
        let area = imgproc::contour_area(&contours.get(0).unwrap(), false).unwrap();
        assert!(card_quad(&contours.get(0).unwrap(), area, true).unwrap().is_none(), "the outline is no card");
        let found = quads_in_mask(&mask, 3000.0).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        let face = [[130.0, 90.0], [209.0, 90.0], [209.0, 209.0], [130.0, 209.0]]
            .map(|p| [p[0] - PAD as f32, p[1] - PAD as f32]);
        for (got, want) in found[0].quad.iter().zip(&face) {
            assert!(dist(*got, *want) < 6.0, "{:?} against {face:?}", found[0].quad);
        }
    }

    #[test]
    fn a_rim_alone_or_a_card_alone_is_not_peeled() {
        let mut mask = Mat::zeros(300, 400, core::CV_8UC1).unwrap().to_mat().unwrap();
        imgproc::rectangle(
            &mut mask,
            core::Rect::new(100, 80, 90, 130),
            core::Scalar::all(255.0),
            7,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let ring = quads_in_mask(&mask, 3000.0).unwrap();
        assert_eq!(ring.len(), 1, "a back's rim is its card's outline");
        let contours = outer_contours(&mask).unwrap();
        let area = imgproc::contour_area(&contours.get(0).unwrap(), false).unwrap();
        assert!(peeled(&mask, &contours.get(0).unwrap(), area, 3000.0).unwrap().is_empty(), "nothing inside the rim");
    }
}
