//! `card-referee scorebook list|show|standings|export|import`: the book of finished games,
//! headless. The book is the window's (`scorebook.sqlite` in the app's data folder) unless
//! `--book` names another.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

use super::EXIT_BAD_INPUT;
use crate::scorebook::clock::utc_time;
use crate::scorebook::{Filter, Scorebook, entry, export};

#[derive(Args, Debug)]
pub struct ScorebookArgs {
    /// The scorebook: a file (default: scorebook.sqlite in the app's data folder, the window's)
    /// or a PostgreSQL server the tables of a club share (postgres://USER@HOST/DATABASE).
    #[arg(long, global = true, value_name = "FILE|URL")]
    pub book: Option<PathBuf>,
    #[command(subcommand)]
    pub command: ScorebookCommand,
}

/// Which games: by date, kind and player.
#[derive(Args, Debug, Clone, Default)]
pub struct FilterArgs {
    /// From this date (YYYY-MM-DD, UTC) or time on.
    #[arg(long)]
    pub since: Option<String>,
    /// Up to this date (the whole day) or before this time.
    #[arg(long)]
    pub until: Option<String>,
    /// Only this game: omphala, tower, well, hot-potato, poisoned-gift.
    #[arg(long)]
    pub game: Option<String>,
    /// Only games this player sat in.
    #[arg(long)]
    pub player: Option<String>,
    /// Only today's games (UTC), the evening's table.
    #[arg(long, conflicts_with_all = ["since", "until"])]
    pub today: bool,
}

