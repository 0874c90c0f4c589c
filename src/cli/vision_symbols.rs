//! `card-referee symbols detect`, `enroll symbols`, `eval symbols`: symbol-card recognition on
//! photos. Exit codes: 0 success, 2 bad input (missing or unreadable file, malformed deck,
//! labels or profile), 1 when nothing could be done for another reason.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use clap::Subcommand;

use super::EXIT_BAD_INPUT;
use crate::symbols::{cipher, load_deck};
use crate::vision::symbols::SymbolRecognizer;
use crate::vision::symbols::enroll::{SymbolProfile, enroll_folder, read_image};
use crate::vision::symbols::eval::evaluate;
use crate::vision::symbols::output::{detections_json, detections_text, draw};

#[derive(Subcommand, Debug)]
pub enum SymbolsCommand {
    /// Finds and names the round symbol cards in images.
    Detect {
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// A deck.json path, or a built-in deck: cipher, plane-N.
        #[arg(long)]
        deck: String,
        /// A learnt profile (`enroll symbols`); the Cipher deck needs none.
        #[arg(long)]
        profile: Option<PathBuf>,
        /// One JSON object per image, per line.
        #[arg(long)]
        json: bool,
        /// Draws the cards and symbol names (on the first image) to this PNG.
        #[arg(long)]
        draw: Option<PathBuf>,
    },
}

/// `enroll symbols ...`.
#[derive(clap::Args, Debug)]
pub struct EnrollSymbols {
    /// A folder of photos, one card each, with labels.json or card ids in the file names.
    pub dir: PathBuf,
    #[arg(long)]
    pub deck: String,
    #[arg(long)]
    pub out: PathBuf,
}

/// `eval symbols ...`.
#[derive(clap::Args, Debug)]
pub struct EvalSymbols {
    /// A folder of labelled photos.
    pub dir: PathBuf,
    #[arg(long)]
    pub deck: String,
    #[arg(long)]
    pub profile: Option<PathBuf>,
}

fn bad_input(err: anyhow::Error) -> ExitCode {
    eprintln!("error: {err:#}");
    ExitCode::from(EXIT_BAD_INPUT)
}

fn deck_of(spec: &str) -> Result<crate::symbols::Deck> {
    let cwd = std::env::current_dir().unwrap_or_default();
    load_deck(spec, &cwd).map_err(|e| anyhow!("{spec}: {e}"))
}

fn recognizer(deck_spec: &str, profile: Option<&Path>) -> Result<SymbolRecognizer> {
    let deck = deck_of(deck_spec)?;
    match profile {
        Some(path) => {
            SymbolRecognizer::new(deck, &SymbolProfile::load(path)?).with_context(|| path.display().to_string())
        }
        None if deck_spec == cipher::NAME => SymbolRecognizer::cipher(),
        None => {
            Err(anyhow!("{deck_spec}: no built-in appearance for this deck: give --profile (see `enroll symbols`)"))
        }
    }
}

pub fn run(command: SymbolsCommand) -> ExitCode {
    match command {
        SymbolsCommand::Detect { images, deck, profile, json, draw: draw_to } => {
            let recognizer = match recognizer(&deck, profile.as_deref()) {
                Ok(r) => r,
                Err(e) => return bad_input(e),
            };
            for (k, path) in images.iter().enumerate() {
                let bgr = match read_image(path) {
                    Ok(m) => m,
                    Err(e) => return bad_input(e),
                };
                let start = Instant::now();
                let found = match recognizer.detect(&bgr) {
                    Ok(f) => f,
                    Err(e) => {
                        eprintln!("error: {}: {e:#}", path.display());
                        return ExitCode::FAILURE;
                    }
                };
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let text = if json {
                    format!("{}\n", detections_json(name, ms, &found))
                } else {
                    detections_text(name, ms, &found)
                };
                // A closed pipe (`| head`) ends the output quietly.
                if std::io::stdout().write_all(text.as_bytes()).is_err() {
                    return ExitCode::SUCCESS;
                }
                if k == 0
                    && let Some(out) = &draw_to
                {
                    let written = draw(&bgr, &found).and_then(|img| {
                        opencv::imgcodecs::imwrite(out.as_os_str(), &img, &opencv::core::Vector::new())
                            .map_err(anyhow::Error::from)
                    });
                    if !matches!(written, Ok(true)) {
                        eprintln!("error: {}: cannot write", out.display());
                        return ExitCode::FAILURE;
                    }
                }
            }
            ExitCode::SUCCESS
        }
    }
}

pub fn run_enroll(args: EnrollSymbols) -> ExitCode {
    let deck = match deck_of(&args.deck) {
        Ok(d) => d,
        Err(e) => return bad_input(e),
    };
    let (profile, skipped) = match enroll_folder(&deck, &args.dir) {
        Ok(p) => p,
        Err(e) => return bad_input(e),
    };
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    let learnt = profile.symbols.iter().filter(|s| !s.exemplars.is_empty()).count();
    if let Err(e) = profile.save(&args.out) {
        eprintln!("error: {e:#}");
        return ExitCode::FAILURE;
    }
    println!(
        "enrolled {} symbols of {} ({} without a sample) into {}",
        learnt,
        profile.symbols.len(),
        profile.symbols.len() - learnt,
        args.out.display()
    );
    ExitCode::SUCCESS
}

pub fn run_eval(args: EvalSymbols) -> ExitCode {
    let recognizer = match recognizer(&args.deck, args.profile.as_deref()) {
        Ok(r) => r,
        Err(e) => return bad_input(e),
    };
    match evaluate(&recognizer, &args.dir) {
        Ok(report) => {
            print!("{}", report.text());
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(e),
    }
}
