//! `card-referee track` (each change of the settled view of the table, as JSON lines) and
//! `calibrate table` (the table layout learnt from the deal).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

use super::{InputArgs, bad_input};
use crate::capture::{self, SourceSpec};
use crate::table::{
    CardTracker, Change, MotionGate, SettleConfig, Settler, TableLayout, TrackConfig, learn_layout, place_frame,
    place_in_image,
};
use crate::vision::cards::output::ImageJson;
use crate::vision::cards::{CardDetection, Reading, ReadingReuse};
use opencv::prelude::MatTraitConst;

#[derive(clap::Args, Debug)]
pub struct TrackArgs {
    /// A layout file (`calibrate table` writes one). Without it the standard layout is fitted
    /// to the deal once one is seen; until then cards are reported in image pixels.
    #[arg(long)]
    pub layout: Option<PathBuf>,
    /// Seats at the table, for fitting the standard layout to the deal.
    #[arg(long, default_value_t = 2)]
    pub players: usize,
    /// Stop after this many frames (a camera or the demo never ends by itself).
    #[arg(long)]
    pub frames: Option<u64>,
    /// Also write what the reader found in each frame, one JSON line a frame (`detect --json`'s
    /// image object with the frame's number and time), to see why a card was or was not named.
    #[arg(long)]
    pub detections: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub readers: super::ReaderArgs,
}

#[derive(clap::Args, Debug)]
pub struct CalibrateTableArgs {
    /// Seats at the table.
    #[arg(long)]
    pub players: usize,
    /// Where to write the layout (TOML, calibration/README.md).
    #[arg(long)]
    pub out: PathBuf,
    /// Give up after this many frames.
    #[arg(long, default_value_t = 3000)]
    pub frames: u64,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub readers: super::ReaderArgs,
}

/// The settler's distances: millimetres on the table, or pixels in the image (cards there are
/// about as many pixels wide as millimetres at a whole-table view).
fn settle_config(fps: f64) -> SettleConfig {
    SettleConfig::for_fps(fps)
}

/// One change as a JSON object: frame, time, units, event, track, place, face, card, position.
pub fn change_json(change: &Change, frame: u64, time: f64, units: &str) -> Value {
    let mut out = json!({
        "frame": frame,
        "time": (time * 1000.0).round() / 1000.0,
        "event": change.kind,
        "track": change.track,
    });
    let map = out.as_object_mut().expect("an object");
    if let Ok(Value::Object(place)) = serde_json::to_value(change.place) {
        map.extend(place);
    }
    map.insert("face".into(), json!(change.card.face));
    map.insert("card".into(), json!(change.card.card.map(|c| c.to_string())));
    if change.place != crate::table::Place::Deck {
        let round = |v: f64| (v * 10.0).round() / 10.0;
        map.insert("x".into(), json!(round(change.card.centre.x)));
        map.insert("y".into(), json!(round(change.card.centre.y)));
        map.insert("units".into(), json!(units));
    }
    out
}

/// `track --source S [--layout FILE] [--players N]`.
pub fn track(input: &InputArgs, args: &TrackArgs) -> ExitCode {
    let mut layout = match &args.layout {
        Some(path) => match TableLayout::load(path) {
            Ok(layout) => Some(layout),
            Err(e) => return bad_input(e),
        },
        None => None,
    };
    if layout.is_none() && !(2..=6).contains(&args.players) {
        return bad_input(format!("--players {}: a table has 2 to 6", args.players));
    }
    if layout.is_none() {
        eprintln!(
            "# no --layout: cards are reported in image pixels (\"units\": \"px\", all loose) until a deal of {} seats \
             (2 face down and 5 face up each) settles and the standard layout is fitted to it",
            args.players
        );
    }
    let mut run = match Run::open(input) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let stills = matches!(input.source, Some(SourceSpec::Folder(_)));
    let config = TrackConfig::for_fps(run.fps, stills);
    run.stride = if layout.is_none() { config.stride } else { 1 };
    let mut tracker = CardTracker::new(config, run.fps);
    let mut settler = Settler::new(settle_config(run.fps));
    let mut dump = match args.detections.as_ref().map(std::fs::File::create).transpose() {
        Ok(file) => file.map(std::io::BufWriter::new),
        Err(e) => return bad_input(format!("cannot write '{}': {e}", args.detections.as_ref().unwrap().display())),
    };
    let limit = args.frames.unwrap_or(u64::MAX);
    while run.count < limit {
        let (detections, motion, frame, time) = match run.next() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(code) => return code,
        };
        if let Some(out) = dump.as_mut().filter(|_| run.read) {
            use std::io::Write;
            let (w, h) = (run.image.cols(), run.image.rows());
            let image = ImageJson::new(format!("frame {frame}"), w, h, run.ms, &detections);
            let mut line = serde_json::to_value(image).unwrap_or_default();
            line["frame"] = json!(frame);
            line["time"] = json!(time);
            if let Err(e) = writeln!(out, "{line}") {
                return bad_input(format!("cannot write '{}': {e}", args.detections.as_ref().unwrap().display()));
            }
        }
        let internal = |e: opencv::Error| {
            eprintln!("error: frame {frame}: {e}");
            ExitCode::FAILURE
        };
        let Some(l) = &layout else {
            // Without a layout each card settles on its own, in image pixels.
            if !run.read {
                if let Err(e) = tracker.observe(&run.image) {
                    return internal(e);
                }
                continue;
            }
            let changes = tracker.push_read(&run.image, &detections, run.fresh).map_err(internal);
            let changes = match changes {
                Ok(changes) => changes,
                Err(code) => return code,
            };
            for change in &changes {
                println!("{}", change_json(change, frame, time, "px"));
            }
            if !changes.is_empty()
                && let Ok(learnt) = learn_layout(&detections, args.players)
            {
                println!("{}", json!({"frame": frame, "event": "layout", "seats": learnt.seats.len(), "units": "mm"}));
                layout = Some(learnt);
                run.stride = 1;
            }
            continue;
        };
        let view = match place_frame(&run.image, &detections, l) {
            Ok(view) => view,
            Err(e) => return internal(e),
        };
        if let Some(settled) = settler.push(view, motion) {
            for change in &settled.changes {
                println!("{}", change_json(change, frame, time, "mm"));
            }
        }
    }
    ExitCode::SUCCESS
}

