//! A recorded mini-game acted out at a rendered table, as video with its truth: the piles lie
//! untidy (each card a little off the one beneath, at its own turn), a right claim is followed
//! by the claimer's hand reaching in, carrying the card (or Hot Potato's stack) to where the game
//! puts it, and leaving; claims may come while a hand is still moving. The light drifts slowly
//! and the camera adds noise. The claims and the verdicts the rules give them are written beside
//! the video, for the live referee to be judged against.
//!
//! Seats lie round the middle clockwise (on the image) from the bottom, the order in which the
//! live referee learns them.

use std::collections::HashMap;
use std::path::Path;

use opencv::core::{self, Mat, Point, Rect, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::symbols::deck::CardId;
use crate::symbols::games::{GameKind, Outcome, Place};
use crate::symbols::notation::Replay;
use crate::symbols::render::{PictureDeck, render_card};

/// How a match is filmed.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    pub seed: u64,
    pub fps: f64,
    pub size: (i32, i32),
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions { seed: 1, fps: 10.0, size: (1280, 720) }
    }
}

/// One claim as the referee hears it, and the verdict the rules give it.
#[derive(Clone, Debug, PartialEq)]
pub struct TrueClaim {
    /// Milliseconds from the video's start.
    pub ms: u64,
    pub seat: usize,
    pub called: String,
    pub target: Option<usize>,
    /// "right", "wrong", "too_late", … as the live referee writes them.
    pub outcome: &'static str,
}

impl TrueClaim {
    /// The claims file line: `TIME SEAT SYMBOL [> TARGET]`, seats from 1.
    pub fn line(&self) -> String {
        let target = self.target.map(|t| format!(" > {}", t + 1)).unwrap_or_default();
        format!("{}.{:03} {} {}{target}", self.ms / 1000, self.ms % 1000, self.seat + 1, self.called)
    }
}

/// A game of a match as film: the table after each move, and the claims.
pub struct GameFilm {
    pub kind: GameKind,
    pub seats: usize,
    pub claims: Vec<TrueClaim>,
    shots: Vec<Shot>,
    duration_ms: u64,
}

type Piles = Vec<(Place, Vec<CardId>)>;

/// One move by a hand: cards lifted from a pile and laid on another (or taken off the table).
#[derive(Clone, Debug)]
struct Shot {
    start: u64,
    end: u64,
    before: Piles,
    after: Piles,
    moved: Vec<CardId>,
    from: Place,
    /// `None`: carried off the table (a Hot Potato round collected).
    to: Option<Place>,
    /// Whose hand.
    seat: usize,
}

/// The live referee's name for an engine's outcome.
pub fn outcome_code(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Correct => "right",
        Outcome::Wrong => "wrong",
        Outcome::TooLate => "too_late",
        Outcome::Ambiguous => "ambiguous",
        Outcome::UnknownName => "unknown_name",
        Outcome::NotAllowed => "not_allowed",
    }
}

/// Milliseconds before the first claim the film starts, and after the last move it ends.
const LEAD_MS: u64 = 2500;
const TAIL_MS: u64 = 2000;
/// A right claim's move: the hand sets off this long after the claim, reaches the card, carries
/// it, lets go and leaves.
const SET_OFF_MS: u64 = 150;
const REACH_MS: u64 = 300;
const CARRY_MS: u64 = 500;
const LEAVE_MS: u64 = 300;
const MOVE_MS: u64 = REACH_MS + CARRY_MS + LEAVE_MS;
/// How long a Hot Potato round's last stack lies still before its winner collects it.
const REST_MS: u64 = 900;

fn place_of(piles: &Piles, card: CardId) -> Option<Place> {
    piles.iter().find(|(_, p)| p.contains(&card)).map(|(place, _)| *place)
}

fn shot(start: u64, before: &Piles, after: &Piles, seat: usize) -> Shot {
    let moved: Vec<CardId> = before
        .iter()
        .flat_map(|(_, p)| p.iter().copied())
        .filter(|&c| place_of(after, c) != place_of(before, c))
        .collect();
    let from = moved.first().and_then(|&c| place_of(before, c)).unwrap_or(Place::Draw);
    let to = moved.first().and_then(|&c| place_of(after, c));
    Shot { start, end: start + MOVE_MS, before: before.clone(), after: after.clone(), moved, from, to, seat }
}

