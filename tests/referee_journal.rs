//! The referee's journal survives a crash: `referee omphala` killed with SIGKILL in the middle of
//! a game and started again with the same journal ends with the same game record as a run that
//! was never interrupted. Views come from a simulated game seen by a perfect camera (`--views`),
//! given at 25 times the speed they were recorded so that the kill lands mid-game.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use card_referee::referee::omphala::script::ideal_views;
use card_referee::rules::omphala::RuleOptions;
use card_referee::rules::omphala::simulate::play_out;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const BIN: &str = env!("CARGO_BIN_EXE_card-referee");

fn write_views(path: &std::path::Path) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let game = play_out(&mut rng, 2, RuleOptions::default(), true).unwrap();
    let views = ideal_views(RuleOptions::default(), &game.inputs).unwrap();
    let mut file = std::fs::File::create(path).unwrap();
    for (k, v) in views.iter().enumerate() {
        // Each view twice, a second apart, as a settled view that stays is given again.
        for again in [0, 1] {
            let line = serde_json::json!({"frame": 2 * k + again, "ms": (2 * k + again) * 1000, "view": v.view});
            writeln!(file, "{line}").unwrap();
        }
    }
    views.len()
}

fn referee(views: &std::path::Path, journal: &std::path::Path, record: &std::path::Path, speed: &str) -> Command {
    let mut command = Command::new(BIN);
    command.args(["referee", "omphala", "--names", "P1,P2", "--speed", speed, "--views"]);
    command.arg(views).arg("--journal").arg(journal).arg("--record").arg(record);
    command
}

#[test]
fn a_game_killed_mid_way_resumes_from_its_journal_to_the_same_record() {
    let dir = tempfile::tempdir().unwrap();
    let views = dir.path().join("views.jsonl");
    let count = write_views(&views);
    assert!(count > 40, "a whole game: {count} views");

    let whole = dir.path().join("whole.txt");
    let status = referee(&views, &dir.path().join("whole.jsonl"), &whole, "0").stdout(Stdio::null()).status().unwrap();
    assert!(status.success());

    let journal = dir.path().join("crash.jsonl");
    let resumed = dir.path().join("resumed.txt");
    let mut child = referee(&views, &journal, &resumed, "25").stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Kill it once it has ruled on a good part of the game.
    for _ in 0..40 {
        lines.next().unwrap().unwrap();
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!resumed.exists(), "killed before the end");
    let committed_before = std::fs::read_to_string(&journal).unwrap().matches("\"kind\":\"commit\"").count();
    assert!(committed_before > 5, "{committed_before} commits journaled before the kill");

    let status = referee(&views, &journal, &resumed, "0").stdout(Stdio::null()).status().unwrap();
    assert!(status.success());
    let (whole, resumed) = (std::fs::read_to_string(&whole).unwrap(), std::fs::read_to_string(&resumed).unwrap());
    assert!(whole.lines().count() > 40, "{whole}");
    assert_eq!(resumed, whole);
}

#[test]
fn a_corrupt_journal_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let views = dir.path().join("views.jsonl");
    write_views(&views);
    let journal = dir.path().join("bad.jsonl");
    std::fs::write(&journal, "{\"kind\":\"start\",\"names\":[\"P1\",\"P2\"],\"options\":\"\"}\nnot json\n{}\n")
        .unwrap();
    let out = referee(&views, &journal, &dir.path().join("r.txt"), "0").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.lines().count() == 1, "{err}");
}