/// `calibrate table --source S --players N --out FILE`.
pub fn calibrate(input: &InputArgs, args: &CalibrateTableArgs) -> ExitCode {
    if !(2..=6).contains(&args.players) {
        return bad_input(format!("--players {}: a table has 2 to 6", args.players));
    }
    let mut run = match Run::open(input) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let mut settler = Settler::new(settle_config(run.fps));
    let mut last_error = String::from("the table never settled");
    while run.count < args.frames {
        let (detections, motion, _, _) = match run.next() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(code) => return code,
        };
        if settler.push(place_in_image(&detections), motion).is_none() {
            continue;
        }
        match learn_layout(&detections, args.players) {
            Ok(layout) => return write_layout(&layout, &args.out),
            Err(e) => last_error = e,
        }
    }
    bad_input(format!("no settled frame showed a deal of {} seats ({last_error})", args.players))
}

fn write_layout(layout: &TableLayout, out: &Path) -> ExitCode {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return bad_input(format!("cannot create '{}': {e}", dir.display()));
    }
    let text = format!(
        "# card-referee table layout: {} seats (calibration/README.md describes the fields)\n{}",
        layout.seats.len(),
        layout.to_toml()
    );
    match std::fs::write(out, text) {
        Ok(()) => {
            println!("wrote {} ({} seats)", out.display(), layout.seats.len());
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(format!("cannot write '{}': {e}", out.display())),
    }
}

/// A source, the card detector and the motion gate, frame by frame.
pub(crate) struct Run {
    source: Box<dyn capture::FrameSource>,
    detector: crate::vision::cards::CardDetector,
    gate: MotionGate,
    pub fps: f64,
    pub count: u64,
    /// Milliseconds the reader took on the last frame.
    pub ms: f64,
    /// Every how many frames the cards are read (the others give no detections).
    pub stride: u64,
    /// Whether the cards of the last frame were read.
    pub read: bool,
    /// Whether the last frame's cards were read in it, not given again from an earlier frame
    /// with the same picture (`ReadingReuse`).
    pub fresh: bool,
    reuse: ReadingReuse,
    /// The last frame read.
    pub image: opencv::core::Mat,
}

/// One frame's detections, its motion, its index and its time in seconds.
pub(crate) type Step = (Vec<CardDetection>, crate::table::Motion, u64, f64);

impl Run {
    pub(crate) fn open(input: &InputArgs) -> Result<Run, ExitCode> {
        let spec = input.source.clone().unwrap_or(SourceSpec::Demo);
        let source = capture::open(&spec, &input.capture_options().unwrap_or_default()).map_err(bad_input)?;
        let detector = super::vision_cards::detector(None, input.card_profile.as_deref(), None)?;
        let fps = source.nominal_fps().unwrap_or(30.0);
        let stills = matches!(spec, SourceSpec::Folder(_));
        Ok(Run {
            source,
            detector,
            gate: MotionGate::new(),
            fps,
            count: 0,
            ms: 0.0,
            stride: 1,
            read: false,
            fresh: false,
            reuse: ReadingReuse::new(stills),
            image: opencv::core::Mat::default(),
        })
    }

    pub(crate) fn next(&mut self) -> Result<Option<Step>, ExitCode> {
        let frame = match self.source.next_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => return Ok(None),
            Err(e) => return Err(bad_input(e)),
        };
        self.count += 1;
        let internal = |e: opencv::Error| {
            eprintln!("error: frame {}: {e}", frame.index);
            ExitCode::FAILURE
        };
        let started = std::time::Instant::now();
        self.read = frame.index.is_multiple_of(self.stride.max(1));
        let reading = if self.read {
            self.reuse.read(&self.detector, &frame.image).map_err(internal)?
        } else {
            Reading::default()
        };
        let Reading { detections, fresh } = reading;
        self.fresh = fresh;
        self.ms = started.elapsed().as_secs_f64() * 1000.0;
        let motion = self.gate.measure(&frame.image).map_err(internal)?;
        let step = (detections, motion, frame.index, frame.time.as_secs_f64());
        self.image = frame.image;
        Ok(Some(step))
    }

    /// The last frame's cards as the reader reads them in it, even where they were given again
    /// from an earlier frame with the same picture.
    pub(crate) fn read_alone(&self) -> opencv::Result<Vec<CardDetection>> {
        self.detector.detect(&self.image)
    }
}
