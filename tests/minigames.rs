//! The four mini-games, judged through the referee on the built-in Cipher deck. Deals are built by
//! searching the deck for cards with the property a step needs (a shared symbol with a synonym, a
//! name long enough for a unique typo...), so no answer is written in by hand.

use card_referee::symbols::cipher::cipher_deck;
use card_referee::symbols::deck::{CardId, Deck, SymbolId};
use card_referee::symbols::games::{
    Claim, Deal, GameKind, GameResult, Match, MiniGame, Outcome, Place, Referee, RefereeOptions, start,
};
use card_referee::symbols::names::{NameMatch, NameMatcher};
use proptest::prelude::*;

fn players(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn shared(deck: &Deck, a: CardId, b: CardId) -> SymbolId {
    deck.shared_symbol(a, b).expect("distinct cards of a valid deck share one symbol")
}

fn name(deck: &Deck, s: SymbolId) -> String {
    deck.symbol_name(s).to_string()
}

/// A symbol of card `a` that is not the one it shares with `b`: a wrong call.
fn wrong_symbol(deck: &Deck, a: CardId, b: CardId) -> String {
    let right = shared(deck, a, b);
    let s = deck.card(a).unwrap().symbols.iter().copied().find(|&s| s != right).unwrap();
    name(deck, s)
}

/// The symbol's name with one letter dropped, when that is a typo pointing to it alone.
fn typo_of(deck: &Deck, s: SymbolId) -> Option<String> {
    let full = name(deck, s);
    if full.chars().count() < 5 {
        return None;
    }
    let typo: String = full.chars().enumerate().filter(|&(i, _)| i != 2).map(|(_, c)| c).collect();
    (NameMatcher::new(deck).resolve(&typo) == NameMatch::Typo(s)).then_some(typo)
}

fn synonym_of(deck: &Deck, s: SymbolId) -> Option<String> {
    deck.synonyms(s).first().cloned()
}

/// The first unused card (from 1 up) for which `fits` holds; marks it used.
fn pick(used: &mut Vec<CardId>, fits: impl Fn(CardId) -> bool) -> CardId {
    let card = (1..=57).find(|c| !used.contains(c) && fits(*c)).expect("the deck has such a card");
    used.push(card);
    card
}

fn referee<'d>(deck: &'d Deck, names: &[&str], kind: GameKind, deal: Deal, options: RefereeOptions) -> Referee<'d> {
    let game = start(kind, deck, names.len(), deal, &options).unwrap();
    Referee::new(deck, players(names), game, options)
}

fn judge(referee: &mut Referee, player: &str, called: &str, ms: u64) -> (Outcome, String) {
    let v = referee.claim(Claim::new(player, called, ms));
    (v.outcome, v.message)
}

#[test]
fn tower() {
    let deck = cipher_deck();
    let mut used = vec![1, 2];
    let (a, b) = (1, 2);
    let d1 = pick(&mut used, |c| synonym_of(&deck, shared(&deck, a, c)).is_some());
    let d2 = pick(&mut used, |c| typo_of(&deck, shared(&deck, b, c)).is_some());
    let d3 = pick(&mut used, |_| true);
    let deal = Deal { piles: vec![vec![a], vec![b]], draw: vec![d1, d2, d3], ..Deal::default() };
    let mut r = referee(&deck, &["Alice", "Bob"], GameKind::Tower, deal, RefereeOptions::default());
    assert_eq!(r.game().cards_in_play(), 5);

    // Wrong: the message names the symbol the two cards really share.
    let (outcome, message) = judge(&mut r, "Alice", &wrong_symbol(&deck, a, d1), 500);
    assert_eq!(outcome, Outcome::Wrong);
    assert!(message.contains(&format!("share {}", name(&deck, shared(&deck, a, d1)))), "{message}");
    assert!(message.contains(&format!("Alice's card {a} and the draw pile's card {d1}")), "{message}");

    // Ambiguous name: the referee asks.
    assert_eq!(judge(&mut r, "Alice", "Bop", 600), (Outcome::Ambiguous, "ambiguous: Bob or Botnet?".into()));

    // Synonym, then a claim 3 ms later on the same exchange.
    let synonym = synonym_of(&deck, shared(&deck, a, d1)).unwrap();
    let verdicts = r
        .claims(vec![Claim::new("Bob", &name(&deck, shared(&deck, b, d1)), 1003), Claim::new("Alice", &synonym, 1000)]);
    assert_eq!(verdicts[0].claim.player, "Alice");
    assert_eq!(verdicts[0].outcome, Outcome::Correct);
    assert_eq!(verdicts[1].outcome, Outcome::TooLate);
    assert_eq!(r.game().top(Place::Player(0)), Some(d1));
    assert_eq!(r.game().top(Place::Draw), Some(d2));

    // Typo.
    let (outcome, _) = judge(&mut r, "Bob", &typo_of(&deck, shared(&deck, b, d2)).unwrap(), 2000);
    assert_eq!(outcome, Outcome::Correct);

    // End condition: the draw pile runs out.
    assert!(!r.game().is_over());
    let (outcome, _) = judge(&mut r, "alice", &name(&deck, shared(&deck, d1, d3)).to_lowercase(), 3000);
    assert_eq!(outcome, Outcome::Correct);
    assert!(r.game().is_over());
    assert_eq!(judge(&mut r, "Bob", "Key", 4000).0, Outcome::NotAllowed);
    assert_eq!(r.game().cards_in_play(), 5);

    // Ranking: most cards wins.
    assert_eq!(r.ranking(), vec![vec![0], vec![1]]);
    assert_eq!(r.wrong_calls(0), 1);
}

