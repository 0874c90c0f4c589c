//! A table scene and its rendering: cards laid on a table plane, seen through a perspective camera,
//! lit unevenly, partly covered by a hand, blurred and noisy. Rendering returns the frame and the
//! ground truth of every card (identity, face up or down, outline, index corners, visibility).

use std::collections::HashMap;

use opencv::core::{self, Mat, Point, Rect, Scalar, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use super::face::{self, BackStyle, FaceStyle};
use super::table::{self, Lighting, TableKind};
use crate::cards::Card;
use crate::geometry::{Homography, Pt};

pub use crate::cards::CARD_MM;

/// Maps table millimetres to image pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub table_to_image: Homography,
    pub size: Size,
}

impl Camera {
    /// A camera above the table. `view_width` millimetres of table fill the bottom edge of the
    /// frame; `tilt` (0 = straight down, 0.45 ≈ 45°) shrinks the far edge; `rotation` (radians)
    /// turns the table under the camera; `centre` is the table point in the middle of the view.
    pub fn overhead(size: Size, centre: Pt, view_width: f64, tilt: f64, rotation: f64) -> Camera {
        let (w, h) = (f64::from(size.width), f64::from(size.height));
        let view_height = view_width * h / w * (1.0 + tilt);
        let table_quad = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(sx, sy)| {
            let local = Pt::new(sx * view_width / 2.0, sy * view_height / 2.0);
            let turned = Homography::rotation(rotation).apply(local);
            Pt::new(centre.x + turned.x, centre.y + turned.y)
        });
        let inset = w / 2.0 * tilt;
        let image_quad = [Pt::new(inset, 0.0), Pt::new(w - inset, 0.0), Pt::new(w, h), Pt::new(0.0, h)];
        let table_to_image = Homography::from_quads(&table_quad, &image_quad).unwrap_or(Homography::IDENTITY);
        Camera { table_to_image, size }
    }

    /// Pixels per millimetre at a table point (the mean scale along x and y there).
    pub fn scale_at(&self, p: Pt) -> f64 {
        let a = self.table_to_image.apply(p);
        let dx = self.table_to_image.apply(Pt::new(p.x + 1.0, p.y)).distance(a);
        let dy = self.table_to_image.apply(Pt::new(p.x, p.y + 1.0)).distance(a);
        (dx + dy) / 2.0
    }
}

/// One card lying on the table. `angle` turns it about its centre (radians, clockwise on screen).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlacedCard {
    pub card: Card,
    pub face_up: bool,
    pub centre: Pt,
    pub angle: f64,
}

impl PlacedCard {
    /// Card-face pixel (in a face `face_width` px wide) → table millimetres.
    fn face_to_table(&self, face_width: i32) -> Homography {
        crate::geometry::face_to_table(self.centre, self.angle, face_width)
    }

    /// The card's corners on the table, clockwise from the top-left corner of its face.
    pub fn corners_mm(&self) -> [Pt; 4] {
        crate::geometry::card_corners(self.centre, self.angle)
    }
}

/// A hand reaching over the table: palm centre on the table (mm), the direction the fingers point
/// (radians) and a skin colour. The arm runs back from the palm out of the frame.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hand {
    pub palm: Pt,
    pub angle: f64,
    pub skin: [u8; 3],
}

/// Everything that decides a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub camera: Camera,
    pub table: TableKind,
    pub table_seed: u64,
    pub lighting: Lighting,
    /// Bottom first: later cards lie on top of earlier ones.
    pub cards: Vec<PlacedCard>,
    pub hand: Option<Hand>,
    /// Hands lying still over the table (resting at its edge), drawn under `hand`.
    pub resting: Vec<Hand>,
    pub face_style: FaceStyle,
    pub back_style: BackStyle,
    pub blur_sigma: f64,
    pub noise_sigma: f64,
    pub noise_seed: u64,
}

