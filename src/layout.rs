//! Where things lie on the table, in table millimetres: each seat's Front Row and Back Row, the
//! deck and the discard pile, and the camera's view of that plane (a homography from image
//! pixels). `standard` is the layout the renderer deals into and the referee expects when no
//! calibration is given.

use serde::{Deserialize, Serialize};

use crate::cards::CARD_MM;
use crate::geometry::{Homography, Pt};
use crate::text_input::shortened;

/// Centre-to-centre distance of neighbouring entities in a row, millimetres.
pub const SLOT_MM: f64 = 72.0;
/// How far a modifier's centre lies from its base's, along the base card's length (toward the
/// seat), so that the base's top index stays in sight.
pub const MODIFIER_OFFSET: f64 = 0.42;
/// How far a modifier's centre lies from its base's, millimetres (about 37).
pub const MODIFIER_MM: f64 = MODIFIER_OFFSET * CARD_MM.1;
/// Slots drawn for a row (a Back Row holds 7, and 8 for a moment after a draw).
pub const ROW_SLOTS: usize = 8;
/// How many slots past the last drawn one a row may run (retired entities go to the right end).
pub const EXTRA_SLOTS: f64 = 4.0;

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

    /// The row whose first and last drawn slots are centred at `first` and `last`, its cards
    /// turned to lie along it (a row laid out by hand).
    pub fn through(first: Pt, last: Pt) -> Row {
        let span = (ROW_SLOTS - 1) as f64;
        let step = Pt::new((last.x - first.x) / span, (last.y - first.y) / span);
        Row { first, step, angle: step.y.atan2(step.x) }
    }

    /// Centre of the last drawn slot.
    pub fn last(&self) -> Pt {
        self.slot(ROW_SLOTS - 1)
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
    /// Who sits in each seat, when a layout saved with a game remembers it (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
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
            // A pile's cards lie within a few millimetres of its centre; the radius leaves room
            // for an attacker slid forward out of its row nearby (render::game::physical::HELD_MM).
            deck: Zone { centre: Pt::new(-60.0, 0.0), radius: 40.0 },
            discard: Zone { centre: Pt::new(60.0, 0.0), radius: 40.0 },
            image_to_table: Homography::IDENTITY.0,
            names: Vec::new(),
        }
    }

    /// The same table with its seats counted from the chairs as the camera sees them: the first
    /// seat on the side nearest the image's bottom edge, then on round the table in play order
    /// (clockwise as seen on the image). A layout fitted to a deal of an even table fits equally
    /// well either way round; the players' names, given in chair order, then still follow their
    /// chairs.
    pub fn in_chair_order(mut self) -> TableLayout {
        let Some(to_image) = self.image_to_table().inverse() else { return self };
        let first_side = self.seats.len().div_ceil(2);
        let mean_y = |seats: &[SeatZones]| {
            let ys: Vec<f64> = seats.iter().map(|s| to_image.apply(s.back.slot(ROW_SLOTS / 2)).y).collect();
            ys.iter().sum::<f64>() / ys.len().max(1) as f64
        };
        let (near, far) = self.seats.split_at(first_side);
        if mean_y(far) > mean_y(near) {
            self.seats.rotate_left(first_side);
            if self.names.len() == self.seats.len() {
                self.names.rotate_left(first_side);
            }
        }
        self
    }

    /// Reads a layout file (TOML, as `to_toml` writes it). The error names the file, and the
    /// line and field where the text is wrong.
    pub fn load(path: &std::path::Path) -> Result<TableLayout, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        TableLayout::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses and checks a layout: 2 to 6 seats, finite numbers, rows with a step, piles with a
    /// radius, an invertible homography. The error names the line and the field.
    pub fn from_toml(text: &str) -> Result<TableLayout, String> {
        let layout: TableLayout = toml::from_str(text).map_err(|e| parse_error(text, &e))?;
        layout.check().map_err(|(path, why)| match line_of(text, &path) {
            Some(line) => format!("line {line}: {}: {why}", path.join(".")),
            None => format!("{}: {why}", path.join(".")),
        })?;
        Ok(layout)
    }

    /// The first thing wrong with the layout: the field's path and why.
    fn check(&self) -> Result<(), (Vec<String>, String)> {
        let path = |parts: &[&str]| parts.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        if !(2..=6).contains(&self.seats.len()) {
            return Err((path(&["seats"]), format!("{} seats; a table has 2 to 6", self.seats.len())));
        }
        if !self.names.is_empty() && self.names.len() != self.seats.len() {
            let why = format!("{} names for {} seats", self.names.len(), self.seats.len());
            return Err((path(&["names"]), why));
        }
        let finite = |v: f64, p: Vec<String>| {
            if v.is_finite() { Ok(()) } else { Err((p, format!("{v} is not a finite number"))) }
        };
        for (i, seat) in self.seats.iter().enumerate() {
            for (name, row) in [("front", seat.front), ("back", seat.back)] {
                let at = |field: &[&str]| {
                    let mut p = vec!["seats".to_string(), i.to_string(), name.to_string()];
                    p.extend(field.iter().map(|f| f.to_string()));
                    p
                };
                finite(row.first.x, at(&["first", "x"]))?;
                finite(row.first.y, at(&["first", "y"]))?;
                finite(row.step.x, at(&["step", "x"]))?;
                finite(row.step.y, at(&["step", "y"]))?;
                finite(row.angle, at(&["angle"]))?;
                if row.step.x.hypot(row.step.y) < 1.0 {
                    return Err((at(&["step"]), "a row's step must be at least 1 mm long".into()));
                }
            }
        }
        for (name, zone) in [("deck", self.deck), ("discard", self.discard)] {
            finite(zone.centre.x, path(&[name, "centre", "x"]))?;
            finite(zone.centre.y, path(&[name, "centre", "y"]))?;
            finite(zone.radius, path(&[name, "radius"]))?;
            if zone.radius <= 0.0 {
                return Err((path(&[name, "radius"]), format!("{} is not a positive radius", zone.radius)));
            }
        }
        for (r, row) in self.image_to_table.iter().enumerate() {
            for v in row {
                finite(*v, vec!["image_to_table".into(), r.to_string()])?;
            }
        }
        let m = &self.image_to_table;
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        let scale = m.iter().flatten().fold(0.0f64, |a, v| a.max(v.abs()));
        if scale == 0.0 || det.abs() <= 1e-12 * scale.powi(3) {
            return Err((
                path(&["image_to_table"]),
                "the homography is singular (it maps the image onto a line)".into(),
            ));
        }
        Ok(())
    }

    /// The layout as the TOML file `from_toml` reads, commented (calibration/README.md).
    pub fn to_toml(&self) -> String {
        let num = |v: f64| {
            if v.is_nan() {
                "nan".to_string()
            } else if v.is_infinite() {
                if v > 0.0 { "inf".into() } else { "-inf".into() }
            } else {
                format!("{v:?}")
            }
        };
        let pt = |p: Pt| format!("{{ x = {}, y = {} }}", num(p.x), num(p.y));
        let row = |r: &Row| format!("{{ first = {}, step = {}, angle = {} }}", pt(r.first), pt(r.step), num(r.angle));
        let matrix = self.image_to_table.map(|r| format!("[{}]", r.map(num).join(", "))).join(", ");
        let mut out = String::new();
        out.push_str("# Image pixels -> table millimetres: a row-major 3x3 homography.\n");
        out.push_str(&format!("image_to_table = [{matrix}]\n"));
        if !self.names.is_empty() {
            let names: Vec<String> = self.names.iter().map(|n| toml::Value::String(n.clone()).to_string()).collect();
            out.push_str(&format!("# Who sits in each seat, in play order.\nnames = [{}]\n", names.join(", ")));
        }
        if self.seats.is_empty() {
            out.push_str("seats = []\n");
        }
        for (name, zone) in [("deck", &self.deck), ("discard", &self.discard)] {
            out.push_str(&format!("\n[{name}]\ncentre = {}\nradius = {}\n", pt(zone.centre), num(zone.radius)));
        }
        out.push_str(
            "\n# Seats in play order. A row: its first slot's centre, the step to the next slot (mm), and\n\
             # its cards' angle (radians: 0 upright, top away from a seat at the bottom; pi across).\n",
        );
        for seat in &self.seats {
            out.push_str(&format!("[[seats]]\nfront = {}\nback = {}\n", row(&seat.front), row(&seat.back)));
        }
        out
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

/// toml's error on one line: "line L: `key = value`: what was wrong".
/// The wrong line is quoted cut to so many characters, and toml's message (which may quote the
/// text too) to so many, control characters escaped: the error stays one short line.
const QUOTED_CHARS: usize = 80;
const MESSAGE_CHARS: usize = 200;

fn parse_error(text: &str, e: &toml::de::Error) -> String {
    let what = shortened(&e.message().trim_end().replace('\n', " "), MESSAGE_CHARS);
    let Some(span) = e.span() else {
        return what;
    };
    let start = span.start.min(text.len());
    let line = text.as_bytes()[..start].iter().filter(|&&b| b == b'\n').count() + 1;
    let quoted = shortened(text.lines().nth(line - 1).map(str::trim).unwrap_or(""), QUOTED_CHARS);
    if quoted.is_empty() { format!("line {line}: {what}") } else { format!("line {line}: `{quoted}`: {what}") }
}

/// The line (1-based) of `text` that sets the field at `path` (or its nearest enclosing field
/// written on one line): table headers and `key = value` lines are followed, array-of-tables
/// headers counted.
fn line_of(text: &str, path: &[String]) -> Option<usize> {
    let mut header: Vec<String> = Vec::new();
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut best: Option<(usize, usize)> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let here: Vec<String> = if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            let name = name.trim().to_string();
            let count = counts.entry(name.clone()).or_insert(0);
            *count += 1;
            header = name.split('.').map(str::to_string).collect();
            header.push((*count - 1).to_string());
            header.clone()
        } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            // A sub-table of the last array entry keeps that entry's index.
            let mut parts: Vec<String> = Vec::new();
            for part in name.trim().split('.') {
                parts.push(part.trim().to_string());
                if let Some(c) = counts
                    .get(&parts.iter().filter(|p| p.parse::<usize>().is_err()).cloned().collect::<Vec<_>>().join("."))
                {
                    parts.push((c - 1).to_string());
                }
            }
            header = parts;
            header.clone()
        } else if let Some((key, _)) = line.split_once('=') {
            let mut p = header.clone();
            p.extend(key.trim().split('.').map(|k| k.trim().trim_matches('"').to_string()));
            p
        } else {
            continue;
        };
        let common = here.iter().zip(path).take_while(|(a, b)| a == b).count();
        if common == here.len() && best.is_none_or(|(c, _)| common > c) {
            best = Some((common, n + 1));
        }
    }
    best.map(|(_, line)| line)
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
    fn a_row_through_its_ends_is_the_row_with_those_ends() {
        for seat in TableLayout::standard(3).seats {
            for row in [seat.front, seat.back] {
                let again = Row::through(row.first, row.last());
                assert!(again.step.distance(row.step) < 1e-9);
                let turn = (again.angle - row.angle).rem_euclid(std::f64::consts::TAU);
                assert!(turn.min(std::f64::consts::TAU - turn) < 1e-9, "{} and {}", again.angle, row.angle);
            }
        }
        // Dragged a quarter turn: the cards turn with the row.
        let turned = Row::through(Pt::new(0.0, 0.0), Pt::new(0.0, 400.0));
        assert!((turned.angle - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    }

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

    proptest::proptest! {
        /// Any layout of 2 to 6 seats with finite numbers and an invertible view is written and
        /// read back unchanged.
        #[test]
        fn any_sound_layout_survives_its_file(
            players in 2usize..=6,
            shift in (-500.0f64..500.0, -500.0f64..500.0),
            turn in -3.2f64..3.2,
            perspective in (-1e-4f64..1e-4, -1e-4f64..1e-4),
            radius in 1.0f64..200.0,
        ) {
            let mut layout = TableLayout::standard(players);
            let (s, c) = turn.sin_cos();
            layout.image_to_table = [[c, -s, shift.0], [s, c, shift.1], [perspective.0, perspective.1, 1.0]];
            layout.deck.radius = radius;
            layout.seats[0].front.angle = turn;
            proptest::prop_assert_eq!(TableLayout::from_toml(&layout.to_toml()), Ok(layout));
        }
    }

    #[test]
    fn a_layout_saved_with_its_players_names_keeps_them() {
        let mut layout = TableLayout::standard(3);
        layout.names = vec!["Ann".into(), "Ben \"B\"\u{1f}".into(), "Cy".into()];
        assert_eq!(TableLayout::from_toml(&layout.to_toml()), Ok(layout.clone()));
        layout.names.pop();
        let e = TableLayout::from_toml(&layout.to_toml()).unwrap_err();
        assert!(e.contains("names: 2 names for 3 seats"), "{e}");
    }

    #[test]
    fn a_layout_survives_its_file() {
        let mut layout = TableLayout::standard(3);
        layout.image_to_table = [[0.9, 0.1, -400.0], [-0.05, 1.1, -300.0], [1e-5, 2e-5, 1.0]];
        assert_eq!(TableLayout::from_toml(&layout.to_toml()), Ok(layout));
    }

    /// The standard file with its `n`th line (0-based) that contains `find` changed by `change`.
    fn corrupt(find: &str, n: usize, change: impl Fn(&str) -> String) -> (String, usize) {
        let text = TableLayout::standard(2).to_toml();
        let mut hits = 0;
        let mut at = 0;
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, line)| {
                if line.contains(find) {
                    hits += 1;
                    if hits == n + 1 {
                        at = i + 1;
                        return change(line);
                    }
                }
                line.to_string()
            })
            .collect();
        assert!(at > 0, "no line {n} with {find:?} in\n{text}");
        (lines.join("\n"), at)
    }

    #[test]
    fn a_bad_file_is_refused_naming_the_line_and_the_field() {
        // A string where a number belongs.
        let (text, line) = corrupt("radius", 0, |l| l.replace("40.0", "\"wide\""));
        let e = TableLayout::from_toml(&text).unwrap_err();
        assert!(e.starts_with(&format!("line {line}:")) && e.contains("radius"), "{e}");
        // A number that is no number.
        let (text, line) = corrupt("radius", 1, |l| l.replace("40.0", "nan"));
        let e = TableLayout::from_toml(&text).unwrap_err();
        assert!(e.starts_with(&format!("line {line}: discard.radius")) && e.contains("finite"), "{e}");
        let (text, line) = corrupt("angle", 1, |l| l.replace("angle = 0.0", "angle = inf"));
        let e = TableLayout::from_toml(&text).unwrap_err();
        assert!(e.starts_with(&format!("line {line}: seats.0.")) && e.contains("angle") && e.contains("finite"), "{e}");
        // A field left out.
        let (text, _) = corrupt("radius", 0, |_| String::new());
        let e = TableLayout::from_toml(&text).unwrap_err();
        assert!(e.contains("missing field `radius`"), "{e}");
        // A homography that maps the image onto a line.
        let (text, line) = corrupt("image_to_table", 0, |_| {
            "image_to_table = [[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]]".into()
        });
        let e = TableLayout::from_toml(&text).unwrap_err();
        assert!(e.starts_with(&format!("line {line}: image_to_table")) && e.contains("singular"), "{e}");
    }

    #[test]
    fn a_table_of_no_seats_or_of_seven_is_refused() {
        let mut layout = TableLayout::standard(6);
        layout.seats.push(layout.seats[0]);
        let e = TableLayout::from_toml(&layout.to_toml()).unwrap_err();
        assert!(e.contains("seats") && e.contains("7 seats"), "{e}");
        layout.seats.clear();
        let e = TableLayout::from_toml(&layout.to_toml()).unwrap_err();
        assert!(e.contains("0 seats"), "{e}");
    }

    #[test]
    fn a_missing_file_is_named() {
        let e = TableLayout::load(std::path::Path::new("/nonexistent/table.toml")).unwrap_err();
        assert!(e.starts_with("/nonexistent/table.toml: cannot read"), "{e}");
    }

    #[test]
    fn locate_measures_along_and_across_a_row() {
        let row = TableLayout::standard(2).seats[1].back;
        let (along, across) = row.locate(row.slot(3));
        assert!((along - 3.0).abs() < 1e-9 && across.abs() < 1e-9);
    }
}
