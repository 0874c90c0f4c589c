//! Card-back calibration on renderer frames: a profile calibrated (through the command line) from
//! one rendered photo of a back tells that back from faces and from another back style, and using
//! it does not make the face-down count worse.

use std::path::Path;
use std::process::Command;

use card_referee::geometry::{Pt, quad_contains};
use card_referee::render::face::{BackStyle, bgr};
use card_referee::render::random::back_photo_scene;
use card_referee::render::{Renderer, SceneOptions, random_scene};
use card_referee::vision::cards::decks::back::{BackProfile, MATCH, NO_MATCH};
use card_referee::vision::cards::picture::pixels::rectify;
use card_referee::vision::cards::stages::outlines::find_card_quads;
use card_referee::vision::cards::{CardDetector, Face};
use opencv::core::Vector;
use opencv::imgcodecs;

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_card-referee"))
}

fn the_back() -> BackStyle {
    BackStyle { field: bgr(30, 70, 160), lattice: bgr(120, 170, 230), ..BackStyle::default() }
}

fn another_back() -> BackStyle {
    BackStyle { field: bgr(150, 30, 40), lattice: bgr(230, 200, 90), ..BackStyle::default() }
}

/// Calibrates through `calibrate back` from one rendered photo of `the_back()`.
fn calibrated(dir: &Path) -> BackProfile {
    let photo = Renderer::new().render(&back_photo_scene(7, &the_back())).unwrap().image;
    let photo_path = dir.join("back.png");
    assert!(imgcodecs::imwrite(photo_path.to_str().unwrap(), &photo, &Vector::new()).unwrap());
    let out = dir.join("back.json");
    let run = cli().args(["calibrate", "back"]).arg(&photo_path).arg("--out").arg(&out).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    BackProfile::load(&out).unwrap()
}

fn area(q: &[Pt; 4]) -> f64 {
    (0..4).map(|i| q[i].x * q[(i + 1) % 4].y - q[(i + 1) % 4].x * q[i].y).sum::<f64>().abs() / 2.0
}

#[test]
fn a_calibrated_back_is_told_from_faces_and_other_backs_and_the_face_down_count_holds() {
    let dir = tempfile::tempdir().unwrap();
    let profile = calibrated(dir.path());
    let plain = CardDetector::new().unwrap();
    let mut with_back = CardDetector::new().unwrap();
    with_back.set_back(Some(profile.clone()));
    let mut renderer = Renderer::new();
    let (mut same, mut faces, mut other) = (Vec::new(), Vec::new(), Vec::new());
    let (mut error_plain, mut error_back) = (0.0, 0.0);
    for seed in 0..30 {
        let mut scene = random_scene(300 + seed, &SceneOptions::default());
        for (style, is_same) in [(the_back(), true), (another_back(), false)] {
            scene.back_style = style;
            let rendered = renderer.render(&scene).unwrap();
            for quad in find_card_quads(&rendered.image, 0.004).unwrap() {
                let pts = quad.map(|p| Pt::new(f64::from(p[0]), f64::from(p[1])));
                let centre =
                    Pt::new(pts.iter().map(|p| p.x).sum::<f64>() / 4.0, pts.iter().map(|p| p.y).sum::<f64>() / 4.0);
                // The top-most card under the outline, of about the outline's size.
                let truth = rendered
                    .truth
                    .iter()
                    .rev()
                    .find(|t| quad_contains(&t.quad, centre) && (0.7..1.5).contains(&(area(&pts) / area(&t.quad))));
                let Some(truth) = truth else { continue };
                let s = profile.similarity(&rectify(&rendered.image, &quad).unwrap()).unwrap();
                match (truth.face_up, is_same) {
                    (true, true) => faces.push(s),
                    (false, true) => same.push(s),
                    (false, false) => other.push(s),
                    (true, false) => {}
                }
            }
            if is_same {
                let expected = rendered.truth.iter().filter(|t| !t.face_up && t.visible > 0.5).count() as f64;
                let down = |d: &CardDetector| {
                    d.detect(&rendered.image).unwrap().iter().filter(|c| c.face == Face::Down).count() as f64
                };
                error_plain += (down(&plain) - expected).abs();
                error_back += (down(&with_back) - expected).abs();
            }
        }
    }
    eprintln!("same {same:?}\nother {other:?}\nfaces max {:?}", faces.iter().copied().fold(0.0f32, f32::max));
    eprintln!("face-down count error over 30 scenes: plain {error_plain}, with the back {error_back}");
    assert!(
        same.len() >= 12 && faces.len() >= 60 && other.len() >= 12,
        "{} {} {}",
        same.len(),
        faces.len(),
        other.len()
    );
    let matched = same.iter().filter(|&&s| s >= MATCH).count();
    assert!(matched * 10 >= same.len() * 9, "the back matched {matched} of {}: {same:?}", same.len());
    assert!(faces.iter().all(|&s| s < MATCH), "a face matched the back: {faces:?}");
    assert!(faces.iter().filter(|&&s| s < NO_MATCH).count() * 20 >= faces.len() * 19, "{faces:?}");
    assert!(other.iter().all(|&s| s < MATCH), "another back matched: {other:?}");
    assert!(error_back <= error_plain, "face-down count error {error_back} with the back, {error_plain} without");
}

#[test]
fn bad_back_input_is_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        cli().args(["calibrate", "back", "/nonexistent/back.jpg", "--out"]).arg(dir.path().join("b.json")).output();
    let out = out.unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/back.jpg") && err.trim().lines().count() == 1, "{err}");

    // A plain table: no card outline to calibrate from.
    let empty = dir.path().join("table.png");
    let table =
        opencv::core::Mat::new_rows_cols_with_default(200, 300, opencv::core::CV_8UC3, opencv::core::Scalar::all(60.0));
    assert!(imgcodecs::imwrite(empty.to_str().unwrap(), &table.unwrap(), &Vector::new()).unwrap());
    let out =
        cli().args(["calibrate", "back"]).arg(&empty).arg("--out").arg(dir.path().join("b.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("table.png") && err.contains("no card outline"), "{err}");

    let profile = dir.path().join("back.json");
    std::fs::write(
        &profile,
        r#"{"format": "card-referee-back/1", "photos": 1, "colour": [1.0], "texture": [1.0], "layout": [1.0]}"#,
    )
    .unwrap();
    let photo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/cards/bidly-deck/AS.jpg");
    let out = cli().arg("detect").arg(&photo).arg("--back").arg(&profile).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("back.json") && err.contains("colour") && err.trim().lines().count() == 1, "{err}");
}
