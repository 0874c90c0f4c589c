//! `card-referee deck ...`: check a deck file, name the symbol two cards share, print the
//! Cipher deck as a PDF, draw one card as a PNG.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};

use super::EXIT_BAD_INPUT;
use crate::symbols::deck::{CardId, Deck, DeckError, problem_count, projective_plane, subset};
use crate::symbols::render::{self, Paper, PictureDeck};

#[derive(Subcommand, Debug)]
pub enum DeckCommand {
    /// Checks a deck.json. Exit 1 listing its problems (the first 10, then how many more) when
    /// the deck breaks the rules, 2 when the file is missing, unreadable, not valid JSON or past a
    /// limit (500 cards, 1,000 symbols, 64 symbols a card, names of 100 characters, 1 MiB).
    Check { deck: PathBuf },
    /// Prints the one symbol that cards A and B share.
    Shared {
        /// A deck.json path, or a built-in deck: cipher, plane-N.
        #[arg(long)]
        deck: String,
        a: CardId,
        b: CardId,
    },
    /// Prints the deck.json of a projective-plane deck (orders 2, 3, 4, 5, 7, 8, 9, 11, 13, 16).
    Generate {
        #[arg(long)]
        order: usize,
        /// Keep only the first N cards (the commercial game sells 55 of the 57 cards of order 7).
        #[arg(long)]
        cards: Option<usize>,
    },
    /// Writes the deck as print-ready sheets of round 9 cm cards, with a symbol legend page.
    Print {
        /// A deck with pictures: cipher.
        #[arg(long, default_value = "cipher")]
        deck: String,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_enum, default_value_t = PaperArg::A4)]
        paper: PaperArg,
    },
    /// Draws one card as a PNG (what the printer and the vision tests see).
    Render {
        #[arg(long, default_value = "cipher")]
        deck: String,
        #[arg(long)]
        card: CardId,
        /// Diameter of the card in pixels.
        #[arg(long, default_value_t = 600)]
        size: u32,
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PaperArg {
    A4,
    Letter,
}

pub fn run(command: DeckCommand) -> ExitCode {
    match command {
        DeckCommand::Check { deck } => check(&deck),
        DeckCommand::Shared { deck, a, b } => shared(&deck, a, b),
        DeckCommand::Generate { order, cards } => generate(order, cards),
        DeckCommand::Print { deck, out, paper } => print(&deck, &out, paper),
        DeckCommand::Render { deck, card, size, out } => render_png(&deck, card, size, &out),
    }
}

fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(EXIT_BAD_INPUT)
}

fn check(path: &Path) -> ExitCode {
    match Deck::check_file(path) {
        Err(e) => bad_input(e),
        Ok(problems) if problems.is_empty() => {
            println!("{}: valid", path.display());
            ExitCode::SUCCESS
        }
        Ok(problems) => {
            for p in &problems {
                println!("{}: {p}", path.display());
            }
            println!("{}: invalid ({} problems)", path.display(), problem_count(&problems));
            ExitCode::from(1)
        }
    }
}

/// Loads a deck given by name or path; an invalid deck exits 1, an unreadable one 2.
fn load(spec: &str) -> Result<Deck, ExitCode> {
    crate::symbols::load_deck(spec, Path::new(".")).map_err(|e| match e {
        DeckError::Invalid { .. } => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
        other => bad_input(other),
    })
}

fn shared(spec: &str, a: CardId, b: CardId) -> ExitCode {
    let deck = match load(spec) {
        Ok(deck) => deck,
        Err(code) => return code,
    };
    for id in [a, b] {
        if deck.card(id).is_none() {
            return bad_input(format!("{spec}: there is no card {id}"));
        }
    }
    match deck.shared_symbol(a, b) {
        Some(symbol) => {
            println!("{}", deck.symbol_name(symbol));
            ExitCode::SUCCESS
        }
        None => bad_input(format!("{spec}: give two different cards (got {a} and {b})")),
    }
}

fn generate(order: usize, cards: Option<usize>) -> ExitCode {
    let deck = projective_plane(order).and_then(|deck| match cards {
        Some(keep) => subset(&deck, keep),
        None => Ok(deck),
    });
    match deck {
        Ok(deck) => {
            println!("{}", deck.to_json());
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(e),
    }
}

fn picture_deck(spec: &str) -> Result<PictureDeck, ExitCode> {
    PictureDeck::builtin(spec)
        .ok_or_else(|| bad_input(format!("{spec}: no pictures for this deck; decks with pictures: cipher")))
}

fn print(spec: &str, out: &Path, paper: PaperArg) -> ExitCode {
    let deck = match picture_deck(spec) {
        Ok(deck) => deck,
        Err(code) => return code,
    };
    let paper = match paper {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    };
    let pdf = match render::pdf::print_deck(&deck, paper) {
        Ok(pdf) => pdf,
        Err(e) => return bad_input(e),
    };
    if let Err(e) = std::fs::write(out, pdf) {
        return bad_input(format!("{}: cannot write: {e}", out.display()));
    }
    println!("{}: {} cards on {paper:?} sheets, with a legend page", out.display(), deck.deck.cards().len());
    ExitCode::SUCCESS
}

fn render_png(spec: &str, card: CardId, size: u32, out: &Path) -> ExitCode {
    let deck = match picture_deck(spec) {
        Ok(deck) => deck,
        Err(code) => return code,
    };
    let (image, placements) = match render::render_card(&deck, card, size) {
        Ok(drawn) => drawn,
        Err(e) => return bad_input(e),
    };
    if let Err(e) = image.save(out) {
        return bad_input(format!("{}: cannot write: {e}", out.display()));
    }
    for p in placements {
        println!("{} at ({:.0}, {:.0}), {:.0} px, {:.0}°", p.name, p.center.0, p.center.1, p.size, p.rotation_deg);
    }
    ExitCode::SUCCESS
}
