//! The command line: everything the window can do, headless. `main.rs` only parses and dispatches.

mod capture;
mod deck;
mod eval_track;
mod minigame;
mod omphala;
mod progress;
mod referee;
mod referee_minigame;
mod render;
mod scorebook;
mod table;
pub mod vision_cards;
pub mod vision_symbols;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::capture::{CaptureOptions, SourceSpec};

/// Exit code for bad input: a missing file, a malformed record, a camera that does not exist.
pub const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser, Debug)]
#[command(name = "card-referee", version, about = "Referees card games on a real table, through a webcam")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// For the window opened when no command is given; a command that reads frames or cards
    /// takes these options itself.
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub readers: ReaderArgs,
}

/// Which readers read the cards, for any command that reads cards.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct ReaderArgs {
    /// What reads the corners of card outlines (default: both, network first).
    #[arg(long, value_enum)]
    pub corner_reader: Option<ReaderArg>,
    /// What reads the indices found without an outline: fans, cascades (default: both).
    #[arg(long, value_enum)]
    pub loose_reader: Option<ReaderArg>,
    /// Read every index with the full networks (slower); by default smaller ones read first
    /// and the full ones only what those are unsure of.
    #[arg(long)]
    pub full_networks: bool,
}

impl ReaderArgs {
    /// These choices, and `outer`'s where these make none.
    fn or(&self, outer: &ReaderArgs) -> ReaderArgs {
        ReaderArgs {
            corner_reader: self.corner_reader.or(outer.corner_reader),
            loose_reader: self.loose_reader.or(outer.loose_reader),
            full_networks: self.full_networks || outer.full_networks,
        }
    }
}

/// A playing-card index reader (`vision::cards::Reader`), as the command line names it.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ReaderArg {
    /// The index networks (models/card_index_*.onnx).
    Network,
    /// The glyph templates weighed by the glyph networks.
    Templates,
    /// The networks, and the templates where the networks read nothing.
    Both,
}

impl From<ReaderArg> for crate::vision::cards::Reader {
    fn from(arg: ReaderArg) -> Self {
        match arg {
            ReaderArg::Network => Self::Network,
            ReaderArg::Templates => Self::Templates,
            ReaderArg::Both => Self::Both,
        }
    }
}

/// Where frames come from, for any command that reads frames.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct InputArgs {
    /// webcam:N | file:PATH | folder:PATH | demo (default: the last source, else the first webcam,
    /// else the demo table)
    #[arg(long, value_parser = parse_source)]
    pub source: Option<SourceSpec>,
    /// Camera resolution to ask for (the nearest the camera offers is used; default 1280x720).
    #[arg(long, value_parser = parse_resolution, value_name = "WxH")]
    pub resolution: Option<(u32, u32)>,
    /// Camera frame rate to ask for (the nearest the camera offers is used; default 30).
    #[arg(long)]
    pub fps: Option<u32>,
    /// Read the cards with this deck profile (`enroll cards`, or the window's "Teach this deck").
    #[arg(long, value_name = "PROFILE")]
    pub card_profile: Option<PathBuf>,
}

impl InputArgs {
    /// These choices, and `outer`'s where these make none.
    fn or(&self, outer: &InputArgs) -> InputArgs {
        InputArgs {
            source: self.source.clone().or_else(|| outer.source.clone()),
            resolution: self.resolution.or(outer.resolution),
            fps: self.fps.or(outer.fps),
            card_profile: self.card_profile.clone().or_else(|| outer.card_profile.clone()),
        }
    }

    pub fn capture_options(&self) -> Option<CaptureOptions> {
        if self.resolution.is_none() && self.fps.is_none() {
            return None;
        }
        let mut options = CaptureOptions::default();
        if let Some((w, h)) = self.resolution {
            (options.width, options.height) = (w, h);
        }
        if let Some(fps) = self.fps {
            options.fps = fps;
        }
        Some(options)
    }
}

