//! Bad input costs little and reads clearly (issue 41): each case runs the real binary on an
//! input generated here, under a 1 GB address-space limit, and expects exit 1 or 2 soon, with a
//! one-line error naming the file (and the line, where there is one).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use opencv::core::{Mat, Scalar, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;

/// What a run gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// The most a bad-input case may take in a test build: they take milliseconds in a release build;
/// the bound is loose for a loaded machine and a debug build, and still catches a quadratic read
/// (minutes) or a run that never ends.
const PATIENCE: Duration = Duration::from_secs(20);

/// Runs the binary with a 1 GB address-space limit, killed after [`PATIENCE`].
fn run(args: &[&str]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_card-referee"));
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    limit_memory(&mut command);
    let start = Instant::now();
    let mut child = command.spawn().expect("the binary starts");
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            pipe.read_to_end(&mut text).ok();
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > PATIENCE {
            child.kill().ok();
            child.wait().ok();
            panic!("{args:?} still ran after {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run { code, stdout: out.join().unwrap(), stderr: err.join().unwrap(), took: start.elapsed() }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_memory(command: &mut Command) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: setrlimit is async-signal-safe and touches only the child about to exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 1 << 30, rlim_max: 1 << 30 };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_memory(_: &mut Command) {}

/// The run ended with `code` and one error line on stderr holding every one of `words`.
fn refused(run: &Run, code: i32, words: &[&str]) {
    assert_eq!(run.code, Some(code), "stderr: {}\nstdout: {}", run.stderr, run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "one error line: {:?}", run.stderr);
    for word in words {
        assert!(run.stderr.contains(word), "{word:?} not in {:?}", run.stderr);
    }
    assert!(run.took < PATIENCE, "took {:?}", run.took);
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A deck.json of `cards` cards, card c showing `symbols(c)`, over the symbols s0..s{count}.
fn deck_json(cards: usize, symbols: impl Fn(usize) -> Vec<usize>, count: usize) -> String {
    let names: Vec<String> = (0..count).map(|i| format!("\"s{i}\"")).collect();
    let mut text = format!("{{\"name\": \"test\",\n\"symbols\": [{}],\n\"cards\": [\n", names.join(", "));
    for c in 0..cards {
        let on: Vec<String> = symbols(c).iter().map(|i| format!("\"s{i}\"")).collect();
        let comma = if c + 1 < cards { "," } else { "" };
        text.push_str(&format!("{{\"id\": {}, \"symbols\": [{}]}}{comma}\n", c + 1, on.join(", ")));
    }
    text + "]}\n"
}

// 1. Decks far past any real one are refused as read, naming the limit and the line.
#[test]
fn a_deck_of_ten_thousand_cards_is_refused_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let lonely = write(dir.path(), "lonely.json", deck_json(10_000, |c| vec![c], 10_000));
    let crowded = write(dir.path(), "crowded.json", deck_json(10_000, |_| vec![0, 1, 2], 3));
    // The lonely deck passes the symbol limit on line 2, the crowded one the card limit just
    // after its 501st card (line 504; serde_json stops at the line's end).
    for (deck, at, limit) in [
        (&lonely, ":2:", "past a limit: more than 1000 symbols in a deck"),
        (&crowded, ":505:", "past a limit: more than 500 cards in a deck"),
    ] {
        let place = format!("{}{at}", deck.display());
        for args in [
            vec!["deck", "check", s(deck)],
            vec!["deck", "shared", "--deck", s(deck), "1", "2"],
            vec!["symbols", "detect", "--deck", s(deck), "no-such-image.png"],
        ] {
            refused(&run(&args), 2, &[&place, limit]);
        }
    }
}

#[test]
fn a_deck_at_the_limit_with_every_pair_bad_lists_a_few() {
    let dir = tempfile::tempdir().unwrap();
    let deck = write(dir.path(), "d.json", deck_json(500, |_| vec![0, 1, 2], 3));
    let r = run(&["deck", "check", s(&deck)]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 12, "10 problems, the rest counted, a summary: {}", r.stdout);
    assert!(r.stdout.contains("… and 124740 more problems"), "{}", r.stdout);
    assert!(r.stdout.trim_end().ends_with("invalid (124750 problems)"), "{}", r.stdout);
    let r = run(&["deck", "shared", "--deck", s(&deck), "1", "2"]);
    refused(&r, 1, &["invalid deck", "… and 124747 more"]);
}

#[test]
fn names_and_files_past_the_limits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let long = write(dir.path(), "long.json", format!("{{\"symbols\": [\"{}\"], \"cards\": []}}", "x".repeat(5000)));
    refused(
        &run(&["deck", "check", s(&long)]),
        2,
        &["long.json:1:", "past a limit: a name of 5000 characters, more than 100"],
    );
    let big = write(dir.path(), "big.json", " ".repeat(2 << 20));
    refused(&run(&["deck", "check", s(&big)]), 2, &["big.json: larger than 1 MiB, the limit for a deck file"]);
}

// 2. A pair sharing many symbols names a few of them.
#[test]
fn two_cards_sharing_many_symbols_name_a_few() {
    let dir = tempfile::tempdir().unwrap();
    let shared = write(dir.path(), "shared.json", deck_json(2, |_| (0..64).collect(), 64));
    let r = run(&["deck", "check", s(&shared)]);
    assert_eq!(r.code, Some(1));
    assert!(r.stdout.contains("card 1 and card 2 share 64 symbols (s0, s1, s2, s3, s4 … and 59 more)"), "{}", r.stdout);
    // 100,000 shared symbols: past the file, list and card limits at once; refused as read.
    let huge = write(dir.path(), "huge.json", deck_json(2, |_| (0..100_000).collect(), 100_000));
    refused(&run(&["deck", "check", s(&huge)]), 2, &["huge.json: larger than 1 MiB"]);
}

fn seat(i: usize) -> String {
    format!("seat P{i} front ? ? back 2C 3C 4C 5C 6C\n")
}

// 3. A record's seventh seat is refused at its line; seat lines alone are no game.
#[test]
fn many_seat_lines_are_refused_at_the_seventh() {
    let dir = tempfile::tempdir().unwrap();
    let many: String = (0..20_000).map(seat).collect();
    let record = write(dir.path(), "seats.txt", many);
    for command in ["replay", "legal"] {
        let r = run(&["omphala", command, s(&record)]);
        refused(&r, 2, &["seats.txt: line 7, column 1:", "Omphala is played by 2 to 6 players"]);
    }
    let only_seats = write(dir.path(), "only.txt", (0..3).map(seat).collect::<String>());
    refused(&run(&["omphala", "replay", s(&only_seats)]), 2, &["only.txt: line 3", "no 'first' line"]);
    let long = write(dir.path(), "long.txt", format!("# {}\n", "x".repeat(5000)));
    refused(&run(&["omphala", "replay", s(&long)]), 2, &["long.txt: line 1", "longer than 1000 characters"]);
}

// 4. and 6. Deck errors name the file once; a near-miss of a built-in name says so.
#[test]
fn deck_errors_name_the_file_once_and_built_in_names_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.json", "{\"symbols\": [\"a\"], \"cards\": []}");
    let r = run(&["symbols", "detect", "--deck", s(&bad), "x.png"]);
    refused(&r, 2, &["invalid deck"]);
    assert_eq!(r.stderr.matches(s(&bad)).count(), 1, "{}", r.stderr);
    for (name, why) in [
        ("plane-6", "6 is not a prime power"),
        ("plane-0", "too small"),
        ("plane-17", "larger than 16"),
        ("Cipher", "lower case"),
    ] {
        for args in
            [vec!["deck", "shared", "--deck", name, "1", "2"], vec!["symbols", "detect", "--deck", name, "x.png"]]
        {
            let r = run(&args);
            refused(
                &r,
                2,
                &[name, "no built-in deck of this name", why, "built-in decks: cipher, plane-N for N = 2, 3"],
            );
            assert!(!r.stderr.contains("cannot read"), "{}", r.stderr);
        }
    }
}

// 5. A name holding a newline cannot split an error.
#[test]
fn control_characters_in_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let deck = write(
        dir.path(),
        "nl.json",
        r#"{"symbols": ["a", "b"], "cards": [{"id": 1, "symbols": ["a", "b\nerror: forged"]}, {"id": 2, "symbols": ["a", "b"]}]}"#,
    );
    let r = run(&["deck", "shared", "--deck", s(&deck), "1", "2"]);
    refused(&r, 1, &[r#""b\nerror: forged""#]);
    let r = run(&["deck", "check", s(&deck)]);
    assert!(r.stdout.lines().all(|l| !l.starts_with("error: forged")), "{}", r.stdout);
    let record = write(dir.path(), "m.txt", "deck cipher\nplayers A B\ngame \u{1b}[2Jtower\n");
    let r = run(&["minigame", "replay", s(&record)]);
    refused(&r, 2, &["m.txt: line 3", "\\u{1b}[2J"]);
}

fn image(width: i32, height: i32, ext: &str) -> Vec<u8> {
    let mat = Mat::new_rows_cols_with_default(height, width, opencv::core::CV_8UC3, Scalar::all(90.0)).unwrap();
    let mut out = Vector::<u8>::new();
    imgcodecs::imencode(ext, &mat, &mut out, &Vector::new()).unwrap();
    out.to_vec()
}

/// A whole PNG whose header claims `width` × `height` pixels, with no pixel data.
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        bytes.extend((data.len() as u32).to_be_bytes());
        bytes.extend(kind);
        bytes.extend(data);
        bytes.extend([0; 4]);
    };
    let mut header = width.to_be_bytes().to_vec();
    header.extend(height.to_be_bytes());
    header.extend([8, 2, 0, 0, 0]);
    chunk(b"IHDR", &header);
    chunk(b"IEND", &[]);
    bytes
}

