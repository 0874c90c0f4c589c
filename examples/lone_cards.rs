//! One or two cards, all face up or all face down, alone on each kind of rendered table, evenly
//! lit and lit ±30 % across, near and far: 64 scenes. Prints what was found in each and how many
//! scenes were wrong; with a folder, writes the wrong scenes' frames there:
//! `cargo run --release --example lone_cards -- [DIR]`.
use card_referee::render::geometry::Pt;
use card_referee::render::table::{Lighting, TableKind};
use card_referee::render::{PlacedCard, Renderer, Scene};
use card_referee::vision::cards::{CardDetector, Face};
use opencv::core;

fn main() {
    let dump = std::env::args().nth(1);
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
                        let frame = renderer.render(&scene).unwrap().image;
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
