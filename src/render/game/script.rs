//! From a game record to a script of frames: every input acted out by a hand (reach in, carry
//! the cards, withdraw), a rest with no hand in view after it, now and then a distraction (an
//! arm passing, a hand resting on the table's edge), and the timeline saying which frames
//! belong to which record line.

use std::ops::Range;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::GameError;
use super::physical::{PhysEntity, PhysTable};
use crate::cards::Card;
use crate::geometry::Pt;
use crate::layout::TableLayout;
use crate::render::scene::{Camera, PlacedCard};
use crate::rules::omphala::engine::{apply, check};
use crate::rules::omphala::input::{Action, Deal, Event, Input, Observation, Outcome};
use crate::rules::omphala::notation::{Item, Line, Record, parse};
use crate::rules::omphala::state::{GameState, Seat};

/// Skin colours the players' hands are drawn with.
pub(super) const SKINS: [[u8; 3]; 5] = [[224, 172, 140], [198, 134, 96], [141, 85, 52], [246, 204, 180], [92, 56, 38]];

/// What a comment line must start with (after `#`) to hold a deliberate illegal move.
pub const ILLEGAL_PREFIX: &str = "illegal:";

/// A stretch of frames: the cards still or moving from `from` to `to`, maybe a hand.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    pub frames: usize,
    pub from: Vec<PlacedCard>,
    /// Where the cards end when they move; `None` while they lie still.
    pub to: Option<Vec<PlacedCard>>,
    pub hand: Option<HandPath>,
}

/// A hand moving in a straight line over a segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandPath {
    pub from: Pt,
    pub to: Pt,
    /// The direction the fingers point (radians); the arm runs back from the palm.
    pub angle: f64,
    pub skin: [u8; 3],
}

/// What a timeline entry acted out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Deal,
    Action,
    Observation,
    Illegal,
    Undo,
    Agree,
}

/// One input acted out: the record line, the frames of its motion and of the rest after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TimelineEntry {
    /// 1-based line of the record.
    pub line: usize,
    pub text: String,
    pub kind: Kind,
    /// First and last frame of the motion (both equal to `rest_until` when nothing moves).
    pub start: usize,
    pub end: usize,
    /// Last frame of the rest after the motion: from `end + 1` to here the table is still and no
    /// hand is in view.
    pub rest_until: usize,
}

/// The whole video, ready to render.
#[derive(Clone, Debug)]
pub struct Script {
    pub segments: Vec<Segment>,
    pub timeline: Vec<TimelineEntry>,
    pub players: usize,
    /// The identity given to every Front Row card dealt face down (`?`), per seat.
    pub hidden_fronts: Vec<Vec<Card>>,
}

/// How long things take, seconds.
const START_REST: Range<f64> = 1.0..1.3;
const REST: Range<f64> = 0.8..1.3;
const READ_REST: Range<f64> = 1.3..1.7;
const ILLEGAL_REST: Range<f64> = 1.4..1.8;
/// The table after the last move, as the players look over the end of the game.
const END_REST: Range<f64> = 2.5..3.5;
const REACH: Range<f64> = 0.25..0.4;
const CARRY: Range<f64> = 0.45..0.75;
const DEAL_CARRY: Range<f64> = 0.3..0.45;
const DEAL_RETURN: Range<f64> = 0.2..0.3;
/// Chances, per input with a motion, of an arm passing over the table and of a hand resting
/// on its edge afterwards.
const PASSING_ARM: f64 = 0.06;
const RESTING_HAND: f64 = 0.05;

