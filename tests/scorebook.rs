//! The scorebook from the command line: games refereed or imported are kept once each, the
//! table and the exports agree with the records, and a write killed with SIGKILL leaves whole
//! games only, the rest written by the next run.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use card_referee::referee::omphala::script::ideal_views;
use card_referee::rules::omphala::RuleOptions;
use card_referee::rules::omphala::simulate::play_out;
use card_referee::scorebook::{Filter, Scorebook};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn entry(record: &str) -> card_referee::scorebook::Entry {
    card_referee::scorebook::entry::omphala(record).unwrap()
}

const BIN: &str = env!("CARGO_BIN_EXE_card-referee");

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// `games` whole random games of `players` seats written as records in `dir`.
fn simulate(dir: &Path, players: usize, games: usize, seed: u64) {
    let (players, games, seed) = (players.to_string(), games.to_string(), seed.to_string());
    let dir = dir.to_str().unwrap();
    let (ok, _, err) =
        run(&["omphala", "simulate", "--players", &players, "--games", &games, "--seed", &seed, "--records", dir]);
    assert!(ok, "{err}");
}

#[test]
fn imported_records_are_kept_once_and_the_table_and_exports_agree_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records");
    std::fs::create_dir(&records).unwrap();
    simulate(&records, 3, 6, 11);
    let book = dir.path().join("book.sqlite");
    let book = book.to_str().unwrap();
    let records = records.to_str().unwrap();
    let (ok, out, err) = run(&["scorebook", "--book", book, "import", records, "tests/data/minigame/match.txt"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("10 games added, 0 already in the book, 0 records refused"), "{out}");
    let (ok, out, _) = run(&["scorebook", "--book", book, "import", records]);
    assert!(ok && out.contains("0 games added, 6 already in the book"), "{out}");

    let (_, list, _) = run(&["scorebook", "--book", book, "list", "--game", "omphala"]);
    assert_eq!(list.lines().count(), 6, "{list}");
    let (_, csv, _) = run(&["scorebook", "--book", book, "export", "--format", "csv"]);
    // A row per player per game: six 3-seat games and four mini-games of three players.
    assert_eq!(csv.lines().count(), 1 + 6 * 3 + 4 * 3, "{csv}");
    let won = csv.lines().filter(|l| l.contains(",true,")).count();

    let (_, table, _) = run(&["scorebook", "--book", book, "standings"]);
    let lines: Vec<Vec<&str>> = table.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    let wins: usize = lines.iter().map(|l| l[2].parse::<usize>().unwrap()).sum();
    let games: usize = lines.iter().map(|l| l[1].parse::<usize>().unwrap()).sum();
    assert_eq!((wins, games), (won, 30), "{table}");
    let (_, json, _) = run(&["scorebook", "--book", book, "export", "--format", "json", "--player", "Alice"]);
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed.as_array().unwrap().len(), 10);
}

#[test]
fn a_record_that_is_not_a_finished_game_is_refused_by_name_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.sqlite");
    let (ok, out, err) = run(&[
        "scorebook",
        "--book",
        book.to_str().unwrap(),
        "import",
        "tests/data/omphala/not-your-turn.txt",
        "tests/data/omphala/red-reset.txt",
        "tests/data/omphala/tie-battle.txt",
    ]);
    assert!(!ok);
    assert!(err.contains("not-your-turn.txt: line 10: illegal: It is Bob's turn"), "{err}");
    assert!(err.contains("red-reset.txt: the game is not over"), "{err}");
    assert!(out.contains("1 games added, 0 already in the book, 2 records refused"), "{out}");
    let (_, shown, _) = run(&["scorebook", "--book", book.to_str().unwrap(), "show", "1"]);
    assert!(shown.contains("(battle)") && shown.contains("survivors: Alice 2, Bob 1"), "{shown}");
    let (ok, _, err) = run(&["scorebook", "--book", book.to_str().unwrap(), "show", "7"]);
    assert!(!ok && err.contains("no game 7 in the book"), "{err}");
}

