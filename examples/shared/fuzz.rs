//! A fuzz driver for the parsers of every file the program reads, on stable Rust: game records,
//! match records, deck.json, the two kinds of label files, the three kinds of enrolled profiles,
//! the table layout and the referee's journal.
//!
//! Each input is made from the run's seed and its index alone (so one can be made again without
//! the others): arbitrary bytes, a soup of the format's words, or, mostly, a valid input (built
//! here, or read in place from `tests/data` and `../shared/data`) mutated a few times over: bytes
//! flipped, inserted, deleted, duplicated or swapped, whole lines deleted, duplicated, swapped or
//! taken from another input, two inputs spliced, numbers replaced by extremes (0, -1, huge, NaN),
//! words replaced by the format's own, the text cut short.
//!
//! Each parse runs inside `catch_unwind`. Besides a panic, a target reports a broken contract: an
//! error that is empty, longer than [`MAX_ERROR_BYTES`], holds a control character (a line break
//! splits it; an escape drives the terminal), or does not say where (a line within the input, or
//! a field of the format); or an accepted input that breaks what the parser promises of it (a
//! game record that does not read back the same once written, a layout that does not survive its
//! TOML, a deck past its limits).

use std::cell::RefCell;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use card_referee::referee::journal;
use card_referee::referee::omphala::{OmphalaReferee, RefereeConfig};
use card_referee::rules::omphala::notation::{self, Record};
use card_referee::rules::omphala::replay::{progress_line, replay, standings_lines, verdict_text};
use card_referee::rules::omphala::simulate::{RecordOptions, play_recorded};
use card_referee::rules::omphala::{AcePower, RuleOptions, TieBreak};
use card_referee::symbols::cipher::cipher_deck;
use card_referee::symbols::deck::{Deck, DeckError, MAX_CARDS, MAX_NAME_CHARS, MAX_SYMBOLS_PER_CARD, projective_plane};
use card_referee::symbols::notation::{ReplayError, replay as replay_match};
use card_referee::table::TableLayout;
use card_referee::vision::cards::decks::back::{
    BACK_FORMAT, BackDescriptor, BackProfile, COLOUR_BINS, LAYOUT_H, LAYOUT_W, TEXTURE_BINS,
};
use card_referee::vision::cards::decks::enroll::{DeckProfile, EnrolledPatch};
use card_referee::vision::cards::labels::LabelSet;
use card_referee::vision::symbols::describe::LEN as SYMBOL_LEN;
use card_referee::vision::symbols::enroll::{PROFILE_FORMAT as SYMBOL_FORMAT, SymbolAppearance, SymbolProfile};
use card_referee::vision::symbols::labels::parse_labels;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The longest error accepted: a line a person reads.
pub const MAX_ERROR_BYTES: usize = 2000;
/// No input grows past this many bytes (a mutation that would is skipped).
const MAX_INPUT_BYTES: usize = 256 << 10;
/// The embedding lengths the deck profile target checks against (the networks' own need OpenCV
/// and do not change what the parser does).
const CORNER_LEN: usize = 6;
const LOOSE_LEN: usize = 4;

/// What one parse gave.
pub enum Outcome {
    Accepted,
    /// Refused with an error that keeps the contract.
    Refused,
    /// The contract broken: how.
    Broken(String),
}

/// One parser under test.
pub struct Target {
    pub name: &'static str,
    /// Valid inputs, mutated into most of the inputs.
    pub seeds: Vec<Vec<u8>>,
    /// Words of the format, for soups and replacements.
    words: Vec<String>,
    check: fn(&[u8]) -> Outcome,
}

impl Target {
    /// Parses one input, catching a panic: `Err` holds the panic's message and place.
    pub fn run(&self, input: &[u8]) -> Result<Outcome, String> {
        PANIC.with(|p| p.borrow_mut().take());
        FUZZING.with(|f| *f.borrow_mut() = true);
        let result = catch_unwind(AssertUnwindSafe(|| (self.check)(input)));
        FUZZING.with(|f| *f.borrow_mut() = false);
        result.map_err(|_| PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "a panic".to_string()))
    }
}

/// Something wrong found in one input.
pub struct Finding {
    pub index: u64,
    pub panic: bool,
    pub message: String,
    pub input: Vec<u8>,
    /// Where the input was saved, when a folder was given.
    pub saved: Option<PathBuf>,
}

/// What a run of one target found.
pub struct Report {
    pub name: &'static str,
    pub inputs: u64,
    pub accepted: u64,
    pub panics: u64,
    pub broken: u64,
    /// The first few findings (each saved when a folder was given).
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
    /// The slowest input: how long, and its index.
    pub slowest: (Duration, u64),
}

