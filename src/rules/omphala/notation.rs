//! The game record: one line per setup item, action or observation, with comments. The format
//! is documented in `docs/omphala-notation.md`. `format(parse(text)) == text` for every record
//! in canonical form, and `parse(format(record)) == record` for every record.

use std::fmt;

use super::correct::Correction;
use super::input::{Action, Deal, Input, Observation, SeatDeal};
use super::options::{AcePower, RuleOptions, TieBreak};
use super::state::Entity;
use super::state::{MAX_PLAYERS, MIN_PLAYERS, Seat};
use crate::cards::Card;

/// Words that cannot be player names because lines start with them.
const KEYWORDS: [&str; 5] = ["options", "seat", "first", "agree", "corrected"];

/// The largest record read, in bytes: a long game is a few thousand lines of a few words.
pub const MAX_RECORD_BYTES: u64 = 8 << 20;
/// The longest line read, in characters: a deal line is some 60, a comment may be longer.
pub const MAX_LINE_CHARS: usize = 1000;

/// A whole record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub lines: Vec<Line>,
}

/// One line: an item and an optional comment (the text after `#`, kept exactly).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub item: Item,
    pub comment: Option<String>,
}

/// What a line says. Players are seats (0-based, in the order of the `seat` lines); positions
/// are 0-based here and 1-based in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// An empty line, or a line holding only a comment.
    Blank,
    Options(RuleOptions),
    Seat(SeatDeal),
    /// Who plays first; completes the deal.
    First(Seat),
    Act {
        player: Seat,
        action: Action,
    },
    Drew {
        player: Seat,
        card: Card,
    },
    Revealed {
        player: Seat,
        position: usize,
        card: Card,
    },
    AgreeEnd,
    /// The operator's correction of the game to the table.
    Corrected(Correction),
}

/// A malformed line, with where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

