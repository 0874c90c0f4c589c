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

/// Runs the command line, failing the test with its error output when it fails.
fn run_ok(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One rendered game on video refereed without a layout file (the standard layout is fitted to
/// the deal, and journalled): a run killed after `kill_after` commits and started again with the
/// same journal ends with the record of a run never interrupted.
fn kill_and_resume_on_video(dir: &std::path::Path, seed: u64, kill_after: usize) {
    let seed_text = seed.to_string();
    let dir_text = dir.to_str().unwrap();
    run_ok(&[
        "omphala",
        "simulate",
        "--players",
        "2",
        "--games",
        "1",
        "--seed",
        &seed_text,
        "--records",
        dir_text,
        "--max-turns",
        "5",
    ]);
    // The record is a short game: its first turns, ended by agreement.
    let record = dir.join(format!("omphala-2p-seed{seed}-game000.txt"));
    let text = std::fs::read_to_string(&record).unwrap();
    let names: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("seat ")?.split(' ').next()).collect();
    let video = dir.join("game.avi");
    run_ok(&[
        "render",
        "game",
        record.to_str().unwrap(),
        "--seed",
        &seed_text,
        "--out",
        video.to_str().unwrap(),
        "--fps",
        "5",
    ]);
    let referee = |journal: &str, out: &str| {
        let mut command = Command::new(BIN);
        command.args(["referee", "omphala", "--agree-end", "--names", &names.join(",")]);
        command.arg("--source").arg(format!("file:{}", video.display()));
        command.arg("--oracle").arg(&record).arg("--journal").arg(dir.join(journal)).arg("--record").arg(dir.join(out));
        command
    };
    let status = referee("whole.jsonl", "whole.txt").stdout(Stdio::null()).stderr(Stdio::null()).status().unwrap();
    assert!(status.success());

    let mut child = referee("crash.jsonl", "resumed.txt").stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut commits = 0;
    while commits < kill_after {
        let line = lines.next().expect("the game goes on past the kill").unwrap();
        commits += usize::from(line.contains("\"event\":\"input\""));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!dir.join("resumed.txt").exists(), "seed {seed}: killed before the end");
    let journal = std::fs::read_to_string(dir.join("crash.jsonl")).unwrap();
    assert!(journal.contains("\"kind\":\"layout\""), "seed {seed}: the fitted layout is journalled");

    let status = referee("crash.jsonl", "resumed.txt").stdout(Stdio::null()).stderr(Stdio::null()).status().unwrap();
    assert!(status.success());
    let whole = std::fs::read_to_string(dir.join("whole.txt")).unwrap();
    let resumed = std::fs::read_to_string(dir.join("resumed.txt")).unwrap();
    assert!(whole.lines().count() > kill_after + 10, "seed {seed}: the game was refereed:\n{whole}");
    assert_eq!(resumed, whole, "seed {seed}");
}

#[test]
fn a_game_on_video_without_a_layout_file_resumes_after_a_kill_to_the_same_record() {
    // The kill lands at a different point of each game: after the deal, or some turns in.
    let games = [(4101, 2), (4102, 9)];
    std::thread::scope(|scope| {
        for (seed, kill_after) in games {
            scope.spawn(move || {
                let dir = tempfile::tempdir().unwrap();
                kill_and_resume_on_video(dir.path(), seed, kill_after);
            });
        }
    });
}
