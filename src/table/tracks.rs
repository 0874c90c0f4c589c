//! Cards followed one by one over frames, each settling where its own part of the picture is
//! quiet: a card away from the hands settles while hands work elsewhere, a card under a hand is
//! covered (kept where it lay, neither gone nor moved), and a card is named only once the
//! readings of many frames agree, weighed by how sure each reading was and how large the card
//! was. This is the settled view of a table without a layout (cards in image pixels): `track`
//! reports its changes, and the window marks its cards.

use std::collections::VecDeque;

use opencv::core::Mat;
use opencv::prelude::MatTraitConst;

use crate::cards::Card;
use crate::geometry::{Pt, quad_contains};
use crate::vision::activity::{ActivityMap, Look};
use crate::vision::cards::{CardDetection, Face as SeenFace, readers::witness};

use super::settle::{Change, ChangeKind, Place};
use super::view::{CardView, Face, TableView};

/// How the tracker judges sightings.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackConfig {
    /// Quiet sightings in a row, in one place, before a card settles there (appears, moves,
    /// turns).
    pub quiet_frames: usize,
    /// Quiet frames in which neither the reader nor the card's look finds a settled card before
    /// it has left.
    pub missing_frames: usize,
    /// Readings of one card (frames, or photos) before it is named.
    pub min_readings: u32,
    /// Summed weight of those readings before it is named (a sure reading of a card
    /// `FULL_WEIGHT_PX` long or larger weighs about 1).
    pub min_weight: f32,
    /// Quiet readings of another card than its name, in a row, after which a named card is
    /// unnamed (and after twice as many, taken for a new card laid where it lay).
    pub challenge: usize,
    /// Each frame is a photo of its own (a folder of photos a second apart).
    pub stills: bool,
    /// Every how many frames of the source the cards are read (the tracker is given only
    /// those): a camera's 30 frames a second are more than a hand moves a card in, and reading
    /// every one would not keep up on one core.
    pub stride: u64,
}

/// Weight that names a card from one photo: a reading at the reader's own bar (0.7) of a card
/// `FULL_WEIGHT_PX` long or larger. The photos come a second apart, and a card dealt is in
/// the first photo that shows it, read as the reader reads any photo (on the blackjack webcam's
/// 30 photos, each read alone, no name was false); a smaller card, read less surely, waits for
/// a second photo to agree (a 57 px phone card's reading weighs at most 0.63).
const ONE_PHOTO: f32 = 0.7;

/// Times a second the cards of a video are read.
const READS_A_SECOND: f64 = 10.0;

impl TrackConfig {
    /// Cards read about `READS_A_SECOND` times a second, settling after three quiet readings in
    /// a row; for photos, each photo read and settling alone.
    pub fn for_fps(fps: f64, stills: bool) -> TrackConfig {
        if stills {
            return TrackConfig {
                quiet_frames: 1,
                missing_frames: 1,
                min_readings: 1,
                min_weight: ONE_PHOTO,
                challenge: 1,
                stills,
                stride: 1,
            };
        }
        let fps = if fps.is_finite() && fps > 0.0 { fps } else { 30.0 };
        let stride = (fps / READS_A_SECOND).round().max(1.0) as u64;
        let quiet_frames = 3;
        TrackConfig {
            quiet_frames,
            missing_frames: quiet_frames,
            min_readings: quiet_frames as u32,
            min_weight: 1.0,
            challenge: quiet_frames,
            stills,
            stride,
        }
    }

    /// The rate at which the tracker is given frames.
    pub fn read_rate(&self, fps: f64) -> f64 {
        fps / self.stride as f64
    }

    /// Whether the frame numbered `index` (from 0) is read.
    pub fn reads(&self, index: u64) -> bool {
        index.is_multiple_of(self.stride)
    }
}

/// A card within this many card lengths of a track's place is that track's card.
const MATCH_LENGTHS: f64 = 0.45;
/// The two index corners of a card lie about a card's length apart, diagonally.
const OTHER_CORNER: f64 = 1.15;
/// An index this many card lengths or nearer a corner of an outline is printed in that corner.
const CORNER_LENGTHS: f64 = 0.3;
/// A card that strays less than this many card lengths from where it lay still is lying still.
const JITTER_LENGTHS: f64 = 0.08;
/// A settled card whose still place is this many card lengths from the shown one has moved.
const MOVE_LENGTHS: f64 = 0.2;
/// Share of a card's cells that changed lately above which its part of the picture is busy.
const BUSY_SHARE: f64 = 0.08;
/// Share of a card's cells coloured like a hand above which a hand lies over it.
const SKIN_SHARE: f64 = 0.3;
/// Share of a card's cells coloured like a hand below which a still picture there is not
/// taken for a resting hand alone: a court card's figure is partly skin-coloured (a king laid
/// on a patience ace measured 0.35 to 0.43), a hand resting over a card most of it (0.5 to 0.9).
const RESTING_HAND: f64 = 0.5;
/// Reading confidence below which a reading is not counted at all.
const MIN_CONFIDENCE: f32 = 0.5;
/// A card this many pixels long or longer gives its readings full weight: its index is then
/// about 12 pixels tall, read as surely as a larger one (a sure reading of a 90 to 110 px
/// webcam card names it from one photo; one of a 55 px phone-video card weighs 0.6).
const FULL_WEIGHT_PX: f64 = 90.0;

/// One card seen in one frame, in image pixels.
#[derive(Clone, Debug)]
struct Seen {
    centre: Pt,
    /// The outline, or a box around the index read when no outline was found.
    region: [Pt; 4],
    outline: bool,
    face: Face,
    reading: Option<(Card, f32)>,
    /// The card's length in pixels, if its outline was found.
    length: Option<f64>,
}