/// Builds the script of `record` (whose lines are `texts`), randomised by `seed`.
pub fn write_script(
    record: &Record,
    texts: &[&str],
    layout: &TableLayout,
    camera: &Camera,
    fps: f64,
    seed: u64,
) -> Result<Script, GameError> {
    let players = record.names().len();
    let hidden_fronts = bind_hidden_fronts(record, seed)?;
    let draws = drawn_cards(record);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5c41_7074);
    let mut skins = SKINS.to_vec();
    skins.rotate_left(rng.random_range(0..SKINS.len()));
    let mut b = Builder {
        layout,
        camera,
        fps,
        rng,
        table: PhysTable::new(Vec::new(), players),
        segments: Vec::new(),
        frames: 0,
        skins,
        draws,
        drawn: 0,
        timeline: Vec::new(),
        last_rest: 0,
    };
    let mut state = GameState::new(record.options());
    let inputs: std::collections::HashMap<usize, Input> = record.inputs().into_iter().collect();
    let mut dealt = false;
    for (index, line) in record.lines.iter().enumerate() {
        let text = texts.get(index).map_or(String::new(), |t| strip_comment(t));
        if let Some(action_text) = illegal_comment(line) {
            let (player, action) = parse_illegal(record, index, texts.get(index).copied().unwrap_or(""), action_text)?;
            if !dealt {
                return Err(GameError::bad(index + 1, "an illegal move comes before the deal"));
            }
            if check(&state, player, &action).is_ok() {
                return Err(GameError::bad(
                    index + 1,
                    format!(
                        "'# illegal: {}' is a legal move here; the comment must hold a refused one",
                        action_text.trim()
                    ),
                ));
            }
            b.illegal(index + 1, action_text.trim(), player, action)?;
            continue;
        }
        let Some(input) = inputs.get(&index).cloned() else { continue };
        let kind = match &input {
            Input::Act { .. } => Kind::Action,
            Input::Observe(Observation::Deal(_)) => Kind::Deal,
            Input::Observe(_) => Kind::Observation,
            Input::EndByAgreement => Kind::Agree,
            Input::Correct(_) => {
                return Err(GameError::bad(index + 1, "a correction is the operator's, not a move to act out"));
            }
        };
        let events = apply(&mut state, input.clone()).map_err(|why| GameError::illegal(index + 1, why.message))?;
        if let Input::Observe(Observation::Deal(deal)) = &input {
            b.set_up(deal, &hidden_fronts);
        }
        let start = b.frames;
        if let Input::Observe(Observation::Deal(deal)) = &input {
            b.deal(deal, &hidden_fronts);
            dealt = true;
        } else {
            // An attack on a face-down card: the attacker is slid forward while the target is shown.
            if let Input::Act { player, action: Action::Attack { with, .. } } = &input
                && events.iter().any(|e| matches!(e, Event::RevealNeeded { .. }))
            {
                let with = *with;
                b.motion(*player, move |t, _| t.held = Some(with));
            }
            b.play(&events);
        }
        let rest = if events.iter().any(|e| matches!(e, Event::RevealNeeded { .. })) { READ_REST } else { REST };
        b.close_entry(index + 1, text, kind, start, rest);
    }
    // The video ends at rest: a distraction after the last rest is cut, and the table stays
    // a few seconds more as the players look over the end of the game.
    let end = b.timeline.last().map_or(0, |e| e.rest_until + 1);
    while b.segments.last().is_some_and(|s| b.frames - s.frames >= end) {
        b.frames -= b.segments.pop().map_or(0, |s| s.frames);
    }
    b.still(END_REST, None);
    Ok(Script { segments: b.segments, timeline: b.timeline, players, hidden_fronts })
}

/// The text of a record line without its trailing comment.
fn strip_comment(text: &str) -> String {
    text.split('#').next().unwrap_or("").trim().to_string()
}

/// The move held by a `# illegal: ...` comment line.
fn illegal_comment(line: &Line) -> Option<&str> {
    match (&line.item, &line.comment) {
        (Item::Blank, Some(comment)) => comment.trim_start().strip_prefix(ILLEGAL_PREFIX),
        _ => None,
    }
}

/// Reads the record line inside an illegal comment with the notation's own parser (the seat
/// lines give it the names); errors point into the comment.
fn parse_illegal(record: &Record, index: usize, raw: &str, action_text: &str) -> Result<(Seat, Action), GameError> {
    let deal: Vec<Line> =
        record.lines.iter().filter(|l| matches!(l.item, Item::Seat(_) | Item::First(_))).cloned().collect();
    let header = Record { lines: deal.clone() }.to_string();
    let text = format!("{header}{}\n", action_text.trim());
    let offset = raw.find(action_text.trim()).map_or(0, |b| raw[..b].chars().count());
    match parse(&text) {
        Ok(parsed) => match parsed.lines.last().map(|l| &l.item) {
            Some(Item::Act { player, action }) => Ok((*player, *action)),
            _ => Err(GameError::bad(
                index + 1,
                "an illegal comment must hold an action, like '# illegal: Alice enhance 5H 9D'",
            )),
        },
        Err(e) if e.line == deal.len() + 1 => {
            Err(GameError::bad_at(index + 1, offset + e.column, format!("in the illegal comment: {}", e.message)))
        }
        Err(e) => Err(GameError::bad(index + 1, format!("in the illegal comment: {}", e.message))),
    }
}