impl Scene {
    /// `cards` on green felt seen from overhead, 1280x720, `view_width` mm across, tilted by
    /// `tilt`; plain light, default faces and backs, a little blur and noise. Tests and probes
    /// change what they need from here.
    pub fn plain(cards: Vec<PlacedCard>, view_width: f64, tilt: f64) -> Scene {
        Scene {
            camera: Camera::overhead(Size::new(1280, 720), Pt::new(0.0, 0.0), view_width, tilt, 0.0),
            table: TableKind::GreenFelt,
            table_seed: 0,
            lighting: Lighting::default(),
            cards,
            hand: None,
            resting: Vec::new(),
            face_style: FaceStyle::default(),
            back_style: BackStyle::default(),
            blur_sigma: 0.6,
            noise_sigma: 2.0,
            noise_seed: 1,
        }
    }
}

/// What the renderer knows about one card it drew.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CardTruth {
    pub card: Card,
    pub face_up: bool,
    /// Outline in image pixels, clockwise from the top-left corner of the face.
    pub quad: [Pt; 4],
    /// Index corners (top-left, then bottom-right) in image pixels, as quads.
    pub index_quads: [[Pt; 4]; 2],
    /// Which index corners are visible (not covered by another card or the hand, inside the frame).
    pub index_visible: [bool; 2],
    /// How much of each index corner shows, 0..1 (visible means at least 0.9).
    pub index_seen: [f64; 2],
    /// The centres of each index's rank and pip (top-left index, then bottom-right), image
    /// pixels: the rank-to-pip direction is the card's "down" at that corner.
    pub index_marks: [[Pt; 2]; 2],
    /// Fraction of the card's area that is visible.
    pub visible: f64,
}

impl CardTruth {
    /// Axis-aligned boxes `[x, y, w, h]` of the visible index corners.
    pub fn index_boxes(&self) -> Vec<[f64; 4]> {
        self.index_quads
            .iter()
            .zip(self.index_visible)
            .filter(|(_, visible)| *visible)
            .map(|(q, _)| bounding_box(q))
            .collect()
    }
}

/// A rendered frame (BGR) with its ground truth, one entry per card in `Scene::cards` order.
pub struct Rendered {
    pub image: Mat,
    pub truth: Vec<CardTruth>,
}

/// Draws scenes; caches faces, table textures and light maps between frames.
#[derive(Default)]
pub struct Renderer {
    faces: HashMap<(Option<Card>, i32), Mat>,
    masks: HashMap<i32, Mat>,
    style: Option<(FaceStyle, BackStyle)>,
    texture: Option<((TableKind, u64, i32, i32), Mat)>,
    light: Option<((Lighting, Size), Mat)>,
}

const SHADOW_OFFSET: (i32, i32) = (3, 4);

impl Renderer {
    pub fn new() -> Renderer {
        Renderer::default()
    }

    pub fn render(&mut self, scene: &Scene) -> opencv::Result<Rendered> {
        self.reset_styles_if_changed(scene);
        let mut frame = self.background(scene)?;
        let face_width = self.face_width(scene);
        let mut labels = Mat::new_size_with_default(scene.camera.size, core::CV_8UC1, Scalar::all(0.0))?;
        draw_shadows(&mut frame, scene)?;
        let mut quads = Vec::with_capacity(scene.cards.len());
        for (i, placed) in scene.cards.iter().enumerate() {
            let to_image = scene.camera.table_to_image.then_after(&placed.face_to_table(face_width));
            self.composite(&mut frame, placed, face_width, &to_image)?;
            let quad = face_corners(face_width).map(|p| to_image.apply(p));
            fill_quad(&mut labels, &quad, Scalar::all((i + 1).min(254) as f64))?;
            quads.push((quad, to_image));
        }
        for hand in scene.resting.iter().chain(&scene.hand) {
            for part in hand_polygons(hand, &scene.camera) {
                fill_poly_px(&mut frame, &part, skin_colour(hand))?;
                fill_poly_px(&mut labels, &part, Scalar::all(255.0))?;
            }
        }
        table::apply_light(&mut frame, self.light_map(scene)?)?;
        if scene.blur_sigma > 0.0 {
            let mut blurred = Mat::default();
            imgproc::gaussian_blur_def(&frame, &mut blurred, Size::new(0, 0), scene.blur_sigma)?;
            frame = blurred;
        }
        crate::vision::alter::add_noise(&mut frame, scene.noise_sigma, scene.noise_seed)?;
        let truth = ground_truth(scene, &quads, &labels, face_width)?;
        Ok(Rendered { image: frame, truth })
    }

