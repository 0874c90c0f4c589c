//! Every record in `tests/data/omphala/` states its expected verdict in header comments:
//!
//! - `# expect: legal`, `# expect: illegal LINE TEXT => REASON` (the first illegal line is the
//!   line reading LINE TEXT, and the refusal contains REASON), or `# expect: malformed L:C`;
//! - `# say: LINE TEXT => WORDS`: the verdict on the first line reading LINE TEXT contains WORDS;
//! - `# winner: NAMES by DECIDER` for a finished game, `# over: no` for an unfinished one.
//!
//! The test judges each record with the library, then a few through the command line for the
//! exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

use card_referee::rules::omphala::notation::parse;
use card_referee::rules::omphala::replay::{replay, verdict_text};

enum Expected {
    Legal,
    Illegal { line_text: String, reason: String },
    Malformed { line: usize, column: usize },
}

struct Header {
    expected: Expected,
    says: Vec<(String, String)>,
    winner: Option<String>,
    unfinished: bool,
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/omphala")
}

fn records() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .expect("tests/data/omphala exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

fn split_arrow(text: &str) -> (String, String) {
    let (left, right) = text.split_once(" => ").unwrap_or_else(|| panic!("'{text}' lacks ' => '"));
    (left.trim().to_string(), right.trim().to_string())
}

fn header(text: &str, file: &Path) -> Header {
    let mut expected = None;
    let mut says = Vec::new();
    let mut winner = None;
    let mut unfinished = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# expect: ") {
            let parsed = if rest == "legal" {
                Expected::Legal
            } else if let Some(rest) = rest.strip_prefix("illegal ") {
                let (line_text, reason) = split_arrow(rest);
                Expected::Illegal { line_text, reason }
            } else if let Some(rest) = rest.strip_prefix("malformed ") {
                let (line, column) = rest.split_once(':').expect("malformed L:C");
                Expected::Malformed { line: line.parse().unwrap(), column: column.parse().unwrap() }
            } else {
                panic!("{}: unknown expectation '{rest}'", file.display());
            };
            assert!(expected.replace(parsed).is_none(), "{}: two expect lines", file.display());
        } else if let Some(rest) = line.strip_prefix("# say: ") {
            says.push(split_arrow(rest));
        } else if let Some(rest) = line.strip_prefix("# winner: ") {
            winner = Some(rest.trim().to_string());
        } else if line.trim() == "# over: no" {
            unfinished = true;
        }
    }
    let expected = expected.unwrap_or_else(|| panic!("{}: no '# expect:' line", file.display()));
    Header { expected, says, winner, unfinished }
}

/// Judges one record and returns what went wrong, if anything.
fn check_record(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let header = header(&text, file);
    let record = match (parse(&text), &header.expected) {
        (Err(error), Expected::Malformed { line, column }) if (error.line, error.column) == (*line, *column) => {
            return Ok(());
        }
        (Err(error), _) => return Err(format!("parse error {error}")),
        (Ok(_), Expected::Malformed { .. }) => return Err("parsed, but should be malformed".into()),
        (Ok(record), _) => record,
    };
    let lines: Vec<&str> = text.lines().collect();
    let outcome = replay(&record);
    match (&outcome.illegal, &header.expected) {
        (None, Expected::Legal) => {}
        (Some((line, why)), Expected::Illegal { line_text, reason }) => {
            if lines[line - 1].trim() != line_text {
                return Err(format!("illegal at line {line} '{}' ({why}), expected at '{line_text}'", lines[line - 1]));
            }
            if !why.message.contains(reason.as_str()) {
                return Err(format!("refusal '{}' lacks '{reason}'", why.message));
            }
        }
        (Some((line, why)), _) => {
            return Err(format!("unexpectedly illegal at line {line}: {why}"));
        }
        (None, _) => return Err("judged legal, but an illegal line was expected".into()),
    }
    for (line_text, words) in &header.says {
        let number =
            lines.iter().position(|l| l.trim() == line_text).ok_or_else(|| format!("no line reads '{line_text}'"))? + 1;
        let verdict = outcome
            .verdicts
            .iter()
            .find(|v| v.line == number)
            .ok_or_else(|| format!("line {number} '{line_text}' was not judged"))?;
        let said = verdict_text(&outcome.state, &verdict.events);
        if !said.contains(words.as_str()) {
            return Err(format!("line {number} '{line_text}' says '{said}', expected '{words}'"));
        }
    }
    match (outcome.state.standings(), &header.winner, header.unfinished) {
        (Some(standings), Some(winner), _) => {
            let names: Vec<&str> = standings.winners.iter().map(|&w| outcome.state.name(w)).collect();
            let actual = format!("{} by {}", names.join(", "), standings.decided_by.label());
            if &actual != winner {
                return Err(format!("winner '{actual}', expected '{winner}'"));
            }
        }
        (None, None, true) => {}
        (_, _, _) if outcome.illegal.is_some() => {}
        (standings, winner, unfinished) => {
            return Err(format!(
                "finished: {}, expected winner {winner:?}, unfinished {unfinished}",
                standings.is_some()
            ));
        }
    }
    Ok(())
}

