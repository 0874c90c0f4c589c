//! The referee's journal survives a crash: `referee omphala` killed with SIGKILL at a random
//! moment of a game and started again with the same journal ends with the same game record as a
//! run that was never interrupted. Whole games come as the views a perfect camera gives
//! (`--views`), paced at 25 times the speed they were recorded so that the kill lands mid-game;
//! short games come as rendered video refereed without a layout file (the layout fitted to the
//! deal is journalled too).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use card_referee::referee::omphala::script::ideal_views;
use card_referee::rules::omphala::RuleOptions;
use card_referee::rules::omphala::simulate::play_out;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BIN: &str = env!("CARGO_BIN_EXE_card-referee");

/// Writes the views a perfect camera gives of a random whole game of `players` seats; returns
/// how many.
fn write_views(path: &std::path::Path, players: usize, seed: u64) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let game = play_out(&mut rng, players, RuleOptions::default(), true).unwrap();
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

fn referee(
    views: &std::path::Path,
    names: &str,
    journal: &std::path::Path,
    record: &std::path::Path,
    speed: &str,
) -> Command {
    let mut command = Command::new(BIN);
    command.args(["referee", "omphala", "--names", names, "--speed", speed, "--views"]);
    command.arg(views).arg("--journal").arg(journal).arg("--record").arg(record);
    command
}

