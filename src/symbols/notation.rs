//! The line-based record of a match (documented in `docs/minigame-notation.md`) and its replay:
//! the referee judges every claim again, checks the observed cards against the rules, and keeps
//! the scores.

use std::path::Path;

use crate::text_input::without_controls;

use super::deck::{CardId, Deck};
use super::games::cards as card_count;
use super::games::claim::seconds;
use super::games::{Claim, Deal, GameKind, GameResult, Match, Place, Referee, RefereeOptions, Verdict, start};

/// The largest match record read, in bytes.
pub const MAX_RECORD_BYTES: u64 = 8 << 20;
/// The longest line read, in characters.
pub const MAX_LINE_CHARS: usize = 1000;
/// The most players a match names: every player needs cards, and a table seats only so many.
pub const MAX_PLAYERS: usize = 20;
/// The longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 40;

/// Why a replay stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The record cannot be read: unknown keyword, bad number, missing deck...
    #[error("line {line}: {message}")]
    Malformed { line: usize, message: String },
    /// The record is readable but breaks the rules: an impossible deal, a card seen where the
    /// rules put another, a game that is not over.
    #[error("line {line}: illegal: {message}")]
    Illegal { line: usize, message: String },
}

/// What a replay printed, and how it ended.
#[derive(Debug)]
pub struct Replay {
    /// One line per claim verdict, per game result, then the match table.
    pub report: Vec<String>,
    pub outcome: Result<Match, ReplayError>,
    /// Every verdict, in the order judged.
    pub verdicts: Vec<Verdict>,
    /// The table at the start of every game and after every verdict (for the renderer).
    pub steps: Vec<Step>,
}

/// The table at one step of a replay: every place's cards, bottom first.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The game, from 0.
    pub game: usize,
    pub kind: GameKind,
    /// The verdict after which the table is so (`None`: the deal).
    pub verdict: Option<usize>,
    pub piles: Vec<(Place, Vec<CardId>)>,
}

/// One parsed line of a record.
#[derive(Clone, Debug, PartialEq)]
enum Entry {
    Deck(String),
    Players(Vec<String>),
    Penalty(u32),
    Window(u64),
    Places(bool),
    Game(GameKind),
    Pile(String, Vec<CardId>),
    Draw(Vec<CardId>),
    Centre(CardId),
    Round(Vec<CardId>),
    Claim(Claim),
    Seen(String, Option<CardId>),
    End,
}

/// What the record's `deck` line says, if it parses and has one.
pub fn deck_line(text: &str) -> Option<String> {
    parse(text).ok()?.into_iter().find_map(|(_, e)| if let Entry::Deck(name) = e { Some(name) } else { None })
}

/// Replays a record. `base` is the folder a relative deck path is read from.
pub fn replay(text: &str, base: &Path) -> Replay {
    let mut replayer = Replayer::default();
    let outcome = parse(text).and_then(|entries| replayer.run(&entries, base, text.lines().count()));
    Replay { report: replayer.report, outcome, verdicts: replayer.verdicts, steps: replayer.steps }
}

fn parse(text: &str) -> Result<Vec<(usize, Entry)>, ReplayError> {
    let mut entries = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.chars().nth(MAX_LINE_CHARS).is_some() {
            return Err(malformed(line, format!("the line is longer than {MAX_LINE_CHARS} characters, the limit")));
        }
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let entry = parse_line(content).map_err(|message| malformed(line, message))?;
        entries.push((line, entry));
    }
    Ok(entries)
}