/// Splits a replayed match into the films of its games.
pub fn films(replay: &Replay, players: &[String]) -> Vec<GameFilm> {
    let mut films: Vec<GameFilm> = Vec::new();
    let seat_of = |name: &str| players.iter().position(|p| p.eq_ignore_ascii_case(name));
    for step in &replay.steps {
        let Some(k) = step.verdict else {
            let deal = Shot {
                start: 0,
                end: 0,
                before: Vec::new(),
                after: step.piles.clone(),
                moved: Vec::new(),
                from: Place::Draw,
                to: None,
                seat: 0,
            };
            films.push(GameFilm {
                kind: step.kind,
                seats: players.len(),
                claims: Vec::new(),
                shots: vec![deal],
                duration_ms: 0,
            });
            continue;
        };
        let Some(film) = films.last_mut() else { continue };
        let verdict = &replay.verdicts[k];
        let seat = seat_of(&verdict.claim.player).unwrap_or(0);
        let target = verdict.claim.target.as_deref().and_then(seat_of);
        film.claims.push(TrueClaim {
            ms: verdict.claim.time_ms,
            seat,
            called: verdict.claim.called.clone(),
            target,
            outcome: outcome_code(verdict.outcome),
        });
        if verdict.outcome != Outcome::Correct {
            continue;
        }
        let before = film.shots.last().map(|s| s.after.clone()).unwrap_or_default();
        let start = verdict.claim.time_ms + SET_OFF_MS;
        let gone: Vec<CardId> = before
            .iter()
            .flat_map(|(_, p)| p.iter().copied())
            .filter(|&c| place_of(&step.piles, c).is_none())
            .collect();
        let hit = verdict.called_symbol.and_then(|s| verdict.compared.iter().find(|(_, shared)| *shared == s));
        match (gone.is_empty(), hit.and_then(|(c, _)| c.target)) {
            (false, Some(to)) => {
                // Hot Potato's last give of a round: the stack lands, lies still, and its new
                // holder collects the round; the next round is dealt as they do.
                let mut middle = before.clone();
                let given: Vec<CardId> = middle
                    .iter_mut()
                    .find(|(p, _)| *p == Place::Player(seat))
                    .map(|(_, cards)| std::mem::take(cards))
                    .unwrap_or_default();
                match middle.iter_mut().find(|(p, _)| *p == Place::Player(to)) {
                    Some((_, cards)) => cards.extend(given),
                    None => middle.push((Place::Player(to), given)),
                }
                middle.retain(|(_, cards)| !cards.is_empty());
                let give = shot(start, &before, &middle, seat);
                let collect_at = give.end + REST_MS;
                film.shots.push(give);
                film.shots.push(shot(collect_at, &middle, &step.piles, to));
            }
            _ => film.shots.push(shot(start, &before, &step.piles, seat)),
        }
    }
    for film in &mut films {
        // Times from the video's start: the first claim comes LEAD_MS in.
        let first = film.claims.first().map_or(0, |c| c.ms);
        let shift = first.saturating_sub(LEAD_MS);
        for claim in &mut film.claims {
            claim.ms -= shift;
        }
        for shot in film.shots.iter_mut().skip(1) {
            shot.start -= shift;
            shot.end -= shift;
        }
        let last_move = film.shots.last().map_or(0, |s| s.end);
        let last_claim = film.claims.last().map_or(0, |c| c.ms);
        film.duration_ms = last_move.max(last_claim) + TAIL_MS;
    }
    films
}

/// Where the piles lie on the image, and a card's diameter.
struct Table {
    middle: (f32, f32),
    seats: Vec<(f32, f32)>,
    diameter: f32,
    size: (i32, i32),
}

impl Table {
    fn new(seats: usize, size: (i32, i32)) -> Table {
        let (w, h) = (size.0 as f32, size.1 as f32);
        let middle = (w / 2.0, h / 2.0);
        let (rx, ry) = (0.36 * w, 0.35 * h);
        let seats: Vec<(f32, f32)> = (0..seats)
            .map(|s| {
                let a = std::f32::consts::FRAC_PI_2 + s as f32 * std::f32::consts::TAU / seats as f32;
                (middle.0 + rx * a.cos(), middle.1 + ry * a.sin())
            })
            .collect();
        let mut closest = f32::MAX;
        for (i, a) in seats.iter().enumerate() {
            closest = closest.min(dist(*a, middle));
            for b in &seats[i + 1..] {
                closest = closest.min(dist(*a, *b));
            }
        }
        Table { middle, seats, diameter: (0.62 * closest).min(0.3 * h), size }
    }

