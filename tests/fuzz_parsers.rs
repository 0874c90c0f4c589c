//! Every parser fuzzed (see `examples/shared/fuzz.rs`), a CI-sized run: 2,000 inputs each, none
//! of which may panic or break the error contract; and the inputs that broke it, reduced.
//! `examples/fuzz_parsers.rs` runs the same targets for as long as one likes.

use std::path::Path;

use card_referee::referee::journal;
use card_referee::rules::omphala::notation;
use card_referee::symbols::deck::Deck;
use card_referee::symbols::notation::replay as replay_match;
use card_referee::table::TableLayout;
use card_referee::vision::cards::decks::back::BackProfile;
use card_referee::vision::cards::decks::enroll::DeckProfile;
use card_referee::vision::cards::labels::LabelSet;
use card_referee::vision::symbols::enroll::SymbolProfile;
use card_referee::vision::symbols::labels::parse_labels;

// The example reads the rest (rates, saved files).
#[allow(dead_code)]
#[path = "../examples/shared/fuzz.rs"]
mod fuzz;

const INPUTS: u64 = 2_000;

#[test]
fn every_parser_takes_arbitrary_and_mutated_input_without_panic() {
    let mut failures = Vec::new();
    for target in fuzz::targets() {
        assert!(!target.seeds.is_empty(), "{}: no seed inputs", target.name);
        let report = fuzz::run(&target, 1, 0, INPUTS, None);
        assert_eq!(report.inputs, INPUTS);
        // The mutated inputs reach past the first check of each format.
        assert!(report.accepted > 0, "{}: no input accepted", target.name);
        for finding in &report.findings {
            let kind = if finding.panic { "panic" } else { "broken contract" };
            let input: String = String::from_utf8_lossy(&finding.input).chars().take(300).collect();
            failures
                .push(format!("{} #{} {kind}: {}\n  input: {input:?}", target.name, finding.index, finding.message));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// Inputs that broke the contract, reduced: each error is one short line of plain text that
// says where.

/// One line, at most a few hundred bytes, no control character; holding every one of `words`.
fn short_line(error: &str, words: &[&str]) {
    assert!(error.len() < 400, "{} bytes: {error}", error.len());
    assert!(!error.chars().any(char::is_control), "{error:?}");
    for word in words {
        assert!(error.contains(word), "{word:?} not in {error:?}");
    }
}

#[test]
fn game_record_words_are_quoted_short() {
    let error = notation::parse(&"\0".repeat(999)).unwrap_err().to_string();
    short_line(&error, &["line 1, column 1: unknown player or keyword '\\u{0}\\u{0}", "…'"]);
    let names = format!("seat {0}a front ? back 2C\nseat {0}b front ? back 3C\nfirst Zed\n", "N".repeat(900));
    short_line(&notation::parse(&names).unwrap_err().to_string(), &["line 3, column 7", "NNN…"]);
    let card = format!("seat A front {} back 2C\n", "Q".repeat(900));
    short_line(&notation::parse(&card).unwrap_err().to_string(), &["line 1, column 14", "is not a card code"]);
}

#[test]
fn a_carriage_return_ending_a_game_record_is_a_line_break() {
    // A record reads back as it is written.
    for (text, comment) in [("# Tie\r", " Tie"), ("#\r", ""), ("seat A front ? back 2C\nfirst A\nA draw #x\r", "x")] {
        let record = notation::parse(text).unwrap();
        assert_eq!(record.lines.last().unwrap().comment.as_deref(), Some(comment), "{text:?}");
        assert_eq!(notation::parse(&record.to_string()), Ok(record), "{text:?}");
    }
}

#[test]
fn match_record_words_are_quoted_short() {
    let base = Path::new("/nonexistent");
    let long_deck = format!("deck plane-{}\n", "lane-".repeat(150));
    let keyword = format!("deck cipher\nplayer{}\n", "\0".repeat(500));
    let card = format!("deck cipher\nplayers A B\ngame tower\npile B 2{}\n", "\u{fffd}".repeat(900));
    let claim = format!(
        "deck cipher\nplayers A B\ngame tower\npile A 1\npile B 2\ndraw 10 20\nclaim 1.0 {} Key\n",
        "x".repeat(900)
    );
    for (text, words) in [
        (long_deck, &["line 1: plane-lane-", "is not a plane order"][..]),
        (keyword, &["line 2: unknown keyword \"player\\u{0}"][..]),
        (card, &["line 4: \"2\u{fffd}", "is not a card id"][..]),
        (claim, &["line 7: xxx", "is not among the players"][..]),
    ] {
        short_line(&replay_match(&text, base).outcome.unwrap_err().to_string(), words);
    }
}

#[test]
fn json_errors_quoting_the_file_are_cut_and_escaped() {
    let long = "x".repeat(5000);
    let deck = format!("{{\"symbols\": \"{long}\"}}");
    short_line(&Deck::from_json_str(&deck, Path::new("d.json")).unwrap_err().to_string(), &["d.json:1:", "…"]);
    let labels = format!("{{\"format\": \"symbol-card-labels/{long}\", \"images\": []}}");
    short_line(&parse_labels(&labels, Path::new(".")).unwrap_err(), &["unknown format \"symbol-card-labels/xx"]);
    let profile = r#"{"format":"card-referee-deck/2","networks":"","corners":[{"card":"Q\nH","embedding":[]}]}"#;
    short_line(&DeckProfile::parse(profile, 1, 1).unwrap_err(), &["'Q\\nH' is not a card code", "at line 1 column"]);
    let back = r#"{"format":"card-refere\ne-back/1","photos":1,"colour":[],"texture":[],"layout":[]}"#;
    short_line(&BackProfile::parse(back).unwrap_err(), &["field 'format' is \"card-refere\\ne-back/1\""]);
    let symbols = format!("{{\"format\": \"symbol-profile/{long}\", \"deck\": \"d\", \"symbols\": []}}");
    short_line(&SymbolProfile::parse(&symbols).unwrap_err(), &["unknown profile format \"symbol-profile/xx"]);
    let entry = "{\"kind\":\"start\",\"names\":[],\"options\":\"\"}\n{\"kind\":\"comm\\u0000it\"}\n{}\n";
    let error = journal::from_bytes(entry.as_bytes().to_vec(), Path::new("j.jsonl")).unwrap_err();
    short_line(&error, &["j.jsonl: line 2: not a journal entry: unknown variant `comm\\u{0}it`"]);
}

#[test]
fn card_label_errors_name_the_image_and_the_field() {
    let text = r#"{"format":"card-labels/1","images":[{"file":"a.jpg","face_up":["AS"]},
        {"file":"b.jpg","face_up":["KC"],"optional":["QH","6\u001bC"]}]}"#;
    short_line(
        &LabelSet::parse(text).unwrap_err(),
        &["images[1] (\"b.jpg\"): optional[1]: \"6\\u{1b}C\" is not a card label"],
    );
    let ranks = r#"{"format":"card-labels/1","ranks":["A","0"],"images":[{"file":"a.jpg","face_up":[]}]}"#;
    short_line(&LabelSet::parse(ranks).unwrap_err(), &["ranks[1]: \"0\" is not a rank"]);
}

#[test]
fn layout_errors_quote_the_line_cut_and_escaped() {
    let tab = "image_to_table = [[1.0,\t\u{1b}x]]\n";
    short_line(&TableLayout::from_toml(tab).unwrap_err(), &["line 1: `image_to_table = [[1.0,\\t\\u{1b}x]]`"]);
    let long = format!("[deck]\ncentre = {{ x = {} }}\n", "-{ x = ".repeat(500));
    short_line(&TableLayout::from_toml(&long).unwrap_err(), &["line 2: `centre = { x = -{ x = ", "…`"]);
}
