//! `render scene` and `render demo`: synthetic frames with ground truth, for people and for tests.

use std::path::PathBuf;
use std::process::ExitCode;

use opencv::core::{Size, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};

use super::bad_input;
use crate::render::game::{GameOptions, GameVideo};
use crate::render::{DemoTable, Renderer, SceneOptions, random_scene};

#[derive(clap::Subcommand, Debug)]
pub enum RenderCommand {
    /// One random table scene: the image, and its ground truth as JSON on standard output.
    Scene {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1280)]
        width: i32,
        #[arg(long, default_value_t = 720)]
        height: i32,
        /// Also draw indices with the fonts found under this folder (e.g. /usr/share/fonts).
        #[arg(long)]
        fonts: Option<PathBuf>,
    },
    /// An Omphala game record acted out at a rendered table, as a video (MJPG in AVI), with
    /// OUT.timeline.jsonl (which frames act out which line) and OUT.layout.toml beside it.
    /// Exit 2: missing or malformed record; 1: an illegal line.
    Game {
        /// The game record (docs/omphala-notation.md).
        record: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
        /// Frame size (default 1280x720 for 2 seats, 1920x1080 for more).
        #[arg(long, value_parser = super::parse_resolution, value_name = "WxH")]
        size: Option<(u32, u32)>,
        /// Frames a second.
        #[arg(long, default_value_t = 30)]
        fps: u32,
        /// The players keep their hands in view the whole game (resting at the table's edge,
        /// shifting now and then) and the camera's white balance drifts.
        #[arg(long)]
        hands: bool,
        /// What a real table loses now and then: every 15 to 35 s the camera stalls for 2 s (the
        /// moves made meanwhile seen only once done), or a hand lies over a row for 2 s.
        #[arg(long)]
        lossy: bool,
    },
    /// A mini-game match record acted out with the Cipher deck, as video (MJPG in AVI, one file
    /// per game: OUT itself for a one-game match, else OUT-N.avi), with OUT.claims.txt (the
    /// claims, for `referee tower|well|…`) and OUT.truth.jsonl (the verdicts the rules give)
    /// beside each.
    Match {
        /// The match record (docs/minigame-notation.md).
        record: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_parser = super::parse_resolution, value_name = "WxH", default_value = "1280x720")]
        size: (u32, u32),
        /// Frames a second.
        #[arg(long, default_value_t = 10)]
        fps: u32,
    },
    /// The demo table as a video file (MJPG in AVI).
    Demo {
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(command: RenderCommand) -> ExitCode {
    let result = match command {
        RenderCommand::Game { record, seed, out, size, fps, hands, lossy } => {
            return game(
                &record,
                &GameOptions {
                    seed,
                    size: size.map(|(w, h)| Size::new(w as i32, h as i32)),
                    fps: f64::from(fps),
                    hands_in_view: hands,
                    lossy,
                },
                &out,
            );
        }
        RenderCommand::Scene { seed, out, width, height, fonts } => scene(seed, &out, Size::new(width, height), fonts),
        RenderCommand::Demo { seconds, out } => demo(seconds, &out),
        RenderCommand::Match { record, seed, out, size, fps } => return match_video(&record, seed, &out, size, fps),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => bad_input(message),
    }
}

fn scene(seed: u64, out: &std::path::Path, size: Size, fonts: Option<PathBuf>) -> Result<(), String> {
    if size.width < 64 || size.height < 64 {
        return Err(format!("a scene must be at least 64x64 pixels, not {}x{}", size.width, size.height));
    }
    let fonts = match fonts {
        Some(dir) if !dir.is_dir() => return Err(format!("'{}' is not a folder", dir.display())),
        Some(dir) => crate::render::fonts::fonts_under(&dir),
        None => Vec::new(),
    };
    let options = SceneOptions { size, fonts, ..SceneOptions::default() };
    let rendered = Renderer::new().render(&random_scene(seed, &options)).map_err(|e| e.to_string())?;
    write_image(out, &rendered.image)?;
    let truth = serde_json::json!({"image": out.display().to_string(), "seed": seed, "cards": rendered.truth});
    println!("{truth}");
    Ok(())
}

/// The longest demo video written, in seconds (30 frames each).
const MAX_DEMO_SECONDS: f64 = 3600.0;

fn demo(seconds: f64, out: &std::path::Path) -> Result<(), String> {
    // `inf` or NaN would never end (or write nothing); an hour is already 108,000 frames.
    if !(seconds > 0.0 && seconds <= MAX_DEMO_SECONDS) {
        return Err(format!("--seconds {seconds}: give a number of seconds above 0 and at most {MAX_DEMO_SECONDS}"));
    }
    let size = Size::new(1280, 720);
    let mut writer = video_writer(out, size, 30.0)?;
    let mut table = DemoTable::new(size, 1);
    for i in 0..(seconds * 30.0).round() as u64 {
        let frame = table.frame_at(i as f64 / 30.0).map_err(|e| e.to_string())?;
        writer.write(&frame.image).map_err(|e| e.to_string())?;
    }
    writer.release().map_err(|e| e.to_string())
}

pub fn write_image(path: &std::path::Path, image: &opencv::core::Mat) -> Result<(), String> {
    match imgcodecs::imwrite(path.display().to_string(), image, &Vector::new()) {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!("cannot write '{}': unknown image extension or unwritable place", path.display())),
        Err(e) => Err(format!("cannot write '{}': {}", path.display(), e.message)),
    }
}

