//! Claims and the referee that judges them.
//!
//! A claim is (player, called text, time). The referee resolves the called name, finds the pair
//! of visible cards the claim compares, checks the symbol they really share and, when the claim is
//! right, moves the cards. Claims are judged in time order. After a correct claim, any claim made
//! within the reaction window (default 500 ms) belongs to the exchange already won: "too late".

use super::{Comparison, MiniGame, Place, Seat};
use crate::symbols::deck::{Deck, SymbolId};
use crate::symbols::names::{NameMatch, NameMatcher};

/// A player's call: who, what they said, when (milliseconds from any fixed start), and,
/// optionally, which other player's card they mean (Hot Potato, The Poisoned Gift).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub player: String,
    pub called: String,
    pub time_ms: u64,
    pub target: Option<String>,
}

impl Claim {
    pub fn new(player: &str, called: &str, time_ms: u64) -> Claim {
        Claim { player: player.to_string(), called: called.to_string(), time_ms, target: None }
    }

    pub fn at(mut self, target: &str) -> Claim {
        self.target = Some(target.to_string());
        self
    }
}

/// House rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefereeOptions {
    /// Cards counted against a player for each wrong call (default 0: no penalty). The cards
    /// don't move, so what the camera sees still follows the rules; only the score changes.
    pub wrong_call_penalty: u32,
    /// Claims made this soon after a correct claim are on the exchange it already won.
    pub too_late_window_ms: u64,
    /// The Well: keep playing for places after the first player has emptied their pile.
    pub well_play_for_places: bool,
}

impl Default for RefereeOptions {
    fn default() -> Self {
        RefereeOptions { wrong_call_penalty: 0, too_late_window_ms: 500, well_play_for_places: false }
    }
}

/// The referee's verdict on a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Right: the cards moved.
    Correct,
    /// The called symbol is not the shared one (counts as a wrong call).
    Wrong,
    /// Right or not, someone already won this exchange.
    TooLate,
    /// The name fits several symbols, or the symbol fits several players' cards: the referee asks.
    Ambiguous,
    /// No symbol of the deck has that name.
    UnknownName,
    /// The caller is not at the table, cannot claim now, or the game is over.
    NotAllowed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub claim: Claim,
    pub outcome: Outcome,
    /// The symbol the called text was understood as.
    pub called_symbol: Option<SymbolId>,
    /// The pairs of cards the claim compared, with the symbol each pair really shares.
    pub compared: Vec<(Comparison, SymbolId)>,
    pub message: String,
}

/// Judges claims for one mini-game.
pub struct Referee<'d> {
    deck: &'d Deck,
    matcher: NameMatcher,
    game: Box<dyn MiniGame>,
    players: Vec<String>,
    options: RefereeOptions,
    last_win_ms: Option<u64>,
    wrong_calls: Vec<u32>,
}