// 7. Images too thin, too large or cut short are refused in one line, before OpenCV.
#[test]
fn bad_images_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let jpeg = image(640, 480, ".jpg");
    let png = image(640, 480, ".png");
    let cases = [
        (write(dir.path(), "thin.png", image(1500, 1, ".png")), "too small"),
        (write(dir.path(), "thin3.jpg", image(1500, 3, ".jpg")), "too small"),
        (write(dir.path(), "huge.png", png_claiming(100_000, 100_000)), "the limit is 16384 a side"),
        (write(dir.path(), "half.jpg", &jpeg[..jpeg.len() / 2]), "truncated"),
        (write(dir.path(), "cut.jpg", &jpeg[..jpeg.len() - 2]), "truncated"),
        (write(dir.path(), "half.png", &png[..png.len() / 2]), "truncated"),
    ];
    std::thread::scope(|scope| {
        for (path, why) in &cases {
            for args in [vec!["detect", s(path)], vec!["symbols", "detect", "--deck", "cipher", s(path)]] {
                scope.spawn(move || refused(&run(&args), 2, &[s(path), why]));
            }
        }
    });
}

// 8. Nothing measured is not a perfect score.
#[test]
fn evaluations_of_nothing_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "labels.json", r#"{"format": "card-labels/1", "images": []}"#);
    refused(&run(&["eval", "cards", s(dir.path())]), 2, &["labels.json", "nothing to score"]);
    let r = run(&["eval", "synthetic", "--seed", "18446744073709551615"]);
    refused(&r, 2, &["runs past the largest seed"]);
    refused(&run(&["eval", "synthetic", "--scenes", "0"]), 2, &["nothing would be measured"]);
}

