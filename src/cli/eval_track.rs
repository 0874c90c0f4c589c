//! `card-referee eval track LABELS`: follows a labelled piece of real footage as `track` does
//! (no layout: each card settles on its own) and scores the settled view against the labels
//! (`table::footage`): cards named right at their moments, false names, events while nothing
//! moves, how soon the first moment's cards were named, and milliseconds a frame. Each moment's
//! frame is also scored as the reader reads it alone, with no memory of the frames before: the
//! reader's own precision and recall on real frames.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use super::{InputArgs, bad_input};
use crate::capture::SourceSpec;
use crate::geometry::Pt;
use crate::table::footage::{At, FootageLabels, MomentScore, SETTLE_SECS, score_moment};
use crate::table::{CardTracker, CardView, ChangeKind, Face, TrackConfig};
use crate::vision::cards::CardDetection;
use crate::vision::cards::picture::quad::quad_centre;

#[derive(clap::Args, Debug)]
pub struct EvalTrackArgs {
    /// Labels of real footage (JSON: the source, a card's length in pixels, still stretches and
    /// the face-up cards at chosen moments; `tests/data/footage/` holds the shared videos').
    pub labels: PathBuf,
    /// Follow this source instead of the one the labels name (paths in labels are relative to
    /// the directory `eval track` runs in).
    #[arg(long, value_parser = super::parse_source)]
    pub source: Option<SourceSpec>,
    /// One JSON object with every figure, instead of text.
    #[arg(long)]
    pub json: bool,
    /// Each moment's misses and false names too.
    #[arg(long)]
    pub verbose: bool,
}

/// What one run over labelled footage measured.
#[derive(Debug, Default)]
pub struct TrackEval {
    pub moments: Vec<(String, MomentScore)>,
    /// Events reported in still stretches, `SETTLE_SECS` after each began.
    pub still_events: usize,
    /// For each counted card of the first moment, the seconds from the start of the footage to
    /// its first naming where it lies (`None`: never named there).
    pub first_named: Vec<Option<f64>>,
    /// Milliseconds a frame: reading and tracking.
    pub ms: Vec<f64>,
    /// How many times a shown card's name changed after it was first named.
    pub renames: usize,
    /// Each moment's frame as the reader reads it alone (a frame the tracker only watched for
    /// motion is not read, and not scored).
    pub frames: Vec<(String, MomentScore)>,
}

impl TrackEval {
    pub fn counted(&self) -> usize {
        self.moments.iter().map(|(_, m)| m.counted).sum()
    }

    pub fn right(&self) -> usize {
        self.moments.iter().map(|(_, m)| m.right).sum()
    }

    pub fn false_names(&self) -> usize {
        self.moments.iter().map(|(_, m)| m.false_names.len()).sum()
    }

    /// Counted, named right and named falsely by the reader alone, over the moments' frames.
    pub fn read_alone(&self) -> (usize, usize, usize) {
        let sum = |f: fn(&MomentScore) -> usize| self.frames.iter().map(|(_, m)| f(m)).sum();
        (sum(|m| m.counted), sum(|m| m.right), sum(|m| m.false_names.len()))
    }

    fn mean_ms(&self) -> f64 {
        self.ms.iter().sum::<f64>() / self.ms.len().max(1) as f64
    }

    fn p95_ms(&self) -> f64 {
        let mut ms = self.ms.clone();
        ms.sort_by(f64::total_cmp);
        ms.get(ms.len() * 95 / 100).copied().unwrap_or(0.0)
    }
}

