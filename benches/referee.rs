//! Speed of the live Omphala referee: one settled view ruled on (the search for the inputs that
//! explain it, the commit, the verdict), over every view of random 2- and 4-player games seen by
//! a perfect camera. The referee is rebuilt from the committed inputs before each measured view,
//! so each iteration rules on the same change.

use std::hint::black_box;

use card_referee::referee::omphala::script::{ScriptedView, ideal_views};
use card_referee::referee::omphala::{Moment, OmphalaReferee, RefereeConfig};
use card_referee::rules::omphala::simulate::play_out;
use card_referee::rules::omphala::{Input, RuleOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn game(players: usize, seed: u64) -> (Vec<Input>, Vec<ScriptedView>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let out = play_out(&mut rng, players, RuleOptions::default(), true).expect("random game");
    let views = ideal_views(RuleOptions::default(), &out.inputs).expect("legal game");
    (out.inputs, views)
}

fn names(players: usize) -> Vec<String> {
    (1..=players).map(|k| format!("P{k}")).collect()
}

fn bench_whole_game(c: &mut Criterion) {
    let mut group = c.benchmark_group("referee");
    group.sample_size(10);
    for players in [2, 4] {
        let (_, views) = game(players, 11);
        group.bench_function(format!("{players} players: every view of a game ({} views)", views.len()), |b| {
            b.iter(|| {
                let mut referee = OmphalaReferee::new(names(players), RuleOptions::default(), RefereeConfig::default());
                for (k, v) in views.iter().enumerate() {
                    black_box(referee.observe(&v.view, Moment { frame: k as u64, ms: k as u64 * 1000 }));
                }
                referee.record().len()
            })
        });
    }
    group.finish();
}

/// The view `k` among `views` for which `seconds(k)` is largest.
fn slowest(views: std::ops::Range<usize>, mut seconds: impl FnMut(usize) -> f64) -> usize {
    views.map(|k| (seconds(k), k)).fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a }).1
}

/// The slowest single view of a 4-player game: the referee resumed just before it.
fn bench_slowest_view(c: &mut Criterion) {
    let players = 4;
    let (inputs, views) = game(players, 11);
    let k = slowest(1..views.len(), |k| {
        let done = views[k - 1].inputs_done;
        let mut referee =
            OmphalaReferee::resume(names(players), RuleOptions::default(), RefereeConfig::default(), &inputs[..done])
                .expect("resumed");
        let start = std::time::Instant::now();
        referee.observe(&views[k].view, Moment::default());
        start.elapsed().as_secs_f64()
    });
    let done = views[k - 1].inputs_done;
    c.bench_function(&format!("referee: slowest view of a 4-player game (view {k})"), |b| {
        b.iter(|| {
            let mut referee = OmphalaReferee::resume(
                names(players),
                RuleOptions::default(),
                RefereeConfig::default(),
                &inputs[..done],
            )
            .expect("resumed");
            black_box(referee.observe(&views[k].view, Moment::default()))
        })
    });
}

/// A lost referee: views that lie several views past the last one it ruled on (the moves between
/// missed: a hand over the rows, a stalled camera), each ruled on as it arrives, and the view
/// given again a second later while it stays unexplained. The slowest such view of a 4-player
/// game.
fn bench_lost(c: &mut Criterion) {
    let players = 4;
    let (inputs, views) = game(players, 11);
    let lost = |k: usize, missed: usize| {
        let done = views[k - missed].inputs_done;
        let mut referee =
            OmphalaReferee::resume(names(players), RuleOptions::default(), RefereeConfig::default(), &inputs[..done])
                .expect("resumed");
        for again in 0..3 {
            black_box(referee.observe(&views[k].view, Moment { frame: again, ms: again * 1000 }));
        }
    };
    let mut group = c.benchmark_group("referee lost");
    group.sample_size(10);
    for missed in [2, 4] {
        let k = slowest(missed..views.len(), |k| {
            let start = std::time::Instant::now();
            lost(k, missed);
            start.elapsed().as_secs_f64()
        });
        group.bench_function(
            format!("{missed} views missed: the slowest view of a 4-player game, ruled on 3 times (view {k})"),
            |b| b.iter(|| lost(k, missed)),
        );
    }
    group.finish();
}

criterion_group!(benches, bench_whole_game, bench_slowest_view, bench_lost);
criterion_main!(benches);
