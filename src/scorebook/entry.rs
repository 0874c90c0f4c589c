//! One finished game as the scorebook keeps it, read off its record: an Omphala game record, or
//! one mini-game of a match record (a match of four mini-games is four games in the book).

use std::path::Path;

use serde::Serialize;

use crate::rules::omphala::notation;
use crate::rules::omphala::replay::{progress_line, replay, standings_lines};
use crate::symbols::games::GameResult;
use crate::symbols::notation as match_notation;

/// The kind of an Omphala game in the book; a mini-game is kept under its own code (`tower`,
/// `well`, `hot-potato`, `poisoned-gift`).
pub const OMPHALA: &str = "omphala";

/// One player's result in one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerResult {
    /// 0-based, in the record's seat order.
    pub seat: usize,
    pub player: String,
    /// 1 for the winners; players who tied share a place.
    pub place: usize,
    /// Omphala: Front Row cards at the end. A mini-game: the players placed below this one.
    pub points: i64,
    pub won: bool,
}

/// A finished game, ready to be written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub kind: String,
    /// What decided the winner: `front-row count`, `battle`, `total power`, `shared win`, or
    /// `place` for a mini-game.
    pub decided_by: String,
    /// The tie-break as the referee said it (the battle step by step), empty when none.
    pub tie_break: Vec<String>,
    pub results: Vec<PlayerResult>,
    /// The record the game was read from (for a mini-game, its whole match).
    pub record: String,
    /// Which mini-game of its match (0 for an Omphala game).
    pub game_in_record: usize,
    /// The referee's journal the game came from, when it came from a live table.
    pub journal: Option<String>,
}

impl Entry {
    /// The players in seat order.
    pub fn players(&self) -> Vec<&str> {
        let mut seats: Vec<&PlayerResult> = self.results.iter().collect();
        seats.sort_by_key(|r| r.seat);
        seats.into_iter().map(|r| r.player.as_str()).collect()
    }

    /// What makes this game itself: the same game written twice (a write retried after a
    /// crash, a record imported again) is one game in the book. A game kept without a record
    /// (a mini-game refereed live) is itself by its journal and places.
    pub fn uid(&self) -> String {
        let places = format!("{:?}", self.results);
        let key: [&[u8]; 2] = match &self.journal {
            Some(journal) if self.record.is_empty() => [journal.as_bytes(), places.as_bytes()],
            _ => [self.record.as_bytes(), b""],
        };
        format!("{:016x}-{}", fnv1a(&[self.kind.as_bytes(), key[0], key[1]]), self.game_in_record)
    }
}

/// FNV-1a, 64 bits, over the parts with a separator between them: stable across builds and
/// machines, unlike the standard library's hasher, so two tables writing one record agree.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in part.iter().chain(&[0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// Why a record cannot go into the book.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("{0}")]
    Malformed(String),
    #[error("line {line}: illegal: {reason}")]
    Illegal { line: usize, reason: String },
    #[error("the game is not over ({0}): only finished games are kept")]
    NotOver(String),
}

/// The finished Omphala game of a game record.
pub fn omphala(text: &str) -> Result<Entry, EntryError> {
    let record = notation::parse(text).map_err(|e| EntryError::Malformed(e.to_string()))?;
    let replayed = replay(&record);
    if let Some((line, illegal)) = &replayed.illegal {
        return Err(EntryError::Illegal { line: *line, reason: illegal.to_string() });
    }
    let state = &replayed.state;
    let standings = state.standings().ok_or_else(|| EntryError::NotOver(progress_line(state)))?;
    let mut results = Vec::new();
    let mut place = 1;
    for (rank, score) in standings.scores.iter().enumerate() {
        let won = standings.winners.contains(&score.player);
        // Equal Front Row counts share a place unless a tie-break split them.
        let previous = rank.checked_sub(1).map(|k| &standings.scores[k]);
        if !won && previous.is_some_and(|p| p.cards != score.cards || standings.winners.contains(&p.player)) {
            place = rank + 1;
        }
        results.push(PlayerResult {
            seat: score.player,
            player: state.name(score.player).to_string(),
            place: if won { 1 } else { place },
            points: score.cards as i64,
            won,
        });
    }
    let tie_break = match &standings.tie_break {
        Some(_) => standings_lines(state, standings)
            .into_iter()
            .skip_while(|l| !l.starts_with("tie-break"))
            .filter(|l| !l.starts_with("winner"))
            .collect(),
        None => Vec::new(),
    };
    Ok(Entry {
        kind: OMPHALA.to_string(),
        decided_by: standings.decided_by.label().to_string(),
        tie_break,
        results,
        record: text.to_string(),
        game_in_record: 0,
        journal: None,
    })
}

/// Each finished mini-game of a match record. `base` is the folder a relative deck path is
/// read from.
pub fn mini_games(text: &str, base: &Path) -> Result<Vec<Entry>, EntryError> {
    let replayed = match_notation::replay(text, base);
    let played = replayed.outcome.map_err(|e| match e {
        match_notation::ReplayError::Malformed { .. } => EntryError::Malformed(e.to_string()),
        match_notation::ReplayError::Illegal { line, message } => EntryError::Illegal { line, reason: message },
    })?;
    Ok(played
        .results
        .iter()
        .enumerate()
        .map(|(index, result)| Entry { game_in_record: index, ..mini_game(result, &played.players, text.to_string()) })
        .collect())
}

