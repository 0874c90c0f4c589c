//! The tie-break as a small state machine the UI can walk one reveal at a time: the battle
//! (position by position) and the total-power comparison both need every compared entity's
//! identity, so each step either asks for a reveal or resolves.

use serde::{Deserialize, Serialize};

use super::entity::{Entity, Player, Seat};
use super::options::{RuleOptions, TieBreak};
pub use super::score::{BattleEntry, BattleStep};
use super::score::{Decider, Score, Standings, TieBreakReport, best_by};
use crate::cards::Card;

/// Which comparison the tie-break is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreakMode {
    /// Position by position; rows all hold the same number of entities.
    Battle,
    TotalPower,
}

/// What one call to `TieBreakState::step` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TieBreakStep {
    /// This Front Row entity must be turned up first.
    NeedReveal {
        player: Seat,
        position: usize,
    },
    Resolved(BattleStep),
    Done(Standings),
}

/// A tie-break in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TieBreakState {
    pub mode: TieBreakMode,
    /// The tied players, in seat order; `rows[i]` is `players[i]`'s Front Row.
    pub players: Vec<Seat>,
    pub rows: Vec<Vec<Entity>>,
    /// The next battle position to fight.
    pub position: usize,
    pub steps: Vec<BattleStep>,
    /// Every player's score, best first.
    pub scores: Vec<Score>,
}

impl TieBreakState {
    /// Starts the tie-break for `tied` (at least two players with the best score).
    pub fn new(options: &RuleOptions, scores: Vec<Score>, tied: &[Seat], players: &[Player]) -> Self {
        let rows: Vec<Vec<Entity>> = tied.iter().map(|&s| players[s].front.clone()).collect();
        let same_size = rows.windows(2).all(|w| w[0].len() == w[1].len());
        let mode = match options.tie_break {
            TieBreak::BattleWhenEqualEntities if same_size => TieBreakMode::Battle,
            _ => TieBreakMode::TotalPower,
        };
        TieBreakState { mode, players: tied.to_vec(), rows, position: 0, steps: Vec::new(), scores }
    }

    /// The Front Row entity whose identity is needed next, if any.
    pub fn awaited(&self) -> Option<(Seat, usize)> {
        match self.mode {
            TieBreakMode::Battle => self.unknown_at(self.position),
            TieBreakMode::TotalPower => (0..self.row_len()).find_map(|pos| self.unknown_at(pos)),
        }
    }

    /// Records the identity of an awaited entity. Returns false (and changes nothing) when
    /// that entity is not the one awaited.
    pub fn reveal(&mut self, player: Seat, position: usize, card: Card) -> bool {
        if self.awaited() != Some((player, position)) {
            return false;
        }
        let Some(i) = self.players.iter().position(|&p| p == player) else {
            return false;
        };
        self.rows[i][position].card = Some(card);
        true
    }

    /// Moves the tie-break on by one step.
    pub fn step(&mut self, options: &RuleOptions) -> TieBreakStep {
        if let Some((player, position)) = self.awaited() {
            return TieBreakStep::NeedReveal { player, position };
        }
        if self.mode == TieBreakMode::Battle && self.position < self.row_len() {
            let step = self.fight(options);
            self.steps.push(step.clone());
            self.position += 1;
            return TieBreakStep::Resolved(step);
        }
        TieBreakStep::Done(self.standings(options))
    }

    fn row_len(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(0)
    }

    fn unknown_at(&self, position: usize) -> Option<(Seat, usize)> {
        let i = self.rows.iter().position(|row| row.get(position).is_some_and(|e| e.card.is_none()))?;
        Some((self.players[i], position))
    }

    /// Fights the current position: the highest power destroys every lower one.
    fn fight(&self, options: &RuleOptions) -> BattleStep {
        let entries: Vec<BattleEntry> = self
            .players
            .iter()
            .zip(&self.rows)
            .filter_map(|(&player, row)| {
                let entity = *row.get(self.position)?;
                Some(BattleEntry { player, entity, power: entity.power(options).unwrap_or(0) })
            })
            .collect();
        let best = entries.iter().map(|e| e.power).max().unwrap_or(0);
        let destroyed = entries.iter().filter(|e| e.power < best).map(|e| e.player).collect();
        BattleStep { position: self.position, entries, destroyed }
    }