fn parse_line(content: &str) -> Result<Entry, String> {
    let (keyword, rest) = content.split_once(char::is_whitespace).unwrap_or((content, ""));
    let rest = rest.trim();
    let words: Vec<&str> = rest.split_whitespace().collect();
    Ok(match keyword {
        "deck" if !rest.is_empty() => Entry::Deck(rest.to_string()),
        "players" if words.len() >= 2 => Entry::Players(player_names(&words)?),
        "players" => return Err("a match needs at least 2 players".into()),
        "option" => parse_option(&words)?,
        "game" => Entry::Game(
            GameKind::from_code(rest)
                .ok_or_else(|| format!("unknown game \"{}\" (tower, well, hot-potato, poisoned-gift)", quoted(rest)))?,
        ),
        "pile" if words.len() >= 2 => Entry::Pile(words[0].to_string(), cards(&words[1..])?),
        "draw" if !words.is_empty() => Entry::Draw(cards(&words)?),
        "centre" | "center" if words.len() == 1 => Entry::Centre(card(words[0])?),
        "round" if !words.is_empty() => Entry::Round(cards(&words)?),
        "claim" => Entry::Claim(parse_claim(rest)?),
        "seen" if words.len() == 2 => {
            Entry::Seen(words[0].to_string(), if words[1] == "-" { None } else { Some(card(words[1])?) })
        }
        "end" if words.is_empty() => Entry::End,
        "deck" | "pile" | "draw" | "centre" | "center" | "round" | "seen" | "end" => {
            return Err(format!("wrong arguments for \"{keyword}\" (see docs/minigame-notation.md)"));
        }
        _ => return Err(format!("unknown keyword \"{}\"", quoted(keyword))),
    })
}

/// The players line's names: at most [`MAX_PLAYERS`], each at most [`MAX_NAME_CHARS`] long,
/// no two the same (names are matched ignoring ASCII case, so "alice" is "Alice").
fn player_names(words: &[&str]) -> Result<Vec<String>, String> {
    if words.len() > MAX_PLAYERS {
        return Err(format!("{} players: a match has at most {MAX_PLAYERS}", words.len()));
    }
    for (i, name) in words.iter().enumerate() {
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(format!("a player name longer than {MAX_NAME_CHARS} characters"));
        }
        if let Some(earlier) = words[..i].iter().find(|w| w.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "two players are named \"{earlier}\" and \"{name}\": each player needs a distinct name"
            ));
        }
    }
    Ok(words.iter().map(|w| w.to_string()).collect())
}

fn parse_option(words: &[&str]) -> Result<Entry, String> {
    match words {
        ["penalty", n] => n.parse().map(Entry::Penalty).map_err(|_| format!("bad penalty \"{}\"", quoted(n))),
        ["window", ms] => {
            ms.parse().map(Entry::Window).map_err(|_| format!("bad window \"{}\" (milliseconds)", quoted(ms)))
        }
        ["places", "on"] => Ok(Entry::Places(true)),
        ["places", "off"] => Ok(Entry::Places(false)),
        _ => Err(format!("unknown option \"{}\" (penalty N, window MS, places on|off)", quoted(&words.join(" ")))),
    }
}

fn card(word: &str) -> Result<CardId, String> {
    word.parse().map_err(|_| format!("\"{}\" is not a card id", quoted(word)))
}

fn cards(words: &[&str]) -> Result<Vec<CardId>, String> {
    words.iter().map(|w| card(w)).collect()
}

/// `claim TIME PLAYER CALLED TEXT [> TARGET]`, TIME in seconds ("12.345").
fn parse_claim(rest: &str) -> Result<Claim, String> {
    let mut parts = rest.splitn(3, char::is_whitespace);
    let (Some(time), Some(player), Some(called)) = (parts.next(), parts.next(), parts.next()) else {
        return Err("a claim is: claim TIME PLAYER CALLED [> TARGET]".into());
    };
    let (called, target) = match called.rsplit_once('>') {
        Some((called, target)) => (called, Some(target.trim().to_string())),
        None => (called, None),
    };
    let called = called.trim().trim_matches('"').trim();
    if called.is_empty() || target.as_deref() == Some("") {
        return Err("a claim is: claim TIME PLAYER CALLED [> TARGET]".into());
    }
    Ok(Claim { player: player.to_string(), called: called.to_string(), time_ms: parse_time(time)?, target })
}

/// "12.345" seconds as milliseconds; at most three decimals.
fn parse_time(text: &str) -> Result<u64, String> {
    let bad = || format!("bad time \"{}\" (seconds, like 12.345)", quoted(text));
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || fraction.len() > 3 || !fraction.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let whole: u64 = whole.parse().map_err(|_| bad())?;
    let millis: u64 = if fraction.is_empty() { 0 } else { format!("{fraction:0<3}").parse().map_err(|_| bad())? };
    whole.checked_mul(1000).and_then(|ms| ms.checked_add(millis)).ok_or_else(bad)
}

#[derive(Default)]
struct Replayer {
    report: Vec<String>,
    verdicts: Vec<Verdict>,
    steps: Vec<Step>,
    games: usize,
}

