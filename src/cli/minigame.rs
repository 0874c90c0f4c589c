//! `card-referee minigame replay MATCH.txt`: judges a recorded match again.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;

use super::EXIT_BAD_INPUT;
use crate::symbols::notation::{ReplayError, replay};

#[derive(Subcommand, Debug)]
pub enum MinigameCommand {
    /// Replays a match record: a verdict per claim, the scores and the winner. Exit 0 when the
    /// record is legal, 1 at the first illegal line, 2 when it is malformed or unreadable.
    Replay { record: PathBuf },
}

pub fn run(command: MinigameCommand) -> ExitCode {
    match command {
        MinigameCommand::Replay { record } => replay_file(&record),
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
