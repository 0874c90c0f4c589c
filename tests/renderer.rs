//! The synthetic table renderer: deterministic for a seed, and its ground truth matches what it drew.

use card_referee::geometry::{Pt, quad_contains};
use card_referee::render::scene::{Rendered, Scene};
use card_referee::render::table::TableKind;
use card_referee::render::{Renderer, SceneOptions, random_scene};
use opencv::core::{Mat, Size};
use opencv::prelude::*;

fn options() -> SceneOptions {
    SceneOptions { size: Size::new(640, 360), ..SceneOptions::default() }
}

fn render(scene: &Scene) -> Rendered {
    Renderer::new().render(scene).unwrap()
}

fn brightness(image: &Mat, p: Pt) -> Option<u32> {
    let (x, y) = (p.x as i32, p.y as i32);
    let px = image.at_2d::<opencv::core::Vec3b>(y, x).ok()?;
    Some(px.iter().map(|&v| u32::from(v)).sum::<u32>() / 3)
}

fn grid(q: &[Pt; 4], n: usize, margin: f64) -> Vec<Pt> {
    let mut points = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (
                margin + (1.0 - 2.0 * margin) * i as f64 / (n - 1) as f64,
                margin + (1.0 - 2.0 * margin) * j as f64 / (n - 1) as f64,
            );
            points.push(q[0].lerp(q[1], u).lerp(q[3].lerp(q[2], u), v));
        }
    }
    points
}

#[test]
fn the_same_seed_draws_the_same_frame_and_another_seed_does_not() {
    let a = render(&random_scene(11, &options()));
    let b = render(&random_scene(11, &options()));
    let c = render(&random_scene(12, &options()));
    assert_eq!(a.image.data_bytes().unwrap(), b.image.data_bytes().unwrap());
    assert_eq!(a.truth, b.truth);
    assert_ne!(a.image.data_bytes().unwrap(), c.image.data_bytes().unwrap());
}

#[test]
fn every_visible_index_lies_inside_its_card_and_shows_ink_on_paper() {
    let mut checked = 0;
    for seed in 0..12 {
        let mut scene = random_scene(seed, &options());
        // A dark table makes card paper and index ink easy to tell from the table.
        scene.table = TableKind::Dark;
        scene.hand = None;
        let rendered = render(&scene);
        for truth in rendered.truth.iter().filter(|t| t.face_up) {
            for (index_quad, visible) in truth.index_quads.iter().zip(truth.index_visible) {
                for corner in index_quad {
                    assert!(
                        quad_contains(&truth.quad, *corner),
                        "seed {seed} {}: index corner outside the card",
                        truth.card
                    );
                }
                if !visible {
                    continue;
                }
                let levels: Vec<u32> =
                    grid(index_quad, 7, 0.05).into_iter().filter_map(|p| brightness(&rendered.image, p)).collect();
                let (darkest, brightest) = (levels.iter().min().unwrap(), levels.iter().max().unwrap());
                assert!(
                    *brightest > 120 && *darkest + 60 < *brightest,
                    "seed {seed} {}: index shows no ink on paper ({darkest}..{brightest})",
                    truth.card
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} index corners checked");
}

#[test]
fn fully_visible_face_up_cards_are_paper_inside_their_outline() {
    for seed in 20..30 {
        let mut scene = random_scene(seed, &options());
        scene.table = TableKind::Dark;
        scene.hand = None;
        let rendered = render(&scene);
        for truth in rendered.truth.iter().filter(|t| t.face_up && t.visible > 0.98) {
            let mut levels: Vec<u32> =
                grid(&truth.quad, 6, 0.08).into_iter().filter_map(|p| brightness(&rendered.image, p)).collect();
            levels.sort_unstable();
            let median = levels[levels.len() / 2];
            assert!(median > 110, "seed {seed} {}: median {median} inside the outline is not card paper", truth.card);
        }
    }
}

#[test]
fn a_hand_hides_what_it_covers() {
    let covered = (0..40)
        .map(|seed| render(&random_scene(seed, &SceneOptions { hand_chance: 1.0, ..options() })))
        .flat_map(|r| r.truth)
        .filter(|t| t.visible < 0.9)
        .count();
    assert!(covered > 0, "no hand ever covered a card in 40 scenes");
}
