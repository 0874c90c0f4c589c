//! Symbol-card recognition on real photographs of a retail deck (read in place from
//! shared/data) and on synthetic Cipher-deck tables.

use std::path::Path;

use card_referee::symbols::deck::Deck;
use card_referee::symbols::render::PictureDeck;
use card_referee::vision::symbols::SymbolRecognizer;
use card_referee::vision::symbols::enroll::enroll_folder;
use card_referee::vision::symbols::eval::{evaluate, evaluate_images};
use card_referee::vision::symbols::labels::read_labels_file;
use card_referee::vision::symbols::synth::synthetic_frame;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/symbols");

/// The retail deck of the shared photos; a test that needs it fails, naming it, when it is
/// missing (CI has the shared data beside the project).
fn retail() -> Deck {
    let path = Path::new(DATA).join("retail-deck/deck.json");
    assert!(path.exists(), "the shared symbol photos are missing: {} (CI has them beside the project)", path.display());
    Deck::load(&path).unwrap()
}

fn cross(enrol: &str, test: &str) -> card_referee::vision::symbols::eval::EvalReport {
    let deck = retail();
    let (profile, _) = enroll_folder(&deck, &Path::new(DATA).join(enrol)).unwrap();
    let recognizer = SymbolRecognizer::new(deck, &profile).unwrap();
    let report = evaluate(&recognizer, &Path::new(DATA).join(test)).unwrap();
    eprintln!("{enrol} -> {test}\n{}", report.text());
    report
}

#[test]
fn enrolled_on_webcam_recognises_scans() {
    let r = cross("webcam-a", "scan");
    assert_eq!(r.cards, 55);
    assert!(r.card_accuracy() >= 0.98, "{}", r.text());
    assert!(r.referee_accuracy() >= 0.96, "{}", r.text());
    assert!(r.symbol_precision() >= 0.95, "{}", r.text());
}

#[test]
fn enrolled_on_scans_recognises_webcam() {
    let r = cross("scan", "webcam-a");
    assert_eq!(r.cards, 55);
    assert!(r.card_accuracy() >= 0.98, "{}", r.text());
    assert!(r.referee_accuracy() >= 0.96, "{}", r.text());
    assert!(r.symbol_precision() >= 0.95, "{}", r.text());
}

#[test]
fn cipher_cards_on_synthetic_tables() {
    let deck = PictureDeck::cipher();
    let recognizer = SymbolRecognizer::cipher().unwrap();
    let (mut cards, mut right, mut wrong) = (0, 0, 0);
    for seed in 0..6u64 {
        let (frame, truth) = synthetic_frame(&deck, 1000 + seed, 1280, 720, 4).unwrap();
        let found = recognizer.detect(&frame).unwrap();
        for t in truth.iter().filter(|t| t.visible > 0.6) {
            cards += 1;
            let near = t.found_in(&found);
            match near.and_then(|d| d.card) {
                Some(c) if c == t.card => right += 1,
                Some(_) => wrong += 1,
                None => {}
            }
        }
    }
    eprintln!("synthetic cipher: {right}/{cards} right, {wrong} wrong");
    assert!(right as f64 >= 0.95 * cards as f64, "{right}/{cards}");
    assert!(wrong <= 1, "{wrong} misidentified");
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_card-referee")).args(args).output().unwrap()
}

#[test]
fn command_line_enrols_detects_as_json_and_rejects_bad_input() {
    retail();
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile.json");
    let (deck, webcam) = (format!("{DATA}/retail-deck/deck.json"), format!("{DATA}/webcam-a"));
    let out = cli(&["enroll", "symbols", &webcam, "--deck", &deck, "--out", profile.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let image = format!("{DATA}/scan/01.jpg");
    let out = cli(&["symbols", "detect", &image, "--deck", &deck, "--profile", profile.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["image"], "01.jpg");
    assert_eq!(line["cards"][0]["card"], 1);
    assert!(line["cards"][0]["symbols"].as_array().unwrap().len() >= 4);

    // Bad input: exit 2 with a one-line message naming the file.
    let missing = dir.path().join("nope.jpg");
    let out =
        cli(&["symbols", "detect", missing.to_str().unwrap(), "--deck", &deck, "--profile", profile.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.jpg"));
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"format\":").unwrap();
    let out = cli(&["symbols", "detect", &image, "--deck", &deck, "--profile", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.json"));
    let not_image = dir.path().join("text.png");
    std::fs::write(&not_image, "not an image").unwrap();
    let out = cli(&[
        "symbols",
        "detect",
        not_image.to_str().unwrap(),
        "--deck",
        &deck,
        "--profile",
        profile.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = cli(&["eval", "symbols", dir.path().to_str().unwrap(), "--deck", &deck]);
    assert_eq!(out.status.code(), Some(2), "a deck.json without a profile");
}

#[test]
fn cards_of_another_deck_are_mostly_unknown() {
    let deck = retail();
    let (profile, _) = enroll_folder(&deck, &Path::new(DATA).join("scan")).unwrap();
    let recognizer = SymbolRecognizer::new(deck, &profile).unwrap();
    let cipher = PictureDeck::cipher();
    let (mut round, mut named) = (0, 0);
    for seed in 0..4u64 {
        let (frame, _) = synthetic_frame(&cipher, 900 + seed, 1280, 720, 4).unwrap();
        let found = recognizer.detect(&frame).unwrap();
        round += found.len();
        named += found.iter().filter(|d| d.card.is_some()).count();
    }
    eprintln!("cipher cards under the retail profile: {named} of {round} named");
    assert!(round >= 12, "round cards found: {round}");
    assert!(named * 5 <= round, "{named} of {round} foreign cards named as retail cards");
}

/// Real webcam photos of 2 to 6 retail cards on paper and on a rug (another webcam than the one
/// the deck is enrolled from), labelled by eye in tests/data/symbols/webcam-tables.json.
#[test]
fn webcam_tables_are_read_with_no_wrong_name() {
    let deck = retail();
    let (profile, _) = enroll_folder(&deck, &Path::new(DATA).join("webcam-a")).unwrap();
    let recognizer = SymbolRecognizer::new(deck, &profile).unwrap();
    let labels = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/symbols/webcam-tables.json");
    let images = read_labels_file(&labels, &Path::new(DATA).join("webcam-tables")).unwrap();
    let r = evaluate_images(&recognizer, &images).unwrap();
    eprintln!("webcam tables\n{}", r.text());
    assert_eq!((r.images, r.cards, r.pairs_in_photo), (35, 132, 250));
    // Measured: 130/132 named right, none wrong, 240/250 pairs.
    assert!(r.card_accuracy() >= 0.97, "{}", r.text());
    assert_eq!(r.wrong_names(), 0, "{}", r.text());
    assert!(r.referee_accuracy_in_photo() >= 0.95, "{}", r.text());
}