/// An MJPG video writer, or why not.
fn video_writer(out: &std::path::Path, size: Size, fps: f64) -> Result<VideoWriter, String> {
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').map_err(|e| e.to_string())?;
    let writer =
        VideoWriter::new(out.display().to_string().as_str(), fourcc, fps, size, true).map_err(|e| e.to_string())?;
    if !writer.is_opened().unwrap_or(false) {
        return Err(format!("cannot write video '{}'", out.display()));
    }
    Ok(writer)
}

/// `OUT` with its extension replaced by `suffix`: game.avi -> game.timeline.jsonl.
pub fn beside(out: &std::path::Path, suffix: &str) -> PathBuf {
    let stem = out.file_stem().map_or_else(|| "game".into(), |s| s.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}.{suffix}"))
}

fn game(record: &std::path::Path, options: &GameOptions, out: &std::path::Path) -> ExitCode {
    let text = match std::fs::read_to_string(record) {
        Ok(text) => text,
        Err(e) => return bad_input(format!("cannot read {}: {e}", record.display())),
    };
    let mut video = match GameVideo::from_text(&text, options) {
        Ok(video) => video,
        Err(e) if e.illegal => {
            eprintln!("error: {}: {e}", record.display());
            return ExitCode::from(super::omphala::EXIT_ILLEGAL);
        }
        Err(e) => return bad_input(format!("{}: {e}", record.display())),
    };
    match write_game(&mut video, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => bad_input(message),
    }
}

fn write_game(video: &mut GameVideo, out: &std::path::Path) -> Result<(), String> {
    let size = video.camera.size;
    let mut writer = video_writer(out, size, video.fps)?;
    let start = std::time::Instant::now();
    let frames = video.frame_count();
    let progress = super::progress::bar(frames as u64, "frames");
    for i in 0..frames {
        let frame = video.render(i).map_err(|e| e.to_string())?;
        writer.write(&frame.image).map_err(|e| e.to_string())?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    writer.release().map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    for (suffix, text) in [("timeline.jsonl", video.timeline_jsonl()), ("layout.toml", video.layout.to_toml())] {
        let path = beside(out, suffix);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!(
        "{}: {frames} frames ({:.1} s of video at {} fps), {}x{}, {} seats, {} timeline entries; rendered at {:.1} frames/s",
        out.display(),
        frames as f64 / video.fps,
        video.fps,
        size.width,
        size.height,
        video.players(),
        video.timeline().len(),
        frames as f64 / seconds.max(1e-9)
    );
    Ok(())
}

fn match_video(record: &std::path::Path, seed: u64, out: &std::path::Path, size: (u32, u32), fps: u32) -> ExitCode {
    use crate::render::match_video::{MatchOptions, write_films};
    use crate::symbols::notation::{MAX_RECORD_BYTES, replay};
    let text = match crate::text_input::read_text(record, MAX_RECORD_BYTES, "a match record") {
        Ok(text) => text,
        Err(e) => return bad_input(e),
    };
    let result = replay(&text, record.parent().unwrap_or(std::path::Path::new(".")));
    let players = match &result.outcome {
        Ok(series) => series.players.clone(),
        Err(e) => return bad_input(format!("{}: {e}", record.display())),
    };
    let deck = crate::symbols::render::PictureDeck::cipher();
    if !crate::symbols::notation::deck_line(&text).is_some_and(|d| d.eq_ignore_ascii_case(crate::symbols::cipher::NAME))
    {
        return bad_input(format!(
            "{}: only matches played with the Cipher deck (deck cipher) can be rendered",
            record.display()
        ));
    }
    let options = MatchOptions { seed, fps: f64::from(fps), size: (size.0.min(8192) as i32, size.1.min(8192) as i32) };
    match write_films(&result, &players, &deck, &options, out) {
        Ok(paths) => {
            for path in paths {
                println!("wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(e),
    }
}
