//! `card-referee minigame replay`: verdicts, scores and exit codes on recorded matches.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use card_referee::symbols::cipher::cipher_deck;
use card_referee::symbols::games::Outcome;
use card_referee::symbols::notation::{ReplayError, replay};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/minigame")
        .join(name)
}

fn run(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_card-referee"))
        .args(["minigame", "replay"])
        .arg(path)
        .output()
        .expect("the binary runs")
}

#[test]
fn legal_match_replays_with_verdicts_scores_and_winner() {
    let out = run(&data("match.txt"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("line 10: 1.004 s Bob \"Nonce\": too late"), "{stdout}");
    assert!(stdout.contains("line 14: 2.500 s Carol \"Cloud\": wrong: Carol's card 3 and the draw pile's card 20 share Rabbit, not Cloud"), "{stdout}");
    assert!(stdout.contains("line 15: 3.000 s Carol \"Rabit\": correct"), "{stdout}");
    assert!(
        stdout.contains(
            "The Tower over: 1. Alice (3 cards, 0 wrong)  2. Carol (2 cards, 1 wrong)  3. Bob (1 card, 0 wrong)"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("Hot Potato          Alice & Carol"), "{stdout}");
    assert!(stdout.trim_end().ends_with("match winner: Alice"), "{stdout}");
}

/// The replay's verdicts agree with the deck: every correct claim named the pair's real shared symbol.
#[test]
fn verdicts_agree_with_the_deck() {
    let text = std::fs::read_to_string(data("match.txt")).unwrap();
    let result = replay(&text, &data(""));
    let played = result.outcome.unwrap();
    assert_eq!(played.results.len(), 4);
    let deck = cipher_deck();
    let correct: Vec<_> = result
        .verdicts
        .iter()
        .filter(|v| v.outcome == Outcome::Correct)
        .collect();
    assert_eq!(correct.len(), 9);
    for v in correct {
        let (pair, shared) = v.compared.iter().find(|(_, s)| Some(*s) == v.called_symbol).unwrap();
        assert_eq!(deck.shared_symbol(pair.left.1, pair.right.1), Some(*shared));
    }
}

#[test]
fn illegal_observation_stops_at_its_line() {
    let out = run(&data("illegal-seen.txt"));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 8: illegal: card 20 seen on top of Alice's pile, but the rules put card 10 there"),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("line 7: 1.000 s Alice"),
        "verdicts before the error are printed"
    );
}

#[test]
fn malformed_and_missing_records_exit_2() {
    let out = run(&data("malformed-time.txt"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 7: bad time \"soon\""));
    let out = run(&data("no-such-record.txt"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-record.txt"));
}

fn replay_text(text: &str) -> Result<usize, ReplayError> {
    replay(text, Path::new(".")).outcome.map(|m| m.results.len())
}

#[test]
fn rule_breaks_in_records() {
    let head = "deck cipher\nplayers Ann Ben\n";
    // A game that is not over when the record moves on.
    let unfinished = format!("{head}game tower\npile Ann 1\npile Ben 2\ndraw 3 4\ngame well\n");
    assert!(
        matches!(replay_text(&unfinished), Err(ReplayError::Illegal { line: 7, .. })),
        "{:?}",
        replay_text(&unfinished)
    );
    // A deal the rules do not allow: two cards to one player in The Tower.
    let bad_deal = format!("{head}game tower\npile Ann 1 5\npile Ben 2\ndraw 3\nclaim 1 Ann Key\n");
    let err = replay_text(&bad_deal).unwrap_err();
    assert!(
        matches!(&err, ReplayError::Illegal { line: 3, message } if message.contains("exactly one card")),
        "{err:?}"
    );
    // A card dealt twice.
    let twice = format!("{head}game poisoned-gift\npile Ann 1\npile Ben 2\ndraw 2\nend\n");
    assert!(matches!(replay_text(&twice), Err(ReplayError::Illegal { line: 3, .. })));
    // Someone who is not playing.
    let stranger = format!("{head}game tower\npile Ann 1\npile Ben 2\ndraw 3\nclaim 1 Zed Key\n");
    assert!(matches!(
        replay_text(&stranger),
        Err(ReplayError::Malformed { line: 7, .. })
    ));
    // No deck.
    assert!(matches!(
        replay_text("players Ann Ben\ngame tower\n"),
        Err(ReplayError::Malformed { .. })
    ));
    // A deck file that does not exist is bad input, reported with its name.
    let err = replay_text("deck missing.json\nplayers Ann Ben\ngame tower\n").unwrap_err();
    assert!(
        matches!(&err, ReplayError::Malformed { line: 1, message } if message.contains("missing.json")),
        "{err:?}"
    );
}

#[test]
fn penalty_option_is_applied() {
    let deck = cipher_deck();
    let right = deck.symbol_name(deck.shared_symbol(1, 3).unwrap());
    let wrong = deck.symbol_name(deck.shared_symbol(2, 3).unwrap());
    let later = deck.symbol_name(deck.shared_symbol(2, 4).unwrap());
    let record = |penalty: u32| {
        format!(
            "deck cipher\nplayers Ann Ben\noption penalty {penalty}\ngame tower\npile Ann 1\npile Ben 2\ndraw 3 4\n\
             claim 0.5 Ann {}\nclaim 1 Ann {right}\nclaim 2 Ben {later}\n",
            if wrong == right { "Cloud" } else { wrong }
        )
    };
    let winners = |penalty| {
        replay(&record(penalty), Path::new(".")).outcome.unwrap().results[0]
            .places
            .clone()
    };
    assert_eq!(winners(0), vec![vec![0, 1]]);
    assert_eq!(winners(1), vec![vec![1], vec![0]]);
}

#[test]
fn huge_options_do_not_overflow() {
    let deck = cipher_deck();
    let wrong = if deck.shared_symbol(1, 3) == deck.symbol_id("Cloud") {
        "Key"
    } else {
        "Cloud"
    };
    let record = format!(
        "deck cipher\nplayers Ann Ben\noption penalty 4294967295\noption window 18446744073709551615\n\
         game tower\npile Ann 1\npile Ben 2\ndraw 3\nclaim 0.5 Ann {wrong}\nclaim 0.6 Ann {wrong}\nclaim 1 Ben {}\n",
        deck.symbol_name(deck.shared_symbol(2, 3).unwrap())
    );
    let played = replay(&record, Path::new(".")).outcome.unwrap();
    assert_eq!(played.results[0].places, vec![vec![1], vec![0]]);
}
