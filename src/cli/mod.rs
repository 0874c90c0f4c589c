//! The command line: every thing the window can do, headless. `main.rs` only parses and dispatches.

pub mod deck;
pub mod minigame;
pub mod vision_symbols;

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
    /// Symbol cards in photos: find and name them.
    Symbols {
        #[command(subcommand)]
        command: vision_symbols::SymbolsCommand,
    },
    /// Learns the appearance of a deck from labelled photos.
    Enroll {
        #[command(subcommand)]
        command: Enroll,
    },
    /// Measures recognition on a labelled folder of photos.
    Eval {
        #[command(subcommand)]
        command: Eval,
    },
}

/// What `enroll` learns.
#[derive(Subcommand, Debug)]
pub enum Enroll {
    /// Symbol cards: writes a profile of each symbol's appearance.
    Symbols(vision_symbols::EnrollSymbols),
}

/// What `eval` measures.
#[derive(Subcommand, Debug)]
pub enum Eval {
    /// Symbol cards: card-id accuracy, symbol precision/recall, referee accuracy, ms per image.
    Symbols(vision_symbols::EvalSymbols),
}

/// Runs a parsed command line and says how the process should exit.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        None => ExitCode::SUCCESS,
        Some(Command::Deck { command }) => deck::run(command),
        Some(Command::Minigame { command }) => minigame::run(command),
        Some(Command::Symbols { command }) => vision_symbols::run(command),
        Some(Command::Enroll {
            command: Enroll::Symbols(args),
        }) => vision_symbols::run_enroll(args),
        Some(Command::Eval {
            command: Eval::Symbols(args),
        }) => vision_symbols::run_eval(args),
    }
}