#[test]
fn every_record_gets_its_expected_verdict() {
    let files = records();
    assert!(files.len() >= 30, "only {} records", files.len());
    let failures: Vec<String> =
        files.iter().filter_map(|file| check_record(file).err().map(|e| format!("{}: {e}", file.display()))).collect();
    assert!(failures.is_empty(), "{} record(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn records_round_trip_exactly_through_the_notation() {
    for file in records() {
        let text = std::fs::read_to_string(&file).unwrap();
        if let Ok(record) = parse(&text) {
            assert_eq!(record.to_string(), text, "{}", file.display());
        }
    }
}

fn referee(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_card-referee")).args(args).output().expect("binary runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8 output");
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

fn data(name: &str) -> String {
    data_dir().join(name).display().to_string()
}

#[test]
fn replay_exit_codes_follow_the_verdict() {
    let (code, out, _) = referee(&["omphala", "replay", &data("tie-battle.txt")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("battle position 1: Alice KH (13) vs Bob 3C (3); destroyed: Bob"), "{out}");
    assert!(out.contains("winner: Alice (decided by battle)"), "{out}");

    let (code, out, err) = referee(&["omphala", "replay", &data("heart-on-diamond.txt")]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("line 6: illegal: A Heart cannot be placed on a Diamond"), "{err}");

    let (code, _, err) = referee(&["omphala", "replay", &data("malformed-card.txt")]);
    assert_eq!(code, 2);
    assert!(err.contains("line 6, column 14"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    let (code, _, err) = referee(&["omphala", "replay", "no/such/game.txt"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/game.txt") && err.lines().count() == 1, "{err}");
}

#[test]
fn legal_lists_actions_in_the_notation() {
    let (code, out, err) = referee(&["omphala", "legal", &data("steal-then-shield.txt")]);
    assert_eq!(code, 0, "{err}");
    // Bob waits for his draw before the turn: no action yet.
    assert!(out.starts_with("# no action: waiting for the card Bob draws"), "{out}");

    let (code, out, _) = referee(&["omphala", "legal", &data("winner-by-count.txt")]);
    assert_eq!(code, 0);
    assert!(out.starts_with("# no action"), "{out}");

    let (code, out, _) = referee(&["omphala", "legal", &data("heart-on-diamond.txt")]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn legal_actions_of_a_fresh_deal_parse_back_and_are_accepted() {
    let path = data("steal-certain-failure.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let prefix: String = text.lines().take_while(|l| !l.starts_with("Alice steal")).map(|l| format!("{l}\n")).collect();
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game.txt");
    std::fs::write(&game, &prefix).unwrap();
    let (code, out, _) = referee(&["omphala", "legal", game.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l == "Alice steal QS Bob JD"), "{out}");
    assert!(!out.lines().any(|l| l == "Alice steal 7S Bob KC"), "{out}");
    for action in out.lines() {
        let record = parse(&format!("{prefix}{action}\n")).unwrap();
        assert!(replay(&record).illegal.is_none(), "{action}");
    }
}

#[test]
fn output_into_a_pipe_closed_early_ends_without_a_panic() {
    use std::process::Stdio;
    // As `card-referee omphala simulate ... | head -1` does once head has its line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_card-referee"))
        .args(["omphala", "simulate", "--players", "3", "--games", "20", "--seed", "5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn simulate_reports_length_tie_breaks_and_speed() {
    let (code, out, err) = referee(&["omphala", "simulate", "--players", "3", "--games", "20", "--seed", "5"]);
    assert_eq!(code, 0, "{err}");
    for words in ["average game length", "battle", "total power", "shared win", "games per second"] {
        assert!(out.contains(words), "{out}");
    }
    let (code, _, _) = referee(&["omphala", "simulate", "--players", "7", "--games", "1", "--seed", "1"]);
    assert_eq!(code, 2);
}

#[test]
fn the_notation_doc_example_is_a_legal_game_with_the_standings_it_shows() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/omphala-notation.md")).unwrap();
    let example = doc.split("## Example").nth(1).expect("an Example section");
    let blocks: Vec<&str> = example.split("```").collect();
    let game = blocks[1].trim_start_matches('\n');
    let shown = blocks[3].trim_start_matches("text").trim();
    let record = parse(game).expect("the example parses");
    assert_eq!(record.to_string(), game, "the example is in canonical form");
    let judged = replay(&record);
    assert!(judged.illegal.is_none(), "{:?}", judged.illegal);
    let standings = judged.state.standings().expect("finished");
    let lines = card_referee::rules::omphala::replay::standings_lines(&judged.state, standings);
    assert_eq!(lines.join("\n"), shown);
}