impl Seen {
    fn of(d: &CardDetection, scale: f64) -> Option<Seen> {
        let face = Face::from(d.face);
        let reading = d.card.filter(|_| face == Face::Up && d.confidence >= MIN_CONFIDENCE).map(|c| (c, d.confidence));
        if let Some(q) = d.quad {
            let region = q.map(|[x, y]| Pt::new(f64::from(x), f64::from(y)));
            let side = |a: usize, b: usize| region[a].distance(region[b]);
            let length = ((side(0, 1) + side(2, 3)) / 2.0).max((side(1, 2) + side(3, 0)) / 2.0);
            return Some(Seen { centre: centre(&region), region, outline: true, face, reading, length: Some(length) });
        }
        let [x, y, w, h] = d.index_boxes.first()?.map(f64::from);
        let c = Pt::new(x + w / 2.0, y + h / 2.0);
        let r = scale * 0.25;
        let region = [
            Pt::new(c.x - r, c.y - r),
            Pt::new(c.x + r, c.y - r),
            Pt::new(c.x + r, c.y + r),
            Pt::new(c.x - r, c.y + r),
        ];
        Some(Seen { centre: c, region, outline: false, face, reading, length: None })
    }
}

/// Whether an outline has a card's proportions as seen from above (`witness::proportion`), not
/// those of two cards overlapping side by side, which the reader may take for one. Stricter than
/// the witness's bar for a card seen at a slant: at 0.86 the still poker table lost 9 of its 132
/// labelled names and reported a change while nothing moved.
fn card_shaped(q: &[Pt; 4]) -> bool {
    (0.6..=0.82).contains(&witness::proportion(&q.map(|p| [p.x as f32, p.y as f32])))
}

/// Whether `p`, an index's centre, lies at one of the outline's corners, where a card's index
/// is printed (about a seventh of a card's length in from the corner).
fn at_a_corner(q: &[Pt; 4], p: Pt, scale: f64) -> bool {
    q.iter().any(|c| c.distance(p) < CORNER_LENGTHS * scale)
}

fn centre(q: &[Pt; 4]) -> Pt {
    Pt::new(q.iter().map(|p| p.x).sum::<f64>() / 4.0, q.iter().map(|p| p.y).sum::<f64>() / 4.0)
}

/// The weight of the readings for one card.
#[derive(Clone, Copy, Debug)]
struct Vote {
    card: Card,
    weight: f32,
    count: u32,
}

/// What the view last showed of a track.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shown {
    centre: Pt,
    face: Face,
    card: Option<Card>,
    /// The centre is an outline's (not an index's, a third of a card off).
    outlined: bool,
}

/// One physical card followed over frames.
#[derive(Clone, Debug)]
struct CardTrack {
    id: u64,
    region: [Pt; 4],
    outline: bool,
    /// Where it has lain still, and for how many quiet sightings in a row.
    still_at: Pt,
    quiet: usize,
    votes: Vec<Vote>,
    /// The last quiet sightings' faces, and whether each was read.
    faces: VecDeque<(Face, bool)>,
    look: Option<Look>,
    missing: usize,
    covered: bool,
    shown: Option<Shown>,
    /// Another card read where this one lies, and how many quiet sightings in a row.
    challenger: Option<(Card, usize)>,
    /// Its place is taken by this track (a card laid over it).
    under: Option<u64>,
    /// A hand was over it since it last lay still: another card may lie there now.
    disturbed: bool,
    /// It looked otherwise once the hand went: no name until a reading agrees with it again.
    unconfirmed: bool,
    /// Unread sightings in a row whose centre contradicts its name.
    doubts: usize,
}

impl CardTrack {
    /// The card most of the readings' weight names, if any.
    fn leading(&self) -> Option<Card> {
        self.votes.iter().max_by(|a, b| a.weight.total_cmp(&b.weight)).map(|v| v.card)
    }

    /// Whether `s`, an index read without its outline `d` pixels from this track (itself
    /// followed by its indices alone), is the card's other corner: read as the card it is
    /// read as, about a card's length away.
    fn other_corner(&self, s: &Seen, d: f64, scale: f64) -> bool {
        !s.outline
            && !self.outline
            && s.reading.is_some_and(|(c, _)| Some(c) == self.leading())
            && d < OTHER_CORNER * scale
    }

    fn vote(&mut self, card: Card, weight: f32) {
        match self.votes.iter_mut().find(|v| v.card == card) {
            Some(v) => {
                v.weight += weight;
                v.count += 1;
            }
            None => self.votes.push(Vote { card, weight, count: 1 }),
        }
    }

    /// The card the readings agree on: enough of them, heavy enough, and at least four fifths
    /// of all the weight (a name shown is kept while it holds half of it); none while another
    /// card is being read where it lies.
    fn name(&self, config: &TrackConfig) -> Option<(Card, f32)> {
        if self.unconfirmed || self.challenger.is_some_and(|(_, n)| n >= config.challenge) {
            return None;
        }
        let total: f32 = self.votes.iter().map(|v| v.weight).sum();
        let top = self.votes.iter().max_by(|a, b| a.weight.total_cmp(&b.weight))?;
        let kept = self.shown.is_some_and(|s| s.card == Some(top.card));
        let share = if kept { 0.5 } else { 0.8 };
        (top.count >= config.min_readings && top.weight >= config.min_weight && top.weight >= share * total)
            .then_some((top.card, top.weight))
    }

    /// Face up when any of the last quiet sightings was read (a reading is a face), or when most
    /// of them were called face up; face down when most were called down and none was read.
    fn face(&self, config: &TrackConfig) -> Face {
        let recent: Vec<&(Face, bool)> = self.faces.iter().rev().take(config.quiet_frames).collect();
        if recent.iter().any(|(_, read)| *read) {
            return Face::Up;
        }
        let down = recent.iter().filter(|(f, _)| *f == Face::Down).count();
        if down * 2 > recent.len() { Face::Down } else { Face::Up }
    }
}

/// Follows the cards of a table in image pixels.
pub struct CardTracker {
    config: TrackConfig,
    activity: ActivityMap,
    tracks: Vec<CardTrack>,
    next_id: u64,
    /// A card's length in pixels, learnt from the outlines found.
    scale: Option<f64>,
    /// The detections pushed are those of an earlier frame with the same picture: the cards are
    /// sighted where they lie, but their readings are no new evidence (`push_read`).
    repeated: bool,
}

