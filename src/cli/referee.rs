//! `card-referee referee omphala`: the live referee, headless. Settled views of the table come
//! from a frame source (detections placed in the layout's rows and settled over frames) or from
//! a file of views; every ruling is printed as a JSON line (`docs/referee-events.md`), appended
//! to the journal, and the inferred game record can be written for `omphala replay`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use super::bad_input;
use crate::referee::journal::{self, Entry, Journal};
use crate::referee::omphala::{Moment, OmphalaReferee, RefereeConfig, RefereeEvent};
use crate::rules::omphala::RuleOptions;
use crate::rules::omphala::notation::Record;
use crate::table::TableView;

#[derive(clap::Subcommand, Debug)]
pub enum RefereeCommand {
    /// Referee an Omphala game: events as JSON lines, the standings at the end.
    Omphala(OmphalaArgs),
}

#[derive(clap::Args, Debug)]
pub struct OmphalaArgs {
    /// Settled views as JSON lines ({"frame": N, "ms": T, "view": {...}}) instead of --source.
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
    /// Write the inferred game record here (docs/omphala-notation.md) at the end.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

pub fn run(command: RefereeCommand) -> ExitCode {
    match command {
        RefereeCommand::Omphala(args) => omphala(&args),
    }
}

/// One settled view with when it settled.
#[derive(Deserialize)]
struct TimedView {
    frame: u64,
    ms: u64,
    view: TableView,
}

/// Where the rulings go: standard output, the journal, the operator's answers.
struct Session {
    referee: OmphalaReferee,
    journal: Option<Journal>,
    answers: std::vec::IntoIter<String>,
    resume_after: Option<u64>,
}

fn omphala(args: &OmphalaArgs) -> ExitCode {
    let mut session = match open_session(args) {
        Ok(session) => session,
        Err(message) => return bad_input(message),
    };
    let result = match &args.views {
        Some(path) => run_views(&mut session, path),
        None => Err("give --views FILE (settled views); frames from --source need the table view".to_string()),
    };
    if let Err(message) = result {
        return bad_input(message);
    }
    finish(&session, args)
}

fn open_session(args: &OmphalaArgs) -> Result<Session, String> {
    let players = args.players.map(usize::from).unwrap_or(if args.names.is_empty() { 2 } else { args.names.len() });
    let mut names = args.names.clone();
    if names.is_empty() {
        names = (1..=players).map(|k| format!("P{k}")).collect();
    }
    if names.len() != players {
        return Err(format!("--names gives {} names for {players} players", names.len()));
    }
    let answers = match &args.answers {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?
            .lines()
            .map(str::to_string)
            .filter(|l| !l.trim().is_empty())
            .collect(),
        None => Vec::new(),
    };
    let options = RuleOptions::default();
    let config = RefereeConfig::default();
    let (referee, journal, resume_after) = match &args.journal {
        Some(path) if path.exists() && std::fs::metadata(path).is_ok_and(|m| m.len() > 0) => {
            let resumed = journal::read(path)?;
            let referee = OmphalaReferee::resume(resumed.names, resumed.options, config, &resumed.inputs)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            (referee, Some(Journal::open(path)?), resumed.frame)
        }
        Some(path) => {
            let mut journal = Journal::open(path)?;
            journal.append(&Entry::Start { names: names.clone(), options: journal::options_line(options) })?;
            (OmphalaReferee::new(names, options, config), Some(journal), None)
        }
        None => (OmphalaReferee::new(names, options, config), None, None),
    };
    Ok(Session { referee, journal, answers: answers.into_iter(), resume_after })
}

fn run_views(session: &mut Session, path: &Path) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    for (k, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: line {}: {e}", path.display(), k + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let timed: TimedView =
            serde_json::from_str(&line).map_err(|e| format!("{}: line {}: {e}", path.display(), k + 1))?;
        if session.resume_after.is_some_and(|last| timed.frame <= last) {
            continue;
        }
        let at = Moment { frame: timed.frame, ms: timed.ms };
        let events = session.referee.observe(&timed.view, at);
        session.say(events, at)?;
    }
    Ok(())
}

impl Session {
    /// Prints and journals what the referee said, answering its questions from the answers file.
    fn say(&mut self, events: Vec<RefereeEvent>, at: Moment) -> Result<(), String> {
        let mut queue = events;
        while !queue.is_empty() {
            let mut more = Vec::new();
            for event in queue {
                self.print(&event)?;
                if let RefereeEvent::Confirm { .. } = event
                    && let Some(answer) = self.answers.next()
                {
                    more.extend(self.referee.answer(&answer, at));
                }
            }
            queue = more;
        }
        if let Some(journal) = &mut self.journal {
            journal.append(&Entry::Frame { frame: at.frame })?;
        }
        Ok(())
    }

    fn print(&mut self, event: &RefereeEvent) -> Result<(), String> {
        let value = serde_json::to_value(event).map_err(|e| e.to_string())?;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
        if let Some(journal) = &mut self.journal {
            if let RefereeEvent::Input { record, at, .. } = event {
                journal.append(&Entry::Commit {
                    record: record.clone(),
                    frame: at.frame,
                    ms: at.ms,
                    thumbnail: None,
                })?;
            }
            journal.append(&Entry::Said { event: value })?;
        }
        Ok(())
    }
}

fn finish(session: &Session, args: &OmphalaArgs) -> ExitCode {
    let state = session.referee.state();
    if let Some(path) = &args.record {
        let record = Record::from_inputs(state.options, session.referee.record());
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
    ExitCode::SUCCESS
}