/// Runs the tracker over the labels' footage and scores it.
pub fn evaluate(labels: &FootageLabels, source: &SourceSpec) -> Result<TrackEval, String> {
    let moments = moment_frames(labels, source)?;
    let input = InputArgs { source: Some(source.clone()), ..InputArgs::default() };
    let mut run = super::table::Run::open(&input).map_err(|_| format!("cannot open {source}"))?;
    let stills = matches!(source, SourceSpec::Folder(_));
    let config = TrackConfig::for_fps(run.fps, stills);
    run.stride = config.stride;
    let mut tracker = CardTracker::new(config, run.fps);
    let first: Vec<usize> = labels
        .moments
        .first()
        .map_or(Vec::new(), |m| m.cards.iter().enumerate().filter(|(_, c)| c.counted()).map(|(k, _)| k).collect());
    let mut eval = TrackEval { first_named: vec![None; first.len()], ..TrackEval::default() };
    let mut named_once = std::collections::HashSet::new();
    let settle_frames = (SETTLE_SECS * run.fps).round() as u64;
    loop {
        let started = Instant::now();
        let (detections, _, frame, time) = match run.next() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(_) => return Err(format!("{source}: a frame could not be read")),
        };
        let changes = if run.read {
            tracker.push_read(&run.image, &detections, run.fresh).map_err(|e| format!("frame {frame}: {e}"))?
        } else {
            tracker.observe(&run.image).map_err(|e| format!("frame {frame}: {e}"))?;
            Vec::new()
        };
        eval.ms.push(started.elapsed().as_secs_f64() * 1000.0);
        if labels.still.iter().any(|&(a, b)| frame >= a + settle_frames && frame <= b) {
            eval.still_events += changes.len();
        }
        for change in &changes {
            if change.kind == ChangeKind::Named && !named_once.insert(change.track) {
                eval.renames += 1;
            } else if change.card.card.is_some() {
                named_once.insert(change.track);
            }
        }
        let view = tracker.view();
        if let Some(m) = labels.moments.first() {
            for (slot, &k) in first.iter().enumerate() {
                let label = &m.cards[k];
                let named = view.loose.iter().any(|c| {
                    c.card.is_some_and(|card| label.allowed.contains(&card))
                        && c.centre.distance(label.centre) < 0.7 * labels.card_px
                });
                if named && eval.first_named[slot].is_none() {
                    eval.first_named[slot] = Some(time);
                }
            }
        }
        for (m, _) in moments.iter().enumerate().filter(|(_, at)| **at == frame) {
            let moment = &labels.moments[m];
            let score = score_moment(&moment.cards, &view.loose, labels.card_px);
            eval.moments.push((describe(&moment.at), score));
            if run.read {
                // Scored as the frame reads alone, though the tracker may have been given an
                // earlier frame's reading of the same picture (not timed).
                let alone = if run.fresh { detections.clone() } else { run.read_alone().map_err(|e| e.to_string())? };
                let read: Vec<CardView> = alone.iter().filter_map(seen_alone).collect();
                eval.frames.push((describe(&moment.at), score_moment(&moment.cards, &read, labels.card_px)));
            }
        }
    }
    Ok(eval)
}

/// A detection as one frame shows it, in image pixels: at its outline's centre, or at its
/// index's where no outline was found.
fn seen_alone(d: &CardDetection) -> Option<CardView> {
    let [x, y] = match (d.quad, d.index_boxes.first()) {
        (Some(q), _) => quad_centre(&q).map(f64::from),
        (None, Some(&[x, y, w, h])) => [f64::from(x) + f64::from(w) / 2.0, f64::from(y) + f64::from(h) / 2.0],
        (None, None) => return None,
    };
    Some(CardView { face: Face::from(d.face), card: d.card, centre: Pt::new(x, y) })
}

/// The frame number of each moment: a video's as given, a folder's photo by its place in the
/// folder.
fn moment_frames(labels: &FootageLabels, source: &SourceSpec) -> Result<Vec<u64>, String> {
    let names: Vec<String> = match source {
        SourceSpec::Folder(dir) => crate::capture::image_files(dir)
            .map_err(|e| e.to_string())?
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect(),
        _ => Vec::new(),
    };
    labels
        .moments
        .iter()
        .enumerate()
        .map(|(i, m)| match &m.at {
            At::Frame(f) => Ok(*f),
            At::Image(name) => names
                .iter()
                .position(|n| n == name)
                .map(|p| p as u64)
                .ok_or_else(|| format!("moments[{i}]: no photo '{name}' in {source}")),
        })
        .collect()
}

