//! Where the piles of a mini-game lie in the image, and which card is on top of each in a frame.
//!
//! The piles are learnt from the first view of the deal: the cards found are grouped into piles,
//! the pile nearest the middle of them is the centre or draw pile (in the games that have one),
//! and the seats follow clockwise round the middle from the one nearest the bottom of the image
//! (the camera's side of the table). A frame's round cards are then each given to the nearest
//! pile; a pile's top card is the one seen most whole (the most symbols read on it), because the
//! cards beneath an untidy pile show only a rim.

use serde::{Deserialize, Serialize};

use crate::symbols::deck::CardId;
use crate::symbols::games::{GameKind, Place, Seat};

pub use crate::symbols::seen::RoundCard;

/// What lies on top of a pile in one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Top {
    /// Nothing round lies there.
    Empty,
    /// Something lies there, but no card was read (a hand, a card seen edge-on or blurred).
    Unread,
    Card(CardId),
}

/// One pile: which place of the game it is and where it lies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pile {
    pub place: PlaceName,
    pub center: (f32, f32),
}

/// A [`Place`] as written in events and the journal: `draw`, `centre` or a seat number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceName {
    Draw,
    Centre,
    Seat(Seat),
}

impl From<Place> for PlaceName {
    fn from(place: Place) -> PlaceName {
        match place {
            Place::Draw => PlaceName::Draw,
            Place::Centre => PlaceName::Centre,
            Place::Player(seat) => PlaceName::Seat(seat),
        }
    }
}

impl From<PlaceName> for Place {
    fn from(place: PlaceName) -> Place {
        match place {
            PlaceName::Draw => Place::Draw,
            PlaceName::Centre => Place::Centre,
            PlaceName::Seat(seat) => Place::Player(seat),
        }
    }
}

/// The piles of one game, in the image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PileMap {
    pub piles: Vec<Pile>,
    /// A card's radius in pixels, as seen at the deal.
    pub radius: f32,
}

/// The middle pile a game deals, if any.
pub fn middle_place(kind: GameKind) -> Option<PlaceName> {
    match kind {
        GameKind::Tower | GameKind::PoisonedGift => Some(PlaceName::Draw),
        GameKind::Well => Some(PlaceName::Centre),
        GameKind::HotPotato => None,
    }
}

/// Cards closer than this many radii belong to one pile.
const SAME_PILE: f32 = 1.0;
/// A card farther than this many radii from every pile lies loose (in a hand, or moving).
const LOOSE: f32 = 1.2;
/// A card seen this much larger than the cards of the deal is held up, nearer the camera: on no
/// pile, even above one (a card held 15 cm up under a camera 70 cm high looks 1.27 times as large).
/// The top of an untidy pile reads up to about 1.17 times as large, its rim merged with the rims
/// of the cards beneath.
const HELD_UP: f32 = 1.2;
/// A card seen this much smaller than the cards of the deal is only part of one, the rest under a
/// hand or a card held over it: something lies there, but a reading of a part is not trusted for
/// the top (a held card's part is read as some other card).
const PART: f32 = 0.75;

impl PileMap {
    /// Learns the piles from a view of the deal: `seats` piles, and a middle one when the game has
    /// one. Every read card counts; cards lying together make one pile.
    pub fn learn(kind: GameKind, seats: usize, cards: &[RoundCard]) -> Result<PileMap, String> {
        let read: Vec<&RoundCard> = cards.iter().filter(|c| c.card.is_some()).collect();
        let Some(radius) = median(read.iter().map(|c| c.radius).collect()) else {
            return Err("no card of the deck is in view".into());
        };
        let groups = group(&read, radius);
        let middle = middle_place(kind);
        let wanted = seats + usize::from(middle.is_some());
        if groups.len() != wanted {
            return Err(format!("{kind} with {seats} players lays out {wanted} piles; {} are in view", groups.len()));
        }
        let all = mean(&groups);
        let mut rest = groups.clone();
        let mut piles = Vec::new();
        if let Some(place) = middle {
            let k = nearest(&rest, all);
            piles.push(Pile { place, center: rest.remove(k) });
        }
        // Seat 1 is the pile nearest the bottom edge; the others follow clockwise on the image
        // (y grows downwards, so the angle grows clockwise).
        let angle = |p: (f32, f32)| (p.1 - all.1).atan2(p.0 - all.0);
        let first = rest.iter().map(|p| p.1).enumerate().max_by(|a, b| a.1.total_cmp(&b.1)).map_or(0, |(k, _)| k);
        let start = angle(rest[first]);
        let turn = |p: (f32, f32)| (angle(p) - start).rem_euclid(std::f32::consts::TAU);
        rest.sort_by(|a, b| turn(*a).total_cmp(&turn(*b)));
        piles.extend(rest.into_iter().enumerate().map(|(seat, center)| Pile { place: PlaceName::Seat(seat), center }));
        Ok(PileMap { piles, radius })
    }