/// Every card the record names as drawn, in order (the deck's order as far as it is seen).
fn drawn_cards(record: &Record) -> Vec<Card> {
    record.lines.iter().filter_map(|l| if let Item::Drew { card, .. } = l.item { Some(card) } else { None }).collect()
}

/// Gives each Front Row card dealt face down its identity: the card it is revealed as, followed
/// through the game (positions shift as entities are destroyed), or, never revealed, a card the
/// record never shows. Also judges the record: an illegal line is an error.
pub fn bind_hidden_fronts(record: &Record, seed: u64) -> Result<Vec<Vec<Card>>, GameError> {
    let mut state = GameState::new(record.options());
    // Per seat, per Front Row position: which dealt face-down card lies there, if one does.
    let mut tags: Vec<Vec<Option<(Seat, usize)>>> = Vec::new();
    let mut bound: Vec<Vec<Option<Card>>> = Vec::new();
    let mut seen = 0u64;
    for (index, input) in record.inputs() {
        if let Input::Observe(Observation::Deal(deal)) = &input {
            for (s, seat) in deal.seats.iter().enumerate() {
                tags.push(seat.front.iter().enumerate().map(|(k, c)| c.is_none().then_some((s, k))).collect());
                bound.push(seat.front.clone());
                for card in seat.front.iter().flatten().chain(&seat.back) {
                    seen |= 1 << card.index();
                }
            }
        }
        let events = apply(&mut state, input).map_err(|why| GameError::illegal(index + 1, why.message))?;
        for event in events {
            match event {
                Event::Attacked { defender, position, outcome: Outcome::Succeeded, .. } => {
                    tags[defender].remove(position);
                }
                Event::Retired { player, .. } => tags[player].push(None),
                Event::Revealed { player, position, card } => {
                    seen |= 1 << card.index();
                    if let Some(Some((s, k))) = tags[player].get(position) {
                        bound[*s][*k] = Some(card);
                    }
                }
                Event::Drew { card, .. } => seen |= 1 << card.index(),
                _ => {}
            }
        }
    }
    let mut unseen: Vec<Card> = Card::deck().into_iter().filter(|c| seen & (1 << c.index()) == 0).collect();
    rand::seq::SliceRandom::shuffle(unseen.as_mut_slice(), &mut ChaCha8Rng::seed_from_u64(seed ^ 0x6869_6464));
    let mut fill = || unseen.pop().ok_or_else(|| GameError::general("no card is left for a face-down Front Row card"));
    bound
        .into_iter()
        .map(|row| row.into_iter().map(|c| c.map_or_else(&mut fill, Ok)).collect::<Result<Vec<Card>, GameError>>())
        .collect()
}

struct Builder<'a> {
    layout: &'a TableLayout,
    camera: &'a Camera,
    fps: f64,
    rng: ChaCha8Rng,
    table: PhysTable,
    segments: Vec<Segment>,
    frames: usize,
    skins: Vec<[u8; 3]>,
    /// The record's drawn cards in order, and how many were drawn so far.
    draws: Vec<Card>,
    drawn: usize,
    timeline: Vec<TimelineEntry>,
    /// The last frame of the latest rest.
    last_rest: usize,
}