fn describe(at: &At) -> String {
    match at {
        At::Frame(f) => format!("frame {f}"),
        At::Image(name) => name.clone(),
    }
}

/// `eval track LABELS [--source S] [--json] [--verbose]`.
pub fn run(args: &EvalTrackArgs) -> ExitCode {
    let labels = match FootageLabels::load(&args.labels) {
        Ok(labels) => labels,
        Err(e) => return bad_input(e),
    };
    let source = match &args.source {
        Some(source) => source.clone(),
        None => match labels.source.parse::<SourceSpec>() {
            Ok(source) => source,
            Err(e) => return bad_input(format!("{}: \"source\": {e}", args.labels.display())),
        },
    };
    let eval = match evaluate(&labels, &source) {
        Ok(eval) => eval,
        Err(e) => return bad_input(e),
    };
    print_eval(&args.labels, &eval, args.json, args.verbose);
    ExitCode::SUCCESS
}

fn print_eval(path: &Path, eval: &TrackEval, as_json: bool, verbose: bool) {
    let named: Vec<f64> = eval.first_named.iter().flatten().copied().collect();
    let latest = named.iter().copied().fold(0.0, f64::max);
    let name = path.file_stem().map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let alone = eval.read_alone();
    if as_json {
        let moments: Vec<_> = eval
            .moments
            .iter()
            .map(|(at, m)| {
                json!({
                    "at": at, "counted": m.counted, "right": m.right,
                    "missed": m.missed.iter().map(|c| c.code()).collect::<Vec<_>>(),
                    "false": m.false_names.iter().map(|(c, p)| json!({"card": c.code(), "x": p.x.round(), "y": p.y.round()})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let out = json!({
            "labels": name, "moments": moments, "counted": eval.counted(), "right": eval.right(),
            "false_names": eval.false_names(), "still_events": eval.still_events, "renames": eval.renames,
            "first_named": eval.first_named, "ms_mean": eval.mean_ms(), "ms_p95": eval.p95_ms(), "frames": eval.ms.len(),
            "read_alone": {"moments": eval.frames.len(), "counted": alone.0, "right": alone.1, "false_names": alone.2},
        });
        println!("{out}");
        return;
    }
    if verbose {
        for (at, m) in &eval.moments {
            let missed: Vec<String> = m.missed.iter().map(|c| c.code()).collect();
            let wrong: Vec<String> =
                m.false_names.iter().map(|(c, p)| format!("{}@{:.0},{:.0}", c.code(), p.x, p.y)).collect();
            println!("{at}: named {} of {}; missed {:?}; false {:?}", m.right, m.counted, missed, wrong);
        }
        for (at, m) in &eval.frames {
            let wrong: Vec<String> =
                m.false_names.iter().map(|(c, p)| format!("{}@{:.0},{:.0}", c.code(), p.x, p.y)).collect();
            println!("{at} read alone: named {} of {}; false {:?}", m.right, m.counted, wrong);
        }
    }
    let share = 100.0 * eval.right() as f64 / eval.counted().max(1) as f64;
    println!(
        "{name}: {} moments, named {} of {} ({share:.1} %), false names {}, renames {}, events while still {}, \
         first moment's cards named {} of {} (last at {latest:.2} s), {:.1} ms a frame (p95 {:.1}) over {} frames",
        eval.moments.len(),
        eval.right(),
        eval.counted(),
        eval.false_names(),
        eval.renames,
        eval.still_events,
        named.len(),
        eval.first_named.len(),
        eval.mean_ms(),
        eval.p95_ms(),
        eval.ms.len(),
    );
    println!(
        "{name}, each moment's frame read alone: {} frames, named {} of {} ({:.1} %), false names {}",
        eval.frames.len(),
        alone.1,
        alone.0,
        100.0 * alone.1 as f64 / alone.0.max(1) as f64,
        alone.2,
    );
}
