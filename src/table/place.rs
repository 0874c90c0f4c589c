//! One frame's detections placed on the table: each card's centre mapped into table millimetres
//! and put in the row, pile or loose list it lies in; a modifier joined to the card it overlaps;
//! a stack of two offset backs (a shielded Front Row entity, which the reader sees as one long
//! outline) told from a lone back by its length.

use crate::cards::CARD_MM;
use crate::cards::Card;
use crate::geometry::{Homography, Pt, quad_contains};
use crate::vision::cards::CardDetection;

use super::view::{CardView, EntityView, Face, SeatView, TableView};
use crate::layout::{EXTRA_SLOTS, MODIFIER_MM, ROW_SLOTS, Row, SLOT_MM, TableLayout};

/// An outline at least this long is two cards stacked end over end (a lone card is 88 mm long,
/// a base with its modifier 88 + 37 = 125 mm): halfway between the two.
const STACK_MIN_MM: f64 = CARD_MM.1 + MODIFIER_MM / 2.0;
/// Longer than this, an outline is no stack of two but something else (cards merged in a row).
const STACK_MAX_MM: f64 = CARD_MM.1 + MODIFIER_MM * 2.0;
/// How far from a row's line (millimetres, measured toward the seat) a card still belongs to it:
/// a base lies on the line, a modifier 37 mm toward the seat, and the rows are 140 mm apart.
const ROW_BAND_MM: (f64, f64) = (-45.0, MODIFIER_MM + 35.0);
/// Two sightings closer than this are one card (an outline and an index read apart from it).
const SAME_CARD_MM: f64 = 20.0;
/// A modifier lies `MODIFIER_MM` toward the seat from its base, give or take this.
const MODIFIER_SLACK_MM: f64 = 15.0;
/// The farthest an index box's centre lies from its card's centre: a corner index sits about 5 mm
/// in from the long side and 12 mm down from the short one.
const INDEX_REACH_MM: f64 = 42.0;
/// An index read apart from an outline names it only this much farther from one of its corners
/// than the corner index lies (other decks print larger indices, a little farther in).
const INDEX_CORNER_SLACK_MM: f64 = 10.0;

/// One detected card on the table plane.
#[derive(Clone, Debug, PartialEq)]
pub struct Sighting {
    /// Table millimetres: the outline's centre, or the index box's when no outline was found.
    pub centre: Pt,
    pub face: Face,
    pub card: Option<Card>,
    pub confidence: f32,
    /// The outline in table millimetres, when the reader found one.
    pub outline: Option<[Pt; 4]>,
    /// Where the reading came from: the first index box read, table millimetres.
    pub index: Option<Pt>,
}

impl Sighting {
    /// A detection mapped through `image_to_table`; `None` when it has neither outline nor index
    /// box, or maps to no finite point (behind the camera's horizon).
    pub fn from_detection(d: &CardDetection, image_to_table: &Homography) -> Option<Sighting> {
        let outline = d.quad.map(|q| q.map(|[x, y]| image_to_table.apply(Pt::new(f64::from(x), f64::from(y)))));
        let centre = match &outline {
            Some(o) => quad_centre(o),
            None => {
                let [x, y, w, h] = d.index_boxes.first()?.map(f64::from);
                image_to_table.apply(Pt::new(x + w / 2.0, y + h / 2.0))
            }
        };
        let finite = |p: &Pt| p.x.is_finite() && p.y.is_finite();
        if !finite(&centre) || outline.is_some_and(|o| !o.iter().all(finite)) {
            return None;
        }
        let face = Face::from(d.face);
        let index = d.index_boxes.first().map(|b| {
            let [x, y, w, h] = b.map(f64::from);
            image_to_table.apply(Pt::new(x + w / 2.0, y + h / 2.0))
        });
        Some(Sighting { centre, face, card: d.card, confidence: d.confidence, outline, index })
    }

    /// The outline's mean long side and mean short side, millimetres.
    pub fn size(&self) -> Option<(f64, f64)> {
        let o = self.outline.as_ref()?;
        let a = (o[0].distance(o[1]) + o[2].distance(o[3])) / 2.0;
        let b = (o[1].distance(o[2]) + o[3].distance(o[0])) / 2.0;
        Some((a.max(b), a.min(b)))
    }

    /// Whether the outline is two cards stacked end over end, one offset by a modifier's offset.
    pub fn is_stack(&self) -> bool {
        self.size().is_some_and(|(long, short)| {
            (STACK_MIN_MM..=STACK_MAX_MM).contains(&long) && (short - CARD_MM.0).abs() < CARD_MM.0 * 0.3
        })
    }

    fn view(&self) -> CardView {
        CardView { face: self.face, card: if self.face == Face::Up { self.card } else { None }, centre: self.centre }
    }
}

fn quad_centre(q: &[Pt; 4]) -> Pt {
    Pt::new(q.iter().map(|p| p.x).sum::<f64>() / 4.0, q.iter().map(|p| p.y).sum::<f64>() / 4.0)
}