impl Record {
    /// The rule options of the record: its `options` line, or the defaults.
    pub fn options(&self) -> RuleOptions {
        self.lines
            .iter()
            .find_map(|l| match l.item {
                Item::Options(options) => Some(options),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The seat names, in seat order.
    pub fn names(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter_map(|l| match &l.item {
                Item::Seat(seat) => Some(seat.name.clone()),
                _ => None,
            })
            .collect()
    }

    /// The engine inputs, each with its 0-based line index. The deal is the input of the
    /// `first` line.
    pub fn inputs(&self) -> Vec<(usize, Input)> {
        let mut seats = Vec::new();
        let mut inputs = Vec::new();
        for (index, line) in self.lines.iter().enumerate() {
            let input = match &line.item {
                Item::Blank | Item::Options(_) => None,
                Item::Seat(seat) => {
                    seats.push(seat.clone());
                    None
                }
                Item::First(first) => {
                    Some(Input::Observe(Observation::Deal(Deal { seats: seats.clone(), first: *first })))
                }
                Item::Act { player, action } => Some(Input::Act { player: *player, action: *action }),
                Item::Drew { player, card } => {
                    Some(Input::Observe(Observation::Drawn { player: *player, card: *card }))
                }
                Item::Revealed { player, position, card } => {
                    Some(Input::Observe(Observation::Revealed { player: *player, position: *position, card: *card }))
                }
                Item::AgreeEnd => Some(Input::EndByAgreement),
                Item::Corrected(correction) => Some(Input::Correct(correction.clone())),
            };
            inputs.extend(input.map(|i| (index, i)));
        }
        inputs
    }

    /// The record of a game given as its inputs (the first one the deal).
    pub fn from_inputs(options: RuleOptions, inputs: &[Input]) -> Record {
        let mut lines = vec![Line::new(Item::Options(options))];
        for input in inputs {
            match input {
                Input::Observe(Observation::Deal(deal)) => {
                    lines.extend(deal.seats.iter().map(|s| Line::new(Item::Seat(s.clone()))));
                    lines.push(Line::new(Item::First(deal.first)));
                }
                other => lines.push(Line::new(item_of_input(other))),
            }
        }
        Record { lines }
    }
}

/// The line item of a play input (not the deal).
pub fn item_of_input(input: &Input) -> Item {
    match input {
        &Input::Act { player, action } => Item::Act { player, action },
        &Input::Observe(Observation::Drawn { player, card }) => Item::Drew { player, card },
        &Input::Observe(Observation::Revealed { player, position, card }) => Item::Revealed { player, position, card },
        Input::Observe(Observation::Deal(_)) => Item::Blank,
        Input::EndByAgreement => Item::AgreeEnd,
        Input::Correct(correction) => Item::Corrected(correction.clone()),
    }
}

impl Line {
    pub fn new(item: Item) -> Line {
        Line { item, comment: None }
    }
}

/// The record lines of one input: the deal's `seat` lines and `first`, or the one line of any
/// other input.
pub fn input_lines(names: &[String], input: &Input) -> Vec<String> {
    match input {
        Input::Observe(Observation::Deal(deal)) => {
            let mut lines: Vec<String> =
                deal.seats.iter().map(|s| format_item(names, &Item::Seat(s.clone()))).collect();
            lines.push(format_item(names, &Item::First(deal.first)));
            lines
        }
        other => vec![format_item(names, &item_of_input(other))],
    }
}

/// Writes an action as the notation does, e.g. `Alice attack KC Bob 1`.
pub fn format_action(names: &[String], player: Seat, action: &Action) -> String {
    format_item(names, &Item::Act { player, action: *action })
}

fn name(names: &[String], seat: Seat) -> &str {
    names.get(seat).map_or("?", String::as_str)
}

fn format_item(names: &[String], item: &Item) -> String {
    let n = |seat: Seat| name(names, seat);
    match item {
        Item::Blank => String::new(),
        Item::Options(options) => format_options(options),
        Item::Seat(seat) => {
            let front: Vec<String> = seat.front.iter().map(|c| c.map_or("?".to_string(), |c| c.to_string())).collect();
            let back: Vec<String> = seat.back.iter().map(Card::to_string).collect();
            format!("seat {} front {} back {}", seat.name, front.join(" "), back.join(" "))
        }
        Item::First(seat) => format!("first {}", n(*seat)),
        Item::Drew { player, card } => format!("{} drew {card}", n(*player)),
        Item::Revealed { player, position, card } => format!("{} revealed {} {card}", n(*player), position + 1),
        Item::AgreeEnd => "agree end".to_string(),
        Item::Corrected(Correction::Turn(player)) => format!("corrected turn {}", n(*player)),
        Item::Corrected(Correction::DiscardTop(card)) => format!("corrected discard {card}"),
        Item::Corrected(Correction::Rows { player, front, back }) => {
            let row = |row: &[Entity]| row.iter().map(super::state::entity_text).collect::<Vec<_>>().join(" ");
            format!("corrected {} front {} back {}", n(*player), row(front), row(back)).replace("  ", " ")
        }
        Item::Act { player, action } => {
            let what = match *action {
                Action::Draw => "draw".to_string(),
                Action::Attack { with, defender, position } => {
                    format!("attack {with} {} {}", n(defender), position + 1)
                }
                Action::Steal { with, victim, target } => format!("steal {with} {} {target}", n(victim)),
                Action::Shield { diamond, position } => {
                    format!("shield {diamond} {}", position + 1)
                }
                Action::Enhance { heart, target } => format!("enhance {heart} {target}"),
                Action::RedReset => "reset".to_string(),
                Action::EndTurn => "end".to_string(),
                Action::Discard(card) => format!("discard {card}"),
            };
            format!("{} {what}", n(*player))
        }
    }
}

fn format_options(options: &RuleOptions) -> String {
    let ace = match options.ace_power {
        AcePower::One => "1",
        AcePower::Fourteen => "14",
    };
    let failed = if options.failed_attacker_discarded { "discarded" } else { "stays" };
    let tie = match options.tie_break {
        TieBreak::BattleWhenEqualEntities => "battle-when-equal-entities",
        TieBreak::TotalPower => "total-power",
    };
    format!("options ace={ace} failed-attacker={failed} tie-break={tie}")
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = Vec::new();
        for line in &self.lines {
            if let Item::Seat(seat) = &line.item {
                names.push(seat.name.clone());
            }
            let text = format_item(&names, &line.item);
            match (&line.comment, text.is_empty()) {
                (None, _) => writeln!(f, "{text}")?,
                (Some(comment), true) => writeln!(f, "#{comment}")?,
                (Some(comment), false) => writeln!(f, "{text} #{comment}")?,
            }
        }
        Ok(())
    }
}

/// The most of a word of the record an error quotes, in characters (a word may be as long as
/// its line).
const QUOTED_CHARS: usize = 40;

/// A word of the record as an error quotes it: cut, control characters escaped.
fn quoted(word: &str) -> String {
    crate::text_input::shortened(word, QUOTED_CHARS)
}

/// A word of a line and the 1-based column where it starts.
#[derive(Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    column: usize,
}

/// Splits the item part of a line into words, remembering columns (in characters).
fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut start: Option<(usize, usize)> = None;
    for (column, (byte, ch)) in text.char_indices().enumerate() {
        match (ch.is_whitespace(), start) {
            (true, Some((b, c))) => {
                tokens.push(Token { text: &text[b..byte], column: c + 1 });
                start = None;
            }
            (false, None) => start = Some((byte, column)),
            _ => {}
        }
    }
    if let Some((b, c)) = start {
        tokens.push(Token { text: &text[b..], column: c + 1 });
    }
    tokens
}