impl Report {
    pub fn inputs_per_second(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// How many findings a report keeps (and saves) of each kind.
const KEPT: usize = 20;

thread_local! {
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static FUZZING: RefCell<bool> = const { RefCell::new(false) };
}

/// Runs `count` inputs of `target` from index `start`. Findings are saved to `save` when given,
/// as `TARGET-INDEX.panic` or `TARGET-INDEX.broken`.
pub fn run(target: &Target, seed: u64, start: u64, count: u64, save: Option<&Path>) -> Report {
    let previous = std::panic::take_hook();
    let previous: &'static (dyn Fn(&std::panic::PanicHookInfo) + Send + Sync) = Box::leak(previous);
    // A panic while fuzzing is recorded quietly; any other (a failing test beside) is reported.
    std::panic::set_hook(Box::new(move |info| {
        if FUZZING.with(|f| *f.borrow()) {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let place = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked at {place}: {message}")));
        } else {
            previous(info);
        }
    }));
    let mut report = Report {
        name: target.name,
        inputs: 0,
        accepted: 0,
        panics: 0,
        broken: 0,
        findings: Vec::new(),
        elapsed: Duration::ZERO,
        slowest: (Duration::ZERO, start),
    };
    let began = Instant::now();
    for index in start..start + count {
        let input = make_input(target, seed, index);
        let t = Instant::now();
        let outcome = target.run(&input);
        let took = t.elapsed();
        if took > report.slowest.0 {
            report.slowest = (took, index);
        }
        report.inputs += 1;
        let (panic, message) = match outcome {
            Ok(Outcome::Accepted) => {
                report.accepted += 1;
                continue;
            }
            Ok(Outcome::Refused) => continue,
            Ok(Outcome::Broken(why)) => (false, why),
            Err(panic) => (true, panic),
        };
        let kept = if panic { report.panics } else { report.broken } as usize;
        if panic {
            report.panics += 1
        } else {
            report.broken += 1
        }
        if kept < KEPT {
            let saved = save.and_then(|dir| {
                let path = dir.join(format!("{}-{index}.{}", target.name, if panic { "panic" } else { "broken" }));
                std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, &input)).ok().map(|()| path)
            });
            report.findings.push(Finding { index, panic, message, input, saved });
        }
    }
    report.elapsed = began.elapsed();
    let _ = std::panic::take_hook();
    std::panic::set_hook(Box::new(previous));
    report
}

// ---------------------------------------------------------------------------------------------
// Inputs.

/// Bytes that parsers treat specially, and some that no text should hold.
const INTERESTING: &[&[u8]] = &[
    b"\0",
    b"\n",
    b"\r",
    b"\r\n",
    b"\t",
    b" ",
    b"\"",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"=",
    b"#",
    b"?",
    b"-",
    b".",
    b">",
    b"'",
    b"\x1b",
    b"\x7f",
    b"\xff",
    b"\xc3",
    b"\xc3\xa9",
    b"\xe2\x80\xa6",
    b"\xe2\x99\xa0",
    b"\xef\xbb\xbf",
    b"\xf0\x9f\x83\x8f",
    b"\\u0000",
    b"\\ud800",
    b"\\n",
    b"\\u001b",
];

/// Numbers that break careless arithmetic.
const EXTREMES: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1",
    "2",
    "7",
    "8",
    "13",
    "14",
    "255",
    "256",
    "1000",
    "1001",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "0.0",
    "-0.0",
    "0.5",
    "1e308",
    "1e309",
    "-1e309",
    "1e-400",
    "3.4e38",
    "3.5e38",
    "-3.5e38",
    "1e39",
    "NaN",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "1.0000",
    "0.001",
    "00",
    "1_000",
    "0x10",
    "+1",
];

/// The input of `index`: the same for the same seed, target and index.
pub fn make_input(target: &Target, seed: u64, index: u64) -> Vec<u8> {
    let name_hash =
        target.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ name_hash);
    rng.set_stream(index);
    let kind = rng.random_range(0..100);
    if kind < 4 || target.seeds.is_empty() {
        let len = rng.random_range(0..=300);
        (0..len).map(|_| rng.random()).collect()
    } else if kind < 8 {
        let len = rng.random_range(0..=300);
        (0..len).map(|_| *pick(&mut rng, b" \n\t{}[]\",:=#.-?>0123456789abcdefghijklmnopqrstuvwxyzACDHSJQK")).collect()
    } else if kind < 18 {
        soup(&mut rng, target)
    } else {
        let mut data = pick(&mut rng, &target.seeds).clone();
        let rounds = 1 << rng.random_range(0..4);
        for _ in 0..rounds {
            mutate(&mut rng, &mut data, target);
        }
        data
    }
}

fn pick<'a, T>(rng: &mut ChaCha8Rng, items: &'a [T]) -> &'a T {
    &items[rng.random_range(0..items.len())]
}

/// Words of the format joined by separators.
fn soup(rng: &mut ChaCha8Rng, target: &Target) -> Vec<u8> {
    const SEPARATORS: &[&str] = &[" ", " ", " ", "\n", "\n", "", ",", ":", "=", "\t", " # ", "\"", "{", "}", "[", "]"];
    let mut out = Vec::new();
    for _ in 0..rng.random_range(1..80) {
        let word: &[u8] =
            if rng.random_bool(0.8) { pick(rng, &target.words).as_bytes() } else { pick(rng, EXTREMES).as_bytes() };
        out.extend_from_slice(word);
        out.extend_from_slice(pick(rng, SEPARATORS).as_bytes());
    }
    out
}