    fn reset_styles_if_changed(&mut self, scene: &Scene) {
        let style = (scene.face_style.clone(), scene.back_style.clone());
        if self.style.as_ref() != Some(&style) {
            self.faces.clear();
            self.style = Some(style);
        }
    }

    /// Face bitmap width: about twice the largest on-screen card width, so warps only shrink.
    fn face_width(&self, scene: &Scene) -> i32 {
        let largest = scene.cards.iter().map(|c| scene.camera.scale_at(c.centre)).fold(1.0, f64::max);
        let wanted = largest * CARD_MM.0 * 1.5;
        [120, 180, 260, 400, 600].into_iter().find(|&w| f64::from(w) >= wanted).unwrap_or(600)
    }

    fn background(&mut self, scene: &Scene) -> opencv::Result<Mat> {
        let size = scene.camera.size;
        let key = (scene.table, scene.table_seed, size.width, size.height);
        if self.texture.as_ref().map(|(k, _)| *k) != Some(key) {
            self.texture = Some((key, table::table_texture(scene.table, size, scene.table_seed)?));
        }
        self.texture.as_ref().map(|(_, m)| m.try_clone()).expect("texture was just cached")
    }

    fn light_map(&mut self, scene: &Scene) -> opencv::Result<&Mat> {
        let size = scene.camera.size;
        let key = (scene.lighting.clone(), size);
        if self.light.as_ref().map(|(k, _)| k) != Some(&key) {
            self.light = Some((key, table::gain_map(&scene.lighting, size)?));
        }
        Ok(&self.light.as_ref().expect("light map was just cached").1)
    }

    fn face_bitmap(&mut self, placed: &PlacedCard, width: i32) -> opencv::Result<&Mat> {
        let key = (placed.face_up.then_some(placed.card), width);
        if !self.faces.contains_key(&key) {
            let (face_style, back_style) = self.style.clone().unwrap_or_default();
            let bitmap = match key.0 {
                Some(card) => face::draw_face(card, &face_style, width)?,
                None => face::draw_back(&back_style, width)?,
            };
            self.faces.insert(key, bitmap);
        }
        Ok(&self.faces[&key])
    }

    fn mask(&mut self, width: i32) -> opencv::Result<&Mat> {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.masks.entry(width) {
            slot.insert(face::card_mask(width)?);
        }
        Ok(&self.masks[&width])
    }

    /// Warps one card into the frame, only over its bounding box.
    fn composite(
        &mut self,
        frame: &mut Mat,
        placed: &PlacedCard,
        width: i32,
        to_image: &Homography,
    ) -> opencv::Result<()> {
        let quad = face_corners(width).map(|p| to_image.apply(p));
        let Some(roi) = clipped_box(&quad, frame.size()?) else {
            return Ok(());
        };
        let local = Homography::translation(-f64::from(roi.x), -f64::from(roi.y)).then_after(to_image).to_mat()?;
        let bitmap = self.face_bitmap(placed, width)?.try_clone()?;
        let warped = warp(&bitmap, &local, roi.size())?;
        let warped_mask = warp(self.mask(width)?, &local, roi.size())?;
        let mut hard_mask = Mat::default();
        imgproc::threshold(&warped_mask, &mut hard_mask, 127.0, 255.0, imgproc::THRESH_BINARY)?;
        let mut target = Mat::roi_mut(frame, roi)?;
        warped.copy_to_masked(&mut target, &hard_mask)
    }
}

fn warp(src: &Mat, transform: &Mat, size: Size) -> opencv::Result<Mat> {
    let mut out = Mat::default();
    let (flags, border) = (imgproc::INTER_LINEAR, core::BORDER_CONSTANT);
    imgproc::warp_perspective(src, &mut out, transform, size, flags, border, Scalar::all(0.0))?;
    Ok(out)
}

fn face_corners(width: i32) -> [Pt; 4] {
    let (w, h) = face::face_size(width);
    let (w, h) = (f64::from(w), f64::from(h));
    [Pt::new(0.0, 0.0), Pt::new(w, 0.0), Pt::new(w, h), Pt::new(0.0, h)]
}

