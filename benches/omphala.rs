//! Speed of the Omphala referee: `legal_actions` on mid-game states, and whole random
//! 2-player games (deal, every draw and reveal answered by the simulated table).

use std::hint::black_box;

use card_referee::rules::omphala::simulate::play_out;
use card_referee::rules::omphala::{GameState, Input, RuleOptions, apply, legal_actions};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// States met along a few random 2-player games, every one of them taken.
fn sample_states() -> Vec<GameState> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut states = Vec::new();
    for _ in 0..4 {
        let game = play_out(&mut rng, 2, RuleOptions::default(), true).expect("random game");
        let mut state = GameState::new(RuleOptions::default());
        for input in game.inputs {
            let acting = matches!(input, Input::Act { .. });
            apply(&mut state, input).expect("replayed input");
            if acting {
                states.push(state.clone());
            }
        }
    }
    states
}

fn bench_legal_actions(c: &mut Criterion) {
    let states = sample_states();
    let mut group = c.benchmark_group("omphala");
    group.throughput(Throughput::Elements(states.len() as u64));
    group.bench_function(format!("legal_actions over {} states", states.len()), |b| {
        b.iter(|| states.iter().map(|s| legal_actions(black_box(s)).len()).sum::<usize>())
    });
    group.finish();
}

fn bench_random_game(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut group = c.benchmark_group("omphala");
    group.throughput(Throughput::Elements(1));
    group.bench_function("random 2-player game", |b| {
        b.iter(|| play_out(&mut rng, 2, RuleOptions::default(), false).expect("random game").input_count)
    });
    group.finish();
}

criterion_group!(benches, bench_legal_actions, bench_random_game);
criterion_main!(benches);
