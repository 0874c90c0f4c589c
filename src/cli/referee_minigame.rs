//! `card-referee referee tower|well|hot-potato|poisoned-gift`: the live mini-game referee,
//! headless. Frames from the source are read for round cards, the piles learnt from the deal,
//! and every claim (`TIME SEAT SYMBOL [> TARGET]`, from a file or standard input) judged against
//! the view that stood when it was made. Events are printed as JSON lines
//! (`docs/minigame-referee.md`) and appended to the journal; the match table ends the output.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;

use super::{InputArgs, bad_input};
use crate::capture::{self, SourceSpec};
use crate::referee::journal::Journal;
use crate::referee::minigame::events::read_journal;
use crate::referee::minigame::{Event, MiniGameOptions, MiniGameReferee, SeatClaim};
use crate::symbols::games::{GameKind, Match};

#[derive(clap::Args, Debug)]
pub struct MiniGameArgs {
    /// The symbol deck: cipher (built in), plane-N, or a deck.json.
    #[arg(long, default_value = "cipher")]
    pub deck: String,
    /// The deck's learnt appearance (`enroll symbols`); the Cipher deck has one built in.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Players at the table, 2 to 6 (default: as many as --names, else 2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=6))]
    pub players: Option<u8>,
    /// The players' names in seat order, comma-separated (default P1, P2, …). Seat 1 sits
    /// nearest the camera's bottom edge; the others follow clockwise as the camera sees them.
    #[arg(long, value_delimiter = ',')]
    pub names: Vec<String>,
    /// Claims, one a line: TIME SEAT SYMBOL [> TARGET] (seconds from the source's start; a
    /// seat by number from 1 or by name); `-` reads them from standard input as they come.
    #[arg(long, value_name = "FILE|-")]
    pub claims: Option<String>,
    /// Append every event here; a journal that exists is resumed.
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Keep the finished game in this scorebook (a file, or postgres://USER@HOST/DATABASE),
    /// with its journal (--journal is needed: a game is kept once by its journal).
    #[arg(long, value_name = "FILE|URL", requires = "journal")]
    pub scorebook: Option<PathBuf>,
    /// Claims this many milliseconds after a right claim are too late.
    #[arg(long, default_value_t = 500)]
    pub window: u64,
    /// Cards counted against a player for each wrong call.
    #[arg(long, default_value_t = 0)]
    pub penalty: u32,
    /// Read a video file no faster than it was filmed, as a camera would give it (files are
    /// otherwise read as fast as they decode).
    #[arg(long)]
    pub realtime: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(kind: GameKind, args: &MiniGameArgs, input: &InputArgs) -> ExitCode {
    match referee(kind, args, input) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => bad_input(message),
    }
}

fn names(args: &MiniGameArgs) -> Result<Vec<String>, String> {
    let count = args.players.map(usize::from).unwrap_or(args.names.len().max(2));
    if !args.names.is_empty() && args.names.len() != count {
        return Err(format!("--names gives {} names for {count} players", args.names.len()));
    }
    Ok((0..count).map(|s| args.names.get(s).cloned().unwrap_or_else(|| format!("P{}", s + 1))).collect())
}

/// Where the events go: standard output and the journal.
struct Out {
    journal: Option<Journal>,
}

impl Out {
    /// Journal first: whatever was said is in the journal, however the referee is stopped.
    fn say(&mut self, events: &[Event]) -> Result<(), String> {
        for event in events {
            if let Some(journal) = &mut self.journal {
                journal.append_json(event)?;
            }
            if !matches!(event, Event::Frame { .. }) {
                println!("{}", event.to_json());
            }
        }
        Ok(())
    }
}

fn referee(kind: GameKind, args: &MiniGameArgs, input: &InputArgs) -> Result<(), String> {
    let names = names(args)?;
    let recognizer =
        super::vision_symbols::recognizer(&args.deck, args.profile.as_deref()).map_err(|e| format!("{e:#}"))?;
    let options = MiniGameOptions { window_ms: args.window, penalty: args.penalty, ..MiniGameOptions::default() };
    let mut referee = MiniGameReferee::new(kind, recognizer.deck().clone(), names.clone(), options);
    let mut out = Out { journal: None };
    if let Some(path) = &args.journal {
        let resumed = path.exists() && std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        if resumed {
            for event in read_journal(path)? {
                check_same_game(&event, &referee, path)?;
                referee.apply(&event);
            }
            eprintln!("# resumed from {} after frame {:?}", path.display(), referee.last_frame());
        }
        out.journal = Some(Journal::open(path)?);
        if !resumed {
            out.say(&[referee.start_event()])?;
        }
    }
    let claims = claim_feed(args.claims.as_deref(), &names)?;
    let spec = input.source.clone().unwrap_or(SourceSpec::Demo);
    let mut source = capture::open(&spec, &input.capture_options().unwrap_or_default()).map_err(|e| e.to_string())?;
    let fps = source.nominal_fps().unwrap_or(30.0);
    let resume_after = referee.last_frame();
    let mut last_ms = 0;
    let mut pace = Pace::default();
    while let Some(frame) = source.next_frame().map_err(|e| e.to_string())? {
        let ms = frame.time.as_millis() as u64;
        last_ms = ms;
        let read = |frame: &capture::Frame| {
            recognizer.round_cards(&frame.image).map_err(|e| format!("frame {}: {e}", frame.index))
        };
        if let Some(done) = resume_after
            && frame.index <= done
        {
            // Seconds before the resume point rebuild the views the next claims need.
            if frame.index as f64 + 3.0 * fps > done as f64 {
                referee.warm(frame.index, ms, &read(&frame)?);
            }
            continue;
        }
        if args.realtime {
            pace.wait(frame.time);
        }
        let cards = read(&frame)?;
        for claim in claims.try_iter() {
            referee.claim(claim?);
        }
        let mut events = referee.observe(frame.index, ms, &cards);
        if !events.is_empty() || frame.index % (fps.round() as u64).max(1) == 0 {
            events.push(referee.frame_done(frame.index));
        }
        out.say(&events)?;
    }
    for claim in claims.try_iter() {
        referee.claim(claim?);
    }
    let events = referee.finish(last_ms);
    out.say(&events)?;
    let mut series = Match::new(names);
    series.add(referee.result());
    for line in series.table().lines() {
        println!("# {line}");
    }
    match (&args.scorebook, &args.journal) {
        (Some(book), Some(journal)) if referee.is_over() => keep_in_book(&referee, book, journal),
        _ => Ok(()),
    }
}

/// Writes the finished game into the scorebook at `book`, kept once by its `journal`; a book
/// that cannot be written is one line, and the game stays in the journal.
fn keep_in_book(referee: &MiniGameReferee, book: &Path, journal: &Path) -> Result<(), String> {
    use crate::scorebook::{Scorebook, store};
    let (id, new) = Scorebook::open(book)
        .and_then(|mut book| book.add_mini_game(&referee.result(), referee.names(), Some(journal)))
        .map_err(|e| format!("the scorebook: {e}; the game is in the journal {}", journal.display()))?;
    let how = if new { "kept" } else { "already kept" };
    eprintln!("the game is {how} in the scorebook {} as game {id}", store::shown(book));
    Ok(())
}

/// Holds frames back to the pace they were filmed at, from the first frame ruled on.
#[derive(Default)]
struct Pace {
    start: Option<(std::time::Instant, std::time::Duration)>,
}

impl Pace {
    fn wait(&mut self, time: std::time::Duration) {
        let (clock, first) = *self.start.get_or_insert((std::time::Instant::now(), time));
        let due = clock + time.saturating_sub(first);
        std::thread::sleep(due.saturating_duration_since(std::time::Instant::now()));
    }
}

fn check_same_game(event: &Event, referee: &MiniGameReferee, path: &Path) -> Result<(), String> {
    if let Event::Start { game, players } = event
        && (game != referee.kind().code() || players != referee.names())
    {
        return Err(format!(
            "{}: the journal is of {game} with {}; this is {} with {}",
            path.display(),
            players.join(", "),
            referee.kind().code(),
            referee.names().join(", ")
        ));
    }
    Ok(())
}

/// Claims from a file (all at once) or standard input (as they come, on a reader thread).
fn claim_feed(from: Option<&str>, names: &[String]) -> Result<mpsc::Receiver<Result<SeatClaim, String>>, String> {
    let (send, receive) = mpsc::channel();
    match from {
        None => {}
        Some("-") => {
            let names = names.to_vec();
            std::thread::Builder::new()
                .name("claims-stdin".into())
                .spawn(move || {
                    for (k, line) in std::io::stdin().lock().lines().enumerate() {
                        let Ok(line) = line else { break };
                        if let Some(claim) = parse_claim(&line, &names).transpose() {
                            let claim = claim.map_err(|e| format!("standard input: line {}: {e}", k + 1));
                            if send.send(claim).is_err() {
                                break;
                            }
                        }
                    }
                })
                .map_err(|e| e.to_string())?;
        }
        Some(path) => {
            let text =
                crate::text_input::read_text(Path::new(path), 8 << 20, "a claims file").map_err(|e| e.to_string())?;
            for (k, line) in text.lines().enumerate() {
                if let Some(claim) = parse_claim(line, names).map_err(|e| format!("{path}: line {}: {e}", k + 1))? {
                    let _ = send.send(Ok(claim));
                }
            }
        }
    }
    Ok(receive)
}

/// `TIME SEAT SYMBOL [> TARGET]`; blank lines and `#` comments give `None`.
pub fn parse_claim(line: &str, names: &[String]) -> Result<Option<SeatClaim>, String> {
    let content = line.split('#').next().unwrap_or("").trim();
    if content.is_empty() {
        return Ok(None);
    }
    let mut words = content.splitn(3, char::is_whitespace);
    let (Some(time), Some(seat), Some(rest)) = (words.next(), words.next(), words.next()) else {
        return Err("a claim is TIME SEAT SYMBOL [> TARGET]".into());
    };
    let seconds: f64 =
        time.parse().map_err(|_| format!("bad time {} (seconds, e.g. 12.345)", crate::text_input::escaped(time)))?;
    if !(0.0..1e7).contains(&seconds) {
        return Err(format!("time {seconds} is out of range"));
    }
    let (called, target) = match rest.split_once(" > ") {
        Some((called, target)) => (called.trim(), Some(seat_of(target.trim(), names)?)),
        None => (rest.trim(), None),
    };
    if called.is_empty() {
        return Err("the claim calls no symbol".into());
    }
    Ok(Some(SeatClaim {
        ms: (seconds * 1000.0).round() as u64,
        seat: seat_of(seat, names)?,
        called: called.into(),
        target,
    }))
}

fn seat_of(word: &str, names: &[String]) -> Result<usize, String> {
    if let Ok(n) = word.parse::<usize>() {
        return (1..=names.len())
            .contains(&n)
            .then(|| n - 1)
            .ok_or_else(|| format!("seat {n}: seats run from 1 to {}", names.len()));
    }
    names
        .iter()
        .position(|p| p.eq_ignore_ascii_case(word))
        .ok_or_else(|| format!("{} is not a seat number or a player's name", crate::text_input::escaped(word)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_name_seats_by_number_or_name_and_errors_say_what() {
        let names = vec!["Ada".to_string(), "Ben".to_string()];
        let claim = parse_claim("12.5 2 Meet in the middle > ada", &names).unwrap().unwrap();
        assert_eq!(
            (claim.ms, claim.seat, claim.called.as_str(), claim.target),
            (12_500, 1, "Meet in the middle", Some(0))
        );
        assert_eq!(parse_claim("  # note", &names).unwrap(), None);
        assert!(parse_claim("x 1 Key", &names).unwrap_err().contains("bad time"));
        assert!(parse_claim("1.0 3 Key", &names).unwrap_err().contains("seats run from 1 to 2"));
        assert!(parse_claim("1.0 Cy Key", &names).unwrap_err().contains("not a seat"));
        assert!(parse_claim("1.0 1", &names).unwrap_err().contains("TIME SEAT SYMBOL"));
    }
}
