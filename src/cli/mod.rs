//! The command line: every thing the window can do, headless. `main.rs` only parses and dispatches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod vision_cards;

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
    /// Finds and reads the playing cards in images.
    Detect {
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// One JSON object per image (shared/spec/formats.md).
        #[arg(long)]
        json: bool,
        /// Draws outlines and labels on the (single) image and writes it here.
        #[arg(long, value_name = "OUT.png")]
        draw: Option<PathBuf>,
        /// A deck profile made by `enroll cards`.
        #[arg(long)]
        profile: Option<PathBuf>,
    },
    /// Scores a recogniser against labelled photos.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Builds a deck profile from labelled photos.
    #[command(subcommand)]
    Enroll(EnrollCommand),
}

#[derive(Subcommand, Debug)]
pub enum EvalCommand {
    /// Playing cards: DIR/labels.json in card-labels/1.
    Cards {
        dir: PathBuf,
        /// Enrol this directory's labelled single-card photos first.
        #[arg(long)]
        enroll: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum EnrollCommand {
    /// Playing cards: labelled single-card photos in DIR (labels.json).
    Cards {
        dir: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
}

/// Runs a parsed command line and says how the process should exit.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        None => ExitCode::SUCCESS,
        Some(Command::Detect {
            images,
            json,
            draw,
            profile,
        }) => vision_cards::detect(&images, json, draw.as_deref(), profile.as_deref()),
        Some(Command::Eval(EvalCommand::Cards { dir, enroll })) => {
            vision_cards::eval(&dir, enroll.as_deref())
        }
        Some(Command::Enroll(EnrollCommand::Cards { dir, out })) => {
            vision_cards::enroll(&dir, &out)
        }
    }
}