/// The byte ranges of the lines of `data`, each with its line break.
fn lines(data: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            spans.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < data.len() {
        spans.push((start, data.len()));
    }
    spans
}

/// Ranges of `data` where `part` holds, longest first from each start.
fn runs(data: &[u8], part: impl Fn(u8) -> bool, start: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if start(data[i]) {
            let mut j = i + 1;
            while j < data.len() && part(data[j]) {
                j += 1;
            }
            spans.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    spans
}

/// A random range of `data` (at most `max` bytes), as (start, end).
fn range(rng: &mut ChaCha8Rng, len: usize, max: usize) -> (usize, usize) {
    let start = rng.random_range(0..=len);
    let end = (start + rng.random_range(0..=max.max(1))).min(len);
    (start, end)
}

fn other_seed<'a>(rng: &mut ChaCha8Rng, target: &'a Target) -> &'a [u8] {
    pick(rng, &target.seeds).as_slice()
}

/// One mutation of `data`.
fn mutate(rng: &mut ChaCha8Rng, data: &mut Vec<u8>, target: &Target) {
    let len = data.len();
    match rng.random_range(0..18) {
        // A bit flipped, a byte replaced.
        0 if len > 0 => {
            let at = rng.random_range(0..len);
            data[at] ^= 1 << rng.random_range(0..8);
        }
        1 if len > 0 => {
            let at = rng.random_range(0..len);
            data[at] = if rng.random_bool(0.5) { rng.random() } else { pick(rng, INTERESTING)[0] };
        }
        // Bytes inserted.
        2 => {
            let at = rng.random_range(0..=len);
            let bytes: Vec<u8> = if rng.random_bool(0.5) {
                pick(rng, INTERESTING).to_vec()
            } else {
                (0..rng.random_range(1..8)).map(|_| rng.random()).collect()
            };
            data.splice(at..at, bytes);
        }
        // A range deleted, duplicated, or swapped with another.
        3 => {
            let (a, b) = range(rng, len, 32);
            data.drain(a..b);
        }
        4 => {
            let (a, b) = range(rng, len, 64);
            let copy = data[a..b].to_vec();
            let at = rng.random_range(0..=len);
            data.splice(at..at, copy);
        }
        5 if len > 1 => {
            let (a, b) = range(rng, len, 32);
            let (c, d) = range(rng, len, 32);
            let ((a, b), (c, d)) = if a <= c { ((a, b), (c, d)) } else { ((c, d), (a, b)) };
            if b <= c {
                let mut out = data[..a].to_vec();
                out.extend_from_slice(&data[c..d]);
                out.extend_from_slice(&data[b..c]);
                out.extend_from_slice(&data[a..b]);
                out.extend_from_slice(&data[d..]);
                *data = out;
            }
        }
        // Whole lines deleted, duplicated, swapped, or taken from another input.
        6 => {
            let spans = lines(data);
            if !spans.is_empty() {
                let (a, b) = *pick(rng, &spans);
                data.drain(a..b);
            }
        }
        7 => {
            let spans = lines(data);
            if !spans.is_empty() {
                let (a, b) = *pick(rng, &spans);
                let copy = data[a..b].to_vec();
                let at = pick(rng, &spans).0;
                let times = if rng.random_bool(0.9) { 1 } else { rng.random_range(2..200) };
                let copies: Vec<u8> = copy.iter().copied().cycle().take(copy.len() * times).collect();
                data.splice(at..at, copies);
            }
        }
        8 => {
            let spans = lines(data);
            if spans.len() > 1 {
                let (mut x, mut y) = (rng.random_range(0..spans.len()), rng.random_range(0..spans.len()));
                if x > y {
                    std::mem::swap(&mut x, &mut y);
                }
                if x < y {
                    let ((a, b), (c, d)) = (spans[x], spans[y]);
                    let mut out = data[..a].to_vec();
                    out.extend_from_slice(&data[c..d]);
                    out.extend_from_slice(&data[b..c]);
                    out.extend_from_slice(&data[a..b]);
                    out.extend_from_slice(&data[d..]);
                    *data = out;
                }
            }
        }
        9 => {
            let other = other_seed(rng, target);
            let spans = lines(other);
            if !spans.is_empty() {
                let (a, b) = *pick(rng, &spans);
                let line = other[a..b].to_vec();
                let mine = lines(data);
                let at = if mine.is_empty() { 0 } else { pick(rng, &mine).0 };
                data.splice(at..at, line);
            }
        }
        // Two inputs spliced: this one's start, another's end.
        10 => {
            let other = other_seed(rng, target);
            let cut = rng.random_range(0..=len);
            let from = rng.random_range(0..=other.len());
            data.truncate(cut);
            data.extend_from_slice(&other[from..]);
        }
        // A number replaced by an extreme.
        11 | 12 => {
            let numbers =
                runs(data, |b| b.is_ascii_digit() || b"._eE+-".contains(&b), |b| b.is_ascii_digit() || b == b'-');
            if numbers.is_empty() {
                let at = rng.random_range(0..=len);
                data.splice(at..at, pick(rng, EXTREMES).bytes());
            } else {
                let (a, b) = *pick(rng, &numbers);
                data.splice(a..b, pick(rng, EXTREMES).bytes());
            }
        }
        // A word replaced by one of the format's, or one inserted.
        13 => {
            let words =
                runs(data, |b| b.is_ascii_alphanumeric() || b"_-?=".contains(&b), |b| b.is_ascii_alphanumeric());
            let word = pick(rng, &target.words).clone().into_bytes();
            if words.is_empty() {
                let at = rng.random_range(0..=len);
                data.splice(at..at, word);
            } else {
                let (a, b) = *pick(rng, &words);
                data.splice(a..b, word);
            }
        }
        14 => {
            let at = rng.random_range(0..=len);
            let mut word = pick(rng, &target.words).clone().into_bytes();
            word.push(b' ');
            data.splice(at..at, word);
        }
        // Cut short.
        15 => data.truncate(rng.random_range(0..=len)),
        // A piece repeated many times.
        16 => {
            let (a, b) = range(rng, len, 16);
            if a < b {
                let copy = data[a..b].to_vec();
                let times = rng.random_range(2..2000);
                let copies: Vec<u8> = copy.iter().copied().cycle().take(copy.len() * times).collect();
                data.splice(b..b, copies);
            }
        }
        // A letter's case changed.
        _ if len > 0 => {
            let at = rng.random_range(0..len);
            if data[at].is_ascii_alphabetic() {
                data[at] ^= 0x20;
            }
        }
        _ => {}
    }
    if data.len() > MAX_INPUT_BYTES {
        data.truncate(MAX_INPUT_BYTES);
    }
}

