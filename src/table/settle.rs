//! The settled view: frame views only count once the table has stayed quiet and the same for a few
//! frames, and each physical card keeps the identity it was seen with.
//!
//! Each frame's `Motion` (`vision::motion`: how much of it changed since the last frame, how much
//! of it is skin-coloured) comes with its view; the `Settler` keeps the frames of the current quiet spell and
//! settles on the structure (which places hold a card, face up or down) most of its last K frames
//! share. Cards are followed as tracks across settled views by their position: a track's name is
//! the majority of every reading it had while face up, kept when it is turned face down in place,
//! and left unknown while the readings are split.

use std::collections::VecDeque;

use serde::Serialize;

use crate::cards::Card;
use crate::geometry::Pt;
pub use crate::vision::motion::Motion;

use super::view::{CardView, EntityView, Face, SeatView, TableView};

/// How the settler judges frames.
#[derive(Clone, Debug, PartialEq)]
pub struct SettleConfig {
    /// Quiet frames a view must hold (most of them the same) before it counts.
    pub quiet_frames: usize,
    /// Share of the small grey copy's pixels that changed by more than `PIXEL_CHANGE` levels,
    /// above which a frame is moving.
    pub motion_share: f64,
    /// Rise of the skin-coloured share over the quiet table's, above which a hand is in view.
    pub skin_rise: f64,
    /// A card within this distance of a track's last position is that track's card (millimetres,
    /// or pixels without a layout): rows' slots are 72 mm apart, a modifier 37 mm from its base.
    pub match_distance: f64,
    /// A track that moved more than this has moved.
    pub move_distance: f64,
    /// This many settled cards missing at once make a frame moving (an arm over them).
    pub missing_burst: usize,
}

impl SettleConfig {
    /// About a fifth of a second of quiet at `fps` frames a second, at least 3 frames.
    pub fn for_fps(fps: f64) -> SettleConfig {
        let quiet_frames = if fps.is_finite() && fps > 0.0 { (fps * 0.2).round().max(3.0) as usize } else { 6 };
        SettleConfig {
            quiet_frames,
            motion_share: 0.002,
            skin_rise: 0.01,
            match_distance: 25.0,
            move_distance: 10.0,
            missing_burst: 3,
        }
    }
}

impl Default for SettleConfig {
    fn default() -> Self {
        SettleConfig::for_fps(30.0)
    }
}

/// Which row of a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RowName {
    Front,
    Back,
}

/// Which card of an entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Base,
    Modifier,
}

/// Where a card lies in a view: a seat's row (the entity's index along it), a pile, or loose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "zone", rename_all = "lowercase")]
pub enum Place {
    Seat { seat: usize, row: RowName, slot: usize, part: Part },
    Deck,
    Discard,
    Loose { index: usize },
}

/// Every card of a view with its place, in a fixed order: seats, rows (Front first), entities,
/// base before modifier; then the deck (as a face-down card at the origin), the discard pile's
/// top and the loose cards.
pub fn cards_of(view: &TableView) -> Vec<(Place, CardView)> {
    let mut out = Vec::new();
    for (seat, s) in view.seats.iter().enumerate() {
        for (row, entities) in [(RowName::Front, &s.front), (RowName::Back, &s.back)] {
            for (slot, e) in entities.iter().enumerate() {
                out.push((Place::Seat { seat, row, slot, part: Part::Base }, e.base));
                if let Some(m) = e.modifier {
                    out.push((Place::Seat { seat, row, slot, part: Part::Modifier }, m));
                }
            }
        }
    }
    if view.deck {
        out.push((Place::Deck, CardView::down(Pt::new(0.0, 0.0))));
    }
    if let Some(top) = view.discard {
        out.push((Place::Discard, top));
    }
    out.extend(view.loose.iter().enumerate().map(|(index, c)| (Place::Loose { index }, *c)));
    out
}

