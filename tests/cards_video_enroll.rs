//! Enrolment from a short video pass: a video of rendered cards, each held still for a moment with
//! a little motion and blur, enrolls exactly those cards under their own identities, and the
//! profile it makes reads them at least as well as the built-in reader on fresh frames.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use card_referee::cards::Card;
use card_referee::render::face::{FaceStyle, draw_face};
use card_referee::render::random::random_face_style;
use card_referee::vision::cards::decks::enroll::DeckProfile;
use card_referee::vision::cards::{CardDetector, Face};
use opencv::core::{self, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const SHOWN: [&str; 4] = ["AS", "7H", "QD", "10C"];
const FRAME: (i32, i32) = (320, 360);

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_card-referee"))
}

/// A dark table with `face` (if any) turned by `degrees`, shifted by `shift` and scaled to
/// `width` pixels across, blurred by `blur` (Gaussian sigma, 0 for none).
fn frame_with(face: Option<&Mat>, degrees: f64, shift: (f64, f64), width: f64, blur: f64) -> Mat {
    let mut frame =
        Mat::new_rows_cols_with_default(FRAME.1, FRAME.0, core::CV_8UC3, Scalar::new(40.0, 90.0, 30.0, 0.0)).unwrap();
    if let Some(face) = face {
        let scale = width / f64::from(face.cols());
        let centre = core::Point2f::new(face.cols() as f32 / 2.0, face.rows() as f32 / 2.0);
        let mut m = imgproc::get_rotation_matrix_2d(centre, degrees, scale).unwrap();
        *m.at_2d_mut::<f64>(0, 2).unwrap() += f64::from(FRAME.0) / 2.0 - f64::from(centre.x) + shift.0;
        *m.at_2d_mut::<f64>(1, 2).unwrap() += f64::from(FRAME.1) / 2.0 - f64::from(centre.y) + shift.1;
        let size = Size::new(FRAME.0, FRAME.1);
        let border = core::BORDER_TRANSPARENT;
        imgproc::warp_affine(face, &mut frame, &m, size, imgproc::INTER_AREA, border, Scalar::all(0.0)).unwrap();
    }
    if blur > 0.0 {
        let mut blurred = Mat::default();
        imgproc::gaussian_blur_def(&frame, &mut blurred, Size::new(0, 0), blur).unwrap();
        frame = blurred;
    }
    frame
}

fn style() -> FaceStyle {
    random_face_style(&mut ChaCha8Rng::seed_from_u64(11), &[])
}

/// Each card held for 10 frames (drifting a few pixels and degrees, every fourth frame blurred),
/// with 3 empty frames between cards while the next one is fetched.
fn write_pass(path: &Path) {
    write_cards(path, &SHOWN, &style());
}

fn write_cards(path: &Path, shown: &[&str], style: &FaceStyle) {
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap();
    let size = Size::new(FRAME.0, FRAME.1);
    let mut writer = VideoWriter::new(path.to_str().unwrap(), fourcc, 10.0, size, true).unwrap();
    assert!(writer.is_opened().unwrap());
    for (i, code) in shown.iter().enumerate() {
        let face = draw_face(code.parse().unwrap(), style, 240).unwrap();
        for k in 0..10 {
            let t = f64::from(k) + 3.0 * i as f64;
            let blur = if k % 4 == 3 { 1.2 } else { 0.0 };
            let frame =
                frame_with(Some(&face), 3.0 * (0.7 * t).sin(), (2.0 * t.cos(), 1.5 * (0.5 * t).sin()), 190.0, blur);
            writer.write(&frame).unwrap();
        }
        for _ in 0..3 {
            writer.write(&frame_with(None, 0.0, (0.0, 0.0), 0.0, 0.0)).unwrap();
        }
    }
    writer.release().unwrap();
}

/// The reading of the one outline of a frame: (card, confidence).
fn reading(detector: &CardDetector, frame: &Mat) -> (Option<Card>, f32) {
    let found = detector.detect(frame).unwrap();
    let card = found.iter().find(|d| d.quad.is_some() && d.face == Face::Up).expect("the card's outline");
    (card.card, card.confidence)
}