#[test]
fn well() {
    let deck = cipher_deck();
    let mut used = vec![];
    let c = pick(&mut used, |_| true);
    let a1 = pick(&mut used, |x| synonym_of(&deck, shared(&deck, x, c)).is_some());
    let b1 = pick(&mut used, |x| typo_of(&deck, shared(&deck, x, a1)).is_some());
    let a2 = pick(&mut used, |_| true);
    let b2 = pick(&mut used, |_| true);
    let deal = Deal { piles: vec![vec![a1, a2], vec![b1, b2]], centre: Some(c), ..Deal::default() };
    let mut r = referee(&deck, &["Alice", "Bob"], GameKind::Well, deal, RefereeOptions::default());

    let (outcome, message) = judge(&mut r, "Bob", &wrong_symbol(&deck, b1, c), 100);
    assert_eq!(outcome, Outcome::Wrong);
    assert!(
        message
            .contains(&format!("Bob's card {b1} and the centre card {c} share {}", name(&deck, shared(&deck, b1, c))))
    );
    assert_eq!(judge(&mut r, "Bob", "Bop", 200).0, Outcome::Ambiguous);

    let synonym = synonym_of(&deck, shared(&deck, a1, c)).unwrap();
    let v = r
        .claims(vec![Claim::new("Alice", &synonym, 1000), Claim::new("Bob", &name(&deck, shared(&deck, b1, c)), 1002)]);
    assert_eq!((v[0].outcome, v[1].outcome), (Outcome::Correct, Outcome::TooLate));
    assert_eq!(r.game().top(Place::Centre), Some(a1));

    let typo = typo_of(&deck, shared(&deck, b1, a1)).unwrap();
    assert_eq!(judge(&mut r, "Bob", &typo, 2000).0, Outcome::Correct);
    assert!(!r.game().is_over());
    assert_eq!(judge(&mut r, "Alice", &name(&deck, shared(&deck, a2, b1)), 3000).0, Outcome::Correct);
    // Alice emptied her pile first: she wins.
    assert!(r.game().is_over());
    assert_eq!(r.ranking(), vec![vec![0], vec![1]]);
    assert_eq!(r.game().cards_in_play(), 5);
}

#[test]
fn well_played_for_places() {
    let deck = cipher_deck();
    let deal = Deal { piles: vec![vec![2], vec![3], vec![4, 5]], centre: Some(1), ..Deal::default() };
    let options = RefereeOptions { well_play_for_places: true, ..RefereeOptions::default() };
    let mut r = referee(&deck, &["Ann", "Ben", "Cat"], GameKind::Well, deal, options);
    assert_eq!(judge(&mut r, "Ben", &name(&deck, shared(&deck, 3, 1)), 1000).0, Outcome::Correct);
    assert!(!r.game().is_over(), "two players still hold cards");
    assert_eq!(judge(&mut r, "Ann", &name(&deck, shared(&deck, 2, 3)), 2000).0, Outcome::Correct);
    assert!(r.game().is_over());
    assert_eq!(r.ranking(), vec![vec![1], vec![0], vec![2]]);
}