// ---------------------------------------------------------------------------------------------
// The error contract.

/// The text of an input: invalid UTF-8 as the replacement character (the readers refuse invalid
/// UTF-8 before any parser sees it, naming its line and column: `text_input`).
fn text(input: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(input)
}

/// The message is one short line of plain text.
fn one_line(error: &str) -> Result<(), String> {
    if error.trim().is_empty() {
        return Err("an empty error".to_string());
    }
    if error.len() > MAX_ERROR_BYTES {
        let start: String = error.chars().take(300).collect();
        return Err(format!("an error of {} bytes: {start:?}…", error.len()));
    }
    if let Some(c) = error.chars().find(|c| c.is_control()) {
        return Err(format!("a control character {c:?} in the error {error:?}"));
    }
    Ok(())
}

/// The numbers following "line " in `error`.
fn lines_named(error: &str) -> Vec<usize> {
    error
        .match_indices("line ")
        .filter_map(|(at, word)| {
            let digits: String = error[at + word.len()..].chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

/// The line numbers of "FILE:LINE:COLUMN: " in `error`.
fn file_lines_named(error: &str) -> Vec<usize> {
    let words: Vec<&str> = error.split(": ").next().unwrap_or("").rsplitn(3, ':').collect();
    match words[..] {
        [column, line, _] if column.parse::<usize>().is_ok() => line.parse().ok().into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The error names a place: a line of the text (1 to one past its last), or one of `fields`.
fn names_a_place(error: &str, text: &str, fields: &[&str]) -> Result<(), String> {
    let last = text.lines().count() + 1;
    let mut named = lines_named(error);
    named.extend(file_lines_named(error));
    if let Some(bad) = named.iter().find(|&&l| l == 0 || l > last) {
        return Err(format!("line {bad} named, the input has {} lines: {error:?}", last - 1));
    }
    if named.is_empty() && !fields.iter().any(|f| error.contains(f)) {
        return Err(format!("the error names no line or field: {error:?}"));
    }
    Ok(())
}

fn refused(error: &str, text: &str, fields: &[&str]) -> Outcome {
    match one_line(error).and_then(|()| names_a_place(error, text, fields)) {
        Ok(()) => Outcome::Refused,
        Err(why) => Outcome::Broken(why),
    }
}

fn broken_unless(ok: bool, why: impl FnOnce() -> String) -> Outcome {
    if ok { Outcome::Accepted } else { Outcome::Broken(why()) }
}

// ---------------------------------------------------------------------------------------------
// The targets.

fn check_game_record(input: &[u8]) -> Outcome {
    let text = text(input);
    match notation::parse(&text) {
        Err(e) => {
            let line = text.lines().nth(e.line.saturating_sub(1));
            let columns = line.map_or(1, |l| l.chars().count() + 1);
            if e.line == 0 || e.line > text.lines().count().max(1) || e.column == 0 || e.column > columns {
                return Outcome::Broken(format!("line {}, column {} is not in the input: {e}", e.line, e.column));
            }
            refused(&e.to_string(), &text, &[])
        }
        Ok(record) => {
            // What `omphala replay` does with it.
            let judged = replay(&record);
            for verdict in &judged.verdicts {
                black_box(verdict_text(&judged.state, &verdict.events));
            }
            match judged.state.standings() {
                Some(standings) => black_box(standings_lines(&judged.state, standings).len()),
                None => black_box(progress_line(&judged.state).len()),
            };
            let written = record.to_string();
            let again = notation::parse(&written);
            broken_unless(again.as_ref() == Ok(&record), || {
                format!("written as {written:?} it reads back as {again:?}")
            })
        }
    }
}

fn check_match_record(input: &[u8]) -> Outcome {
    let text = text(input);
    // A deck named by path is looked for in a folder that holds none.
    let judged = replay_match(&text, Path::new("/nonexistent-card-referee-fuzz"));
    match &judged.outcome {
        Ok(_) => Outcome::Accepted,
        Err(ReplayError::Malformed { line, .. } | ReplayError::Illegal { line, .. })
            if *line == 0 || *line > text.lines().count().max(1) =>
        {
            Outcome::Broken(format!("line {line} is not in the input"))
        }
        Err(e) => refused(&e.to_string(), &text, &[]),
    }
}

fn check_deck(input: &[u8]) -> Outcome {
    let text = text(input);
    match Deck::from_json_str(&text, Path::new("deck.json")) {
        Ok(deck) => broken_unless(
            deck.cards().len() <= MAX_CARDS
                && deck.cards().iter().all(|c| c.symbols.len() <= MAX_SYMBOLS_PER_CARD)
                && deck.symbols().iter().all(|s| s.chars().count() <= MAX_NAME_CHARS),
            || "a deck past the limits accepted".to_string(),
        ),
        Err(e) => {
            let message = e.to_string();
            if !message.starts_with("deck.json") {
                return Outcome::Broken(format!("the error does not name the file: {message:?}"));
            }
            if let DeckError::Json { line, column, .. } = e
                && (line == 0 || column == 0 || line > text.lines().count() + 1)
            {
                return Outcome::Broken(format!("line {line}, column {column} is not in the input"));
            }
            // An invalid deck names its cards and symbols rather than lines.
            refused(&message, &text, &["deck.json:", "invalid deck"])
        }
    }
}

fn check_card_labels(input: &[u8]) -> Outcome {
    let text = text(input);
    match LabelSet::parse(&text) {
        Ok(_) => Outcome::Accepted,
        Err(e) => refused(&e, &text, &["format", "images", "ranks", "face_up", "optional", "face_down", "file"]),
    }
}

fn check_symbol_labels(input: &[u8]) -> Outcome {
    let text = text(input);
    match parse_labels(&text, Path::new("photos")) {
        Ok(_) => Outcome::Accepted,
        Err(e) => refused(&e, &text, &["format", "images", "cards", "file"]),
    }
}

fn check_deck_profile(input: &[u8]) -> Outcome {
    let text = text(input);
    match DeckProfile::parse(&text, CORNER_LEN, LOOSE_LEN) {
        Ok(profile) => {
            black_box(profile.memories());
            black_box(profile.cards());
            Outcome::Accepted
        }
        Err(e) => refused(&e, &text, &["format", "networks", "corners", "loose"]),
    }
}

fn check_back_profile(input: &[u8]) -> Outcome {
    let text = text(input);
    match BackProfile::parse(&text) {
        Ok(_) => Outcome::Accepted,
        Err(e) => refused(&e, &text, &["field '"]),
    }
}

fn check_symbol_profile(input: &[u8]) -> Outcome {
    let text = text(input);
    match SymbolProfile::parse(&text) {
        Ok(_) => Outcome::Accepted,
        Err(e) => refused(&e, &text, &["format", "symbols["]),
    }
}

fn check_layout(input: &[u8]) -> Outcome {
    let text = text(input);
    match TableLayout::from_toml(&text) {
        Ok(layout) => {
            black_box(layout.extent());
            black_box(layout.image_to_table());
            let written = layout.to_toml();
            let again = TableLayout::from_toml(&written);
            broken_unless(again.as_ref() == Ok(&layout), || {
                format!("written as {written:?} it reads back as {again:?}")
            })
        }
        Err(e) => refused(&e, &text, &["seats", "deck", "discard", "image_to_table"]),
    }
}

fn check_journal(input: &[u8]) -> Outcome {
    let path = Path::new("game.jsonl");
    match journal::from_bytes(input.to_vec(), path) {
        Ok(resumed) => {
            // What `referee omphala --journal` does with it.
            let config = RefereeConfig::default();
            black_box(OmphalaReferee::resume(resumed.names, resumed.options, config, &resumed.inputs).is_ok());
            Outcome::Accepted
        }
        Err(e) if !e.starts_with("game.jsonl") => Outcome::Broken(format!("the error does not name the file: {e:?}")),
        Err(e) => refused(&e, &text(input), &["no start line"]),
    }
}

// ---------------------------------------------------------------------------------------------
// Seeds and words.

/// Every target, with its seeds: valid inputs built here and the files of `tests/data` and
/// `shared` (`../shared` from the project's root; skipped where absent), read in place.
pub fn targets() -> Vec<Target> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/data");
    let games = game_records(root);
    vec![
        Target { name: "game-record", seeds: games.clone(), words: game_words(), check: check_game_record },
        Target { name: "match-record", seeds: match_records(root), words: match_words(), check: check_match_record },
        Target { name: "deck", seeds: decks(&shared), words: json_words(DECK_KEYS), check: check_deck },
        Target {
            name: "card-labels",
            seeds: card_labels(&shared),
            words: json_words(CARD_LABEL_KEYS),
            check: check_card_labels,
        },
        Target {
            name: "symbol-labels",
            seeds: symbol_labels(&shared),
            words: json_words(SYMBOL_LABEL_KEYS),
            check: check_symbol_labels,
        },
        Target {
            name: "deck-profile",
            seeds: deck_profiles(),
            words: json_words(DECK_PROFILE_KEYS),
            check: check_deck_profile,
        },
        Target {
            name: "back-profile",
            seeds: back_profiles(),
            words: json_words(BACK_PROFILE_KEYS),
            check: check_back_profile,
        },
        Target {
            name: "symbol-profile",
            seeds: symbol_profiles(),
            words: json_words(SYMBOL_PROFILE_KEYS),
            check: check_symbol_profile,
        },
        Target { name: "layout", seeds: layouts(), words: layout_words(), check: check_layout },
        Target { name: "journal", seeds: journals(&games), words: json_words(JOURNAL_KEYS), check: check_journal },
    ]
}

/// The files directly in `dir` whose names end in `ext`, sorted (none when `dir` is absent).
fn files(dir: &Path, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.to_string_lossy().ends_with(ext)).collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn game_records(root: &Path) -> Vec<Vec<u8>> {
    let mut seeds = files(&root.join("tests/data/omphala"), ".txt");
    seeds.extend(files(&root.join("tests/data/omphala/games"), ".txt"));
    let options = [
        RuleOptions::default(),
        RuleOptions { ace_power: AcePower::Fourteen, failed_attacker_discarded: true, tie_break: TieBreak::TotalPower },
    ];
    for (k, players) in (2..=6).enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(k as u64);
        let how = RecordOptions { max_turns: Some(12), illegal: 2 };
        if let Ok(game) = play_recorded(&mut rng, players, options[k % 2], &how) {
            seeds.push(game.record.to_string().into_bytes());
        }
    }
    seeds
}

fn game_words() -> Vec<String> {
    let mut words: Vec<String> = [
        "options",
        "seat",
        "first",
        "agree",
        "end",
        "front",
        "back",
        "draw",
        "drew",
        "attack",
        "steal",
        "shield",
        "enhance",
        "reset",
        "discard",
        "revealed",
        "ace=1",
        "ace=14",
        "failed-attacker=stays",
        "failed-attacker=discarded",
        "tie-break=battle-when-equal-entities",
        "tie-break=total-power",
        "?",
        "#",
        "Alice",
        "Bob",
        "Carol",
        "Dave",
        "Erin",
        "Frank",
        "Grace",
        "10",
        "T",
        "1",
        "2",
        "7",
        "8",
        "9",
        "0",
    ]
    .map(String::from)
    .to_vec();
    for rank in ["A", "2", "5", "9", "10", "T", "J", "Q", "K", "a", "t"] {
        for suit in ["C", "D", "H", "S", "s", "\u{2663}", "\u{2666}", "\u{2665}", "\u{2660}", "?", "X"] {
            words.push(format!("{rank}{suit}"));
        }
    }
    words
}

fn match_records(root: &Path) -> Vec<Vec<u8>> {
    let mut seeds = files(&root.join("tests/data/minigame"), ".txt");
    seeds.push(
        b"deck plane-2\nplayers A B\noption penalty 2\noption window 300\noption places on\n\
          game well\ncentre 1\npile A 2 3\npile B 4 5\nclaim 1.5 A x\nend\n"
            .to_vec(),
    );
    seeds.push(b"deck cipher\nplayers Ann Ben\ngame hot-potato\nround 1 2\nclaim 0.250 Ann Key > Ben\nend\n".to_vec());
    seeds
}

fn match_words() -> Vec<String> {
    [
        "deck",
        "cipher",
        "plane-2",
        "plane-3",
        "plane-4",
        "plane-7",
        "plane-16",
        "plane-6",
        "Cipher",
        "players",
        "option",
        "penalty",
        "window",
        "places",
        "on",
        "off",
        "game",
        "tower",
        "well",
        "hot-potato",
        "poisoned-gift",
        "pile",
        "draw",
        "centre",
        "center",
        "round",
        "claim",
        "seen",
        "end",
        "-",
        ">",
        "#",
        "Alice",
        "Bob",
        "Carol",
        "alice",
        "A",
        "B",
        "Key",
        "Nonce",
        "Salt",
        "Lightning",
        "1.000",
        "0.5",
        "12.345",
        "1",
        "2",
        "3",
        "55",
        "57",
        "58",
        "0",
    ]
    .map(String::from)
    .to_vec()
}

const JSON_WORDS: &[&str] =
    &["{", "}", "[", "]", "\"", ":", ",", "null", "true", "false", "0", "-1", "1e999", "\"\"", "[]", "{}", "\"a\""];
const DECK_KEYS: &[&str] = &["\"name\"", "\"symbols\"", "\"synonyms\"", "\"cards\"", "\"id\"", "\"Anchor\""];
const CARD_LABEL_KEYS: &[&str] = &[
    "\"format\"",
    "\"card-labels/1\"",
    "\"note\"",
    "\"ranks\"",
    "\"images\"",
    "\"file\"",
    "\"face_up\"",
    "\"optional\"",
    "\"face_down\"",
    "\"AS\"",
    "\"10H\"",
    "\"J?\"",
    "\"X?\"",
    "\"?\"",
    "\"A\"",
    "\"K\"",
];
const SYMBOL_LABEL_KEYS: &[&str] =
    &["\"format\"", "\"symbol-card-labels/1\"", "\"deck\"", "\"images\"", "\"file\"", "\"cards\"", "\"07.jpg\""];
const DECK_PROFILE_KEYS: &[&str] = &[
    "\"format\"",
    "\"card-referee-deck/2\"",
    "\"networks\"",
    "\"corners\"",
    "\"loose\"",
    "\"card\"",
    "\"embedding\"",
    "\"QH\"",
    "\"10S\"",
];
const BACK_PROFILE_KEYS: &[&str] =
    &["\"format\"", "\"card-referee-back/1\"", "\"photos\"", "\"colour\"", "\"texture\"", "\"layout\"", "0.1", "1.0"];
const SYMBOL_PROFILE_KEYS: &[&str] =
    &["\"format\"", "\"symbol-profile/1\"", "\"deck\"", "\"symbols\"", "\"name\"", "\"exemplars\"", "0.25"];
const JOURNAL_KEYS: &[&str] = &[
    "\"kind\"",
    "\"start\"",
    "\"commit\"",
    "\"said\"",
    "\"frame\"",
    "\"names\"",
    "\"options\"",
    "\"record\"",
    "\"ms\"",
    "\"thumbnail\"",
    "\"event\"",
    "\"Alice draw\"",
    "\"first Alice\"",
    "\"agree end\"",
    "\"seat Alice front ? ? back 2C 3C 4C 5C 6C\"",
    "\"options ace=14\"",
];

fn json_words(keys: &[&str]) -> Vec<String> {
    JSON_WORDS.iter().chain(keys).map(|w| w.to_string()).collect()
}

fn decks(shared: &Path) -> Vec<Vec<u8>> {
    let mut seeds = files(&shared.join("symbols/retail-deck"), ".json");
    for order in [2, 3, 4] {
        if let Ok(deck) = projective_plane(order) {
            seeds.push(deck.to_json().into_bytes());
        }
    }
    seeds.push(cipher_deck().to_json().into_bytes());
    seeds.push(
        br#"{"name": "three", "symbols": ["a", "b", "c"], "synonyms": {"a": ["alpha", "A"]},
"cards": [{"id": 1, "name": "one", "symbols": ["a", "b"]}, {"id": 2, "symbols": ["b", "c"]},
{"id": 3, "symbols": ["c", "a"]}]}
"#
        .to_vec(),
    );
    seeds
}

fn card_labels(shared: &Path) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = ["bidly-deals", "bidly-deck", "edje-photos"]
        .iter()
        .flat_map(|set| files(&shared.join("cards").join(set), "labels.json"))
        .collect();
    seeds.push(
        br#"{"format": "card-labels/1", "note": "two images", "ranks": ["A", "10", "K"],
 "images": [{"file": "deal1.jpg", "face_up": ["3S", "10H", "J?"], "optional": ["10?"], "face_down": 8},
            {"file": "deal2.jpg", "face_up": [], "face_down": null}]}
"#
        .to_vec(),
    );
    seeds
}

