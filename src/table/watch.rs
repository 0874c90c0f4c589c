//! The settled view of the table over frames, one frame at a time: the frame's cards are
//! detected, placed in the seats' rows and settled. Without a layout, the standard one is fitted
//! to the deal once a deal settles in image pixels. The command line and the window's referee
//! thread both drive this.

use opencv::core::Mat;

use super::{
    CardTracker, CardView, EntityView, Face, Motion, MotionGate, Row, SettleConfig, Settler, TableLayout, TableView,
    TrackConfig, learn_layout, place_frame, place_in_image,
};
use crate::cards::Card;
use crate::geometry::{Homography, Pt, card_corners};
use crate::vision::activity::ActivityMap;
use crate::vision::cards::{CardDetection, CardDetector, Reading, ReadingReuse};

/// How often a settled view that stays is given again (so that a referee can time a desync, and
/// search further on a view it could not explain at first).
pub const AGAIN_SECS: f64 = 1.0;

/// What one frame gave.
#[derive(Clone, Debug, Default)]
pub struct Watched {
    /// The cards detected in the frame, in image pixels.
    pub detections: Vec<CardDetection>,
    /// The cards as followed over frames (each settled where its part of the picture is quiet,
    /// named from many readings), in image pixels: what the window marks.
    pub cards: Vec<CardDetection>,
    /// The settled view to rule on at this frame, if one settled (or stayed `AGAIN_SECS`).
    pub view: Option<TableView>,
    pub frame: u64,
    pub ms: u64,
}

/// Watches one table.
pub struct TableWatch {
    detector: CardDetector,
    /// An unchanged picture is given its last reading again (`ReadingReuse`).
    reuse: ReadingReuse,
    gate: MotionGate,
    /// Each card followed over frames in image pixels; its map of where the picture changes
    /// also tells the settler whether cards where they are played moved.
    tracker: CardTracker,
    /// For each cell of the tracker's activity map, whether it lies where cards are played (the
    /// layout's rows and piles), once a layout is known and the frame's size seen.
    in_play: Option<Vec<bool>>,
    settler: Settler,
    /// Frames read a second (the settler's rate).
    fps: f64,
    layout: Option<TableLayout>,
    /// The layout was fitted to the deal here (not given).
    fitted: bool,
    /// A face-up card was seen on the discard pile's place: the piles lie where the layout has
    /// them (see `deck_on_pile`).
    pile_seen: bool,
    players: usize,
    /// Each frame is a still photo of the table (a folder of photos): it counts as settled alone.
    stills: bool,
    given_at: f64,
    last: Option<(TableView, u64, u64)>,
}

impl TableWatch {
    /// Reads the cards with an enrolled deck's patches voting (see `CardDetector::set_profile`).
    pub fn read_with(&mut self, profile: &crate::vision::cards::decks::enroll::DeckProfile) {
        self.detector.set_profile(profile);
        self.reuse.forget();
    }

    /// `layout`: where each seat's rows lie, or `None` to fit the standard layout of `players`
    /// seats to the deal.
    pub fn new(detector: CardDetector, layout: Option<TableLayout>, players: usize, fps: f64, stills: bool) -> Self {
        let config = TrackConfig::for_fps(fps, stills);
        // The settler sees the frames read.
        let read_rate = config.read_rate(fps);
        TableWatch {
            detector,
            reuse: ReadingReuse::new(stills),
            gate: MotionGate::new(),
            tracker: CardTracker::new(config, fps),
            in_play: None,
            settler: Settler::new(SettleConfig::for_fps(read_rate)),
            fps: read_rate,
            layout,
            fitted: false,
            pile_seen: false,
            players,
            stills,
            given_at: f64::NEG_INFINITY,
            last: None,
        }
    }

    /// The layout in use: the one given, or the one fitted to the deal (`None` before the deal).
    pub fn layout(&self) -> Option<&TableLayout> {
        self.layout.as_ref()
    }

    /// Whether the layout in use was fitted here, to the deal or by hand (rather than given).
    pub fn fitted(&self) -> bool {
        self.fitted
    }