/// The view `cards_of` lists, rebuilt (for `seats` seats).
fn view_of(cards: &[(Place, CardView)], seats: usize) -> TableView {
    let mut view = TableView { seats: vec![SeatView::default(); seats], ..TableView::default() };
    for (place, card) in cards {
        match *place {
            Place::Seat { seat, row, part, .. } => {
                if view.seats.len() <= seat {
                    view.seats.resize(seat + 1, SeatView::default());
                }
                let list = match row {
                    RowName::Front => &mut view.seats[seat].front,
                    RowName::Back => &mut view.seats[seat].back,
                };
                match (part, list.last_mut()) {
                    // A deck holds each card once: the base's own name settled where its modifier
                    // would lie is the base seen again (frames that placed it a little off), no
                    // card over it.
                    (Part::Modifier, Some(e)) if card.card.is_some() && card.card == e.base.card => {}
                    (Part::Modifier, Some(e)) => e.modifier = Some(*card),
                    _ => list.push(EntityView::single(*card)),
                }
            }
            Place::Deck => view.deck = true,
            Place::Discard => view.discard = Some(*card),
            Place::Loose { .. } => view.loose.push(*card),
        }
    }
    view
}

/// What changed about one card between two settled views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A card lies where none lay.
    Appeared,
    /// The same card lies elsewhere (another place, or more than `move_distance` away).
    Moved,
    /// The same card lies the other face up.
    Turned,
    /// The card's identity became known (or changed, or became unknown).
    Named,
    /// Another card now lies where this one lay (a discard on the pile).
    Covered,
    /// The card is no longer seen.
    Left,
}

/// One change of the settled view. `place` and `card` are where the card now lies and how it
/// looks (for `Covered` and `Left`: where it lay and how it looked); `track` follows one physical
/// card across views.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    pub track: u64,
    pub place: Place,
    pub card: CardView,
}

/// A settled view and what changed since the last one.
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    pub view: TableView,
    pub changes: Vec<Change>,
}

/// Whether two places are in the same row (or pile): a card whose neighbour left is one entity
/// further along its row, but has not moved.
fn same_row(a: Place, b: Place) -> bool {
    match (a, b) {
        (Place::Seat { seat, row, part, .. }, Place::Seat { seat: s, row: r, part: p, .. }) => {
            seat == s && row == r && part == p
        }
        (Place::Loose { .. }, Place::Loose { .. }) => true,
        _ => a == b,
    }
}

/// One quiet frame: its cards and its structure.
#[derive(Clone)]
struct QuietFrame {
    seq: u64,
    seats: usize,
    cards: Vec<(Place, CardView)>,
}

impl QuietFrame {
    fn signature(&self) -> Vec<(Place, Face)> {
        self.cards.iter().map(|(p, c)| (*p, c.face)).collect()
    }
}

/// One physical card followed across settled views.
#[derive(Clone, Debug)]
struct Track {
    id: u64,
    centre: Pt,
    face: Face,
    votes: Vec<(Card, u32)>,
}

impl Track {
    fn vote(&mut self, card: Card) {
        match self.votes.iter_mut().find(|(c, _)| *c == card) {
            Some((_, n)) => *n += 1,
            None => self.votes.push((card, 1)),
        }
    }

    /// The majority of the readings: at least two, more than half of all, and twice the next.
    fn name(&self) -> Option<Card> {
        majority(&self.votes)
    }
}

fn majority(votes: &[(Card, u32)]) -> Option<Card> {
    let total: u32 = votes.iter().map(|(_, n)| n).sum();
    let mut sorted: Vec<(Card, u32)> = votes.to_vec();
    sorted.sort_by_key(|v| std::cmp::Reverse(v.1));
    let (top, a) = *sorted.first()?;
    let b = sorted.get(1).map_or(0, |v| v.1);
    (a >= 2 && 2 * a > total && a >= 2 * b).then_some(top)
}

/// Turns a stream of frame views into settled views.
#[derive(Clone)]
pub struct Settler {
    config: SettleConfig,
    window: VecDeque<QuietFrame>,
    seq: u64,
    /// The last frame whose readings went into the tracks.
    counted: u64,
    /// Whether the table moved since the last settled view (cards may have been swapped).
    moved: bool,
    /// The skin-coloured share of the quiet table.
    skin_floor: Option<f64>,
    next_id: u64,
    /// The settled cards: place, track (index into `tracks`).
    settled: Vec<(Place, usize)>,
    settled_signature: Vec<(Place, Face)>,
    tracks: Vec<Track>,
    /// What the last settled view showed, by track id: place and card.
    shown: Vec<(u64, Place, CardView)>,
    seats: usize,
    ever_settled: bool,
    /// Still frames held back in a row for a hand or a burst of missing cards.
    held: usize,
    /// Frames in a row in which the picture did not change.
    still: usize,
}