/// One frame's detections placed in `layout`.
pub fn place(detections: &[CardDetection], layout: &TableLayout) -> TableView {
    let h = layout.image_to_table();
    let sightings: Vec<Sighting> = detections.iter().filter_map(|d| Sighting::from_detection(d, &h)).collect();
    place_sightings(&sightings, layout)
}

/// Without a layout: every card loose, at its centre in image pixels.
pub fn place_in_image(detections: &[CardDetection]) -> TableView {
    let loose = detections
        .iter()
        .filter_map(|d| Sighting::from_detection(d, &Homography::IDENTITY))
        .map(|s| s.view())
        .collect();
    TableView { loose, ..TableView::default() }
}

/// Whether a point of the table (millimetres) lies where cards are played: on a seat's row (a
/// card's half length around its band, over the slots it may run to) or on a pile. A hand
/// moving elsewhere (resting at the table's edge, holding the deck above it) moves no card.
pub fn in_play(p: Pt, layout: &TableLayout) -> bool {
    let pile = |z: &crate::layout::Zone| p.distance(z.centre) <= z.radius + CARD_MM.1 / 2.0;
    if pile(&layout.deck) || pile(&layout.discard) {
        return true;
    }
    layout.seats.iter().flat_map(|s| [&s.front, &s.back]).any(|row| {
        let (along, across) = locate_toward_seat(row, p);
        let half = CARD_MM.1 / 2.0;
        (ROW_BAND_MM.0 - half..=ROW_BAND_MM.1 + half).contains(&across)
            && (-1.0..=ROW_SLOTS as f64 + EXTRA_SLOTS).contains(&along)
    })
}

/// Where a sighting lies: a row of a seat, a pile, or nowhere.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spot {
    Row { seat: usize, front: bool },
    Deck,
    Discard,
    Loose,
}

/// Sightings already in table millimetres placed in `layout`.
pub fn place_sightings(sightings: &[Sighting], layout: &TableLayout) -> TableView {
    let mut view = TableView { seats: vec![SeatView::default(); layout.seats.len()], ..TableView::default() };
    let mut rows: Vec<[Vec<Piece>; 2]> = vec![[Vec::new(), Vec::new()]; layout.seats.len()];
    // The discard pile is judged on every reading on it, an index inside the pile's outline
    // included (`discard_top`), not on one reading per card.
    let discard: Vec<&Sighting> = sightings.iter().filter(|s| spot(s, layout) == Spot::Discard).collect();
    for piece in merge_duplicates(sightings) {
        let s = &piece.s;
        match spot(s, layout) {
            Spot::Row { seat, front } => rows[seat][usize::from(front)].push(piece),
            Spot::Deck if s.face == Face::Down => view.deck = true,
            Spot::Deck => view.loose.push(s.view()),
            Spot::Discard => {}
            Spot::Loose => view.loose.push(s.view()),
        }
    }
    for (seat, [back, front]) in rows.into_iter().enumerate() {
        let zones = layout.seats[seat];
        view.seats[seat].back = row_entities(back, &zones.back);
        view.seats[seat].front = row_entities(front, &zones.front);
    }
    view.discard = discard_top(&discard).map(|s| s.view());
    view.loose.sort_by(|a, b| a.centre.y.total_cmp(&b.centre.y).then(a.centre.x.total_cmp(&b.centre.x)));
    view
}

/// Which spot a card lies in: a pile's zone first, then the nearest row whose band holds it.
fn spot(s: &Sighting, layout: &TableLayout) -> Spot {
    if layout.deck.contains(s.centre) {
        return Spot::Deck;
    }
    if layout.discard.contains(s.centre) {
        return Spot::Discard;
    }
    let mut best: Option<(f64, Spot)> = None;
    for (seat, zones) in layout.seats.iter().enumerate() {
        for (row, front) in [(&zones.back, false), (&zones.front, true)] {
            let (along, across) = locate_toward_seat(row, s.centre);
            if !(ROW_BAND_MM.0..=ROW_BAND_MM.1).contains(&across)
                || along < -0.5
                || along > ROW_SLOTS as f64 - 0.5 + EXTRA_SLOTS
            {
                continue;
            }
            // Distance from the strip between the base line and the modifiers' line, plus how far
            // the card lies past the drawn slots.
            let off_line = (-across).max(across - MODIFIER_MM).max(0.0);
            let past_end = (along - (ROW_SLOTS as f64 - 0.5)).max(0.0) * SLOT_MM;
            let cost = off_line + past_end;
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, Spot::Row { seat, front }));
            }
        }
    }
    match best {
        Some((_, spot)) => spot,
        // An index read without its card's outline lies near a corner of the card, up to
        // `INDEX_REACH_MM` from its centre: on a pile of askew cards the outline is often lost
        // and only the top card's index (or one of the cards below it) is read.
        None if s.outline.is_none()
            && s.centre.distance(layout.discard.centre) <= layout.discard.radius + INDEX_REACH_MM =>
        {
            Spot::Discard
        }
        None => Spot::Loose,
    }
}