    /// Uses `layout` from the next frame on: one adjusted by hand on the live image.
    pub fn set_layout(&mut self, layout: TableLayout) {
        self.layout = Some(layout);
        self.fitted = true;
        self.in_play = None;
    }

    /// Detects, places and settles one frame taken `time_secs` after the source started. Of a
    /// video, the cards of every `stride`-th frame are read (`TrackConfig`); the others only
    /// show where the picture moves.
    pub fn push(&mut self, image: &Mat, frame: u64, time_secs: f64) -> opencv::Result<Watched> {
        let ms = (time_secs * 1000.0) as u64;
        if !self.tracker.config().reads(frame) {
            self.tracker.observe(image)?;
            return Ok(Watched { detections: Vec::new(), cards: self.tracker.shown_cards(), view: None, frame, ms });
        }
        let Reading { detections, fresh } = self.reuse.read(&self.detector, image)?;
        self.tracker.push_read(image, &detections, fresh)?;
        let cards = self.tracker.shown_cards();
        let mut motion = if self.stills { Motion::STILL } else { self.gate.measure(image)? };
        if !self.stills
            && let Some(layout) = &self.layout
        {
            // A hand moving elsewhere (resting at the table's edge, holding the deck above it)
            // moves no card: only change where cards are played counts.
            let activity = self.tracker.activity();
            let to_table = layout.image_to_table();
            let cells = activity.cell_centres();
            let mask = self.in_play.get_or_insert_with(|| {
                cells.iter().map(|&c| crate::table::place::in_play(to_table.apply(c), layout)).collect()
            });
            if mask.len() == cells.len() {
                motion.changed = activity.changed_share_in(mask, self.tracker.config().stride);
            } else {
                self.in_play = None;
            }
        }
        // The deal the layout is fitted to now settled in image pixels: it is given as settled at
        // once (players often start playing within a second of dealing).
        let mut fitted_now = false;
        if self.layout.is_none() {
            if !self.stills {
                // Before the deal is fitted, only change near the cards counts: hands resting at
                // the table's edge or holding the deck away from the rows do not keep the deal
                // from settling.
                let activity = self.tracker.activity();
                let mask = near_cards(&activity.cell_centres(), &detections);
                motion.changed = activity.changed_share_in(&mask, self.tracker.config().stride);
            }
            fitted_now = self.fit_layout(&detections, motion);
        }
        let Some(layout) = &self.layout else {
            return Ok(Watched { detections, cards, view: None, frame, ms });
        };
        let mut view = place_frame(image, &detections, layout)?;
        if self.fitted && !self.pile_seen && deck_on_pile(&view) {
            // The deck was put down after the deal was fitted, on the side the fit gave the
            // pile: the two places change sides.
            let mut moved = layout.clone();
            std::mem::swap(&mut moved.deck.centre, &mut moved.discard.centre);
            view = place_frame(image, &detections, &moved)?;
            self.layout = Some(moved);
            self.in_play = None;
        }
        self.pile_seen |= view.discard.is_some_and(|c| c.face == Face::Up);
        let Some(layout) = &self.layout else {
            return Ok(Watched { detections, cards, view: None, frame, ms });
        };
        read_unread(&self.detector, image, &mut view, layout)?;
        // The view settled last, once a frame (a photo counts as settled alone).
        let last_settled = if self.stills { None } else { self.settler.view() };
        keep_covered(last_settled.as_ref(), &mut view, layout, self.tracker.activity());
        if !self.stills
            && !fitted_now
            && changed_where_busy(
                last_settled.as_ref(),
                &view,
                layout,
                self.tracker.activity(),
                self.settler.config().match_distance,
            )
        {
            motion.changed = 1.0;
        }
        if self.stills || fitted_now {
            motion = Motion::STILL;
            self.settler = Settler::new(SettleConfig::for_fps(self.fps));
            for _ in 1..self.settler.config().quiet_frames {
                self.settler.push(view.clone(), Motion::STILL);
            }
        }
        let settled = match self.settler.push(view, motion) {
            Some(settled) => Some(settled.view),
            None if time_secs - self.given_at >= AGAIN_SECS => self.settler.view(),
            None => None,
        };
        if let Some(view) = &settled {
            self.given_at = time_secs;
            self.last = Some((view.clone(), frame, ms));
        }
        Ok(Watched { detections, cards, view: settled, frame, ms })
    }