impl Builder<'_> {
    fn frames_for(&mut self, secs: Range<f64>) -> usize {
        ((self.rng.random_range(secs) * self.fps).round() as usize).max(2)
    }

    fn push(&mut self, frames: usize, from: Vec<PlacedCard>, to: Option<Vec<PlacedCard>>, hand: Option<HandPath>) {
        self.frames += frames;
        self.segments.push(Segment { frames, from, to, hand });
    }

    fn still(&mut self, secs: Range<f64>, hand: Option<HandPath>) {
        let frames = self.frames_for(secs);
        let cards = self.table.placed(self.layout);
        self.push(frames, cards, None, hand);
    }

    /// Closes a timeline entry whose motion began at frame `start`: a rest follows any motion.
    /// An input that moved nothing happened at the last rest frame before it.
    fn close_entry(&mut self, line: usize, text: String, kind: Kind, start: usize, rest: Range<f64>) {
        if self.frames == start {
            let at = self.last_rest;
            self.timeline.push(TimelineEntry { line, text, kind, start: at, end: at, rest_until: at });
            return;
        }
        let end = self.frames - 1;
        self.still(rest, None);
        let rest_until = self.frames - 1;
        self.last_rest = rest_until;
        self.timeline.push(TimelineEntry { line, text, kind, start, end, rest_until });
        self.distraction();
    }

    /// The direction from the table toward `seat`'s edge, a unit vector.
    fn toward_seat(&self, seat: Seat) -> Pt {
        let angle = self.layout.seats[seat % self.layout.seats.len()].front.angle;
        Pt::new(-angle.sin(), angle.cos())
    }

    /// Where `seat`'s hand waits out of view: beyond the table's edge behind `near`, far enough
    /// that the fingertips are outside the frame.
    fn home(&self, seat: Seat, near: Pt) -> Pt {
        self.out_of_view(seat, near, self.toward_seat(seat))
    }

    /// The first point from `start` along `step` (a unit vector) where `seat`'s hand, fingers
    /// pointing away from the seat, lies wholly outside the frame.
    fn out_of_view(&self, seat: Seat, start: Pt, step: Pt) -> Pt {
        let dir = self.toward_seat(seat);
        let size = self.camera.size;
        let outside = |p: Pt| {
            let q = self.camera.table_to_image.apply(p);
            q.x < -4.0 || q.y < -4.0 || q.x > f64::from(size.width) + 4.0 || q.y > f64::from(size.height) + 4.0
        };
        let across = Pt::new(-dir.y, dir.x);
        let mut palm = start;
        for _ in 0..300 {
            let hand = [(0.0, -70.0), (0.0, 70.0), (135.0, -70.0), (135.0, 0.0), (135.0, 70.0)].map(|(ahead, side)| {
                Pt::new(palm.x - dir.x * ahead + across.x * side, palm.y - dir.y * ahead + across.y * side)
            });
            if outside(palm) && hand.iter().all(|&p| outside(p)) {
                break;
            }
            palm = Pt::new(palm.x + step.x * 20.0, palm.y + step.y * 20.0);
        }
        palm
    }

    /// Where a hand of `seat` holds cards centred at `at`: the palm behind them, the fingers
    /// over them.
    fn grip(&self, seat: Seat, at: Pt, offset: f64) -> Pt {
        let dir = self.toward_seat(seat);
        Pt::new(at.x + dir.x * offset, at.y + dir.y * offset)
    }

    fn hand(&mut self, seat: Seat, from: Pt, to: Pt) -> HandPath {
        let dir = self.toward_seat(seat);
        let angle = (-dir.y).atan2(-dir.x) + self.rng.random_range(-0.25..0.25);
        HandPath { from, to, angle, skin: self.skins[seat % self.skins.len()] }
    }

    /// One move by `seat`'s hand: it reaches in, carries what `change` moves, and withdraws.
    /// Nothing happens when `change` moves nothing.
    fn motion(&mut self, seat: Seat, change: impl FnOnce(&mut PhysTable, &mut ChaCha8Rng)) {
        let before = self.table.placed(self.layout);
        change(&mut self.table, &mut self.rng);
        let after = self.table.placed(self.layout);
        let Some((from, to)) = moved_centres(&before, &after) else { return };
        let offset = self.rng.random_range(60.0..85.0);
        let (pick, drop) = (self.grip(seat, from, offset), self.grip(seat, to, offset));
        let (home_in, home_out) = (self.home(seat, pick), self.home(seat, drop));
        let reach = self.frames_for(REACH);
        let path = self.hand(seat, home_in, pick);
        self.push(reach, before.clone(), None, Some(path));
        let carry = self.frames_for(CARRY);
        let path = HandPath { from: pick, to: drop, ..path };
        self.push(carry, before, Some(after.clone()), Some(path));
        let withdraw = self.frames_for(REACH);
        self.push(withdraw, after, None, Some(HandPath { from: drop, to: home_out, ..path }));
    }

    /// The table before the deal: the whole deck, face down, for a moment. The deck is ordered
    /// so that the deal and then the record's draws come off its top.
    fn set_up(&mut self, deal: &Deal, fronts: &[Vec<Card>]) {
        let dealt: Vec<Card> = deal_order(deal, fronts).into_iter().map(|(_, _, c)| c).collect();
        let mut deck: Vec<Card> = Card::deck().into_iter().filter(|c| !dealt.contains(c)).collect();
        self.sort_deck(&mut deck);
        deck.extend(dealt.iter().rev());
        self.table = PhysTable::new(deck, deal.seats.len());
        for card in Card::deck() {
            self.table.land(card, &mut self.rng, false);
        }
        self.still(START_REST, None);
    }

    /// The deal: the dealer (the seat before the first player) takes each card from the deck
    /// in turn, round the table, Front Row cards face down first, then the Back Row face up.
    fn deal(&mut self, deal: &Deal, fronts: &[Vec<Card>]) {
        let players = deal.seats.len();
        let order = deal_order(deal, fronts);
        let dealer = (deal.first + players - 1) % players;
        let offset = self.rng.random_range(60.0..80.0);
        let deck_grip = self.grip(dealer, self.layout.deck.centre, offset);
        let home = self.home(dealer, deck_grip);
        let frames = self.frames_for(REACH);
        let path = self.hand(dealer, home, deck_grip);
        self.push(frames, self.table.placed(self.layout), None, Some(path));
        for (i, &(seat, front, card)) in order.iter().enumerate() {
            let before = self.table.placed(self.layout);
            self.table.take_from_deck(card);
            let entity = PhysEntity { base_up: !front, ..PhysEntity::back_row(card) };
            if front {
                self.table.seats[seat].front.push(Some(entity));
            } else {
                self.table.put_back(seat, entity);
            }
            self.table.land(card, &mut self.rng, false);
            let after = self.table.placed(self.layout);
            let target =
                self.grip(dealer, after.iter().find(|p| p.card == card).map_or(deck_grip, |p| p.centre), offset);
            let frames = self.frames_for(DEAL_CARRY);
            let carry = HandPath { from: deck_grip, to: target, ..path };
            self.push(frames, before, Some(after.clone()), Some(carry));
            let (back_to, secs) = if i + 1 < order.len() { (deck_grip, DEAL_RETURN) } else { (home, REACH) };
            let frames = self.frames_for(secs);
            self.push(frames, after, None, Some(HandPath { from: target, to: back_to, ..path }));
        }
    }

    /// Orders deck cards so that the ones the record will draw lie on top in drawing order (a
    /// face-down deck's order is never seen, but the ground truth names every card).
    fn sort_deck(&self, deck: &mut [Card]) {
        let upcoming = &self.draws[self.drawn.min(self.draws.len())..];
        let key = |c: &Card| upcoming.iter().position(|d| d == c).map_or(usize::MAX, |p| p);
        deck.sort_by_key(|c| std::cmp::Reverse(key(c)));
    }

    /// Acts out what the engine did on one input.
    fn play(&mut self, events: &[Event]) {
        for event in events {
            self.play_event(event);
        }
    }

    fn play_event(&mut self, event: &Event) {
        match *event {
            Event::Drew { player, card } => {
                self.drawn += 1;
                self.motion(player, move |t, rng| {
                    t.take_from_deck(card);
                    t.put_back(player, PhysEntity::back_row(card));
                    t.land(card, rng, false);
                });
            }
            Event::Discarded { player, entity } => {
                let base = entity.card;
                self.motion(player, move |t, rng| {
                    if let Some(e) = base.and_then(|b| t.take_back(player, b)) {
                        t.discard_entity(&e, rng);
                    }
                });
            }
            Event::RevealNeeded { player, position } | Event::Revealed { player, position, .. } => {
                self.motion(player, move |t, _| {
                    if let Some(e) = t.front_mut(player, position) {
                        e.base_up = true;
                    }
                });
            }
            Event::Attacked { attacker, defender, position, outcome, .. } => match outcome {
                Outcome::Succeeded => {
                    self.destroy(attacker, defender, position);
                    self.table.held = None;
                }
                Outcome::Failed => {
                    self.motion(defender, move |t, _| {
                        if let Some(e) = t.front_mut(defender, position) {
                            e.base_up = false;
                        }
                    });
                    if self.table.held.is_some() {
                        self.motion(attacker, move |t, _| t.held = None);
                    }
                }
            },
            Event::AttackerDiscarded { player, entity } => {
                let base = entity.card;
                self.motion(player, move |t, rng| {
                    if let Some(e) = base.and_then(|b| t.take_back(player, b)) {
                        t.discard_entity(&e, rng);
                    }
                });
            }
            Event::Stole { thief, victim, target, .. } => {
                if let Some(card) = target.card {
                    self.steal(thief, victim, card);
                }
            }
            Event::Retired { player, entity, .. } => {
                if let Some(card) = entity.card {
                    self.retire(player, card);
                }
            }
            Event::Shielded { player, diamond, position } => self.shield(player, diamond, position),
            Event::Enhanced { player, heart, target } => self.enhance(player, heart, target),
            Event::RedReset { player, .. } => self.red_reset(player),
            // An attack's target left face up when the players stop is turned down again.
            Event::GameOver { .. } => {
                for seat in 0..self.table.seats.len() {
                    self.motion(seat, move |t, _| {
                        for e in t.seats[seat].front.iter_mut().flatten() {
                            e.base_up = false;
                        }
                    });
                }
            }
            _ => {}
        }
    }

    /// A Front Row entity goes to the discard pile; the ones right of it slide left.
    fn destroy(&mut self, by: Seat, defender: Seat, position: usize) {
        self.motion(by, move |t, rng| {
            if let Some(e) = t.take_front(defender, position) {
                t.discard_entity(&e.face_up(), rng);
            }
        });
        if self.table.has_gaps(defender) {
            self.motion(defender, move |t, _| t.close_gaps(defender));
        }
    }

    fn retire(&mut self, player: Seat, card: Card) {
        self.motion(player, move |t, rng| {
            if let Some(e) = t.take_back(player, card) {
                t.land_entity(&e, rng);
                t.retire(player, e);
            }
        });
    }

    fn steal(&mut self, thief: Seat, victim: Seat, card: Card) {
        self.motion(thief, move |t, rng| {
            if let Some(e) = t.take_back(victim, card) {
                t.land_entity(&e, rng);
                t.put_back(thief, e);
            }
        });
    }

    fn shield(&mut self, player: Seat, diamond: Card, position: usize) {
        self.motion(player, move |t, rng| {
            if t.front_mut(player, position).is_some() && t.take_back(player, diamond).is_some() {
                let e = t.front_mut(player, position).expect("checked above");
                e.modifier = Some(diamond);
                e.modifier_up = false;
                t.land(diamond, rng, false);
            }
        });
    }

    fn enhance(&mut self, player: Seat, heart: Card, target: Card) {
        self.motion(player, move |t, rng| {
            if t.back_entity_mut(player, target).is_some() && t.take_back(player, heart).is_some() {
                let e = t.back_entity_mut(player, target).expect("checked above");
                e.modifier = Some(heart);
                e.modifier_up = true;
                t.land(heart, rng, false);
            }
        });
    }

    /// The whole Back Row goes onto the deck, face down; the deck is then as shuffled.
    fn red_reset(&mut self, player: Seat) {
        let mut deck_after = None;
        self.motion(player, |t, _| {
            let row = std::mem::take(&mut t.seats[player].back);
            let cards: Vec<Card> = row.iter().flatten().flat_map(PhysEntity::cards).collect();
            t.deck.extend(cards);
            deck_after = Some(t.deck.clone());
        });
        if let Some(mut deck) = deck_after {
            self.sort_deck(&mut deck);
            self.table.deck = deck;
        }
    }

    /// A deliberate illegal move: done as if it were legal, left for a while, then put back.
    fn illegal(&mut self, line: usize, text: &str, player: Seat, action: Action) -> Result<(), GameError> {
        can_act_out(&self.table, player, &action).map_err(|why| GameError::bad(line, why))?;
        let before = self.table.clone();
        let start = self.frames;
        match action {
            Action::Draw => {
                let card = *self.table.deck.last().expect("checked");
                self.motion(player, move |t, rng| {
                    t.take_from_deck(card);
                    t.put_back(player, PhysEntity::back_row(card));
                    t.land(card, rng, false);
                });
            }
            Action::Attack { with, defender, position } => {
                self.destroy(player, defender, position);
                self.retire(player, with);
            }
            Action::Steal { with, victim, target } => {
                self.steal(player, victim, target);
                self.retire(player, with);
            }
            Action::Shield { diamond, position } => self.shield(player, diamond, position),
            Action::Enhance { heart, target } => self.enhance(player, heart, target),
            Action::RedReset => self.red_reset(player),
            Action::Discard(card) => self.motion(player, move |t, rng| {
                if let Some(e) = t.take_back(player, card) {
                    t.discard_entity(&e, rng);
                }
            }),
            Action::EndTurn => {}
        }
        self.close_entry(line, text.to_string(), Kind::Illegal, start, ILLEGAL_REST);
        let start = self.frames;
        self.motion(player, move |t, _| *t = before);
        self.close_entry(line, text.to_string(), Kind::Undo, start, REST);
        Ok(())
    }

    /// Now and then, after a rest: an arm passing over the table, or a hand resting on its edge
    /// for a while. No card moves.
    fn distraction(&mut self) {
        let seats = self.layout.seats.len();
        if self.rng.random_bool(PASSING_ARM) {
            let seat = self.rng.random_range(0..seats);
            let (min, max) = self.layout.extent();
            let middle = Pt::new((min.x + max.x) / 2.0, self.rng.random_range(min.y * 0.3..max.y * 0.3));
            let a = self.out_of_view(seat, middle, Pt::new(-1.0, 0.0));
            let b = self.out_of_view(seat, middle, Pt::new(1.0, 0.0));
            let (from, to) = if self.rng.random_bool(0.5) { (a, b) } else { (b, a) };
            let path = self.hand(seat, from, to);
            self.still(0.7..1.2, Some(path));
        }
        if self.rng.random_bool(RESTING_HAND) {
            let seat = self.rng.random_range(0..seats);
            let row = self.layout.seats[seat].front;
            let slot = row.slot(self.rng.random_range(0..6));
            let offset = self.rng.random_range(110.0..150.0);
            let rest_at = self.grip(seat, slot, offset);
            let home = self.home(seat, rest_at);
            let path = self.hand(seat, home, rest_at);
            self.still(REACH, Some(path));
            self.still(1.5..3.0, Some(HandPath { from: rest_at, to: rest_at, ..path }));
            self.still(REACH, Some(HandPath { from: rest_at, to: home, ..path }));
        }
    }
}