/// What a frame is to the settler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gate {
    /// The table is moving: the quiet spell starts again.
    Moving,
    /// Still, but held back from settling for a while: it counts toward the quiet spell.
    Held,
    Quiet,
}

/// How many times the quiet frames a hand over a changed table holds the view back (about 10 s).
const HAND_PATIENCE: usize = 50;
/// Quiet frames' worth of a still picture after which a hand in view, with a move carried out,
/// is taken as resting.
const RESTING_HAND: usize = 2;

impl Settler {
    pub fn new(config: SettleConfig) -> Settler {
        Settler {
            config,
            window: VecDeque::new(),
            seq: 0,
            counted: 0,
            moved: true,
            skin_floor: None,
            next_id: 1,
            settled: Vec::new(),
            settled_signature: Vec::new(),
            tracks: Vec::new(),
            shown: Vec::new(),
            seats: 0,
            ever_settled: false,
            held: 0,
            still: 0,
        }
    }

    pub fn config(&self) -> &SettleConfig {
        &self.config
    }

    /// The last settled view, if the table ever settled.
    pub fn view(&self) -> Option<TableView> {
        self.ever_settled.then(|| self.current_view())
    }

    /// Feeds one frame's view and its motion; returns the settled view when it changed.
    pub fn push(&mut self, view: TableView, motion: Motion) -> Option<Settled> {
        self.seq += 1;
        let mut frame = QuietFrame { seq: self.seq, seats: view.seats.len(), cards: cards_of(&view) };
        self.keep_backs_down(&mut frame);
        if motion.changed > self.config.motion_share {
            self.held = 0;
        }
        let gate = self.gate(&frame, motion);
        if gate == Gate::Moving {
            self.window.clear();
            self.moved = true;
            return None;
        }
        self.window.push_back(frame);
        while self.window.len() > self.config.quiet_frames.max(1) {
            self.window.pop_front();
        }
        if gate == Gate::Held {
            // Still frames while several cards are missing: kept, so that once the hold is over
            // the view settles at once (fast moves leave only a second of quiet between them).
            self.moved = true;
            return None;
        }
        if self.window.len() < self.config.quiet_frames.max(1) {
            return None;
        }
        let signature = self.majority_signature()?;
        self.settle(&signature);
        let changes = self.changes();
        if changes.is_empty() {
            return None;
        }
        self.shown = self.settled.iter().map(|&(place, t)| (self.tracks[t].id, place, self.card_view(t))).collect();
        Some(Settled { view: self.current_view(), changes })
    }

    /// A face-down card under a hand, or half out of the picture, can lose the pattern of its
    /// back and pass for a face-up card no reader names: where a settled card lies face down, a
    /// face-up card is taken as turned up only once some quiet frame reads it.
    fn keep_backs_down(&self, frame: &mut QuietFrame) {
        let read_near = |centre: Pt, f: &QuietFrame| {
            f.cards.iter().any(|(_, c)| c.shown().is_some() && c.centre.distance(centre) < self.config.match_distance)
        };
        for (place, t) in &self.settled {
            let track = &self.tracks[*t];
            if track.face != Face::Down || *place == Place::Deck {
                continue;
            }
            if read_near(track.centre, frame) || self.window.iter().any(|f| read_near(track.centre, f)) {
                continue;
            }
            for (p, c) in &mut frame.cards {
                if *p != Place::Deck
                    && c.face == Face::Up
                    && c.card.is_none()
                    && c.centre.distance(track.centre) < self.config.match_distance
                {
                    c.face = Face::Down;
                }
            }
        }
    }