impl CardTracker {
    /// A tracker for a source of `fps` frames a second: every frame is given to `observe` or,
    /// where `config.reads` it, to `push` with the cards read in it.
    pub fn new(config: TrackConfig, fps: f64) -> CardTracker {
        let activity = ActivityMap::new(fps, config.stills);
        CardTracker { config, activity, tracks: Vec::new(), next_id: 1, scale: None, repeated: false }
    }

    pub fn config(&self) -> &TrackConfig {
        &self.config
    }

    /// Where the picture is busy, as measured with the last frame.
    pub fn activity(&self) -> &ActivityMap {
        &self.activity
    }

    /// Takes a frame whose cards are not read: where the picture moves.
    pub fn observe(&mut self, frame: &Mat) -> opencv::Result<()> {
        self.activity.measure(frame)?;
        self.follow_camera();
        Ok(())
    }

    /// The camera drifted: every card seen moves with the picture (no card moved on the table).
    fn follow_camera(&mut self) {
        let d = self.activity.shift();
        if d.x == 0.0 && d.y == 0.0 {
            return;
        }
        let by = |p: &mut Pt| *p = Pt::new(p.x + d.x, p.y + d.y);
        for t in &mut self.tracks {
            t.region.iter_mut().for_each(by);
            by(&mut t.still_at);
            if let Some(s) = &mut t.shown {
                by(&mut s.centre);
            }
        }
    }

    /// `push`, where `fresh` tells whether the detections were read in this frame. Not fresh,
    /// they are those of the last frame read, whose picture this one has (`ReadingReuse`): each
    /// card is sighted again where it lies and its stillness counted, but its reading is not
    /// counted again, as one reading repeated is no second witness.
    pub fn push_read(&mut self, frame: &Mat, detections: &[CardDetection], fresh: bool) -> opencv::Result<Vec<Change>> {
        self.repeated = !fresh;
        let changes = self.push(frame, detections);
        self.repeated = false;
        changes
    }

    /// Takes one frame and the reader's detections in it; returns what changed in the view.
    pub fn push(&mut self, frame: &Mat, detections: &[CardDetection]) -> opencv::Result<Vec<Change>> {
        self.activity.measure(frame)?;
        self.follow_camera();
        let fallback = f64::from(frame.cols().max(frame.rows())) / 8.0;
        let scale = self.scale.unwrap_or(fallback);
        let mut seen: Vec<Seen> = detections.iter().filter_map(|d| Seen::of(d, scale)).collect();
        // An index read apart inside another card's outline is that card's own corner (its
        // outline's reading stands) or a neighbour's half-hidden one: no card of its own. (Not
        // so in an outline of two cards overlapping side by side, taken for one.)
        let outlines: Vec<[Pt; 4]> =
            seen.iter().filter(|s| s.outline && card_shaped(&s.region)).map(|s| s.region).collect();
        seen.retain(|s| s.outline || !outlines.iter().any(|o| quad_contains(o, s.centre)));
        self.learn_scale(&seen);
        let scale = self.scale.unwrap_or(fallback);
        let matched = self.match_seen(&seen, scale);
        let mut fresh = Vec::new();
        for (s, m) in seen.iter().zip(&matched) {
            match m {
                Some(t) => self.sighted(*t, s, frame, scale)?,
                None => fresh.push(s.clone()),
            }
        }
        let sighted: Vec<bool> = (0..self.tracks.len()).map(|t| matched.contains(&Some(t))).collect();
        let mut changes = Vec::new();
        for (t, was_seen) in sighted.into_iter().enumerate().rev() {
            if !was_seen {
                self.unseen(t, frame, &outlines, &mut changes)?;
            }
        }
        for s in fresh {
            self.start(s, frame, scale)?;
        }
        self.split_challenged(&mut changes);
        self.settle(scale, &mut changes);
        Ok(changes)
    }

    /// The settled view: every card shown, covered ones included, loose in image pixels, in
    /// the order the tracks began.
    pub fn view(&self) -> TableView {
        TableView { loose: self.shown().map(|(_, c)| c).collect(), ..TableView::default() }
    }

    /// Every card shown (covered ones included) as the reader would give it: its outline (or
    /// the box around its index), face, and name from many frames, sure.
    pub fn shown_cards(&self) -> Vec<CardDetection> {
        self.tracks
            .iter()
            .filter(|t| t.under.is_none())
            .filter_map(|t| {
                let s = t.shown?;
                let face = match s.face {
                    Face::Up => SeenFace::Up,
                    Face::Down => SeenFace::Down,
                };
                let quad = t.region.map(|p| [p.x as f32, p.y as f32]);
                Some(CardDetection { card: s.card, face, confidence: 1.0, quad: Some(quad), index_boxes: Vec::new() })
            })
            .collect()
    }