/// Reads a whole record, in time linear in its length: a line longer than [`MAX_LINE_CHARS`], a
/// seventh `seat` line, or `seat` lines that no `first` line completes are errors.
pub fn parse(text: &str) -> Result<Record, ParseError> {
    let mut parser = Parser { seats: Vec::new(), dealt: false, options_seen: false };
    let mut lines = Vec::new();
    let mut last_seat = None;
    for (index, raw) in text.lines().enumerate() {
        // A carriage return ending a line is part of the line break (`lines` leaves one ending
        // the text, or one before "\r\n"): a comment does not keep it.
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some((byte, _)) = raw.char_indices().nth(MAX_LINE_CHARS) {
            let message = format!("the line is longer than {MAX_LINE_CHARS} characters, the limit");
            return Err(ParseError { line: index + 1, column: raw[..byte].chars().count() + 1, message });
        }
        let line = parser.line(index + 1, raw)?;
        if matches!(line.item, Item::Seat(_)) {
            last_seat = Some(index + 1);
        }
        lines.push(line);
    }
    if let (Some(line), false) = (last_seat, parser.dealt) {
        let message = "the deal is not complete: no 'first' line follows the 'seat' lines".to_string();
        return Err(ParseError { line, column: 1, message });
    }
    Ok(Record { lines })
}

struct Parser {
    seats: Vec<String>,
    dealt: bool,
    options_seen: bool,
}

/// The tokens of one line still to read, and where the line ends (for "missing word" errors).
struct Words<'a> {
    tokens: Vec<Token<'a>>,
    next: usize,
    line: usize,
    end_column: usize,
}

impl<'a> Words<'a> {
    fn error(&self, column: usize, message: impl Into<String>) -> ParseError {
        // A word of the record quoted in the message may hold control characters: escaped.
        ParseError { line: self.line, column, message: crate::text_input::without_controls(&message.into()) }
    }

    /// The next word, or an error naming what was expected.
    fn expect(&mut self, what: &str) -> Result<Token<'a>, ParseError> {
        let token = self.tokens.get(self.next).copied();
        self.next += 1;
        token.ok_or_else(|| self.error(self.end_column, format!("missing {what}")))
    }

    fn card(&mut self, what: &str) -> Result<Card, ParseError> {
        let token = self.expect(what)?;
        token.text.parse::<Card>().map_err(|e| self.error(token.column, e.to_string()))
    }

    fn position(&mut self) -> Result<usize, ParseError> {
        let token = self.expect("a Front Row position (1, 2, …)")?;
        match token.text.parse::<usize>() {
            Ok(p) if p >= 1 => Ok(p - 1),
            _ => Err(self.error(
                token.column,
                format!("'{}' is not a Front Row position (1 for the first placed, 2, …)", quoted(token.text)),
            )),
        }
    }

    /// No word may follow the last expected one.
    fn finish(&self) -> Result<(), ParseError> {
        match self.tokens.get(self.next) {
            Some(extra) => {
                Err(self.error(extra.column, format!("unexpected '{}' at the end of the line", quoted(extra.text))))
            }
            None => Ok(()),
        }
    }
}

impl Parser {
    fn line(&mut self, number: usize, raw: &str) -> Result<Line, ParseError> {
        let (body, comment) = match raw.find('#') {
            Some(at) => (&raw[..at], Some(raw[at + 1..].to_string())),
            None => (raw, None),
        };
        let tokens = tokenize(body);
        let end_column = body.trim_end().chars().count() + 1;
        let mut words = Words { tokens, next: 0, line: number, end_column };
        let item = self.item(&mut words)?;
        words.finish()?;
        Ok(Line { item, comment })
    }