    /// Moving: the picture changed, or a hand came in over cards. Held: the picture is still but
    /// several settled cards went at once (an arm may lie over them).
    fn gate(&mut self, frame: &QuietFrame, motion: Motion) -> Gate {
        if motion.changed > self.config.motion_share {
            self.still = 0;
            return Gate::Moving;
        }
        let floor = *self.skin_floor.get_or_insert(motion.skin);
        let hand = motion.skin > floor + self.config.skin_rise;
        let missing = self
            .settled
            .iter()
            .filter(|(place, t)| {
                !frame.cards.iter().any(|(p, c)| self.same_spot(*place, self.tracks[*t].centre, *p, c.centre))
            })
            .count();
        // A picture still for the quiet frames that hides none of the settled cards holds no
        // hand at work: the skin colour it shows (red faces dealt since the table was empty
        // raise the share) is the table's.
        self.still += 1;
        if self.still >= self.config.quiet_frames.max(1) && missing == 0 {
            self.skin_floor = Some(motion.skin);
        }
        // A hand in view over a table that differs from the settled one is at work on it.
        let changed = self.ever_settled && frame.signature() != self.settled_signature;
        // Held back only for a while: cards taken away together stay away, and a lasting rise
        // of skin colour (a lamp turned on, a wooden table's light) is no hand.
        let patience = self.config.quiet_frames.max(1);
        // A move carried out (cards lie where none did) in a picture still for a moment, a hand
        // in view elsewhere: a player's hand resting at the table's edge, not at work.
        let appeared = frame.cards.iter().any(|(p, c)| {
            !self.settled.iter().any(|(place, t)| self.same_spot(*place, self.tracks[*t].centre, *p, c.centre))
        });
        let resting = appeared && self.still >= patience * RESTING_HAND;
        let held = if hand && (missing > 0 || changed) && !resting {
            Some((patience * HAND_PATIENCE, Gate::Moving))
        } else if missing >= self.config.missing_burst {
            Some((patience * 2, Gate::Held))
        } else {
            None
        };
        match held {
            Some((limit, gate)) => {
                self.held += 1;
                if self.held <= limit {
                    return gate;
                }
                self.skin_floor = Some(motion.skin);
            }
            None => self.held = 0,
        }
        // The quiet table's skin share follows slow light changes down at once and up slowly.
        if !hand {
            self.skin_floor = Some(motion.skin.min(floor * 0.9 + motion.skin * 0.1));
        }
        Gate::Quiet
    }

    fn same_spot(&self, a: Place, a_centre: Pt, b: Place, b_centre: Pt) -> bool {
        match (a, b) {
            (Place::Deck, Place::Deck) => true,
            (Place::Deck, _) | (_, Place::Deck) => false,
            _ => a_centre.distance(b_centre) < self.config.match_distance,
        }
    }

    /// The structure at least two thirds of the window's frames share.
    fn majority_signature(&self) -> Option<Vec<(Place, Face)>> {
        let need = (self.window.len() * 2).div_ceil(3);
        let signatures: Vec<Vec<(Place, Face)>> = self.window.iter().map(QuietFrame::signature).collect();
        signatures.iter().find(|s| signatures.iter().filter(|o| o == s).count() >= need).cloned()
    }

    /// Settles on `signature`: matches its cards to tracks (again, when the structure changed or
    /// the table moved), adds the new frames' readings to them.
    fn settle(&mut self, signature: &[(Place, Face)]) {
        let frames: Vec<&QuietFrame> = self.window.iter().filter(|f| f.signature() == signature).collect();
        let seats = frames.last().map_or(0, |f| f.seats);
        let k = frames.len() as f64;
        let centres: Vec<Pt> = (0..signature.len())
            .map(|i| {
                let (x, y) =
                    frames.iter().fold((0.0, 0.0), |(x, y), f| (x + f.cards[i].1.centre.x, y + f.cards[i].1.centre.y));
                Pt::new(x / k, y / k)
            })
            .collect();
        // The readings of each card over the window, and those of the frames not counted yet.
        let shown = |f: &QuietFrame| -> Vec<Option<Card>> { f.cards.iter().map(|(_, c)| c.shown()).collect() };
        let all: Vec<Vec<Option<Card>>> = frames.iter().map(|f| shown(f)).collect();
        let fresh: Vec<Vec<Option<Card>>> = frames.iter().filter(|f| f.seq > self.counted).map(|f| shown(f)).collect();
        let frame_count = frames.len();
        let newest = self.window.back().map_or(self.counted, |f| f.seq);
        let readings: Vec<Vec<(Card, u32)>> = (0..signature.len())
            .map(|i| {
                let mut t = Track { id: 0, centre: centres[i], face: signature[i].1, votes: Vec::new() };
                all.iter().filter_map(|f| f[i]).for_each(|c| t.vote(c));
                t.votes
            })
            .collect();
        if self.moved || signature != self.settled_signature {
            let assigned = self.associate(signature, &centres, &readings, frame_count);
            self.settled = signature.iter().zip(assigned).map(|((p, _), t)| (*p, t)).collect();
            self.settled_signature = signature.to_vec();
            self.moved = false;
        }
        for (i, &(_, t)) in self.settled.iter().enumerate() {
            let track = &mut self.tracks[t];
            track.centre = centres[i];
            track.face = signature[i].1;
            for card in fresh.iter().filter_map(|f| f[i]) {
                track.vote(card);
            }
        }
        self.counted = newest;
        self.seats = seats;
        self.ever_settled = true;
    }