    /// The shown tracks with their views, in order.
    fn shown(&self) -> impl Iterator<Item = (u64, CardView)> + '_ {
        self.tracks.iter().filter_map(|t| {
            let s = t.shown?;
            Some((t.id, CardView { face: s.face, card: s.card, centre: s.centre }))
        })
    }

    /// Learns a card's length from the outlines of this frame (their median), slowly.
    fn learn_scale(&mut self, seen: &[Seen]) {
        let mut lengths: Vec<f64> = seen.iter().filter_map(|s| s.length).collect();
        if lengths.is_empty() {
            return;
        }
        lengths.sort_by(f64::total_cmp);
        let median = lengths[lengths.len() / 2];
        self.scale = Some(match self.scale {
            Some(old) => old * 0.9 + median * 0.1,
            None => median,
        });
    }

    /// Each sighting's track: nearest first, within `MATCH_LENGTHS` of a card's length, or
    /// an index read inside a track's outline. Cards lying under another are not matched.
    fn match_seen(&self, seen: &[Seen], scale: f64) -> Vec<Option<usize>> {
        let mut pairs = Vec::new();
        for (i, s) in seen.iter().enumerate() {
            for (t, track) in self.tracks.iter().enumerate() {
                if track.under.is_some() {
                    continue;
                }
                // A card's index lies at a corner of its outline: an index elsewhere over an
                // outline is another card's (one taken off it, or lying on it).
                let apart = match (s.outline, track.outline) {
                    (true, false) => !at_a_corner(&s.region, track.still_at, scale),
                    (false, true) => !at_a_corner(&track.region, s.centre, scale),
                    _ => false,
                };
                if apart {
                    continue;
                }
                let d = s.centre.distance(centre(&track.region));
                // An index inside a card's outline is that card's, either way round.
                let inside = (!s.outline && track.outline && quad_contains(&track.region, s.centre))
                    || (s.outline && !track.outline && quad_contains(&s.region, track.still_at));
                if d < MATCH_LENGTHS * scale || inside {
                    pairs.push((if inside { d.min(MATCH_LENGTHS * scale * 0.5) } else { d }, i, t));
                } else if track.other_corner(s, d, scale) {
                    pairs.push((d * 0.5, i, t));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut out = vec![None; seen.len()];
        let mut taken = vec![false; self.tracks.len()];
        for (_, i, t) in pairs {
            if out[i].is_none() && !taken[t] {
                out[i] = Some(t);
                taken[t] = true;
            }
        }
        out
    }

    /// Whether `region`'s part of the picture is busy: changed lately, or under a hand.
    fn busy(&self, region: &[Pt; 4]) -> bool {
        self.activity.busy_share(region) > BUSY_SHARE || self.activity.skin_share(region) > SKIN_SHARE
    }

    /// Whether `region`'s part of the picture changed lately (a hand over a card that is still
    /// read does not stop it settling).
    fn moving(&self, region: &[Pt; 4]) -> bool {
        self.activity.busy_share(region) > BUSY_SHARE
    }

    fn sighted(&mut self, t: usize, s: &Seen, frame: &Mat, scale: f64) -> opencv::Result<()> {
        let moving = self.moving(&s.region);
        let config = self.config.clone();
        let repeated = self.repeated;
        let track = &mut self.tracks[t];
        track.missing = 0;
        track.covered = false;
        // An index read inside the outline known is the same card lying where it lay.
        let centre_now = if !s.outline && track.outline { track.still_at } else { s.centre };
        if s.outline || !track.outline {
            track.region = s.region;
            track.outline = s.outline;
        }
        // A card read again where it lay still, as the card its readings name, lies still
        // however busy its part of the picture: a hand-held camera's drift over sharp ink, or a
        // hand beside it, changes cells there while the card stays put.
        let steady = track.quiet > 0
            && centre_now.distance(track.still_at) < JITTER_LENGTHS * scale
            && s.reading.is_some_and(|(c, _)| track.leading().is_none_or(|l| l == c));
        if moving && !steady {
            track.quiet = 0;
            track.disturbed = true;
            if track.shown.is_none() {
                track.votes.clear();
            }
            track.still_at = centre_now;
            return Ok(());
        }
        let d = centre_now.distance(track.still_at);
        if track.quiet > 0 && (d < JITTER_LENGTHS * scale || track.other_corner(s, d, scale)) {
            let k = track.quiet as f64;
            track.still_at = Pt::new(
                (track.still_at.x * k + centre_now.x) / (k + 1.0),
                (track.still_at.y * k + centre_now.y) / (k + 1.0),
            );
            track.quiet += 1;
        } else {
            track.still_at = centre_now;
            track.quiet = 1;
            // A card not settled yet is named from the readings of the place it settles in.
            if track.shown.is_none() {
                track.votes.clear();
            }
        }
        track.faces.push_back((s.face, s.reading.is_some()));
        while track.faces.len() > config.quiet_frames.max(1) * 3 {
            track.faces.pop_front();
        }
        // An outline the reader left unread where a pip card is named: its centre's colour must
        // not contradict the name (a hand may have put another card there between two photos).
        if !repeated
            && s.reading.is_none()
            && s.outline
            && s.face == Face::Up
            && let Some(name) = track.shown.and_then(|sh| sh.card).filter(|c| !c.rank.is_court())
        {
            let quad = s.region.map(|p| [p.x as f32, p.y as f32]);
            if witness::colour_agrees(name, &witness::centre_of(frame, &quad)?) {
                track.doubts = 0;
            } else {
                track.doubts += 1;
                if track.doubts >= config.challenge {
                    track.unconfirmed = true;
                }
            }
        }
        if let Some((card, confidence)) = s.reading.filter(|_| !repeated) {
            let size = s.length.unwrap_or(scale);
            let weight = confidence * (size / FULL_WEIGHT_PX).min(1.0) as f32;
            // While a challenge stands the name is withheld, but the card it challenges is
            // still the one the readings agreed on.
            let named = track.shown.and_then(|sh| sh.card).or_else(|| track.challenger.and(track.leading()));
            // A card lying still, unchanged to the eye since no hand came near, is read again
            // and again: another reading there is a misreading, weighed with the rest. Only a
            // photo (whose table may have changed since the last) or a card that looks otherwise
            // since a hand went may be another card: its readings challenge the name.
            let may_be_another = config.stills || track.unconfirmed;
            match named {
                Some(name) if name != card && may_be_another => {
                    let n = match track.challenger {
                        Some((c, n)) if c == card => n + 1,
                        _ => 1,
                    };
                    track.challenger = Some((card, n));
                }
                _ => {
                    track.challenger = None;
                    track.vote(card, weight);
                    if track.leading() == Some(card) {
                        track.unconfirmed = false;
                        track.doubts = 0;
                    }
                }
            }
        }
        if track.quiet >= config.quiet_frames {
            let look = Look::of(frame, &track.region)?;
            // Still again after a hand was over it, and looking otherwise: a hand may have
            // swapped the card, so the name waits for a fresh reading to agree with it (this
            // sighting's may be one).
            let agrees = !repeated && s.reading.is_some_and(|(c, _)| track.leading() == Some(c));
            if track.disturbed && !agrees && track.look.as_ref().is_some_and(|was| !was.same(&look)) {
                track.unconfirmed = true;
            }
            track.disturbed = false;
            track.look = Some(look);
        }
        Ok(())
    }

    /// A track no card of this frame matched: covered where the picture is busy, still there
    /// where its look is unchanged, else missing (and gone after `missing_frames`).
    fn unseen(&mut self, t: usize, frame: &Mat, outlines: &[[Pt; 4]], changes: &mut Vec<Change>) -> opencv::Result<()> {
        let region = self.tracks[t].region;
        if self.tracks[t].under.is_some() {
            return Ok(());
        }
        // An index followed without its outline that lies inside a card's outline found now was
        // a corner of that card (or of one half under it): no card of its own.
        if !self.tracks[t].outline && outlines.iter().any(|o| quad_contains(o, self.tracks[t].still_at)) {
            if self.tracks[t].shown.is_some() {
                changes.push(self.change(t, ChangeKind::Left));
            }
            self.tracks.remove(t);
            return Ok(());
        }
        if self.busy(&region) {
            // Still, little of it like a hand, and looking otherwise: another card may lie there
            // (its figure's colours pass for skin), so the name waits for a reading to agree.
            let still = !self.moving(&region) && self.activity.skin_share(&region) < RESTING_HAND;
            let swapped = still
                && match &self.tracks[t].look {
                    Some(was) => !was.same(&Look::of(frame, &region)?),
                    None => false,
                };
            let track = &mut self.tracks[t];
            // Still and looking as it did: a card whose red pips or figure pass for skin, left
            // unread in this frame, lies where it lay.
            if still && !swapped && track.look.is_some() {
                return Ok(());
            }
            track.quiet = 0;
            track.disturbed = true;
            track.unconfirmed |= swapped && track.shown.is_some();
            if !track.covered && track.shown.is_some() {
                track.covered = true;
                changes.push(self.change(t, ChangeKind::Covered));
            }
            return Ok(());
        }
        let look = match (&self.tracks[t].look, self.tracks[t].shown) {
            (Some(_), Some(_)) => Some(Look::of(frame, &region)?),
            _ => None,
        };
        let track = &mut self.tracks[t];
        if let (Some(was), Some(now)) = (&track.look, &look)
            && was.same(now)
        {
            track.missing = 0;
            return Ok(());
        }
        track.missing += 1;
        // A card followed by its index alone that was under a hand, and whose place now looks
        // otherwise, went with the hand: no outline will be found there to say it stays.
        let limit =
            if track.shown.is_some() && (track.outline || !track.covered) { self.config.missing_frames } else { 1 };
        if track.missing >= limit {
            if track.shown.is_some() {
                changes.push(self.change(t, ChangeKind::Left));
            }
            let id = self.tracks[t].id;
            self.tracks.remove(t);
            // What lay under it shows again.
            for other in &mut self.tracks {
                if other.under == Some(id) {
                    other.under = None;
                    other.missing = 0;
                }
            }
        }
        Ok(())
    }

    fn start(&mut self, s: Seen, frame: &Mat, scale: f64) -> opencv::Result<()> {
        let track = CardTrack {
            id: self.next_id,
            region: s.region,
            outline: s.outline,
            still_at: s.centre,
            quiet: 0,
            votes: Vec::new(),
            faces: VecDeque::new(),
            look: None,
            missing: 0,
            covered: false,
            shown: None,
            challenger: None,
            under: None,
            disturbed: false,
            unconfirmed: false,
            doubts: 0,
        };
        self.next_id += 1;
        self.tracks.push(track);
        let t = self.tracks.len() - 1;
        self.sighted(t, &s, frame, scale)
    }

    /// A named card read as another card, quiet sighting after quiet sighting, is a new card
    /// laid where it lay: the old one is covered, the new one followed from here.
    fn split_challenged(&mut self, changes: &mut Vec<Change>) {
        for t in 0..self.tracks.len() {
            let Some((card, n)) = self.tracks[t].challenger else { continue };
            if n < self.config.challenge * 2 {
                continue;
            }
            let new_id = self.next_id;
            self.next_id += 1;
            let old = &mut self.tracks[t];
            let mut top = old.clone();
            old.challenger = None;
            old.under = Some(new_id);
            old.quiet = 0;
            if old.shown.is_some() {
                changes.push(self.change(t, ChangeKind::Covered));
            }
            top.id = new_id;
            top.votes = vec![Vote { card, weight: 1.0, count: n as u32 }];
            top.challenger = None;
            top.shown = None;
            top.look = None;
            self.tracks.push(top);
        }
    }

    /// Every track quiet long enough in one place takes its place, face and name in the view;
    /// what differs from the view shown is a change. Each card of the deck is named once: of two
    /// tracks read as one card the one read more surely keeps the name.
    fn settle(&mut self, scale: f64, changes: &mut Vec<Change>) {
        let names: Vec<Option<(Card, f32)>> = self.tracks.iter().map(|t| t.name(&self.config)).collect();
        // The track that shows a name keeps it while its own readings hold it; between two
        // new claims the surer wins.
        let holds = |j: usize, card: Card| self.tracks[j].shown.is_some_and(|s| s.card == Some(card));
        let beats = |j: usize, wj: f32, i: usize, wi: f32, card: Card| match (holds(j, card), holds(i, card)) {
            (true, false) => true,
            (false, true) => false,
            _ => wj > wi || (wj == wi && j < i),
        };
        let unique: Vec<Option<Card>> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let (card, weight) = (*n)?;
                let rival = names
                    .iter()
                    .enumerate()
                    .any(|(j, m)| j != i && m.is_some_and(|(c, w)| c == card && beats(j, w, i, weight, card)));
                (!rival).then_some(card)
            })
            .collect();
        for t in 0..self.tracks.len() {
            let track = &self.tracks[t];
            if track.under.is_some() {
                continue;
            }
            let name = unique[t];
            if track.quiet < self.config.quiet_frames {
                // A card not lying still keeps its place and face, but loses a name another
                // track took, a challenge put in doubt, or a look changed under a hand made unsure.
                if let Some(shown) = track.shown
                    && shown.card.is_some()
                    && shown.card != name
                    && name.is_none()
                    && (track.unconfirmed
                        || track.challenger.is_some_and(|(_, n)| n >= self.config.challenge)
                        || names[t].is_some())
                {
                    self.tracks[t].shown = Some(Shown { card: None, ..shown });
                    changes.push(self.change(t, ChangeKind::Named));
                }
                continue;
            }
            let now =
                Shown { centre: track.still_at, face: track.face(&self.config), card: name, outlined: track.outline };
            let Some(was) = track.shown else {
                // An index alone inside a shown card's outline is that card's corner, or a card
                // half under it that the reader cannot tell from it: it waits.
                let inside = |o: &CardTrack| {
                    o.outline
                        && o.shown.is_some()
                        && card_shaped(&o.region)
                        && quad_contains(&o.region, track.still_at)
                        && at_a_corner(&o.region, track.still_at, scale)
                };
                if !track.outline && self.tracks.iter().any(inside) {
                    continue;
                }
                self.tracks[t].shown = Some(now);
                changes.push(self.change(t, ChangeKind::Appeared));
                continue;
            };
            // A card first followed by its index alone, whose outline is found now, lies where it
            // lay: its place is only known better.
            let refined = !was.outlined && track.outline && quad_contains(&track.region, was.centre);
            let moved = now.centre.distance(was.centre) > MOVE_LENGTHS * scale && !refined;
            let centre = if moved || refined { now.centre } else { was.centre };
            // A card turned face down keeps the name it was seen with.
            let card =
                if now.face == Face::Down && was.face == Face::Up && now.card.is_none() { was.card } else { now.card };
            self.tracks[t].shown = Some(Shown {
                centre,
                face: now.face,
                card,
                outlined: if moved || refined { now.outlined } else { was.outlined },
            });
            if moved {
                changes.push(self.change(t, ChangeKind::Moved));
            }
            if now.face != was.face {
                changes.push(self.change(t, ChangeKind::Turned));
            }
            if card != was.card {
                changes.push(self.change(t, ChangeKind::Named));
            }
        }
    }

    /// A change of track `t` as the view now shows it.
    fn change(&self, t: usize, kind: ChangeKind) -> Change {
        let track = &self.tracks[t];
        let shown =
            track.shown.unwrap_or(Shown { centre: track.still_at, face: Face::Up, card: None, outlined: false });
        let index = self.shown().position(|(id, _)| id == track.id).unwrap_or(0);
        Change {
            kind,
            track: track.id,
            place: Place::Loose { index },
            card: CardView { face: shown.face, card: shown.card, centre: shown.centre },
        }
    }
}

