//! `card-referee referee omphala`: the live referee, headless. Settled views of the table come
//! from a frame source (detections placed in the layout's rows and settled over frames) or from
//! a file of views; every ruling is printed as a JSON line (`docs/referee-events.md`), appended
//! to the journal, and the inferred game record can be written for `omphala replay`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use super::{InputArgs, bad_input};
use crate::capture::{self, SourceSpec};
use crate::live::OmphalaSession;
use crate::referee::journal::{self, Entry, Journal};
use crate::referee::omphala::{Moment, OmphalaReferee, RefereeConfig, RefereeEvent};
use crate::room::Room;
use crate::rules::omphala::RuleOptions;
use crate::rules::omphala::notation::Record;
use crate::symbols::games::GameKind;
use crate::table::{TableLayout, TableView, TableWatch};
use crate::vision::cards::CardDetector;

#[derive(clap::Subcommand, Debug)]
pub enum RefereeCommand {
    /// Referee an Omphala game: events as JSON lines, the standings at the end.
    Omphala(OmphalaArgs),
    /// Referee the demo table as the window does: its rendered games, each refereed as it plays,
    /// questions answered from its script; what is said as JSON lines.
    Demo(DemoArgs),
    /// Referee The Tower: claims judged on the piles the camera sees; events as JSON lines.
    Tower(super::referee_minigame::MiniGameArgs),
    /// Referee The Well.
    Well(super::referee_minigame::MiniGameArgs),
    /// Referee Hot Potato.
    HotPotato(super::referee_minigame::MiniGameArgs),
    /// Referee The Poisoned Gift.
    PoisonedGift(super::referee_minigame::MiniGameArgs),
}

#[derive(clap::Args, Debug)]
pub struct OmphalaArgs {
    /// Settled views as JSON lines ({"frame": N, "ms": T, "view": {...}}) instead of frames
    /// from --source.
    #[arg(long, value_name = "FILE")]
    pub views: Option<PathBuf>,
    /// Where each seat's rows lie (calibration/*.toml); default: the standard layout.
    #[arg(long, value_name = "FILE")]
    pub layout: Option<PathBuf>,
    /// Players at the table, 2 to 6 (default: the names given, else 2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=6))]
    pub players: Option<u8>,
    /// The players' names in seat order, comma-separated (default P1, P2, …).
    #[arg(long, value_delimiter = ',')]
    pub names: Vec<String>,
    /// Append every ruling here; a journal that exists is resumed.
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// The operator's answers to `confirm` questions, one record line per question, in order.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Answer `confirm` questions as an operator who saw the game would: with the candidate this
    /// game record goes on with (to evaluate the referee on rendered games, whose script is known).
    #[arg(long, value_name = "RECORD")]
    pub oracle: Option<PathBuf>,
    /// Write the inferred game record here (docs/omphala-notation.md) at the end.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Keep the finished game in this scorebook (`card-referee scorebook`; the window keeps
    /// its games in scorebook.sqlite in the app's data folder), a file or a PostgreSQL server
    /// (postgres://USER@HOST/DATABASE). A game written again, after a restart with the same
    /// journal, is kept once.
    #[arg(long, value_name = "FILE|URL")]
    pub scorebook: Option<PathBuf>,
    /// Serve the page for the room here while the game is refereed: the standings, whose turn,
    /// the last rulings and tonight's table from --scorebook (127.0.0.1:8080; port 0 picks a
    /// free port, said on standard error). Read-only.
    #[arg(long, value_name = "ADDR")]
    pub serve: Option<String>,
    /// Write every settled view given to the referee here, in the --views format (to replay a
    /// session without its frames).
    #[arg(long, value_name = "FILE")]
    pub save_views: Option<PathBuf>,
    /// The players ended the game by agreement when the source ends (a video of a game stopped
    /// before anyone ran out of moves).
    #[arg(long)]
    pub agree_end: bool,
    /// With --views: give the views at this many times the speed they were recorded (0: at once).
    #[arg(long, default_value_t = 0.0)]
    pub speed: f64,
    /// Who plays first, when the players drew lots before the deal (default: the first moves tell).
    #[arg(long, value_name = "NAME")]
    pub first: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub readers: super::ReaderArgs,
}

#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Seconds of the demo to referee (its loop of three games lasts some minutes).
    #[arg(long, default_value_t = 120.0)]
    pub seconds: f64,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub readers: super::ReaderArgs,
}

