//! Enrolment from photos without card ids (read in place from shared/data): the tool clusters the
//! crops, asks for a few class names, and learns a profile. The labels are read here only to play
//! the user, who names the symbol shown in each asked class's exemplar crop.

use std::collections::HashMap;
use std::path::Path;

use card_referee::symbols::deck::Deck;
use card_referee::vision::symbols::SymbolRecognizer;
use card_referee::vision::symbols::enroll::{CardObservation, enroll_labelled};
use card_referee::vision::symbols::eval::evaluate;
use card_referee::vision::symbols::labels::read_labels;
use card_referee::vision::symbols::unlabelled::{ClassNames, PhotoCrops, Unlabelled, observe_folder};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/symbols");

/// The retail deck of the shared photos; a test that needs it fails, naming it, when it is
/// missing (CI has the shared data beside the project).
fn retail() -> Deck {
    let path = Path::new(DATA).join("retail-deck/deck.json");
    assert!(path.exists(), "the shared symbol photos are missing: {} (CI has them beside the project)", path.display());
    Deck::load(&path).unwrap()
}

/// The user's answer for every crop: which symbol it shows (from the labelled enrolment).
fn answers(deck: &Deck, dir: &Path, photos: &[PhotoCrops]) -> HashMap<(String, usize), String> {
    let labels: HashMap<String, u32> = read_labels(dir).unwrap().into_iter().map(|i| (i.file, i.cards[0])).collect();
    let obs: Vec<CardObservation> = photos
        .iter()
        .map(|p| CardObservation { card: labels[&p.file], blobs: p.blobs.clone(), descriptors: p.descriptors.clone() })
        .collect();
    let (_, truth) = enroll_labelled(deck, &obs).unwrap();
    let mut out = HashMap::new();
    for (p, row) in photos.iter().zip(truth) {
        for (b, s) in row.into_iter().enumerate() {
            if let Some(s) = s {
                out.insert((p.file.clone(), b), deck.symbol_name(s).to_string());
            }
        }
    }
    out
}

#[test]
fn unlabelled_webcam_enrolment_recognises_scans() {
    let deck = retail();
    let dir = Path::new(DATA).join("webcam-a");
    let (photos, _) = observe_folder(&dir).unwrap();
    let un = Unlabelled::new(&deck, photos);
    let user = answers(&deck, &dir, &un.photos);
    let mut request = un.request(&deck);
    for entry in request.classes.iter_mut().filter(|e| e.ask) {
        entry.name = user.get(&(entry.photo.clone(), entry.crop)).cloned();
    }
    let given = un.given_names(&deck, &request, Path::new("names.json")).unwrap();
    eprintln!("{} classes, {} names asked", un.clustering.classes.len(), given.len());
    assert!(given.len() <= 6, "{} names asked", given.len());
    assert!(un.clustering.classes.len() <= 2 * deck.symbols().len());
    let (profile, naming) = un.finish(&deck, &given).unwrap();
    assert!(naming.photo_card.iter().flatten().count() >= 50);
    let recognizer = SymbolRecognizer::new(deck, &profile).unwrap();
    let report = evaluate(&recognizer, &Path::new(DATA).join("scan")).unwrap();
    eprintln!("{}", report.text());
    assert!(report.card_accuracy() >= 0.98, "{}", report.text());
    assert!(report.referee_accuracy() >= 0.96, "{}", report.text());
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_card-referee")).args(args).output().unwrap()
}

#[test]
fn command_line_asks_for_names_then_enrols() {
    let deck = retail();
    let tmp = tempfile::tempdir().unwrap();
    let profile = tmp.path().join("p.json");
    let (deck_path, scan) = (format!("{DATA}/retail-deck/deck.json"), format!("{DATA}/scan"));
    let enrol = |extra: &[&str]| {
        let mut args = vec!["enroll", "symbols", &scan, "--deck", &deck_path, "--out", profile.to_str().unwrap()];
        args.push("--unlabelled");
        args.extend_from_slice(extra);
        cli(&args)
    };
    let out = enrol(&[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!profile.exists(), "no profile before the names");
    let names_path = tmp.path().join("p.json.classes/names.json");
    let mut names = ClassNames::load(&names_path).unwrap();
    assert!(tmp.path().join("p.json.classes").join(&names.classes[0].image).is_file());
    // Play the user.
    let (photos, _) = observe_folder(Path::new(&scan)).unwrap();
    let user = answers(&deck, Path::new(&scan), &photos);
    let asked = names.classes.iter().filter(|e| e.ask).count();
    for entry in names.classes.iter_mut().filter(|e| e.ask) {
        entry.name = user.get(&(entry.photo.clone(), entry.crop)).cloned();
    }
    let filled = tmp.path().join("filled.json");
    std::fs::write(&filled, serde_json::to_string(&names).unwrap()).unwrap();
    let out = enrol(&["--names", filled.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    eprintln!("{asked} names: {}", String::from_utf8_lossy(&out.stdout));
    let out = cli(&[
        "eval",
        "symbols",
        &format!("{DATA}/webcam-a"),
        "--deck",
        &deck_path,
        "--profile",
        profile.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("card-id accuracy: 100.00%") || text.contains("card-id accuracy: 98."), "{text}");

    // Bad names: exit 2 with one line naming the file.
    names.classes.iter_mut().find(|e| e.ask).unwrap().name = Some("Flux capacitor".to_string());
    std::fs::write(&filled, serde_json::to_string(&names).unwrap()).unwrap();
    let out = enrol(&["--names", filled.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("filled.json") && err.contains("Flux capacitor") && err.lines().count() == 1, "{err}");
    std::fs::write(&filled, "{").unwrap();
    let out = enrol(&["--names", filled.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("filled.json"));
}