    fn item(&mut self, words: &mut Words) -> Result<Item, ParseError> {
        let Some(first) = words.tokens.first().copied() else {
            return Ok(Item::Blank);
        };
        words.next = 1;
        match first.text {
            "options" => self.options(words, first.column),
            "seat" => self.seat(words, first.column),
            "first" => {
                let player = self.player(words)?;
                self.require_seats(words, first.column)?;
                if self.dealt {
                    return Err(
                        words.error(first.column, "the deal is already complete: a record has one 'first' line")
                    );
                }
                self.dealt = true;
                Ok(Item::First(player))
            }
            "corrected" => {
                self.require_deal(words, first.column)?;
                self.correction(words).map(Item::Corrected)
            }
            "agree" => {
                let end = words.expect("'end' (the line is 'agree end')")?;
                if end.text != "end" {
                    return Err(words.error(end.column, "expected 'end' (the line is 'agree end')"));
                }
                self.require_deal(words, first.column)?;
                Ok(Item::AgreeEnd)
            }
            _ => {
                words.next = 0;
                let player = self.player(words)?;
                self.require_deal(words, first.column)?;
                self.play(words, player)
            }
        }
    }

    fn require_seats(&self, words: &Words, column: usize) -> Result<(), ParseError> {
        if self.seats.is_empty() {
            return Err(words.error(column, "no 'seat' line before 'first': the deal lists each seat first"));
        }
        Ok(())
    }

    fn require_deal(&self, words: &Words, column: usize) -> Result<(), ParseError> {
        if !self.dealt {
            return Err(words.error(column, "play before the deal: the 'seat' lines and the 'first' line come first"));
        }
        Ok(())
    }

    fn player(&self, words: &mut Words) -> Result<Seat, ParseError> {
        let token = words.expect("a player name")?;
        self.seats.iter().position(|s| s == token.text).ok_or_else(|| {
            let known: Vec<String> = self.seats.iter().map(|s| quoted(s)).collect();
            let known = if known.is_empty() { "none yet".to_string() } else { known.join(", ") };
            words.error(token.column, format!("unknown player or keyword '{}' (players: {known})", quoted(token.text)))
        })
    }

    fn options(&mut self, words: &mut Words, column: usize) -> Result<Item, ParseError> {
        if self.options_seen || !self.seats.is_empty() {
            return Err(words.error(column, "the 'options' line comes once, before the deal"));
        }
        self.options_seen = true;
        let mut options = RuleOptions::default();
        while let Some(token) = words.tokens.get(words.next).copied() {
            words.next += 1;
            let bad = || {
                words.error(
                    token.column,
                    format!(
                        "unknown option '{}' (expected ace=1|14, failed-attacker=stays|discarded, \
                         tie-break=battle-when-equal-entities|total-power)",
                        quoted(token.text)
                    ),
                )
            };
            let (key, value) = token.text.split_once('=').ok_or_else(bad)?;
            match (key, value) {
                ("ace", "1") => options.ace_power = AcePower::One,
                ("ace", "14") => options.ace_power = AcePower::Fourteen,
                ("failed-attacker", "stays") => options.failed_attacker_discarded = false,
                ("failed-attacker", "discarded") => options.failed_attacker_discarded = true,
                ("tie-break", "battle-when-equal-entities") => options.tie_break = TieBreak::BattleWhenEqualEntities,
                ("tie-break", "total-power") => options.tie_break = TieBreak::TotalPower,
                _ => return Err(bad()),
            }
        }
        Ok(Item::Options(options))
    }

    fn seat(&mut self, words: &mut Words, column: usize) -> Result<Item, ParseError> {
        if self.dealt {
            return Err(words.error(column, "a 'seat' line after 'first': every seat comes before the first player"));
        }
        if self.seats.len() == MAX_PLAYERS {
            return Err(words.error(
                column,
                format!("a seat too many: Omphala is played by {MIN_PLAYERS} to {MAX_PLAYERS} players"),
            ));
        }
        let name = words.expect("a player name")?;
        check_name(words, name, &self.seats)?;
        self.keyword(words, "front")?;
        let mut front = Vec::new();
        let mut back = Vec::new();
        let mut in_back = false;
        while let Some(token) = words.tokens.get(words.next).copied() {
            words.next += 1;
            match (token.text, in_back) {
                ("back", false) => in_back = true,
                ("?", false) => front.push(None),
                (text, _) => {
                    let card = text.parse::<Card>().map_err(|e| words.error(token.column, e.to_string()))?;
                    if in_back { back.push(card) } else { front.push(Some(card)) }
                }
            }
        }
        if !in_back {
            return Err(words.error(words.end_column, "missing 'back' and the Back Row cards"));
        }
        self.seats.push(name.text.to_string());
        Ok(Item::Seat(SeatDeal { name: name.text.to_string(), front, back }))
    }

