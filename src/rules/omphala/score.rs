//! Scoring: Front Row card counts, and the standings once any tie-break is done.

use serde::{Deserialize, Serialize};

use super::entity::{Entity, Player, Seat};

/// One entity at a battle position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleEntry {
    pub player: Seat,
    pub entity: Entity,
    pub power: u8,
}

/// One position of the battle: who showed what, who was destroyed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleStep {
    /// 0-based position in placement order.
    pub position: usize,
    pub entries: Vec<BattleEntry>,
    /// Players whose entity at this position was beaten by a higher one.
    pub destroyed: Vec<Seat>,
}

/// One player's score: Front Row cards (a modified entity counts 2) and entities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub player: Seat,
    pub cards: usize,
    pub entities: usize,
}

/// What decided the winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decider {
    /// One player had the most Front Row cards.
    FrontRowCount,
    Battle,
    TotalPower,
    /// Still tied after every tie-break.
    SharedWin,
}

impl Decider {
    pub const ALL: [Decider; 4] = [Decider::FrontRowCount, Decider::Battle, Decider::TotalPower, Decider::SharedWin];

    pub fn label(self) -> &'static str {
        match self {
            Decider::FrontRowCount => "front-row count",
            Decider::Battle => "battle",
            Decider::TotalPower => "total power",
            Decider::SharedWin => "shared win",
        }
    }
}

/// The details of a tie-break, for the UI and the replay report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TieBreakReport {
    /// The players who were tied on Front Row cards.
    pub players: Vec<Seat>,
    /// Each battle position as it was fought (empty when there was no battle).
    pub battle: Vec<BattleStep>,
    /// Surviving entities per battling player (empty when there was no battle).
    pub survivors: Vec<(Seat, usize)>,
    /// Total Front Row power per player compared (empty when the battle decided).
    pub totals: Vec<(Seat, u32)>,
}

/// The result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standings {
    /// Best first; equal scores keep seat order.
    pub scores: Vec<Score>,
    pub winners: Vec<Seat>,
    pub decided_by: Decider,
    pub tie_break: Option<TieBreakReport>,
}

/// Every player's score, best first.
pub fn scores(players: &[Player]) -> Vec<Score> {
    let mut scores: Vec<Score> = players
        .iter()
        .enumerate()
        .map(|(player, p)| Score { player, cards: p.front_cards(), entities: p.front.len() })
        .collect();
    scores.sort_by_key(|s| std::cmp::Reverse(s.cards));
    scores
}

/// The players sharing the best score, in seat order.
pub fn leaders(scores: &[Score]) -> Vec<Seat> {
    let best = scores.iter().map(|s| s.cards).max().unwrap_or(0);
    let mut leaders: Vec<Seat> = scores.iter().filter(|s| s.cards == best).map(|s| s.player).collect();
    leaders.sort_unstable();
    leaders
}

/// Those of `candidates` with the highest `value`.
pub(crate) fn best_by<T: Ord + Copy>(candidates: &[(Seat, T)]) -> Vec<Seat> {
    let Some(best) = candidates.iter().map(|&(_, v)| v).max() else {
        return Vec::new();
    };
    candidates.iter().filter(|&&(_, v)| v == best).map(|&(s, _)| s).collect()
}