fn symbol_labels(shared: &Path) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> =
        ["scan", "webcam-a"].iter().flat_map(|set| files(&shared.join("symbols").join(set), "labels.json")).collect();
    seeds.push(
        br#"{"format": "symbol-card-labels/1", "deck": "../retail-deck/deck.json",
 "images": [{"file": "07.jpg", "cards": [7]}, {"file": "pair.jpg", "cards": [1, 55]}]}
"#
        .to_vec(),
    );
    seeds
}

/// Each value a little different, so that numbers vary.
fn values(len: usize, k: usize) -> Vec<f32> {
    (0..len).map(|i| ((i * 7 + k * 3) % 11) as f32 / 10.0 - 0.5).collect()
}

fn deck_profiles() -> Vec<Vec<u8>> {
    let mut profile = DeckProfile::new();
    for (k, card) in ["QH", "10S", "AD", "2C"].iter().enumerate() {
        let card = card.parse().expect("a card");
        profile.corners.push(EnrolledPatch { card, embedding: values(CORNER_LEN, k) });
        profile.loose.push(EnrolledPatch { card, embedding: values(LOOSE_LEN, k) });
    }
    let empty = DeckProfile::new();
    vec![
        serde_json::to_vec(&profile).expect("json"),
        serde_json::to_vec_pretty(&profile).expect("json"),
        serde_json::to_vec(&empty).expect("json"),
    ]
}