pub fn bounding_box(q: &[Pt; 4]) -> [f64; 4] {
    let (x0, x1) = q.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.x), b.max(p.x)));
    let (y0, y1) = q.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
    [x0, y0, x1 - x0, y1 - y0]
}

/// The integer box around `quad`, clipped to the frame; `None` when nothing of it is in view.
fn clipped_box(quad: &[Pt; 4], size: Size) -> Option<Rect> {
    let [x, y, w, h] = bounding_box(quad);
    let x0 = (x.floor() as i32).max(0);
    let y0 = (y.floor() as i32).max(0);
    let x1 = ((x + w).ceil() as i32 + 1).min(size.width);
    let y1 = ((y + h).ceil() as i32 + 1).min(size.height);
    (x1 > x0 && y1 > y0).then(|| Rect::new(x0, y0, x1 - x0, y1 - y0))
}

fn to_points(pts: &[Pt]) -> Vector<Point> {
    pts.iter().map(|p| Point::new(p.x.round() as i32, p.y.round() as i32)).collect()
}

fn fill_quad(img: &mut Mat, quad: &[Pt; 4], colour: Scalar) -> opencv::Result<()> {
    imgproc::fill_convex_poly(img, &to_points(quad), colour, imgproc::LINE_8, 0)
}

fn fill_poly_px(img: &mut Mat, pts: &[Pt], colour: Scalar) -> opencv::Result<()> {
    let polys: Vector<Vector<Point>> = std::iter::once(to_points(pts)).collect();
    imgproc::fill_poly(img, &polys, colour, imgproc::LINE_AA, 0, Point::new(0, 0))
}

/// Soft shadows: every card's outline, shifted away from the light and blurred, darkens the table.
fn draw_shadows(frame: &mut Mat, scene: &Scene) -> opencv::Result<()> {
    if scene.cards.is_empty() {
        return Ok(());
    }
    let mut shadow = Mat::new_size_with_default(scene.camera.size, core::CV_8UC1, Scalar::all(0.0))?;
    for placed in &scene.cards {
        let quad = placed.corners_mm().map(|p| {
            let q = scene.camera.table_to_image.apply(p);
            Pt::new(q.x + f64::from(SHADOW_OFFSET.0), q.y + f64::from(SHADOW_OFFSET.1))
        });
        fill_quad(&mut shadow, &quad, Scalar::all(90.0))?;
    }
    let mut soft = Mat::default();
    imgproc::blur_def(&shadow, &mut soft, Size::new(9, 9))?;
    let mut inverse = Mat::default();
    core::subtract(&Scalar::all(255.0), &soft, &mut inverse, &core::no_array(), -1)?;
    let mut inverse3 = Mat::default();
    imgproc::cvt_color_def(&inverse, &mut inverse3, imgproc::COLOR_GRAY2BGR)?;
    let mut out = Mat::default();
    core::multiply(&*frame, &inverse3, &mut out, 1.0 / 255.0, -1)?;
    *frame = out;
    Ok(())
}

fn skin_colour(hand: &Hand) -> Scalar {
    let [r, g, b] = hand.skin;
    face::bgr(r, g, b)
}

/// The hand as polygons in image pixels: arm, palm, four fingers and a thumb.
fn hand_polygons(hand: &Hand, camera: &Camera) -> Vec<Vec<Pt>> {
    let place = Homography::translation(hand.palm.x, hand.palm.y).then_after(&Homography::rotation(hand.angle));
    let to_image = camera.table_to_image.then_after(&place);
    let rect =
        |x0: f64, y0: f64, x1: f64, y1: f64| vec![Pt::new(x0, y0), Pt::new(x1, y0), Pt::new(x1, y1), Pt::new(x0, y1)];
    let ellipse = |cx: f64, cy: f64, rx: f64, ry: f64| {
        (0..24)
            .map(|i| {
                let a = f64::from(i) * std::f64::consts::TAU / 24.0;
                Pt::new(cx + rx * a.cos(), cy + ry * a.sin())
            })
            .collect::<Vec<_>>()
    };
    // Local frame: fingers point along +x, the arm runs along −x.
    let mut parts = vec![rect(-900.0, -38.0, -30.0, 38.0), ellipse(0.0, 0.0, 55.0, 48.0)];
    for (i, length) in [70.0, 82.0, 78.0, 64.0].into_iter().enumerate() {
        let y = -33.0 + 22.0 * i as f64;
        parts.push(rect(30.0, y - 8.5, 30.0 + length, y + 8.5));
        parts.push(ellipse(30.0 + length, y, 8.5, 8.5));
    }
    // The thumb leaves the palm's side and points forward and out, with a rounded tip.
    let thumb = Homography::translation(10.0, 38.0).then_after(&Homography::rotation(0.55));
    for part in [rect(0.0, -10.0, 58.0, 10.0), ellipse(58.0, 0.0, 10.0, 10.0)] {
        parts.push(part.into_iter().map(|p| thumb.apply(p)).collect());
    }
    parts.into_iter().map(|poly| poly.into_iter().map(|p| to_image.apply(p)).collect()).collect()
}