/// The seed the kill moments are drawn with: afresh on each run, or `KILL_SEED=N` to draw those
/// of a failed run again (each test prints the one it used).
fn kill_seed() -> u64 {
    let seed = std::env::var("KILL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    eprintln!("kill moments drawn with KILL_SEED={seed}");
    seed
}

/// How many commits (`input` events) the referee's output holds.
fn commits_in(output: &str) -> usize {
    output.matches("\"event\":\"input\"").count()
}

/// Runs `command` with its standard output piped and kills it with SIGKILL a random while (up to
/// 300 ms) after it printed its `kill_after`-th commit.
fn kill_after_commit(command: &mut Command, kill_after: usize, rng: &mut ChaCha8Rng) {
    let linger = std::time::Duration::from_millis(rng.random_range(0..300));
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = 0;
    while seen < kill_after {
        let line = lines.next().expect("the game goes on past the kill").unwrap();
        seen += commits_in(&line);
    }
    std::thread::sleep(linger);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn whole_games_killed_at_a_random_moment_resume_from_their_journals_to_the_same_records() {
    let kill_seed = kill_seed();
    for (players, seed) in [(2, 31), (2, 32), (3, 33), (3, 34), (4, 35)] {
        let dir = tempfile::tempdir().unwrap();
        let views = dir.path().join("views.jsonl");
        let count = write_views(&views, players, seed);
        assert!(count > 40, "a whole game: {count} views");
        let names: Vec<String> = (1..=players).map(|k| format!("P{k}")).collect();
        let names = names.join(",");

        let whole = dir.path().join("whole.txt");
        let out = referee(&views, &names, &dir.path().join("whole.jsonl"), &whole, "0").output().unwrap();
        assert!(out.status.success());
        let commits = commits_in(&String::from_utf8_lossy(&out.stdout));

        // Paced at 25 times the speed the views were recorded, so that the kill lands mid-game,
        // after a random commit of the first three quarters: a game's last commits may follow
        // one another within the kill's random delay (seed 34's last six did), and a kill after
        // the end tests nothing.
        let mut rng = ChaCha8Rng::seed_from_u64(kill_seed ^ seed);
        let kill_after = rng.random_range(1..commits * 3 / 4);
        let (journal, resumed) = (dir.path().join("crash.jsonl"), dir.path().join("resumed.txt"));
        kill_after_commit(&mut referee(&views, &names, &journal, &resumed, "25"), kill_after, &mut rng);
        let at = format!("{players} seats, seed {seed}, killed after commit {kill_after} of {commits}");
        assert!(!resumed.exists(), "{at}: killed before the end");

        let status = referee(&views, &names, &journal, &resumed, "0").stdout(Stdio::null()).status().unwrap();
        assert!(status.success(), "{at}");
        let (whole, resumed) = (std::fs::read_to_string(&whole).unwrap(), std::fs::read_to_string(&resumed).unwrap());
        assert!(whole.lines().count() > 40, "{whole}");
        assert_eq!(resumed, whole, "{at}");
    }
}

#[test]
fn a_corrupt_journal_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let views = dir.path().join("views.jsonl");
    write_views(&views, 2, 31);
    let journal = dir.path().join("bad.jsonl");
    std::fs::write(&journal, "{\"kind\":\"start\",\"names\":[\"P1\",\"P2\"],\"options\":\"\"}\nnot json\n{}\n")
        .unwrap();
    let out = referee(&views, "P1,P2", &journal, &dir.path().join("r.txt"), "0").output().unwrap();
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

/// One short rendered game on video refereed without a layout file (the standard layout is
/// fitted to the deal, and journalled): a run killed with SIGKILL at a random moment and started
/// again with the same journal ends with the record of a run never interrupted. (Whole games on
/// video take minutes each in a debug build: `scripts/kill-resume` runs those.)
fn kill_and_resume_on_video(dir: &std::path::Path, seed: u64, rng: &mut ChaCha8Rng) {
    let seed_text = seed.to_string();
    let dir_text = dir.to_str().unwrap();
    let simulate =
        ["omphala", "simulate", "--players", "2", "--games", "1", "--seed", &seed_text, "--records", dir_text];
    run_ok(&[&simulate[..], &["--max-turns", "5"]].concat());
    // The record is a short game: its first turns, ended by agreement.
    let record = dir.join(format!("omphala-2p-seed{seed}-game000.txt"));
    let text = std::fs::read_to_string(&record).unwrap();
    let names: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("seat ")?.split(' ').next()).collect();
    let video = dir.join("game.avi");
    let video_text = video.to_str().unwrap();
    run_ok(&["render", "game", record.to_str().unwrap(), "--seed", &seed_text, "--out", video_text, "--fps", "5"]);
    let referee = |journal: &str, out: &str| {
        let mut command = Command::new(BIN);
        command.args(["referee", "omphala", "--agree-end", "--names", &names.join(",")]);
        command.arg("--source").arg(format!("file:{}", video.display()));
        command.arg("--oracle").arg(&record).arg("--journal").arg(dir.join(journal)).arg("--record").arg(dir.join(out));
        command
    };
    let whole_run = referee("whole.jsonl", "whole.txt").stderr(Stdio::null()).output().unwrap();
    assert!(whole_run.status.success());
    let commits = commits_in(&String::from_utf8_lossy(&whole_run.stdout));

    let kill_after = rng.random_range(1..commits - 3);
    kill_after_commit(&mut referee("crash.jsonl", "resumed.txt"), kill_after, rng);
    let at = format!("seed {seed}, killed after commit {kill_after} of {commits}");
    assert!(!dir.join("resumed.txt").exists(), "{at}: killed before the end");
    let journal = std::fs::read_to_string(dir.join("crash.jsonl")).unwrap();
    assert!(journal.contains("\"kind\":\"layout\""), "{at}: the fitted layout is journalled");

    let status = referee("crash.jsonl", "resumed.txt").stdout(Stdio::null()).stderr(Stdio::null()).status().unwrap();
    assert!(status.success(), "{at}");
    let whole = std::fs::read_to_string(dir.join("whole.txt")).unwrap();
    let resumed = std::fs::read_to_string(dir.join("resumed.txt")).unwrap();
    assert!(whole.lines().count() > 10, "{at}: the game was refereed:\n{whole}");
    assert_eq!(resumed, whole, "{at}");
}

#[test]
fn a_game_on_video_without_a_layout_file_resumes_after_a_kill_to_the_same_record() {
    let kill_seed = kill_seed();
    std::thread::scope(|scope| {
        for seed in [4101, 4102] {
            scope.spawn(move || {
                let dir = tempfile::tempdir().unwrap();
                let mut rng = ChaCha8Rng::seed_from_u64(kill_seed ^ seed);
                kill_and_resume_on_video(dir.path(), seed, &mut rng);
            });
        }
    });
}