// 9. A deck profile's embeddings must be of the networks' length.
#[test]
fn a_profile_with_embeddings_of_the_wrong_length_is_refused() {
    use card_referee::vision::cards::decks::enroll::{DeckProfile, EnrolledPatch};
    let dir = tempfile::tempdir().unwrap();
    let mut profile = DeckProfile::new();
    profile.corners.push(EnrolledPatch { card: "AS".parse().unwrap(), embedding: vec![0.5; 3] });
    let path = dir.path().join("p.json");
    profile.save(&path).unwrap();
    let r = run(&["detect", "--profile", s(&path), "x.png"]);
    refused(&r, 2, &["p.json", "corners[0].embedding has 3 values; the index network gives"]);
}

// 10. Two players of one name.
#[test]
fn duplicate_players_are_refused_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let record = write(dir.path(), "m.txt", "deck cipher\nplayers Alice Alice\ngame tower\n");
    refused(&run(&["minigame", "replay", s(&record)]), 2, &["m.txt: line 2", "two players are named \"Alice\""]);
}

// 11. A demo of endless length; a folder made for saved frames is reported.
#[test]
fn endless_demos_are_refused_and_created_folders_reported() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo.avi");
    for seconds in ["inf", "NaN", "0", "1e9"] {
        refused(&run(&["render", "demo", "--seconds", seconds, "--out", s(&out)]), 2, &["--seconds"]);
    }
    let folder = dir.path().join("a/b/c");
    let r = run(&["frames", "--source", "demo", "--count", "1", "--save", s(&folder)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stderr.trim_end(), format!("created folder {}", folder.display()));
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1, "one frame saved");
    let again = run(&["frames", "--source", "demo", "--count", "1", "--save", s(&folder)]);
    assert_eq!(again.stderr, "", "an existing folder is not reported");
}

// 12. Invalid UTF-8 is named by line and column.
#[test]
fn invalid_utf8_is_named_by_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut game = std::fs::File::create(dir.path().join("g.txt")).unwrap();
    game.write_all(b"seat Al front ? ? back 2C 3C 4C 5C 6C\nseat B\xffo front\n").unwrap();
    let r = run(&["omphala", "replay", s(&dir.path().join("g.txt"))]);
    refused(&r, 2, &["g.txt:2:7: not UTF-8 text (byte 0xff)"]);
    let record = write(dir.path(), "m.txt", b"deck cipher\nplayers A\xc3 B\n");
    refused(&run(&["minigame", "replay", s(&record)]), 2, &["m.txt:2:10: not UTF-8"]);
    let deck = write(dir.path(), "d.json", b"{\"symbols\": [\"\xfe\"]}");
    let r = run(&["deck", "check", s(&deck)]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("d.json:1:15: not UTF-8"), "{}", r.stderr);
}