/// The cards of the deal in the order they are dealt: (seat, to the Front Row, card).
fn deal_order(deal: &Deal, fronts: &[Vec<Card>]) -> Vec<(Seat, bool, Card)> {
    let mut order = Vec::new();
    for round in 0..7 {
        for (seat, dealt) in deal.seats.iter().enumerate() {
            let card = if round < 2 { fronts[seat].get(round) } else { dealt.back.get(round - 2) };
            order.extend(card.map(|&c| (seat, round < 2, c)));
        }
    }
    order
}

/// Whether the cards an illegal move needs lie where it needs them.
fn can_act_out(table: &PhysTable, player: Seat, action: &Action) -> Result<(), String> {
    let mut t = table.clone();
    let back = |t: &mut PhysTable, seat: Seat, card: Card| {
        t.back_entity_mut(seat, card).copied().ok_or_else(|| format!("{card} is not in that player's Back Row"))
    };
    let front = |t: &mut PhysTable, seat: Seat, position: usize| {
        t.front_mut(seat, position).copied().ok_or_else(|| format!("no Front Row entity at position {}", position + 1))
    };
    if player >= t.seats.len() {
        return Err("no such player".into());
    }
    match *action {
        Action::Draw if t.deck.is_empty() => Err("the deck is empty: nothing to draw".into()),
        Action::Draw | Action::RedReset => Ok(()),
        Action::Attack { with, defender, position } => {
            back(&mut t, player, with)?;
            front(&mut t, defender, position).map(|_| ())
        }
        Action::Steal { with, victim, target } => {
            back(&mut t, player, with)?;
            back(&mut t, victim, target).map(|_| ())
        }
        Action::Shield { diamond, position } => {
            let card = back(&mut t, player, diamond)?;
            let target = front(&mut t, player, position)?;
            if card.modifier.is_some() || target.modifier.is_some() {
                return Err("a card carrying a modifier, or already modified, cannot be laid as one".into());
            }
            Ok(())
        }
        Action::Enhance { heart, target } => {
            let card = back(&mut t, player, heart)?;
            let base = back(&mut t, player, target)?;
            if heart == target || card.modifier.is_some() || base.modifier.is_some() {
                return Err("a card carrying a modifier, or already modified, cannot be laid as one".into());
            }
            Ok(())
        }
        Action::Discard(card) => back(&mut t, player, card).map(|_| ()),
        Action::EndTurn => Err("ending a turn moves no card: nothing to act out".into()),
    }
}

