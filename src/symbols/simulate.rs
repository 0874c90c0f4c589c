//! Random mini-game matches as records (`docs/minigame-notation.md`), for rendered test videos:
//! a random deal, and exchanges in which players call wrong symbols, win, call too late, or call
//! while the winner's hand is still moving the card. The engines judge every claim as it is
//! made, so the record holds the times and the rules give the verdicts.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::deck::{CardId, Deck, SymbolId};
use super::games::{Claim, Comparison, Deal, GameKind, Outcome, Referee, RefereeOptions, start};

/// How big a simulated game is.
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub kind: GameKind,
    pub seats: usize,
    /// Cards in the draw pile (The Tower, The Poisoned Gift), each seat's pile (The Well), or
    /// rounds (Hot Potato).
    pub size: usize,
    pub seed: u64,
}

/// A random game of `options.kind` as a one-game match record with the deck `deck_line`.
pub fn random_game(deck: &Deck, deck_line: &str, options: &SimOptions) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let names: Vec<String> = (0..options.seats).map(|s| PLAYERS[s % PLAYERS.len()].to_string()).collect();
    let mut ids: Vec<CardId> = deck.cards().iter().map(|c| c.id).collect();
    ids.shuffle(&mut rng);
    let (deal, deal_lines) = deal(options, &names, &mut ids.into_iter());
    let mut text = format!(
        "# a random {} ({} players, seed {})\ndeck {deck_line}\nplayers {}\n",
        options.kind,
        options.seats,
        options.seed,
        names.join(" ")
    );
    text.push_str(&format!("game {}\n{deal_lines}", options.kind.code()));
    let game = start(options.kind, deck, options.seats, deal, &RefereeOptions::default()).expect("a valid deal");
    let mut referee = Referee::new(deck, names.clone(), game, RefereeOptions::default());
    let mut t: u64 = 3000;
    let mut claims = Vec::new();
    while !referee.game().is_over() && claims.len() < 400 {
        t += rng.random_range(900..2200);
        let claimer = (0..options.seats).filter(|&s| !referee.game().comparisons(s).is_empty()).collect::<Vec<_>>();
        let Some(&winner) = claimer.choose(&mut rng) else { break };
        if rng.random_bool(0.3) {
            let seat = rng.random_range(0..options.seats);
            let called = wrong_symbol(deck, &referee, seat, &mut rng);
            claims.push(judge(&mut referee, &names, seat, called, t, None));
            t += rng.random_range(250..600);
        }
        let open = referee.game().comparisons(winner);
        let pick = open.choose(&mut rng).expect("the winner can claim").clone();
        let shared = deck.shared_symbol(pick.left.1, pick.right.1).expect("two cards share a symbol");
        let several = open.iter().filter(|c| deck.shared_symbol(c.left.1, c.right.1) == Some(shared)).count() > 1;
        let target = if several { pick.target } else { None };
        let before: Vec<Comparison> = (0..options.seats).flat_map(|s| referee.game().comparisons(s)).collect();
        let collected = |r: &Referee| (0..options.seats).map(|s| r.game().cards_of(s)).sum::<usize>();
        let collected_before = collected(&referee);
        claims.push(judge(&mut referee, &names, winner, deck.symbol_name(shared).to_string(), t, target));
        let won_at = t;
        // A Hot Potato round won: its winner collects the cards and the next round is dealt, so
        // the players wait longer, and nobody calls while that happens.
        let round_won = options.kind == GameKind::HotPotato && collected(&referee) != collected_before;
        let pause = if round_won { 3600 } else { 1300 };
        if rng.random_bool(0.3) {
            // Someone else calls a moment later: too late, right or not.
            let seat = (winner + rng.random_range(1..options.seats)) % options.seats;
            let at = won_at + rng.random_range(80..450);
            let called = deck.symbol_name(rng.random_range(0..deck.symbols().len())).to_string();
            claims.push(judge(&mut referee, &names, seat, called, at, None));
        }
        if rng.random_bool(0.25) && !referee.game().is_over() && !round_won {
            // A call while the winner's hand still moves the card: wrong on the old cards and on
            // the new ones alike.
            let seat = rng.random_range(0..options.seats);
            let at = won_at + rng.random_range(650..1000);
            let after: Vec<Comparison> = (0..options.seats).flat_map(|s| referee.game().comparisons(s)).collect();
            if let Some(called) = symbol_on_no_pair(deck, before.iter().chain(&after), &mut rng) {
                claims.push(judge(&mut referee, &names, seat, called, at, None));
                t = at;
            }
        }
        t = t.max(won_at + pause);
    }
    for (ms, seat, called, target, outcome) in claims {
        let target = target.map(|s: usize| format!(" > {}", names[s])).unwrap_or_default();
        text.push_str(&format!(
            "claim {}.{:03} {} {called}{target}  # {outcome:?}\n",
            ms / 1000,
            ms % 1000,
            names[seat]
        ));
    }
    text.push_str("end\n");
    text
}

