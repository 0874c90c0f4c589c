//! Writes the index network's training patches (`training::patches`): random rendered
//! tables (every installed font that draws the indices, spread hands, cards from small to
//! large, camera effects), cut where the detector reads, labelled from the renderer's ground
//! truth. No photograph is used.
//!
//! `cargo run --release --example card_patches -- --scenes N --seed S --out FILE [--fonts DIR] [--show DIR]`
//!
//! `--show DIR` also saves each frame as the patches were cut from it, to look at.
//!
//! Fonts are sorted by path; every eighth (from the eighth) is kept for validation: scenes whose
//! seed ends in 9 are drawn only in those, and their records are marked group 1 (the others 0),
//! so the trainer can measure on typefaces it never saw.

use std::io::BufWriter;
use std::path::PathBuf;

use card_referee::render::fonts::fonts_under;
use card_referee::render::{Renderer, SceneOptions, random_scene};
use card_referee::training::patches::{SampleOptions, camera_effects, samples, write_header, write_sample};
use opencv::core::Size;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut scenes, mut seed, mut out, mut font_dir) = (100u64, 0u64, None, PathBuf::from("/usr/share/fonts"));
    let mut show: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--scenes" => scenes = value("--scenes")?.parse()?,
            "--seed" => seed = value("--seed")?.parse()?,
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--fonts" => font_dir = PathBuf::from(value("--fonts")?),
            "--show" => show = Some(PathBuf::from(value("--show")?)),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let out = out.ok_or("--out FILE is needed")?;
    let fonts = fonts_under(&font_dir);
    let (held, kept): (Vec<_>, Vec<_>) = fonts.into_iter().enumerate().partition(|(i, _)| i % 8 == 7);
    let held: Vec<_> = held.into_iter().map(|(_, f)| f).collect();
    let kept: Vec<_> = kept.into_iter().map(|(_, f)| f).collect();
    eprintln!("{} fonts for training, {} kept for validation", kept.len(), held.len());
    let mut file = BufWriter::new(std::fs::File::create(&out)?);
    write_header(&mut file)?;
    let mut renderer = Renderer::new();
    let options = SampleOptions::default();
    let (mut written, mut positives) = (0usize, 0usize);
    for s in seed..seed + scenes {
        let validation = s % 10 == 9;
        let mut rng = ChaCha8Rng::seed_from_u64(s ^ 0x0070_6174_6368_6573);
        let sizes = [(1280, 720), (1280, 720), (960, 540), (640, 480), (1200, 1200), (1920, 1080), (504, 378)];
        let (w, h) = sizes[rng.random_range(0..sizes.len())];
        let scene_options = SceneOptions {
            size: Size::new(w, h),
            cards: 6..=28,
            max_tilt: 0.5,
            hand_chance: 0.4,
            max_blur: 1.8,
            max_noise: 8.0,
            fonts: if validation { held.clone() } else { kept.clone() },
            view_width: 0.2 * f64::from(w)..1.1 * f64::from(w),
            spreads: true,
            varied_faces: true,
        };
        let rendered = renderer.render(&random_scene(s, &scene_options))?;
        let frame = camera_effects(&rendered.image, &mut rng)?;
        if let Some(dir) = &show {
            let path = dir.join(format!("scene-{s}.png"));
            opencv::imgcodecs::imwrite(&path, &frame, &opencv::core::Vector::new())?;
        }
        for sample in samples(&frame, &rendered.truth, &options, &mut rng)? {
            write_sample(&mut file, &sample, u8::from(validation))?;
            written += 1;
            positives += usize::from(sample.label.is_some());
        }
        if (s - seed + 1) % 200 == 0 {
            eprintln!("{} scenes, {written} patches ({positives} of cards)", s - seed + 1);
        }
    }
    eprintln!("{scenes} scenes, {written} patches ({positives} of cards) -> {}", out.display());
    Ok(())
}