#[test]
fn hot_potato() {
    let deck = cipher_deck();
    let mut used = vec![];
    let a = pick(&mut used, |_| true);
    let b = pick(&mut used, |x| synonym_of(&deck, shared(&deck, a, x)).is_some());
    // Carol's card must not carry the symbol Alice and Bob share, or Alice's call would be ambiguous.
    let c = pick(&mut used, |x| {
        !deck.card(x).unwrap().has(shared(&deck, a, b)) && typo_of(&deck, shared(&deck, a, x)).is_some()
    });
    let (r2a, r2b) = (pick(&mut used, |_| true), pick(&mut used, |_| true));
    let deal = Deal { rounds: vec![vec![a, b, c], vec![r2a, r2b]], ..Deal::default() };
    let mut r = referee(&deck, &["Alice", "Bob", "Carol"], GameKind::HotPotato, deal, RefereeOptions::default());
    assert_eq!(r.game().cards_in_play(), 5);

    let synonym = synonym_of(&deck, shared(&deck, a, b)).unwrap();
    let v = r.claims(vec![
        Claim::new("Carol", &name(&deck, shared(&deck, c, a)), 1004),
        Claim::new("Alice", &synonym, 1000),
    ]);
    assert_eq!((v[0].outcome, v[1].outcome), (Outcome::Correct, Outcome::TooLate));
    assert_eq!(r.game().top(Place::Player(1)), Some(a), "Alice's card now lies on Bob's");
    assert_eq!(judge(&mut r, "Alice", "Key", 2000).0, Outcome::NotAllowed, "Alice holds nothing");

    // Wrong: the message gives what Carol's card really shares with Bob's top card.
    let (outcome, message) = judge(&mut r, "Carol", &wrong_symbol(&deck, c, a), 2500);
    assert_eq!(outcome, Outcome::Wrong);
    assert!(
        message.contains(&format!("Carol's card {c} and Bob's card {a} share {}", name(&deck, shared(&deck, c, a)))),
        "{message}"
    );
    assert_eq!(judge(&mut r, "Carol", "Bop", 2600).0, Outcome::Ambiguous);

    // Typo: Bob passes both cards to Carol, who then holds the whole round and collects it.
    let typo = typo_of(&deck, shared(&deck, a, c)).unwrap();
    let v = r.claim(Claim::new("Bob", &typo, 3000));
    assert_eq!(v.outcome, Outcome::Correct, "{}", v.message);
    assert!(v.message.contains("Carol holds all 3 cards of round 1"), "{}", v.message);
    assert_eq!(r.game().top(Place::Player(0)), Some(r2a), "round 2 is dealt");

    assert!(!r.game().is_over());
    assert_eq!(judge(&mut r, "Bob", &name(&deck, shared(&deck, r2b, r2a)), 4000).0, Outcome::Correct);
    assert!(r.game().is_over());
    assert_eq!(r.game().cards_in_play(), 5);
    // Fewest cards collected wins: Bob 0, Alice 2, Carol 3.
    assert_eq!(r.ranking(), vec![vec![1], vec![0], vec![2]]);
}

#[test]
fn poisoned_gift() {
    let deck = cipher_deck();
    let mut used = vec![];
    let (a, b, c) = (pick(&mut used, |_| true), pick(&mut used, |_| true), pick(&mut used, |_| true));
    let d1 = pick(&mut used, |x| {
        let s = shared(&deck, x, b);
        s != shared(&deck, x, c) && s != shared(&deck, x, a) && synonym_of(&deck, s).is_some()
    });
    let d2 = pick(&mut used, |x| {
        let s = shared(&deck, x, a);
        s != shared(&deck, x, d1) && typo_of(&deck, s).is_some()
    });
    let deal = Deal { piles: vec![vec![a], vec![b], vec![c]], draw: vec![d1, d2], ..Deal::default() };
    let mut r = referee(&deck, &["Alice", "Bob", "Carol"], GameKind::PoisonedGift, deal, RefereeOptions::default());

    let (outcome, message) = judge(&mut r, "Alice", &wrong_symbol(&deck, b, d1), 100);
    assert_eq!(outcome, Outcome::Wrong);
    // Alice compares the centre with each other player's card; the message gives both real symbols.
    for other in [b, c] {
        assert!(message.contains(&format!("share {}", name(&deck, shared(&deck, d1, other)))), "{message}");
    }
    assert_eq!(judge(&mut r, "Alice", "Bop", 200).0, Outcome::Ambiguous);

    let synonym = synonym_of(&deck, shared(&deck, d1, b)).unwrap();
    let v = r.claims(vec![
        Claim::new("Alice", &synonym, 1000),
        Claim::new("Carol", &name(&deck, shared(&deck, d1, a)), 1004),
    ]);
    assert_eq!((v[0].outcome, v[1].outcome), (Outcome::Correct, Outcome::TooLate));
    assert_eq!(r.game().top(Place::Player(1)), Some(d1), "the gift lands on Bob's pile");

    let typo = typo_of(&deck, shared(&deck, d2, a)).unwrap();
    assert_eq!(judge(&mut r, "Carol", &typo, 2000).0, Outcome::Correct);
    assert!(r.game().is_over());
    assert_eq!(r.game().cards_in_play(), 5);
    // Fewest cards: Carol 1; Alice and Bob 2 each share second place.
    assert_eq!(r.ranking(), vec![vec![2], vec![0, 1]]);
}