fn parse_source(text: &str) -> Result<SourceSpec, String> {
    text.parse().map_err(|e: crate::capture::CaptureError| e.to_string())
}

fn parse_resolution(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("'{text}' is not a resolution like 1280x720");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
    if w == 0 || h == 0 || w > 8192 || h > 8192 {
        return Err(bad());
    }
    Ok((w, h))
}

fn parse_card_count(text: &str) -> Result<std::ops::RangeInclusive<usize>, String> {
    let bad = || format!("'{text}' is not a card count like 3 or 1-4 (1 to 52)");
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let (low, high): (usize, usize) = (low.trim().parse().map_err(|_| bad())?, high.trim().parse().map_err(|_| bad())?);
    if low == 0 || low > high || high > 52 {
        return Err(bad());
    }
    Ok(low..=high)
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the window (the default when no command is given).
    Window(capture::WindowArgs),
    /// List the cameras this machine can see.
    Cameras,
    /// Read frames from the source headless and report each one (or save them).
    Frames(capture::FramesArgs),
    /// Draw synthetic table scenes with ground truth.
    #[command(subcommand)]
    Render(render::RenderCommand),
    /// Find and read the playing cards in images.
    Detect {
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// One JSON object per image (shared/spec/formats.md).
        #[arg(long)]
        json: bool,
        /// Draw outlines and labels on the (single) image and write it here.
        #[arg(long, value_name = "OUT.png")]
        draw: Option<PathBuf>,
        /// A deck profile made by `enroll cards`.
        #[arg(long)]
        profile: Option<PathBuf>,
        /// A card back made by `calibrate back`: outlines that look like it are face down.
        #[arg(long)]
        back: Option<PathBuf>,
        #[command(flatten)]
        readers: ReaderArgs,
    },
    /// Calibrate the table: learn what the deck's back looks like.
    #[command(subcommand)]
    Calibrate(CalibrateCommand),
    /// Score a recogniser against labelled photos.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Learn your own deck from photos of its cards.
    #[command(subcommand)]
    Enroll(EnrollCommand),
    /// Symbol cards in photos: find and name them.
    Symbols {
        #[command(subcommand)]
        command: vision_symbols::SymbolsCommand,
    },
    /// Omphala: judge game records, list legal moves, simulate random games.
    Omphala {
        #[command(subcommand)]
        command: omphala::OmphalaCommand,
    },
    /// The live referee: settled views of the table judged as the game is played.
    Referee {
        #[command(subcommand)]
        command: referee::RefereeCommand,
    },
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
    /// Follow the table: print each change of its settled view as a JSON line.
    Track(table::TrackArgs),
    /// The book of finished games: list, show, standings, export, import.
    Scorebook(scorebook::ScorebookArgs),
}

