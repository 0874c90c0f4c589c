//! Whole Omphala games rendered as video, with the truth: a game record (docs/omphala-notation.md)
//! acted out at a rendered table by the players' hands, seen by a fixed camera with the
//! renderer's randomness (tilt, light drift, blur, noise, glare, a passing arm, a hand resting
//! on the table, a card laid askew), and a timeline of which frames act out which line
//! (docs/rendered-games.md).

pub mod physical;
pub mod script;

use opencv::core::{self, Mat, Scalar, Size};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::face::{BackStyle, FaceStyle};
use super::random::{random_back_style, random_face_style, random_lighting};
use super::scene::{CardTruth, Hand, PlacedCard, Rendered, Renderer, Scene};
use super::table::{Lighting, TableKind};
use crate::cards::Card;
use crate::geometry::Pt;
use crate::layout::TableLayout;
use crate::render::scene::Camera;
use crate::rules::omphala::notation::{Record, parse};
use script::SKINS;
pub use script::{Kind, Script, Segment, TimelineEntry};

/// Why a record cannot be rendered: a malformed or illegal line (with where), or a bad setting.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct GameError {
    /// 1-based record line; 0 when the error concerns no line.
    pub line: usize,
    pub column: Option<usize>,
    pub message: String,
    /// The record itself is legal Omphala no further than this line (exit 1, not 2).
    pub illegal: bool,
}

impl GameError {
    pub fn bad(line: usize, message: impl Into<String>) -> GameError {
        GameError { line, column: None, message: message.into(), illegal: false }
    }

    pub fn bad_at(line: usize, column: usize, message: impl Into<String>) -> GameError {
        GameError { line, column: Some(column), message: message.into(), illegal: false }
    }

    pub fn illegal(line: usize, message: impl Into<String>) -> GameError {
        GameError { line, column: None, message: message.into(), illegal: true }
    }

    pub fn general(message: impl Into<String>) -> GameError {
        GameError::bad(0, message)
    }

    fn describe(&self) -> String {
        let place = match (self.line, self.column) {
            (0, _) => String::new(),
            (line, Some(column)) => format!("line {line}, column {column}: "),
            (line, None) => format!("line {line}: "),
        };
        let illegal = if self.illegal { "illegal: " } else { "" };
        format!("{place}{illegal}{}", self.message)
    }
}

/// How to film a game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameOptions {
    pub seed: u64,
    /// Frame size; `None` for 1280x720 with 2 seats and 1920x1080 with more.
    pub size: Option<Size>,
    pub fps: f64,
    /// Players keep their hands in view the whole game: each rests a hand at the table's edge
    /// and shifts it now and then, and the camera's white balance drifts.
    pub hands_in_view: bool,
    /// What a real table loses now and then: every 15 to 35 seconds the camera stalls for two
    /// seconds (its last picture repeated, the moves made meanwhile seen only once done), or a
    /// player lays a hand over a row for two seconds.
    pub lossy: bool,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions { seed: 1, size: None, fps: 30.0, hands_in_view: false, lossy: false }
    }
}

/// Seconds a loss lasts (`GameOptions::lossy`).
const LOSS_SECONDS: f64 = 2.0;

/// The losses of a lossy film: frame windows (first, end) in which the camera repeats the
/// window's first picture, and windows in which a hand lies over a row.
#[derive(Clone, Debug, Default)]
struct Losses {
    stalls: Vec<(usize, usize)>,
    covers: Vec<(usize, usize, Hand)>,
}

impl Losses {
    /// Losses at random moments of a film of `frames` frames.
    fn random(layout: &TableLayout, frames: usize, fps: f64, rng: &mut ChaCha8Rng) -> Losses {
        let mut losses = Losses::default();
        let length = (LOSS_SECONDS * fps).round().max(1.0) as usize;
        let mut at = (rng.random_range(15.0..35.0) * fps) as usize;
        while at + length < frames {
            if rng.random_bool(0.5) {
                losses.stalls.push((at, at + length));
            } else {
                losses.covers.push((at, at + length, covering_hand(layout, rng)));
            }
            at += length + (rng.random_range(15.0..35.0) * fps) as usize;
        }
        losses
    }