#[cfg(test)]
mod tests {
    use opencv::core::{self, Rect, Scalar};
    use opencv::imgproc;

    use super::*;

    const FELT: [f64; 3] = [60.0, 90.0, 30.0];
    const SKIN: [f64; 3] = [150.0, 175.0, 225.0];

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    /// A 1280×720 felt table with a white card (90×130 px) at each of `cards` (top-left corners)
    /// and a hand-coloured block over `hand`.
    fn frame(cards: &[(i32, i32)], hand: Option<Rect>) -> Mat {
        let scalar = |c: [f64; 3]| Scalar::new(c[0], c[1], c[2], 0.0);
        let mut m = Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, scalar(FELT)).unwrap();
        for &(x, y) in cards {
            imgproc::rectangle(&mut m, Rect::new(x, y, 90, 130), scalar([235.0; 3]), -1, imgproc::LINE_8, 0).unwrap();
            let pip = Rect::new(x + 8, y + 8, 14, 24);
            imgproc::rectangle(&mut m, pip, scalar([30.0, 30.0, 200.0]), -1, imgproc::LINE_8, 0).unwrap();
        }
        if let Some(h) = hand {
            imgproc::rectangle(&mut m, h, scalar(SKIN), -1, imgproc::LINE_8, 0).unwrap();
        }
        m
    }

    fn seen(code: Option<&str>, x: i32, y: i32, confidence: f32) -> CardDetection {
        let (x, y) = (x as f32, y as f32);
        CardDetection {
            card: code.map(card),
            face: SeenFace::Up,
            confidence,
            quad: Some([[x, y], [x + 90.0, y], [x + 90.0, y + 130.0], [x, y + 130.0]]),
            index_boxes: Vec::new(),
        }
    }

    fn tracker() -> CardTracker {
        CardTracker::new(TrackConfig { stride: 1, ..TrackConfig::for_fps(10.0, false) }, 10.0)
    }

    /// Feeds the same frame and detections `n` times; returns every change.
    fn feed(t: &mut CardTracker, m: &Mat, d: &[CardDetection], n: usize) -> Vec<Change> {
        (0..n).flat_map(|_| t.push(m, d).unwrap()).collect()
    }

    fn kinds(changes: &[Change]) -> Vec<ChangeKind> {
        changes.iter().map(|c| c.kind).collect()
    }

    #[test]
    fn a_card_settles_named_while_a_hand_moves_elsewhere() {
        let mut t = tracker();
        let mut changes = Vec::new();
        for k in 0..8 {
            // A hand sweeps across the far side of the table the whole time.
            let hand = Rect::new(700 + 40 * (k % 4), 200, 250, 200);
            changes.extend(t.push(&frame(&[(200, 300)], Some(hand)), &[seen(Some("7S"), 200, 300, 0.9)]).unwrap());
        }
        assert_eq!(kinds(&changes), vec![ChangeKind::Appeared]);
        assert_eq!(t.view().loose[0].card, Some(card("7S")));
    }

    #[test]
    fn a_reading_given_again_is_no_second_witness() {
        let mut t = tracker();
        let table = frame(&[(200, 300)], None);
        let read = [seen(Some("9H"), 200, 300, 0.95)];
        let mut changes = t.push(&table, &read).unwrap();
        for _ in 0..20 {
            changes.extend(t.push_read(&table, &read, false).unwrap());
        }
        // Sighted where it lies and settled, but named by one reading only: not named.
        assert_eq!(kinds(&changes), vec![ChangeKind::Appeared]);
        assert_eq!(t.view().loose[0].card, None);
        changes = feed(&mut t, &table, &read, 3);
        assert_eq!(kinds(&changes), vec![ChangeKind::Named]);
        assert_eq!(t.view().loose[0].card, Some(card("9H")));
    }

    #[test]
    fn a_card_under_a_resting_hand_is_covered_and_keeps_its_name() {
        let mut t = tracker();
        let table = frame(&[(200, 300)], None);
        feed(&mut t, &table, &[seen(Some("QD"), 200, 300, 0.9)], 5);
        let hand = frame(&[(200, 300)], Some(Rect::new(170, 280, 160, 180)));
        let changes = feed(&mut t, &hand, &[], 30);
        assert_eq!(kinds(&changes), vec![ChangeKind::Covered], "covered once, never left");
        assert_eq!(t.view().loose[0].card, Some(card("QD")));
        let back = feed(&mut t, &table, &[seen(Some("QD"), 201, 300, 0.9)], 8);
        assert!(back.is_empty(), "the hand went and nothing changed: {back:?}");
    }

    #[test]
    fn a_court_card_laid_over_a_named_card_withholds_its_name() {
        let mut t = tracker();
        let table = frame(&[(200, 300)], None);
        feed(&mut t, &table, &[seen(Some("7S"), 200, 300, 0.9)], 5);
        assert_eq!(t.view().loose[0].card, Some(card("7S")));
        // A king laid on it, unread: its figure's colours pass for skin over a third of it, a
        // dark robe below.
        let mut king = frame(&[(200, 300)], None);
        let figure = Scalar::new(SKIN[0], SKIN[1], SKIN[2], 0.0);
        imgproc::rectangle(&mut king, Rect::new(212, 312, 66, 66), figure, -1, imgproc::LINE_8, 0).unwrap();
        let robe = Scalar::new(140.0, 50.0, 30.0, 0.0);
        imgproc::rectangle(&mut king, Rect::new(212, 378, 66, 40), robe, -1, imgproc::LINE_8, 0).unwrap();
        let changes = feed(&mut t, &king, &[], 12);
        assert_eq!(t.view().loose.len(), 1, "it lies there still: {changes:?}");
        assert_eq!(t.view().loose[0].card, None, "the seven's name stands over a king: {changes:?}");
        // A hand resting over the whole card (most of it skin) keeps the name.
        let mut t = tracker();
        feed(&mut t, &table, &[seen(Some("7S"), 200, 300, 0.9)], 5);
        feed(&mut t, &frame(&[(200, 300)], Some(Rect::new(195, 295, 100, 140))), &[], 12);
        assert_eq!(t.view().loose[0].card, Some(card("7S")));
    }

    #[test]
    fn one_misread_frame_never_names_nor_renames_a_card() {
        let mut t = tracker();
        let m = frame(&[(200, 300)], None);
        let mut changes = Vec::new();
        for k in 0..20 {
            let code = if k % 7 == 3 { "7C" } else { "7S" };
            changes.extend(t.push(&m, &[seen(Some(code), 200, 300, 0.9)]).unwrap());
        }
        assert_eq!(kinds(&changes), vec![ChangeKind::Appeared]);
        assert_eq!(changes[0].card.card, Some(card("7S")));
        // A card read once as the 9H and otherwise never read is not named.
        let mut t = tracker();
        let mut changes = Vec::new();
        for k in 0..20 {
            let code = (k == 2).then_some("9H");
            changes.extend(t.push(&m, &[seen(code, 200, 300, 0.95)]).unwrap());
        }
        assert!(changes.iter().all(|c| c.card.card.is_none()), "{changes:?}");
    }

    #[test]
    fn a_card_taken_away_leaves_and_one_the_reader_misses_stays() {
        let mut t = tracker();
        let both = frame(&[(200, 300), (600, 300)], None);
        let read = [seen(Some("2H"), 200, 300, 0.9), seen(Some("9C"), 600, 300, 0.9)];
        feed(&mut t, &both, &read, 5);
        // The reader misses the 9C for a while: its look is unchanged, it stays.
        assert!(feed(&mut t, &both, &read[..1], 10).is_empty());
        // The 2H is taken away: the picture changes there for a moment (covered), then shows
        // bare table where it lay.
        let one = frame(&[(600, 300)], None);
        let changes = feed(&mut t, &one, &read[1..], 10);
        assert_eq!(kinds(&changes).last(), Some(&ChangeKind::Left));
        assert!(changes.iter().all(|c| c.card.card == Some(card("2H"))));
        assert_eq!(t.view().loose.len(), 1);
    }

    #[test]
    fn each_card_is_named_once() {
        let mut t = tracker();
        let m = frame(&[(200, 300), (600, 300)], None);
        feed(&mut t, &m, &[seen(Some("5D"), 200, 300, 0.95), seen(Some("5D"), 600, 300, 0.7)], 6);
        let names: Vec<Option<Card>> = t.view().loose.iter().map(|c| c.card).collect();
        assert_eq!(names, vec![Some(card("5D")), None]);
    }

    #[test]
    fn a_card_read_while_called_face_down_is_face_up() {
        let mut t = tracker();
        let m = frame(&[(200, 300)], None);
        let mut down = seen(None, 200, 300, 0.7);
        down.face = SeenFace::Down;
        for k in 0..12 {
            let d = if k % 3 == 0 { seen(Some("QD"), 200, 300, 0.9) } else { down.clone() };
            t.push(&m, &[d]).unwrap();
        }
        assert_eq!(t.view().loose[0].face, Face::Up);
    }

    fn index_only(code: &str, x: i32, y: i32) -> CardDetection {
        CardDetection {
            card: Some(card(code)),
            face: SeenFace::Up,
            confidence: 0.9,
            quad: None,
            index_boxes: vec![[x, y, 12, 24]],
        }
    }

    #[test]
    fn a_card_read_where_it_lies_settles_while_a_hand_works_over_its_corner() {
        let mut t = tracker();
        let mut changes = Vec::new();
        for k in 0..8 {
            // A hand comes and goes over the card's far corner: a fifth of its cells change.
            let hand = (k % 2 == 1).then(|| Rect::new(240, 390, 80, 60));
            changes.extend(t.push(&frame(&[(200, 300)], hand), &[seen(Some("5H"), 200, 300, 0.9)]).unwrap());
        }
        assert_eq!(kinds(&changes), vec![ChangeKind::Appeared], "{changes:?}");
        assert_eq!(t.view().loose[0].card, Some(card("5H")));
    }

    #[test]
    fn an_index_away_from_an_outline_s_corners_is_another_card_s() {
        let mut t = tracker();
        let m = frame(&[(200, 300)], None);
        // A queen followed by her index alone, lying over the middle of a card's left side.
        let first = feed(&mut t, &m, &[index_only("QD", 222, 355)], 4);
        assert_eq!(first.last().and_then(|c| c.card.card), Some(card("QD")));
        // She is taken away: the card under her shows its outline, unread.
        let later = feed(&mut t, &m, &[seen(None, 200, 300, 0.0)], 5);
        assert!(
            later.iter().any(|c| c.kind == ChangeKind::Left && c.card.card == Some(card("QD"))),
            "the queen left: {later:?}"
        );
        assert!(t.view().loose.iter().all(|c| c.card.is_none()), "no card there is named: {later:?}");
    }

    #[test]
    fn a_card_followed_by_its_index_leaves_with_the_hand_that_took_it() {
        let mut t = tracker();
        let bare = frame(&[], None);
        let mut m = bare.clone();
        imgproc::rectangle(&mut m, Rect::new(200, 300, 90, 130), Scalar::all(235.0), -1, imgproc::LINE_8, 0).unwrap();
        feed(&mut t, &m, &[index_only("9S", 205, 305)], 4);
        let hand = frame(&[], Some(Rect::new(150, 250, 200, 230)));
        let covered = feed(&mut t, &hand, &[], 3);
        assert_eq!(kinds(&covered), vec![ChangeKind::Covered]);
        // The hand went with the card: the first frame its place is quiet again, it is gone.
        let mut after = Vec::new();
        let mut frames = 0;
        while !after.iter().any(|c: &Change| c.kind == ChangeKind::Left) && frames < 10 {
            after.extend(t.push(&bare, &[]).unwrap());
            frames += 1;
        }
        assert!(frames <= 4, "left after {frames} frames: {after:?}");
    }

    #[test]
    fn a_card_first_followed_by_its_index_has_not_moved_when_its_outline_is_found() {
        let mut t = tracker();
        let m = frame(&[(200, 300)], None);
        let index = CardDetection {
            card: Some(card("6C")),
            face: SeenFace::Up,
            confidence: 0.9,
            quad: None,
            index_boxes: vec![[205, 305, 12, 24]],
        };
        let first = feed(&mut t, &m, &[index], 4);
        assert_eq!(kinds(&first), vec![ChangeKind::Appeared]);
        let later = feed(&mut t, &m, &[seen(Some("6C"), 200, 300, 0.9)], 6);
        assert!(later.is_empty(), "{later:?}");
        assert!(t.view().loose[0].centre.distance(Pt::new(245.0, 365.0)) < 5.0, "at the outline's centre now");
    }

    #[test]
    fn a_photo_s_other_reading_challenges_the_name_where_a_video_frame_s_does_not() {
        let m = frame(&[(200, 300)], None);
        for stills in [false, true] {
            let mut t = CardTracker::new(TrackConfig { stride: 1, ..TrackConfig::for_fps(10.0, stills) }, 10.0);
            feed(&mut t, &m, &[seen(Some("8S"), 200, 300, 0.95)], 6);
            feed(&mut t, &m, &[seen(Some("8C"), 200, 300, 0.95)], 3);
            let name = t.view().loose[0].card;
            let want = if stills { None } else { Some(card("8S")) };
            assert_eq!(name, want, "stills {stills}");
        }
    }

    #[test]
    fn a_photo_names_a_card_read_at_the_reader_s_bar_only_when_it_is_large() {
        let m = frame(&[(200, 300)], None);
        let stills = || CardTracker::new(TrackConfig { stride: 1, ..TrackConfig::for_fps(1.0, true) }, 1.0);
        let mut t = stills();
        feed(&mut t, &m, &[seen(Some("2C"), 200, 300, 0.7)], 1);
        assert_eq!(t.view().loose[0].card, Some(card("2C")), "a 130 px card from its first photo");
        // The same reading of a card half that size waits for a second photo to agree.
        let mut small = seen(Some("2C"), 200, 300, 0.7);
        small.quad = Some([[200.0, 300.0], [245.0, 300.0], [245.0, 365.0], [200.0, 365.0]]);
        let mut t = stills();
        feed(&mut t, &m, std::slice::from_ref(&small), 1);
        assert_eq!(t.view().loose[0].card, None);
        feed(&mut t, &m, std::slice::from_ref(&small), 1);
        assert_eq!(t.view().loose[0].card, Some(card("2C")));
    }

    #[test]
    fn a_photo_series_names_the_card_laid_where_another_lay() {
        // One round's card taken away and the next round's laid on its place between photos:
        // the readings of the old card are not weighed against the new one.
        let m = frame(&[(200, 300)], None);
        let mut t = CardTracker::new(TrackConfig { stride: 1, ..TrackConfig::for_fps(1.0, true) }, 1.0);
        feed(&mut t, &m, &[seen(Some("AH"), 200, 300, 0.95)], 3);
        feed(&mut t, &m, &[seen(Some("10H"), 200, 300, 0.9)], 3);
        let named: Vec<Option<Card>> = t.view().loose.iter().map(|c| c.card).filter(Option::is_some).collect();
        assert_eq!(named, vec![Some(card("10H"))]);
    }
}