    /// The source has ended: the last settled view once more, `AGAIN_SECS` later.
    pub fn finish(&mut self) -> Option<Watched> {
        let (view, frame, ms) = self.last.take()?;
        let ms = ms + (AGAIN_SECS * 1000.0) as u64;
        Some(Watched { detections: Vec::new(), cards: Vec::new(), view: Some(view), frame, ms })
    }

    /// Before a layout: waits for the deal to settle in image pixels, then fits the standard
    /// layout to it. Whether it was fitted now.
    fn fit_layout(&mut self, detections: &[CardDetection], motion: Motion) -> bool {
        if self.stills {
            for _ in 1..self.settler.config().quiet_frames {
                self.settler.push(place_in_image(detections), motion);
            }
        }
        if self.settler.push(place_in_image(detections), motion).is_some()
            && let Ok(learnt) = learn_layout(detections, self.players)
        {
            self.layout = Some(learnt);
            self.fitted = true;
            return true;
        }
        false
    }
}

/// Whether the view has the deck on the discard pile's place: a face-down card there and none
/// on the deck's. Discarded cards lie face up, so before any has, that card is the deck.
fn deck_on_pile(view: &TableView) -> bool {
    view.discard.is_some_and(|c| c.face == Face::Down) && !view.deck
}

/// Share of a card's part of the picture that changed lately above which it is still being moved.
const BUSY_CARD: f64 = 0.05;

/// Whether a card the frame shows and the settled view lacks, or a settled card the frame lacks,
/// lies where the picture changed lately. A card carried in a hand that slows over a row looks
/// laid there for a frame or two, too short for the picture as a whole to count as moving: a
/// change counts only once its own part of the picture is quiet.
fn changed_where_busy(
    settled: Option<&TableView>,
    view: &TableView,
    layout: &TableLayout,
    activity: &ActivityMap,
    near: f64,
) -> bool {
    let Some(settled) = settled else { return false };
    let Some(to_image) = layout.image_to_table().inverse() else { return false };
    let (now, before) = (placed_cards(view), placed_cards(settled));
    let lacks = |cards: &[(Pt, Face, bool)], (at, face, modifier): (Pt, Face, bool)| {
        !cards.iter().any(|&(c, f, m)| f == face && m == modifier && c.distance(at) < near)
    };
    let mut changed = now.iter().filter(|&&c| lacks(&before, c)).chain(before.iter().filter(|&&c| lacks(&now, c)));
    changed.any(|&(at, _, _)| activity.busy_share(&card_square(at, &to_image)) > BUSY_CARD)
}

/// Share of a card's part of the picture coloured like skin above which a hand lies over it.
const UNDER_HAND: f64 = 0.3;

/// A hand lying still over a row hides what it covers: a card the settled view holds where the
/// picture is now skin and the frame finds no card is covered, neither gone nor moved, and stays
/// in the row. The hand's stillness would otherwise let a view without the covered card settle,
/// and a move that card took part in be inferred from its absence. Only a card missing is kept:
/// skin colour alone is no hand (many decks have red backs), and a card the frame does find is
/// evidence.
fn keep_covered(settled: Option<&TableView>, view: &mut TableView, layout: &TableLayout, activity: &ActivityMap) {
    let Some(settled) = settled else { return };
    let Some(to_image) = layout.image_to_table().inverse() else { return };
    let covered = |at: Pt| activity.skin_share(&card_square(at, &to_image)) > UNDER_HAND;
    // A card read elsewhere in the frame has moved (an attacker slid forward under the hand
    // holding it): it is not kept where it lay.
    let shown = view.shown_cards();
    let moved = |e: &EntityView| {
        [Some(e.base), e.modifier].iter().flatten().any(|c| c.shown().is_some_and(|c| shown.contains(&c)))
    };
    let hidden =
        |e: &EntityView| !moved(e) && (covered(e.base.centre) || e.modifier.is_some_and(|m| covered(m.centre)));
    for ((seat, was), zones) in view.seats.iter_mut().zip(&settled.seats).zip(&layout.seats) {
        keep_missing_in_row(&mut seat.front, &was.front, &zones.front, &hidden);
        keep_missing_in_row(&mut seat.back, &was.back, &zones.back, &hidden);
    }
    if view.discard.is_none() && settled.discard.is_some_and(|c| covered(c.centre)) {
        view.discard = settled.discard;
    }
    if !view.deck && settled.deck && covered(layout.deck.centre) {
        view.deck = true;
    }
}