fn ground_truth(
    scene: &Scene,
    quads: &[([Pt; 4], Homography)],
    labels: &Mat,
    face_width: i32,
) -> opencv::Result<Vec<CardTruth>> {
    let counts = label_counts(labels)?;
    let bx = face::index_box(face_width, &scene.face_style);
    let (fw, fh) = face::face_size(face_width);
    let top_left = rect_quad(f64::from(bx.x), f64::from(bx.y), f64::from(bx.width), f64::from(bx.height));
    let bottom_right = rect_quad(
        f64::from(fw - bx.x - bx.width),
        f64::from(fh - bx.y - bx.height),
        f64::from(bx.width),
        f64::from(bx.height),
    );
    let (rank, pip) = face::index_marks(face_width, &scene.face_style);
    let turned = |p: Pt| Pt::new(f64::from(fw) - p.x, f64::from(fh) - p.y);
    let mut truth = Vec::with_capacity(quads.len());
    for (i, (placed, (quad, to_image))) in scene.cards.iter().zip(quads).enumerate() {
        let label = (i + 1).min(254) as u8;
        let area = polygon_area(quad).max(1.0);
        let index_quads = [top_left, bottom_right].map(|q| q.map(|p| to_image.apply(p)));
        let index_seen = index_quads.map(|q| region_seen(labels, &q, label));
        truth.push(CardTruth {
            card: placed.card,
            face_up: placed.face_up,
            quad: *quad,
            index_quads,
            index_visible: index_seen.map(|seen| seen >= 0.9),
            index_seen,
            index_marks: [[rank, pip], [turned(rank), turned(pip)]].map(|m| m.map(|p| to_image.apply(p))),
            visible: (counts[usize::from(label)] as f64 / area).min(1.0),
        });
    }
    Ok(truth)
}

fn rect_quad(x: f64, y: f64, w: f64, h: f64) -> [Pt; 4] {
    [Pt::new(x, y), Pt::new(x + w, y), Pt::new(x + w, y + h), Pt::new(x, y + h)]
}

fn label_counts(labels: &Mat) -> opencv::Result<[u32; 256]> {
    let mut counts = [0u32; 256];
    for &v in labels.data_bytes()? {
        counts[usize::from(v)] += 1;
    }
    Ok(counts)
}

/// The share of a 6×6 grid of points inside `quad` that shows card `label`.
fn region_seen(labels: &Mat, quad: &[Pt; 4], label: u8) -> f64 {
    let mut seen = 0;
    for j in 0..6 {
        for i in 0..6 {
            let (u, v) = ((f64::from(i) + 0.5) / 6.0, (f64::from(j) + 0.5) / 6.0);
            let p = quad[0].lerp(quad[1], u).lerp(quad[3].lerp(quad[2], u), v);
            let (x, y) = (p.x as i32, p.y as i32);
            if x >= 0
                && y >= 0
                && x < labels.cols()
                && y < labels.rows()
                && labels.at_2d::<u8>(y, x).is_ok_and(|&l| l == label)
            {
                seen += 1;
            }
        }
    }
    f64::from(seen) / 36.0
}

fn polygon_area(q: &[Pt; 4]) -> f64 {
    (0..4).map(|i| q[i].x * q[(i + 1) % 4].y - q[(i + 1) % 4].x * q[i].y).sum::<f64>().abs() / 2.0
}