/// The game being recorded: its deal until the first claim, then its referee.
struct Current<'d> {
    kind: GameKind,
    line: usize,
    deal: Deal,
    referee: Option<Referee<'d>>,
}

// Messages quote words of the record, which may hold control characters: escaped, so that an
// error stays on one line.
fn malformed(line: usize, message: impl Into<String>) -> ReplayError {
    ReplayError::Malformed { line, message: without_controls(&message.into()) }
}

/// The most of a word of the record an error quotes, in characters.
const QUOTED_CHARS: usize = 40;

/// A word of the record as an error quotes it: cut, control characters escaped.
fn quoted(word: &str) -> String {
    crate::text_input::shortened(word, QUOTED_CHARS)
}

fn illegal(line: usize, message: impl Into<String>) -> ReplayError {
    ReplayError::Illegal { line, message: without_controls(&message.into()) }
}

impl Replayer {
    fn run(&mut self, entries: &[(usize, Entry)], base: &Path, last_line: usize) -> Result<Match, ReplayError> {
        let (deck, players, mut options, first_game) = header(entries, base)?;
        let mut series = Match::new(players.clone());
        let mut current: Option<Current> = None;
        let mut batch: Vec<(usize, Claim)> = Vec::new();
        for (line, entry) in &entries[first_game..] {
            let line = *line;
            if !matches!(entry, Entry::Claim(_)) {
                self.judge_batch(&mut current, &mut batch)?;
            }
            match entry {
                Entry::Deck(_) | Entry::Players(_) => {
                    return Err(malformed(line, "deck and players come before the first game"));
                }
                Entry::Penalty(n) => options.wrong_call_penalty = *n,
                Entry::Window(ms) => options.too_late_window_ms = *ms,
                Entry::Places(on) => options.well_play_for_places = *on,
                Entry::Game(kind) => {
                    self.finish(current.take(), &deck, &players, &options, &mut series, line)?;
                    self.report.push(format!("line {line}: game {}: {kind}", series.results.len() + 1));
                    current = Some(Current { kind: *kind, line, deal: Deal::default(), referee: None });
                }
                Entry::Pile(..) | Entry::Draw(_) | Entry::Centre(_) | Entry::Round(_) => {
                    let game = current.as_mut().ok_or_else(|| malformed(line, "a deal line before any game"))?;
                    if game.referee.is_some() {
                        return Err(malformed(line, "deal lines come before the game's first claim"));
                    }
                    add_to_deal(&mut game.deal, entry, &players, line)?;
                }
                Entry::Claim(claim) => {
                    let game = current.as_mut().ok_or_else(|| malformed(line, "a claim before any game"))?;
                    self.ensure_started(game, &deck, &players, &options)?;
                    if find_seat(&players, &claim.player).is_none() {
                        return Err(malformed(line, format!("{} is not among the players", quoted(&claim.player))));
                    }
                    batch.push((line, claim.clone()));
                }
                Entry::Seen(who, card) => {
                    let game = current.as_mut().ok_or_else(|| malformed(line, "\"seen\" before any game"))?;
                    let referee = self.ensure_started(game, &deck, &players, &options)?;
                    check_seen(referee, &players, who, *card, line)?;
                }
                Entry::End => {
                    self.judge_batch(&mut current, &mut batch)?;
                    self.finish(current.take(), &deck, &players, &options, &mut series, line)?;
                }
            }
        }
        self.judge_batch(&mut current, &mut batch)?;
        self.finish(current.take(), &deck, &players, &options, &mut series, last_line)?;
        if series.results.is_empty() {
            return Err(malformed(last_line, "the record has no game"));
        }
        self.report.extend(series.table().lines().map(str::to_string));
        Ok(series)
    }

    fn ensure_started<'a, 'd>(
        &mut self,
        game: &'a mut Current<'d>,
        deck: &'d Deck,
        players: &[String],
        options: &RefereeOptions,
    ) -> Result<&'a mut Referee<'d>, ReplayError> {
        if game.referee.is_none() {
            let deal = std::mem::take(&mut game.deal);
            let table = start(game.kind, deck, players.len(), deal, options)
                .map_err(|e| illegal(game.line, format!("{}: {e}", game.kind)))?;
            game.referee = Some(Referee::new(deck, players.to_vec(), table, options.clone()));
            self.games += 1;
            let referee = game.referee.as_ref().expect("just started");
            self.steps.push(step(self.games - 1, referee, None));
        }
        Ok(game.referee.as_mut().expect("started above"))
    }