/// `keep_covered` for one row: each settled entity `hidden` now that the frame has no entity
/// near is put back, the row in order along its line.
fn keep_missing_in_row(
    row: &mut Vec<EntityView>,
    was: &[EntityView],
    line: &Row,
    hidden: &impl Fn(&EntityView) -> bool,
) {
    let slot = line.step.x.hypot(line.step.y);
    let mut kept = false;
    for k in was.iter().filter(|e| hidden(e)) {
        if !row.iter().any(|e| e.base.centre.distance(k.base.centre) < slot / 2.0) {
            row.push(*k);
            kept = true;
        }
    }
    if kept {
        row.sort_by(|a, b| line.locate(a.base.centre).0.total_cmp(&line.locate(b.base.centre).0));
    }
}

/// Half the side of the square taken as a card's part of the picture, millimetres: a card is
/// 63 × 88 mm, lying along or across the square.
const CARD_REACH_MM: f64 = 40.0;

/// A card's part of the picture: the square of `CARD_REACH_MM` round `at` (table millimetres),
/// in image pixels.
fn card_square(at: Pt, to_image: &Homography) -> [Pt; 4] {
    let h = CARD_REACH_MM;
    [Pt::new(-h, -h), Pt::new(h, -h), Pt::new(h, h), Pt::new(-h, h)]
        .map(|d| to_image.apply(Pt::new(at.x + d.x, at.y + d.y)))
}

/// Every card of a view in the rows, on the discard pile or loose: where it lies, which way up,
/// and whether it is a modifier.
fn placed_cards(view: &TableView) -> Vec<(Pt, Face, bool)> {
    let mut out = Vec::new();
    for entity in view.seats.iter().flat_map(|s| s.front.iter().chain(&s.back)) {
        out.push((entity.base.centre, entity.base.face, false));
        out.extend(entity.modifier.map(|m| (m.centre, m.face, true)));
    }
    out.extend(view.discard.iter().chain(&view.loose).map(|c| (c.centre, c.face, false)));
    out
}

/// For each cell centre, whether it lies on or beside a detected card: within one and a half
/// times the card's half diagonal of its centre.
fn near_cards(cells: &[Pt], detections: &[CardDetection]) -> Vec<bool> {
    let discs: Vec<(Pt, f64)> = detections
        .iter()
        .filter_map(|d| d.quad)
        .map(|q| {
            let corners = q.map(|[x, y]| Pt::new(f64::from(x), f64::from(y)));
            let centre =
                Pt::new(corners.iter().map(|p| p.x).sum::<f64>() / 4.0, corners.iter().map(|p| p.y).sum::<f64>() / 4.0);
            let half_diagonal = corners.iter().map(|p| p.distance(centre)).fold(0.0, f64::max);
            (centre, 1.5 * half_diagonal)
        })
        .collect();
    cells.iter().map(|c| discs.iter().any(|(centre, r)| c.distance(*centre) < *r)).collect()
}

