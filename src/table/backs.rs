//! The Front Rows' cards found along each row in the frame (`vision::row_backs`) put among the
//! reader's sightings: each back found replaces the reader's face-down outlines over it, and
//! gives way to a face the reader read.

use opencv::core::Mat;

use crate::geometry::{Homography, Pt, quad_contains};
use crate::layout::TableLayout;
use crate::vision::cards::CardDetection;
use crate::vision::row_backs::{RowCard, front_row_backs};

use super::place::{Sighting, index_to_centre};
use super::view::{Face, TableView};

/// A card found along a row as a face-down sighting, with what `RowCard` says besides.
struct Back {
    sighting: Sighting,
    looks_like_face: bool,
    /// The shield over a stack's base, and the middle of its far edge.
    shield: Option<(Sighting, Pt)>,
    angle: f64,
}

impl From<RowCard> for Back {
    fn from(card: RowCard) -> Back {
        let back = |outline: [Pt; 4], centre: Pt| Sighting {
            centre,
            face: Face::Down,
            card: None,
            confidence: 0.5,
            outline: Some(outline),
            index: None,
        };
        Back {
            sighting: back(card.outline, card.centre),
            looks_like_face: card.looks_like_face,
            shield: card.shield.map(|s| (back(s.outline, s.centre), s.far_end)),
            angle: card.angle,
        }
    }
}

/// One frame placed: the reader's detections, and the Front Rows' backs it missed, found in the
/// frame itself (`front_row_backs`). What the referee should use when it has the frame.
pub fn place_frame(frame: &Mat, detections: &[CardDetection], layout: &TableLayout) -> opencv::Result<TableView> {
    let h = layout.image_to_table();
    let mut sightings: Vec<Sighting> = detections.iter().filter_map(|d| Sighting::from_detection(d, &h)).collect();
    add_missed_backs(&mut sightings, front_row_backs(frame, layout)?);
    Ok(super::place::place_sightings(&sightings, layout))
}

/// `sightings` with the backs found along the Front Rows: each back found replaces the reader's
/// face-down outlines over it (the reader merges backs lying close into one outline, or sees one
/// card of a stack of two), and stands aside where the reader read a face-up card, or saw one it
/// could not read where the colours are a face's. (A stack of two backs, the lower one's edge a
/// pale line across it, is now and then taken for a face the reader cannot read.)
pub fn add_missed_backs(sightings: &mut Vec<Sighting>, backs: Vec<RowCard>) {
    let backs: Vec<Back> = backs.into_iter().map(Back::from).collect();
    for s in sightings.iter_mut().filter(|s| s.face == Face::Up && s.card.is_some()) {
        narrow_merged_outline(s, &backs);
    }
    let mut found = Vec::new();
    for Back { sighting: b, looks_like_face, shield, .. } in backs {
        let overlaps = |s: &Sighting| {
            s.centre.distance(b.centre) < 30.0
                || s.outline.as_ref().is_some_and(|o| quad_contains(o, b.centre))
                || b.outline.as_ref().is_some_and(|o| quad_contains(o, s.centre))
        };
        let face =
            sightings.iter().find(|s| s.face == Face::Up && (s.card.is_some() || looks_like_face) && overlaps(s));
        if let Some(face) = face {
            // A target turned up under its shield: the reader outlines the face it reads, and
            // the shield over its lower part, outside that outline, is seen by no one else.
            let shield = shield.filter(|(m, end)| {
                face.card.is_some()
                    && !face.outline.as_ref().is_some_and(|o| quad_contains(o, *end))
                    && !sightings.iter().any(|s| s.face == Face::Down && s.centre.distance(m.centre) < 30.0)
            });
            found.extend(shield.map(|(m, _)| m));
            continue;
        }
        // The row finder misses a shield now and then (one laid on the end card of the row at
        // the picture's far edge, the layout fitted to the deal): a face-down outline the reader
        // found as long as a stack, over this back, is the stack, and stays for the row to split.
        let stack = |s: &Sighting| s.face == Face::Down && s.is_stack() && overlaps(s);
        if shield.is_none() && sightings.iter().any(stack) {
            continue;
        }
        sightings.retain(|s| !overlaps(s));
        found.push(b);
    }
    sightings.extend(found);
}

