//! Time to detect and read the cards of a 1280x720 frame holding 20 cards: real single-card
//! photos from ../shared/data/cards/bidly-deck (read in place), scaled to about 100x150 px,
//! turned by small angles and laid apart on a dark table.

use criterion::{Criterion, criterion_group, criterion_main};
use opencv::{core, imgcodecs, imgproc, prelude::*};

use card_referee::render::{Renderer, SceneOptions, random_scene};
use card_referee::vision::cards::{CardDetector, Reader, readers::patch, stages::outlines};

const DECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/cards/bidly-deck");

fn table() -> Mat {
    // One core: the frame budget is for one laptop core, so OpenCV may not spread the work.
    opencv::core::set_num_threads(1).expect("one OpenCV thread");
    // As the program itself does (main.rs).
    card_referee::vision::memory::keep_freed_buffers();
    let mut frame =
        Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, core::Scalar::new(40.0, 70.0, 50.0, 0.0)).unwrap();
    let names = [
        "AS", "2H", "3C", "4D", "5S", "6H", "7C", "8D", "9S", "10H", "JC", "QD", "KS", "AH", "2C", "3D", "4S", "5H",
        "6C", "7D",
    ];
    for (i, name) in names.iter().enumerate() {
        let card = imgcodecs::imread(format!("{DECK}/{name}.jpg"), imgcodecs::IMREAD_COLOR).unwrap();
        let (col, row) = ((i % 7) as f32, (i / 7) as f32);
        let (cx, cy) = (100.0 + col * 180.0, 120.0 + row * 230.0);
        let angle = (i as f32 * 0.7).sin() * 0.35;
        let (w, h) = (100.0f32, 154.0f32);
        let corner = |x: f32, y: f32| {
            let (s, c) = angle.sin_cos();
            core::Point2f::new(cx + x * c - y * s, cy + x * s + y * c)
        };
        let dst = core::Vector::<core::Point2f>::from_iter([
            corner(-w / 2.0, -h / 2.0),
            corner(w / 2.0, -h / 2.0),
            corner(w / 2.0, h / 2.0),
            corner(-w / 2.0, h / 2.0),
        ]);
        let (sw, sh) = (card.cols() as f32, card.rows() as f32);
        let src = core::Vector::<core::Point2f>::from_iter([
            core::Point2f::new(0.0, 0.0),
            core::Point2f::new(sw, 0.0),
            core::Point2f::new(sw, sh),
            core::Point2f::new(0.0, sh),
        ]);
        let m = imgproc::get_perspective_transform(&src, &dst, core::DECOMP_LU).unwrap();
        imgproc::warp_perspective(
            &card,
            &mut frame,
            &m,
            core::Size::new(1280, 720),
            imgproc::INTER_LINEAR,
            core::BORDER_TRANSPARENT,
            core::Scalar::all(0.0),
        )
        .unwrap();
    }
    frame
}

fn bench(c: &mut Criterion) {
    let frame = table();
    let detector = CardDetector::new().unwrap();
    let found = detector.detect(&frame).unwrap();
    let read = found.iter().filter(|d| d.card.is_some()).count();
    eprintln!("bench frame: {} cards found, {} read", found.len(), read);
    c.bench_function("detect_cards_1280x720_20_cards", |b| b.iter(|| detector.detect(&frame).unwrap()));
    // One part of that: cutting the 40 corner patches the index networks read.
    let windows: Vec<patch::Window> = outlines::find_card_quads(&frame, detector.config.min_card_area)
        .unwrap()
        .iter()
        .flat_map(|q| [patch::corner_window(q, false), patch::corner_window(q, true)])
        .collect();
    c.bench_function("cut_corner_patches_20_cards", |b| {
        b.iter(|| {
            windows.iter().map(|w| patch::cut(&frame, w, patch::CORNER_W, patch::CORNER_H).unwrap()).collect::<Vec<_>>()
        })
    });
    // The same with the full networks reading every patch (`--full-networks`).
    let mut full = CardDetector::new().unwrap();
    full.config.quick_networks = false;
    c.bench_function("detect_cards_1280x720_20_cards_full_networks", |b| b.iter(|| full.detect(&frame).unwrap()));
    // Harder frames: the renderer's tables with cascades, fans, a hand and face-down cards, where
    // the index search must look beyond the outlines. Eight seeds, timed one after another.
    let mut renderer = Renderer::new();
    let scenes: Vec<Mat> = (2_000_000..2_000_008)
        .map(|seed| renderer.render(&random_scene(seed, &SceneOptions::default())).unwrap().image)
        .collect();
    // One cycle through the scenes for all the samples: criterion calls a routine afresh for
    // each sample, and a cycle begun there would time the first scenes far more than the rest.
    let mut next = scenes.iter().cycle();
    c.bench_function("detect_cards_1280x720_synthetic_table", |b| {
        b.iter(|| detector.detect(next.next().unwrap()).unwrap())
    });
    c.bench_function("detect_cards_1280x720_synthetic_table_full_networks", |b| {
        b.iter(|| full.detect(next.next().unwrap()).unwrap())
    });
    // The same with the loose search read by the network alone (`--loose-reader network`).
    let mut network = CardDetector::new().unwrap();
    network.config.loose_reader = Reader::Network;
    c.bench_function("detect_cards_1280x720_synthetic_table_loose_network", |b| {
        b.iter(|| network.detect(next.next().unwrap()).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