    /// Judges the claims read since the last other line, in time order.
    fn judge_batch(
        &mut self,
        current: &mut Option<Current>,
        batch: &mut Vec<(usize, Claim)>,
    ) -> Result<(), ReplayError> {
        if batch.is_empty() {
            return Ok(());
        }
        let Some(referee) = current.as_mut().and_then(|g| g.referee.as_mut()) else {
            return Ok(());
        };
        batch.sort_by_key(|(_, c)| c.time_ms);
        for (line, claim) in batch.drain(..) {
            let verdict = referee.claim(claim);
            let c = &verdict.claim;
            let target = c.target.as_ref().map(|t| format!(" > {t}")).unwrap_or_default();
            self.report.push(format!(
                "line {line}: {} {} \"{}\"{target}: {}",
                seconds(c.time_ms),
                c.player,
                c.called,
                verdict.message
            ));
            self.verdicts.push(verdict);
            self.steps.push(step(self.games - 1, referee, Some(self.verdicts.len() - 1)));
        }
        Ok(())
    }

    /// Closes a game: it must be over; its result goes into the match.
    fn finish(
        &mut self,
        game: Option<Current>,
        deck: &Deck,
        players: &[String],
        options: &RefereeOptions,
        series: &mut Match,
        line: usize,
    ) -> Result<(), ReplayError> {
        let Some(mut game) = game else { return Ok(()) };
        let started_line = game.line;
        let referee = self.ensure_started(&mut game, deck, players, options)?;
        if !referee.game().is_over() {
            return Err(illegal(line, format!("{} (line {started_line}) is not over", referee.game().kind())));
        }
        let result = GameResult::from_referee(referee);
        let places: Vec<String> = result
            .places
            .iter()
            .enumerate()
            .map(|(i, seats)| {
                let names: Vec<String> = seats
                    .iter()
                    .map(|&s| {
                        let wrong = result.wrong_calls[s];
                        format!("{} ({}, {wrong} wrong)", players[s], card_count(result.cards[s]))
                    })
                    .collect();
                format!("{}. {}", i + 1, names.join(", "))
            })
            .collect();
        self.report.push(format!("{} over: {}", result.kind, places.join("  ")));
        series.add(result);
        Ok(())
    }
}

fn step(game: usize, referee: &Referee, verdict: Option<usize>) -> Step {
    let table = referee.game();
    let places = (0..table.seats()).map(Place::Player).chain([Place::Draw, Place::Centre]);
    let piles = places.map(|p| (p, table.pile(p))).filter(|(_, cards)| !cards.is_empty()).collect();
    Step { game, kind: table.kind(), verdict, piles }
}

/// Reads the deck and players lines that must come before the first game.
fn header(entries: &[(usize, Entry)], base: &Path) -> Result<(Deck, Vec<String>, RefereeOptions, usize), ReplayError> {
    let first_game = entries.iter().position(|(_, e)| matches!(e, Entry::Game(_))).unwrap_or(entries.len());
    let mut deck = None;
    let mut players = None;
    let mut options = RefereeOptions::default();
    for (line, entry) in &entries[..first_game] {
        match entry {
            Entry::Deck(spec) => {
                let loaded = super::load_deck(spec, base).map_err(|e| malformed(*line, e.to_string()))?;
                deck = Some(loaded);
            }
            Entry::Players(names) => players = Some(names.clone()),
            Entry::Penalty(n) => options.wrong_call_penalty = *n,
            Entry::Window(ms) => options.too_late_window_ms = *ms,
            Entry::Places(on) => options.well_play_for_places = *on,
            _ => {
                return Err(malformed(*line, "only deck, players and option lines come before the first game"));
            }
        }
    }
    let line = entries.first().map_or(1, |(l, _)| *l);
    let deck = deck.ok_or_else(|| malformed(line, "the record names no deck (deck cipher, or deck PATH)"))?;
    let players = players.ok_or_else(|| malformed(line, "the record names no players"))?;
    Ok((deck, players, options, first_game))
}

fn find_seat(players: &[String], name: &str) -> Option<usize> {
    players.iter().position(|p| p.eq_ignore_ascii_case(name))
}