/// `Row::locate`, with "across" positive toward the row's seat (the side its modifiers lie on).
fn locate_toward_seat(row: &Row, p: Pt) -> (f64, f64) {
    let (along, across) = row.locate(p);
    let (_, modifier_side) = row.locate(row.modifier_at(row.first));
    (along, across * modifier_side.signum())
}

/// The unit vector from a base toward where its modifier lies.
fn toward_seat(row: &Row) -> Pt {
    let m = row.modifier_at(Pt::new(0.0, 0.0));
    let len = m.x.hypot(m.y);
    Pt::new(m.x / len, m.y / len)
}

/// How far an index box's centre lies from its card's nearest corner (table millimetres).
fn index_to_corner() -> f64 {
    let to_centre = index_to_centre();
    (CARD_MM.0 / 2.0 - to_centre.x.abs()).hypot(CARD_MM.1 / 2.0 - to_centre.y.abs())
}

/// Where a card's centre lies relative to its top-left index box's centre, on an upright card,
/// millimetres (real decks put the index about where `cards::physical` says).
pub(super) fn index_to_centre() -> Pt {
    let (x, y) = crate::cards::physical::index_to_centre();
    Pt::new(x, y)
}

/// A row's sightings as entities in order along the row: stacks split into base and modifier,
/// an index read without its outline moved to its card's centre, a modifier joined to its base.
fn row_entities(pieces: Vec<Piece>, row: &Row) -> Vec<EntityView> {
    let mut cards: Vec<CardView> = Vec::new();
    let mut indices = Vec::new();
    for piece in pieces {
        if piece.s.outline.is_some() {
            cards.extend(split_outline(&piece, row));
        } else {
            indices.push(piece.s);
        }
    }
    for s in indices {
        index_card(&s, row, &mut cards);
    }
    let located: Vec<(f64, f64)> = cards.iter().map(|c| locate_toward_seat(row, c.centre)).collect();
    let mut order: Vec<usize> = (0..cards.len()).collect();
    order.sort_by(|&a, &b| located[a].1.total_cmp(&located[b].1));
    let mut modifier_of: Vec<Option<usize>> = vec![None; cards.len()];
    let mut used = vec![false; cards.len()];
    let mut seen_again = Vec::new();
    // Nearest the row line first: a base takes the card lying a modifier's offset toward the seat.
    for &base in &order {
        if used[base] {
            continue;
        }
        let (along, across) = located[base];
        let partner = order.iter().copied().filter(|&m| m != base && !used[m]).find(|&m| {
            let (m_along, m_across) = located[m];
            ((m_along - along) * SLOT_MM).abs() < MODIFIER_SLACK_MM
                && (m_across - across - MODIFIER_MM).abs() < MODIFIER_SLACK_MM
        });
        used[base] = true;
        if let Some(m) = partner {
            used[m] = true;
            // A deck holds each card once: read as the base's own card, it is the base seen
            // again (an index read apart, placed a card's offset off), not its modifier.
            if cards[m].card.is_some() && cards[m].card == cards[base].card {
                seen_again.push(m);
            } else {
                modifier_of[base] = Some(m);
            }
        }
    }
    let modifiers: Vec<usize> = modifier_of.iter().flatten().copied().collect();
    let mut entities: Vec<(f64, EntityView)> = (0..cards.len())
        .filter(|i| !modifiers.contains(i) && !seen_again.contains(i))
        .map(|i| (located[i].0, EntityView { base: cards[i], modifier: modifier_of[i].map(|m| cards[m]) }))
        .collect();
    entities.sort_by(|a, b| a.0.total_cmp(&b.0));
    entities.into_iter().map(|(_, e)| e).collect()
}

