//! What each mini-game compares and moves, on the tops the camera sees (the same rules the
//! engines in `symbols::games` keep on dealt cards; a test checks they agree).

use super::piles::{PlaceName, Top};
use crate::symbols::deck::CardId;
use crate::symbols::games::{GameKind, Seat};

/// Two cards a claim compares: where each lies and which card it is; `target` is the other
/// player the claim involves (Hot Potato, The Poisoned Gift).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub left: (PlaceName, CardId),
    pub right: (PlaceName, CardId),
    pub target: Option<Seat>,
}

/// A pair the claimer could compare, or the place whose card cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    Pair(Pair),
    Unread(PlaceName),
}

/// The places a claimer compares: (left, right, target).
fn places(kind: GameKind, seats: usize, claimer: Seat) -> Vec<(PlaceName, PlaceName, Option<Seat>)> {
    let others = (0..seats).filter(move |&s| s != claimer);
    match kind {
        GameKind::Tower => vec![(PlaceName::Seat(claimer), PlaceName::Draw, None)],
        GameKind::Well => vec![(PlaceName::Seat(claimer), PlaceName::Centre, None)],
        GameKind::HotPotato => others.map(|o| (PlaceName::Seat(claimer), PlaceName::Seat(o), Some(o))).collect(),
        GameKind::PoisonedGift => others.map(|o| (PlaceName::Draw, PlaceName::Seat(o), Some(o))).collect(),
    }
}

/// The comparisons open to `claimer` on the tops `top` gives. An empty place offers nothing; an
/// unread one is reported, so that the claim is answered "cannot see", never guessed.
pub fn open(kind: GameKind, seats: usize, claimer: Seat, top: impl Fn(PlaceName) -> Top) -> Vec<Open> {
    let mut open = Vec::new();
    for (left, right, target) in places(kind, seats, claimer) {
        match (top(left), top(right)) {
            (Top::Card(a), Top::Card(b)) => open.push(Open::Pair(Pair { left: (left, a), right: (right, b), target })),
            (Top::Unread, _) => open.push(Open::Unread(left)),
            (_, Top::Unread) => open.push(Open::Unread(right)),
            _ => {}
        }
    }
    open
}

/// The card a right claim on `pair` moves, from where to where. Hot Potato moves the claimer's
/// whole stack, whose top card goes on top of the target's.
pub fn movement(kind: GameKind, claimer: Seat, pair: &Pair) -> (CardId, PlaceName, PlaceName) {
    match (kind, pair.target) {
        (GameKind::Tower, _) => (pair.right.1, PlaceName::Draw, PlaceName::Seat(claimer)),
        (GameKind::Well, _) => (pair.left.1, PlaceName::Seat(claimer), PlaceName::Centre),
        (GameKind::HotPotato, Some(to)) => (pair.left.1, PlaceName::Seat(claimer), PlaceName::Seat(to)),
        (GameKind::PoisonedGift, Some(to)) => (pair.left.1, PlaceName::Draw, PlaceName::Seat(to)),
        (_, None) => (pair.left.1, pair.left.0, pair.right.0),
    }
}

/// Whether fewer cards win (Hot Potato, The Poisoned Gift) or more (The Tower); The Well ranks by
/// who emptied their pile first.
pub fn fewest_win(kind: GameKind) -> bool {
    matches!(kind, GameKind::HotPotato | GameKind::PoisonedGift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::deck::projective_plane;
    use crate::symbols::games::{Deal, Place, RefereeOptions, start};
    use proptest::prelude::*;

    fn name(place: Place) -> PlaceName {
        place.into()
    }

    proptest! {
        /// On a table where every place has a card, the camera's rules open the same pairs as
        /// the engines, and a right claim moves the card the engine moves.
        #[test]
        fn the_camera_rules_agree_with_the_engines(seats in 2usize..7, kind in 0usize..4, seed in 0u64..1000) {
            let kind = GameKind::ALL[kind];
            let deck = projective_plane(7).unwrap();
            let mut ids: Vec<CardId> = deck.cards().iter().map(|c| c.id).collect();
            let k = seed as usize % ids.len();
            ids.rotate_left(k);
            let mut deal = Deal::default();
            match kind {
                GameKind::Tower | GameKind::PoisonedGift => {
                    deal.piles = (0..seats).map(|s| vec![ids[s]]).collect();
                    deal.draw = ids[seats..seats + 3].to_vec();
                }
                GameKind::Well => {
                    deal.piles = (0..seats).map(|s| vec![ids[2 * s], ids[2 * s + 1]]).collect();
                    deal.centre = Some(ids[2 * seats]);
                }
                GameKind::HotPotato => deal.rounds = vec![ids[..seats].to_vec(), ids[seats..2 * seats].to_vec()],
            }
            let mut game = start(kind, &deck, seats, deal, &RefereeOptions::default()).unwrap();
            let top = |g: &dyn crate::symbols::games::MiniGame, p: PlaceName| g.top(p.into()).map_or(Top::Empty, Top::Card);
            for claimer in 0..seats {
                let engine: Vec<Pair> = game
                    .comparisons(claimer)
                    .into_iter()
                    .map(|c| Pair { left: (name(c.left.0), c.left.1), right: (name(c.right.0), c.right.1), target: c.target })
                    .collect();
                let ours: Vec<Pair> = open(kind, seats, claimer, |p| top(game.as_ref(), p))
                    .into_iter()
                    .filter_map(|o| match o { Open::Pair(p) => Some(p), Open::Unread(_) => None })
                    .collect();
                prop_assert_eq!(&ours, &engine);
            }
            let pair = open(kind, seats, 0, |p| top(game.as_ref(), p))[0];
            let Open::Pair(pair) = pair else { unreachable!() };
            let (card, _, to) = movement(kind, 0, &pair);
            let comparison = game.comparisons(0)[0].clone();
            let names: Vec<String> = (0..seats).map(|s| format!("P{s}")).collect();
            game.apply(0, &comparison, &names);
            if !(kind == GameKind::HotPotato && seats == 2) {
                // (Two players of Hot Potato: the round ends at once and the next is dealt.)
                prop_assert_eq!(game.top(to.into()), Some(card));
            }
        }
    }
}