const PLAYERS: [&str; 6] = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay"];

fn deal(options: &SimOptions, names: &[String], ids: &mut impl Iterator<Item = CardId>) -> (Deal, String) {
    let mut deal = Deal::default();
    let mut lines = String::new();
    let list = |cards: &[CardId]| cards.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
    let size = options.size.max(1);
    match options.kind {
        GameKind::Tower | GameKind::PoisonedGift => {
            for name in names {
                let card = ids.next().expect("deck large enough");
                deal.piles.push(vec![card]);
                lines.push_str(&format!("pile {name} {card}\n"));
            }
            deal.draw = ids.take(size).collect();
            lines.push_str(&format!("draw {}\n", list(&deal.draw)));
        }
        GameKind::Well => {
            for name in names {
                let pile: Vec<CardId> = ids.take(size).collect();
                lines.push_str(&format!("pile {name} {}\n", list(&pile)));
                deal.piles.push(pile);
            }
            let centre = ids.next().expect("deck large enough");
            deal.centre = Some(centre);
            lines.push_str(&format!("centre {centre}\n"));
        }
        GameKind::HotPotato => {
            for _ in 0..size {
                let round: Vec<CardId> = ids.take(names.len()).collect();
                lines.push_str(&format!("round {}\n", list(&round)));
                deal.rounds.push(round);
            }
        }
    }
    (deal, lines)
}

fn judge(
    referee: &mut Referee,
    names: &[String],
    seat: usize,
    called: String,
    ms: u64,
    target: Option<usize>,
) -> (u64, usize, String, Option<usize>, Outcome) {
    let mut claim = Claim::new(&names[seat], &called, ms);
    if let Some(t) = target {
        claim = claim.at(&names[t]);
    }
    let verdict = referee.claim(claim);
    (ms, seat, called, target, verdict.outcome)
}

/// A symbol the claimer's cards do not share (a wrong call), or any symbol.
fn wrong_symbol(deck: &Deck, referee: &Referee, seat: usize, rng: &mut ChaCha8Rng) -> String {
    let open = referee.game().comparisons(seat);
    symbol_on_no_pair(deck, open.iter(), rng)
        .unwrap_or_else(|| deck.symbol_name(rng.random_range(0..deck.symbols().len())).to_string())
}

fn symbol_on_no_pair<'a>(
    deck: &Deck,
    pairs: impl Iterator<Item = &'a Comparison>,
    rng: &mut ChaCha8Rng,
) -> Option<String> {
    let shared: Vec<SymbolId> = pairs.filter_map(|c| deck.shared_symbol(c.left.1, c.right.1)).collect();
    let free: Vec<SymbolId> = (0..deck.symbols().len()).filter(|s| !shared.contains(s)).collect();
    free.choose(rng).map(|&s| deck.symbol_name(s).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::notation::replay;
    use std::path::Path;

    #[test]
    fn random_games_replay_as_legal_records_with_every_kind_of_claim() {
        let deck = crate::symbols::cipher::cipher_deck();
        let mut outcomes = Vec::new();
        for (k, kind) in GameKind::ALL.into_iter().enumerate() {
            for seats in 2..=6 {
                let options = SimOptions { kind, seats, size: 3, seed: (k * 10 + seats) as u64 };
                let text = random_game(&deck, "cipher", &options);
                let result = replay(&text, Path::new("."));
                assert!(result.outcome.is_ok(), "{text}\n{:?}", result.outcome);
                outcomes.extend(result.verdicts.iter().map(|v| v.outcome));
            }
        }
        for wanted in [Outcome::Correct, Outcome::Wrong, Outcome::TooLate] {
            assert!(outcomes.contains(&wanted), "{wanted:?} never happens");
        }
    }
}