    /// The same places, each within a third of a radius of where it was.
    pub fn same_as(&self, other: &PileMap) -> bool {
        self.piles.len() == other.piles.len()
            && self
                .piles
                .iter()
                .zip(&other.piles)
                .all(|(a, b)| a.place == b.place && dist(a.center, b.center) < self.radius / 3.0)
    }

    /// The pile a card at `p` lies on, if any.
    pub fn pile_at(&self, p: (f32, f32)) -> Option<PlaceName> {
        let (k, d) = self
            .piles
            .iter()
            .enumerate()
            .map(|(k, pile)| (k, dist(pile.center, p)))
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        (d < LOOSE * self.radius).then_some(self.piles[k].place)
    }

    /// One frame's tops: the card seen most whole on each pile, and how many cards lie loose.
    pub fn tops(&self, cards: &[RoundCard]) -> FrameTops {
        let mut tops: Vec<(PlaceName, Top, Option<&RoundCard>)> =
            self.piles.iter().map(|p| (p.place, Top::Empty, None)).collect();
        let mut loose = 0;
        for card in cards {
            if card.radius > HELD_UP * self.radius {
                // Held up: on no pile, and not in the way of a view (the piles lie still).
                continue;
            }
            let Some(place) = self.pile_at(card.center) else {
                loose += 1;
                continue;
            };
            let read = card.card.filter(|_| card.radius >= PART * self.radius);
            let slot = tops.iter_mut().find(|t| t.0 == place).expect("every pile has a slot");
            let better = match (slot.2, read) {
                (_, None) => slot.1 == Top::Empty,
                (None, Some(_)) => true,
                (Some(old), Some(_)) => card.symbols.len() > old.symbols.len(),
            };
            if better {
                slot.1 = read.map_or(Top::Unread, Top::Card);
                slot.2 = read.is_some().then_some(card);
            }
        }
        let evidence = tops.iter().filter_map(|(place, _, card)| Some((*place, (*card)?.clone()))).collect();
        FrameTops { tops: tops.into_iter().map(|(place, top, _)| (place, top)).collect(), loose, evidence }
    }
}

/// What one frame shows on the piles.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTops {
    pub tops: Vec<(PlaceName, Top)>,
    /// Cards away from every pile: in a hand, or being moved.
    pub loose: usize,
    /// The card read on top of each pile, with where its symbols lie.
    pub evidence: Vec<(PlaceName, RoundCard)>,
}

impl FrameTops {
    pub fn top(&self, place: PlaceName) -> Top {
        self.tops.iter().find(|t| t.0 == place).map_or(Top::Empty, |t| t.1)
    }
}

fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

fn median(mut values: Vec<f32>) -> Option<f32> {
    values.sort_by(f32::total_cmp);
    values.get(values.len() / 2).copied()
}

fn mean(points: &[(f32, f32)]) -> (f32, f32) {
    let n = points.len().max(1) as f32;
    (points.iter().map(|p| p.0).sum::<f32>() / n, points.iter().map(|p| p.1).sum::<f32>() / n)
}

fn nearest(points: &[(f32, f32)], to: (f32, f32)) -> usize {
    (0..points.len()).min_by(|&a, &b| dist(points[a], to).total_cmp(&dist(points[b], to))).unwrap_or(0)
}