    /// The frame whose picture the camera gives at `frame`.
    fn shown(&self, frame: usize) -> usize {
        self.stalls.iter().find(|(first, end)| (*first..*end).contains(&frame)).map_or(frame, |(first, _)| *first)
    }

    fn covering(&self, frame: usize) -> impl Iterator<Item = Hand> + '_ {
        self.covers.iter().filter(move |(first, end, _)| (*first..*end).contains(&frame)).map(|(_, _, hand)| *hand)
    }
}

/// A hand laid flat over one of a random seat's rows, fingers toward the middle of the table.
fn covering_hand(layout: &TableLayout, rng: &mut ChaCha8Rng) -> Hand {
    let seat = rng.random_range(0..layout.seats.len());
    let zones = &layout.seats[seat];
    let row = if rng.random_bool(0.5) { zones.front } else { zones.back };
    let angle = row.angle;
    let toward = Pt::new(-angle.sin(), angle.cos());
    let over = row.slot(rng.random_range(0..5));
    // The palm a little beyond the card, toward the seat, the fingers over it.
    let palm = Pt::new(over.x + toward.x * 50.0, over.y + toward.y * 50.0);
    Hand { palm, angle: (-toward.y).atan2(-toward.x) + rng.random_range(-0.3..0.3), skin: SKINS[seat % SKINS.len()] }
}

/// The default frame size for a table of `players`: large enough that a card is about 85 px long.
pub fn default_size(players: usize) -> Size {
    if players <= 2 { Size::new(1280, 720) } else { Size::new(1920, 1080) }
}

/// What stays the same through a game: the table, the light, the deck's design, the camera's
/// blur and noise, and how the light drifts.
#[derive(Clone, Debug)]
struct Look {
    table: TableKind,
    table_seed: u64,
    lighting: Lighting,
    face_style: FaceStyle,
    back_style: BackStyle,
    blur_sigma: f64,
    noise_sigma: f64,
    /// Brightness drift: amplitude, period (seconds) and phase.
    drift: (f64, f64, f64),
    /// The hands resting at the table's edge, one per seat, when players keep them in view.
    resting: Vec<RestingHand>,
    /// White balance drift: each channel's amplitude, and the period (seconds).
    balance: ([f64; 3], f64),
}

/// A hand resting at a seat's edge, fingers toward the table, shifting slowly to and fro.
#[derive(Clone, Copy, Debug)]
struct RestingHand {
    palm: Pt,
    angle: f64,
    skin: [u8; 3],
    /// How far it shifts along the edge and toward the table (mm), the period (seconds) and
    /// the phase.
    sway: (Pt, f64, f64),
}

/// Frames a resting hand stays put before it shifts again (so that unchanged frames are not
/// drawn again).
const SWAY_STEP: usize = 3;

impl RestingHand {
    fn at(&self, seconds: f64) -> Hand {
        let (reach, period, phase) = self.sway;
        let k = (std::f64::consts::TAU * seconds / period + phase).sin();
        Hand { palm: Pt::new(self.palm.x + reach.x * k, self.palm.y + reach.y * k), angle: self.angle, skin: self.skin }
    }
}

/// A frame drawn before light drift and noise: the cards and hands it shows (the acting one, then
/// the resting ones), the image, the ground truth.
type Drawn = (Vec<PlacedCard>, (Option<Hand>, Vec<Hand>), Mat, Vec<CardTruth>);

/// A game ready to render frame by frame.
pub struct GameVideo {
    script: Script,
    /// First frame of each segment.
    starts: Vec<usize>,
    pub camera: Camera,
    pub layout: TableLayout,
    pub fps: f64,
    look: Look,
    seed: u64,
    renderer: Renderer,
    /// The last frame drawn before light drift and noise, and what it showed.
    cache: Option<Drawn>,
    noise: Vec<Mat>,
    losses: Losses,
}

/// Noise frames cycled through (fresh noise per frame costs as much as drawing it).
const NOISE_FRAMES: usize = 7;