#[test]
fn a_symbol_on_two_players_cards_needs_a_target() {
    let deck = cipher_deck();
    // Three cards through one symbol: the first three cards of symbol 0.
    let with_zero: Vec<CardId> = deck.cards().iter().filter(|c| c.has(0)).map(|c| c.id).take(3).collect();
    let (d, a, b) = (with_zero[0], with_zero[1], with_zero[2]);
    let c = (1..=57).find(|x| !deck.card(*x).unwrap().has(0)).unwrap();
    let deal = Deal { piles: vec![vec![a], vec![b], vec![c]], draw: vec![d], ..Deal::default() };
    let mut r = referee(&deck, &["Ann", "Ben", "Cat"], GameKind::PoisonedGift, deal, RefereeOptions::default());
    let symbol = name(&deck, 0);
    let (outcome, message) = judge(&mut r, "Cat", &symbol, 1000);
    assert_eq!(outcome, Outcome::Ambiguous);
    assert!(message.contains("Ann and Ben"), "{message}");
    let v = r.claim(Claim::new("Cat", &symbol, 1100).at("Ben"));
    assert_eq!(v.outcome, Outcome::Correct);
    assert_eq!(r.game().top(Place::Player(1)), Some(d));
}

#[test]
fn wrong_call_penalty_changes_the_ranking() {
    let deck = cipher_deck();
    let deal = || Deal { piles: vec![vec![1], vec![2]], draw: vec![3, 4], ..Deal::default() };
    let play = |options: RefereeOptions| {
        let mut r = referee(&deck, &["Ann", "Ben"], GameKind::Tower, deal(), options);
        judge(&mut r, "Ann", &wrong_symbol(&deck, 1, 3), 100);
        judge(&mut r, "Ann", &wrong_symbol(&deck, 1, 3), 200);
        judge(&mut r, "Ann", &name(&deck, shared(&deck, 1, 3)), 1000);
        judge(&mut r, "Ben", &name(&deck, shared(&deck, 2, 4)), 2000);
        r.ranking()
    };
    assert_eq!(play(RefereeOptions::default()), vec![vec![0, 1]]);
    let harsh = RefereeOptions { wrong_call_penalty: 1, ..RefereeOptions::default() };
    assert_eq!(play(harsh), vec![vec![1], vec![0]]);
}

#[test]
fn bad_deals_are_refused() {
    let deck = cipher_deck();
    let options = RefereeOptions::default();
    let tower = |piles: Vec<Vec<CardId>>, draw: Vec<CardId>| {
        start(GameKind::Tower, &deck, 2, Deal { piles, draw, ..Deal::default() }, &options).err().map(|e| e.to_string())
    };
    assert_eq!(tower(vec![vec![1], vec![1]], vec![3]), Some("card 1 is dealt twice".into()));
    assert_eq!(tower(vec![vec![1], vec![99]], vec![3]), Some("card 99 is not in the deck".into()));
    assert!(tower(vec![vec![1, 2], vec![4]], vec![3]).unwrap().contains("exactly one card"));
    let well = Deal { piles: vec![vec![1, 2, 3], vec![4]], centre: Some(5), ..Deal::default() };
    assert!(start(GameKind::Well, &deck, 2, well, &options).is_err(), "uneven piles");
    assert!(start(GameKind::HotPotato, &deck, 1, Deal { rounds: vec![vec![1]], ..Deal::default() }, &options).is_err());
}