    /// `corrected turn NAME`, `corrected discard C` or `corrected NAME front E … back E …`, an
    /// entity `E` being its base card (`?` face down and never seen) with `+M` for a modifier.
    fn correction(&self, words: &mut Words) -> Result<Correction, ParseError> {
        let what = words.expect("'turn', 'discard' or a player name")?;
        // A player may be called "turn": their rows follow with "front".
        let rows = words.tokens.get(words.next).is_some_and(|t| t.text == "front");
        match what.text {
            "turn" if !rows => Ok(Correction::Turn(self.player(words)?)),
            "discard" if !rows => Ok(Correction::DiscardTop(words.card("the discard pile's top card")?)),
            _ => {
                words.next -= 1;
                let player = self.player(words)?;
                self.keyword(words, "front")?;
                let (mut front, mut back, mut in_back) = (Vec::new(), Vec::new(), false);
                while let Some(token) = words.tokens.get(words.next).copied() {
                    words.next += 1;
                    if token.text == "back" && !in_back {
                        in_back = true;
                        continue;
                    }
                    let entity = entity(token.text).map_err(|e| words.error(token.column, e))?;
                    if in_back { back.push(entity) } else { front.push(entity) }
                }
                if !in_back {
                    return Err(words.error(words.end_column, "missing 'back' and the Back Row entities"));
                }
                Ok(Correction::Rows { player, front, back })
            }
        }
    }

    fn keyword(&self, words: &mut Words, keyword: &str) -> Result<(), ParseError> {
        let token = words.expect(&format!("'{keyword}'"))?;
        if token.text != keyword {
            return Err(words.error(token.column, format!("expected '{keyword}', found '{}'", quoted(token.text))));
        }
        Ok(())
    }

    fn play(&self, words: &mut Words, player: Seat) -> Result<Item, ParseError> {
        let verb = words.expect("what the player does (draw, attack, steal, …)")?;
        let act = |action| Ok(Item::Act { player, action });
        match verb.text {
            "draw" => act(Action::Draw),
            "end" => act(Action::EndTurn),
            "reset" => act(Action::RedReset),
            "discard" => act(Action::Discard(words.card("the card to discard")?)),
            "attack" => {
                let with = words.card("the attacking card")?;
                let defender = self.player(words)?;
                let position = words.position()?;
                act(Action::Attack { with, defender, position })
            }
            "steal" => {
                let with = words.card("the stealing Spade")?;
                let victim = self.player(words)?;
                let target = words.card("the card to steal")?;
                act(Action::Steal { with, victim, target })
            }
            "shield" => {
                let diamond = words.card("the shielding Diamond")?;
                let position = words.position()?;
                act(Action::Shield { diamond, position })
            }
            "enhance" => {
                let heart = words.card("the enhancing Heart")?;
                let target = words.card("the card to enhance")?;
                act(Action::Enhance { heart, target })
            }
            "drew" => Ok(Item::Drew { player, card: words.card("the card drawn")? }),
            "revealed" => {
                let position = words.position()?;
                let card = words.card("the revealed card")?;
                Ok(Item::Revealed { player, position, card })
            }
            other => Err(words.error(
                verb.column,
                format!(
                    "unknown verb '{}' (expected draw, drew, attack, steal, shield, enhance, reset, end, discard or revealed)",
                    quoted(other)
                ),
            )),
        }
    }
}

/// An entity as a correction writes it: `9D`, `?` (face down, never seen), `9D+4D`, `?+4D`.
fn entity(text: &str) -> Result<Entity, String> {
    let (base, modifier) = match text.split_once('+') {
        Some((base, modifier)) => (base, Some(modifier.parse::<Card>().map_err(|e| e.to_string())?)),
        None => (text, None),
    };
    let card = if base == "?" { None } else { Some(base.parse::<Card>().map_err(|e| e.to_string())?) };
    Ok(Entity { card, modifier })
}

