//! Hot Potato, played in rounds. Each round every player gets one card. A claim compares the
//! claimer's top card with another player's top card; the claimer gives all their cards, placed
//! on top, to that player. A round ends when one player holds all its cards: that player
//! collects them, and the next round is dealt. Fewest cards collected wins.

use std::collections::VecDeque;

use super::{Comparison, Deal, DealError, MiniGame, Place, Seat, bottom_first, no_part, shape};
use crate::symbols::deck::CardId;

#[derive(Clone, Debug)]
pub struct HotPotato {
    /// What each player holds in the current round, bottom first.
    stacks: Vec<Vec<CardId>>,
    /// Cards each player has collected from finished rounds.
    collected: Vec<Vec<CardId>>,
    /// Rounds not yet dealt.
    rounds: VecDeque<Vec<CardId>>,
    round: usize,
}

impl HotPotato {
    pub fn new(seats: usize, deal: Deal) -> Result<HotPotato, DealError> {
        if deal.rounds.is_empty() {
            return Err(shape("Hot Potato needs at least one round"));
        }
        if let Some(bad) = deal.rounds.iter().position(|r| r.len() < 2 || r.len() > seats) {
            return Err(shape(format!(
                "Hot Potato round {} deals {} cards; a round deals one card to each of 2 to {seats} players",
                bad + 1,
                deal.rounds[bad].len()
            )));
        }
        no_part("Hot Potato", !deal.piles.is_empty(), "piles (deal rounds instead)")?;
        no_part("Hot Potato", !deal.draw.is_empty(), "draw pile")?;
        no_part("Hot Potato", deal.centre.is_some(), "centre card")?;
        let mut game = HotPotato {
            stacks: vec![Vec::new(); seats],
            collected: vec![Vec::new(); seats],
            rounds: deal.rounds.into_iter().collect(),
            round: 0,
        };
        game.deal_next_round();
        Ok(game)
    }

    /// The round being played, from 1; 0 when no round was dealt.
    pub fn round(&self) -> usize {
        self.round
    }

    fn deal_next_round(&mut self) -> bool {
        let Some(cards) = self.rounds.pop_front() else {
            return false;
        };
        self.round += 1;
        for (seat, card) in cards.into_iter().enumerate() {
            self.stacks[seat] = bottom_first(&[card]);
        }
        true
    }

    /// The one player who holds cards, when only one does: the round is over.
    fn round_winner(&self) -> Option<Seat> {
        let mut holders = (0..self.stacks.len()).filter(|&s| !self.stacks[s].is_empty());
        let first = holders.next()?;
        holders.next().is_none().then_some(first)
    }
}

impl MiniGame for HotPotato {
    fn kind(&self) -> super::GameKind {
        super::GameKind::HotPotato
    }

    fn seats(&self) -> usize {
        self.stacks.len()
    }

    fn comparisons(&self, claimer: Seat) -> Vec<Comparison> {
        let Some(&mine) = self.stacks.get(claimer).and_then(|s| s.last()) else {
            return Vec::new();
        };
        (0..self.stacks.len())
            .filter(|&other| other != claimer)
            .filter_map(|other| {
                let theirs = *self.stacks[other].last()?;
                Some(Comparison {
                    left: (Place::Player(claimer), mine),
                    right: (Place::Player(other), theirs),
                    target: Some(other),
                })
            })
            .collect()
    }

    fn apply(&mut self, claimer: Seat, comparison: &Comparison, names: &[String]) -> String {
        let Some(to) = comparison.target else {
            return String::new();
        };
        let given = std::mem::take(&mut self.stacks[claimer]);
        let count = given.len();
        self.stacks[to].extend(given);
        let mut said = format!("{} gives {} to {}", names[claimer], super::cards(count), names[to]);
        if let Some(winner) = self.round_winner() {
            let cards = std::mem::take(&mut self.stacks[winner]);
            said.push_str(&format!(
                "; {} holds all {} cards of round {} and collects them",
                names[winner],
                cards.len(),
                self.round
            ));
            self.collected[winner].extend(cards);
            if self.deal_next_round() {
                said.push_str(&format!("; round {} is dealt", self.round));
            }
        }
        said
    }

    fn is_over(&self) -> bool {
        self.rounds.is_empty() && self.stacks.iter().all(Vec::is_empty)
    }

    fn top(&self, place: Place) -> Option<CardId> {
        match place {
            Place::Player(seat) => self.stacks.get(seat)?.last().copied(),
            Place::Draw | Place::Centre => None,
        }
    }

    fn pile(&self, place: Place) -> Vec<CardId> {
        match place {
            Place::Player(seat) => self.stacks.get(seat).cloned().unwrap_or_default(),
            Place::Draw | Place::Centre => Vec::new(),
        }
    }

    fn cards_in_play(&self) -> usize {
        let held: usize = self.stacks.iter().chain(&self.collected).map(Vec::len).sum();
        held + self.rounds.iter().map(Vec::len).sum::<usize>()
    }

    fn score(&self, seat: Seat) -> i64 {
        -(self.collected[seat].len() as i64)
    }

    fn cards_of(&self, seat: Seat) -> usize {
        self.collected[seat].len()
    }
}
