//! The Poisoned Gift: each player has one card; the rest is the face-up draw pile. A claim
//! compares the draw pile's top card with another player's top card; the claimer puts the drawn
//! card on that player's pile. Ends when the draw pile is empty; fewest cards wins.

use super::{Comparison, Deal, DealError, MiniGame, Place, Seat, bottom_first, no_part, one_card_each, shape};
use crate::symbols::deck::CardId;

#[derive(Clone, Debug)]
pub struct PoisonedGift {
    piles: Vec<Vec<CardId>>,
    draw: Vec<CardId>,
}

impl PoisonedGift {
    pub fn new(seats: usize, deal: Deal) -> Result<PoisonedGift, DealError> {
        one_card_each("The Poisoned Gift", seats, &deal.piles)?;
        if deal.draw.is_empty() {
            return Err(shape("The Poisoned Gift needs a draw pile"));
        }
        no_part("The Poisoned Gift", deal.centre.is_some(), "centre card")?;
        no_part("The Poisoned Gift", !deal.rounds.is_empty(), "rounds")?;
        let piles = deal.piles.iter().map(|p| bottom_first(p)).collect();
        Ok(PoisonedGift { piles, draw: bottom_first(&deal.draw) })
    }
}

impl MiniGame for PoisonedGift {
    fn kind(&self) -> super::GameKind {
        super::GameKind::PoisonedGift
    }

    fn seats(&self) -> usize {
        self.piles.len()
    }

    fn comparisons(&self, claimer: Seat) -> Vec<Comparison> {
        let Some(&gift) = self.draw.last() else {
            return Vec::new();
        };
        (0..self.piles.len())
            .filter(|&other| other != claimer)
            .filter_map(|other| {
                let theirs = *self.piles[other].last()?;
                Some(Comparison {
                    left: (Place::Draw, gift),
                    right: (Place::Player(other), theirs),
                    target: Some(other),
                })
            })
            .collect()
    }

    fn apply(&mut self, claimer: Seat, comparison: &Comparison, names: &[String]) -> String {
        let (Some(to), Some(card)) = (comparison.target, self.draw.pop()) else {
            return String::new();
        };
        self.piles[to].push(card);
        let left = self.draw.len();
        format!("{} gives card {card} from the draw pile to {} ({left} left there)", names[claimer], names[to])
    }

    fn is_over(&self) -> bool {
        self.draw.is_empty()
    }

    fn top(&self, place: Place) -> Option<CardId> {
        match place {
            Place::Player(seat) => self.piles.get(seat)?.last().copied(),
            Place::Draw => self.draw.last().copied(),
            Place::Centre => None,
        }
    }

    fn pile(&self, place: Place) -> Vec<CardId> {
        match place {
            Place::Player(seat) => self.piles.get(seat).cloned().unwrap_or_default(),
            Place::Draw => self.draw.clone(),
            Place::Centre => Vec::new(),
        }
    }

    fn cards_in_play(&self) -> usize {
        self.piles.iter().map(Vec::len).sum::<usize>() + self.draw.len()
    }

    fn score(&self, seat: Seat) -> i64 {
        -(self.piles[seat].len() as i64)
    }

    fn cards_of(&self, seat: Seat) -> usize {
        self.piles[seat].len()
    }
}