impl GameVideo {
    /// Reads a record's text and scripts its video.
    pub fn from_text(text: &str, options: &GameOptions) -> Result<GameVideo, GameError> {
        let record = parse(text).map_err(|e| GameError::bad_at(e.line, e.column, e.message))?;
        let texts: Vec<&str> = text.lines().collect();
        GameVideo::new(&record, &texts, options)
    }

    /// Scripts the video of `record`, whose text lines are `texts` (for the timeline).
    pub fn new(record: &Record, texts: &[&str], options: &GameOptions) -> Result<GameVideo, GameError> {
        let players = record.names().len();
        if players == 0 {
            return Err(GameError::general("the record has no deal ('seat' and 'first' lines)"));
        }
        if !(1.0..=120.0).contains(&options.fps) {
            return Err(GameError::general(format!("--fps must be 1 to 120, not {}", options.fps)));
        }
        let size = options.size.unwrap_or_else(|| default_size(players));
        if size.width < 160 || size.height < 90 {
            return Err(GameError::general(format!(
                "a game video must be at least 160x90 pixels, not {}x{}",
                size.width, size.height
            )));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let mut layout = TableLayout::standard(players);
        let camera = choose_camera(&layout, size, &mut rng);
        layout.image_to_table = camera.table_to_image.inverse().unwrap_or(camera.table_to_image).0;
        let look = Look {
            table: [TableKind::GreenFelt, TableKind::Wood, TableKind::Dark][rng.random_range(0..3)],
            table_seed: rng.random(),
            lighting: random_lighting(&mut rng, size),
            face_style: random_face_style(&mut rng, &[]),
            back_style: random_back_style(&mut rng),
            blur_sigma: rng.random_range(0.3..1.0),
            noise_sigma: rng.random_range(1.0..4.0),
            drift: (
                rng.random_range(0.02..0.07),
                rng.random_range(12.0..40.0),
                rng.random_range(0.0..std::f64::consts::TAU),
            ),
            resting: Vec::new(),
            balance: ([0.0; 3], 1.0),
        };
        let mut look = look;
        if options.hands_in_view {
            look.resting = resting_hands(&layout, &mut rng);
            look.balance = (
                [rng.random_range(0.0..0.05), rng.random_range(0.0..0.03), rng.random_range(0.0..0.05)],
                rng.random_range(8.0..20.0),
            );
        }
        let script = script::write_script(record, texts, &layout, &camera, options.fps, options.seed)?;
        if script.timeline.is_empty() {
            return Err(GameError::general("the record has no deal: no 'first' line after the 'seat' lines"));
        }
        let mut starts = Vec::with_capacity(script.segments.len());
        let mut total = 0;
        for segment in &script.segments {
            starts.push(total);
            total += segment.frames;
        }
        let losses = if options.lossy {
            let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x1055);
            Losses::random(&layout, total, options.fps, &mut rng)
        } else {
            Losses::default()
        };
        Ok(GameVideo {
            script,
            starts,
            camera,
            layout,
            fps: options.fps,
            look,
            seed: options.seed,
            renderer: Renderer::new(),
            cache: None,
            noise: Vec::new(),
            losses,
        })
    }

    pub fn frame_count(&self) -> usize {
        self.script.segments.iter().map(|s| s.frames).sum()
    }

    pub fn timeline(&self) -> &[TimelineEntry] {
        &self.script.timeline
    }

    pub fn players(&self) -> usize {
        self.script.players
    }

    /// The identities given to the Front Row cards dealt face down, per seat.
    pub fn hidden_fronts(&self) -> &[Vec<Card>] {
        &self.script.hidden_fronts
    }

    /// The timeline as JSON lines.
    pub fn timeline_jsonl(&self) -> String {
        self.script.timeline.iter().map(|e| serde_json::to_string(e).unwrap_or_default() + "\n").collect()
    }

