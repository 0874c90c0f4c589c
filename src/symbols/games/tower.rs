//! The Tower: each player has one card; the rest is the face-up draw pile. A claim compares the
//! claimer's top card with the draw pile's top card; the claimer takes that card onto their
//! pile. Ends when the draw pile is empty; most cards collected wins.

use super::{Comparison, Deal, DealError, MiniGame, Place, Seat, bottom_first, no_part, one_card_each, shape};
use crate::symbols::deck::CardId;

#[derive(Clone, Debug)]
pub struct Tower {
    piles: Vec<Vec<CardId>>,
    draw: Vec<CardId>,
}

impl Tower {
    pub fn new(seats: usize, deal: Deal) -> Result<Tower, DealError> {
        one_card_each("The Tower", seats, &deal.piles)?;
        if deal.draw.is_empty() {
            return Err(shape("The Tower needs a draw pile"));
        }
        no_part("The Tower", deal.centre.is_some(), "centre card")?;
        no_part("The Tower", !deal.rounds.is_empty(), "rounds")?;
        Ok(Tower { piles: deal.piles.iter().map(|p| bottom_first(p)).collect(), draw: bottom_first(&deal.draw) })
    }
}

impl MiniGame for Tower {
    fn kind(&self) -> super::GameKind {
        super::GameKind::Tower
    }

    fn seats(&self) -> usize {
        self.piles.len()
    }

    fn comparisons(&self, claimer: Seat) -> Vec<Comparison> {
        match (self.piles.get(claimer).and_then(|p| p.last()), self.draw.last()) {
            (Some(&mine), Some(&drawn)) => {
                vec![Comparison { left: (Place::Player(claimer), mine), right: (Place::Draw, drawn), target: None }]
            }
            _ => Vec::new(),
        }
    }

    fn apply(&mut self, claimer: Seat, _comparison: &Comparison, names: &[String]) -> String {
        let Some(card) = self.draw.pop() else {
            return String::new();
        };
        self.piles[claimer].push(card);
        let left = self.draw.len();
        format!("{} takes card {card} from the draw pile ({left} left there)", names[claimer])
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
        self.piles[seat].len() as i64
    }

    fn cards_of(&self, seat: Seat) -> usize {
        self.piles[seat].len()
    }
}