    fn at(&self, place: Place) -> (f32, f32) {
        match place {
            Place::Player(s) => self.seats[s],
            Place::Draw | Place::Centre => self.middle,
        }
    }

    /// Where a seat's player sits: beyond their pile, at the image's edge.
    fn edge(&self, seat: usize) -> (f32, f32) {
        let p = self.seats[seat];
        let (dx, dy) = (p.0 - self.middle.0, p.1 - self.middle.1);
        let n = dx.hypot(dy).max(1.0);
        let reach = self.size.0.max(self.size.1) as f32;
        (p.0 + dx / n * reach, p.1 + dy / n * reach)
    }
}

fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// A card lying somewhere: its centre and turn.
#[derive(Clone, Copy, Debug)]
struct Lay {
    card: CardId,
    center: (f32, f32),
    turn: f32,
}

/// Draws the frames of one game.
pub struct FilmRenderer<'a> {
    film: &'a GameFilm,
    table: Table,
    sprites: HashMap<CardId, Mat>,
    deck: &'a PictureDeck,
    background: Mat,
    /// Each card's offset on a pile and its turn, fixed when it lands.
    lie: HashMap<CardId, (f32, f32, f32)>,
    seed: u64,
    skin: Scalar,
}

impl<'a> FilmRenderer<'a> {
    pub fn new(film: &'a GameFilm, deck: &'a PictureDeck, options: &MatchOptions) -> opencv::Result<FilmRenderer<'a>> {
        let table = Table::new(film.seats, options.size);
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let background = background(options.size, &mut rng)?;
        let skin = [(205.0, 170.0, 150.0), (150.0, 110.0, 85.0), (95.0, 65.0, 50.0), (225.0, 190.0, 170.0)]
            [rng.random_range(0..4)];
        Ok(FilmRenderer {
            film,
            table,
            sprites: HashMap::new(),
            deck,
            background,
            lie: HashMap::new(),
            seed: options.seed,
            skin: Scalar::new(skin.2, skin.1, skin.0, 0.0),
        })
    }

    pub fn duration_ms(&self) -> u64 {
        self.film.duration_ms
    }

    /// The frame at `ms`.
    pub fn frame(&mut self, ms: u64) -> opencv::Result<Mat> {
        let shots = &self.film.shots;
        let shot = shots[shots.iter().rposition(|s| s.start <= ms).unwrap_or(0)].clone();
        let mut cards: Vec<Lay>;
        let mut hand = None;
        if ms < shot.end {
            let t = ms - shot.start;
            let edge = self.table.edge(shot.seat);
            let src = self.table.at(shot.from);
            let dst = shot.to.map_or(edge, |to| self.table.at(to));
            if t < REACH_MS {
                cards = self.lay_table(&shot.before, &[]);
                hand = Some((lerp(edge, src, ease(t as f32 / REACH_MS as f32)), edge));
            } else if t < REACH_MS + CARRY_MS {
                let at = lerp(src, dst, ease((t - REACH_MS) as f32 / CARRY_MS as f32));
                cards = self.lay_table(&shot.before, &shot.moved);
                let lifted: Vec<CardId> =
                    shot.before.iter().find(|(p, _)| *p == shot.from).map(|(_, c)| c.clone()).unwrap_or_default();
                let lifted: Vec<CardId> = lifted.into_iter().filter(|c| shot.moved.contains(c)).collect();
                let shift = (at.0 - src.0, at.1 - src.1);
                for lay in self.lay_pile(shot.from, &lifted) {
                    cards.push(Lay { center: (lay.center.0 + shift.0, lay.center.1 + shift.1), ..lay });
                }
                hand = Some((at, edge));
            } else {
                cards = self.lay_table(&shot.after, &[]);
                hand = Some((lerp(dst, edge, ease((t - REACH_MS - CARRY_MS) as f32 / LEAVE_MS as f32)), edge));
            }
        } else {
            cards = self.lay_table(&shot.after, &[]);
        }
        let mut frame = self.lighted(ms)?;
        for lay in &cards {
            self.draw_card(&mut frame, lay)?;
        }
        if let Some((palm, edge)) = hand {
            self.draw_hand(&mut frame, palm, edge)?;
        }
        self.noise(&mut frame, ms)?;
        Ok(frame)
    }

    /// Every pile of a table, leaving out the cards `lifted`.
    fn lay_table(&mut self, piles: &Piles, lifted: &[CardId]) -> Vec<Lay> {
        let mut cards = Vec::new();
        for (place, pile) in piles {
            let keep: Vec<CardId> = pile.iter().copied().filter(|c| !lifted.contains(c)).collect();
            cards.extend(self.lay_pile(*place, &keep));
        }
        cards
    }

    /// The last few cards of a pile (only those can show), each at its own offset and turn.
    fn lay_pile(&mut self, place: Place, pile: &[CardId]) -> Vec<Lay> {
        let center = self.table.at(place);
        let d = self.table.diameter;
        let seed = self.seed;
        pile.iter()
            .skip(pile.len().saturating_sub(4))
            .map(|&card| {
                let (dx, dy, turn) = *self.lie.entry(card).or_insert_with(|| {
                    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (u64::from(card) << 20));
                    let a: f32 = rng.random_range(0.0..std::f32::consts::TAU);
                    let r = rng.random_range(0.02..0.09) * d;
                    (r * a.cos(), r * a.sin(), rng.random_range(0.0..360.0))
                });
                Lay { card, center: (center.0 + dx, center.1 + dy), turn }
            })
            .collect()
    }

    fn sprite(&mut self, card: CardId) -> opencv::Result<&Mat> {
        if !self.sprites.contains_key(&card) {
            let d = self.table.diameter.round() as u32;
            let (rgba, _) =
                render_card(self.deck, card, d).map_err(|e| opencv::Error::new(core::StsError, e.to_string()))?;
            self.sprites.insert(card, rgba_mat(&rgba)?);
        }
        Ok(&self.sprites[&card])
    }

    /// A card turned and laid on the frame with a soft shadow.
    fn draw_card(&mut self, frame: &mut Mat, lay: &Lay) -> opencv::Result<()> {
        let sprite = self.sprite(lay.card)?.clone();
        let side = sprite.cols();
        let centre = core::Point2f::new(side as f32 / 2.0, side as f32 / 2.0);
        let rotation = imgproc::get_rotation_matrix_2d(centre, f64::from(lay.turn), 1.0)?;
        let mut turned = Mat::default();
        imgproc::warp_affine(
            &sprite,
            &mut turned,
            &rotation,
            Size::new(side, side),
            imgproc::INTER_LINEAR,
            core::BORDER_CONSTANT,
            Scalar::all(0.0),
        )?;
        let x0 = (lay.center.0 - side as f32 / 2.0).round() as i32;
        let y0 = (lay.center.1 - side as f32 / 2.0).round() as i32;
        let r = side as f32 / 2.0;
        let shadow = Point::new((lay.center.0 + 0.03 * r).round() as i32, (lay.center.1 + 0.05 * r).round() as i32);
        blend_circle(frame, shadow, (r * 1.01) as i32, Scalar::all(0.0), 0.3)?;
        blend(frame, &turned, x0, y0)
    }

    fn draw_hand(&self, frame: &mut Mat, palm: (f32, f32), edge: (f32, f32)) -> opencv::Result<()> {
        let d = self.table.diameter;
        let p = Point::new(palm.0 as i32, palm.1 as i32);
        let e = Point::new(edge.0 as i32, edge.1 as i32);
        imgproc::line(frame, e, p, self.skin, (0.45 * d) as i32, imgproc::LINE_AA, 0)?;
        let (dx, dy) = (palm.0 - edge.0, palm.1 - edge.1);
        let n = dx.hypot(dy).max(1.0);
        // Fingers reach a little past the palm, over the card's near half.
        for k in -2..=2 {
            let side = (-dy / n * k as f32 * 0.09 * d, dx / n * k as f32 * 0.09 * d);
            let from = Point::new((palm.0 + side.0) as i32, (palm.1 + side.1) as i32);
            let tip = (palm.0 + side.0 + dx / n * 0.3 * d, palm.1 + side.1 + dy / n * 0.3 * d);
            imgproc::line(
                frame,
                from,
                Point::new(tip.0 as i32, tip.1 as i32),
                self.skin,
                (0.07 * d) as i32,
                imgproc::LINE_AA,
                0,
            )?;
        }
        imgproc::circle(frame, p, (0.25 * d) as i32, self.skin, -1, imgproc::LINE_AA, 0)?;
        Ok(())
    }

    /// The table under a light that drifts slowly.
    fn lighted(&self, ms: u64) -> opencv::Result<Mat> {
        let t = ms as f64 / 1000.0;
        let gain = 1.0 + 0.06 * (t * 0.4 + self.seed as f64).sin();
        let mut out = Mat::default();
        self.background.convert_to(&mut out, -1, gain, 0.0)?;
        Ok(out)
    }

    fn noise(&self, frame: &mut Mat, ms: u64) -> opencv::Result<()> {
        let mut noise = Mat::new_size_with_default(frame.size()?, core::CV_16SC3, Scalar::all(0.0))?;
        let mut rng = core::RNG::new(self.seed ^ ms)?;
        rng.fill(&mut noise, core::RNG_NORMAL, &Scalar::all(0.0), &Scalar::all(4.0), false)?;
        let mut blurred = Mat::default();
        imgproc::gaussian_blur_def(frame, &mut blurred, Size::new(3, 3), 0.8)?;
        core::add(&blurred, &noise, frame, &core::no_array(), core::CV_8UC3)
    }
}