#[derive(Subcommand, Debug)]
pub enum ScorebookCommand {
    /// One line per game: number, time, game, players in their places.
    List(FilterArgs),
    /// One game: its players' places and points, the tie-break, and its record.
    Show { id: i64 },
    /// The table of the chosen games: games, wins, points, and wins a tie-break decided.
    Standings(FilterArgs),
    /// The chosen games as CSV (a row per player per game) or JSON (each game whole).
    Export {
        #[arg(long, value_enum, default_value_t = Format::Csv)]
        format: Format,
        /// Write here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        filter: FilterArgs,
    },
    /// Adds finished games from game records and match records (files, or folders of .txt
    /// files): games refereed headless or played before. A game already in the book is kept once.
    Import {
        #[arg(required = true)]
        records: Vec<PathBuf>,
        /// The table the games were played at.
        #[arg(long, default_value = "")]
        table: String,
        /// When they were played (RFC 3339, UTC; default: each file's modification time).
        #[arg(long)]
        played_at: Option<String>,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Format {
    Csv,
    Json,
}

/// The window's book: `scorebook.sqlite` in the app's data folder.
pub fn default_book() -> PathBuf {
    eframe::storage_dir(crate::ui::APP_ID).unwrap_or_else(std::env::temp_dir).join(crate::scorebook::FILE_NAME)
}

pub fn run(args: ScorebookArgs) -> ExitCode {
    let path = args.book.clone().unwrap_or_else(default_book);
    let mut book = match Scorebook::open(&path) {
        Ok(book) => book,
        Err(e) => return fail(e),
    };
    let done = match &args.command {
        ScorebookCommand::List(filter) => list(&book, filter),
        ScorebookCommand::Show { id } => show(&book, *id),
        ScorebookCommand::Standings(filter) => standings(&book, filter),
        ScorebookCommand::Export { format, out, filter } => export_games(&book, *format, out.as_deref(), filter),
        ScorebookCommand::Import { records, table, played_at } => {
            import(&mut book, records, table, played_at.as_deref())
        }
    };
    done.unwrap_or_else(fail)
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("{e}");
    ExitCode::from(EXIT_BAD_INPUT)
}

fn filter_of(args: &FilterArgs) -> Filter {
    let filter = Filter {
        since: args.since.clone(),
        until: args.until.clone(),
        kind: args.game.clone(),
        player: args.player.clone(),
    };
    if args.today { filter.today() } else { filter }
}

fn list(book: &Scorebook, filter: &FilterArgs) -> Result<ExitCode, String> {
    let games = book.games(&filter_of(filter)).map_err(|e| e.to_string())?;
    for game in &games {
        println!("{}", game.summary());
    }
    if games.is_empty() {
        eprintln!("{}: no games", book.name());
    }
    Ok(ExitCode::SUCCESS)
}

fn show(book: &Scorebook, id: i64) -> Result<ExitCode, String> {
    let Some(game) = book.game(id).map_err(|e| e.to_string())? else {
        return Err(format!("{}: no game {id} in the book", book.name()));
    };
    println!("{}", game.summary());
    for line in &game.entry.tie_break {
        println!("{line}");
    }
    if let Some(journal) = &game.entry.journal {
        println!("journal: {journal}");
    }
    let steps = book.steps(id).map_err(|e| e.to_string())?;
    if !steps.is_empty() {
        println!("steps:");
    }
    for step in &steps {
        let thumbnail = step.thumbnail.as_ref().map_or(String::new(), |t| format!(" (thumbnail, {} bytes)", t.len()));
        println!("  frame {}: {}{thumbnail}", step.frame, step.lines.join(" / "));
    }
    println!("record:");
    print!("{}", game.entry.record);
    Ok(ExitCode::SUCCESS)
}

fn standings(book: &Scorebook, filter: &FilterArgs) -> Result<ExitCode, String> {
    let table = book.table(&filter_of(filter)).map_err(|e| e.to_string())?;
    let width = table.iter().map(|l| l.player.chars().count()).max().unwrap_or(6).max(6);
    println!("{:<width$}  games  wins  points  by tie-break", "player");
    for line in &table {
        println!(
            "{:<width$}  {:>5}  {:>4}  {:>6}  {:>12}",
            line.player, line.games, line.wins, line.points, line.wins_by_tie_break
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn export_games(book: &Scorebook, format: Format, out: Option<&Path>, filter: &FilterArgs) -> Result<ExitCode, String> {
    let games = book.games(&filter_of(filter)).map_err(|e| e.to_string())?;
    let text = match format {
        Format::Csv => export::csv(&games),
        Format::Json => export::json(&games),
    };
    match out {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn import(book: &mut Scorebook, records: &[PathBuf], table: &str, played_at: Option<&str>) -> Result<ExitCode, String> {
    let mut files = Vec::new();
    for path in records {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("{}: cannot read the folder: {e}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    let (mut added, mut kept, mut refused) = (0, 0, 0);
    for file in &files {
        match import_file(book, file, table, played_at) {
            Ok((new, old)) => (added, kept) = (added + new, kept + old),
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                refused += 1;
            }
        }
    }
    println!("{added} games added, {kept} already in the book, {refused} records refused");
    Ok(if refused > 0 { ExitCode::from(EXIT_BAD_INPUT) } else { ExitCode::SUCCESS })
}

/// The games of one record file written: how many were new and how many the book held.
fn import_file(
    book: &mut Scorebook,
    file: &Path,
    table: &str,
    played_at: Option<&str>,
) -> Result<(usize, usize), String> {
    let limit = crate::symbols::notation::MAX_RECORD_BYTES.max(crate::rules::omphala::notation::MAX_RECORD_BYTES);
    let text = crate::text_input::read_text(file, limit, "a game or match record").map_err(|e| e.to_string())?;
    let base = file.parent().unwrap_or(Path::new("."));
    let entries = entry::from_record(&text, base).map_err(|e| e.to_string())?;
    let when = match played_at {
        Some(t) => t.to_string(),
        None => std::fs::metadata(file).and_then(|m| m.modified()).map(utc_time).map_err(|e| e.to_string())?,
    };
    let mut counts = (0, 0);
    for entry in &entries {
        let (_, new) = book.add(entry, table, Some(&when)).map_err(|e| e.to_string())?;
        if new { counts.0 += 1 } else { counts.1 += 1 }
    }
    Ok(counts)
}