/// The centres of the cards that moved or turned over, before and after (mean of each), or
/// `None` when nothing changed.
fn moved_centres(before: &[PlacedCard], after: &[PlacedCard]) -> Option<(Pt, Pt)> {
    let mut from = Vec::new();
    let mut to = Vec::new();
    for end in after {
        if let Some(start) = before.iter().find(|c| c.card == end.card)
            && start != end
        {
            from.push(start.centre);
            to.push(end.centre);
        }
    }
    let mean = |pts: &[Pt]| {
        let n = pts.len() as f64;
        Pt::new(pts.iter().map(|p| p.x).sum::<f64>() / n, pts.iter().map(|p| p.y).sum::<f64>() / n)
    };
    (!from.is_empty()).then(|| (mean(&from), mean(&to)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAY: &str = "seat Alice front ? ? back QS 5H 2D 7S 9C
seat Bob front ? ? back KC JD 4H 6S 8C
first Alice
Alice attack 9C Bob 1
Bob revealed 1 3H
Alice attack QS Bob 1
Bob revealed 1 KH
";

    #[test]
    fn a_face_down_card_is_bound_to_its_reveal_through_position_shifts() {
        // Bob's first card is destroyed; his second, now at position 1, is revealed as K♥.
        let record = parse(PLAY).unwrap();
        let bound = bind_hidden_fronts(&record, 1).unwrap();
        let card = |code: &str| code.parse::<Card>().unwrap();
        assert_eq!(bound[1], [card("3H"), card("KH")]);
        // Alice's are never seen: any two other cards, none the record names.
        let named: Vec<Card> = PLAY.split_whitespace().filter_map(|w| w.parse::<Card>().ok()).collect();
        assert_ne!(bound[0][0], bound[0][1]);
        assert!(bound[0].iter().all(|c| !named.contains(c)), "{:?}", bound[0]);
    }

    #[test]
    fn an_illegal_line_is_named() {
        let record = parse(&format!("{PLAY}Bob enhance 4H JD\n")).unwrap();
        let error = bind_hidden_fronts(&record, 1).unwrap_err();
        assert!(error.illegal && error.line == 8, "{error}");
        assert!(error.to_string().starts_with("line 8: illegal: It is Alice's turn"), "{error}");
    }

    #[test]
    fn an_illegal_comment_is_read_with_the_notation_and_must_be_refused() {
        let record = parse(PLAY).unwrap();
        let (player, action) =
            parse_illegal(&record, 7, "# illegal: Bob attack 4H Alice 2", "Bob attack 4H Alice 2").unwrap();
        assert_eq!((player, action), (1, Action::Attack { with: "4H".parse().unwrap(), defender: 0, position: 1 }));
        let error = parse_illegal(&record, 7, "# illegal: Bob attack 4X Alice 2", "Bob attack 4X Alice 2").unwrap_err();
        assert_eq!((error.line, error.column), (8, Some(23)), "{error}");
        assert!(can_act_out(&PhysTable::new(Vec::new(), 2), 0, &Action::EndTurn).is_err());
    }
}