/// The cards one outline holds in a row: one card; two cards stacked end over end across the row
/// (a base and its modifier: the reading is the top card's, whose whole face shows, and the
/// base's is an index read apart); or cards side by side along the row, whose outlines the
/// reader merged (cards lying close, with no edge between them it can see), a base with its
/// modifier among them.
fn split_outline(piece: &Piece, row: &Row) -> Vec<CardView> {
    let s = &piece.s;
    let Some(outline) = s.outline else {
        return vec![s.view()];
    };
    let (u, d) = (unit(row.step), toward_seat(row));
    let dot = |a: Pt, b: Pt| a.x * b.x + a.y * b.y;
    let along: Vec<f64> = outline.iter().map(|p| dot(*p, u)).collect();
    let across: Vec<f64> = outline.iter().map(|p| dot(*p, d)).collect();
    let span = |v: &[f64]| {
        let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
        (hi - lo, (hi + lo) / 2.0)
    };
    let ((along_len, along_mid), (across_len, across_mid)) = (span(&along), span(&across));
    let at = |a: f64, c: f64| Pt::new(u.x * a + d.x * c, u.y * a + d.y * c);
    // Cards side by side along the row, a base with its modifier among them (the outline as
    // long across the row as a stack): a lone stack seen turned is as long along the row, but
    // its outline is a card wide.
    let wide = s.size().is_some_and(|(_, short)| short > CARD_MM.0 * 1.3);
    let side_by_side = across_len < STACK_MIN_MM || (across_len <= STACK_MAX_MM && wide);
    let columns = if along_len > CARD_MM.0 + SLOT_MM / 2.0 && side_by_side {
        ((along_len - CARD_MM.0) / SLOT_MM).round() as usize + 1
    } else {
        1
    };
    if columns > 1 {
        let gap = (along_len - CARD_MM.0) / (columns - 1) as f64;
        let first = along_mid - gap * (columns - 1) as f64 / 2.0;
        let alongs: Vec<f64> = (0..columns).map(|k| first + gap * k as f64).collect();
        // The outline's side away from the seat is the row's line; a column reaching a
        // modifier's offset farther toward the seat is a base with its modifier.
        let near = across_mid - across_len / 2.0;
        // Each column's reach is taken at its outer end: between the ends, the outline's
        // straight side cuts across the step from a stack to a lone card.
        let outer = |k: usize, a: f64| match k {
            0 => a - CARD_MM.0 / 2.0,
            k if k == columns - 1 => a + CARD_MM.0 / 2.0,
            _ => a,
        };
        let stacked: Vec<bool> = (0..columns)
            .map(|k| seat_side_reach(&along, &across, outer(k, alongs[k])) - near >= STACK_MIN_MM)
            .collect();
        let base_across = near + CARD_MM.1 / 2.0;
        // Face up, the reading is the top card's of the column whose index was read; the others
        // are unread.
        let read = s.index.and_then(|i| {
            let i_along = dot(i, u);
            (0..columns).min_by(|&a, &b| (alongs[a] - i_along).abs().total_cmp(&(alongs[b] - i_along).abs()))
        });
        let card = |k: usize| if read == Some(k) { s.view().card } else { None };
        let mut cards = Vec::new();
        for (k, &a) in alongs.iter().enumerate() {
            if stacked[k] {
                cards.push(CardView { face: s.face, card: None, centre: at(a, base_across) });
                cards.push(CardView { face: s.face, card: card(k), centre: at(a, base_across + MODIFIER_MM) });
            } else {
                cards.push(CardView { face: s.face, card: card(k), centre: at(a, base_across) });
            }
        }
        return cards;
    }
    let stacked = (STACK_MIN_MM..=STACK_MAX_MM).contains(&across_len) && along_len < CARD_MM.0 * 1.35;
    if !stacked {
        return vec![s.view()];
    }
    let half = MODIFIER_MM / 2.0;
    let (base_at, top_at) = (at(along_mid, across_mid - half), at(along_mid, across_mid + half));
    // The reading is the top card's, unless its index lies at the stack's far end, where only
    // the base's index can be: a target turned up under its face-down shield.
    let far_end = across_mid - 0.9 * MODIFIER_MM;
    if s.face == Face::Up && s.index.is_some_and(|i| dot(i, d) < far_end) {
        let base = CardView { centre: base_at, ..s.view() };
        let top = CardView { face: s.face, card: piece.base_card.filter(|&c| Some(c) != s.card), centre: top_at };
        return vec![base, top];
    }
    // A deck holds each card once: the same card read at both ends is one card whose outline
    // took in a strip of its neighbour (a modifier lying beside it), lying on the row's line.
    if s.face == Face::Up && s.card.is_some() && piece.base_card == s.card {
        return vec![CardView { centre: base_at, ..s.view() }];
    }
    let base = CardView { face: s.face, card: piece.base_card, centre: base_at };
    let top = CardView { centre: top_at, ..s.view() };
    vec![base, top]
}

/// How far toward the seat an outline reaches at `at` along the row: its side facing the seat
/// (between the two corners reaching farthest toward the seat) followed to `at`. The corners are
/// given by where they lie along the row and toward the seat.
fn seat_side_reach(along: &[f64], across: &[f64], at: f64) -> f64 {
    let mut order: Vec<usize> = (0..along.len()).collect();
    order.sort_by(|&a, &b| across[b].total_cmp(&across[a]));
    let (p, q) = (order[0], order[1]);
    let (from, to) = if along[p] <= along[q] { (p, q) } else { (q, p) };
    let span = along[to] - along[from];
    if span < 1e-6 {
        return across[from].max(across[to]);
    }
    let t = ((at - along[from]) / span).clamp(0.0, 1.0);
    across[from] + t * (across[to] - across[from])
}

fn unit(v: Pt) -> Pt {
    let len = v.x.hypot(v.y).max(1e-9);
    Pt::new(v.x / len, v.y / len)
}

/// An index read apart from any outline, as a card of the row: it is the top-left index of a
/// card lying there or the bottom-right one (a modifier's top-left index may be hidden in the
/// shade of its base), whichever puts the card on the row. Landing on a card already found, it
/// names that card if unread.
fn index_card(s: &Sighting, row: &Row, cards: &mut Vec<CardView>) {
    let offset = Homography::rotation(row.angle).apply(index_to_centre());
    let hypotheses =
        [Pt::new(s.centre.x + offset.x, s.centre.y + offset.y), Pt::new(s.centre.x - offset.x, s.centre.y - offset.y)];
    for h in hypotheses {
        if let Some(c) = cards.iter_mut().find(|c| c.centre.distance(h) < SAME_CARD_MM) {
            if c.face == Face::Up && c.card.is_none() && s.face == Face::Up {
                c.card = s.card;
            }
            return;
        }
    }
    let off_line = |p: Pt| {
        let (_, across) = locate_toward_seat(row, p);
        (-across).max(across - MODIFIER_MM).max(0.0)
    };
    let centre = if off_line(hypotheses[1]) < off_line(hypotheses[0]) { hypotheses[1] } else { hypotheses[0] };
    cards.push(CardView { centre, ..s.view() });
}