fn back_profiles() -> Vec<Vec<u8>> {
    let histogram = |len: usize| -> Vec<f32> { (0..len).map(|i| if i % 2 == 0 { 2.0 } else { 0.0 }).collect() };
    let normalised = |v: Vec<f32>| -> Vec<f32> {
        let sum: f32 = v.iter().sum();
        v.iter().map(|x| x / sum).collect()
    };
    let profile = BackProfile {
        format: BACK_FORMAT.to_string(),
        photos: 3,
        descriptor: BackDescriptor {
            colour: normalised(histogram(COLOUR_BINS)),
            texture: normalised(histogram(TEXTURE_BINS)),
            layout: values((LAYOUT_W * LAYOUT_H) as usize, 1).iter().map(|v| v.abs()).collect(),
        },
    };
    vec![serde_json::to_vec(&profile).expect("json"), serde_json::to_vec_pretty(&profile).expect("json")]
}

fn symbol_profiles() -> Vec<Vec<u8>> {
    let profile = SymbolProfile {
        format: SYMBOL_FORMAT.to_string(),
        deck: "Cipher".to_string(),
        symbols: vec![
            SymbolAppearance { name: "Key".to_string(), exemplars: vec![values(SYMBOL_LEN, 0), values(SYMBOL_LEN, 1)] },
            SymbolAppearance { name: "Salt".to_string(), exemplars: vec![] },
        ],
    };
    vec![serde_json::to_vec(&profile).expect("json"), serde_json::to_vec_pretty(&profile).expect("json")]
}

