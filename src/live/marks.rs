//! What the window draws over the live image, in image pixels: each card found (known, face
//! down or unread) and each seat's rows and the piles as the layout places them.

use crate::cards::CARD_MM;
use crate::geometry::Pt;
use crate::layout::SLOT_MM;
use crate::table::settle::cards_of;
use crate::table::{Place, Row, TableLayout, TableView};
use crate::vision::cards::{CardDetection, Face};

/// How a card was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardKind {
    Known,
    FaceDown,
    /// Face up but not read.
    Unread,
}

/// A card found in the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct CardMark {
    /// Outline, clockwise from the face's top-left corner.
    pub quad: [[f32; 2]; 4],
    pub kind: CardKind,
    /// The card's code, "down" or "?".
    pub label: String,
}

/// A place on the table: a seat's row (a four-cornered outline) or a pile (a circle's outline as
/// a polygon), with its name.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneMark {
    pub outline: Vec<[f32; 2]>,
    /// The seat it belongs to (`None` for the deck and the discard pile).
    pub seat: Option<usize>,
    pub label: String,
    /// The table differs from the game here (the referee is lost: the operator looks here).
    pub differs: bool,
}

/// Marks the zones the differences of a desync name ("Alice's Back Row: 8H missing", "the
/// discard pile shows …").
pub fn mark_differences(zones: &mut [ZoneMark], differences: &[String]) {
    for zone in zones {
        let named = match zone.label.split_once(": ") {
            Some((name, row)) => format!("{name}'s {row}"),
            None => format!("the {} pile", zone.label),
        };
        zone.differs = differences.iter().any(|d| d.starts_with(&named));
    }
}

pub fn card_marks(detections: &[CardDetection]) -> Vec<CardMark> {
    detections
        .iter()
        .filter_map(|d| {
            let quad = d.quad?;
            let (kind, label) = match (d.face, d.card) {
                (Face::Down, _) => (CardKind::FaceDown, "down".to_string()),
                (Face::Up, Some(card)) => (CardKind::Known, card.to_string()),
                (Face::Up, None) => (CardKind::Unread, "?".to_string()),
            };
            Some(CardMark { quad, kind, label })
        })
        .collect()
}

/// Where a card lies for `moves`: a seat and whether its Front Row, and whether on the discard
/// pile.
type Lies = (Option<(usize, bool)>, bool);

/// What the last ruled move moved, table millimetres: each card the table showed before and
/// shows in another row or pile now (followed by what it was last read as, face up or down),
/// and each card that came out of the deck (from the deck's place).
pub fn moves(before: &TableView, after: &TableView, layout: &TableLayout) -> Vec<(Pt, Pt)> {
    // Where a card lies, as far as a move goes: a seat's row, the discard pile, loose. A card
    // shifted along its row (a neighbour left) has not moved.
    let known = |view: &TableView| -> Vec<(crate::cards::Card, Pt, Lies)> {
        cards_of(view)
            .into_iter()
            .filter_map(|(place, c)| {
                let row = match place {
                    Place::Seat { seat, row, .. } => Some((seat, row == crate::table::settle::RowName::Front)),
                    _ => None,
                };
                Some((c.card?, c.centre, (row, place == Place::Discard)))
            })
            .collect()
    };
    let (old, new) = (known(before), known(after));
    let mut out = Vec::new();
    for (card, to, at) in &new {
        match old.iter().find(|(c, _, _)| c == card) {
            Some((_, from, was)) if was != at => out.push((*from, *to)),
            Some(_) => {}
            None if before.deck => out.push((layout.deck.centre, *to)),
            None => {}
        }
    }
    // A card gone under the discard pile's new top: from where it lay to the pile.
    for (card, from, on_discard) in &old {
        if !on_discard.1 && !new.iter().any(|(c, _, _)| c == card) && after.discard.is_some() {
            out.push((*from, layout.discard.centre));
        }
    }
    out
}

/// Moves projected into the image, pixels.
pub fn move_marks(moves: &[(Pt, Pt)], layout: &TableLayout) -> Vec<[[f32; 2]; 2]> {
    let Some(to_image) = layout.image_to_table().inverse() else { return Vec::new() };
    let px = |p: Pt| {
        let q = to_image.apply(p);
        [q.x as f32, q.y as f32]
    };
    moves.iter().map(|(a, b)| [px(*a), px(*b)]).collect()
}

