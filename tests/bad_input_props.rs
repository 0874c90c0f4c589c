//! Oversized and odd inputs to every parser (deck.json, game record, match record, labels,
//! profiles, image headers, text files): never a panic, and whatever is accepted keeps the limits.

use std::path::Path;

use card_referee::rules::omphala::notation;
use card_referee::symbols::deck::{Deck, MAX_CARDS, MAX_NAME_CHARS, MAX_SYMBOLS_PER_CARD};
use card_referee::symbols::notation::replay;
use card_referee::vision::cards::decks::enroll::DeckProfile;
use card_referee::vision::cards::labels::LabelSet;
use card_referee::vision::image_file;
use proptest::prelude::*;

fn name(len: usize, odd: bool) -> String {
    let base: String = "abc\u{e9}".chars().cycle().take(len).collect();
    if odd { format!("{base}\n\u{1b}\"") } else { base }
}

fn deck_json(cards: usize, per_card: usize, symbols: usize, name_len: usize, odd: bool) -> String {
    let symbol = |i: usize| serde_json::to_string(&format!("{}{i}", name(name_len, odd))).unwrap();
    let list: Vec<String> = (0..symbols.max(1)).map(symbol).collect();
    let cards: Vec<String> = (0..cards)
        .map(|c| {
            let on: Vec<String> = (0..per_card).map(|k| symbol((c + k) % symbols.max(1))).collect();
            format!("{{\"id\":{c},\"symbols\":[{}]}}", on.join(","))
        })
        .collect();
    format!("{{\"symbols\":[{}],\"cards\":[{}]}}", list.join(","), cards.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn decks_of_any_size_are_judged_within_the_limits(
        cards in 0usize..700,
        per_card in 0usize..72,
        symbols in 0usize..1200,
        name_len in 0usize..110,
        odd: bool,
    ) {
        let json = deck_json(cards, per_card, symbols, name_len, odd);
        match Deck::from_json_str(&json, Path::new("d.json")) {
            Ok(deck) => {
                prop_assert!(deck.cards().len() <= MAX_CARDS);
                prop_assert!(deck.cards().iter().all(|c| c.symbols.len() <= MAX_SYMBOLS_PER_CARD));
                prop_assert!(deck.symbols().iter().all(|s| s.chars().count() <= MAX_NAME_CHARS));
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert_eq!(text.lines().count(), 1, "{}", text);
                prop_assert!(text.len() < 2000, "a short error: {} bytes", text.len());
            }
        }
    }

    #[test]
    fn game_records_of_any_shape_parse_or_name_a_line(
        seats in 0usize..40,
        first: bool,
        line_len in 0usize..2500,
        plays in 0usize..300,
        junk in "\\PC{0,40}",
    ) {
        let mut text: String =
            (0..seats).map(|i| format!("seat P{i} front ? ? back 2C 3C 4C 5C 6C\n")).collect();
        if first {
            text.push_str("first P0\n");
        }
        text.push_str(&format!("# {}\n", "y".repeat(line_len)));
        for _ in 0..plays {
            text.push_str("P0 draw\n");
        }
        text.push_str(&junk);
        match notation::parse(&text) {
            Ok(record) => {
                prop_assert!(record.names().len() <= 6);
                prop_assert!(record.names().is_empty() || first);
            }
            Err(e) => {
                prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1));
                prop_assert_eq!(e.to_string().lines().count(), 1);
            }
        }
    }

    #[test]
    fn match_records_of_any_shape_end_in_a_verdict(
        players in 0usize..40,
        duplicate: bool,
        line_len in 0usize..2500,
        claims in 0usize..200,
        junk in "\\PC{0,40}",
    ) {
        let mut names: Vec<String> = (0..players).map(|i| format!("P{i}")).collect();
        if duplicate && !names.is_empty() {
            names.push(names[0].to_lowercase());
        }
        let mut text = format!("deck cipher\nplayers {}\n# {}\ngame tower\n", names.join(" "), "z".repeat(line_len));
        for i in 0..claims {
            text.push_str(&format!("claim {i}.0 P0 Key\n"));
        }
        text.push_str(&junk);
        let result = replay(&text, Path::new("."));
        if let Err(e) = &result.outcome {
            prop_assert_eq!(e.to_string().lines().count(), 1);
        }
        if result.outcome.is_ok() {
            prop_assert!(!duplicate && (2..=20).contains(&players) && line_len < 1000);
        }
    }

    #[test]
    fn labels_of_any_size_parse_or_give_a_reason(images in 0usize..3000, label_len in 0usize..300) {
        let entry = format!("{{\"file\":\"{}.jpg\",\"face_up\":[\"AS\",\"{}\"]}}", "f".repeat(label_len), "K".repeat(label_len % 4));
        let list = vec![entry; images].join(",");
        let text = format!("{{\"format\":\"card-labels/1\",\"images\":[{list}]}}");
        match LabelSet::parse(&text) {
            Ok(set) => prop_assert_eq!(set.images.len(), images),
            Err(reason) => prop_assert_eq!(reason.lines().count(), 1),
        }
    }

    #[test]
    fn profiles_of_any_shape_are_checked(patches in 0usize..60, len in 0usize..100, expected in 1usize..80) {
        let mut profile = DeckProfile::new();
        for _ in 0..patches {
            profile.corners.push(card_referee::vision::cards::decks::enroll::EnrolledPatch {
                card: "QH".parse().unwrap(),
                embedding: vec![0.25; len],
            });
        }
        let text = serde_json::to_string(&profile).unwrap();
        match DeckProfile::parse(&text, expected, expected) {
            Ok(p) => prop_assert!(p.corners.iter().all(|c| c.embedding.len() == expected)),
            Err(reason) => {
                prop_assert!(patches > 0 && len != expected);
                prop_assert!(reason.contains("corners[0].embedding"), "{}", reason);
            }
        }
    }

    #[test]
    fn image_headers_of_any_bytes_are_read_without_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..4000),
        kind in 0u8..3,
    ) {
        let mut data = match kind {
            0 => b"\x89PNG\r\n\x1a\n".to_vec(),
            1 => vec![0xFF, 0xD8],
            _ => b"BM".to_vec(),
        };
        data.extend(&bytes);
        match image_file::dimensions(&data) {
            // A JPEG's sides are 16-bit; a PNG is taken only when its chunks reach IEND.
            Ok(Some((w, h))) if kind == 1 => prop_assert!(w <= 65_535 && h <= 65_535),
            Ok(Some(_)) => prop_assert!(kind == 0 && data.windows(4).any(|w| w == b"IEND")),
            Ok(None) => prop_assert!(kind == 2),
            Err(reason) => prop_assert!(kind != 2 && reason.lines().count() == 1),
        }
    }

    #[test]
    fn text_files_of_any_bytes_read_or_name_a_place(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        std::fs::write(&path, &bytes).unwrap();
        match card_referee::text_input::read_text(&path, 2000, "a test file") {
            Ok(text) => prop_assert!(bytes.len() <= 2000 && text.len() == bytes.len()),
            Err(card_referee::text_input::TextError::NotUtf8 { line, column, .. }) => {
                prop_assert!(line >= 1 && column >= 1 && line <= bytes.iter().filter(|&&b| b == b'\n').count() + 1);
            }
            Err(card_referee::text_input::TextError::TooLarge { .. }) => prop_assert!(bytes.len() > 2000),
            Err(e) => prop_assert!(false, "{}", e),
        }
    }
}