/// One finished mini-game: `names` in seat order, kept with `record` (its match record, or
/// none for a game refereed live: its journal is kept instead).
pub fn mini_game(result: &GameResult, names: &[String], record: String) -> Entry {
    let seats = names.len();
    let mut results = Vec::new();
    let mut above = 0;
    for (place, tied) in result.places.iter().enumerate() {
        for &seat in tied {
            let below = seats - above - tied.len();
            let player = names.get(seat).cloned().unwrap_or_else(|| format!("seat {}", seat + 1));
            results.push(PlayerResult { seat, player, place: place + 1, points: below as i64, won: place == 0 });
        }
        above += tied.len();
    }
    Entry {
        kind: result.kind.code().to_string(),
        decided_by: "place".to_string(),
        tie_break: Vec::new(),
        results,
        record,
        game_in_record: 0,
        journal: None,
    }
}

/// The finished games of a record of either kind: a match record names its `players`, a game
/// record its `seat`s.
pub fn from_record(text: &str, base: &Path) -> Result<Vec<Entry>, EntryError> {
    let is_match = text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).any(|l| l.starts_with("players "));
    if is_match { mini_games(text, base) } else { omphala(text).map(|e| vec![e]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::games::GameKind;

    const TIE_BATTLE: &str = include_str!("../../tests/data/omphala/tie-battle.txt");
    const MATCH: &str = include_str!("../../tests/data/minigame/match.txt");

    #[test]
    fn a_game_won_by_battle_keeps_the_battle_and_splits_the_tie() {
        let entry = omphala(TIE_BATTLE).unwrap();
        assert_eq!(entry.decided_by, "battle");
        let alice = &entry.results[0];
        let bob = &entry.results[1];
        assert_eq!((alice.player.as_str(), alice.place, alice.points, alice.won), ("Alice", 1, 2, true));
        assert_eq!((bob.player.as_str(), bob.place, bob.points, bob.won), ("Bob", 2, 2, false));
        assert!(entry.tie_break[0].starts_with("tie-break between Alice, Bob"), "{:?}", entry.tie_break);
        assert!(entry.tie_break.iter().any(|l| l.contains("survivors: Alice 2, Bob 1")), "{:?}", entry.tie_break);
    }

    #[test]
    fn a_match_is_one_game_per_mini_game_with_shared_places() {
        let games = mini_games(MATCH, Path::new("tests/data/minigame")).unwrap();
        let kinds: Vec<&str> = games.iter().map(|g| g.kind.as_str()).collect();
        assert_eq!(kinds, ["tower", "well", "hot-potato", "poisoned-gift"]);
        // Hot Potato: Alice and Carol share the win, Bob is third with nobody below him.
        let potato = &games[2];
        let won: Vec<&str> = potato.results.iter().filter(|r| r.won).map(|r| r.player.as_str()).collect();
        assert_eq!(won, ["Alice", "Carol"]);
        let bob = potato.results.iter().find(|r| r.player == "Bob").unwrap();
        assert_eq!((bob.place, bob.points), (2, 0));
        assert!(potato.results.iter().filter(|r| r.won).all(|r| r.points == 1));
        let uids: std::collections::HashSet<String> = games.iter().map(Entry::uid).collect();
        assert_eq!(uids.len(), 4);
    }

    #[test]
    fn the_same_record_is_the_same_game_and_another_is_not() {
        let a = omphala(TIE_BATTLE).unwrap();
        let b = Entry { record: format!("{TIE_BATTLE}\n"), ..a.clone() };
        assert_eq!(a.uid(), omphala(TIE_BATTLE).unwrap().uid());
        assert_ne!(a.uid(), b.uid());
        assert_ne!(a.uid(), Entry { game_in_record: 1, ..a.clone() }.uid());
    }

    #[test]
    fn a_live_mini_game_without_a_record_is_itself_by_its_journal() {
        let games = mini_games(MATCH, Path::new("tests/data/minigame")).unwrap();
        let names: Vec<String> = games[0].players().iter().map(|p| p.to_string()).collect();
        let result = GameResult {
            kind: GameKind::Tower,
            places: vec![vec![0], vec![2], vec![1]],
            cards: vec![3, 1, 2],
            wrong_calls: vec![0; 3],
        };
        let live = |journal: &str| Entry { journal: Some(journal.into()), ..mini_game(&result, &names, String::new()) };
        assert_eq!(live("a.jsonl").uid(), live("a.jsonl").uid());
        assert_ne!(live("a.jsonl").uid(), live("b.jsonl").uid());
        assert_eq!(live("a.jsonl").results, games[0].results);
    }

    #[test]
    fn an_unfinished_game_is_refused_with_where_it_stands() {
        let text = include_str!("../../tests/data/omphala/red-reset.txt");
        match omphala(text) {
            Err(EntryError::NotOver(why)) => assert!(why.contains("turn 2 of Bob"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_malformed_record_says_where() {
        let err = omphala("seat Ann front ? ? back 9C 5D 2H 3H 4H\nbogus line\n").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        let err = from_record("deck cipher\nplayers Ann Bob\ngame nonsense\n", Path::new(".")).unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
    }
}