fn check_name(words: &Words, token: Token, seats: &[String]) -> Result<(), ParseError> {
    let mut chars = token.text.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !starts_with_letter || !rest_ok || KEYWORDS.contains(&token.text) {
        return Err(words.error(
            token.column,
            format!(
                "'{}' cannot be a player name: a letter, then letters, digits, '-' or '_', and not one of {}",
                quoted(token.text),
                KEYWORDS.join(", ")
            ),
        ));
    }
    if seats.iter().any(|s| s == token.text) {
        return Err(words.error(token.column, format!("two seats are named '{}'", quoted(token.text))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# a sample
options ace=1 failed-attacker=stays tie-break=battle-when-equal-entities
seat Alice front ? ? back KC 5H 2D 7S 9C
seat Bob front 3C ? back QS JD 4H 6S 8C

first Alice #Alice won the draw of lots
Alice attack KC Bob 1
Bob revealed 2 9D
Alice steal QS Bob JD
Alice shield 2D 2
Alice enhance 5H KC
Alice draw
Alice drew 10H
Alice reset
Alice discard 7S
Alice end
agree end
";

    #[test]
    fn corrections_round_trip_and_bad_ones_are_named() {
        let text = "seat Alice front ? ? back 5H 9D 7S 2C KC\nseat Bob front ? ? back QS 4D 8H 6C 3S\nfirst Alice\n\
                    corrected Bob front ? 9D+4D back QS+8H 3S\ncorrected Alice front back 5H\n\
                    corrected discard 6C\ncorrected turn Bob\n";
        let record = parse(text).unwrap();
        assert_eq!(record.to_string(), text);
        let inputs = record.inputs();
        assert!(matches!(&inputs[1].1, Input::Correct(Correction::Rows { player: 1, front, .. })
            if front[1] == Entity { card: "9D".parse().ok(), modifier: "4D".parse().ok() }));
        let bad = parse("seat A front ? back 2C\nseat B front ? back 3C\nfirst A\ncorrected A front ?+XX back 2C\n");
        assert_eq!(bad.unwrap_err().column, 19);
        let before = parse("corrected turn A\n").unwrap_err();
        assert!(before.message.starts_with("play before the deal"), "{before}");
    }

    #[test]
    fn canonical_text_round_trips_exactly() {
        let record = parse(SAMPLE).unwrap();
        assert_eq!(record.to_string(), SAMPLE);
        assert_eq!(parse(&record.to_string()).unwrap(), record);
    }

    #[test]
    fn reads_positions_as_zero_based_and_names_as_seats() {
        let record = parse(SAMPLE).unwrap();
        assert_eq!(record.names(), ["Alice", "Bob"]);
        let attack = Action::Attack { with: "KC".parse().unwrap(), defender: 1, position: 0 };
        assert_eq!(record.lines[6].item, Item::Act { player: 0, action: attack });
        assert_eq!(record.lines[5].comment.as_deref(), Some("Alice won the draw of lots"));
    }

    #[test]
    fn errors_give_line_and_column() {
        let text = "seat Alice front ? ? back KC 5H 2D 7S 9C\nfirst Alice\nAlice attack KX Alice 1\n";
        let error = parse(text).unwrap_err();
        assert_eq!((error.line, error.column), (3, 14), "{error}");
        let error = parse("seat Al front ? ? back 2C\nfirst Al\nBob draw\n").unwrap_err();
        assert_eq!((error.line, error.column), (3, 1));
        let error = parse("seat Al front ? ? back 2C\nfirst Al\nAl shield 2D\n").unwrap_err();
        assert_eq!((error.line, error.column), (3, 13));
        assert!(error.message.contains("missing"), "{error}");
        let error = parse("seat Al front ? ? back 2C\nfirst Al\nAl end now\n").unwrap_err();
        assert_eq!((error.line, error.column), (3, 8));
    }

    #[test]
    fn refuses_play_before_the_deal_and_bad_names() {
        assert!(parse("seat Al front ? ? back 2C\nAl draw\n").unwrap_err().message.contains("before the deal"));
        assert!(parse("seat first front ? ? back 2C\n").unwrap_err().message.contains("cannot be a player name"));
        assert!(parse("seat Al front ? ? back 2C\nseat Al front ? ? back 3C\n").is_err());
        assert!(parse("options ace=15\n").unwrap_err().message.contains("unknown option"));
    }
}
