//! From a claim to its verdict in the live mini-game referee, on one thread: a claim arrives,
//! the 1280x720 frame of its moment is read for round cards (a rendered game of The Tower with 4
//! players: 5 untidy piles), and the referee judges the claim on the view that stood.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

use card_referee::referee::minigame::{Event, MiniGameOptions, MiniGameReferee, SeatClaim};
use card_referee::render::match_video::{FilmRenderer, MatchOptions, films};
use card_referee::symbols::cipher::cipher_deck;
use card_referee::symbols::games::GameKind;
use card_referee::symbols::notation::replay;
use card_referee::symbols::render::PictureDeck;
use card_referee::symbols::simulate::{SimOptions, random_game};
use card_referee::vision::symbols::SymbolRecognizer;

fn bench(c: &mut Criterion) {
    opencv::core::set_num_threads(1).expect("one OpenCV thread");
    let deck = cipher_deck();
    let called = deck.symbol_name(0).to_string();
    let text = random_game(&deck, "cipher", &SimOptions { kind: GameKind::Tower, seats: 4, size: 4, seed: 3 });
    let result = replay(&text, std::path::Path::new("."));
    let players = result.outcome.as_ref().expect("a legal record").players.clone();
    let film = films(&result, &players).remove(0);
    let pictures = PictureDeck::cipher();
    let mut renderer = FilmRenderer::new(&film, &pictures, &MatchOptions::default()).expect("renderer");
    let recognizer = SymbolRecognizer::cipher().expect("cipher recogniser");
    let mut settled = MiniGameReferee::new(GameKind::Tower, deck, players, MiniGameOptions::default());
    for k in 0..10u64 {
        let frame = renderer.frame(k * 100).expect("frame");
        settled.observe(k, k * 100, &recognizer.round_cards(&frame).unwrap());
    }
    let frame = renderer.frame(1000).expect("frame");
    c.bench_function("claim_to_verdict_1280x720_tower_4_players", |b| {
        b.iter_batched(
            || settled.clone(),
            |mut referee| {
                referee.claim(SeatClaim { ms: 1000, seat: 1, called: called.clone(), target: None });
                let events = referee.observe(10, 1000, &recognizer.round_cards(&frame).unwrap());
                let judged = events.iter().any(|e| matches!(e, Event::Verdict { ms: 1000, .. }));
                assert!(judged, "the claim is judged on this frame");
                events
            },
            BatchSize::SmallInput,
        )
    });
    // The two parts apart: reading the frame, and the referee's ruling on cards already read.
    c.bench_function("read_round_cards_1280x720", |b| b.iter(|| recognizer.round_cards(&frame).unwrap()));
    let cards = recognizer.round_cards(&frame).unwrap();
    c.bench_function("rule_on_read_cards", |b| {
        b.iter_batched(
            || settled.clone(),
            |mut referee| {
                referee.claim(SeatClaim { ms: 1000, seat: 1, called: called.clone(), target: None });
                referee.observe(10, 1000, &cards)
            },
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