fn ease(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn lerp(a: (f32, f32), b: (f32, f32), t: f32) -> (f32, f32) {
    (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
}

/// A table cloth: a colour, a weave of fine noise, and light falling off towards the corners.
fn background(size: (i32, i32), rng: &mut ChaCha8Rng) -> opencv::Result<Mat> {
    let colours =
        [(40.0, 95.0, 45.0), (120.0, 80.0, 50.0), (60.0, 60.0, 70.0), (150.0, 140.0, 120.0), (30.0, 50.0, 110.0)];
    let (r, g, b) = colours[rng.random_range(0..colours.len())];
    let (w, h) = size;
    let mut out = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, Scalar::new(b, g, r, 0.0))?;
    let mut weave = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, Scalar::all(0.0))?;
    core::RNG::new(rng.random())?.fill(&mut weave, core::RNG_NORMAL, &Scalar::all(0.0), &Scalar::all(6.0), false)?;
    let mut plain = Mat::default();
    core::add(&out, &weave, &mut plain, &core::no_array(), -1)?;
    let (cx, cy) = (rng.random_range(0.3..0.7) * w as f32, rng.random_range(0.3..0.7) * h as f32);
    let reach = (w as f32).hypot(h as f32);
    for y in 0..h {
        let row = plain.at_row::<core::Vec3b>(y)?.to_vec();
        let dst = out.at_row_mut::<core::Vec3b>(y)?;
        for (x, px) in row.iter().enumerate() {
            let fall = 1.0 - 0.35 * ((x as f32 - cx).hypot(y as f32 - cy) / reach).powi(2) * 2.0;
            dst[x] = core::Vec3b::from([0, 1, 2].map(|c| (f32::from(px[c]) * fall).clamp(0.0, 255.0) as u8));
        }
    }
    Ok(out)
}