#[test]
fn a_video_pass_enrolls_the_cards_shown_and_reads_them_as_well_or_better() {
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("pass.avi");
    write_pass(&video);
    if let Ok(keep) = std::env::var("KEEP_PASS_VIDEO") {
        std::fs::copy(&video, keep).unwrap();
    }
    let out = dir.path().join("deck.json");
    let run = cli().args(["enroll", "cards", "--video"]).arg(&video).arg("--out").arg(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
    eprintln!("{stdout}");
    let line = |prefix: &str| stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or_default().to_string();
    let enrolled: BTreeSet<String> =
        line("enrolled:").trim_start_matches("enrolled:").split_whitespace().map(String::from).collect();
    let shown: BTreeSet<String> = SHOWN.iter().map(|c| c.to_string()).collect();
    assert_eq!(enrolled, shown, "{stdout}");
    // One steady stretch per card held up; the empty table between cards is none.
    assert!(stdout.contains(&format!("{} steady stretches, 0 unread", SHOWN.len())), "{stdout}");
    assert!(line("missing").starts_with(&format!("missing {}:", 52 - SHOWN.len())), "{stdout}");

    // The profile's patches are those of the cards shown, both corners of each.
    let profile = DeckProfile::load(&out).unwrap();
    let shown_cards: BTreeSet<Card> = SHOWN.iter().map(|c| c.parse().unwrap()).collect();
    assert_eq!(profile.cards(), shown_cards);
    for card in &shown_cards {
        let corners = profile.corners.iter().filter(|p| p.card == *card).count();
        assert!(corners >= 2 && corners % 2 == 0, "{card}: {corners} corner patches");
    }

    // Fresh frames of those cards, placed and turned differently: the profile keeps or raises the reading.
    let plain = CardDetector::new().unwrap();
    let mut enrolled_reader = CardDetector::new().unwrap();
    enrolled_reader.set_profile(&profile);
    for code in SHOWN {
        let card: Card = code.parse().unwrap();
        let face = draw_face(card, &style(), 300).unwrap();
        let frame = frame_with(Some(&face), 176.0, (-9.0, 6.0), 170.0, 0.6);
        let (before, before_confidence) = reading(&plain, &frame);
        let (after, after_confidence) = reading(&enrolled_reader, &frame);
        eprintln!("{code}: built-in {before:?} {before_confidence:.3}, enrolled {after:?} {after_confidence:.3}");
        assert_eq!(after, Some(card), "{code}");
        assert!(before != Some(card) || after_confidence + 1e-3 >= before_confidence, "{code}");
    }
}

#[test]
fn a_missing_or_bad_video_is_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("deck.json");
    let bad = dir.path().join("pass.avi");
    std::fs::write(&bad, b"not a video").unwrap();
    for video in [Path::new("/nonexistent/pass.avi"), bad.as_path()] {
        let run = cli().args(["enroll", "cards", "--video"]).arg(video).arg("--out").arg(&out).output().unwrap();
        assert_eq!(run.status.code(), Some(2));
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains(video.to_str().unwrap()) && err.trim().lines().count() == 1, "{err}");
    }
    let run = cli().args(["enroll", "cards", "--out"]).arg(&out).output().unwrap();
    assert_eq!(run.status.code(), Some(2), "neither DIR nor --video");
}

/// `--in-order`: the cards are taken as the teaching's order has them (clubs first, ace to king),
/// not as read; a card the reader is sure is another is refused, said, and not enrolled.
#[test]
fn an_in_order_pass_takes_each_card_as_the_card_due_and_refuses_a_wrong_one() {
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("in-order.avi");
    write_cards(&video, &["AC", "2C", "KS", "3C"], &FaceStyle::default());
    let out = dir.path().join("deck.json");
    let run = cli().args(["enroll", "cards", "--in-order", "--video"]).arg(&video).arg("--out").arg(&out).output();
    let run = run.unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("the reader is sure this is the KS, not the 3C due"), "{stdout}");
    assert!(stdout.lines().any(|l| l == "enrolled: AC 2C 3C"), "{stdout}");
    assert!(stdout.contains("missing 49:"), "{stdout}");
    let profile = DeckProfile::load(&out).unwrap();
    let cards: BTreeSet<String> = profile.cards().iter().map(|c| c.code()).collect();
    assert_eq!(cards, ["2C", "3C", "AC"].map(String::from).into_iter().collect());
}
