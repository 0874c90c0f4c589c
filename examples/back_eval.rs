//! How well a card-back calibration tells the calibrated back from faces and from other backs on
//! renderer scenes, and what it does to the face-down count:
//! `cargo run --release --example back_eval -- [SCENES] [STYLES]`.
use card_referee::geometry::{Pt, quad_contains};
use card_referee::render::face::BackStyle;
use card_referee::render::random::{back_photo_scene, random_back_style};
use card_referee::render::{Renderer, SceneOptions, random_scene};
use card_referee::vision::cards::decks::back::{BackProfile, MATCH, NO_MATCH, card_in_photo};
use card_referee::vision::cards::picture::pixels::rectify;
use card_referee::vision::cards::stages::outlines::find_card_quads;
use card_referee::vision::cards::{CardDetector, Face};
use opencv::core::Mat;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Calibrates from one rendered photo of the back.
fn calibrate(renderer: &mut Renderer, seed: u64, style: &BackStyle) -> BackProfile {
    let photo = renderer.render(&back_photo_scene(seed, style)).unwrap().image;
    let cards: Vec<Mat> = card_in_photo(&photo).unwrap().into_iter().collect();
    BackProfile::from_cards(&cards).unwrap().expect("the photo shows the back")
}

fn summary(name: &str, mut v: Vec<f32>) {
    v.sort_by(f32::total_cmp);
    let at = |q: f64| v.get(((v.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(f32::NAN);
    println!(
        "{name:>12}: n {:4}  min {:.3}  5% {:.3}  median {:.3}  95% {:.3}  max {:.3}  >=MATCH {:4}  <NO_MATCH {:4}",
        v.len(),
        at(0.0),
        at(0.05),
        at(0.5),
        at(0.95),
        at(1.0),
        v.iter().filter(|&&s| s >= MATCH).count(),
        v.iter().filter(|&&s| s < NO_MATCH).count(),
    );
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let scenes = args.first().copied().unwrap_or(30);
    let styles = args.get(1).copied().unwrap_or(4);
    let mut renderer = Renderer::new();
    let plain = CardDetector::new().unwrap();
    let (mut same, mut faces, mut other) = (Vec::new(), Vec::new(), Vec::new());
    let (mut err_plain, mut err_back, mut n) = (0.0, 0.0, 0);
    for style_seed in 0..styles {
        let style = random_back_style(&mut ChaCha8Rng::seed_from_u64(style_seed));
        let other_style = random_back_style(&mut ChaCha8Rng::seed_from_u64(style_seed + 1000));
        let profile = calibrate(&mut renderer, style_seed, &style);
        let mut with_back = CardDetector::new().unwrap();
        with_back.set_back(Some(profile.clone()));
        for seed in 0..scenes {
            let mut scene = random_scene(2_000_000 + style_seed * 1000 + seed, &SceneOptions::default());
            for (style_here, is_same) in [(&style, true), (&other_style, false)] {
                scene.back_style = style_here.clone();
                let rendered = renderer.render(&scene).unwrap();
                for quad in find_card_quads(&rendered.image, 0.004).unwrap() {
                    let c =
                        [quad.iter().map(|p| p[0]).sum::<f32>() / 4.0, quad.iter().map(|p| p[1]).sum::<f32>() / 4.0];
                    let centre = Pt::new(f64::from(c[0]), f64::from(c[1]));
                    // The top-most card under the outline's centre.
                    let area = |q: [Pt; 4]| {
                        (0..4).map(|i| q[i].x * q[(i + 1) % 4].y - q[(i + 1) % 4].x * q[i].y).sum::<f64>().abs() / 2.0
                    };
                    let found = area(quad.map(|p| Pt::new(f64::from(p[0]), f64::from(p[1]))));
                    let Some(truth) = rendered
                        .truth
                        .iter()
                        .rev()
                        .find(|t| quad_contains(&t.quad, centre) && (0.7..1.5).contains(&(found / area(t.quad))))
                    else {
                        continue;
                    };
                    let card = rectify(&rendered.image, &quad).unwrap();
                    let s = profile.similarity(&card).unwrap();
                    match (truth.face_up, is_same) {
                        (true, true) => faces.push(s),
                        (false, true) => same.push(s),
                        (false, false) => other.push(s),
                        (true, false) => {}
                    }
                }
                if is_same {
                    let expected = rendered.truth.iter().filter(|t| !t.face_up && t.visible > 0.5).count() as f64;
                    let down = |d: &CardDetector| {
                        d.detect(&rendered.image).unwrap().iter().filter(|c| c.face == Face::Down).count() as f64
                    };
                    err_plain += (down(&plain) - expected).abs();
                    err_back += (down(&with_back) - expected).abs();
                    n += 1;
                }
            }
        }
    }
    println!("similarity to the calibrated back (MATCH {MATCH}, NO_MATCH {NO_MATCH}):");
    summary("same back", same);
    summary("faces", faces);
    summary("other back", other);
    println!(
        "face-down count error per scene over {n} scenes: without calibration {:.3}, with {:.3}",
        err_plain / f64::from(n),
        err_back / f64::from(n)
    );
}
