//! The Well: one card face up in the centre, the rest dealt evenly into face-up piles. A claim
//! compares the claimer's top card with the centre card; the claimer puts their top card on the
//! centre. The first player to empty their pile wins; with "play for places" the game goes on
//! until at most one player still has cards, and players are ranked in the order they finished.

use super::{Comparison, Deal, DealError, MiniGame, Place, Seat, bottom_first, no_part, shape};
use crate::symbols::deck::CardId;

#[derive(Clone, Debug)]
pub struct Well {
    piles: Vec<Vec<CardId>>,
    centre: Vec<CardId>,
    finished: Vec<Seat>,
    play_for_places: bool,
}

/// Finishing first outranks any number of cards left, so finished players score above the rest.
const FINISHED: i64 = 1_000_000;

impl Well {
    pub fn new(seats: usize, deal: Deal) -> Result<Well, DealError> {
        let centre = deal.centre.ok_or_else(|| shape("The Well needs a centre card"))?;
        if deal.piles.len() != seats || deal.piles.iter().any(Vec::is_empty) {
            return Err(shape(format!("The Well deals a pile to each of the {seats} players")));
        }
        let (least, most) = (deal.piles.iter().map(Vec::len).min(), deal.piles.iter().map(Vec::len).max());
        if most.unwrap_or(0) - least.unwrap_or(0) > 1 {
            return Err(shape("The Well deals evenly: piles may differ by one card at most"));
        }
        no_part("The Well", !deal.draw.is_empty(), "draw pile")?;
        no_part("The Well", !deal.rounds.is_empty(), "rounds")?;
        let piles = deal.piles.iter().map(|p| bottom_first(p)).collect();
        Ok(Well { piles, centre: vec![centre], finished: Vec::new(), play_for_places: false })
    }

    /// House rule: keep playing for places after the winner has emptied their pile.
    pub fn with_play_for_places(mut self, on: bool) -> Well {
        self.play_for_places = on;
        self
    }

    /// Seats in the order they emptied their piles.
    pub fn finished(&self) -> &[Seat] {
        &self.finished
    }
}

impl MiniGame for Well {
    fn kind(&self) -> super::GameKind {
        super::GameKind::Well
    }

    fn seats(&self) -> usize {
        self.piles.len()
    }

    fn comparisons(&self, claimer: Seat) -> Vec<Comparison> {
        let (Some(&mine), Some(&centre)) = (self.piles.get(claimer).and_then(|p| p.last()), self.centre.last()) else {
            return Vec::new();
        };
        if self.is_over() {
            return Vec::new();
        }
        vec![Comparison { left: (Place::Player(claimer), mine), right: (Place::Centre, centre), target: None }]
    }

    fn apply(&mut self, claimer: Seat, _comparison: &Comparison, names: &[String]) -> String {
        let Some(card) = self.piles[claimer].pop() else {
            return String::new();
        };
        self.centre.push(card);
        let left = self.piles[claimer].len();
        let mut said = format!("{} puts card {card} on the centre ({left} left in their pile)", names[claimer]);
        if left == 0 {
            self.finished.push(claimer);
            said.push_str(&format!("; {} has emptied their pile (place {})", names[claimer], self.finished.len()));
        }
        said
    }

    fn is_over(&self) -> bool {
        if self.play_for_places {
            self.piles.iter().filter(|p| !p.is_empty()).count() <= 1
        } else {
            !self.finished.is_empty()
        }
    }

    fn top(&self, place: Place) -> Option<CardId> {
        match place {
            Place::Player(seat) => self.piles.get(seat)?.last().copied(),
            Place::Centre => self.centre.last().copied(),
            Place::Draw => None,
        }
    }

    fn pile(&self, place: Place) -> Vec<CardId> {
        match place {
            Place::Player(seat) => self.piles.get(seat).cloned().unwrap_or_default(),
            Place::Centre => self.centre.clone(),
            Place::Draw => Vec::new(),
        }
    }

    fn cards_in_play(&self) -> usize {
        self.piles.iter().map(Vec::len).sum::<usize>() + self.centre.len()
    }

    fn score(&self, seat: Seat) -> i64 {
        match self.finished.iter().position(|&s| s == seat) {
            Some(place) => FINISHED - place as i64,
            None => -(self.piles[seat].len() as i64),
        }
    }

    fn cards_of(&self, seat: Seat) -> usize {
        self.piles[seat].len()
    }
}
