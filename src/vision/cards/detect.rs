//! The card reader's stages in order, each a module of its own: find the card outlines
//! (`outlines`), read every outline's index corners (`corners`), split outlines of cards lying
//! end to end into their ends (`placing`), tell each other outline face up or down (`face_down`),
//! keep each card once (`placing`), search the indices lying outside the outlines read
//! (`loose`), and read again a card found twice (`placing`, `loose`). `detector` holds the
//! reader's settings and models.

use opencv::prelude::*;

use super::detector::CardDetector;
use super::picture::light;
use super::picture::quad::{cut_by_frame, longer_side};
use super::readers::witness;
use super::stages::corners::{PIPS_SHOW_SUIT, pips_show_suit_of};
use super::stages::face_down::OutlineSeen;
use super::stages::outlines::{Outlines, find_outlines};
use super::stages::placing::{Parted, each_card_once, one_of_each};
use super::types::*;

/// A black court card whose outline is shorter than this (pixels) is named only when read at
/// least `SMALL_BLACK_COURT_SURE`: its index's suit glyph is then about 7 pixels tall, where a
/// spade and a club blur into one blot, and a court card has no pips in its centre to show the
/// suit. The 52 bidly-deck cards at 80 px read the spade jack and king as clubs at both corners
/// (0.90 and 0.83), while the black cards of the edje photos at 81 to 100 px read right at 0.92
/// to 0.99 and the renderer's at 86 px (a 1280 x 720 game) at 0.99. A bar on every small black
/// card, or asking the centre's pips for the suit, left every black card of a rendered game
/// unread: at this size the pips rarely show their shape.
const SMALL_BLACK_COURT: f32 = 90.0;
const SMALL_BLACK_COURT_SURE: f32 = 0.95;

/// A reading the centre confirms in full (as many clean pips as its rank, their outline its
/// suit) has two witnesses that see different parts of the card: it is as sure as a clear index
/// reading, whatever the corner alone gave. The settled view then names it from one photo.
const CONFIRMED_BY_PIPS: f32 = 0.95;

