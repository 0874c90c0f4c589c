//! The live mini-game referee on rendered matches: random games of each kind acted out with the
//! Cipher deck (untidy piles, hands carrying cards, claims while a hand moves), read frame by
//! frame by the symbol recogniser, refereed, and every verdict compared with the one the rules
//! give. Also: a referee killed with SIGKILL resumes from its journal with nothing lost.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use card_referee::referee::minigame::{Event, MiniGameOptions, MiniGameReferee, SeatClaim};
use card_referee::render::match_video::{FilmRenderer, MatchOptions, films};
use card_referee::symbols::cipher::cipher_deck;
use card_referee::symbols::games::GameKind;
use card_referee::symbols::notation::replay;
use card_referee::symbols::render::PictureDeck;
use card_referee::symbols::simulate::{SimOptions, random_game};
use card_referee::vision::symbols::SymbolRecognizer;

const BIN: &str = env!("CARGO_BIN_EXE_card-referee");

/// Plays a random game on film and referees it; returns (truth, verdict) outcome codes per claim.
fn referee_rendered(kind: GameKind, seats: usize, seed: u64) -> Vec<(String, String)> {
    let deck = cipher_deck();
    let text = random_game(&deck, "cipher", &SimOptions { kind, seats, size: 3, seed });
    let result = replay(&text, Path::new("."));
    let players = result.outcome.as_ref().unwrap().players.clone();
    let film = films(&result, &players).remove(0);
    let pictures = PictureDeck::cipher();
    // Five frames a second: enough for views to settle, and half the work of ten.
    const STEP_MS: u64 = 200;
    let options = MatchOptions { seed, fps: 1000.0 / STEP_MS as f64, size: (1280, 720) };
    let mut renderer = FilmRenderer::new(&film, &pictures, &options).unwrap();
    let recognizer = SymbolRecognizer::cipher().unwrap();
    let mut referee = MiniGameReferee::new(kind, deck, players, MiniGameOptions::default());
    for c in &film.claims {
        referee.claim(SeatClaim { ms: c.ms, seat: c.seat, called: c.called.clone(), target: c.target });
    }
    let mut events: Vec<Event> = Vec::new();
    let frames = renderer.duration_ms() / STEP_MS;
    for k in 0..frames {
        let frame = renderer.frame(k * STEP_MS).unwrap();
        events.extend(referee.observe(k, k * STEP_MS, &recognizer.round_cards(&frame).unwrap()));
    }
    events.extend(referee.finish(frames * STEP_MS));
    let verdicts: Vec<(u64, usize, String)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Verdict { ms, seat, outcome, .. } => {
                Some((*ms, *seat, serde_json::to_value(outcome).unwrap().as_str().unwrap().to_string()))
            }
            _ => None,
        })
        .collect();
    assert!(!events.iter().any(|e| matches!(e, Event::WrongMove { .. })), "no wrong move was played: {events:?}");
    film.claims
        .iter()
        .map(|c| {
            let got = verdicts.iter().find(|v| v.0 == c.ms && v.1 == c.seat).map_or("missing".into(), |v| v.2.clone());
            (c.outcome.to_string(), got)
        })
        .collect()
}

#[test]
fn rendered_matches_of_every_game_are_refereed_verdict_for_verdict() {
    let mut claims = 0;
    for (kind, seats, seed) in [
        (GameKind::Tower, 2, 11),
        (GameKind::Well, 3, 12),
        (GameKind::HotPotato, 4, 13),
        (GameKind::PoisonedGift, 5, 14),
    ] {
        let judged = referee_rendered(kind, seats, seed);
        claims += judged.len();
        for (truth, got) in &judged {
            assert_eq!(truth, got, "{kind} with {seats} players, seed {seed}: {judged:?}");
        }
    }
    assert!(claims >= 16, "{claims} claims");
}

fn referee_command(video: &Path, claims: &Path, journal: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.args(["referee", "poisoned-gift", "--players", "3", "--source"]);
    command.arg(format!("file:{}", video.display())).arg("--claims").arg(claims).arg("--journal").arg(journal);
    command
}

/// The verdicts and the end a journal holds.
fn ruled(journal: &Path) -> Vec<String> {
    std::fs::read_to_string(journal)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"event\":\"verdict\"") || l.contains("\"event\":\"over\""))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_match_killed_mid_way_resumes_from_its_journal_with_nothing_lost() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("gift.txt");
    let text =
        random_game(&cipher_deck(), "cipher", &SimOptions { kind: GameKind::PoisonedGift, seats: 3, size: 4, seed: 7 });
    std::fs::write(&record, text).unwrap();
    let video = dir.path().join("gift.avi");
    let status = Command::new(BIN)
        .args(["render", "match"])
        .arg(&record)
        .args(["--seed", "7", "--fps", "5", "--out"])
        .arg(&video)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let claims = dir.path().join("gift.claims.txt");

    let whole = dir.path().join("whole.jsonl");
    assert!(referee_command(&video, &claims, &whole).stdout(Stdio::null()).status().unwrap().success());

    // Paced as a camera gives frames, so that the kill lands mid-way.
    let journal = dir.path().join("crash.jsonl");
    let mut child =
        referee_command(&video, &claims, &journal).arg("--realtime").stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut verdicts = 0;
    while verdicts < 3 {
        let line = lines.next().unwrap().unwrap();
        verdicts += usize::from(line.contains("\"event\":\"verdict\""));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = ruled(&journal);
    assert!(before.len() >= 3 && !before.iter().any(|l| l.contains("\"over\"")), "killed mid-way: {before:?}");

    // The resumed game, once over, is kept in the scorebook; kept once however often it is
    // refereed again from its journal.
    let book = dir.path().join("book.sqlite");
    let out = referee_command(&video, &claims, &journal).arg("--scorebook").arg(&book).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.contains("kept in the scorebook"), "{said}");
    let (whole, resumed) = (ruled(&whole), ruled(&journal));
    assert!(whole.len() > 5, "{whole:?}");
    assert_eq!(resumed, whole);
    let again = referee_command(&video, &claims, &journal).arg("--scorebook").arg(&book).output().unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("already kept in the scorebook"));
    let kept = card_referee::scorebook::Scorebook::open(&book).unwrap();
    let games = kept.games(&card_referee::scorebook::Filter::default()).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!((games[0].entry.kind.as_str(), games[0].entry.results.len()), ("poisoned-gift", 3));
}

#[test]
fn a_corrupt_mini_game_journal_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("bad.jsonl");
    std::fs::write(&journal, "{\"event\":\"start\",\"game\":\"tower\",\"players\":[\"P1\",\"P2\"]}\nnot json\n{}\n")
        .unwrap();
    let out = Command::new(BIN)
        .args(["referee", "tower", "--players", "2", "--source", "folder:/nonexistent", "--journal"])
        .arg(&journal)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.lines().count() == 1, "{err}");
}
