//! The whole live path on one core, at 1280x720: a frame of a rendered two-seat game detected,
//! its motion measured, its cards placed in the layout's rows, settled, and ruled on by the
//! Omphala referee. Two figures:
//! - the frame that settles the table after the first action, up to the verdict on it (the
//!   referee's `input` event): the settler and referee as they stood before it, cloned;
//! - every frame of the first action and its rest, one after another: what a 30 fps camera
//!   asks of the path is one frame in 33 ms on average.

use std::hint::black_box;

use card_referee::referee::omphala::{Moment, OmphalaReferee, RefereeConfig, RefereeEvent};
use card_referee::render::game::{GameOptions, GameVideo, Kind};
use card_referee::rules::omphala::RuleOptions;
use card_referee::rules::omphala::simulate::{RecordOptions, play_recorded};
use card_referee::table::{MotionGate, SettleConfig, Settler, place_frame};
use card_referee::vision::cards::CardDetector;
use criterion::{Criterion, criterion_group, criterion_main};
use opencv::core::{Mat, Size};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const FPS: f64 = 30.0;

/// The path's state before a frame: what the frame is ruled against.
#[derive(Clone)]
struct Path {
    gate: MotionGate,
    settler: Settler,
    referee: OmphalaReferee,
}

impl Path {
    /// One frame through the whole path; the referee's events when a view settled.
    fn frame(&mut self, detector: &CardDetector, video: &GameVideo, image: &Mat, k: usize) -> Vec<RefereeEvent> {
        let detections = detector.detect(image).expect("detection");
        let motion = self.gate.measure(image).expect("motion");
        let view = place_frame(image, &detections, &video.layout).expect("placement");
        match self.settler.push(view, motion) {
            Some(settled) => {
                let at = Moment { frame: k as u64, ms: (k as f64 * 1000.0 / FPS) as u64 };
                self.referee.observe(&settled.view, at)
            }
            None => Vec::new(),
        }
    }
}

/// A short random two-seat game, filmed at 1280x720.
fn video() -> (GameVideo, Vec<String>) {
    let mut rng = ChaCha8Rng::seed_from_u64(4242);
    let how = RecordOptions { max_turns: Some(2), illegal: 0 };
    let game = play_recorded(&mut rng, 2, RuleOptions::default(), &how).expect("random game");
    let options = GameOptions { seed: 4242, size: Some(Size::new(1280, 720)), fps: FPS, ..GameOptions::default() };
    let video = GameVideo::from_text(&game.record.to_string(), &options).expect("filmed");
    (video, game.record.names())
}

fn bench(c: &mut Criterion) {
    // One core: the frame budget is for one laptop core.
    opencv::core::set_num_threads(1).expect("one OpenCV thread");
    card_referee::vision::memory::keep_freed_buffers();
    let detector = CardDetector::new().expect("card models");
    let (mut video, names) = video();
    let first_action = video.timeline().iter().find(|t| t.kind == Kind::Action).expect("an action").clone();
    let frames: Vec<Mat> = (0..=first_action.rest_until).map(|k| video.render(k).expect("rendered").image).collect();
    let mut path = Path {
        gate: MotionGate::new(),
        settler: Settler::new(SettleConfig::for_fps(FPS)),
        referee: OmphalaReferee::new(names, RuleOptions::default(), RefereeConfig::default()),
    };
    // Played through once: the state before the frame whose verdict is the first action's.
    let mut before_verdict = None;
    let mut before_action = None;
    for (k, image) in frames.iter().enumerate() {
        if k == first_action.start {
            before_action = Some(path.clone());
        }
        let before = path.clone();
        let said = path.frame(&detector, &video, image, k);
        let ruled = said.iter().any(|e| matches!(e, RefereeEvent::Input { .. }));
        if k > first_action.start && ruled && before_verdict.is_none() {
            before_verdict = Some((before, k));
        }
    }
    let (before, k) = before_verdict.expect("the first action was ruled on while it rested");
    let before_action = before_action.expect("the action's first frame");
    eprintln!(
        "first action '{}' ruled on at frame {k} (acted out from frame {})",
        first_action.text, first_action.start
    );

    let mut group = c.benchmark_group("frame_to_verdict");
    group.sample_size(20);
    group.bench_function("1280x720 2 seats: the settling frame to the first action's verdict", |b| {
        b.iter_batched(
            || before.clone(),
            |mut path| black_box(path.frame(&detector, &video, &frames[k], k)),
            criterion::BatchSize::LargeInput,
        )
    });
    let span = first_action.start..frames.len();
    group.sample_size(10);
    group.bench_function(
        format!("1280x720 2 seats: all {} frames of the first action and its rest", span.len()),
        |b| {
            b.iter_batched(
                || before_action.clone(),
                |mut path| {
                    for k in span.clone() {
                        black_box(path.frame(&detector, &video, &frames[k], k));
                    }
                },
                criterion::BatchSize::LargeInput,
            )
        },
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
