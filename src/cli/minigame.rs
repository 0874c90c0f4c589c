//! `card-referee minigame replay MATCH.txt`: judges a recorded match again.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;

use super::EXIT_BAD_INPUT;
use crate::symbols::games::GameKind;
use crate::symbols::notation::{ReplayError, replay};
use crate::symbols::simulate::{SimOptions, random_game};

#[derive(Subcommand, Debug)]
pub enum MinigameCommand {
    /// Replays a match record: a verdict per claim, the scores and the winner. Exit 0 when the
    /// record is legal, 1 at the first illegal line, 2 when it is malformed or unreadable.
    Replay { record: PathBuf },
    /// Prints a random one-game match with the Cipher deck (wrong, right and too-late claims,
    /// and claims while a hand is moving a card), for rendered test videos.
    Simulate {
        /// tower, well, hot-potato or poisoned-gift
        #[arg(long, value_parser = parse_kind)]
        game: GameKind,
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(2..=6))]
        players: u8,
        /// Draw pile (The Tower, The Poisoned Gift), each pile (The Well) or rounds (Hot Potato).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=8))]
        size: u8,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn parse_kind(text: &str) -> Result<GameKind, String> {
    GameKind::from_code(text).ok_or_else(|| format!("unknown game {text:?} (tower, well, hot-potato, poisoned-gift)"))
}

pub fn run(command: MinigameCommand) -> ExitCode {
    match command {
        MinigameCommand::Replay { record } => replay_file(&record),
        MinigameCommand::Simulate { game, players, size, seed } => {
            let options = SimOptions { kind: game, seats: usize::from(players), size: usize::from(size), seed };
            print!("{}", random_game(&crate::symbols::cipher::cipher_deck(), "cipher", &options));
            ExitCode::SUCCESS
        }
    }
}

fn replay_file(path: &Path) -> ExitCode {
    let limit = crate::symbols::notation::MAX_RECORD_BYTES;
    let text = match crate::text_input::read_text(path, limit, "a match record") {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let base = path.parent().unwrap_or(Path::new("."));
    let result = replay(&text, base);
    for line in &result.report {
        println!("{line}");
    }
    match result.outcome {
        Ok(_) => ExitCode::SUCCESS,
        Err(e @ ReplayError::Illegal { .. }) => {
            eprintln!("{}: {e}", path.display());
            ExitCode::from(1)
        }
        Err(e @ ReplayError::Malformed { .. }) => {
            eprintln!("{}: {e}", path.display());
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
