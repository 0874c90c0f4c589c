//! Where the card reader goes wrong on synthetic tables: per readable card, read right / misread /
//! missed, by path (outline or loose index), and what the false readings were:
//! `cargo run --release --example synth_breakdown -- [SCENES] [FIRST_SEED] [v|q] [MIN MAX]` (v lists each
//! one; MIN and MAX cards a table, as `eval synthetic --cards`).
use card_referee::render::{Renderer, SceneOptions, random_scene};
use card_referee::vision::cards::CardDetector;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(30, |a| a.parse().unwrap());
    let first: u64 = args.next().map_or(1_000_000, |a| a.parse().unwrap());
    let verbose = args.next().is_some_and(|a| a == "v");
    let defaults = SceneOptions::default();
    let cards = match (args.next(), args.next()) {
        (Some(lo), Some(hi)) => lo.parse().unwrap()..=hi.parse().unwrap(),
        _ => defaults.cards.clone(),
    };
    let options = SceneOptions { cards, ..defaults };
    let det = CardDetector::new().unwrap();
    let mut r = Renderer::new();
    let (mut right_q, mut right_l, mut missed_unread_quad, mut missed_none, mut fp_q, mut fp_l, mut total) =
        (0, 0, 0, 0, 0, 0, 0);
    for seed in first..first + n {
        let scene = r.render(&random_scene(seed, &options)).unwrap();
        let found = det.detect(&scene.image).unwrap();
        for t in scene.truth.iter().filter(|t| t.face_up && t.index_visible.iter().any(|v| *v)) {
            total += 1;
            match found.iter().find(|d| d.card == Some(t.card)) {
                Some(d) if d.quad.is_some() => right_q += 1,
                Some(_) => right_l += 1,
                None => {
                    let c = t.quad.iter().fold((0.0, 0.0), |a, p| (a.0 + p.x / 4.0, a.1 + p.y / 4.0));
                    let unread = found.iter().any(|d| {
                        d.card.is_none()
                            && d.quad.is_some_and(|q| {
                                let qc = q
                                    .iter()
                                    .fold((0.0, 0.0), |a, p| (a.0 + p[0] as f64 / 4.0, a.1 + p[1] as f64 / 4.0));
                                (qc.0 - c.0).hypot(qc.1 - c.1) < 30.0
                            })
                    });
                    if unread {
                        missed_unread_quad += 1
                    } else {
                        missed_none += 1
                    }
                    if verbose {
                        println!(
                            "seed {seed}: missed {} vis {:.2} idx {:?} unread-outline {unread}",
                            t.card, t.visible, t.index_visible
                        );
                    }
                }
            }
        }
        for d in found.iter().filter(|d| d.card.is_some()) {
            let card = d.card.unwrap();
            if !scene.truth.iter().any(|t| t.card == card && t.face_up) {
                if d.quad.is_some() {
                    fp_q += 1
                } else {
                    fp_l += 1
                }
                if verbose {
                    println!(
                        "seed {seed}: false {card} {:.2} {} box {:?}",
                        d.confidence,
                        if d.quad.is_some() { "outline" } else { "loose" },
                        d.index_boxes
                    );
                    for b in &d.index_boxes {
                        let (bx, by) =
                            (f64::from(b[0]) + f64::from(b[2]) / 2.0, f64::from(b[1]) + f64::from(b[3]) / 2.0);
                        for t in &scene.truth {
                            for (k, q) in t.index_quads.iter().enumerate() {
                                let c = q.iter().fold((0.0, 0.0), |a, p| (a.0 + p.x / 4.0, a.1 + p.y / 4.0));
                                if (c.0 - bx).hypot(c.1 - by) < 40.0 {
                                    println!(
                                        "    near index {k} of {} (up {}, seen {:.2})",
                                        t.card, t.face_up, t.index_seen[k]
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    println!(
        "readable {total}: right by outline {right_q}, by loose {right_l}; missed with unread outline {missed_unread_quad}, missed without {missed_none}; false by outline {fp_q}, loose {fp_l}"
    );
}
