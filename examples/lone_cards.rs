//! One or two cards, all face up or all face down, alone on each kind of rendered table, evenly
//! lit and lit ±30 % across, near and far: 64 scenes. Prints what was found in each and how many
//! scenes were wrong; with a folder, writes the wrong scenes' frames there. With `--mat` the
//! cards lie on a mat: everything outside a rectangle round them is darkened.
//! `cargo run --release --example lone_cards -- [--mat] [DIR]`.
use card_referee::geometry::Pt;
use card_referee::render::table::{Lighting, TableKind, on_a_board};
use card_referee::render::{CardTruth, PlacedCard, Renderer, Scene};
use card_referee::vision::cards::{CardDetector, Face};
use opencv::core;
use opencv::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let on_mat = args.iter().any(|a| a == "--mat");
    let dump = args.into_iter().find(|a| a != "--mat");
    let mut renderer = Renderer::new();
    let det = CardDetector::new().unwrap();
    let cards = ["AS", "7H", "KD", "10C", "QS", "3D"];
    let mut bad = 0;
    let mut total = 0;
    for (t, table) in [TableKind::Light, TableKind::Wood, TableKind::GreenFelt, TableKind::Dark].into_iter().enumerate()
    {
        for gradient in [0.0, 0.3] {
            for n in 1..=2usize {
                for face_up in [true, false] {
                    for (k, view) in [400.0, 700.0].into_iter().enumerate() {
                        let placed: Vec<PlacedCard> = (0..n)
                            .map(|i| PlacedCard {
                                card: cards[(i + k + t) % cards.len()].parse().unwrap(),
                                face_up,
                                centre: Pt::new(-60.0 + 120.0 * i as f64, 10.0 * k as f64),
                                angle: 0.3 + 0.5 * i as f64 + gradient,
                            })
                            .collect();
                        let scene = Scene {
                            table,
                            table_seed: 3 + k as u64,
                            lighting: Lighting { gradient, ..Lighting::default() },
                            ..Scene::plain(placed.clone(), view, 0.2)
                        };
                        let rendered = renderer.render(&scene).unwrap();
                        let frame = if on_mat { mat_round(&rendered.image, &rendered.truth) } else { rendered.image };
                        let found = det.detect(&frame).unwrap();
                        let up: Vec<String> = found
                            .iter()
                            .filter(|d| d.face == Face::Up)
                            .map(|d| d.card.map(|c| c.to_string()).unwrap_or("?".into()))
                            .collect();
                        let down = found.iter().filter(|d| d.face == Face::Down).count();
                        let mut want: Vec<String> =
                            if face_up { placed.iter().map(|p| p.card.to_string()).collect() } else { vec![] };
                        let mut got = up.clone();
                        want.sort();
                        got.sort();
                        let ok = got == want && down == if face_up { 0 } else { n };
                        total += 1;
                        if !ok {
                            bad += 1;
                            if let Some(dir) = &dump {
                                let name = format!("{dir}/{table:?}_{gradient}_{n}_{face_up}_{view}.png");
                                opencv::imgcodecs::imwrite(&name, &frame, &core::Vector::new()).unwrap();
                            }
                        }
                        println!(
                            "{} {:?} grad {gradient} n {n} up {face_up} view {view}: up {:?} down {down}",
                            if ok { "ok " } else { "BAD" },
                            table,
                            up
                        );
                    }
                }
            }
        }
    }
    println!("{bad} bad of {total}");
}

/// The frame with everything outside a rectangle round the cards (120 pixels clear of them, and
/// 1.4 times as wide as high) darkened to a third: the cards lie on a mat or board with real
/// edges, on a dark table.
fn mat_round(frame: &core::Mat, truth: &[CardTruth]) -> core::Mat {
    let points = truth.iter().flat_map(|t| t.quad.iter());
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for p in points {
        (x0, y0, x1, y1) = (x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y));
    }
    let (w, h) = (f64::from(frame.cols()), f64::from(frame.rows()));
    // A board's proportions (a placemat, an A4 board: about 1.4): a square outline is not
    // card-shaped, and would not be taken for a card in the first place.
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let half_h = (y1 - y0) / 2.0 + 120.0;
    let half_w = ((x1 - x0) / 2.0 + 120.0).max(1.4 * half_h);
    let (x0, y0) = ((cx - half_w).max(20.0), (cy - half_h).max(20.0));
    let (x1, y1) = ((cx + half_w).min(w - 20.0), (cy + half_h).min(h - 20.0));
    on_a_board(frame, core::Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32)).unwrap()
}