#[test]
fn a_refereed_game_is_kept_once_though_its_journal_is_refereed_again() {
    let dir = tempfile::tempdir().unwrap();
    let views = dir.path().join("views.jsonl");
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let game = play_out(&mut rng, 2, RuleOptions::default(), true).unwrap();
    let mut file = std::fs::File::create(&views).unwrap();
    for (k, v) in ideal_views(RuleOptions::default(), &game.inputs).unwrap().iter().enumerate() {
        for again in [0, 1] {
            let line = serde_json::json!({"frame": 2 * k + again, "ms": (2 * k + again) * 1000, "view": v.view});
            writeln!(file, "{line}").unwrap();
        }
    }
    let (book, journal, record) =
        (dir.path().join("book.sqlite"), dir.path().join("game.jsonl"), dir.path().join("game.txt"));
    for _ in 0..2 {
        let status = Command::new(BIN)
            // The views show no draw once the deck runs low: the players agree the end there.
            .args(["referee", "omphala", "--agree-end", "--names", "P1,P2", "--views"])
            .arg(&views)
            .arg("--journal")
            .arg(&journal)
            .arg("--record")
            .arg(&record)
            .arg("--scorebook")
            .arg(&book)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&status.stderr);
        assert!(status.status.success() && said.contains("in the scorebook"), "{said}");
    }
    let book = Scorebook::open(&book).unwrap();
    let games = book.games(&Filter::default()).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].entry.journal.as_deref(), Some(journal.to_str().unwrap()));
    let record = std::fs::read_to_string(&record).unwrap();
    assert!(record.lines().count() > 40, "a whole game: {record}");
    assert_eq!(
        games[0].entry,
        card_referee::scorebook::Entry { journal: games[0].entry.journal.clone(), ..entry(&record) }
    );
}

#[test]
fn an_import_killed_while_writing_leaves_whole_games_and_the_next_run_writes_each_once() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records");
    std::fs::create_dir(&records).unwrap();
    let games = 400;
    simulate(&records, 4, games, 5);
    let book = dir.path().join("book.sqlite");
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut killed_mid_way = 0;
    for _ in 0..4 {
        let mut child = Command::new(BIN)
            .args(["scorebook", "--book", book.to_str().unwrap(), "import", records.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(rng.random_range(30..400)));
        let finished = child.try_wait().unwrap().is_some();
        child.kill().ok();
        child.wait().unwrap();
        // Whatever the moment, every game in the book is whole: four results, one place 1 at least.
        let kept = Scorebook::open(&book).unwrap().games(&Filter::default()).unwrap();
        for game in &kept {
            assert_eq!(game.entry.results.len(), 4, "game {} is half written", game.id);
            assert!(game.entry.results.iter().any(|r| r.won), "game {}", game.id);
        }
        if !finished && kept.len() < games {
            killed_mid_way += 1;
        }
    }
    assert!(killed_mid_way > 0, "no import was killed while writing: the test proved nothing");
    let (ok, out, err) = run(&["scorebook", "--book", book.to_str().unwrap(), "import", records.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.ends_with("already in the book, 0 records refused\n"), "{out}");
    assert_eq!(Scorebook::open(&book).unwrap().count().unwrap(), games as i64);
}

#[test]
fn four_tables_writing_one_book_at_once_lose_and_double_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.sqlite");
    let folders: Vec<std::path::PathBuf> = (0..4).map(|k| dir.path().join(format!("table{k}"))).collect();
    for (k, folder) in folders.iter().enumerate() {
        std::fs::create_dir(folder).unwrap();
        simulate(folder, 2 + k % 3, 60, 300 + k as u64);
    }
    let children: Vec<std::process::Child> = folders
        .iter()
        .map(|folder| {
            Command::new(BIN)
                .args(["scorebook", "--book", book.to_str().unwrap(), "import", folder.to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{said}");
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("60 games added"), "{said}");
    }
    let book = Scorebook::open(&book).unwrap();
    assert_eq!(book.count().unwrap(), 240);
    assert_eq!(book.games(&Filter { kind: Some("omphala".into()), ..Filter::default() }).unwrap().len(), 240);
}