/// Centres of the groups of cards lying within [`SAME_PILE`] radii of each other.
fn group(cards: &[&RoundCard], radius: f32) -> Vec<(f32, f32)> {
    let mut groups: Vec<Vec<(f32, f32)>> = Vec::new();
    for card in cards {
        match groups.iter_mut().find(|g| g.iter().any(|&p| dist(p, card.center) < SAME_PILE * radius)) {
            Some(g) => g.push(card.center),
            None => groups.push(vec![card.center]),
        }
    }
    groups.iter().map(|g| mean(g)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(id: CardId, x: f32, y: f32, symbols: usize) -> RoundCard {
        RoundCard { card: Some(id), center: (x, y), radius: 50.0, symbols: vec![(0, (x, y)); symbols] }
    }

    #[test]
    fn seats_follow_clockwise_from_the_bottom_and_the_middle_pile_is_found() {
        // Draw pile in the middle; seats below, left, above and right of it.
        let cards =
            [card(1, 400.0, 300.0, 8), card(2, 400.0, 500.0, 8), card(3, 150.0, 300.0, 8), card(4, 400.0, 90.0, 8)];
        let map = PileMap::learn(GameKind::Tower, 3, &cards).unwrap();
        assert_eq!(map.piles[0].place, PlaceName::Draw);
        assert_eq!(map.pile_at((400.0, 300.0)), Some(PlaceName::Draw));
        assert_eq!(map.pile_at((405.0, 495.0)), Some(PlaceName::Seat(0)));
        assert_eq!(map.pile_at((150.0, 310.0)), Some(PlaceName::Seat(1)));
        assert_eq!(map.pile_at((400.0, 90.0)), Some(PlaceName::Seat(2)));
        assert_eq!(map.pile_at((700.0, 300.0)), None);
        assert!(PileMap::learn(GameKind::Tower, 4, &cards).unwrap_err().contains("5 piles"));
    }

    #[test]
    fn the_bottom_seat_is_first_when_it_lies_a_little_either_side_of_straight_below() {
        for dx in [-3.0, 3.0] {
            let cards = [card(1, 400.0, 300.0, 8), card(2, 400.0 + dx, 500.0, 8), card(3, 400.0 - dx, 100.0, 8)];
            let map = PileMap::learn(GameKind::Tower, 2, &cards).unwrap();
            assert_eq!(map.pile_at((400.0, 500.0)), Some(PlaceName::Seat(0)), "dx {dx}");
            assert_eq!(map.pile_at((400.0, 100.0)), Some(PlaceName::Seat(1)), "dx {dx}");
        }
    }

    #[test]
    fn the_top_is_the_card_seen_most_whole_and_a_card_away_is_loose() {
        let map =
            PileMap::learn(GameKind::HotPotato, 2, &[card(1, 100.0, 100.0, 8), card(2, 400.0, 100.0, 8)]).unwrap();
        let frame = [card(7, 110.0, 105.0, 3), card(9, 100.0, 100.0, 8), card(5, 250.0, 300.0, 8)];
        let tops = map.tops(&frame);
        let seat0 = map.pile_at((100.0, 100.0)).unwrap();
        assert_eq!(tops.top(seat0), Top::Card(9));
        assert_eq!(tops.loose, 1);
        let other = if seat0 == PlaceName::Seat(0) { PlaceName::Seat(1) } else { PlaceName::Seat(0) };
        assert_eq!(tops.top(other), Top::Empty);
        let unread = RoundCard { card: None, ..card(0, 400.0, 100.0, 0) };
        assert_eq!(map.tops(&[unread]).top(other), Top::Unread);
    }

    #[test]
    fn a_card_held_up_is_on_no_pile_and_a_part_of_a_card_is_not_read_as_the_top() {
        let map =
            PileMap::learn(GameKind::HotPotato, 2, &[card(1, 100.0, 100.0, 8), card(2, 400.0, 100.0, 8)]).unwrap();
        let seat = map.pile_at((100.0, 100.0)).unwrap();
        let sized = |id, r| RoundCard { radius: r, ..card(id, 110.0, 100.0, 8) };
        assert_eq!(map.tops(&[sized(7, 58.0)]).top(seat), Top::Card(7), "an untidy pile's top reads larger");
        assert_eq!(map.tops(&[sized(7, 66.0)]).top(seat), Top::Empty, "held up");
        assert_eq!(map.tops(&[sized(7, 30.0)]).top(seat), Top::Unread, "a part of a card");
        assert_eq!(map.tops(&[sized(7, 30.0), sized(9, 50.0)]).top(seat), Top::Card(9));
    }
}
