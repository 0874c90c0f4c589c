//! The points the rule sheet leaves open, each a named setting with the default of
//! `shared/spec/omphala.md`.

use serde::{Deserialize, Serialize};

use crate::cards::Card;

/// How much an Ace is worth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AcePower {
    /// Ace = 1, the spec's default.
    #[default]
    One,
    /// Ace = 14, above the King.
    Fourteen,
}

/// How a tie on Front Row card count is broken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Battle when the tied players hold the same number of Front Row entities, then total
    /// power, then a shared win (the default).
    #[default]
    BattleWhenEqualEntities,
    /// Skip the battle: total Front Row power, then a shared win.
    TotalPower,
}

/// Every "(option)" of the spec. `RuleOptions::default()` is the spec's default game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct RuleOptions {
    /// Power of an Ace: 1 (default) or 14.
    pub ace_power: AcePower,
    /// When an attack fails, is the attacker (with its Heart) discarded? Default: no, it stays
    /// in its owner's Back Row and only the action is spent.
    pub failed_attacker_discarded: bool,
    /// Tie-break among players tied on Front Row card count.
    pub tie_break: TieBreak,
}

impl RuleOptions {
    /// The power of one card under these options: A = 1 or 14, 2–10 face value, J 11, Q 12, K 13.
    pub fn power(&self, card: Card) -> u8 {
        match (card.rank.value(), self.ace_power) {
            (1, AcePower::Fourteen) => 14,
            (value, _) => value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ace_power_follows_the_option() {
        let ace: Card = "AS".parse().unwrap();
        let king: Card = "KS".parse().unwrap();
        let mut options = RuleOptions::default();
        assert_eq!(options.power(ace), 1);
        assert_eq!(options.power(king), 13);
        options.ace_power = AcePower::Fourteen;
        assert_eq!(options.power(ace), 14);
    }

    #[test]
    fn options_deserialize_with_defaults_for_missing_fields() {
        let options: RuleOptions = serde_json::from_str(r#"{"tie_break":"total-power"}"#).unwrap();
        assert_eq!(options.tie_break, TieBreak::TotalPower);
        assert_eq!(options.ace_power, AcePower::One);
        assert!(!options.failed_attacker_discarded);
    }
}