/// Each seat's Front and Back Row and the two piles, projected into the image. Empty when the
/// layout's camera transform cannot be inverted.
pub fn zone_marks(layout: &TableLayout, names: &[String]) -> Vec<ZoneMark> {
    let Some(to_image) = layout.image_to_table().inverse() else { return Vec::new() };
    let project =
        |points: Vec<Pt>| points.iter().map(|p| to_image.apply(*p)).map(|p| [p.x as f32, p.y as f32]).collect();
    let mut marks = Vec::new();
    for (seat, zones) in layout.seats.iter().enumerate() {
        let name = names.get(seat).cloned().unwrap_or_else(|| format!("P{}", seat + 1));
        for (row, what) in [(zones.front, "Front Row"), (zones.back, "Back Row")] {
            marks.push(ZoneMark {
                outline: project(row_outline(&row)),
                seat: Some(seat),
                label: format!("{name}: {what}"),
                differs: false,
            });
        }
    }
    for (zone, label) in [(layout.deck, "deck"), (layout.discard, "discard")] {
        let circle = (0..24)
            .map(|k| {
                let a = k as f64 * std::f64::consts::TAU / 24.0;
                Pt::new(zone.centre.x + zone.radius * a.cos(), zone.centre.y + zone.radius * a.sin())
            })
            .collect();
        marks.push(ZoneMark { outline: project(circle), seat: None, label: label.to_string(), differs: false });
    }
    marks
}

/// The band a row's cards lie in, table millimetres: its slots end to end, a card's length
/// across (a little more, for the modifiers overlapping the cards' lower part).
fn row_outline(row: &Row) -> Vec<Pt> {
    let len = (row.step.x * row.step.x + row.step.y * row.step.y).sqrt().max(1e-9);
    let along = Pt::new(row.step.x / len, row.step.y / len);
    let across = Pt::new(-along.y, along.x);
    let (start, end) = (row.first, row.last());
    let half_slot = SLOT_MM / 2.0;
    let half_card = CARD_MM.1 * 0.7;
    let at = |p: Pt, a: f64, c: f64| Pt::new(p.x + along.x * a + across.x * c, p.y + along.y * a + across.y * c);
    vec![
        at(start, -half_slot, -half_card),
        at(end, half_slot, -half_card),
        at(end, half_slot, half_card),
        at(start, -half_slot, half_card),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{CardView, EntityView, SeatView};

    #[test]
    fn the_rows_and_piles_a_desync_names_are_marked() {
        let names = vec!["Alice".to_string(), "Bob".to_string()];
        let mut zones = zone_marks(&TableLayout::standard(2), &names);
        let differences =
            ["Bob's Back Row: 8H missing".to_string(), "the discard pile shows QD on top, not 10C".into()];
        mark_differences(&mut zones, &differences);
        let marked: Vec<&str> = zones.iter().filter(|z| z.differs).map(|z| z.label.as_str()).collect();
        assert_eq!(marked, ["Bob: Back Row", "discard"]);
    }

    #[test]
    fn a_card_moved_to_another_row_and_a_card_drawn_are_arrows() {
        let layout = TableLayout::standard(2);
        let card = |code: &str| code.parse().expect("a card");
        let at = |x: f64, y: f64| Pt::new(x, y);
        let seat = |cards: Vec<CardView>| SeatView {
            front: Vec::new(),
            back: cards.into_iter().map(EntityView::single).collect(),
        };
        let before = TableView {
            seats: vec![seat(vec![CardView::up(card("9S"), at(0.0, 100.0))]), seat(Vec::new())],
            deck: true,
            ..TableView::default()
        };
        // The 9S stolen into the other seat's row; the 2H drawn.
        let after = TableView {
            seats: vec![
                seat(vec![CardView::up(card("2H"), at(272.0, 100.0))]),
                seat(vec![CardView::up(card("9S"), at(200.0, -100.0))]),
            ],
            deck: true,
            ..TableView::default()
        };
        let found = moves(&before, &after, &layout);
        assert_eq!(found, [(layout.deck.centre, at(272.0, 100.0)), (at(0.0, 100.0), at(200.0, -100.0))]);
        assert!(moves(&after, &after, &layout).is_empty(), "a still table moved");
        // A card shifted along its own row (a neighbour left) has not moved.
        let mut shifted = before.clone();
        shifted.seats[0].back[0].base.centre = at(72.0, 100.0);
        assert!(moves(&before, &shifted, &layout).is_empty(), "a shift along the row is a move");
    }

    #[test]
    fn the_standard_layout_gives_two_rows_a_seat_and_two_piles() {
        let layout = TableLayout::standard(3);
        let names: Vec<String> = ["Ann", "Ben", "Cleo"].map(String::from).to_vec();
        let marks = zone_marks(&layout, &names);
        assert_eq!(marks.len(), 3 * 2 + 2);
        assert_eq!(marks[0].label, "Ann: Front Row");
        assert_eq!(marks[5].label, "Cleo: Back Row");
        // The identity camera: a row's outline lies around its first slot, in millimetres.
        let first = layout.seats[0].front.slot(0);
        let xs: Vec<f32> = marks[0].outline.iter().map(|p| p[0]).collect();
        let lo = xs.iter().copied().fold(f32::MAX, f32::min);
        let hi = xs.iter().copied().fold(f32::MIN, f32::max);
        assert!(f64::from(lo) < first.x && first.x < f64::from(hi), "{xs:?} misses {first:?}");
    }
}