/// An RGBA image as a BGRA `Mat`.
fn rgba_mat(img: &image::RgbaImage) -> opencv::Result<Mat> {
    let (w, h) = img.dimensions();
    let mut mat = Mat::new_rows_cols_with_default(h as i32, w as i32, core::CV_8UC4, Scalar::all(0.0))?;
    let dst = mat.data_bytes_mut()?;
    for (i, p) in img.pixels().enumerate() {
        dst[i * 4..i * 4 + 4].copy_from_slice(&[p[2], p[1], p[0], p[3]]);
    }
    Ok(mat)
}

/// Lays a BGRA sprite on a BGR frame at (x0, y0), by its alpha, clipped to the frame.
fn blend(frame: &mut Mat, sprite: &Mat, x0: i32, y0: i32) -> opencv::Result<()> {
    let (fw, fh) = (frame.cols(), frame.rows());
    let (sw, sh) = (sprite.cols(), sprite.rows());
    for sy in 0..sh {
        let y = y0 + sy;
        if y < 0 || y >= fh {
            continue;
        }
        let src = sprite.at_row::<core::Vec4b>(sy)?;
        let dst = frame.at_row_mut::<core::Vec3b>(y)?;
        for sx in 0..sw {
            let x = x0 + sx;
            if x < 0 || x >= fw {
                continue;
            }
            let s = src[sx as usize];
            let a = u32::from(s[3]);
            if a == 0 {
                continue;
            }
            let d = &mut dst[x as usize];
            for c in 0..3 {
                d[c] = ((u32::from(s[c]) * a + u32::from(d[c]) * (255 - a)) / 255) as u8;
            }
        }
    }
    Ok(())
}

