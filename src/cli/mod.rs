//! The command line: every thing the window can do, headless. `main.rs` only parses and dispatches.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod omphala;

/// Exit code for bad input: a missing file, a malformed record, a camera that does not exist.
pub const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser, Debug)]
#[command(name = "card-referee", version, about = "Referees card games on a real table, through a webcam")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Omphala: judge game records, list legal moves, simulate random games.
    Omphala {
        #[command(subcommand)]
        command: omphala::OmphalaCommand,
    },
}

/// Runs a parsed command line and says how the process should exit.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        None => ExitCode::SUCCESS,
        Some(Command::Omphala { command }) => omphala::run(command),
    }
}