/// A sighting after merging: an index read inside a stack's outline is its base's reading.
#[derive(Clone, Debug)]
struct Piece {
    s: Sighting,
    base_card: Option<Card>,
}

/// One card per physical card: an index read without an outline but inside one belongs to that
/// outline's card (naming it if unread), and outlines closer than `SAME_CARD_MM` are one card.
fn merge_duplicates(sightings: &[Sighting]) -> Vec<Piece> {
    let rank = |s: &Sighting| (s.card.is_some(), s.confidence);
    let mut bodies: Vec<&Sighting> = sightings.iter().filter(|s| s.outline.is_some()).collect();
    bodies.sort_by(|a, b| rank(b).partial_cmp(&rank(a)).unwrap_or(std::cmp::Ordering::Equal));
    let mut kept: Vec<Piece> = Vec::new();
    for s in bodies {
        if !kept.iter().any(|k| k.s.centre.distance(s.centre) < SAME_CARD_MM) {
            kept.push(Piece { s: s.clone(), base_card: None });
        }
    }
    let mut indices: Vec<&Sighting> = sightings.iter().filter(|s| s.outline.is_none()).collect();
    indices.sort_by(|a, b| rank(b).partial_cmp(&rank(a)).unwrap_or(std::cmp::Ordering::Equal));
    let corner_reach = index_to_corner() + INDEX_CORNER_SLACK_MM;
    for s in indices {
        // An index in the corner of an unread card lies over the card beneath too: the unread one
        // takes it, and of two unread ones (a base and the modifier over its lower part) the one
        // whose corner it lies in.
        let contains = |k: &Piece| k.s.outline.as_ref().is_some_and(|o| quad_contains(o, s.centre));
        let unread = |k: &Piece| k.s.card.is_none() && k.s.face == Face::Up;
        let corner_miss = |k: &Piece| {
            k.s.outline.map_or(f64::MAX, |o| o.iter().map(|c| c.distance(s.centre)).fold(f64::MAX, f64::min))
        };
        let nearest_corner = |keep: &dyn Fn(&Piece) -> bool| {
            (0..kept.len())
                .filter(|&i| keep(&kept[i]))
                .min_by(|&a, &b| corner_miss(&kept[a]).total_cmp(&corner_miss(&kept[b])))
        };
        // An index lies at a corner: a mark read in a card's middle (a court card's picture, the
        // edge of a card laid over it) names nothing, and goes with the card it lies on.
        let at_corner = |k: &Piece| corner_miss(k) <= corner_reach;
        let inside =
            nearest_corner(&|k| contains(k) && unread(k) && at_corner(k)).or_else(|| nearest_corner(&contains));
        let twin = kept.iter().any(|k| k.s.outline.is_none() && k.s.centre.distance(s.centre) < SAME_CARD_MM);
        match inside.map(|i| &mut kept[i]) {
            Some(k) if k.s.is_stack() && k.s.face == Face::Up => k.base_card = k.base_card.or(s.card),
            Some(k) if k.s.card.is_none() && k.s.face == Face::Up && s.face == Face::Up && at_corner(k) => {
                k.s.card = s.card
            }
            Some(_) => {}
            None if twin => {}
            None => kept.push(Piece { s: s.clone(), base_card: None }),
        }
    }
    kept
}