/// Face-up row cards the frame's reading left unread, and the bases of Front Row stacks, read
/// again by their corners where the layout says each lies: two cards dealt touching make one
/// outline that reads as neither card, and a stack is no card-shaped outline, but the row tells
/// where each card is and how it is turned.
fn read_unread(detector: &CardDetector, image: &Mat, view: &mut TableView, layout: &TableLayout) -> opencv::Result<()> {
    let Some(to_image) = layout.image_to_table().inverse() else { return Ok(()) };
    let mut unread = Vec::new();
    for (s, (seat, zones)) in view.seats.iter().zip(&layout.seats).enumerate() {
        for (front, entities, row) in [(false, &seat.back, zones.back), (true, &seat.front, zones.front)] {
            for (e, entity) in entities.iter().enumerate() {
                // A target turned up under its shield shows only its far end, the index there:
                // the stack reads as two backs unless that corner is read.
                let under_shield = front && entity.base.face == Face::Down && entity.modifier.is_some();
                for (modifier, card) in [(false, Some(&entity.base)), (true, entity.modifier.as_ref())] {
                    let unread_face = |c: &&CardView| c.face == Face::Up && c.card.is_none();
                    let Some(card) = card.filter(|c| unread_face(c) || (under_shield && !modifier)) else { continue };
                    let quad = card_corners(card.centre, row.angle)
                        .map(|p| to_image.apply(p))
                        .map(|p| [p.x as f32, p.y as f32]);
                    unread.push(((s, front, e, modifier), quad));
                }
            }
        }
    }
    let quads: Vec<_> = unread.iter().map(|(_, q)| *q).collect();
    let reads = unseen_readings(detector.read_cards_at(image, &quads)?, view.shown_cards());
    for (((s, front, e, modifier), _), read) in unread.iter().zip(reads) {
        let seat = &mut view.seats[*s];
        let entity = &mut if *front { &mut seat.front } else { &mut seat.back }[*e];
        let card = if *modifier { entity.modifier.as_mut() } else { Some(&mut entity.base) };
        if let Some(card) = card {
            if card.face == Face::Down {
                // Read only where a face shows: a back's corner left as it was.
                if read.is_some() {
                    card.face = Face::Up;
                    card.card = read;
                }
                continue;
            }
            card.card = read;
        }
    }
    Ok(())
}