impl RefereeCommand {
    /// The frame source and card readers this command was given.
    pub(super) fn frame_options(&self) -> (Option<&InputArgs>, Option<&super::ReaderArgs>) {
        match self {
            RefereeCommand::Omphala(args) => (Some(&args.input), Some(&args.readers)),
            RefereeCommand::Demo(args) => (Some(&args.input), Some(&args.readers)),
            RefereeCommand::Tower(args)
            | RefereeCommand::Well(args)
            | RefereeCommand::HotPotato(args)
            | RefereeCommand::PoisonedGift(args) => (Some(&args.input), None),
        }
    }
}

pub fn run(command: RefereeCommand, input: &InputArgs) -> ExitCode {
    match command {
        RefereeCommand::Demo(args) => demo(&args, input),
        RefereeCommand::Omphala(args) => omphala(&args, input),
        RefereeCommand::Tower(args) => super::referee_minigame::run(GameKind::Tower, &args, input),
        RefereeCommand::Well(args) => super::referee_minigame::run(GameKind::Well, &args, input),
        RefereeCommand::HotPotato(args) => super::referee_minigame::run(GameKind::HotPotato, &args, input),
        RefereeCommand::PoisonedGift(args) => super::referee_minigame::run(GameKind::PoisonedGift, &args, input),
    }
}

/// One settled view with when it settled.
#[derive(Deserialize)]
struct TimedView {
    frame: u64,
    ms: u64,
    view: TableView,
}

/// A game opened from the arguments: the referee (new, or resumed from the journal), the
/// journal, the answers given ahead and the script to answer from.
struct Opened {
    referee: OmphalaReferee,
    journal: Option<Journal>,
    /// The last frame a resumed game had ruled on, and the table layout its journal holds.
    resume_after: Option<u64>,
    journalled_layout: Option<TableLayout>,
    answers: Vec<String>,
    oracle: Option<String>,
}

fn omphala(args: &OmphalaArgs, input: &InputArgs) -> ExitCode {
    let layout = match &args.layout {
        Some(path) => match TableLayout::load(path) {
            Ok(layout) => Some(layout),
            Err(e) => return bad_input(e),
        },
        None => None,
    };
    let opened = match open_game(args, layout.as_ref()) {
        Ok(opened) => opened,
        Err(message) => return bad_input(message),
    };
    // A game resumed without a layout file goes on with the layout its journal kept (fitted to
    // the deal, which the table no longer shows).
    let layout = layout.or_else(|| opened.journalled_layout.clone());
    let views_out = match &args.save_views {
        Some(path) => match std::fs::File::create(path) {
            Ok(file) => Some(file),
            Err(e) => return bad_input(format!("{}: cannot write: {e}", path.display())),
        },
        None => None,
    };
    let room = match &args.serve {
        Some(address) => match Room::serve(address, args.scorebook.clone()) {
            Ok(room) => {
                eprintln!("# the page for the room: {}", room.url());
                Some(room)
            }
            Err(e) => return bad_input(e),
        },
        None => None,
    };
    let room = room.as_ref();
    let session = match &args.views {
        Some(path) => {
            let watch = match CardDetector::new() {
                Ok(detector) => TableWatch::new(detector, layout, opened.referee.names().len(), 30.0, false),
                Err(e) => return bad_input(format!("the card detector did not start: {e}")),
            };
            let mut session = session_of(opened, watch, views_out);
            run_views(&mut session, path, args.speed, room).map(|()| session)
        }
        None => match run_source(opened, views_out, input, layout, room) {
            Ok(session) => Ok(session),
            Err(code) => return code,
        },
    };
    let mut session = match session {
        Ok(session) => session,
        Err(message) => return bad_input(message),
    };
    if args.agree_end && !session.referee().state().is_over() {
        session.end_by_agreement();
    }
    show_in_room(room, &session);
    if let Some(e) = session.journal_error() {
        return bad_input(e);
    }
    finish(&session, args)
}

/// The one Omphala session the window also runs, printing what is said as JSON lines.
fn session_of(opened: Opened, watch: TableWatch, views_out: Option<std::fs::File>) -> OmphalaSession {
    let mut session =
        OmphalaSession::with_parts(opened.referee, watch).with_answers(opened.answers).echoing(print_event);
    if let Some(journal) = opened.journal {
        session = session.with_journal(journal, opened.journalled_layout, opened.resume_after);
    }
    if let Some(record) = &opened.oracle {
        session = session.answered_from(record);
    }
    if let Some(out) = views_out {
        session = session.saving_views(out);
    }
    session
}