fn add_to_deal(deal: &mut Deal, entry: &Entry, players: &[String], line: usize) -> Result<(), ReplayError> {
    match entry {
        Entry::Pile(who, cards) => {
            let seat = find_seat(players, who)
                .ok_or_else(|| malformed(line, format!("{} is not among the players", quoted(who))))?;
            if deal.piles.len() < players.len() {
                deal.piles.resize(players.len(), Vec::new());
            }
            deal.piles[seat].extend(cards);
        }
        Entry::Draw(cards) => deal.draw.extend(cards),
        Entry::Centre(card) if deal.centre.is_none() => deal.centre = Some(*card),
        Entry::Centre(_) => return Err(malformed(line, "the centre card is given twice")),
        Entry::Round(cards) => deal.rounds.push(cards.clone()),
        _ => {}
    }
    Ok(())
}

/// Checks an observation ("the camera saw card 12 on Alice's pile") against the rules' state.
fn check_seen(
    referee: &Referee,
    players: &[String],
    who: &str,
    seen: Option<CardId>,
    line: usize,
) -> Result<(), ReplayError> {
    let place = match who {
        "draw" => Place::Draw,
        "centre" | "center" => Place::Centre,
        name => Place::Player(
            find_seat(players, name)
                .ok_or_else(|| malformed(line, format!("{} is not among the players", quoted(name))))?,
        ),
    };
    let expected = referee.game().top(place);
    if expected == seen {
        return Ok(());
    }
    let show = |c: Option<CardId>| c.map_or("no card".to_string(), |c| format!("card {c}"));
    let at = match place {
        Place::Player(s) => format!("on top of {}'s pile", players[s]),
        Place::Draw => "on the draw pile".to_string(),
        Place::Centre => "in the centre".to_string(),
    };
    Err(illegal(line, format!("{} seen {at}, but the rules put {} there", show(seen), show(expected))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time("12.345"), Ok(12_345));
        assert_eq!(parse_time("1.5"), Ok(1_500));
        assert_eq!(parse_time("3"), Ok(3_000));
        assert!(parse_time("1.2345").is_err());
        assert!(parse_time("-1").is_err());
        assert!(parse_time(".5").is_err());
    }

    #[test]
    fn claims() {
        let c = parse_claim("1.250 Alice Meet in the middle > Bob").unwrap();
        assert_eq!((c.player.as_str(), c.called.as_str(), c.time_ms), ("Alice", "Meet in the middle", 1250));
        assert_eq!(c.target.as_deref(), Some("Bob"));
        assert_eq!(parse_claim("2 Bob \"Key\"").unwrap().called, "Key");
        assert!(parse_claim("2 Bob").is_err());
    }

    #[test]
    fn players_are_few_and_distinct() {
        let r = replay("deck cipher\nplayers Alice alice\n", Path::new("."));
        let Err(ReplayError::Malformed { line: 2, message }) = r.outcome else { panic!("{:?}", r.outcome) };
        assert!(message.contains("two players are named \"Alice\" and \"alice\""), "{message}");
        let many = (0..=MAX_PLAYERS).map(|i| format!("P{i}")).collect::<Vec<_>>().join(" ");
        let r = replay(&format!("deck cipher\nplayers {many}\n"), Path::new("."));
        assert!(matches!(r.outcome, Err(ReplayError::Malformed { line: 2, .. })), "{:?}", r.outcome);
    }

    #[test]
    fn long_lines_and_control_characters_stay_one_line() {
        let r = replay(&format!("deck cipher\n# {}\n", "x".repeat(MAX_LINE_CHARS)), Path::new("."));
        assert!(matches!(r.outcome, Err(ReplayError::Malformed { line: 2, .. })), "{:?}", r.outcome);
        let r = replay("deck cipher\nfrob\u{1b}[2J\n", Path::new("."));
        let message = r.outcome.unwrap_err().to_string();
        assert!(!message.chars().any(char::is_control), "{message:?}");
    }

    #[test]
    fn malformed_lines_are_reported() {
        let r = replay("deck cipher\nplayers A B\nfrobnicate\n", Path::new("."));
        assert_eq!(
            r.outcome.unwrap_err(),
            ReplayError::Malformed { line: 3, message: "unknown keyword \"frobnicate\"".into() }
        );
    }
}
