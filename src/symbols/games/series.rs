//! A match: any sequence of mini-games. Whoever wins the most mini-games wins the match; equal
//! counts share the win (and so do players sharing first place in a mini-game).

use super::{GameKind, Referee, Seat};

/// How one mini-game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub kind: GameKind,
    /// Places from first to last; a place holds several seats when they tied.
    pub places: Vec<Vec<Seat>>,
    /// Cards per seat at the end (held or collected, as the game counts them).
    pub cards: Vec<usize>,
    pub wrong_calls: Vec<u32>,
}

impl GameResult {
    /// Reads the result off a referee whose game is over.
    pub fn from_referee(referee: &Referee<'_>) -> GameResult {
        let seats = referee.players().len();
        GameResult {
            kind: referee.game().kind(),
            places: referee.ranking(),
            cards: (0..seats).map(|s| referee.game().cards_of(s)).collect(),
            wrong_calls: (0..seats).map(|s| referee.wrong_calls(s)).collect(),
        }
    }

    pub fn winners(&self) -> &[Seat] {
        self.places.first().map_or(&[], Vec::as_slice)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Match {
    pub players: Vec<String>,
    pub results: Vec<GameResult>,
}

impl Match {
    pub fn new(players: Vec<String>) -> Match {
        Match { players, results: Vec::new() }
    }

    pub fn add(&mut self, result: GameResult) {
        self.results.push(result);
    }

    /// Mini-games won by each seat.
    pub fn wins(&self) -> Vec<usize> {
        let mut wins = vec![0; self.players.len()];
        for result in &self.results {
            for &seat in result.winners() {
                wins[seat] += 1;
            }
        }
        wins
    }

    /// The seats with the most mini-game wins (empty before any game was played).
    pub fn winners(&self) -> Vec<Seat> {
        let wins = self.wins();
        let best = wins.iter().copied().max().unwrap_or(0);
        if best == 0 {
            return Vec::new();
        }
        (0..wins.len()).filter(|&s| wins[s] == best).collect()
    }

    fn names(&self, seats: &[Seat]) -> String {
        let names: Vec<&str> = seats.iter().map(|&s| self.players[s].as_str()).collect();
        if names.is_empty() { "-".to_string() } else { names.join(" & ") }
    }

    /// The match table: one row per mini-game with its winner and each player's cards, then the
    /// wins per player and the overall winner.
    pub fn table(&self) -> String {
        let width = self.players.iter().map(String::len).max().unwrap_or(0).max(5);
        let mut out = format!("{:<4}{:<20}{:<22}", "#", "game", "winner");
        for p in &self.players {
            out.push_str(&format!("{p:>width$} "));
        }
        out.push('\n');
        for (i, r) in self.results.iter().enumerate() {
            out.push_str(&format!("{:<4}{:<20}{:<22}", i + 1, r.kind.to_string(), self.names(r.winners())));
            for cards in &r.cards {
                out.push_str(&format!("{cards:>width$} "));
            }
            out.push('\n');
        }
        out.push_str(&format!("{:<46}", "mini-games won"));
        for wins in self.wins() {
            out.push_str(&format!("{wins:>width$} "));
        }
        out.push('\n');
        let winners = self.winners();
        let verdict = match winners.len() {
            0 => "no winner yet".to_string(),
            1 => self.names(&winners),
            _ => format!("shared by {}", self.names(&winners)),
        };
        out.push_str(&format!("match winner: {verdict}\n"));
        out
    }
}