fn layouts() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = (2..=6).map(|n| TableLayout::standard(n).to_toml().into_bytes()).collect();
    let mut tilted = TableLayout::standard(3);
    tilted.image_to_table = [[0.9, 0.1, -300.0], [-0.05, 1.2, -200.0], [0.0001, 0.0002, 1.0]];
    seeds.push(tilted.to_toml().into_bytes());
    seeds
}

fn layout_words() -> Vec<String> {
    [
        "[[seats]]",
        "[deck]",
        "[discard]",
        "[seats]",
        "[seats.front]",
        "image_to_table",
        "seats",
        "front",
        "back",
        "first",
        "step",
        "angle",
        "x",
        "y",
        "centre",
        "radius",
        "=",
        "{",
        "}",
        "[",
        "]",
        "[]",
        "{}",
        ",",
        "#",
        "\"",
        "'",
        "inf",
        "nan",
        "-inf",
        "1e308",
        "true",
        "0.0",
        "72.0",
        "\"\"\"",
        "'''",
        "1979-05-27",
    ]
    .map(String::from)
    .to_vec()
}

fn journals(games: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    // The built-in records of played games (the last ones) as journals committed a few lines at
    // a time.
    for game in games.iter().rev().take(3) {
        let Ok(record) = notation::parse(&String::from_utf8_lossy(game)) else { continue };
        let names = record.names();
        let lines: Vec<String> =
            Record { lines: record.lines.iter().filter(|l| l.comment.is_none()).cloned().collect() }
                .to_string()
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with("options"))
                .map(String::from)
                .collect();
        let mut text = String::new();
        let mut push = |entry: &journal::Entry| {
            text.push_str(&serde_json::to_string(entry).expect("json"));
            text.push('\n');
        };
        push(&journal::Entry::Start { names, options: journal::options_line(record.options()) });
        for (k, chunk) in lines.chunks(3).enumerate() {
            let frame = 10 * k as u64;
            let thumbnail = (k % 2 == 0).then(|| format!("{frame}.jpg"));
            push(&journal::Entry::Commit { record: chunk.to_vec(), frame, ms: 333 * k as u64, thumbnail });
            push(&journal::Entry::Said {
                event: serde_json::json!({"kind": "note", "text": "seen \u{2026}", "frame": frame}),
            });
            push(&journal::Entry::Frame { frame: frame + 5 });
        }
        // A line cut short by a crash.
        text.push_str("{\"kind\":\"com");
        seeds.push(text.into_bytes());
    }
    seeds
}
