//! Symbol decks: loading, validation, projective planes, decoding, and the `deck` commands.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use card_referee::symbols::deck::plane::plane_orders;
use card_referee::symbols::deck::{Deck, DeckError, DeckProblem, SymbolId, decode, projective_plane, subset};
use proptest::prelude::*;

/// The shared data folder beside the repository (`../shared`); a git worktree kept one level
/// deeper (`wt/NAME`) finds it at `../../shared`.
fn retail_path() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let beside = root.join("../shared/data/symbols/retail-deck/deck.json");
    let above = root.join("../../shared/data/symbols/retail-deck/deck.json");
    if beside.exists() || !above.exists() {
        beside
    } else {
        above
    }
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_card-referee"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn every_plane_up_to_eleven_validates() {
    let orders = plane_orders(11);
    assert_eq!(orders, vec![2, 3, 4, 5, 7, 8, 9, 11]);
    for q in orders {
        let deck = projective_plane(q).unwrap();
        let n = q * q + q + 1;
        assert_eq!((deck.cards().len(), deck.symbols().len()), (n, n), "order {q}");
        assert!(deck.cards().iter().all(|c| c.symbols.len() == q + 1), "order {q}");
        assert_eq!(deck.validate(), vec![], "order {q}");
        // Each symbol is on q + 1 cards, as each point of the plane lies on q + 1 lines.
        for s in 0..n {
            assert_eq!(
                deck.cards().iter().filter(|c| c.has(s)).count(),
                q + 1,
                "order {q}, symbol {s}"
            );
        }
    }
}

#[test]
fn the_commercial_55_card_subset_validates() {
    let deck = subset(&projective_plane(7).unwrap(), 55).unwrap();
    assert_eq!(deck.cards().len(), 55);
    assert_eq!(deck.validate(), vec![]);
}

#[test]
fn retail_deck_loads_and_validates() {
    let deck = Deck::load(&retail_path()).unwrap();
    assert_eq!(deck.cards().len(), 57);
    assert_eq!(deck.symbols_per_card(), 8);
    let (one, two) = (deck.card(1).unwrap(), deck.card(2).unwrap());
    let shared = deck.shared_symbol(1, 2).unwrap();
    assert!(one.has(shared) && two.has(shared));
    assert_eq!(deck.symbol_name(shared), "OneWay");
}

#[test]
fn a_broken_pair_is_rejected_by_name() {
    let json = std::fs::read_to_string(retail_path()).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    // Give card 2 the symbol "Tree" of card 1 in place of one of its own: cards 1 and 2 then share
    // two symbols, and card 2 loses its one shared symbol with some other card.
    let card2 = &mut value["cards"][1]["symbols"];
    let replaced = card2[7].as_str().unwrap().to_string();
    card2[7] = serde_json::Value::from("Tree");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deck.json");
    std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();

    let problems = Deck::check_file(&path).unwrap();
    let expected = DeckProblem::PairShares {
        a: "card 1".into(),
        b: "card 2".into(),
        shared: vec!["OneWay".into(), "Tree".into()],
    };
    assert!(problems.contains(&expected), "{problems:?}");
    assert!(
        problems.iter().any(|p| matches!(p, DeckProblem::PairShares { a, b, shared } if (a == "card 2" || b == "card 2") && shared.is_empty())),
        "a card that had {replaced} in common with card 2 now shares nothing: {problems:?}"
    );
    assert!(matches!(Deck::load(&path), Err(DeckError::Invalid { .. })));

    let out = cli(&["deck", "check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("card 1 and card 2 share 2 symbols (OneWay, Tree)"),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().count(),
        problems.len() + 1,
        "one line per problem, then a summary"
    );
}

#[test]
fn deck_check_exit_codes() {
    let ok = cli(&["deck", "check", retail_path().to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));

    let missing = cli(&["deck", "check", "/nonexistent/deck.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("/nonexistent/deck.json"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"symbols\": [\"a\", \"b\"],\n  \"cards\": [ {\"id\": 1, \"symbols\": [\"a\"] ,, ]\n}\n",
    )
    .unwrap();
    let out = cli(&["deck", "check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with(&format!("{}:3:", bad.display())), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let wrong_type = dir.path().join("type.json");
    std::fs::write(&wrong_type, r#"{"symbols": "a", "cards": []}"#).unwrap();
    let out = cli(&["deck", "check", wrong_type.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(":1:"), "{}", text(&out.stderr));
}

#[test]
fn deck_shared_command() {
    let retail = retail_path();
    let out = cli(&["deck", "shared", "--deck", retail.to_str().unwrap(), "1", "2"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "OneWay\n");

    let cipher = card_referee::symbols::cipher::cipher_deck();
    let expected = cipher.symbol_name(cipher.shared_symbol(12, 40).unwrap());
    let out = cli(&["deck", "shared", "--deck", "cipher", "12", "40"]);
    assert_eq!(text(&out.stdout).trim(), expected);

    let out = cli(&["deck", "shared", "--deck", "cipher", "12", "99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no card 99"));
    let out = cli(&["deck", "shared", "--deck", "nosuch.json", "1", "2"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn decode_two_symbols_of_the_retail_deck() {
    let deck = Deck::load(&retail_path()).unwrap();
    for card in deck.cards() {
        let got = decode(&deck, &card.symbols[6..8]).unwrap();
        assert_eq!(got.card, card.id);
    }
}

fn plane7() -> &'static Deck {
    static DECK: std::sync::OnceLock<Deck> = std::sync::OnceLock::new();
    DECK.get_or_init(|| Deck::from_json_str(&projective_plane(7).unwrap().to_json(), Path::new("plane7")).unwrap())
}

proptest! {
    /// Eight recognised symbols, at most three of them wrong: the decode finds the right card.
    #[test]
    fn decode_survives_three_wrong_symbols(
        card_index in 0usize..57,
        wrong_count in 0usize..=3,
        keep in Just((0usize..8).collect::<Vec<_>>()).prop_shuffle(),
        others in Just((0usize..57).collect::<Vec<_>>()).prop_shuffle(),
    ) {
        let deck = plane7();
        let card = &deck.cards()[card_index];
        let mut seen: Vec<SymbolId> = keep[..8 - wrong_count].iter().map(|&i| card.symbols[i]).collect();
        seen.extend(others.iter().copied().filter(|s| !card.has(*s)).take(wrong_count));
        let got = decode(deck, &seen).unwrap();
        prop_assert_eq!(got.card, card.id);
        prop_assert_eq!(got.unexpected.len(), wrong_count);
        prop_assert!(got.confidence > 0.0);
    }
}

#[test]
fn generated_decks_pass_the_check() {
    let out = cli(&["deck", "generate", "--order", "8", "--cards", "70"]);
    assert_eq!(out.status.code(), Some(0));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plane8.json");
    std::fs::write(&path, &out.stdout).unwrap();
    let deck = Deck::load(&path).unwrap();
    assert_eq!((deck.cards().len(), deck.symbols_per_card()), (70, 9));
    assert_eq!(cli(&["deck", "check", path.to_str().unwrap()]).status.code(), Some(0));
    assert_eq!(cli(&["deck", "generate", "--order", "6"]).status.code(), Some(2));
}