/// A face-up outline read over two or more cards found along the row is the reader merging
/// neighbours (a target turned up beside a stack of backs reads as one wide card): it keeps the
/// place of the card its index belongs to, so that the others are seen as the backs they are.
/// The index lies in its card's corner, the top-left or the bottom-right one: the card is the
/// back nearest where either puts its centre. (The backs' places come from the row's covered
/// run split evenly, and may be off by a fraction of a card: a corner can lie over the
/// neighbour's outline.)
fn narrow_merged_outline(s: &mut Sighting, backs: &[Back]) {
    let Some(outline) = s.outline else { return };
    let inside: Vec<&Back> = backs.iter().filter(|b| quad_contains(&outline, b.sighting.centre)).collect();
    if inside.len() < 2 {
        return;
    }
    let miss = |b: &Back| match s.index {
        Some(index) => {
            let offset = Homography::rotation(b.angle).apply(index_to_centre());
            let centres =
                [Pt::new(index.x + offset.x, index.y + offset.y), Pt::new(index.x - offset.x, index.y - offset.y)];
            centres.iter().map(|c| c.distance(b.sighting.centre)).fold(f64::MAX, f64::min)
        }
        None => s.centre.distance(b.sighting.centre),
    };
    let Some(own) = inside.iter().min_by(|a, b| miss(a).total_cmp(&miss(b))) else { return };
    s.outline = own.sighting.outline;
    s.centre = own.sighting.centre;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::CARD_MM;
    use crate::layout::MODIFIER_MM;
    use crate::vision::row_backs::Shield;

    /// A card's outline centred at `x` on a horizontal row at y = 0, `long` millimetres long.
    fn outline(x: f64, width: f64, long: f64) -> [Pt; 4] {
        let (w, h) = (width / 2.0, long / 2.0);
        [Pt::new(x - w, -h), Pt::new(x + w, -h), Pt::new(x + w, h), Pt::new(x - w, h)]
    }

    fn sighting(face: Face, card: Option<&str>, x: f64, width: f64) -> Sighting {
        Sighting {
            centre: Pt::new(x, 0.0),
            face,
            card: card.map(|c| c.parse().unwrap()),
            confidence: 0.4,
            outline: Some(outline(x, width, CARD_MM.1)),
            index: None,
        }
    }

    fn back(x: f64, looks_like_face: bool) -> RowCard {
        let outline = outline(x, CARD_MM.0, CARD_MM.1);
        RowCard { outline, centre: Pt::new(x, 0.0), looks_like_face, shield: None, angle: 0.0 }
    }

    #[test]
    fn an_unread_face_over_a_back_gives_way_unless_its_colours_are_a_face_s() {
        let mut seen = vec![sighting(Face::Up, None, 0.0, CARD_MM.0)];
        add_missed_backs(&mut seen, vec![back(0.0, false)]);
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].face, Face::Down, "a stack of backs taken for a face is a back");

        let mut seen = vec![sighting(Face::Up, None, 0.0, CARD_MM.0)];
        add_missed_backs(&mut seen, vec![back(0.0, true)]);
        assert_eq!((seen.len(), seen[0].face), (1, Face::Up), "a face the reader could not read stays");

        let mut seen = vec![sighting(Face::Up, Some("9S"), 0.0, CARD_MM.0)];
        add_missed_backs(&mut seen, vec![back(0.0, false)]);
        assert_eq!(seen[0].card, Some("9S".parse().unwrap()), "a reading outweighs colours");
    }

    #[test]
    fn a_face_read_under_a_shield_keeps_the_shield_the_reader_left_out() {
        let mut stack = back(0.0, false);
        stack.shield = Some(Shield {
            outline: outline(0.0, CARD_MM.0, CARD_MM.1).map(|p| Pt::new(p.x, p.y + MODIFIER_MM)),
            centre: Pt::new(0.0, MODIFIER_MM),
            far_end: Pt::new(0.0, MODIFIER_MM + CARD_MM.1 / 2.0 - 6.0),
        });
        let mut seen = vec![sighting(Face::Up, Some("9C"), 0.0, CARD_MM.0)];
        add_missed_backs(&mut seen, vec![stack]);
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(seen.iter().any(|s| s.face == Face::Down && (s.centre.y - MODIFIER_MM).abs() < 1e-9));
    }

    #[test]
    fn a_back_found_without_its_shield_leaves_the_stack_the_reader_outlined() {
        // The reader's face-down outline reaches a modifier's offset past the back's seat end:
        // a base and its shield. The back found alone over it stands aside.
        let long = CARD_MM.1 + MODIFIER_MM;
        let mut stack = sighting(Face::Down, None, 0.0, CARD_MM.0);
        stack.outline = Some(outline(0.0, CARD_MM.0, long).map(|p| Pt::new(p.x, p.y + MODIFIER_MM / 2.0)));
        stack.centre = Pt::new(0.0, MODIFIER_MM / 2.0);
        let mut seen = vec![stack.clone()];
        add_missed_backs(&mut seen, vec![back(0.0, false)]);
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].outline, stack.outline, "the reader's stack stays");
        // A lone card's outline gives way to the back, as ever.
        let mut seen = vec![sighting(Face::Down, None, 0.0, CARD_MM.0)];
        add_missed_backs(&mut seen, vec![back(2.0, false)]);
        assert_eq!((seen.len(), seen[0].centre.x), (1, 2.0));
    }

    #[test]
    fn a_read_outline_over_two_backs_misplaced_keeps_the_place_its_index_s_card_is_nearest() {
        // A row seen from across the table (cards at pi); the face at 180 lies upright in the
        // picture, its bottom-right index toward the back at 250. The backs' places, from a
        // covered run split evenly, are 24 mm off: the index lies nearer the back at 250.
        let off = index_to_centre();
        let mut merged = sighting(Face::Up, Some("9S"), 203.0, 150.0);
        merged.index = Some(Pt::new(180.0 + off.x, off.y));
        let backs: Vec<RowCard> =
            [156.0, 250.0].iter().map(|&x| RowCard { angle: std::f64::consts::PI, ..back(x, false) }).collect();
        let mut seen = vec![merged];
        add_missed_backs(&mut seen, backs);
        let up = seen.iter().find(|s| s.face == Face::Up).unwrap();
        assert!((up.centre.x - 156.0).abs() < 1e-9, "{up:?}");
        let down = seen.iter().find(|s| s.face == Face::Down).unwrap();
        assert!((down.centre.x - 250.0).abs() < 1e-9, "{down:?}");
    }

    #[test]
    fn a_read_outline_over_two_backs_keeps_the_place_of_the_card_its_index_lies_on() {
        let step = 72.0;
        let mut merged = sighting(Face::Up, Some("AH"), step / 2.0, CARD_MM.0 + step);
        merged.index = Some(Pt::new(step - 20.0, -30.0));
        let mut seen = vec![merged];
        add_missed_backs(&mut seen, vec![back(0.0, false), back(step, false)]);
        assert_eq!(seen.len(), 2, "{seen:?}");
        let up = seen.iter().find(|s| s.face == Face::Up).unwrap();
        assert!(up.centre.distance(Pt::new(step, 0.0)) < 1e-9, "{up:?}");
        let down = seen.iter().find(|s| s.face == Face::Down).unwrap();
        assert!(down.centre.distance(Pt::new(0.0, 0.0)) < 1e-9);
    }
}