/// The readings forced where the layout puts cards, less those that name a card already read
/// (`shown`, or an earlier reading): a card is in one place, and such a reading read a
/// neighbour's index (a base's corners take in the top of the modifier lying over it).
fn unseen_readings(reads: Vec<Option<Card>>, mut shown: Vec<Card>) -> Vec<Option<Card>> {
    reads
        .into_iter()
        .map(|read| {
            let read = read.filter(|card| !shown.contains(card));
            shown.extend(read);
            read
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use opencv::core::{self, Mat, Scalar};
    use opencv::imgproc;

    use super::*;
    use crate::table::{EntityView, SeatView};

    /// The standard table of two seats seen from above, a pixel a millimetre, its middle at the
    /// middle of a 1280×720 picture.
    fn layout() -> TableLayout {
        let mut layout = TableLayout::standard(2);
        layout.image_to_table = [[1.0, 0.0, -640.0], [0.0, 1.0, -360.0], [0.0, 0.0, 1.0]];
        layout
    }

    fn frame(hand_at: Option<(i32, i32)>) -> Mat {
        let mut m =
            Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, Scalar::new(60.0, 90.0, 30.0, 0.0)).unwrap();
        if let Some((x, y)) = hand_at {
            let skin = Scalar::new(150.0, 175.0, 225.0, 0.0);
            imgproc::rectangle(&mut m, core::Rect::new(x, y, 90, 120), skin, -1, imgproc::LINE_8, 0).unwrap();
        }
        m
    }

    #[test]
    fn a_face_down_card_on_the_pile_s_place_with_no_deck_is_the_deck() {
        let on_pile =
            |discard: Option<CardView>, deck: bool| deck_on_pile(&TableView { discard, deck, ..TableView::default() });
        let at = Pt::new(60.0, 0.0);
        assert!(on_pile(Some(CardView::down(at)), false));
        // The deck where the layout has it: the face-down card is something else.
        assert!(!on_pile(Some(CardView::down(at)), true));
        assert!(!on_pile(Some(CardView { face: Face::Up, ..CardView::down(at) }), false));
        assert!(!on_pile(None, false));
    }

    fn view(cards: &[Pt]) -> TableView {
        let back = cards.iter().map(|&p| EntityView::single(CardView::down(p))).collect();
        TableView { seats: vec![SeatView { front: Vec::new(), back }, SeatView::default()], ..TableView::default() }
    }

    #[test]
    fn a_reading_forced_at_a_place_never_names_a_card_read_elsewhere() {
        let card = |c: &str| c.parse::<Card>().unwrap();
        let reads = vec![Some(card("9H")), Some(card("3H")), None, Some(card("3H"))];
        let kept = unseen_readings(reads, vec![card("9H"), card("KD")]);
        assert_eq!(kept, vec![None, Some(card("3H")), None, None]);
    }

    #[test]
    fn a_card_missing_under_a_still_hand_stays_where_it_lay() {
        let layout = layout();
        let card = |c: &str| c.parse::<Card>().unwrap();
        let (left, under_hand, right) = (Pt::new(-100.0, 115.0), Pt::new(100.0, 115.0), Pt::new(200.0, 115.0));
        let row = |cards: Vec<CardView>| TableView {
            seats: vec![
                SeatView { front: Vec::new(), back: cards.into_iter().map(EntityView::single).collect() },
                SeatView::default(),
            ],
            ..TableView::default()
        };
        let settled = row(vec![
            CardView::up(card("JD"), left),
            CardView::up(card("9D"), under_hand),
            CardView::up(card("2S"), right),
        ]);
        let mut activity = ActivityMap::new(10.0, false);
        for _ in 0..4 {
            activity.measure(&frame(Some((695, 415)))).unwrap();
        }
        // The frame lacks the 9D under the hand.
        let mut seen = row(vec![CardView::up(card("JD"), left), CardView::up(card("2S"), right)]);
        keep_covered(Some(&settled), &mut seen, &layout, &activity);
        assert_eq!(seen, settled, "the covered card kept in its place");
        // What the frame finds there is evidence: a card read, or one face down (its back may be
        // coloured like skin).
        for there in [CardView::up(card("KC"), under_hand), CardView::down(Pt::new(110.0, 120.0))] {
            let mut seen = row(vec![CardView::up(card("JD"), left), there, CardView::up(card("2S"), right)]);
            let found = seen.clone();
            keep_covered(Some(&settled), &mut seen, &layout, &activity);
            assert_eq!(seen, found);
        }
        // The 9D read elsewhere (slid out of the row under the hand holding it) has moved.
        let mut seen = row(vec![CardView::up(card("JD"), left), CardView::up(card("2S"), right)]);
        seen.loose.push(CardView::up(card("9D"), Pt::new(100.0, 60.0)));
        let slid = seen.clone();
        keep_covered(Some(&settled), &mut seen, &layout, &activity);
        assert_eq!(seen, slid);
        // With no hand there, a card gone is gone.
        let mut quiet = ActivityMap::new(10.0, false);
        for _ in 0..4 {
            quiet.measure(&frame(None)).unwrap();
        }
        let mut seen = row(vec![CardView::up(card("JD"), left), CardView::up(card("2S"), right)]);
        let gone = seen.clone();
        keep_covered(Some(&settled), &mut seen, &layout, &quiet);
        assert_eq!(seen, gone);
    }

    #[test]
    fn a_card_seen_where_a_hand_still_moves_is_no_change_yet() {
        let (layout, near) = (layout(), 25.0);
        let settled = view(&[Pt::new(-100.0, 115.0)]);
        let (under_hand, elsewhere) = (Pt::new(100.0, 115.0), Pt::new(-250.0, 115.0));
        let mut activity = ActivityMap::new(10.0, false);
        // A hand moves slowly over the place where the new card is seen.
        for k in 0..4 {
            activity.measure(&frame(Some((640 + 30 * k, 430)))).unwrap();
        }
        let busy = |a: &ActivityMap, cards: &[Pt]| changed_where_busy(Some(&settled), &view(cards), &layout, a, near);
        assert!(busy(&activity, &[Pt::new(-100.0, 115.0), under_hand]), "a card laid under a moving hand");
        assert!(busy(&activity, &[under_hand]), "and a card gone from a quiet place besides");
        assert!(!busy(&activity, &[Pt::new(-100.0, 115.0), elsewhere]), "a card laid where nothing moves");
        assert!(!busy(&activity, &[Pt::new(-100.0, 115.0)]), "nothing changed");
        // The hand has gone and the picture is still: the card is laid.
        for _ in 0..4 {
            activity.measure(&frame(None)).unwrap();
        }
        assert!(!busy(&activity, &[Pt::new(-100.0, 115.0), under_hand]));
    }
}
