//! `card-referee omphala …`: judge a game record, list the legal moves at its end, or play
//! random games.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;

use super::EXIT_BAD_INPUT;
use crate::rules::omphala::RuleOptions;
use crate::rules::omphala::engine::{actor, awaited, describe_awaited, legal_actions};
use crate::rules::omphala::notation::{Record, format_action, parse};
use crate::rules::omphala::replay::{Replay, progress_line, replay, standings_lines, verdict_text};
use crate::rules::omphala::simulate::{RecordOptions, play_recorded, simulate};

/// Exit code when the record holds an illegal action.
pub const EXIT_ILLEGAL: u8 = 1;

#[derive(Subcommand, Debug)]
pub enum OmphalaCommand {
    /// Judge every line of a game record, then print the standings.
    /// Exit 0: legal; 1: an illegal action (line and reason); 2: malformed or missing file.
    Replay {
        /// The game record (see docs/omphala-notation.md).
        file: PathBuf,
    },
    /// Play random legal games and report their length, tie-breaks and speed.
    Simulate {
        /// Players at the table, 2 to 6.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=6))]
        players: u8,
        /// How many games to play.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Seed of the random generator (the same seed plays the same games).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Write each game as a record in this folder (omphala-Np-seedS-gameI.txt), one line
        /// per game on standard output.
        #[arg(long, value_name = "DIR")]
        records: Option<PathBuf>,
        /// With --records: at most this many deliberate illegal moves per game, written as
        /// `# illegal: ...` comment lines.
        #[arg(long, default_value_t = 0, requires = "records")]
        illegal: usize,
        /// With --records: end each game by agreement once this turn is over.
        #[arg(long, requires = "records")]
        max_turns: Option<u32>,
        /// With --records: write only games that end in a tie-break battle (random games play
        /// on until --games of them are found; the file names keep each game's index).
        #[arg(long, requires = "records")]
        battles_only: bool,
    },
    /// Print the legal actions at the end of a (possibly unfinished) record, one per line.
    Legal {
        /// The game record.
        file: PathBuf,
    },
}

pub fn run(command: OmphalaCommand) -> ExitCode {
    match command {
        OmphalaCommand::Replay { file } => run_replay(&file),
        OmphalaCommand::Simulate { players, games, seed, records: Some(dir), illegal, max_turns, battles_only } => {
            let how = RecordOptions { max_turns, illegal };
            write_records(usize::from(players), games, seed, &dir, &how, battles_only)
        }
        OmphalaCommand::Simulate { players, games, seed, .. } => run_simulate(usize::from(players), games, seed),
        OmphalaCommand::Legal { file } => run_legal(&file),
    }
}

/// Reads and parses a record, or says on stderr why not.
fn load(file: &Path) -> Result<Record, ExitCode> {
    let limit = crate::rules::omphala::notation::MAX_RECORD_BYTES;
    let text = crate::text_input::read_text(file, limit, "a game record").map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(EXIT_BAD_INPUT)
    })?;
    parse(&text).map_err(|e| {
        eprintln!("error: {}: {e}", file.display());
        ExitCode::from(EXIT_BAD_INPUT)
    })
}

fn run_replay(file: &Path) -> ExitCode {
    let record = match load(file) {
        Ok(record) => record,
        Err(code) => return code,
    };
    let Replay { state, verdicts, illegal } = replay(&record);
    let texts: Vec<String> = record.to_string().lines().map(str::to_string).collect();
    for verdict in &verdicts {
        let line_text = texts.get(verdict.line - 1).map_or("", String::as_str);
        println!("{:>4}: {line_text}  =>  ok: {}", verdict.line, verdict_text(&state, &verdict.events));
    }
    if let Some((line, why)) = illegal {
        let line_text = texts.get(line - 1).map_or("", String::as_str);
        println!("{line:>4}: {line_text}  =>  ILLEGAL: {why}");
        eprintln!("{}: line {line}: illegal: {why}", file.display());
        return ExitCode::from(EXIT_ILLEGAL);
    }
    match state.standings() {
        Some(standings) => standings_lines(&state, standings).iter().for_each(|l| println!("{l}")),
        None => {
            println!("{}", progress_line(&state));
            if let Some(wanted) = awaited(&state) {
                println!("waiting for {}", describe_awaited(&state, wanted));
            }
        }
    }
    ExitCode::SUCCESS
}

fn run_legal(file: &Path) -> ExitCode {
    let record = match load(file) {
        Ok(record) => record,
        Err(code) => return code,
    };
    let Replay { state, illegal, .. } = replay(&record);
    if let Some((line, why)) = illegal {
        eprintln!("{}: line {line}: illegal: {why}", file.display());
        return ExitCode::from(EXIT_ILLEGAL);
    }
    if let Some(wanted) = awaited(&state) {
        println!("# no action: waiting for {}", describe_awaited(&state, wanted));
    } else if let Some(player) = actor(&state) {
        let names = record.names();
        for action in legal_actions(&state) {
            println!("{}", format_action(&names, player, &action));
        }
    } else {
        println!("# no action: {}", progress_line(&state));
    }
    ExitCode::SUCCESS
}

fn run_simulate(players: usize, games: usize, seed: u64) -> ExitCode {
    let summary = match simulate(players, games, seed, RuleOptions::default()) {
        Ok(summary) => summary,
        Err(e) => {
            eprintln!("error: simulation stopped: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{} games of {players} players, seed {seed}", summary.games);
    println!("average game length: {:.1} turns, {:.1} inputs", summary.average_turns(), summary.average_inputs());
    println!("decided by:");
    for (decider, count) in summary.decided_by {
        let share = 100.0 * count as f64 / summary.games.max(1) as f64;
        println!("  {:<16} {count:>8} ({share:.1}%)", decider.label());
    }
    println!("games per second: {:.0}", summary.games_per_second());
    ExitCode::SUCCESS
}

/// Plays `games` random games and writes each as a record in `dir`.
/// Games played looking for battles, per game wanted (a battle ends about one game in ten
/// ended by agreement, one in fifty played out).
const BATTLE_TRIES: usize = 500;

fn write_records(
    players: usize,
    games: usize,
    seed: u64,
    dir: &Path,
    how: &RecordOptions,
    battles_only: bool,
) -> ExitCode {
    use rand::SeedableRng;
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return ExitCode::from(EXIT_BAD_INPUT);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut written = 0;
    for index in 0..games.saturating_mul(if battles_only { BATTLE_TRIES } else { 1 }) {
        if written == games {
            break;
        }
        let game = match play_recorded(&mut rng, players, RuleOptions::default(), how) {
            Ok(game) => game,
            Err(e) => {
                eprintln!("error: simulation stopped: {e}");
                return ExitCode::FAILURE;
            }
        };
        if battles_only && !game.battle() {
            continue;
        }
        written += 1;
        let path = dir.join(format!("omphala-{players}p-seed{seed}-game{index:03}.txt"));
        if let Err(e) = std::fs::write(&path, game.record.to_string()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(EXIT_BAD_INPUT);
        }
        let decided = game.state.standings().map_or("unfinished", |s| s.decided_by.label());
        println!(
            "{}: {players} players, {} turns, {} illegal comments, decided by {decided}, tie-break battle: {}",
            path.display(),
            game.state.turn.number,
            game.illegal,
            if game.battle() { "yes" } else { "no" }
        );
    }
    if written < games {
        eprintln!("error: only {written} of {games} games ended in a tie-break battle");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
