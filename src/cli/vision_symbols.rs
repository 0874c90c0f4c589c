//! `card-referee symbols detect`, `enroll symbols`, `eval symbols`: symbol-card recognition on
//! photos. Exit codes: 0 success, 2 bad input (missing or unreadable file, malformed deck,
//! labels or profile), 1 when nothing could be done for another reason.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Result, anyhow};
use clap::Subcommand;

use super::EXIT_BAD_INPUT;
use crate::symbols::load_deck;
use crate::vision::symbols::SymbolRecognizer;
use crate::vision::symbols::enroll::{enroll_folder, read_image};
use crate::vision::symbols::eval::evaluate_images;
use crate::vision::symbols::output::{detections_json, detections_text, draw};
use crate::vision::symbols::unlabelled::{ClassNames, Unlabelled, observe_folder};

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
    /// A folder of photos, one card each, with labels.json or card ids in the file names (not
    /// needed with --unlabelled).
    pub dir: PathBuf,
    #[arg(long)]
    pub deck: String,
    #[arg(long)]
    pub out: PathBuf,
    /// Card ids are not given: the symbols are matched across the photos, and a few are named by
    /// the user. Writes OUT.classes/names.json and exemplar crops; fill in the names of the classes
    /// marked "ask" and run again with --names.
    #[arg(long)]
    pub unlabelled: bool,
    /// The filled-in names file of an earlier --unlabelled run.
    #[arg(long, requires = "unlabelled")]
    pub names: Option<PathBuf>,
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
    /// A labels.json kept apart from the photos (default: DIR/labels.json, else card ids in the
    /// file names)
    #[arg(long)]
    pub labels: Option<PathBuf>,
}

fn bad_input(err: anyhow::Error) -> ExitCode {
    eprintln!("error: {err:#}");
    ExitCode::from(EXIT_BAD_INPUT)
}

fn deck_of(spec: &str) -> Result<crate::symbols::Deck> {
    let cwd = std::env::current_dir().unwrap_or_default();
    // The error names the file (or the unknown built-in name) already.
    load_deck(spec, &cwd).map_err(|e| anyhow!("{e}"))
}

pub(crate) fn recognizer(deck_spec: &str, profile: Option<&Path>) -> Result<SymbolRecognizer> {
    SymbolRecognizer::for_deck(deck_spec, profile)
}

/// An image's file checked before decoding (`vision::image_file`): there, whole, of a sane size.
fn precheck(path: &Path) -> Result<(), String> {
    if !path.is_file() {
        return Err("no such image".to_string());
    }
    crate::vision::image_file::check_file(path)
}

pub fn run(command: SymbolsCommand) -> ExitCode {
    match command {
        SymbolsCommand::Detect { images, deck, profile, json, draw: draw_to } => {
            // The deck (milliseconds), then the images, are checked before the recognizer is built
            // (seconds for the Cipher deck), so that bad input is refused at once.
            if let Err(e) = deck_of(&deck) {
                return bad_input(e);
            }
            if let Some((path, reason)) = images.iter().find_map(|p| precheck(p).err().map(|r| (p, r))) {
                return bad_input(anyhow!("{}: {reason}", path.display()));
            }
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
    if args.unlabelled {
        return run_enroll_unlabelled(&deck, &args);
    }
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

/// The folder of exemplar crops and the names file beside a profile: `P.classes`.
fn classes_dir(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".classes");
    out.with_file_name(name)
}

fn run_enroll_unlabelled(deck: &crate::symbols::Deck, args: &EnrollSymbols) -> ExitCode {
    // The names file is checked before the slow part.
    let names = match args.names.as_deref().map(ClassNames::load).transpose() {
        Ok(n) => n,
        Err(e) => return bad_input(e),
    };
    let (photos, skipped) = match observe_folder(&args.dir) {
        Ok(p) => p,
        Err(e) => return bad_input(e),
    };
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    let un = Unlabelled::new(deck, photos);
    let classes = un.clustering.classes.len();
    let dir = classes_dir(&args.out);
    let (Some(names), Some(names_path)) = (names, args.names.as_deref()) else {
        return match un.write_request(deck, &dir) {
            Ok(path) => {
                println!(
                    "{} photos: {classes} symbol classes (the deck has {} symbols)\n\
                     name the {} classes marked \"ask\" in {} (exemplar crops beside it), then run again with --names {}",
                    un.photos.len(),
                    deck.symbols().len(),
                    un.ask.len(),
                    path.display(),
                    path.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::FAILURE
            }
        };
    };
    let given = match un.given_names(deck, &names, names_path) {
        Ok(g) => g,
        Err(e) => return bad_input(e),
    };
    let (profile, naming) = match un.finish(deck, &given) {
        Ok(p) => p,
        Err(e) => return bad_input(anyhow!("{}: {e:#}", names_path.display())),
    };
    for (photo, card) in un.photos.iter().zip(&naming.photo_card) {
        if card.is_none() {
            eprintln!("skipped {} (its card was not identified)", photo.file);
        }
    }
    if let Err(e) = profile.save(&args.out) {
        eprintln!("error: {e:#}");
        return ExitCode::FAILURE;
    }
    let learnt = profile.symbols.iter().filter(|s| !s.exemplars.is_empty()).count();
    println!(
        "{} names given: {} of {classes} classes named, {} of {} photos identified; enrolled {learnt} symbols of {} into {}",
        given.len(),
        naming.class_symbol.iter().flatten().count(),
        naming.photo_card.iter().flatten().count(),
        un.photos.len(),
        profile.symbols.len(),
        args.out.display()
    );
    ExitCode::SUCCESS
}

pub fn run_eval(args: EvalSymbols) -> ExitCode {
    let recognizer = match recognizer(&args.deck, args.profile.as_deref()) {
        Ok(r) => r,
        Err(e) => return bad_input(e),
    };
    let images = match &args.labels {
        Some(labels) => crate::vision::symbols::labels::read_labels_file(labels, &args.dir),
        None => crate::vision::symbols::labels::read_labels(&args.dir),
    };
    match images.and_then(|images| evaluate_images(&recognizer, &images)) {
        Ok(report) => {
            print!("{}", report.text());
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(e),
    }
}
