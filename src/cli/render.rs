//! `render scene` and `render demo`: synthetic frames with ground truth, for people and for tests.

use std::path::PathBuf;
use std::process::ExitCode;

use opencv::core::{Size, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};

use super::bad_input;
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
        RenderCommand::Scene { seed, out, width, height, fonts } => scene(seed, &out, Size::new(width, height), fonts),
        RenderCommand::Demo { seconds, out } => demo(seconds, &out),
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
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').map_err(|e| e.to_string())?;
    let mut writer =
        VideoWriter::new(out.display().to_string(), fourcc, 30.0, size, true).map_err(|e| e.to_string())?;
    if !writer.is_opened().unwrap_or(false) {
        return Err(format!("cannot write video '{}'", out.display()));
    }
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
