//! Measures Cipher-deck card-id accuracy on synthetic table frames (fresh seeds):
//! `cargo run --example symbols_synth_eval -- [FRAMES] [FIRST_SEED]`.

use card_referee::symbols::render::PictureDeck;
use card_referee::vision::symbols::SymbolRecognizer;
use card_referee::vision::symbols::synth::synthetic_frame;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let frames: u64 = args.next().map_or(Ok(20), |a| a.parse())?;
    let first: u64 = args.next().map_or(Ok(50_000), |a| a.parse())?;
    // Optional: a folder where frames with a mistake are drawn.
    let draw_dir = args.next();
    let deck = PictureDeck::cipher();
    let recognizer = SymbolRecognizer::cipher()?;
    let (mut cards, mut right, mut wrong, mut missed, mut ms) = (0, 0, 0, 0, 0.0);
    // Round things found where no card lies (a piece of a card, two cards as one).
    let mut stray = 0;
    for seed in first..first + frames {
        let (frame, truth) = synthetic_frame(&deck, seed, 1280, 720, 4)?;
        let start = std::time::Instant::now();
        let found = recognizer.detect(&frame)?;
        ms += start.elapsed().as_secs_f64() * 1000.0;
        let mistakes_before = wrong + missed;
        for d in &found {
            if !truth.iter().any(|t| t.found_in(std::slice::from_ref(d)).is_some()) {
                stray += 1;
                println!("seed {seed}: stray detection at {:?}", d.region.center);
            }
        }
        // Cards mostly hidden under others are not counted.
        for t in truth.iter().filter(|t| t.visible > 0.6) {
            cards += 1;
            let near = t.found_in(&found);
            match near.and_then(|d| d.card) {
                Some(c) if c == t.card => right += 1,
                Some(c) => {
                    wrong += 1;
                    println!("seed {seed}: card {} read as {c}", t.card);
                }
                None => {
                    missed += 1;
                    println!("seed {seed}: card {} {}", t.card, if near.is_some() { "unknown" } else { "not found" });
                }
            }
        }
        if let Some(dir) = &draw_dir
            && wrong + missed > mistakes_before
        {
            let img = card_referee::vision::symbols::output::draw(&frame, &found)?;
            opencv::imgcodecs::imwrite(format!("{dir}/synth-{seed}.png"), &img, &opencv::core::Vector::new())?;
        }
    }
    println!(
        "frames {frames}, cards {cards}: card-id accuracy {:.2}% ({right}), wrong {wrong}, missed {missed}, \
         stray detections {stray}, {:.1} ms per frame",
        100.0 * right as f64 / cards.max(1) as f64,
        ms / frames.max(1) as f64
    );
    Ok(())
}