    /// The cards and hand at `frame` (clamped to the last frame).
    pub fn cards_at(&self, frame: usize) -> (Vec<PlacedCard>, Option<Hand>) {
        let frame = frame.min(self.frame_count().saturating_sub(1));
        let i = self.starts.partition_point(|&s| s <= frame).saturating_sub(1);
        let segment = &self.script.segments[i];
        let t = ease((frame - self.starts[i] + 1) as f64 / segment.frames as f64);
        let cards = match &segment.to {
            Some(to) => interpolate(&segment.from, to, t),
            None => segment.from.clone(),
        };
        let hand = segment.hand.map(|h| Hand { palm: h.from.lerp(h.to, t), angle: h.angle, skin: h.skin });
        (cards, hand)
    }

    /// The hands resting at the table's edge at `frame`.
    fn resting_at(&self, frame: usize) -> Vec<Hand> {
        let seconds = (frame - frame % SWAY_STEP) as f64 / self.fps;
        self.look.resting.iter().map(|r| r.at(seconds)).chain(self.losses.covering(frame)).collect()
    }

    /// The scene of `frame`, as `render` draws it.
    pub fn scene_at(&self, frame: usize) -> Scene {
        let frame = self.losses.shown(frame);
        let (cards, hand) = self.cards_at(frame);
        let mut scene = self.scene(cards, (hand, self.resting_at(frame)));
        scene.noise_sigma = self.look.noise_sigma;
        scene.noise_seed = self.seed ^ frame as u64;
        scene
    }

    fn scene(&self, cards: Vec<PlacedCard>, (hand, resting): (Option<Hand>, Vec<Hand>)) -> Scene {
        let look = &self.look;
        Scene {
            camera: self.camera,
            table: look.table,
            table_seed: look.table_seed,
            lighting: look.lighting.clone(),
            cards,
            hand,
            resting,
            face_style: look.face_style.clone(),
            back_style: look.back_style.clone(),
            blur_sigma: look.blur_sigma,
            noise_sigma: 0.0,
            noise_seed: 0,
        }
    }

    /// Draws `frame`. A frame showing what the one before it showed is not drawn again: only
    /// the light's drift and the noise change.
    pub fn render(&mut self, frame: usize) -> opencv::Result<Rendered> {
        // A stalled camera gives its last picture again.
        let frame = self.losses.shown(frame);
        let (cards, hand) = self.cards_at(frame);
        let hands = (hand, self.resting_at(frame));
        let fresh = match &self.cache {
            Some((c, h, _, _)) => *c != cards || *h != hands,
            None => true,
        };
        if fresh {
            let scene = self.scene(cards.clone(), hands.clone());
            let rendered = self.renderer.render(&scene)?;
            self.cache = Some((cards, hands, rendered.image, rendered.truth));
        }
        if self.noise.is_empty() {
            self.noise = noise_frames(self.camera.size, self.look.noise_sigma, self.seed)?;
        }
        let (_, _, image, truth) = self.cache.as_ref().expect("cached above");
        let (amplitude, period, phase) = self.look.drift;
        let seconds = frame as f64 / self.fps;
        let gain = 1.0 + amplitude * (std::f64::consts::TAU * seconds / period + phase).sin();
        let noise = &self.noise[(frame.wrapping_mul(5) + frame / 3) % self.noise.len()];
        let mut out = Mat::default();
        core::add_weighted(image, gain, noise, 1.0, -128.0, &mut out, -1)?;
        let (amplitudes, period) = self.look.balance;
        if amplitudes.iter().any(|&a| a > 0.0) {
            // The camera's white balance wanders: each channel's gain on its own.
            let wave = |a: f64, k: f64| 1.0 + a * (std::f64::consts::TAU * (seconds / period + k / 3.0)).sin();
            let gains = Scalar::new(wave(amplitudes[0], 0.0), wave(amplitudes[1], 1.0), wave(amplitudes[2], 2.0), 1.0);
            let mut balanced = Mat::default();
            core::multiply(&out, &gains, &mut balanced, 1.0, -1)?;
            out = balanced;
        }
        Ok(Rendered { image: out, truth: truth.clone() })
    }
}