/// The table as it stands, on the room's page if one is served.
fn show_in_room(room: Option<&Room>, session: &OmphalaSession) {
    if let Some(room) = room {
        let referee = session.referee();
        room.publish(crate::live::room::of_omphala(referee.names(), Some(referee.state()), session.log()));
    }
}

fn print_event(event: &RefereeEvent) {
    if let Ok(value) = serde_json::to_value(event) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    }
}

/// Frames from the source: detections placed in the layout's rows and settled over frames
/// (`table::watch`), each settled view ruled on. Without a layout the standard one is fitted to
/// the deal once a deal settles.
fn run_source(
    opened: Opened,
    views_out: Option<std::fs::File>,
    input: &InputArgs,
    layout: Option<TableLayout>,
    room: Option<&Room>,
) -> Result<OmphalaSession, ExitCode> {
    let spec = input.source.clone().unwrap_or(SourceSpec::Demo);
    let mut source = capture::open(&spec, &input.capture_options().unwrap_or_default()).map_err(bad_input)?;
    let detector = super::vision_cards::detector(None, input.card_profile.as_deref(), None)?;
    let fps = source.nominal_fps().unwrap_or(30.0);
    let players = opened.referee.names().len();
    if layout.is_none() && !opened.referee.record().is_empty() {
        eprintln!(
            "# the journal keeps no table layout and its game is past the deal: give --layout, or nothing more is \
             ruled on"
        );
    } else if layout.is_none() {
        eprintln!(
            "# no --layout: the standard layout of {players} seats is fitted once a deal (2 face down and 5 face up \
             each) settles; nothing is ruled on before"
        );
    }
    // A folder of photos shows each still table once: each photo counts as settled on its own.
    let stills = matches!(spec, SourceSpec::Folder(_));
    let watch = TableWatch::new(detector, layout, players, fps, stills);
    let mut session = session_of(opened, watch, views_out);
    while let Some(frame) = source.next_frame().map_err(bad_input)? {
        session.push(&frame).map_err(|e| bad_input(format!("frame {}: {e}", frame.index)))?;
        show_in_room(room, &session);
        if let Some(e) = session.journal_error() {
            return Err(bad_input(e));
        }
    }
    session.finish();
    Ok(session)
}

fn open_game(args: &OmphalaArgs, layout: Option<&TableLayout>) -> Result<Opened, String> {
    let layout_players = layout.map(|l| l.seats.len());
    let players = args.players.map(usize::from).or(layout_players).unwrap_or(if args.names.is_empty() {
        2
    } else {
        args.names.len()
    });
    let mut names = args.names.clone();
    // A layout saved with an earlier game at this table remembers who sits where.
    if names.is_empty()
        && let Some(layout) = layout.filter(|l| l.names.len() == players)
    {
        names = layout.names.clone();
    }
    if names.is_empty() {
        names = (1..=players).map(|k| format!("P{k}")).collect();
    }
    if names.len() != players {
        return Err(format!("--names gives {} names for {players} players", names.len()));
    }
    let answers: Vec<String> = match &args.answers {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?
            .lines()
            .map(str::to_string)
            .filter(|l| !l.trim().is_empty())
            .collect(),
        None => Vec::new(),
    };
    let oracle = match &args.oracle {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?),
        None => None,
    };
    let options = RuleOptions::default();
    let first = match &args.first {
        Some(name) => Some(
            names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| format!("--first {name}: not one of the names ({})", names.join(", ")))?,
        ),
        None => None,
    };
    let config = RefereeConfig { first, ..RefereeConfig::default() };
    let (referee, journal, resume_after, journalled_layout, answered) = match &args.journal {
        Some(path) if path.exists() && std::fs::metadata(path).is_ok_and(|m| m.len() > 0) => {
            let resumed = journal::read(path)?;
            let referee = OmphalaReferee::resume(resumed.names, resumed.options, config, &resumed.inputs)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            (referee, Some(Journal::open(path)?), resumed.frame, resumed.layout, resumed.answered)
        }
        Some(path) => {
            let mut journal = Journal::open(path)?;
            journal.append(&Entry::Start { names: names.clone(), options: journal::options_line(options) })?;
            (OmphalaReferee::new(names, options, config), Some(journal), None, None, 0)
        }
        None => (OmphalaReferee::new(names, options, config), None, None, None, 0),
    };
    // A resumed game has used the answers to the questions asked before its last commit.
    let answers: Vec<String> = answers.into_iter().skip(answered).collect();
    Ok(Opened { referee, journal, resume_after, journalled_layout, answers, oracle })
}