/// The discard pile's top card: the face-up card read surest, outline or not; else any face-up
/// card; else whatever lies there. The top card lies in full view; the cards under it show a
/// corner at most, and a pile's cards lying askew make one outline whose corner may be one of
/// theirs (read less surely than the top card's own index, which the loose search finds).
fn discard_top<'a>(pile: &[&'a Sighting]) -> Option<&'a Sighting> {
    let rank = |s: &Sighting| (s.face == Face::Up, s.card.is_some(), s.confidence);
    pile.iter().copied().max_by(|a, b| rank(a).partial_cmp(&rank(b)).unwrap_or(std::cmp::Ordering::Equal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::scene::PlacedCard;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    /// A sighting of a card lying at `centre` turned by `angle`, as the reader would give it.
    fn seen(code: Option<&str>, face: Face, centre: Pt, angle: f64) -> Sighting {
        let placed = PlacedCard { card: card("2C"), face_up: true, centre, angle };
        Sighting {
            centre,
            face,
            card: code.map(card),
            confidence: 0.9,
            outline: Some(placed.corners_mm()),
            index: None,
        }
    }

    /// Two cards stacked end over end, seen as one outline.
    fn stack(face: Face, base: Pt, row: &Row) -> Sighting {
        let m = row.modifier_at(base);
        let lower = PlacedCard { card: card("2C"), face_up: true, centre: base, angle: row.angle }.corners_mm();
        let upper = PlacedCard { card: card("2C"), face_up: true, centre: m, angle: row.angle }.corners_mm();
        let outline = [lower[0], lower[1], upper[2], upper[3]];
        Sighting {
            centre: quad_centre(&outline),
            face,
            card: None,
            confidence: 0.8,
            outline: Some(outline),
            index: None,
        }
    }

    #[test]
    fn cards_go_to_their_rows_in_order_and_piles_and_loose_cards_apart() {
        let layout = TableLayout::standard(2);
        let far = layout.seats[1];
        let near = layout.seats[0];
        let sightings = vec![
            seen(Some("9S"), Face::Up, far.back.slot(2), far.back.angle),
            seen(Some("3H"), Face::Up, far.back.slot(0), far.back.angle),
            seen(None, Face::Down, near.front.slot(1), near.front.angle),
            seen(None, Face::Down, near.front.slot(0), near.front.angle),
            seen(None, Face::Down, layout.deck.centre, 0.3),
            seen(Some("KD"), Face::Up, layout.discard.centre, 0.1),
            seen(Some("AC"), Face::Up, Pt::new(900.0, 900.0), 0.0),
        ];
        let view = place_sightings(&sightings, &layout);
        let names: Vec<Option<Card>> = view.seats[1].back.iter().map(|e| e.base.card).collect();
        assert_eq!(names, vec![Some(card("3H")), Some(card("9S"))]);
        assert_eq!(view.seats[0].front.len(), 2);
        assert!(view.seats[0].front[0].base.centre.distance(near.front.slot(0)) < 1e-9);
        assert!(view.deck);
        assert_eq!(view.discard.and_then(|c| c.card), Some(card("KD")));
        assert_eq!(view.loose.len(), 1);
        assert!(view.seats[0].back.is_empty() && view.seats[1].front.is_empty());
    }

    #[test]
    fn the_discard_pile_s_top_is_its_surest_reading_outline_or_not() {
        let layout = TableLayout::standard(2);
        let at = layout.discard.centre;
        // Cards lying askew on the pile make one outline, read at a corner of the card below.
        let mut merged = seen(Some("JC"), Face::Up, at, 0.1);
        merged.confidence = 0.77;
        let mut index = seen(Some("4S"), Face::Up, Pt::new(at.x + 5.0, at.y - 20.0), 0.0);
        (index.outline, index.confidence) = (None, 0.96);
        let view = place_sightings(&[merged, index], &layout);
        assert_eq!(view.discard.and_then(|c| c.card), Some(card("4S")));
    }

    #[test]
    fn indices_read_at_the_corners_of_a_pile_without_its_outline_are_the_pile() {
        let layout = TableLayout::standard(2);
        let at = layout.discard.centre;
        // The top card's index at its top-left corner, another at a bottom-right corner: both
        // about 41 mm from the pile's centre, past its zone.
        let corner = |code, dx: f64, dy: f64, confidence| {
            let mut s = seen(Some(code), Face::Up, Pt::new(at.x + dx, at.y + dy), 0.0);
            (s.outline, s.confidence) = (None, confidence);
            s
        };
        let view = place_sightings(&[corner("2D", -25.0, -32.0, 0.82), corner("9C", 25.0, 33.5, 0.96)], &layout);
        assert!(view.loose.is_empty(), "{:?}", view.loose);
        assert_eq!(view.discard.and_then(|c| c.card), Some(card("9C")));
        // An outline that far from the pile is a card lying beside it.
        let beside = seen(Some("5S"), Face::Up, Pt::new(at.x + 25.0, at.y + 33.5), 0.0);
        assert_eq!(place_sightings(&[beside], &layout).loose.len(), 1);
    }

    #[test]
    fn a_card_over_the_lower_part_of_another_is_its_modifier() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.back;
            let base = row.slot(3);
            let sightings = vec![
                seen(Some("7C"), Face::Up, base, row.angle),
                seen(Some("5H"), Face::Up, row.modifier_at(base), row.angle),
                seen(Some("8C"), Face::Up, row.slot(4), row.angle),
            ];
            let view = place_sightings(&sightings, &layout);
            let back = &view.seats.iter().find(|s| !s.back.is_empty()).unwrap().back;
            assert_eq!(back.len(), 2);
            assert_eq!(back[0].base.card, Some(card("7C")));
            assert_eq!(back[0].modifier.and_then(|m| m.card), Some(card("5H")));
            assert_eq!(back[1].modifier, None);
        }
    }

    #[test]
    fn an_index_read_apart_names_the_unread_card_whose_corner_it_lies_in() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.back;
            let (base, m) = (row.slot(2), row.modifier_at(row.slot(2)));
            // Both outlines unread; the modifier's top-left index lies inside the base's too.
            let offset = Homography::rotation(row.angle).apply(index_to_centre());
            let mut index = seen(Some("9H"), Face::Up, Pt::new(m.x - offset.x, m.y - offset.y), row.angle);
            index.outline = None;
            let sightings = vec![seen(None, Face::Up, base, row.angle), seen(None, Face::Up, m, row.angle), index];
            let view = place_sightings(&sightings, &layout);
            let back = &view.seats.iter().find(|s| !s.back.is_empty()).unwrap().back;
            assert_eq!(back.len(), 1, "{back:?}");
            assert_eq!(back[0].base.card, None);
            assert_eq!(back[0].modifier.and_then(|m| m.card), Some(card("9H")));
        }
    }

    #[test]
    fn a_mark_read_in_the_middle_of_unread_cards_names_neither() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.back;
            let (base, m) = (row.slot(2), row.modifier_at(row.slot(2)));
            // A court modifier's picture read as an index, halfway between the two cards' ends:
            // inside both outlines, at a corner of neither.
            let mut mark = seen(Some("QH"), Face::Up, Pt::new((base.x + m.x) / 2.0, (base.y + m.y) / 2.0), row.angle);
            mark.outline = None;
            let sightings = vec![seen(None, Face::Up, base, row.angle), seen(None, Face::Up, m, row.angle), mark];
            let view = place_sightings(&sightings, &layout);
            let back = &view.seats.iter().find(|s| !s.back.is_empty()).unwrap().back;
            assert_eq!(back.len(), 1, "{back:?}");
            assert_eq!((back[0].base.card, back[0].modifier.and_then(|m| m.card)), (None, None), "{back:?}");
        }
    }

    #[test]
    fn a_long_outline_of_backs_is_a_shielded_entity_and_a_card_long_one_a_lone_back() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.front;
            let sightings = vec![stack(Face::Down, row.slot(0), &row), seen(None, Face::Down, row.slot(1), row.angle)];
            let view = place_sightings(&sightings, &layout);
            let front = &view.seats.iter().find(|s| !s.front.is_empty()).unwrap().front;
            assert_eq!(front.len(), 2, "{front:?}");
            let shielded = front[0].modifier.expect("a modifier");
            assert_eq!((front[0].base.face, shielded.face), (Face::Down, Face::Down));
            assert!(front[0].base.centre.distance(row.slot(0)) < 1.0);
            assert!(shielded.centre.distance(row.modifier_at(row.slot(0))) < 1.0);
            assert_eq!(front[1].modifier, None);
        }
    }

    /// One outline around a base with its modifier at `stacked` and a lone card at `lone`,
    /// touching along the row, as the reader fits it: a quad from the two ends' outer corners.
    fn stack_beside_card(stacked: Pt, lone: Pt, row: &Row) -> Sighting {
        let corners =
            |centre: Pt| PlacedCard { card: card("2C"), face_up: true, centre, angle: row.angle }.corners_mm();
        let (base, upper, flat) = (corners(stacked), corners(row.modifier_at(stacked)), corners(lone));
        let (u, d) = (unit(row.step), toward_seat(row));
        let along = |p: &Pt| p.x * u.x + p.y * u.y;
        let toward = |p: &Pt| p.x * d.x + p.y * d.y;
        let all: Vec<Pt> = base.iter().chain(&upper).chain(&flat).copied().collect();
        let near: Vec<Pt> = all.iter().copied().filter(|p| toward(p) < toward(&stacked)).collect();
        let end = |points: &[Pt], high: bool| {
            let pick = |a: &&Pt, b: &&Pt| along(a).total_cmp(&along(b));
            *if high { points.iter().max_by(pick) } else { points.iter().min_by(pick) }.unwrap()
        };
        // The seat side's corners: each end's card's corner reaching farthest toward the seat.
        let far_corner = |centre: Pt, cs: [Pt; 4], high: bool| {
            let side: Vec<Pt> = cs.iter().copied().filter(|p| toward(p) > toward(&centre)).collect();
            end(&side, high)
        };
        let high_is_lone = along(&lone) > along(&stacked);
        let (seat_lo, seat_hi) = if high_is_lone {
            (far_corner(stacked, upper, false), far_corner(lone, flat, true))
        } else {
            (far_corner(lone, flat, false), far_corner(stacked, upper, true))
        };
        let outline = [end(&near, false), end(&near, true), seat_hi, seat_lo];
        Sighting {
            centre: quad_centre(&outline),
            face: Face::Up,
            card: None,
            confidence: 0.9,
            outline: Some(outline),
            index: None,
        }
    }

    #[test]
    fn a_stack_merged_with_the_card_beside_it_is_split_into_both_entities() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.back;
            for (stacked, lone) in [(2, 3), (3, 2)] {
                let merged = stack_beside_card(row.slot(stacked), row.slot(lone), &row);
                let view = place_sightings(&[merged], &layout);
                let back = &view.seats.iter().find(|s| !s.back.is_empty()).unwrap().back;
                assert_eq!(back.len(), 2, "{back:?}");
                let with_modifier: Vec<bool> = back.iter().map(|e| e.modifier.is_some()).collect();
                let want = if stacked < lone { [true, false] } else { [false, true] };
                assert_eq!(with_modifier, want, "stack at {stacked}: {back:?}");
                let at = |e: &EntityView| e.base.centre;
                let slots = if stacked < lone { [stacked, lone] } else { [lone, stacked] };
                for (e, slot) in back.iter().zip(slots) {
                    assert!(at(e).distance(row.slot(slot)) < SAME_CARD_MM, "{back:?}");
                }
            }
        }
    }

    #[test]
    fn a_lone_stack_seen_turned_is_not_split_along_the_row() {
        let layout = TableLayout::standard(2);
        let row = layout.seats[0].back;
        let base = row.slot(2);
        let turned = Row { angle: row.angle + 20f64.to_radians(), ..row };
        let mut shown = stack(Face::Up, base, &turned);
        shown.card = Some(card("6H"));
        let view = place_sightings(&[shown], &layout);
        assert_eq!(view.seats[0].back.len(), 1, "{:?}", view.seats[0].back);
    }

    #[test]
    fn a_stack_read_at_its_far_end_is_a_base_turned_up_under_its_shield() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.front;
            let base = row.slot(1);
            let away = toward_seat(&row);
            let reach = CARD_MM.1 / 2.0 - 8.0;
            let mut shown = stack(Face::Up, base, &row);
            shown.card = Some(card("AH"));
            shown.index = Some(Pt::new(base.x - away.x * reach, base.y - away.y * reach));
            let view = place_sightings(&[shown], &layout);
            let front = &view.seats.iter().find(|s| !s.front.is_empty()).unwrap().front;
            assert_eq!(front[0].base.card, Some(card("AH")), "{front:?}");
            assert_eq!(front[0].modifier.and_then(|m| m.card), None);
        }
    }

    #[test]
    fn a_stack_whose_two_ends_read_as_one_card_is_that_card_alone_on_the_row() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.back;
            let base = row.slot(2);
            let mut shown = stack(Face::Up, base, &row);
            shown.card = Some(card("4H"));
            let mut corner = seen(Some("4H"), Face::Up, base, row.angle);
            corner.outline = None;
            let view = place_sightings(&[shown, corner], &layout);
            let back = &view.seats.iter().find(|s| !s.back.is_empty()).unwrap().back;
            assert_eq!(back.len(), 1, "{back:?}");
            assert_eq!((back[0].base.card, back[0].modifier), (Some(card("4H")), None), "{back:?}");
            assert!(back[0].base.centre.distance(base) < SAME_CARD_MM, "{back:?}");
        }
    }

    #[test]
    fn the_base_s_own_card_seen_again_where_a_modifier_would_lie_is_no_modifier() {
        let layout = TableLayout::standard(2);
        for seat in &layout.seats {
            let row = seat.back;
            let base = row.slot(3);
            let sightings = [
                seen(Some("4H"), Face::Up, base, row.angle),
                seen(Some("4H"), Face::Up, row.modifier_at(base), row.angle),
                seen(Some("5H"), Face::Up, row.slot(4), row.angle),
                seen(Some("6H"), Face::Up, row.modifier_at(row.slot(4)), row.angle),
            ];
            let view = place_sightings(&sightings, &layout);
            let back = &view.seats.iter().find(|s| !s.back.is_empty()).unwrap().back;
            let read: Vec<_> = back.iter().map(|e| (e.base.card, e.modifier.and_then(|m| m.card))).collect();
            assert_eq!(read, [(Some(card("4H")), None), (Some(card("5H")), Some(card("6H")))], "{back:?}");
        }
    }

    #[test]
    fn an_index_read_without_its_outline_counts_at_its_card_s_centre() {
        let layout = TableLayout::standard(2);
        let row = layout.seats[1].back;
        let offset = Homography::rotation(row.angle).apply(index_to_centre());
        let index = Pt::new(row.slot(2).x - offset.x, row.slot(2).y - offset.y);
        let sightings = vec![
            Sighting {
                centre: index,
                face: Face::Up,
                card: Some(card("QS")),
                confidence: 0.8,
                outline: None,
                index: None,
            },
            seen(Some("2D"), Face::Up, row.modifier_at(row.slot(2)), row.angle),
        ];
        let view = place_sightings(&sightings, &layout);
        let back = &view.seats[1].back;
        assert_eq!(back.len(), 1, "{back:?}");
        assert_eq!(back[0].base.card, Some(card("QS")));
        assert!(back[0].base.centre.distance(row.slot(2)) < 1.0);
        assert_eq!(back[0].modifier.and_then(|m| m.card), Some(card("2D")));
    }

    #[test]
    fn an_index_read_inside_an_unread_outline_names_it() {
        let layout = TableLayout::standard(2);
        let p = layout.seats[0].back.slot(1);
        let sightings = vec![
            seen(None, Face::Up, p, 0.0),
            Sighting {
                centre: Pt::new(p.x - 20.0, p.y - 25.0),
                face: Face::Up,
                card: Some(card("4S")),
                confidence: 0.7,
                outline: None,
                index: None,
            },
        ];
        let view = place_sightings(&sightings, &layout);
        assert_eq!(view.seats[0].back.len(), 1);
        assert_eq!(view.seats[0].back[0].base.card, Some(card("4S")));
    }
}
