//! `card-referee detect`, `eval cards`, `enroll cards` and `calibrate back`: playing-card
//! recognition, headless.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Instant;

use opencv::{imgcodecs, prelude::*};

use super::EXIT_BAD_INPUT;
use crate::vision::alter::{self, Alteration};
use crate::vision::cards::decks::back::{BackError, BackProfile};
use crate::vision::cards::decks::enroll::{DeckProfile, EnrollError, read_image};
use crate::vision::cards::labels::{LabelSet, Score, score_image};
use crate::vision::cards::output::{ImageJson, draw};
use crate::vision::cards::{CardDetector, Face, Reader};

fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_BAD_INPUT)
}

fn internal(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// The readers chosen on the command line (`--corner-reader`, `--loose-reader`,
/// `--full-networks`), where chosen.
#[derive(Clone, Copy, Debug, Default)]
pub struct Readers {
    pub corner: Option<Reader>,
    pub loose: Option<Reader>,
    pub full_networks: bool,
}

static READERS: OnceLock<Readers> = OnceLock::new();

/// Sets the readers every detector of this run uses; the first call wins.
pub fn set_readers(readers: Readers) {
    let _ = READERS.set(readers);
}

pub(crate) fn detector(
    enroll: Option<&Path>,
    profile: Option<&Path>,
    back: Option<&Path>,
) -> Result<CardDetector, ExitCode> {
    let mut detector = CardDetector::new().map_err(internal)?;
    if let Some(readers) = READERS.get() {
        detector.config.corner_reader = readers.corner.unwrap_or(detector.config.corner_reader);
        detector.config.loose_reader = readers.loose.unwrap_or(detector.config.loose_reader);
        detector.config.quick_networks &= !readers.full_networks;
    }
    if let Some(path) = back {
        detector.set_back(Some(BackProfile::load(path).map_err(back_error)?));
    }
    if let Some(dir) = enroll {
        let (profile, _) = DeckProfile::enroll(dir).map_err(enroll_error)?;
        detector.set_profile(&profile);
    }
    if let Some(path) = profile {
        let profile = DeckProfile::load(path).map_err(enroll_error)?;
        detector.set_profile(&profile);
    }
    Ok(detector)
}

fn back_error(e: BackError) -> ExitCode {
    match e {
        BackError::OpenCv(e) => internal(e),
        other => bad_input(other),
    }
}

fn enroll_error(e: EnrollError) -> ExitCode {
    match e {
        EnrollError::OpenCv(e) => internal(e),
        other => bad_input(other),
    }
}

/// `detect IMAGE... [--json] [--draw OUT.png] [--profile PROFILE] [--back BACK]`.
pub fn detect(
    images: &[PathBuf],
    json: bool,
    draw_to: Option<&Path>,
    profile: Option<&Path>,
    back: Option<&Path>,
) -> ExitCode {
    if draw_to.is_some() && images.len() != 1 {
        return bad_input("--draw takes exactly one IMAGE");
    }
    // A bad image file is refused before the networks load (most of a second).
    for path in images.iter().filter(|p| p.is_file()) {
        if let Err(reason) = crate::vision::image_file::check_file(path) {
            return bad_input(format!("{}: {reason}", path.display()));
        }
    }
    let detector = match detector(None, profile, back) {
        Ok(d) => d,
        Err(code) => return code,
    };
    for path in images {
        let mut frame = match read_image(path) {
            Ok(f) => f,
            Err(e) => return bad_input(e),
        };
        let start = Instant::now();
        let cards = match detector.detect(&frame) {
            Ok(c) => c,
            Err(e) => return internal(format!("{}: {e}", path.display())),
        };
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if json {
            let record = ImageJson::new(name, frame.cols(), frame.rows(), ms, &cards);
            match serde_json::to_string(&record) {
                Ok(line) => println!("{line}"),
                Err(e) => return internal(e),
            }
        } else {
            let up: Vec<String> = cards
                .iter()
                .filter(|c| c.face == Face::Up)
                .map(|c| c.card.map(|k| k.code()).unwrap_or_else(|| "?".into()))
                .collect();
            let down = cards.iter().filter(|c| c.face == Face::Down).count();
            println!("{name}: face up [{}], face down {down}, {ms:.1} ms", up.join(" "));
        }
        if let Some(out) = draw_to {
            if let Err(e) = draw(&mut frame, &cards) {
                return internal(e);
            }
            match imgcodecs::imwrite(out, &frame, &opencv::core::Vector::new()) {
                Ok(true) => {}
                _ => return bad_input(format!("{}: cannot write the image", out.display())),
            }
        }
    }
    ExitCode::SUCCESS
}

/// The figures `eval cards` prints.
#[derive(Clone, Debug, Default)]
pub struct EvalSummary {
    pub score: Score,
    pub face_down_error: f64,
    pub face_down_images: usize,
    pub ms_per_image: f64,
    pub images: usize,
}

/// Scores the detector on `DIR/labels.json`; errors are one-line messages naming the file.
pub fn evaluate(dir: &Path, enroll: Option<&Path>) -> Result<EvalSummary, ExitCode> {
    evaluate_every(dir, enroll, 1)
}

/// As `evaluate`, on every `step`-th labelled image only (quicker checks in tests).
pub fn evaluate_every(dir: &Path, enroll: Option<&Path>, step: usize) -> Result<EvalSummary, ExitCode> {
    evaluate_with(dir, enroll, None, &[], step)
}

/// As `evaluate_every`, with a calibrated card back (`calibrate back`) when one is given, and
/// each photo altered first (`vision::alter`: another light, another camera).
pub fn evaluate_with(
    dir: &Path,
    enroll: Option<&Path>,
    back: Option<&Path>,
    alterations: &[Alteration],
    step: usize,
) -> Result<EvalSummary, ExitCode> {
    let labels = LabelSet::load(&dir.join("labels.json")).map_err(bad_input)?;
    let detector = detector(enroll, None, back)?;
    let mut summary = EvalSummary::default();
    let mut total_ms = 0.0;
    let mut down_error = 0.0;
    let images: Vec<_> = labels.images.iter().step_by(step.max(1)).collect();
    let progress = super::progress::bar(images.len() as u64, "photos");
    for image in images {
        progress.inc(1);
        let photo = read_image(&dir.join(&image.file)).map_err(bad_input)?;
        let frame = alter::apply_all(photo, alterations).map_err(|e| internal(format!("{}: {e}", image.file)))?;
        let start = Instant::now();
        let cards = detector.detect(&frame).map_err(|e| internal(format!("{}: {e}", image.file)))?;
        total_ms += start.elapsed().as_secs_f64() * 1000.0;
        let predicted: Vec<_> = cards.iter().filter_map(|c| c.card).collect();
        summary.score.add(&score_image(&predicted, image, labels.ranks.as_deref()));
        if let Some(expected) = image.face_down {
            let found = cards.iter().filter(|c| c.face == Face::Down).count() as f64;
            down_error += (found - f64::from(expected)).abs();
            summary.face_down_images += 1;
        }
        summary.images += 1;
    }
    progress.finish_and_clear();
    summary.ms_per_image = total_ms / summary.images.max(1) as f64;
    summary.face_down_error = down_error / summary.face_down_images.max(1) as f64;
    Ok(summary)
}

/// Scores the detector on fresh synthetic tables from the renderer (1280×720, tilt up to 45°,
/// cascades, face-down cards, hands, uneven light, blur, noise), each holding `cards` cards (the
/// renderer's 6 to 20 when `None`). A face-up card counts when one of its indices is visible; one
/// whose indices are both hidden is optional.
pub fn evaluate_synthetic(
    scenes: u64,
    first_seed: u64,
    cards: Option<std::ops::RangeInclusive<usize>>,
) -> Result<EvalSummary, ExitCode> {
    use crate::render::{CardTruth, Renderer, SceneOptions, random_scene};
    use crate::vision::cards::labels::{ImageLabels, LabelEntry};
    // No scene scored would read as perfect; a range past the last seed would wrap.
    if scenes == 0 {
        return Err(bad_input("--scenes 0: nothing would be measured"));
    }
    let Some(end) = first_seed.checked_add(scenes) else {
        return Err(bad_input(format!(
            "--seed {first_seed} with --scenes {scenes} runs past the largest seed, {}",
            u64::MAX
        )));
    };
    let detector = detector(None, None, None)?;
    let mut renderer = Renderer::new();
    let (mut summary, mut total_ms, mut down_error) = (EvalSummary::default(), 0.0, 0.0);
    let defaults = SceneOptions::default();
    let options = SceneOptions { cards: cards.unwrap_or(defaults.cards.clone()), ..defaults };
    let progress = super::progress::bar(scenes, "tables");
    for seed in first_seed..end {
        progress.inc(1);
        let rendered = renderer.render(&random_scene(seed, &options)).map_err(internal)?;
        let readable = |t: &&CardTruth| t.face_up && t.index_visible.iter().any(|v| *v);
        let labels = ImageLabels {
            file: format!("seed {seed}"),
            face_up: rendered.truth.iter().filter(readable).map(|t| LabelEntry::Exact(t.card)).collect(),
            optional: rendered
                .truth
                .iter()
                .filter(|t| t.face_up && !readable(t))
                .map(|t| LabelEntry::Exact(t.card))
                .collect(),
            face_down: None,
        };
        let start = Instant::now();
        let cards = detector.detect(&rendered.image).map_err(|e| internal(format!("seed {seed}: {e}")))?;
        total_ms += start.elapsed().as_secs_f64() * 1000.0;
        let predicted: Vec<_> = cards.iter().filter_map(|c| c.card).collect();
        summary.score.add(&score_image(&predicted, &labels, None));
        let expected_down = rendered.truth.iter().filter(|t| !t.face_up && t.visible > 0.5).count() as f64;
        down_error += (cards.iter().filter(|c| c.face == Face::Down).count() as f64 - expected_down).abs();
        summary.face_down_images += 1;
        summary.images += 1;
    }
    progress.finish_and_clear();
    summary.ms_per_image = total_ms / summary.images.max(1) as f64;
    summary.face_down_error = down_error / summary.face_down_images.max(1) as f64;
    Ok(summary)
}

/// `eval synthetic --scenes N --seed S [--cards N|MIN-MAX]`.
pub fn eval_synthetic(scenes: u64, seed: u64, cards: Option<std::ops::RangeInclusive<usize>>) -> ExitCode {
    match evaluate_synthetic(scenes, seed, cards) {
        Ok(s) => print_summary(&s),
        Err(code) => code,
    }
}

/// `eval cards DIR [--enroll DIR] [--back BACK] [--alter A]...`.
pub fn eval(dir: &Path, enroll: Option<&Path>, back: Option<&Path>, alterations: &[Alteration]) -> ExitCode {
    match evaluate_with(dir, enroll, back, alterations, 1) {
        Ok(s) => print_summary(&s),
        Err(code) => code,
    }
}

fn print_summary(s: &EvalSummary) -> ExitCode {
    let sc = &s.score;
    println!("images: {}", s.images);
    println!(
        "true positives: {}, false positives: {}, false negatives: {}",
        sc.true_positives, sc.false_positives, sc.false_negatives
    );
    println!("precision: {:.4}", sc.precision());
    println!("recall: {:.4}", sc.recall());
    println!("F1: {:.4}", sc.f1());
    if s.face_down_images > 0 {
        println!("face-down count error: {:.3} per image ({} images labelled)", s.face_down_error, s.face_down_images);
    } else {
        println!("face-down count error: n/a (no image labels it)");
    }
    let mut counts: HashMap<(String, String), u32> = HashMap::new();
    for pair in &sc.confusions {
        *counts.entry(pair.clone()).or_default() += 1;
    }
    let mut list: Vec<_> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top: Vec<String> = list.iter().take(8).map(|((p, l), n)| format!("{p} for {l} x{n}")).collect();
    println!("commonest confusions: {}", if top.is_empty() { "none".to_string() } else { top.join(", ") });
    println!("ms per image: {:.1}", s.ms_per_image);
    ExitCode::SUCCESS
}

/// `enroll cards DIR --out PROFILE`.
pub fn enroll(dir: &Path, out: &Path) -> ExitCode {
    let (profile, report) = match DeckProfile::enroll(dir) {
        Ok(r) => r,
        Err(e) => return enroll_error(e),
    };
    if let Err(e) = profile.save(out) {
        return bad_input(e);
    }
    println!(
        "enrolled {} cards ({} index corners) into {}; skipped {}{}",
        report.enrolled_cards,
        report.corners,
        out.display(),
        report.skipped.len(),
        if report.skipped.is_empty() { String::new() } else { format!(": {}", report.skipped.join(" ")) }
    );
    ExitCode::SUCCESS
}

/// `enroll cards --video FILE --out PROFILE`: the cards shown one at a time, named by the reader.
pub fn enroll_video(video: &Path, out: &Path) -> ExitCode {
    use crate::vision::cards::decks::video_enroll::VideoEnroller;
    let mut enroller = match VideoEnroller::new() {
        Ok(e) => e,
        Err(e) => return internal(e),
    };
    if let Err(code) = each_frame_of(video, |frame| enroller.push(&frame.image, frame.index)) {
        return code;
    }
    let (profile, report) = match enroller.finish() {
        Ok(done) => done,
        Err(e) => return internal(format!("{}: {e}", video.display())),
    };
    if let Err(e) = profile.save(out) {
        return bad_input(e);
    }
    let codes =
        |cards: &mut dyn Iterator<Item = crate::cards::Card>| cards.map(|c| c.code()).collect::<Vec<_>>().join(" ");
    println!(
        "enrolled {} cards from {} ({} frames, {} steady stretches, {} unread) into {}",
        report.enrolled.len(),
        video.display(),
        report.frames,
        report.stretches,
        report.unread_stretches,
        out.display()
    );
    println!("enrolled: {}", codes(&mut report.enrolled.iter().map(|e| e.card)));
    println!("missing {}: {}", report.missing.len(), codes(&mut report.missing.iter().copied()));
    ExitCode::SUCCESS
}

/// `calibrate back IMAGE... --out BACK`: learns the deck's back from photos of it.
pub fn calibrate_back(images: &[PathBuf], out: &Path) -> ExitCode {
    let profile = match BackProfile::calibrate(images) {
        Ok(p) => p,
        Err(e) => return back_error(e),
    };
    if let Err(e) = profile.save(out) {
        return bad_input(e);
    }
    // How alike the photos are to the profile they made: a low figure means one photo shows
    // something else (or another deck).
    let mut lowest = 1.0f32;
    for path in images {
        let card = read_image(path)
            .ok()
            .and_then(|frame| crate::vision::cards::decks::back::card_in_photo(&frame).ok().flatten());
        if let Some(card) = card {
            lowest = lowest.min(profile.similarity(&card).unwrap_or(0.0));
        }
    }
    println!(
        "calibrated the card back from {} photo{} into {} (lowest similarity of a photo to it: {lowest:.2}; \
         a card counts as the back from {:.2})",
        images.len(),
        if images.len() == 1 { "" } else { "s" },
        out.display(),
        crate::vision::cards::decks::back::MATCH
    );
    ExitCode::SUCCESS
}

/// `enroll cards --video FILE --in-order --out PROFILE`: the cards shown one at a time in the
/// teaching's order, each taken as the card due (`GuidedEnroller`, as the window's teaching).
pub fn enroll_video_in_order(video: &Path, out: &Path) -> ExitCode {
    use crate::vision::cards::decks::guided_enroll::{GuidedEnroller, Showing};
    let mut enroller = match GuidedEnroller::new() {
        Ok(e) => e,
        Err(e) => return internal(e),
    };
    let mut refused = None;
    let passed = each_frame_of(video, |frame| {
        let due = enroller.asked();
        // Said once per card refused: the reader is sure the card shown is another.
        if let Showing::Other(seen) = enroller.push(&frame.image)?
            && refused != Some(*seen)
        {
            let due = due.map_or_else(String::new, |c| c.code());
            println!("frame {}: the reader is sure this is the {seen}, not the {due} due: not taken", frame.index);
            refused = Some(*seen);
        }
        Ok(())
    });
    if let Err(code) = passed {
        return code;
    }
    let taken = enroller.taken();
    let missing: Vec<String> =
        crate::cards::Card::deck().into_iter().filter(|c| !taken.contains(c)).map(|c| c.code()).collect();
    if taken.is_empty() {
        return bad_input(format!("{}: no card was held steady on its own: nothing enrolled", video.display()));
    }
    if let Err(e) = enroller.finish().save(out) {
        return bad_input(e);
    }
    let codes: Vec<String> = taken.iter().map(|c| c.code()).collect();
    println!("enrolled {} cards in order from {} into {}", taken.len(), video.display(), out.display());
    println!("enrolled: {}", codes.join(" "));
    println!("missing {}: {}", missing.len(), missing.join(" "));
    ExitCode::SUCCESS
}

/// Feeds each frame of a video file to `take`: a video that cannot be opened or read is bad
/// input, a frame `take` fails on an internal error, each said with the file (and frame).
fn each_frame_of(
    video: &Path,
    mut take: impl FnMut(&crate::capture::Frame) -> opencv::Result<()>,
) -> Result<(), ExitCode> {
    use crate::capture::{CaptureOptions, SourceSpec};
    let spec = SourceSpec::File(video.to_path_buf());
    let mut source = crate::capture::open(&spec, &CaptureOptions::default()).map_err(bad_input)?;
    while let Some(frame) = source.next_frame().map_err(|e| bad_input(format!("{}: {e}", video.display())))? {
        take(&frame).map_err(|e| internal(format!("{}: frame {}: {e}", video.display(), frame.index)))?;
    }
    Ok(())
}