    /// Matches each card of the new structure to a track of the last settled view: nearest first
    /// within `match_distance` (after motion, a face-up card clearly read as another card than
    /// its track's is a new card lying there); then a clearly read card to a track of that name
    /// anywhere (a card moved); the rest are new tracks.
    fn associate(
        &mut self,
        signature: &[(Place, Face)],
        centres: &[Pt],
        readings: &[Vec<(Card, u32)>],
        frames: usize,
    ) -> Vec<usize> {
        let live: Vec<(Place, usize)> = self.settled.clone();
        let clear: Vec<Option<Card>> = readings
            .iter()
            .map(|votes| {
                let best = votes.iter().max_by_key(|(_, n)| *n)?;
                (best.1 as usize * 3 >= frames * 2 && majority(votes) == Some(best.0)).then_some(best.0)
            })
            .collect();
        let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
        for (i, (place, _)) in signature.iter().enumerate() {
            for (j, &(live_place, t)) in live.iter().enumerate() {
                if self.same_spot(*place, centres[i], live_place, self.tracks[t].centre) {
                    pairs.push((centres[i].distance(self.tracks[t].centre), i, j));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut assigned: Vec<Option<usize>> = vec![None; signature.len()];
        let mut taken = vec![false; live.len()];
        for (_, i, j) in pairs {
            if assigned[i].is_some() || taken[j] {
                continue;
            }
            let t = live[j].1;
            // A card laid on the discard pile lies where the last one did: once the table has
            // moved, a top that reads nothing clearly may be a new card, so it is not given the
            // old top's name (an unknown top matches any card; a wrong name matches none).
            let new_on_pile = signature[i].0 == Place::Discard && clear[i].is_none();
            let replaced = self.moved
                && signature[i].1 == Face::Up
                && (new_on_pile || clear[i].is_some_and(|c| self.tracks[t].name().is_some_and(|name| name != c)));
            if !replaced {
                assigned[i] = Some(t);
                taken[j] = true;
            }
        }
        for i in 0..signature.len() {
            if assigned[i].is_some() {
                continue;
            }
            if let Some(c) = clear[i]
                && let Some(j) = (0..live.len()).find(|&j| !taken[j] && self.tracks[live[j].1].name() == Some(c))
            {
                assigned[i] = Some(live[j].1);
                taken[j] = true;
            }
        }
        assigned
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                t.unwrap_or_else(|| {
                    self.tracks.push(Track {
                        id: self.next_id,
                        centre: centres[i],
                        face: signature[i].1,
                        votes: Vec::new(),
                    });
                    self.next_id += 1;
                    self.tracks.len() - 1
                })
            })
            .collect()
    }

    fn card_view(&self, t: usize) -> CardView {
        let track = &self.tracks[t];
        CardView { face: track.face, card: track.name(), centre: track.centre }
    }

    fn current_view(&self) -> TableView {
        let cards: Vec<(Place, CardView)> = self.settled.iter().map(|&(p, t)| (p, self.card_view(t))).collect();
        view_of(&cards, self.seats)
    }

    /// What changed between the last view shown and the tracks settled now.
    fn changes(&self) -> Vec<Change> {
        let now: Vec<(u64, Place, CardView)> =
            self.settled.iter().map(|&(place, t)| (self.tracks[t].id, place, self.card_view(t))).collect();
        let mut out = Vec::new();
        for &(id, place, card) in &now {
            match self.shown.iter().find(|(old, _, _)| *old == id) {
                None => out.push(Change { kind: ChangeKind::Appeared, track: id, place, card }),
                Some(&(_, old_place, old)) => {
                    if !same_row(old_place, place) || old.centre.distance(card.centre) > self.config.move_distance {
                        out.push(Change { kind: ChangeKind::Moved, track: id, place, card });
                    }
                    if old.face != card.face {
                        out.push(Change { kind: ChangeKind::Turned, track: id, place, card });
                    }
                    if old.card != card.card {
                        out.push(Change { kind: ChangeKind::Named, track: id, place, card });
                    }
                }
            }
        }
        for &(id, place, card) in &self.shown {
            if now.iter().any(|(new, _, _)| *new == id) {
                continue;
            }
            let covered = now.iter().any(|&(new, p, c)| {
                !self.shown.iter().any(|(old, _, _)| *old == new) && self.same_spot(place, card.centre, p, c.centre)
            });
            let kind = if covered { ChangeKind::Covered } else { ChangeKind::Left };
            out.push(Change { kind, track: id, place, card });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    fn up(code: &str, x: f64) -> CardView {
        CardView::up(card(code), Pt::new(x, 0.0))
    }

    fn row(cards: Vec<CardView>) -> TableView {
        TableView {
            seats: vec![SeatView { front: Vec::new(), back: cards.into_iter().map(EntityView::single).collect() }],
            ..TableView::default()
        }
    }

    /// Feeds `view` `n` times as still frames; returns the last settled view emitted, if any.
    fn feed(s: &mut Settler, view: &TableView, n: usize) -> Option<Settled> {
        (0..n).filter_map(|_| s.push(view.clone(), Motion::STILL)).last()
    }

    #[test]
    fn a_base_s_own_name_settled_as_its_modifier_is_no_modifier() {
        let at = |slot, part| Place::Seat { seat: 0, row: RowName::Back, slot, part };
        let named = |code: &str, x: f64| CardView { face: Face::Up, card: code.parse().ok(), centre: Pt::new(x, 0.0) };
        let cards = [
            (at(0, Part::Base), named("4H", 0.0)),
            (at(0, Part::Modifier), named("4H", 1.0)),
            (at(1, Part::Base), named("5H", 72.0)),
            (at(1, Part::Modifier), named("6H", 73.0)),
        ];
        let back = &view_of(&cards, 1).seats[0].back;
        let read: Vec<_> = back.iter().map(|e| (e.base.card, e.modifier.and_then(|m| m.card))).collect();
        let card = |c: &str| c.parse().ok();
        assert_eq!(read, [(card("4H"), None), (card("5H"), card("6H"))]);
    }

    #[test]
    fn a_view_settles_only_after_k_quiet_frames() {
        let mut s = Settler::new(SettleConfig::default());
        let view = row(vec![up("9S", 0.0), up("3H", 72.0)]);
        assert!(feed(&mut s, &view, 5).is_none());
        let settled = feed(&mut s, &view, 1).expect("settles at the sixth frame");
        assert_eq!(settled.view, view);
        assert_eq!(settled.changes.len(), 2);
        assert!(settled.changes.iter().all(|c| c.kind == ChangeKind::Appeared));
        assert!(feed(&mut s, &view, 10).is_none(), "the same view is not emitted again");
    }

    #[test]
    fn moving_frames_restart_the_count() {
        let mut s = Settler::new(SettleConfig::default());
        let view = row(vec![up("9S", 0.0)]);
        feed(&mut s, &view, 4);
        assert!(s.push(view.clone(), Motion { changed: 0.05, skin: 0.0 }).is_none());
        assert!(feed(&mut s, &view, 5).is_none());
        assert!(feed(&mut s, &view, 1).is_some());
    }

    #[test]
    fn one_misread_frame_does_not_flip_a_card() {
        let mut s = Settler::new(SettleConfig::default());
        let good = row(vec![up("9S", 0.0)]);
        let bad = row(vec![up("9C", 0.0)]);
        for k in 0..30 {
            let v = if k % 5 == 2 { &bad } else { &good };
            if let Some(out) = s.push(v.clone(), Motion::STILL) {
                assert_eq!(out.view, good, "frame {k}");
            }
        }
        assert_eq!(s.view(), Some(good));
    }

    #[test]
    fn split_readings_leave_the_card_unknown() {
        let mut s = Settler::new(SettleConfig::default());
        let codes = ["10D", "10H", "6D", "6H"];
        let mut last = None;
        for k in 0..24 {
            last = s.push(row(vec![up(codes[k % 4], 0.0)]), Motion::STILL).or(last);
        }
        let view = last.expect("settles").view;
        assert_eq!(view.seats[0].back[0].base.face, Face::Up);
        assert_eq!(view.seats[0].back[0].base.card, None);
    }

    #[test]
    fn an_unread_card_laid_on_the_discard_pile_does_not_take_the_old_top_s_name() {
        let mut s = Settler::new(SettleConfig::default());
        let pile = |top: CardView| TableView { discard: Some(top), ..row(vec![up("9S", 0.0)]) };
        let unread = CardView { face: Face::Up, card: None, centre: Pt::new(300.0, 2.0) };
        feed(&mut s, &pile(up("7C", 300.0)), 8).expect("settles");
        // Unread in a quiet moment the pile keeps its name.
        assert!(feed(&mut s, &pile(unread), 8).is_none());
        s.push(pile(up("7C", 300.0)), Motion { changed: 0.1, skin: 0.2 });
        let out = feed(&mut s, &pile(unread), 8).expect("settles again");
        assert_eq!(out.view.discard.map(|c| (c.face, c.card)), Some((Face::Up, None)));
        assert_eq!(out.view.seats[0].back[0].base.card, Some(card("9S")), "a row card keeps its name");
    }

    #[test]
    fn a_card_turned_face_down_in_place_keeps_its_name() {
        let mut s = Settler::new(SettleConfig::default());
        feed(&mut s, &row(vec![up("QD", 0.0)]), 8).expect("settles");
        s.push(row(vec![up("QD", 0.0)]), Motion { changed: 0.1, skin: 0.2 });
        let out = feed(&mut s, &row(vec![CardView::down(Pt::new(2.0, 1.0))]), 8).expect("settles again");
        let base = out.view.seats[0].back[0].base;
        assert_eq!((base.face, base.card), (Face::Down, Some(card("QD"))));
        assert_eq!(base.shown(), None);
        assert_eq!(out.changes.iter().map(|c| c.kind).collect::<Vec<_>>(), vec![ChangeKind::Turned]);
    }

    #[test]
    fn a_hand_over_cards_holds_the_view_and_the_cards_keep_their_names() {
        let mut s = Settler::new(SettleConfig::default());
        let view = row(vec![CardView { face: Face::Down, card: None, centre: Pt::new(0.0, 0.0) }, up("7C", 72.0)]);
        feed(&mut s, &row(vec![up("AS", 0.0), up("7C", 72.0)]), 8).expect("settles");
        s.push(view.clone(), Motion { changed: 0.1, skin: 0.0 });
        feed(&mut s, &view, 8).expect("the ace turned down");
        // A still hand lies over the ace: the frames lose it, and show skin.
        let hand = Motion { changed: 0.0, skin: 0.2 };
        for _ in 0..20 {
            assert!(s.push(row(vec![up("7C", 72.0)]), hand).is_none());
        }
        assert!(feed(&mut s, &view, 10).is_none(), "nothing changed once the hand went");
        assert_eq!(s.view().unwrap().seats[0].back[0].base.card, Some(card("AS")));
    }

    #[test]
    fn a_back_that_loses_its_pattern_stays_face_down_until_a_face_is_read() {
        let mut s = Settler::new(SettleConfig::default());
        let back = CardView::down(Pt::new(0.0, 0.0));
        feed(&mut s, &row(vec![back, up("7C", 72.0)]), 8).expect("settles");
        // A hand rests over the back: its pattern is gone, nothing reads a face there.
        let blank = CardView { face: Face::Up, card: None, centre: Pt::new(3.0, 2.0) };
        assert!(feed(&mut s, &row(vec![blank, up("7C", 72.0)]), 20).is_none());
        assert_eq!(s.view().unwrap().seats[0].back[0].base.face, Face::Down);
        // Turned up for real: read, and face up.
        let out = feed(&mut s, &row(vec![up("8H", 1.0), up("7C", 72.0)]), 8).expect("turned up");
        assert_eq!(out.view.seats[0].back[0].base.shown(), Some(card("8H")));
    }

    #[test]
    fn a_new_card_on_the_discard_pile_covers_the_old_one() {
        let mut s = Settler::new(SettleConfig::default());
        let pile = |code: &str| TableView { discard: Some(up(code, 60.0)), ..TableView::default() };
        feed(&mut s, &pile("4C"), 8).expect("settles");
        s.push(pile("4C"), Motion { changed: 0.1, skin: 0.0 });
        let out = feed(&mut s, &pile("JH"), 8).expect("settles again");
        let kinds: Vec<ChangeKind> = out.changes.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, vec![ChangeKind::Appeared, ChangeKind::Covered]);
        assert_eq!(out.view.discard.and_then(|c| c.card), Some(card("JH")));
    }

    #[test]
    fn a_card_that_leaves_is_reported() {
        let mut s = Settler::new(SettleConfig::default());
        feed(&mut s, &row(vec![up("AS", 0.0), up("7C", 72.0)]), 8).expect("settles");
        s.push(row(vec![up("7C", 72.0)]), Motion { changed: 0.1, skin: 0.0 });
        let out = feed(&mut s, &row(vec![up("7C", 72.0)]), 8).expect("settles again");
        assert_eq!(out.changes.len(), 1);
        assert_eq!(out.changes[0].kind, ChangeKind::Left);
        assert_eq!(out.changes[0].card.card, Some(card("AS")));
    }

    proptest::proptest! {
        /// Whatever a card is read as frame by frame, the settled view names it only as the
        /// reading most of its frames gave, and never as a reading it did not have.
        #[test]
        fn a_settled_name_is_the_majority_reading(readings in proptest::collection::vec(0usize..4, 6..40)) {
            let codes = ["9S", "9C", "6H", "6D"];
            let mut s = Settler::new(SettleConfig::default());
            for &r in &readings {
                s.push(row(vec![up(codes[r], 0.0)]), Motion::STILL);
            }
            let view = s.view().expect("settles: every frame is still and the same");
            if let Some(name) = view.seats[0].back[0].base.card {
                let i = codes.iter().position(|c| card(c) == name).expect("a reading it had");
                let count = readings.iter().filter(|&&r| r == i).count();
                proptest::prop_assert!(2 * count > readings.len(), "{name} read {count} of {}", readings.len());
            }
        }
    }

    #[test]
    fn a_move_made_while_a_hand_rests_in_view_settles_once_the_picture_is_still() {
        let mut s = Settler::new(SettleConfig::default());
        feed(&mut s, &row(vec![up("AS", 0.0), up("7C", 72.0)]), 8).expect("settles");
        // The ace is moved to the row's far end; a hand rests in view, away from the cards.
        let moved = row(vec![up("7C", 72.0), up("AS", 288.0)]);
        s.push(moved.clone(), Motion { changed: 0.1, skin: 0.05 });
        let resting = Motion { changed: 0.0, skin: 0.05 };
        let quiet = SettleConfig::default().quiet_frames;
        let settled = (0..quiet * (RESTING_HAND + 2)).find_map(|_| s.push(moved.clone(), resting));
        assert!(settled.is_some(), "the move waits for the hand to leave");
    }

    #[test]
    fn cards_taken_away_together_are_let_go_after_a_while() {
        let mut s = Settler::new(SettleConfig::default());
        let all: Vec<CardView> = (0..5).map(|k| up(["AS", "2S", "3S", "4S", "5S"][k], 72.0 * k as f64)).collect();
        feed(&mut s, &row(all.clone()), 8).expect("settles");
        let out = feed(&mut s, &row(all[..1].to_vec()), 30).expect("four cards gone settles in the end");
        assert_eq!(out.changes.iter().filter(|c| c.kind == ChangeKind::Left).count(), 4);
    }

    #[test]
    fn cards_taken_away_together_settle_as_soon_as_the_hold_is_over() {
        // The still frames of the hold count toward the quiet spell: a fast game leaves about a
        // second of quiet between moves, not a hold and then a quiet spell.
        let config = SettleConfig::for_fps(10.0);
        let (quiet, missing) = (config.quiet_frames, config.missing_burst);
        let mut s = Settler::new(config);
        let all: Vec<CardView> = (0..5).map(|k| up(["AS", "2S", "3S", "4S", "5S"][k], 72.0 * k as f64)).collect();
        feed(&mut s, &row(all.clone()), quiet).expect("settles");
        let rest = row(all[missing..].to_vec());
        let frames = (1..=quiet * 4).find(|_| s.push(rest.clone(), Motion::STILL).is_some());
        assert_eq!(frames, Some(quiet * 2 + 1), "held for twice the quiet frames, then settled at once");
    }

    #[test]
    fn quiet_frames_scale_with_the_frame_rate() {
        assert_eq!(SettleConfig::for_fps(30.0).quiet_frames, 6);
        assert_eq!(SettleConfig::for_fps(60.0).quiet_frames, 12);
        assert_eq!(SettleConfig::for_fps(5.0).quiet_frames, 3);
    }
}
