//! Where things lie on the table, in table millimetres: each seat's Front Row and Back Row, the
//! deck and the discard pile, and the camera's view of that plane (a homography from image
//! pixels). `standard` is the layout the renderer deals into and the referee expects when no
//! calibration is given.

use serde::{Deserialize, Serialize};

use crate::render::geometry::{Homography, Pt};
use crate::render::scene::CARD_MM;

/// Centre-to-centre distance of neighbouring entities in a row, millimetres.
pub const SLOT_MM: f64 = 72.0;
/// How far a modifier's centre lies from its base's, along the base card's length (toward the
/// seat), so that the base's top index stays in sight.
pub const MODIFIER_OFFSET: f64 = 0.42;
/// Slots drawn for a row (a Back Row holds 7, and 8 for a moment after a draw).
pub const ROW_SLOTS: usize = 8;

/// A row of entities: the centre of its first slot, the step to the next slot, and the angle of
/// the cards placed there (0: upright on the table plane, their top away from a seat at the
/// bottom; π for a seat across the table).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub first: Pt,
    pub step: Pt,
    pub angle: f64,
}

impl Row {
    /// Centre of slot `k` (0-based); slots go on past the last drawn one.
    pub fn slot(&self, k: usize) -> Pt {
        Pt::new(self.first.x + self.step.x * k as f64, self.first.y + self.step.y * k as f64)
    }

    /// Where a modifier of the entity at `base` lies: over the base card's lower part.
    pub fn modifier_at(&self, base: Pt) -> Pt {
        let d = MODIFIER_OFFSET * CARD_MM.1;
        Pt::new(base.x - self.angle.sin() * d, base.y + self.angle.cos() * d)
    }

    /// Position of `p` along the row, in slots from the first (may be fractional or negative),
    /// and its distance across the row, millimetres.
    pub fn locate(&self, p: Pt) -> (f64, f64) {
        let len2 = self.step.x * self.step.x + self.step.y * self.step.y;
        let (dx, dy) = (p.x - self.first.x, p.y - self.first.y);
        let along = (dx * self.step.x + dy * self.step.y) / len2;
        let across = (dx * self.step.y - dy * self.step.x) / len2.sqrt();
        (along, across)
    }
}

/// A round place on the table: the deck or the discard pile.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    pub centre: Pt,
    pub radius: f64,
}

impl Zone {
    pub fn contains(&self, p: Pt) -> bool {
        p.distance(self.centre) <= self.radius
    }
}

/// One seat's rows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatZones {
    pub front: Row,
    pub back: Row,
}

/// The whole table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableLayout {
    /// In play order: play passes from seat k to seat k + 1.
    pub seats: Vec<SeatZones>,
    pub deck: Zone,
    pub discard: Zone,
    /// Image pixels → table millimetres (row-major 3×3).
    pub image_to_table: [[f64; 3]; 3],
}

/// Distance of a seat's Back Row line from the table's middle line, and of its Front Row.
const BACK_ROW_MM: f64 = 115.0;
const FRONT_ROW_MM: f64 = 255.0;
/// Width given to one seat along a side of the table.
const SEAT_MM: f64 = 660.0;

impl TableLayout {
    /// The standard table for `players` seats: seats along the two long sides facing each other,
    /// the first side (bottom of the view) holding the larger half. Play passes to the left: along
    /// the bottom from right to left, then along the top from left to right. Deck and discard
    /// pile lie in the middle, deck on the left. `image_to_table` is the identity until a camera
    /// is calibrated.
    pub fn standard(players: usize) -> TableLayout {
        let bottom = players.div_ceil(2);
        let top = players - bottom;
        let centre_x = |i: usize, n: usize| (i as f64 - (n as f64 - 1.0) / 2.0) * SEAT_MM;
        let mut seats = Vec::with_capacity(players);
        // Bottom side, right to left.
        for i in (0..bottom).rev() {
            seats.push(seat_zones(centre_x(i, bottom), 1.0));
        }
        // Top side, left to right.
        for i in 0..top {
            seats.push(seat_zones(centre_x(i, top), -1.0));
        }
        TableLayout {
            seats,
            deck: Zone { centre: Pt::new(-60.0, 0.0), radius: 55.0 },
            discard: Zone { centre: Pt::new(60.0, 0.0), radius: 55.0 },
            image_to_table: Homography::IDENTITY.0,
        }
    }