fn run_views(session: &mut OmphalaSession, path: &Path, speed: f64, room: Option<&Room>) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let started = std::time::Instant::now();
    for (k, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: line {}: {e}", path.display(), k + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let timed: TimedView =
            serde_json::from_str(&line).map_err(|e| format!("{}: line {}: {e}", path.display(), k + 1))?;
        if speed > 0.0 {
            let due = std::time::Duration::from_secs_f64(timed.ms as f64 / 1000.0 / speed);
            std::thread::sleep(due.saturating_sub(started.elapsed()));
        }
        session.observe_view(&timed.view, Moment { frame: timed.frame, ms: timed.ms });
        show_in_room(room, session);
        if let Some(e) = session.journal_error() {
            return Err(e.to_string());
        }
    }
    Ok(())
}

fn finish(session: &OmphalaSession, args: &OmphalaArgs) -> ExitCode {
    let state = session.referee().state();
    if let Some(path) = &args.record {
        let record = Record::from_inputs(state.options, session.referee().record());
        if let Err(e) = std::fs::write(path, record.to_string()) {
            return bad_input(format!("{}: cannot write the record: {e}", path.display()));
        }
    }
    match state.standings() {
        Some(standings) => {
            for line in crate::rules::omphala::replay::standings_lines(state, standings) {
                eprintln!("{line}");
            }
        }
        None => eprintln!("{}", crate::rules::omphala::replay::progress_line(state)),
    }
    match (&args.scorebook, state.standings()) {
        (Some(book), Some(_)) => keep_in_book(session, args, book),
        _ => ExitCode::SUCCESS,
    }
}

/// Writes the finished game into the scorebook `path`, saying where; a book that cannot be
/// written is one line, and the game stays in the journal to be written by a later run.
fn keep_in_book(session: &OmphalaSession, args: &OmphalaArgs, path: &Path) -> ExitCode {
    let state = session.referee().state();
    let text = Record::from_inputs(state.options, session.referee().record()).to_string();
    let written =
        crate::scorebook::Scorebook::open(path).and_then(|mut book| book.add_refereed(&text, args.journal.as_deref()));
    match written {
        Ok((id, new)) => {
            let how = if new { "kept" } else { "already kept" };
            eprintln!("the game is {how} in the scorebook {} as game {id}", crate::scorebook::store::shown(path));
            ExitCode::SUCCESS
        }
        Err(e) => {
            let kept = args.journal.as_ref().map_or(String::new(), |j| {
                format!("; the game is in the journal {}: run again with it to write it", j.display())
            });
            bad_input(format!("the scorebook: {e}{kept}"))
        }
    }
}

/// `referee demo`: the window's live referee on the demo table, headless.
fn demo(args: &DemoArgs, input: &InputArgs) -> ExitCode {
    use crate::live::{LiveGame, LiveReferee};
    let options = input.capture_options().unwrap_or_default();
    let mut source = match capture::open(&SourceSpec::Demo, &options) {
        Ok(source) => source,
        Err(e) => return bad_input(e),
    };
    let mut live = LiveReferee::start(LiveGame::Demo { width: options.width as i32, height: options.height as i32 });
    let mut said = 0;
    let mut game = None;
    let frames = (args.seconds * crate::render::demo::FPS).ceil() as u64;
    for _ in 0..frames {
        let frame = match source.next_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(e) => return bad_input(e),
        };
        live.push(&frame);
        if live.demo_game() != game {
            if let Some(finished) = live.finished.as_ref().filter(|_| game.is_some()) {
                println!("{}", serde_json::json!({"event": "game_over", "standings": finished.standings}));
            }
            game = live.demo_game();
            eprintln!("# frame {}: {}", frame.index, live.title);
            said = 0;
        }
        let log = live.session().map_or(&[][..], |s| s.log());
        for entry in &log[said.min(log.len())..] {
            let mut value = serde_json::to_value(&entry.event).unwrap_or_default();
            if let Some(answer) = &entry.answered_by_script {
                value["answered_by_script"] = serde_json::Value::String(answer.clone());
            }
            println!("{value}");
        }
        said = log.len();
    }
    if let Some(error) = &live.error {
        eprintln!("error: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