/// Darkens (or tints) a disc of the frame by `alpha`.
fn blend_circle(frame: &mut Mat, center: Point, radius: i32, colour: Scalar, alpha: f64) -> opencv::Result<()> {
    let bounds = Rect::new(center.x - radius, center.y - radius, 2 * radius + 1, 2 * radius + 1)
        & Rect::new(0, 0, frame.cols(), frame.rows());
    if bounds.width <= 0 || bounds.height <= 0 {
        return Ok(());
    }
    let mut roi = Mat::roi_mut(frame, bounds)?;
    let mut layer = roi.try_clone()?;
    let local = Point::new(center.x - bounds.x, center.y - bounds.y);
    imgproc::circle(&mut layer, local, radius, colour, -1, imgproc::LINE_AA, 0)?;
    let original = roi.try_clone()?;
    core::add_weighted(&original, 1.0 - alpha, &layer, alpha, 0.0, &mut roi, -1)
}

/// Renders every game of a replayed match to `out` (one video per game: `out` itself for a
/// one-game match, else `STEM-N.avi`), with `STEM.claims.txt` and `STEM.truth.jsonl` beside each.
pub fn write_films(
    replay: &Replay,
    players: &[String],
    deck: &PictureDeck,
    options: &MatchOptions,
    out: &Path,
) -> Result<Vec<std::path::PathBuf>, String> {
    let films = films(replay, players);
    let mut written = Vec::new();
    for (k, film) in films.iter().enumerate() {
        let path = if films.len() == 1 {
            out.to_path_buf()
        } else {
            let stem = out.file_stem().map_or_else(|| "match".into(), |s| s.to_string_lossy().into_owned());
            out.with_file_name(format!("{stem}-{}.avi", k + 1))
        };
        write_film(film, deck, options, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn write_film(film: &GameFilm, deck: &PictureDeck, options: &MatchOptions, path: &Path) -> Result<(), String> {
    use opencv::videoio::{VideoWriter, VideoWriterTrait};
    let size = Size::new(options.size.0, options.size.1);
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').map_err(|e| e.to_string())?;
    let mut writer = VideoWriter::new(path.display().to_string().as_str(), fourcc, options.fps, size, true)
        .map_err(|e| e.to_string())?;
    if !writer.is_opened().unwrap_or(false) {
        return Err("cannot write the video".into());
    }
    let mut renderer = FilmRenderer::new(film, deck, options).map_err(|e| e.to_string())?;
    let frames = (renderer.duration_ms() as f64 * options.fps / 1000.0).ceil() as u64;
    for k in 0..frames {
        let ms = (k as f64 * 1000.0 / options.fps).round() as u64;
        let frame = renderer.frame(ms).map_err(|e| e.to_string())?;
        writer.write(&frame).map_err(|e| e.to_string())?;
    }
    writer.release().map_err(|e| e.to_string())?;
    let claims: String = film.claims.iter().map(|c| c.line() + "\n").collect();
    let truth: String = film
        .claims
        .iter()
        .map(|c| {
            serde_json::json!({"ms": c.ms, "seat": c.seat, "called": c.called, "outcome": c.outcome}).to_string() + "\n"
        })
        .collect();
    let beside = |suffix: &str| {
        let stem = path.file_stem().map_or_else(|| "match".into(), |s| s.to_string_lossy().into_owned());
        path.with_file_name(format!("{stem}.{suffix}"))
    };
    let header = format!("# {} with {} players: TIME SEAT SYMBOL [> TARGET], seats from 1\n", film.kind, film.seats);
    std::fs::write(beside("claims.txt"), header + &claims).map_err(|e| e.to_string())?;
    std::fs::write(beside("truth.jsonl"), truth).map_err(|e| e.to_string())?;
    Ok(())
}