    /// Reads a layout file (TOML, as `to_toml` writes it). The error names the file, and the
    /// line and field where the text is wrong.
    pub fn load(path: &std::path::Path) -> Result<TableLayout, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        TableLayout::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn from_toml(text: &str) -> Result<TableLayout, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().replace('\n', " "))
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    pub fn image_to_table(&self) -> Homography {
        Homography(self.image_to_table)
    }

    /// The table's extent in millimetres: (min corner, max corner) of every row and zone, with a
    /// card's size around them.
    pub fn extent(&self) -> (Pt, Pt) {
        let mut points = vec![self.deck.centre, self.discard.centre];
        for seat in &self.seats {
            for row in [seat.front, seat.back] {
                points.push(row.slot(0));
                points.push(row.modifier_at(row.slot(ROW_SLOTS - 1)));
            }
        }
        let margin = CARD_MM.1 * 0.75;
        let min = points.iter().fold(Pt::new(f64::MAX, f64::MAX), |m, p| Pt::new(m.x.min(p.x), m.y.min(p.y)));
        let max = points.iter().fold(Pt::new(f64::MIN, f64::MIN), |m, p| Pt::new(m.x.max(p.x), m.y.max(p.y)));
        (Pt::new(min.x - margin, min.y - margin), Pt::new(max.x + margin, max.y + margin))
    }
}

/// A seat centred at `x` on the side `side` (1: bottom, the seat looking up the view; -1: top).
/// Its first slot is on its own left.
fn seat_zones(x: f64, side: f64) -> SeatZones {
    let angle = if side > 0.0 { 0.0 } else { std::f64::consts::PI };
    let half = (ROW_SLOTS as f64 - 1.0) / 2.0 * SLOT_MM;
    let row = |distance: f64| Row {
        first: Pt::new(x - side * half, side * distance),
        step: Pt::new(side * SLOT_MM, 0.0),
        angle,
    };
    SeatZones { front: row(FRONT_ROW_MM), back: row(BACK_ROW_MM) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_face_each_other_and_rows_start_on_the_seat_s_left() {
        let layout = TableLayout::standard(2);
        let (near, far) = (layout.seats[0], layout.seats[1]);
        assert!(near.back.first.y > 0.0 && far.back.first.y < 0.0);
        assert!(near.front.first.y > near.back.first.y, "the Front Row lies nearer its seat");
        assert!(near.back.step.x > 0.0 && far.back.step.x < 0.0);
        // A modifier lies toward its seat.
        assert!(near.back.modifier_at(near.back.slot(0)).y > near.back.slot(0).y);
        assert!(far.back.modifier_at(far.back.slot(0)).y < far.back.slot(0).y);
    }

    #[test]
    fn rows_of_different_seats_and_the_piles_do_not_overlap() {
        for players in 2..=6 {
            let layout = TableLayout::standard(players);
            assert_eq!(layout.seats.len(), players);
            let slots: Vec<Pt> = layout
                .seats
                .iter()
                .flat_map(|s| [s.front, s.back])
                .flat_map(|row| (0..ROW_SLOTS).map(move |k| row.slot(k)))
                .collect();
            for (i, a) in slots.iter().enumerate() {
                for b in &slots[i + 1..] {
                    assert!(a.distance(*b) >= SLOT_MM - 1e-9, "{players} seats: {a:?} and {b:?}");
                }
                assert!(!layout.deck.contains(*a) && !layout.discard.contains(*a));
            }
        }
    }

    #[test]
    fn locate_measures_along_and_across_a_row() {
        let row = TableLayout::standard(2).seats[1].back;
        let (along, across) = row.locate(row.slot(3));
        assert!((along - 3.0).abs() < 1e-9 && across.abs() < 1e-9);
    }
}
