//! The command line: every thing the window can do, headless. `main.rs` only parses and dispatches.

pub mod deck;
pub mod minigame;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code for bad input: a missing file, a malformed record, a camera that does not exist.
pub const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "card-referee",
    version,
    about = "Referees card games on a real table, through a webcam"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Symbol decks: check a deck file, find the symbol two cards share, print the Cipher deck.
    Deck {
        #[command(subcommand)]
        command: deck::DeckCommand,
    },
    /// Spot-the-symbol mini-games: replay a match record.
    Minigame {
        #[command(subcommand)]
        command: minigame::MinigameCommand,
    },
}

/// Runs a parsed command line and says how the process should exit.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        None => ExitCode::SUCCESS,
        Some(Command::Deck { command }) => deck::run(command),
        Some(Command::Minigame { command }) => minigame::run(command),
    }
}