#[test]
fn match_table_names_each_winner_and_the_overall_winner() {
    let p = players(&["Ann", "Ben", "Cat"]);
    let result =
        |kind, places: Vec<Vec<usize>>| GameResult { kind, places, cards: vec![1, 2, 3], wrong_calls: vec![0; 3] };
    let mut m = Match::new(p);
    m.add(result(GameKind::Tower, vec![vec![1], vec![0], vec![2]]));
    m.add(result(GameKind::Well, vec![vec![0], vec![1, 2]]));
    assert_eq!(m.winners(), vec![0, 1], "one win each: shared");
    m.add(result(GameKind::HotPotato, vec![vec![0, 2], vec![1]]));
    assert_eq!(m.wins(), vec![2, 1, 1]);
    assert_eq!(m.winners(), vec![0]);
    let table = m.table();
    assert!(table.contains("The Tower"), "{table}");
    assert!(table.contains("Ann & Cat"), "{table}");
    assert!(table.ends_with("match winner: Ann\n"), "{table}");
}

/// A claim a strategy may make: a seat, and either the right symbol for one of its comparisons
/// or an arbitrary symbol.
#[derive(Clone, Debug)]
struct Move {
    seat: usize,
    right: bool,
    pick: usize,
    gap_ms: u64,
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec(
        (0usize..4, prop::bool::weighted(0.7), 0usize..64, prop_oneof![Just(3u64), Just(700u64)])
            .prop_map(|(seat, right, pick, gap_ms)| Move { seat, right, pick, gap_ms }),
        0..60,
    )
}

fn deal_for(kind: GameKind, cards: &[CardId], seats: usize) -> Deal {
    match kind {
        GameKind::Tower | GameKind::PoisonedGift => Deal {
            piles: cards[..seats].iter().map(|&c| vec![c]).collect(),
            draw: cards[seats..20].to_vec(),
            ..Deal::default()
        },
        GameKind::Well => Deal {
            centre: Some(cards[0]),
            piles: (0..seats).map(|s| cards[1..21].iter().skip(s).step_by(seats).copied().collect()).collect(),
            ..Deal::default()
        },
        GameKind::HotPotato => {
            Deal { rounds: cards[..20].chunks(seats).map(<[CardId]>::to_vec).collect(), ..Deal::default() }
        }
    }
}

fn play_conserves(kind: GameKind, cards: Vec<CardId>, seats: usize, moves: Vec<Move>) -> Result<(), TestCaseError> {
    let deck = cipher_deck();
    let names: Vec<String> = (0..seats).map(|s| format!("P{s}")).collect();
    let options = RefereeOptions::default();
    let deal = deal_for(kind, &cards, seats);
    let game = start(kind, &deck, seats, deal, &options).unwrap();
    let before = game.cards_in_play();
    let mut r = Referee::new(&deck, names.clone(), game, options);
    let mut time = 0;
    for m in moves {
        time += m.gap_ms;
        let seat = m.seat % seats;
        let open = r.game().comparisons(seat);
        let (called, target) = match open.get(m.pick % open.len().max(1)) {
            Some(c) if m.right => (shared(&deck, c.left.1, c.right.1), c.target.map(|t| names[t].clone())),
            _ => (m.pick % 57, None),
        };
        let claim = Claim { player: names[seat].clone(), called: name(&deck, called), time_ms: time, target };
        let verdict = r.claim(claim);
        prop_assert_eq!(r.game().cards_in_play(), before, "{:?}: cards changed after {}", kind, verdict.message);
        if verdict.outcome == Outcome::Correct {
            prop_assert!(verdict.compared.iter().any(|(_, s)| Some(*s) == verdict.called_symbol));
        }
    }
    let placed: usize = r.ranking().iter().map(Vec::len).sum();
    prop_assert_eq!(placed, seats, "every player is ranked once");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn cards_are_conserved(
        kind in prop::sample::select(GameKind::ALL.to_vec()),
        cards in Just((1..=57).collect::<Vec<CardId>>()).prop_shuffle(),
        seats in 2usize..5,
        moves in moves(),
    ) {
        play_conserves(kind, cards, seats, moves)?;
    }
}

/// The trait is object-safe and usable directly, without a referee.
#[test]
fn games_can_be_driven_without_a_referee() {
    let deck = cipher_deck();
    let mut game: Box<dyn MiniGame> = start(
        GameKind::Tower,
        &deck,
        2,
        Deal { piles: vec![vec![1], vec![2]], draw: vec![3], ..Deal::default() },
        &RefereeOptions::default(),
    )
    .unwrap();
    let open = game.comparisons(1);
    assert_eq!(open.len(), 1);
    assert_eq!((open[0].left.1, open[0].right.1), (2, 3));
    let said = game.apply(1, &open[0], &players(&["A", "B"]));
    assert!(said.contains("B takes card 3"));
    assert!(game.is_over());
    assert_eq!(game.score(1), 2);
}