    fn survivors(&self) -> Vec<(Seat, usize)> {
        self.players
            .iter()
            .map(|&p| {
                let lost = self.steps.iter().filter(|s| s.destroyed.contains(&p)).count();
                (p, self.rows[self.index(p)].len() - lost)
            })
            .collect()
    }

    fn totals(&self, among: &[Seat], options: &RuleOptions) -> Vec<(Seat, u32)> {
        among
            .iter()
            .map(|&p| {
                let row = &self.rows[self.index(p)];
                (p, row.iter().map(|e| u32::from(e.power(options).unwrap_or(0))).sum())
            })
            .collect()
    }

    fn index(&self, player: Seat) -> usize {
        self.players.iter().position(|&p| p == player).unwrap_or(0)
    }

    /// The result once every needed entity is known and every position fought.
    fn standings(&self, options: &RuleOptions) -> Standings {
        let mut report = TieBreakReport { players: self.players.clone(), ..Default::default() };
        let mut contenders = self.players.clone();
        if self.mode == TieBreakMode::Battle {
            report.battle = self.steps.clone();
            report.survivors = self.survivors();
            contenders = best_by(&report.survivors);
            if contenders.len() == 1 {
                return self.finish(contenders, Decider::Battle, report);
            }
        }
        report.totals = self.totals(&contenders, options);
        let winners = best_by(&report.totals);
        let decided_by = if winners.len() == 1 { Decider::TotalPower } else { Decider::SharedWin };
        self.finish(winners, decided_by, report)
    }

    fn finish(&self, winners: Vec<Seat>, decided_by: Decider, report: TieBreakReport) -> Standings {
        Standings { scores: self.scores.clone(), winners, decided_by, tie_break: Some(report) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::omphala::score::{leaders, scores};

    fn player(name: &str, front: &[Option<&str>]) -> Player {
        let front = front.iter().map(|c| Entity { card: c.map(|c| c.parse().unwrap()), modifier: None }).collect();
        Player { name: name.into(), front, back: Vec::new() }
    }

    #[test]
    fn the_battle_walks_one_reveal_at_a_time() {
        let options = RuleOptions::default();
        let players = [player("A", &[None, Some("9H")]), player("B", &[Some("3C"), Some("9C")])];
        let scores = scores(&players);
        let tied = leaders(&scores);
        let mut tie = TieBreakState::new(&options, scores, &tied, &players);
        assert_eq!(tie.mode, TieBreakMode::Battle);
        assert_eq!(tie.step(&options), TieBreakStep::NeedReveal { player: 0, position: 0 });
        assert!(!tie.reveal(1, 0, "KH".parse().unwrap()), "only the awaited entity may be revealed");
        assert!(tie.reveal(0, 0, "KH".parse().unwrap()));
        let TieBreakStep::Resolved(first) = tie.step(&options) else { panic!("position 1 resolves") };
        assert_eq!(first.destroyed, [1]);
        let TieBreakStep::Resolved(second) = tie.step(&options) else { panic!("position 2 resolves") };
        assert!(second.destroyed.is_empty(), "equal powers both survive");
        let TieBreakStep::Done(standings) = tie.step(&options) else { panic!("done") };
        assert_eq!((standings.winners, standings.decided_by), (vec![0], Decider::Battle));
        assert_eq!(standings.tie_break.unwrap().survivors, [(0, 2), (1, 1)]);
    }

    #[test]
    fn unequal_entity_counts_go_straight_to_total_power() {
        let options = RuleOptions::default();
        let mut a = player("A", &[Some("2C")]);
        a.front[0].modifier = Some("KD".parse().unwrap());
        let b = player("B", &[Some("3C"), Some("4C")]);
        let players = [a, b];
        let mut tie = TieBreakState::new(&options, scores(&players), &[0, 1], &players);
        assert_eq!(tie.mode, TieBreakMode::TotalPower);
        let TieBreakStep::Done(standings) = tie.step(&options) else { panic!("all known") };
        assert_eq!((standings.winners, standings.decided_by), (vec![0], Decider::TotalPower));
        assert_eq!(standings.tie_break.unwrap().totals, [(0, 15), (1, 7)]);
    }
}