impl<'d> Referee<'d> {
    pub fn new(deck: &'d Deck, players: Vec<String>, game: Box<dyn MiniGame>, options: RefereeOptions) -> Referee<'d> {
        let wrong_calls = vec![0; players.len()];
        Referee { deck, matcher: NameMatcher::new(deck), game, players, options, last_win_ms: None, wrong_calls }
    }

    pub fn game(&self) -> &dyn MiniGame {
        self.game.as_ref()
    }

    pub fn players(&self) -> &[String] {
        &self.players
    }

    pub fn wrong_calls(&self, seat: Seat) -> u32 {
        self.wrong_calls[seat]
    }

    /// Judges claims made at about the same time: in time order, so the first correct one wins.
    pub fn claims(&mut self, mut batch: Vec<Claim>) -> Vec<Verdict> {
        batch.sort_by_key(|c| c.time_ms);
        batch.into_iter().map(|c| self.claim(c)).collect()
    }

    /// Judges one claim, moving the cards when it is correct.
    pub fn claim(&mut self, claim: Claim) -> Verdict {
        let Some(seat) = self.seat(&claim.player) else {
            let message = format!("{} is not playing", claim.player);
            return self.verdict(claim, Outcome::NotAllowed, None, Vec::new(), message);
        };
        // A claim just after the last exchange was won belongs to that exchange: too late, as
        // for any other, before the game is over for everyone after it.
        if let Some(won) =
            self.last_win_ms.filter(|&t| claim.time_ms < t.saturating_add(self.options.too_late_window_ms))
        {
            let message = format!("too late: this exchange was already won at {}", seconds(won));
            return self.verdict(claim, Outcome::TooLate, None, Vec::new(), message);
        }
        if self.game.is_over() {
            return self.verdict(claim, Outcome::NotAllowed, None, Vec::new(), "the game is over".into());
        }
        let symbol = match self.matcher.resolve(&claim.called) {
            NameMatch::Exact(s) | NameMatch::Typo(s) => s,
            NameMatch::Ambiguous(options) => {
                let message = self.matcher.ambiguity_question(&options);
                return self.verdict(claim, Outcome::Ambiguous, None, Vec::new(), message);
            }
            NameMatch::Unknown => {
                let message = format!("no symbol is called \"{}\"", claim.called);
                return self.verdict(claim, Outcome::UnknownName, None, Vec::new(), message);
            }
        };
        let mut open = self.game.comparisons(seat);
        if let Some(target) = &claim.target {
            let Some(target_seat) = self.seat(target) else {
                let message = format!("{target} is not playing");
                return self.verdict(claim, Outcome::NotAllowed, Some(symbol), Vec::new(), message);
            };
            open.retain(|c| c.target == Some(target_seat));
        }
        if open.is_empty() {
            let message = format!("{} has no card to compare now", claim.player);
            return self.verdict(claim, Outcome::NotAllowed, Some(symbol), Vec::new(), message);
        }
        self.judge(claim, seat, symbol, open)
    }

    fn judge(&mut self, claim: Claim, seat: Seat, symbol: SymbolId, open: Vec<Comparison>) -> Verdict {
        let compared: Vec<(Comparison, SymbolId)> =
            open.into_iter().filter_map(|c| Some((c.clone(), self.deck.shared_symbol(c.left.1, c.right.1)?))).collect();
        let hits: Vec<&Comparison> = compared.iter().filter(|(_, s)| *s == symbol).map(|(c, _)| c).collect();
        let name = self.deck.symbol_name(symbol).to_string();
        match hits[..] {
            [hit] => {
                let hit = hit.clone();
                let pair = self.describe_pair(&hit);
                let moved = self.game.apply(seat, &hit, &self.players);
                self.last_win_ms = Some(claim.time_ms);
                let message = format!("correct: {pair} share {name}; {moved}");
                self.verdict(claim, Outcome::Correct, Some(symbol), compared, message)
            }
            [] => {
                self.wrong_calls[seat] += 1;
                let real: Vec<String> = compared
                    .iter()
                    .map(|(c, s)| format!("{} share {}", self.describe_pair(c), self.deck.symbol_name(*s)))
                    .collect();
                let message = format!("wrong: {}, not {name}", real.join("; "));
                self.verdict(claim, Outcome::Wrong, Some(symbol), compared, message)
            }
            _ => {
                let whose: Vec<String> =
                    hits.iter().filter_map(|c| c.target).map(|s| self.players[s].clone()).collect();
                let message = format!("ambiguous: {name} is on {}'s cards; say whose", whose.join(" and "));
                self.verdict(claim, Outcome::Ambiguous, Some(symbol), compared, message)
            }
        }
    }

    fn verdict(
        &self,
        claim: Claim,
        outcome: Outcome,
        called_symbol: Option<SymbolId>,
        compared: Vec<(Comparison, SymbolId)>,
        message: String,
    ) -> Verdict {
        Verdict { claim, outcome, called_symbol, compared, message }
    }

    fn seat(&self, name: &str) -> Option<Seat> {
        self.players.iter().position(|p| p.eq_ignore_ascii_case(name))
    }

    /// "Alice's card 3 and the draw pile's card 9".
    pub fn describe_pair(&self, c: &Comparison) -> String {
        format!("{} and {}", self.describe_place(c.left), self.describe_place(c.right))
    }

    fn describe_place(&self, (place, card): (Place, u32)) -> String {
        match place {
            Place::Player(seat) => format!("{}'s card {card}", self.players[seat]),
            Place::Draw => format!("the draw pile's card {card}"),
            Place::Centre => format!("the centre card {card}"),
        }
    }

    /// Places from first to last; players with equal scores share a place. Wrong calls count
    /// `wrong_call_penalty` cards each against the caller.
    pub fn ranking(&self) -> Vec<Vec<Seat>> {
        let scores: Vec<i64> = (0..self.players.len()).map(|s| self.final_score(s)).collect();
        let mut seats: Vec<Seat> = (0..self.players.len()).collect();
        seats.sort_by_key(|&s| std::cmp::Reverse(scores[s]));
        let mut places: Vec<Vec<Seat>> = Vec::new();
        for seat in seats {
            match places.last_mut() {
                Some(place) if scores[place[0]] == scores[seat] => place.push(seat),
                _ => places.push(vec![seat]),
            }
        }
        places
    }

    fn final_score(&self, seat: Seat) -> i64 {
        self.game.score(seat) - i64::from(self.wrong_calls[seat]) * i64::from(self.options.wrong_call_penalty)
    }
}

/// Milliseconds as "12.345 s".
pub fn seconds(ms: u64) -> String {
    format!("{}.{:03} s", ms / 1000, ms % 1000)
}