/// One hand per seat resting at the table's edge beyond the row nearest the seat, fingers toward
/// the cards, each shifting to and fro at its own pace.
fn resting_hands(layout: &TableLayout, rng: &mut ChaCha8Rng) -> Vec<RestingHand> {
    use crate::cards::CARD_MM;
    layout
        .seats
        .iter()
        .enumerate()
        .map(|(seat, zones)| {
            let angle = zones.front.angle;
            let toward = Pt::new(-angle.sin(), angle.cos());
            let reach = |row: &crate::layout::Row| {
                let mid = row.first.lerp(row.last(), 0.5);
                (mid.x * toward.x + mid.y * toward.y, mid)
            };
            let (_, near) = [reach(&zones.front), reach(&zones.back)]
                .into_iter()
                .fold((f64::NEG_INFINITY, Pt::default()), |a, b| if b.0 > a.0 { b } else { a });
            // The fingertips a little short of the nearest row's cards (over where a modifier
            // would lie), the palm and arm beyond, out toward the seat.
            let fingers = 120.0;
            let out = CARD_MM.1 * 0.5 + rng.random_range(8.0..30.0) + fingers;
            let along = rng.random_range(-150.0..150.0);
            let palm = Pt::new(near.x + toward.x * out - toward.y * along, near.y + toward.y * out + toward.x * along);
            let shift = rng.random_range(15.0..40.0);
            RestingHand {
                palm,
                angle: (-toward.y).atan2(-toward.x) + rng.random_range(-0.4..0.4),
                skin: SKINS[(seat + 2) % SKINS.len()],
                sway: (
                    Pt::new(-toward.y * shift + toward.x * 6.0, toward.x * shift + toward.y * 6.0),
                    rng.random_range(3.0..8.0),
                    rng.random_range(0.0..std::f64::consts::TAU),
                ),
            }
        })
        .collect()
}

fn ease(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A fixed camera that sees the whole layout, slightly tilted and turned.
fn choose_camera(layout: &TableLayout, size: Size, rng: &mut ChaCha8Rng) -> Camera {
    let (min, max) = layout.extent();
    let centre = Pt::new((min.x + max.x) / 2.0, (min.y + max.y) / 2.0);
    let (width, height) = (max.x - min.x, max.y - min.y);
    let tilt = rng.random_range(0.0..0.04);
    let rotation = rng.random_range(-0.02..0.02);
    let (c, s) = (f64::cos(rotation).abs(), f64::sin(rotation).abs());
    let (bw, bh) = (width * c + height * s, width * s + height * c);
    let aspect = f64::from(size.width) / f64::from(size.height);
    let view_width = bw.max(bh * aspect / (1.0 + tilt));
    Camera::overhead(size, centre, view_width, tilt, rotation)
}

/// Cards part way from one layout to the next: those that move or turn over are drawn on top;
/// a card turning over is lifted a little to the side on the way.
pub fn interpolate(from: &[PlacedCard], to: &[PlacedCard], t: f64) -> Vec<PlacedCard> {
    let mut still = Vec::with_capacity(to.len());
    let mut moving = Vec::new();
    for end in to {
        match from.iter().find(|c| c.card == end.card) {
            Some(start) if start != end => {
                let lift = if start.face_up != end.face_up { 14.0 * (std::f64::consts::PI * t).sin() } else { 0.0 };
                let centre = start.centre.lerp(end.centre, t);
                moving.push(PlacedCard {
                    card: end.card,
                    face_up: if t < 0.5 { start.face_up } else { end.face_up },
                    centre: Pt::new(centre.x + lift, centre.y - lift * 0.5),
                    angle: start.angle + (end.angle - start.angle) * t,
                });
            }
            _ => still.push(*end),
        }
    }
    still.extend(moving);
    still
}

/// A few frames of sensor noise around 128 (added with an offset of -128).
fn noise_frames(size: Size, sigma: f64, seed: u64) -> opencv::Result<Vec<Mat>> {
    let mut frames = Vec::with_capacity(NOISE_FRAMES);
    for i in 0..NOISE_FRAMES {
        core::set_rng_seed((seed as i32).wrapping_add(i as i32 * 7919))?;
        let mut noise = Mat::new_size_with_default(size, core::CV_8UC3, Scalar::all(0.0))?;
        core::randn(&mut noise, &Scalar::all(128.0), &Scalar::all(sigma))?;
        frames.push(noise);
    }
    Ok(frames)
}
