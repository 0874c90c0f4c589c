//! Symbol-card recognition speed: 1280x720 synthetic table frames with 4 and with 6 Cipher cards
//! (perspective, blur, partial covering), detected and identified on one thread.

use criterion::{Criterion, criterion_group, criterion_main};

use card_referee::symbols::render::PictureDeck;
use card_referee::vision::symbols::SymbolRecognizer;
use card_referee::vision::symbols::synth::synthetic_frame;

fn bench(c: &mut Criterion) {
    opencv::core::set_num_threads(1).expect("one OpenCV thread");
    let deck = PictureDeck::cipher();
    let recognizer = SymbolRecognizer::cipher().expect("cipher recogniser");
    for cards in [4, 6] {
        let frames: Vec<_> = (0..4u64)
            .map(|seed| synthetic_frame(&deck, 7000 + seed, 1280, 720, cards).expect("synthetic frame").0)
            .collect();
        let mut k = 0;
        c.bench_function(&format!("symbols_detect_1280x720_{cards}_cards"), |b| {
            b.iter(|| {
                k = (k + 1) % frames.len();
                recognizer.detect(&frames[k]).expect("detect")
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
