//! Chooses the bar at which a card outline's two corners, read alike by the quick corner
//! network, stand without the full network (`index_net::QuickFirst::read_paired`): on rendered
//! tables drawn only in the typefaces the networks never trained on, every outline the detector
//! finds whose two corners show one card's whole index is read as the detector reads it, and for
//! each bar the cards named are compared with the truth.
//!
//! A second table does the same for the bar at which the full network's reading of one corner
//! confirms a pair the quick network reads alike below the pair bar; a third for the bar at
//! which a corner the quick network settles alone lets its partner's quick reading of the same
//! card stand; and a fourth for the confirmation bar with pairs the quick network reads as two
//! cards confirmed too.
//!
//! `cargo run --release --example corner_pair_bar -- [SCENES] [FIRST_SEED] [FONTS]` (default 400,
//! 7000000, /usr/share/fonts: the fonts the networks were trained from, as `card_patches` read
//! them)

use card_referee::cards::Card;
use card_referee::render::fonts::fonts_under;
use card_referee::render::{Renderer, SceneOptions, random_scene};
use card_referee::training::patches::{camera_effects, corner_pairs};
use card_referee::vision::cards::DetectorConfig;
use card_referee::vision::cards::readers::index_net::{NetReading, QuickFirst};
use card_referee::vision::cards::readers::patch::Patch;
use card_referee::vision::cards::stages::corners::combine;
use card_referee::vision::cards::types::IndexReading;
use opencv::core::Size;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BARS: [f32; 8] = [f32::INFINITY, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.6];
const CONFIRM_BARS: [f32; 9] = [f32::INFINITY, 0.95, 0.92, 0.9, 0.85, 0.8, 0.75, 0.7, 0.6];
const PARTNER_BARS: [f32; 8] = [f32::INFINITY, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.0];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| args.get(i).map_or(Ok(default), |a| a.parse());
    let (scenes, first) = (number(0, 400)?, number(1, 7_000_000)?);
    let fonts = args.get(2).map_or("/usr/share/fonts", String::as_str);
    opencv::core::set_num_threads(1)?;
    // The typefaces held out of training, as `card_patches` chooses them (every eighth by path).
    let held: Vec<_> = fonts_under(std::path::Path::new(fonts))
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 8 == 7)
        .map(|(_, f)| f)
        .collect();
    eprintln!("{} held-out typefaces", held.len());
    let mut renderer = Renderer::new();
    let mut pairs: Vec<(Card, [Patch; 2])> = Vec::new();
    for s in first..first + scenes {
        let mut rng = ChaCha8Rng::seed_from_u64(s ^ 0x7061_6972_7321);
        let sizes = [(1280, 720), (960, 540), (640, 480), (1920, 1080)];
        let (w, h) = sizes[rng.random_range(0..sizes.len())];
        let options = SceneOptions {
            size: Size::new(w, h),
            cards: 6..=20,
            max_tilt: 0.5,
            max_blur: 1.8,
            max_noise: 8.0,
            fonts: held.clone(),
            view_width: 0.3 * f64::from(w)..1.1 * f64::from(w),
            spreads: true,
            varied_faces: true,
            ..SceneOptions::default()
        };
        let rendered = renderer.render(&random_scene(s, &options))?;
        let frame = camera_effects(&rendered.image, &mut rng)?;
        pairs.extend(corner_pairs(&frame, &rendered.truth)?);
    }
    let patches: Vec<&Patch> = pairs.iter().flat_map(|(_, p)| p.iter()).collect();
    let index: Vec<(usize, usize)> = (0..pairs.len()).map(|i| (2 * i, 2 * i + 1)).collect();
    println!("{} outlines with one card's index at both corners, {scenes} scenes from seed {first}", pairs.len());
    println!("bar     wrong  unnamed  corners read by the full network");
    let full = QuickFirst::corner()?.read(&patches, true)?;
    let cards: Vec<Card> = pairs.iter().map(|(card, _)| *card).collect();
    // The pair bar alone, with no pair confirmed by one full reading.
    for bar in BARS {
        let nets = QuickFirst::corner()?
            .with_pair_bar(bar)
            .with_confirm_bar(f32::INFINITY)
            .with_partner_bar(f32::INFINITY)
            .with_confirm_apart(false);
        print_row(bar, &cards, &nets.read_paired(&patches, &index, false)?, &full);
    }
    // The shipped pair bar, and a pair the quick network reads alike below it confirmed by the full
    // network's reading of one corner at each bar.
    println!("confirmed by one full reading (pair bar as shipped)");
    println!("bar     wrong  unnamed  corners read by the full network");
    for bar in CONFIRM_BARS {
        let nets =
            QuickFirst::corner()?.with_confirm_bar(bar).with_partner_bar(f32::INFINITY).with_confirm_apart(false);
        print_row(bar, &cards, &nets.read_paired(&patches, &index, false)?, &full);
    }
    // The shipped pair and confirmation bars, and a corner the quick network settles alone whose
    // partner it reads as the same card, below the pair bar, at each bar.
    println!("a settled corner's partner (pair and confirmation bars as shipped)");
    println!("bar     wrong  unnamed  corners read by the full network");
    for bar in PARTNER_BARS {
        let nets = QuickFirst::corner()?.with_partner_bar(bar).with_confirm_apart(false);
        print_row(bar, &cards, &nets.read_paired(&patches, &index, false)?, &full);
    }
    // And pairs the quick network reads as two cards, confirmed as pairs read alike are: the
    // surer corner's quick reading stands where the full network reads the other as its card.
    println!("pairs read apart confirmed too (pair and partner bars as shipped)");
    println!("bar     wrong  unnamed  corners read by the full network");
    for bar in CONFIRM_BARS {
        let nets = QuickFirst::corner()?.with_confirm_bar(bar).with_confirm_apart(true);
        print_row(bar, &cards, &nets.read_paired(&patches, &index, false)?, &full);
    }
    Ok(())
}

/// One bar's row: the outlines named wrong and left unnamed, and the corners the full network
/// read (a corner's reading equal to the full network's).
fn print_row(bar: f32, cards: &[Card], readings: &[NetReading], full: &[NetReading]) {
    let by_full = readings.iter().zip(full).filter(|(r, f)| r == f).count();
    let (mut wrong, mut unnamed) = (0, 0);
    for (card, corners) in cards.iter().zip(readings.chunks(2)) {
        let read: Vec<IndexReading> = corners
            .iter()
            .filter_map(|r| r.card())
            .map(|(card, confidence)| IndexReading { card, confidence })
            .collect();
        match combine(&read, DetectorConfig::default().min_confidence).0 {
            Some(named) if named != *card => wrong += 1,
            None => unnamed += 1,
            _ => {}
        }
    }
    let name = if bar.is_finite() { format!("{bar:.2}") } else { "never".into() };
    println!("{name:7} {wrong:5}  {unnamed:7}  {by_full}");
}
