//! `card-referee` (the window), `cameras` and `frames`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use opencv::core::Vector;
use opencv::imgcodecs;

use super::{InputArgs, bad_input};
use crate::capture::{self, SourceSpec};

#[derive(clap::Args, Debug)]
pub struct FramesArgs {
    /// Stop after this many frames (the demo and cameras never end by themselves).
    #[arg(long, default_value_t = 30)]
    pub count: u64,
    /// Save each frame as a PNG in this folder.
    #[arg(long)]
    pub save: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(clap::Args, Debug, Default)]
pub struct WindowArgs {
    /// Offer this journal's game for resuming (default: the last unfinished game).
    #[arg(long, value_name = "JOURNAL")]
    pub resume: Option<PathBuf>,
    /// Save a picture of the window as PNG after --after seconds, then close it.
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// Seconds to run before the screenshot.
    #[arg(long, default_value_t = 30.0)]
    pub after: f64,
    /// Text and controls large enough to read from the table.
    #[arg(long)]
    pub large_type: bool,
    /// The game at the table: omphala, tower, well, hot-potato or poisoned-gift (default: as
    /// last time). The demo table always plays Omphala.
    #[arg(long, value_parser = ["omphala", "tower", "well", "hot-potato", "poisoned-gift"])]
    pub game: Option<String>,
    /// A mini-game's claims (`TIME SEAT SYMBOL [> TARGET]` lines), made at their times.
    #[arg(long, value_name = "FILE")]
    pub claims: Option<PathBuf>,
    /// Where each seat's rows lie (`calibrate table` writes one; as last time when not given).
    #[arg(long, value_name = "FILE")]
    pub layout: Option<PathBuf>,
    /// The players' names in seat order, comma-separated (as last time when not given).
    #[arg(long, value_delimiter = ',')]
    pub names: Vec<String>,
    /// Open on the Scorebook screen (tonight's table).
    #[arg(long)]
    pub show_scorebook: bool,
    /// Keep journals, layouts, decks and the scorebook here (default: the app's data folder).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Keep finished games in this scorebook instead of scorebook.sqlite in the data folder: a
    /// file, or a PostgreSQL server the tables of a club share (postgres://USER@HOST/DATABASE).
    #[arg(long, value_name = "FILE|URL")]
    pub scorebook: Option<PathBuf>,
    /// Serve the page for the room here: the live standings, whose turn, the last rulings and
    /// tonight's table, updating by itself (127.0.0.1:8080; 0.0.0.0:8080 lets the room's own
    /// network in). Read-only.
    #[arg(long, value_name = "ADDR")]
    pub serve: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub readers: super::ReaderArgs,
}

pub fn window(input: &InputArgs, args: &WindowArgs) -> ExitCode {
    // Check the source here so that a bad one is a one-line error, not a window that says so.
    if let Some(spec) = &input.source
        && let Err(e) = capture::open(spec, &input.capture_options().unwrap_or_default())
    {
        return bad_input(e);
    }
    if let Some(path) = &args.resume
        && let Err(e) = crate::referee::journal::read(path)
    {
        return bad_input(e);
    }
    if let Some(path) = &args.layout
        && let Err(e) = crate::table::TableLayout::load(path)
    {
        return bad_input(e);
    }
    let claims = match &args.claims {
        Some(path) => match window_claims(path, &args.names) {
            Ok(claims) => claims,
            Err(e) => return bad_input(e),
        },
        None => Vec::new(),
    };
    let screenshot = args
        .screenshot
        .clone()
        .map(|path| crate::ui::ScreenshotPlan { path, after: std::time::Duration::from_secs_f64(args.after.max(0.0)) });
    let start = crate::ui::StartOptions {
        source: input.source.clone(),
        capture: input.capture_options(),
        resume: args.resume.clone(),
        screenshot,
        large_type: args.large_type,
        game: args.game.clone(),
        claims,
        names: args.names.clone(),
        layout: args.layout.clone(),
        data_dir: args.data_dir.clone(),
        card_profile: input.card_profile.clone(),
        show_scorebook: args.show_scorebook,
        scorebook: args.scorebook.clone(),
        serve: args.serve.clone(),
    };
    match crate::ui::run(start) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot open the window: {e}");
            ExitCode::FAILURE
        }
    }
}

pub fn cameras() -> ExitCode {
    match capture::list_cameras() {
        Ok(cameras) if cameras.is_empty() => {
            println!("no camera found (use --source demo, file:PATH or folder:PATH)");
            ExitCode::SUCCESS
        }
        Ok(cameras) => {
            for camera in cameras {
                println!("webcam:{}\t{}\t{}", camera.index, camera.name, camera.description);
            }
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(format!("cannot list cameras: {e}")),
    }
}

pub fn frames(input: &InputArgs, args: &FramesArgs) -> ExitCode {
    let spec = input.source.clone().unwrap_or(SourceSpec::Demo);
    let mut source = match capture::open(&spec, &input.capture_options().unwrap_or_default()) {
        Ok(source) => source,
        Err(e) => return bad_input(e),
    };
    if let Some(dir) = &args.save
        && !dir.is_dir()
    {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return bad_input(format!("cannot create '{}': {e}", dir.display()));
        }
        // Said once, so that a mistyped path is noticed.
        eprintln!("created folder {}", dir.display());
    }
    println!("# {}", source.describe());
    for _ in 0..args.count {
        let began = Instant::now();
        let frame = match source.next_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(e) => return bad_input(e),
        };
        let ms = began.elapsed().as_secs_f64() * 1000.0;
        println!(
            "frame {}\t{}x{}\t{:.3}s\t{ms:.1} ms",
            frame.index,
            frame.width(),
            frame.height(),
            frame.time.as_secs_f64()
        );
        if let Some(dir) = &args.save {
            let path = dir.join(format!("frame-{:05}.png", frame.index));
            match imgcodecs::imwrite(path.display().to_string(), &frame.image, &Vector::new()) {
                Ok(true) => {}
                _ => return bad_input(format!("cannot write '{}'", path.display())),
            }
        }
    }
    ExitCode::SUCCESS
}

/// The claims of `path`, seats named by number or by `names`.
fn window_claims(path: &std::path::Path, names: &[String]) -> Result<Vec<crate::referee::minigame::SeatClaim>, String> {
    let text = crate::text_input::read_text(path, 8 << 20, "a claims file").map_err(|e| e.to_string())?;
    let names: Vec<String> = if names.is_empty() { (1..=6).map(|k| format!("P{k}")).collect() } else { names.to_vec() };
    let mut claims = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let parsed = super::referee_minigame::parse_claim(line, &names)
            .map_err(|e| format!("{}: line {}: {e}", path.display(), k + 1))?;
        claims.extend(parsed);
    }
    Ok(claims)
}