#[derive(Subcommand, Debug)]
pub enum EvalCommand {
    /// Playing cards: DIR/labels.json in card-labels/1.
    Cards {
        dir: PathBuf,
        /// Enrol this directory's labelled single-card photos first.
        #[arg(long)]
        enroll: Option<PathBuf>,
        /// A card back made by `calibrate back`.
        #[arg(long)]
        back: Option<PathBuf>,
        /// Alter each photo first, as another light or camera would give it (repeat to combine,
        /// applied in order): warm:B (a lamp: blue scaled by B), falloff:F (light falling across
        /// to F), gamma:G, blur:S (px), noise:S (levels), jpeg:Q, scale:K, turn (a quarter).
        #[arg(long, value_name = "ALTERATION")]
        alter: Vec<crate::vision::alter::Alteration>,
        #[command(flatten)]
        readers: ReaderArgs,
    },
    /// Symbol cards: card-id accuracy, symbol precision/recall, referee accuracy, ms per image.
    Symbols(vision_symbols::EvalSymbols),
    /// The settled view on labelled real footage: cards named right at their moments, false
    /// names, events while nothing moves, time to name, ms a frame.
    Track(eval_track::EvalTrackArgs),
    /// Playing cards on fresh synthetic tables from the renderer, scored against its ground truth.
    Synthetic {
        #[arg(long, default_value_t = 50)]
        scenes: u64,
        /// First seed (the test suite uses seeds below 1000).
        #[arg(long, default_value_t = 1_000_000)]
        seed: u64,
        /// How many cards each table holds: N, or MIN-MAX (default 6-20).
        #[arg(long, value_parser = parse_card_count, value_name = "N|MIN-MAX")]
        cards: Option<std::ops::RangeInclusive<usize>>,
        #[command(flatten)]
        readers: ReaderArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum CalibrateCommand {
    /// The card back: the largest card outline in each photo (one or a few photos of the back,
    /// lying on a surface darker than the card's border).
    Back {
        #[arg(required = true)]
        images: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
    /// The table layout: each seat's rows, the deck and the discard pile, learnt from the deal
    /// (the first settled frame where every seat shows 2 face-down and 5 face-up cards).
    Table(table::CalibrateTableArgs),
}

#[derive(Subcommand, Debug)]
pub enum EnrollCommand {
    /// Playing cards: labelled single-card photos in DIR (labels.json), or a video in which the
    /// cards are shown to the camera one at a time (--video).
    Cards {
        #[arg(required_unless_present = "video")]
        dir: Option<PathBuf>,
        /// A video pass: each card held still for a moment; the built-in reader names it.
        #[arg(long, conflicts_with = "dir")]
        video: Option<PathBuf>,
        /// The video shows the cards in the order the window's "Teach this deck" asks for them
        /// (clubs, diamonds, hearts, spades; ace to king), and each is taken as the card due,
        /// not as the reader reads it: for a deck the built-in reader reads poorly.
        #[arg(long, requires = "video")]
        in_order: bool,
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        readers: ReaderArgs,
    },
    /// Symbol cards: writes a profile of each symbol's appearance.
    Symbols(vision_symbols::EnrollSymbols),
}

/// A command whose reader stops early (`card-referee eval cards DIR | head`) ends as other
/// command-line tools do, killed quietly by SIGPIPE, instead of panicking in `println!` (Rust
/// ignores the signal by default). Not for the window, whose display connection may close.
fn quiet_when_output_closes() {
    #[cfg(unix)]
    // SAFETY: only restores the signal's default action, before any thread of ours writes.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Runs a parsed command line and says how the process should exit.
pub fn run(cli: Cli) -> ExitCode {
    if !matches!(cli.command, None | Some(Command::Window(_))) {
        quiet_when_output_closes();
    }
    let command = cli.command.unwrap_or(Command::Window(capture::WindowArgs::default()));
    let (input, readers) = command.frame_options();
    let input = input.map_or_else(|| cli.input.clone(), |i| i.or(&cli.input));
    let readers = readers.map_or(cli.readers, |r| r.or(&cli.readers));
    vision_cards::set_readers(vision_cards::Readers {
        corner: readers.corner_reader.map(Into::into),
        loose: readers.loose_reader.map(Into::into),
        full_networks: readers.full_networks,
    });
    match command {
        Command::Window(args) => capture::window(&input, &args),
        Command::Cameras => capture::cameras(),
        Command::Frames(args) => capture::frames(&input, &args),
        Command::Render(command) => render::run(command),
        Command::Detect { images, json, draw, profile, back, .. } => {
            vision_cards::detect(&images, json, draw.as_deref(), profile.as_deref(), back.as_deref())
        }
        Command::Calibrate(CalibrateCommand::Back { images, out }) => vision_cards::calibrate_back(&images, &out),
        Command::Calibrate(CalibrateCommand::Table(args)) => table::calibrate(&input, &args),
        Command::Track(args) => table::track(&input, &args),
        Command::Eval(EvalCommand::Cards { dir, enroll, back, alter, .. }) => {
            vision_cards::eval(&dir, enroll.as_deref(), back.as_deref(), &alter)
        }
        Command::Eval(EvalCommand::Synthetic { scenes, seed, cards, .. }) => {
            vision_cards::eval_synthetic(scenes, seed, cards)
        }
        Command::Enroll(EnrollCommand::Cards { dir, video, in_order, out, .. }) => match (dir, video) {
            (_, Some(video)) if in_order => vision_cards::enroll_video_in_order(&video, &out),
            (_, Some(video)) => vision_cards::enroll_video(&video, &out),
            (Some(dir), None) => vision_cards::enroll(&dir, &out),
            (None, None) => bad_input("enroll cards needs DIR or --video FILE"),
        },
        Command::Enroll(EnrollCommand::Symbols(args)) => vision_symbols::run_enroll(args),
        Command::Eval(EvalCommand::Symbols(args)) => vision_symbols::run_eval(args),
        Command::Eval(EvalCommand::Track(args)) => eval_track::run(&args),
        Command::Symbols { command } => vision_symbols::run(command),
        Command::Omphala { command } => omphala::run(command),
        Command::Referee { command } => referee::run(command, &input),
        Command::Deck { command } => deck::run(command),
        Command::Minigame { command } => minigame::run(command),
        Command::Scorebook(args) => scorebook::run(args),
    }
}

impl Command {
    /// The frame source and card readers this command was given, where it reads either.
    fn frame_options(&self) -> (Option<&InputArgs>, Option<&ReaderArgs>) {
        match self {
            Command::Window(args) => (Some(&args.input), Some(&args.readers)),
            Command::Frames(args) => (Some(&args.input), None),
            Command::Track(args) => (Some(&args.input), Some(&args.readers)),
            Command::Calibrate(CalibrateCommand::Table(args)) => (Some(&args.input), Some(&args.readers)),
            Command::Referee { command } => command.frame_options(),
            Command::Detect { readers, .. }
            | Command::Eval(EvalCommand::Cards { readers, .. } | EvalCommand::Synthetic { readers, .. })
            | Command::Enroll(EnrollCommand::Cards { readers, .. }) => (None, Some(readers)),
            _ => (None, None),
        }
    }
}

/// Prints a one-line error and returns the bad-input exit code.
pub fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_BAD_INPUT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolutions_parse_and_nonsense_is_refused() {
        assert_eq!(parse_resolution("1920x1080"), Ok((1920, 1080)));
        for bad in ["1920", "0x10", "axb", "99999x10"] {
            assert!(parse_resolution(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn card_counts_parse_and_nonsense_is_refused() {
        assert_eq!(parse_card_count("3"), Ok(3..=3));
        assert_eq!(parse_card_count("1-4"), Ok(1..=4));
        for bad in ["0", "4-1", "1-53", "a", "1-", ""] {
            assert!(parse_card_count(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_source_flag_works_after_a_subcommand_and_before_it() {
        let cli = Cli::try_parse_from(["card-referee", "frames", "--source", "demo", "--count", "2"]).unwrap();
        let (input, _) = cli.command.as_ref().unwrap().frame_options();
        assert_eq!(input.unwrap().source, Some(SourceSpec::Demo));
        let cli = Cli::try_parse_from(["card-referee", "--source", "demo"]).unwrap();
        assert_eq!(cli.input.source, Some(SourceSpec::Demo));
    }

    #[test]
    fn commands_that_read_no_frames_do_not_offer_frame_options() {
        use clap::CommandFactory;
        let mut cli = Cli::command();
        for path in [&["omphala", "simulate"][..], &["deck", "check"], &["minigame", "replay"], &["render", "scene"]] {
            let mut command = &mut cli;
            for name in path {
                command = command.find_subcommand_mut(name).unwrap();
            }
            let help = command.render_long_help().to_string();
            for option in ["--source", "--corner-reader", "--resolution", "--full-networks"] {
                assert!(!help.contains(option), "{path:?} offers {option}");
            }
        }
        let frames = cli.find_subcommand_mut("frames").unwrap().render_long_help().to_string();
        assert!(frames.contains("--source") && !frames.contains("--corner-reader"));
    }
}
