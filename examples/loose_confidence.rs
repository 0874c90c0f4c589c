//! How sure the card reader is of the indices it reads without an outline (loose: fans,
//! cascades, cards under others) on synthetic tables, right and false apart, and how many of the
//! right ones are the only reading of their card (a bar above them would lose the card):
//! `cargo run --release --example loose_confidence -- [SCENES] [FIRST_SEED]`.
use card_referee::render::{Renderer, SceneOptions, random_scene};
use card_referee::vision::cards::CardDetector;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(30, |a| a.parse().unwrap());
    let first: u64 = args.next().map_or(20_000_000, |a| a.parse().unwrap());
    let options = SceneOptions::default();
    let det = CardDetector::new().unwrap();
    let mut r = Renderer::new();
    // (confidence, right, only reading of its card)
    let mut seen: Vec<(f32, bool, bool)> = Vec::new();
    for seed in first..first + n {
        let scene = r.render(&random_scene(seed, &options)).unwrap();
        let found = det.detect(&scene.image).unwrap();
        for (i, d) in found.iter().enumerate().filter(|(_, d)| d.quad.is_none()) {
            let Some(card) = d.card else { continue };
            let right = scene.truth.iter().any(|t| t.card == card && t.face_up);
            let only = !found.iter().enumerate().any(|(j, e)| j != i && e.card == Some(card));
            seen.push((d.confidence, right, only));
        }
    }
    println!("loose readings: {}", seen.len());
    println!("bar   false below  right below  right and its card's only reading, below");
    for bar in [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99] {
        let f = seen.iter().filter(|s| s.0 < bar && !s.1).count();
        let r = seen.iter().filter(|s| s.0 < bar && s.1).count();
        let ro = seen.iter().filter(|s| s.0 < bar && s.1 && s.2).count();
        println!("{bar:.2}  {f:11}  {r:11}  {ro:11}");
    }
    let total_false = seen.iter().filter(|s| !s.1).count();
    println!("false in all: {total_false}");
}