impl CardDetector {
    /// Every card outline found in a BGR frame, read where face up.
    pub fn detect(&self, frame: &Mat) -> opencv::Result<Vec<CardDetection>> {
        // The search and the readers see the frame under white light; a calibrated back is
        // matched in the colours it was calibrated in, those of the camera.
        let camera = frame;
        let balanced = light::balanced(frame)?;
        let frame = balanced.as_ref();
        // Declared after the frame it remembers, so it is dropped first.
        let _memo = witness::CentreMemo::start();
        let size = [frame.cols() as f32, frame.rows() as f32];
        let Outlines { cards, edge_support, peeled, cascades } = find_outlines(frame, self.config.min_card_area)?;
        // Every corner at once: the networks read in batches.
        let pre = self.read_all_corners(frame, cards.iter().chain(&cascades))?;
        let mut out = self.cascade_ends(frame, cascades, &pre)?;
        // Outlines surely face down: their pattern is not searched for indices (see `unsearched`).
        let mut backs = Vec::new();
        for ((quad, support), peeled) in cards.into_iter().zip(edge_support).zip(peeled) {
            if let Some(ends) = self.pair_ends_read(frame, &quad, &pre)? {
                out.extend(ends);
                continue;
            }
            if let Some(halves) = self.side_by_side_read(frame, &quad, &pre, Parted::ByTable)? {
                out.extend(halves);
                continue;
            }
            if let Some(pairs) = self.pairs_side_by_side(frame, &quad, &pre)? {
                out.extend(pairs);
                continue;
            }
            let seen = OutlineSeen { camera, frame, quad, support };
            let found = self.face_up_or_down(&seen, &pre, &mut backs)?;
            // Asked only of a face left unread: a back's outline is no pair of faces.
            if found.as_ref().is_some_and(|d| d.face == Face::Up && d.card.is_none())
                && let Some(halves) = self.side_by_side_read(frame, &quad, &pre, Parted::ByPips)?
            {
                out.extend(halves);
                continue;
            }
            // An outline cut out of a shapeless one is whole only for a face of white paper round
            // its pips: a court card's picture parts its white, and a piece of it would hide
            // the index from the loose search. It stands only when a pip card is read on it.
            if peeled && found.as_ref().and_then(|d| d.card).is_none_or(|c| c.rank.is_court()) {
                continue;
            }
            out.extend(found);
        }
        let went = each_card_once(&mut out, &mut backs, size);
        backs.retain(|q| !went.contains(q));
        let windows = self.add_loose_indices(frame, &mut out, &backs)?;
        one_of_each(&mut out, |d, placed| {
            let window = windows.iter().find(|(b, _)| d.index_boxes.first() == Some(b)).map(|(_, w)| w);
            self.read_again(frame, d, window, placed)
        })?;
        // An index found outside every outline that reads only as a card placed elsewhere is a
        // mark of that card (a pip, a stroke of its picture, the edge of a card laid askew on it),
        // not a card: with neither an outline nor a name it would stand for a card nobody laid.
        out.retain(|d| d.card.is_some() || d.quad.is_some());
        // The centre of each face read is a second witness: a reading it contradicts goes unread,
        // but for one whose suit alone it corrects on a whole card large enough to show its pips'
        // shape (`witness::suit_from_pips`), or another reading of the corners that the pips
        // confirm (`read_by_pips`: a small ten of diamonds whose index the network took for the
        // 8H, its templates for the 10D), named at the bar's confidence. A reading the centre
        // confirms in full is sure (`CONFIRMED_BY_PIPS`).
        for d in &mut out {
            if let (Some(card), Some(quad), Face::Up) = (d.card, d.quad, d.face)
                && !card.rank.is_court()
                && witness::card_shaped(&quad)
            {
                let centre = witness::centre_of(frame, &quad)?;
                let (uncut, long) = (!cut_by_frame(&quad, size), longer_side(&quad));
                let whole = uncut && long >= PIPS_SHOW_SUIT;
                if !witness::agrees(card, &centre) {
                    d.card = witness::suit_from_pips(card, &centre).filter(|c| uncut && pips_show_suit_of(*c, long));
                    if d.card.is_none() {
                        d.card = self.read_by_pips(frame, &quad, &pre)?.map(|r| r.card);
                    }
                    if d.card.is_some() {
                        d.confidence = self.config.min_confidence;
                    }
                } else if whole && witness::confirms(card, &centre) {
                    d.confidence = d.confidence.max(CONFIRMED_BY_PIPS);
                }
            }
            // Only a whole outline tells the card's size: one cut by the picture's edge or
            // half under another card is shorter than its card.
            if let (Some(card), Some(quad)) = (d.card, d.quad)
                && card.rank.is_court()
                && !card.suit.is_red()
                && d.confidence < SMALL_BLACK_COURT_SURE
                && witness::card_shaped(&quad)
                && longer_side(&quad) < SMALL_BLACK_COURT
            {
                d.card = None;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use opencv::{core, imgproc};

    use super::*;
    use crate::cards::CARD_MM;
    use crate::cards::Card;
    use crate::geometry::Pt;
    use crate::render::face::BackStyle;
    use crate::render::table::{Lighting, TableKind, on_a_board};
    use crate::render::{PlacedCard, Renderer, Scene};
    use crate::vision::cards::decks::back;
    use crate::vision::cards::decks::enrolled::Memory;
    use crate::vision::cards::picture::pixels::*;
    use crate::vision::cards::picture::quad::*;
    use crate::vision::cards::readers::index_net::NetReading;
    use crate::vision::cards::readers::patch;
    use crate::vision::cards::stages::corners::*;
    use crate::vision::cards::stages::edge_fit;
    use crate::vision::cards::stages::face_down::*;
    use crate::vision::cards::stages::loose::*;
    use crate::vision::cards::stages::outlines::*;

    /// Reads a rendered table of cards lying the same way, each `step` card lengths further on
    /// than the one below it.
    fn read_end_to_end(cards: &[&str], step: f64) -> Vec<String> {
        // Laid as the renderer lays a cascade: along the cards' length.
        let angle: f64 = 0.3;
        let placed = cards.iter().enumerate().map(|(i, card)| {
            let k = step * CARD_MM.1 * i as f64;
            PlacedCard {
                card: card.parse().unwrap(),
                face_up: true,
                centre: Pt::new(-k * angle.sin(), k * angle.cos()),
                angle,
            }
        });
        let scene = Scene { table_seed: 4, ..Scene::plain(placed.collect(), 700.0, 0.1) };
        let frame = Renderer::new().render(&scene).unwrap().image;
        let found = CardDetector::new().unwrap().detect(&frame).unwrap();
        let mut read: Vec<String> = found.iter().filter_map(|d| d.card).map(|c| c.to_string()).collect();
        read.sort();
        read
    }

    #[test]
    fn backs_are_sure_by_their_paper_and_faces_are_not() {
        use crate::render::face::{bgr, draw_back, draw_face};
        use crate::render::random::{random_back_style, random_face_style, vary_face_style};
        use rand::SeedableRng;
        // At the quarter size the detector judges paper at, as the frame's pixels would give it.
        let quarter = |card: Mat| {
            let mut out = Mat::default();
            let size = core::Size::new(CARD_W / 4, CARD_H / 4);
            imgproc::resize(&card, &mut out, size, 0.0, 0.0, imgproc::INTER_AREA).unwrap();
            out
        };
        let sure = |card: &Mat| {
            let mask = paper_mask(card).unwrap();
            sure_back(&mask, share_set(&mask).unwrap()).unwrap()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        // Faces of many decks, picture courts among them: never a sure back.
        for _ in 0..30 {
            let mut style = random_face_style(&mut rng, &[]);
            vary_face_style(&mut style, &mut rng);
            for code in ["JS", "QH", "KD", "AS", "5H", "10C"] {
                let face = quarter(draw_face(code.parse().unwrap(), &style, 300).unwrap());
                assert!(!sure(&face), "{code} of {style:?}");
            }
        }
        // Backs of many designs: always.
        for _ in 0..50 {
            let style = random_back_style(&mut rng);
            assert!(sure(&quarter(draw_back(&style, 300).unwrap())), "{style:?}");
        }
        // White lines on a dark field: plenty of paper, but all of it in thin lines.
        let white = BackStyle { field: bgr(30, 40, 120), lattice: bgr(250, 250, 250), ..BackStyle::default() };
        let lined = quarter(draw_back(&white, 400).unwrap());
        assert!(share_set(&paper_mask(&lined).unwrap()).unwrap() >= back::FACE_PAPER, "white lines are paper");
        assert!(sure(&lined), "a white lattice");
    }

    #[test]
    fn card_backs_of_many_designs_are_not_read_as_cards() {
        use crate::render::random::random_back_style;
        use rand::{Rng, SeedableRng};
        // Six face-down cards laid apart, each table with its own back design: a pale lattice's
        // crossings on a dark field can pass the glyph templates for a faint 5.
        let detector = CardDetector::new().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let pale = |rng: &mut rand_chacha::ChaCha8Rng| {
            crate::render::face::bgr(rng.random_range(170..255), rng.random_range(170..255), rng.random_range(170..255))
        };
        let mut read = Vec::new();
        for (i, table) in TableKind::ALL.into_iter().enumerate() {
            let cards = (0..6).map(|k| PlacedCard {
                card: Card::deck()[k],
                face_up: false,
                centre: Pt::new(-190.0 + 76.0 * k as f64, if k % 2 == 0 { -40.0 } else { 45.0 }),
                angle: 0.4 * k as f64 + 0.1 * i as f64,
            });
            let scene = Scene {
                table,
                table_seed: i as u64,
                back_style: BackStyle { lattice: pale(&mut rng), ..random_back_style(&mut rng) },
                noise_seed: i as u64,
                ..Scene::plain(cards.collect(), 560.0, 0.2)
            };
            let frame = Renderer::new().render(&scene).unwrap().image;
            let found = detector.detect(&frame).unwrap();
            read.extend(found.iter().filter_map(|d| d.card).map(|c| format!("table {i}: {c}")));
        }
        assert!(read.is_empty(), "backs read as cards: {read:?}");
    }

    #[test]
    fn a_loose_index_read_again_is_read_as_another_card_or_none() {
        let card: Card = "3D".parse().unwrap();
        let cards = vec![PlacedCard { card, face_up: true, centre: Pt::new(0.0, 0.0), angle: 0.2 }];
        let scene = Scene { table_seed: 2, ..Scene::plain(cards, 500.0, 0.1) };
        let rendered = Renderer::new().render(&scene).unwrap();
        // The loose network's window on the top-left index, as the loose search places it.
        let [rank, pip] = rendered.truth[0].index_marks[0].map(|p| [p.x as f32, p.y as f32]);
        let unit = dist(rank, pip);
        let window = patch::index_window(rank, [(pip[0] - rank[0]) / unit, (pip[1] - rank[1]) / unit], unit);
        let detector = CardDetector::new().unwrap();
        let loose = CardDetection { card: None, face: Face::Up, confidence: 0.9, quad: None, index_boxes: Vec::new() };
        let again =
            |ruled_out: &[Card]| detector.read_again(&rendered.image, &loose, Some(&window), ruled_out).unwrap();
        assert_eq!(again(&[]).map(|(c, _)| c), Some(card));
        // Once the three of diamonds is known to lie elsewhere, it is not read here again.
        assert!(again(&[card]).is_none_or(|(c, p)| c != card && p >= 0.6), "{:?}", again(&[card]));
    }

    #[test]
    fn a_card_seen_steeply_along_its_length_looks_square_and_is_still_an_outline() {
        // Upright cards at the far side of a view 45 degrees from overhead: each looks about as
        // tall as it is wide.
        let cards = [("7D", true), ("KS", false)].map(|(card, face_up)| PlacedCard {
            card: card.parse().unwrap(),
            face_up,
            centre: Pt::new(if face_up { -90.0 } else { 90.0 }, -105.0),
            angle: 0.0,
        });
        let scene = Scene::plain(cards.to_vec(), 420.0, 0.45);
        let rendered = Renderer::new().render(&scene).unwrap();
        for truth in &rendered.truth {
            let (short, long) = side_lengths(&truth.quad.map(|p| [p.x as f32, p.y as f32]));
            assert!(long < SQUARE * short, "{} is {short} x {long} px", truth.card);
        }
        let found = CardDetector::new().unwrap().detect(&rendered.image).unwrap();
        let seven = found.iter().find(|d| d.card == Some("7D".parse().unwrap()));
        assert!(seven.is_some_and(|d| d.quad.is_some()), "7D not read from an outline: {found:?}");
        assert_eq!(found.iter().filter(|d| d.face == Face::Down && d.quad.is_some()).count(), 1, "{found:?}");
    }

    #[test]
    fn a_card_under_a_hand_is_named_by_its_index_larger_than_the_part_in_sight() {
        // A hand reaching down over the card leaves its top-left corner in sight: that part is
        // outlined alone, shorter across than a card, so its index is large for the outline.
        use crate::render::scene::Hand;
        let card = PlacedCard { card: "AD".parse().unwrap(), face_up: true, centre: Pt::new(0.0, 0.0), angle: 0.0 };
        let mut scene = Scene::plain(vec![card], 420.0, 0.0);
        scene.hand =
            Some(Hand { palm: Pt::new(34.0, -15.0), angle: std::f64::consts::FRAC_PI_2, skin: [200, 150, 120] });
        let rendered = Renderer::new().render(&scene).unwrap();
        assert!(rendered.truth[0].visible < 0.25 && rendered.truth[0].index_visible[0]);
        let found = CardDetector::new().unwrap().detect(&rendered.image).unwrap();
        let [d] = &found[..] else { panic!("one card expected: {found:?}") };
        let quad = d.quad.expect("the part in sight is outlined");
        let card_width = (CARD_MM.0 * 1280.0 / 420.0) as f32;
        assert!(side_lengths(&quad).0 < 0.5 * card_width, "{d:?}");
        assert_eq!(d.card, Some("AD".parse().unwrap()), "{found:?}");
    }

    #[test]
    fn a_second_choice_needs_the_network_s_own_support() {
        // Ranks A..K and none; suits C D H S and none.
        let reading = |rank: usize, suits: [f32; 5]| {
            let mut ranks = [0.0; 14];
            ranks[rank - 1] = 1.0;
            NetReading { ranks, suits, embedding: Vec::new() }
        };
        let card = |c: &str| c.parse::<Card>().unwrap();
        let memory = Memory::default();
        // A three surely of clubs: with the three of clubs elsewhere, the spades' 0.04 (0.8 of what is
        // left) is no reading.
        let sure = reading(3, [0.95, 0.005, 0.005, 0.04, 0.0]);
        assert_eq!(second_choice(&sure, &memory, &[card("3C")], 0.6), None);
        // Torn between clubs and spades: the spades stand once the clubs lie elsewhere.
        let torn = reading(3, [0.6, 0.0, 0.0, 0.4, 0.0]);
        assert_eq!(second_choice(&torn, &memory, &[card("3C")], 0.6).map(|(c, _)| c), Some(card("3S")));
    }

    #[test]
    fn two_cards_overlapping_end_to_end_are_read_as_two() {
        // One long outline: read as one card, the first card's index gave a queen.
        assert_eq!(read_end_to_end(&["6H", "9D"], 0.45), ["6H", "9D"]);
    }

    /// Two cards rendered side by side, long sides `gap` mm apart, and the one outline round
    /// both that the first stage finds when the table between them is too thin to part them;
    /// the camera sees `view_width` mm across 1280 px (1200: cards about 95 px long).
    fn side_by_side(left: &str, right: &str, gap: f64, view_width: f64) -> (Mat, Quad) {
        let angle: f64 = 0.1;
        let placed = [left, right].into_iter().enumerate().map(|(i, card)| {
            let k = (CARD_MM.0 + gap) * i as f64;
            PlacedCard {
                card: card.parse().unwrap(),
                face_up: true,
                centre: Pt::new(k * angle.cos(), k * angle.sin()),
                angle,
            }
        });
        let scene = Scene { table_seed: 4, ..Scene::plain(placed.collect(), view_width, 0.1) };
        let rendered = Renderer::new().render(&scene).unwrap();
        let [a, b] = [&rendered.truth[0].quad, &rendered.truth[1].quad].map(|q| q.map(|p| [p.x as f32, p.y as f32]));
        // The left card's left side and the right card's right side.
        (rendered.image, order_quad([a[0], b[1], b[2], a[3]]))
    }

    fn read_in_halves(frame: &Mat, quad: &Quad) -> Option<Vec<String>> {
        let detector = CardDetector::new().unwrap();
        let pre = detector.read_all_corners(frame, [*quad].iter()).unwrap();
        let halves = match detector.side_by_side_read(frame, quad, &pre, Parted::ByTable).unwrap() {
            Some(h) => h,
            // As `detect` asks: only of an outline whose own corners left it unread.
            None => {
                let (readings, _) = detector.read_outline(frame, quad, &pre).unwrap();
                if combine(&readings, detector.config.min_confidence).0.is_some() {
                    return None;
                }
                detector.side_by_side_read(frame, quad, &pre, Parted::ByPips).unwrap()?
            }
        };
        Some(halves.iter().map(|d| d.card.unwrap().to_string()).collect())
    }

    #[test]
    fn two_cards_side_by_side_in_one_outline_are_read_as_two() {
        for (left, right) in [("3D", "9D"), ("KS", "4C")] {
            let (frame, both) = side_by_side(left, right, 4.0, 1200.0);
            assert_eq!(read_in_halves(&frame, &both), Some(vec![left.to_string(), right.to_string()]));
        }
    }

    #[test]
    fn a_touching_pair_is_cut_only_where_each_half_s_pips_confirm_it() {
        // No line of table along the cut: each half's centre must show its card's pips, on
        // cards large enough to show their suit (here about 140 px long).
        let (frame, both) = side_by_side("3D", "9D", 0.0, 800.0);
        assert_eq!(read_in_halves(&frame, &both), Some(vec!["3D".to_string(), "9D".to_string()]));
        // Cards about 95 px long: a diamond's pips show no suit, nothing to be sure of.
        let (frame, both) = side_by_side("3D", "9D", 0.0, 1200.0);
        assert_eq!(read_in_halves(&frame, &both), None);
        // A court card's figure confirms nothing: the pair stays one unread outline.
        let (frame, both) = side_by_side("KS", "4C", 0.0, 800.0);
        assert_eq!(read_in_halves(&frame, &both), None);
    }

    /// Two pairs lying side by side, long sides `gap` mm apart, each pair two cards end to end
    /// (the second laid in line on the first, 0.45 of a card's length further): 128 mm across
    /// and as long, cards about 95 px long. The frame and the one square outline round all four.
    fn pairs_side_by_side(cards: [&str; 4], gap: f64) -> (Mat, Quad) {
        let angle: f64 = 0.2;
        let (cos, sin) = (angle.cos(), angle.sin());
        let placed = cards.iter().enumerate().map(|(i, card)| {
            let across = (CARD_MM.0 + gap) * (i / 2) as f64;
            let along = 0.45 * CARD_MM.1 * (i % 2) as f64;
            PlacedCard {
                card: card.parse().unwrap(),
                face_up: true,
                centre: Pt::new(across * cos - along * sin, across * sin + along * cos),
                angle,
            }
        });
        let scene = Scene { table_seed: 4, ..Scene::plain(placed.collect(), 1200.0, 0.1) };
        let rendered = Renderer::new().render(&scene).unwrap();
        // The box round every card's corners, in the cards' own axes.
        let corners: Vec<Pt> = rendered.truth.iter().flat_map(|t| t.quad).collect();
        let turn = |p: Pt, a: f64| Pt::new(p.x * a.cos() - p.y * a.sin(), p.x * a.sin() + p.y * a.cos());
        let a = (corners[1].y - corners[0].y).atan2(corners[1].x - corners[0].x);
        let own: Vec<Pt> = corners.iter().map(|&p| turn(p, -a)).collect();
        let (x0, x1) = own.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.x), hi.max(p.x)));
        let (y0, y1) = own.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.y), hi.max(p.y)));
        let square = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map(|(x, y)| {
            let p = turn(Pt::new(x, y), a);
            [p.x as f32, p.y as f32]
        });
        (rendered.image, order_quad(square))
    }

    #[test]
    fn two_pairs_side_by_side_in_one_square_outline_are_read_as_four() {
        let cards = ["8H", "JH", "AS", "2H"];
        let (frame, square) = pairs_side_by_side(cards, 3.0);
        let detector = CardDetector::new().unwrap();
        let pre = detector.read_all_corners(&frame, [square].iter()).unwrap();
        let found = detector.pairs_side_by_side(&frame, &square, &pre).unwrap().expect("cut in two pairs");
        let mut read: Vec<String> = found.iter().filter_map(|d| d.card).map(|c| c.to_string()).collect();
        read.sort();
        assert_eq!(read, ["2H", "8H", "AS", "JH"]);
        // With no table between the pairs there is no line to cut along.
        let (frame, square) = pairs_side_by_side(cards, 0.0);
        let pre = detector.read_all_corners(&frame, [square].iter()).unwrap();
        assert!(detector.pairs_side_by_side(&frame, &square, &pre).unwrap().is_none());
    }

    #[test]
    fn a_card_alone_is_not_cut() {
        // A card's own outline reads that card: it is no pair.
        let (frame, _) = side_by_side("8S", "5H", 6.0, 1200.0);
        let detector = CardDetector::new().unwrap();
        let one = detector
            .detect(&frame)
            .unwrap()
            .into_iter()
            .find_map(|d| d.quad.filter(|_| d.card == Some("8S".parse().unwrap())))
            .unwrap();
        assert_eq!(read_in_halves(&frame, &one), None);
    }

    #[test]
    fn a_cascade_is_read_at_both_ends_and_its_strips_still_searched() {
        // The ends come from the long outline; the strips between are left to the loose index
        // search. (With the cards a quarter of their length apart, the 4S's end reads at 0.53,
        // under an outline's bar, and is left unread.)
        let read = read_end_to_end(&["4S", "8C", "KD", "7H"], 0.3);
        for card in ["4S", "7H", "8C", "KD"] {
            assert!(read.iter().any(|r| r == card), "{card} not read: {read:?}");
        }
    }

    #[test]
    fn an_outline_with_a_side_along_the_frame_edge_is_cut_by_it() {
        let size = [800.0, 600.0];
        // A fan running off the bottom edge, its cut side a few pixels short of it.
        assert!(cut_by_frame(&[[260.0, 598.0], [237.0, 400.0], [427.0, 337.0], [567.0, 597.0]], size));
        assert!(cut_by_frame(&[[0.5, 100.0], [120.0, 90.0], [130.0, 260.0], [1.0, 270.0]], size));
        // A card whose one corner touches the edge is whole.
        assert!(!cut_by_frame(&[[0.0, 100.0], [120.0, 60.0], [180.0, 230.0], [50.0, 280.0]], size));
        assert!(!cut_by_frame(&[[300.0, 200.0], [420.0, 200.0], [420.0, 370.0], [300.0, 370.0]], size));
    }

    #[test]
    fn quads_start_on_a_short_side_and_run_clockwise() {
        // A landscape card: the short sides are the vertical ones.
        let q = order_quad([[300.0, 10.0], [10.0, 10.0], [10.0, 200.0], [300.0, 200.0]]);
        assert!(dist(q[0], q[1]) < dist(q[1], q[2]));
        // Clockwise in image coordinates: positive shoelace sum with y down.
        let area: f32 = (0..4).map(|i| q[i][0] * q[(i + 1) % 4][1] - q[(i + 1) % 4][0] * q[i][1]).sum();
        assert!(area > 0.0);
    }

    #[test]
    fn a_card_in_the_far_corner_of_a_frame_of_odd_size_is_found_where_it_lies() {
        // 1925 x 1085 is searched at a third of its size with two columns and rows to spare:
        // the outline found there and refined must land on the card, at the far side too. The
        // levels are found on a blurred, resampled image, and the sides found again on the full
        // frame (`edge_fit`), with the corners put where a real card's rounded ones lie: 5 px
        // inside these drawn sharp ones, towards the card's centre.
        let mut frame =
            Mat::new_rows_cols_with_default(1085, 1925, core::CV_8UC3, core::Scalar::new(40.0, 70.0, 50.0, 0.0))
                .unwrap();
        let card = [[1600.0f32, 700.0], [1850.0, 700.0], [1850.0, 1050.0], [1600.0, 1050.0]];
        let points =
            core::Vector::<core::Point>::from_iter(card.iter().map(|p| core::Point::new(p[0] as i32, p[1] as i32)));
        imgproc::fill_convex_poly(&mut frame, &points, core::Scalar::all(235.0), imgproc::LINE_8, 0).unwrap();
        let quads = find_card_quads(&frame, 0.004).unwrap();
        assert_eq!(quads.len(), 1, "{quads:?}");
        let centre = [1725.0, 875.0];
        for corner in card {
            let inset = edge_fit::ARC_INSET * 250.0 / dist(corner, centre);
            let rounded = [corner[0] + (centre[0] - corner[0]) * inset, corner[1] + (centre[1] - corner[1]) * inset];
            let nearest = quads[0].iter().map(|p| dist(*p, rounded)).fold(f32::MAX, f32::min);
            assert!(nearest < 1.5, "corner {rounded:?} found {nearest} px away: {:?}", quads[0]);
        }
    }

    /// A white card on a pale speckled "carpet" whose bright specks touch the card's edges.
    fn card_on_carpet() -> (Mat, [[f32; 2]; 4]) {
        let mut frame =
            Mat::new_rows_cols_with_default(480, 640, core::CV_8UC3, core::Scalar::new(95.0, 130.0, 150.0, 0.0))
                .unwrap();
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 8) % 10_000
        };
        for _ in 0..2500 {
            let (x, y, r) = (next() as i32 % 640, next() as i32 % 480, 2 + next() as i32 % 4);
            let v = 150.0 + (next() % 60) as f64;
            imgproc::circle(
                &mut frame,
                core::Point::new(x, y),
                r,
                core::Scalar::new(v - 30.0, v, v + 15.0, 0.0),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        let quad = [[250.0f32, 120.0], [400.0, 140.0], [375.0, 350.0], [225.0, 330.0]];
        let pts =
            core::Vector::<core::Point>::from_iter(quad.iter().map(|p| core::Point::new(p[0] as i32, p[1] as i32)));
        imgproc::fill_convex_poly(&mut frame, &pts, core::Scalar::all(235.0), imgproc::LINE_AA, 0).unwrap();
        (frame, quad)
    }

    #[test]
    fn a_card_on_a_speckled_pale_table_gets_its_own_corners() {
        let (frame, truth) = card_on_carpet();
        let quads = find_card_quads(&frame, 0.004).unwrap();
        // Each true corner's nearest found corner: a speck stuck on a corner can still pull it
        // by a few percent of the card (the reader's corner window allows that), never more.
        let errors = |q: &[[f32; 2]; 4]| truth.map(|t| q.iter().map(|p| dist(*p, t)).fold(f32::MAX, f32::min));
        let good = |q: &&[[f32; 2]; 4]| {
            let e = errors(q);
            e.iter().sum::<f32>() / 4.0 < 6.0 && e.iter().all(|&x| x < 16.0)
        };
        assert!(quads.iter().any(|q| good(&q)), "{quads:?}");
    }

    #[test]
    fn face_down_cards_on_a_pale_unevenly_lit_table_are_found_by_their_edges() {
        // White-bordered backs on a table nearly as pale as the border, lit ±30 % across: no
        // level parts border from table everywhere, so the outlines come from edges.
        let placed = [(-150.0, -40.0, 0.3), (0.0, 50.0, -0.5), (150.0, -30.0, 1.2)];
        let cards = placed
            .iter()
            .zip(["2C", "7H", "KS"])
            .map(|(&(x, y, angle), card)| PlacedCard {
                card: card.parse().unwrap(),
                face_up: false,
                centre: Pt::new(x, y),
                angle,
            })
            .collect();
        let scene = Scene {
            table: TableKind::Light,
            lighting: Lighting { gradient: 0.3, ..Lighting::default() },
            ..Scene::plain(cards, 560.0, 0.2)
        };
        let frame = Renderer::new().render(&scene).unwrap().image;
        let found = CardDetector::new().unwrap().detect(&frame).unwrap();
        let down = found.iter().filter(|d| d.face == Face::Down).count();
        assert_eq!(down, 3, "{found:?}");
    }

    /// What the detector makes of `cards` (face up or down) lying alone on `table`, lit ±30 %
    /// across: the face-up cards read (unread ones as "?") and the number face down.
    fn alone_on(table: TableKind, cards: &[(&str, bool)], view_width: f64) -> (Vec<String>, usize) {
        let placed = cards
            .iter()
            .enumerate()
            .map(|(i, &(card, face_up))| PlacedCard {
                card: card.parse().unwrap(),
                face_up,
                centre: Pt::new(-60.0 + 120.0 * i as f64, 0.0),
                angle: 0.6 + 0.5 * i as f64,
            })
            .collect();
        let scene = Scene {
            table,
            table_seed: 3,
            lighting: Lighting { gradient: 0.3, ..Lighting::default() },
            ..Scene::plain(placed, view_width, 0.2)
        };
        let frame = Renderer::new().render(&scene).unwrap().image;
        up_and_down(&frame)
    }

    /// What the detector finds in `frame`: the face-up cards read, sorted (unread ones as "?"),
    /// and the number face down.
    fn up_and_down(frame: &Mat) -> (Vec<String>, usize) {
        let found = CardDetector::new().unwrap().detect(frame).unwrap();
        let mut up: Vec<String> = found
            .iter()
            .filter(|d| d.face == Face::Up)
            .map(|d| d.card.map_or("?".to_string(), |c| c.to_string()))
            .collect();
        up.sort();
        (up, found.iter().filter(|d| d.face == Face::Down).count())
    }

    #[test]
    fn a_card_alone_on_a_pale_table_is_not_taken_for_part_of_the_table() {
        // The whole pale table passes a level as one outline round the card (and its shading
        // makes card-sized contours): the card was dropped as part of it, the table reported.
        assert_eq!(alone_on(TableKind::Light, &[("AS", true)], 400.0), (vec!["AS".to_string()], 0));
        assert_eq!(alone_on(TableKind::Light, &[("7H", false)], 700.0), (vec![], 1));
        assert_eq!(alone_on(TableKind::Light, &[("7H", false), ("KD", false)], 400.0), (vec![], 2));
        assert_eq!(alone_on(TableKind::Light, &[], 400.0), (vec![], 0));
    }

    #[test]
    fn the_light_and_shade_of_felt_is_not_taken_for_cards() {
        // Contours through the felt's shading, with no edge along them, were counted as backs
        // and swallowed the one real back.
        assert_eq!(alone_on(TableKind::GreenFelt, &[("10C", false)], 400.0), (vec![], 1));
        assert_eq!(alone_on(TableKind::GreenFelt, &[("10C", false)], 700.0), (vec![], 1));
        assert_eq!(alone_on(TableKind::Wood, &[("KD", true)], 700.0), (vec!["KD".to_string()], 0));
    }

    /// What the detector makes of one card lying on a mat: the card rendered alone on `table`,
    /// and everything outside a rectangle of 520 x 400 pixels round it darkened to a third, so
    /// that the rectangle is a mat or board with real edges on a dark table.
    fn on_a_mat(table: TableKind, card: &str, face_up: bool) -> (Vec<String>, usize) {
        let placed = vec![PlacedCard { card: card.parse().unwrap(), face_up, centre: Pt::new(20.0, 10.0), angle: 0.4 }];
        let scene = Scene { table, table_seed: 5, ..Scene::plain(placed, 700.0, 0.2) };
        let frame = Renderer::new().render(&scene).unwrap().image;
        up_and_down(&on_a_board(&frame, core::Rect::new(400, 150, 520, 400)).unwrap())
    }

    #[test]
    fn a_card_alone_on_a_mat_is_read_and_the_mat_is_not_a_card() {
        // The mat's outline held the card's, and an outline holding one smaller outline took it
        // for a part of itself: the card went, and the mat was reported as an unknown card.
        for table in [TableKind::Light, TableKind::Wood, TableKind::GreenFelt] {
            assert_eq!(on_a_mat(table, "QH", true), (vec!["QH".to_string()], 0), "{table:?}");
            assert_eq!(on_a_mat(table, "4C", true), (vec!["4C".to_string()], 0), "{table:?}");
        }
        // A back on a mat is still one card face down (told by the mat's outline: neither is
        // read). On the pale mat no outline of the back is found at all: the edge search looks
        // at outer contours only, and the mat's edge holds the back's.
        for table in [TableKind::Wood, TableKind::GreenFelt] {
            assert_eq!(on_a_mat(table, "4C", false), (vec![], 1), "{table:?}");
        }
    }

    /// A face-up card read as `card`, with no outline.
    fn read_as(card: &str, confidence: f32) -> CardDetection {
        CardDetection {
            card: Some(card.parse().unwrap()),
            face: Face::Up,
            confidence,
            quad: None,
            index_boxes: Vec::new(),
        }
    }

    fn cards_of(found: &[CardDetection]) -> Vec<Option<String>> {
        found.iter().map(|d| d.card.map(|c| c.to_string())).collect()
    }

    #[test]
    fn the_loose_search_leaves_out_cards_read_at_both_corners_and_sure_backs() {
        let at = |x: f32| [[x, 0.0], [x + 50.0, 0.0], [x + 50.0, 80.0], [x, 80.0]];
        let outline = |card: Option<&str>, x: f32, boxes: usize| CardDetection {
            card: card.map(|c| c.parse().unwrap()),
            face: if card.is_some() { Face::Up } else { Face::Down },
            confidence: 0.9,
            quad: Some(at(x)),
            index_boxes: vec![[0, 0, 5, 5]; boxes],
        };
        let found = [
            outline(Some("5D"), 0.0, 2),   // both corners: left out
            outline(Some("QS"), 100.0, 1), // one corner: maybe two cards, searched
            outline(None, 200.0, 0),       // taken for a back, but not surely: searched
            outline(None, 300.0, 0),       // surely a back: left out
            read_as("7H", 0.9),            // a loose index: no outline
        ];
        assert_eq!(unsearched(&found, &[at(300.0)]), [at(0.0), at(300.0)]);
    }

    #[test]
    fn a_card_read_twice_keeps_only_its_surer_reading() {
        let det = read_as;
        let mut found = vec![det("5D", 0.7), det("QS", 0.9), det("5D", 0.8)];
        one_of_each(&mut found, |_, _| Ok(None)).unwrap();
        let cards = cards_of(&found);
        assert_eq!(cards, [None, Some("QS".into()), Some("5D".into())]);
    }

    #[test]
    fn a_card_read_twice_is_read_again_without_the_cards_placed() {
        let det = read_as;
        // Two queens both read as the queen of clubs: the surer stays, the other is read again
        // with every card placed so far ruled out.
        let mut found = vec![det("QC", 0.7), det("QC", 0.9), det("5D", 0.95)];
        let mut asked: Vec<Vec<String>> = Vec::new();
        one_of_each(&mut found, |_, placed| {
            asked.push(placed.iter().map(|c| c.to_string()).collect());
            Ok(Some(("QS".parse().unwrap(), 0.6)))
        })
        .unwrap();
        let cards = cards_of(&found);
        assert_eq!(cards, [Some("QS".into()), Some("QC".into()), Some("5D".into())]);
        assert_eq!(asked, [["5D", "QC"]]);
        assert_eq!(found[0].confidence, 0.6);
    }

    #[test]
    fn corners_must_agree() {
        let a = IndexReading { card: "QS".parse().unwrap(), confidence: 0.9 };
        let b = IndexReading { card: "QH".parse().unwrap(), confidence: 0.85 };
        assert_eq!(combine(&[a, b], 0.4).0, None);
        assert_eq!(combine(&[a, a], 0.4).0, Some(a.card));
        let weak = IndexReading { confidence: 0.3, ..a };
        assert_eq!(combine(&[weak], 0.4).0, None);
    }
}
