//! Builds the card reader's two template sets (see models/README.md):
//! - `models/card_glyphs.bin`: every rank (A 2-10 J Q K), suit sign and the digits 0 and 1
//!   rendered from a list of font files, each at three widths (bold faces stand in for thicker
//!   strokes);
//! - `models/card_glyphs_seen.bin`: glyphs cut by the detector's own corner reader from damaged
//!   renderings of whole faces (`training::glyphs`) drawn in every font under
//!   /usr/share/fonts that has the index characters, grouped by k-means to 80 per class.
//!
//! - `models/card_rank_net_{1,2,3}.yml` and `card_suit_net_{1,2,3}.yml`: the rank and suit
//!   networks (`vision::cards::readers::glyph_net`), each trained on glyphs cut from its own damaged faces,
//!   the font set and the drawn shapes.
//!
//! Deterministic: the same fonts give the same files, byte for byte.
//!
//! `cargo run --release --example train_cards -- [--out DIR] [--rounds N] [--per-class K] [--net-rounds N] [FONT...]`
//! Without FONT arguments the font set uses the fonts listed in models/README.md from
//! /usr/share/fonts (Debian packages fonts-dejavu-core fonts-liberation fonts-freefont-ttf
//! fonts-urw-base35 fonts-noto-core); missing ones are reported and skipped. No photograph is used.

use std::path::{Path, PathBuf};

use card_referee::render::fonts::fonts_under;
use card_referee::training::glyphs::{condensed, damaged_glyphs};
use card_referee::vision::cards::readers::classify::GlyphTemplates;
use card_referee::vision::cards::readers::glyph_net::{GlyphNet, Reads};

const DEFAULT_FONTS: &[&str] = &[
    "truetype/dejavu/DejaVuSans.ttf",
    "truetype/dejavu/DejaVuSans-Bold.ttf",
    "truetype/dejavu/DejaVuSerif.ttf",
    "truetype/dejavu/DejaVuSerif-Bold.ttf",
    "truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "truetype/liberation/LiberationSans-Regular.ttf",
    "truetype/liberation/LiberationSans-Bold.ttf",
    "truetype/liberation/LiberationSerif-Regular.ttf",
    "truetype/liberation/LiberationSerif-Bold.ttf",
    "truetype/freefont/FreeSans.ttf",
    "truetype/freefont/FreeSansBold.ttf",
    "truetype/freefont/FreeSerif.ttf",
    "truetype/freefont/FreeSerifBold.ttf",
    "truetype/noto/NotoSans-Regular.ttf",
    "truetype/noto/NotoSans-Bold.ttf",
    "truetype/noto/NotoSerif-Regular.ttf",
    "truetype/noto/NotoSerif-Bold.ttf",
    "opentype/urw-base35/NimbusSans-Regular.otf",
    "opentype/urw-base35/NimbusSans-Bold.otf",
    "opentype/urw-base35/NimbusRoman-Regular.otf",
    "opentype/urw-base35/NimbusRoman-Bold.otf",
    "opentype/urw-base35/C059-Roman.otf",
    "opentype/urw-base35/C059-Bold.otf",
    "opentype/urw-base35/P052-Roman.otf",
    "opentype/urw-base35/P052-Bold.otf",
    "opentype/urw-base35/URWGothic-Book.otf",
    "opentype/urw-base35/URWGothic-Demi.otf",
    "opentype/urw-base35/URWBookman-Demi.otf",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = PathBuf::from("models");
    let (mut rounds, mut per_class, mut net_rounds) = (40usize, 80usize, 60usize);
    let mut fonts: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--out" => out = PathBuf::from(value("--out")?),
            "--rounds" => rounds = value("--rounds")?.parse()?,
            "--per-class" => per_class = value("--per-class")?.parse()?,
            "--net-rounds" => net_rounds = value("--net-rounds")?.parse()?,
            _ => fonts.push(PathBuf::from(arg)),
        }
    }
    if fonts.is_empty() {
        fonts = DEFAULT_FONTS.iter().map(|f| PathBuf::from("/usr/share/fonts").join(f)).collect();
    }
    let mut data = Vec::new();
    for path in &fonts {
        match std::fs::read(path) {
            Ok(bytes) => data.push(bytes),
            Err(e) => eprintln!("skipping {}: {e}", path.display()),
        }
    }
    let slices: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
    let set = GlyphTemplates::render(&slices, false)?;
    write(&set, &out.join("card_glyphs.bin"), &format!("{} fonts", slices.len()))?;

    let all_fonts = fonts_under(Path::new("/usr/share/fonts"));
    let samples = damaged_glyphs(rounds, 1, &all_fonts)?;
    let seen = condensed(&samples, per_class)?;
    let what =
        format!("{rounds} rounds of 52 damaged faces in {} fonts, {} glyphs", all_fonts.len(), samples.templates.len());
    write(&seen, &out.join("card_glyphs_seen.bin"), &what)?;

    // The networks learn from more damaged faces than the templates keep, and from the clean
    // font glyphs and drawn shapes (flat-topped 3s, pips) the loose search compares with. Each
    // of the three of a kind sees its own damaged faces; they train side by side, each on one
    // OpenCV thread, so that the same fonts give the same networks.
    let mut clean = set.templates;
    clean.extend(GlyphTemplates::drawn()?.templates);
    opencv::core::set_num_threads(1)?;
    for (reads, name) in [(Reads::Ranks, "rank"), (Reads::Suits, "suit")] {
        let start = std::time::Instant::now();
        let trained: Vec<opencv::Result<(usize, GlyphNet)>> = std::thread::scope(|scope| {
            let jobs: Vec<_> = (1..=3u64)
                .map(|i| {
                    let (fonts, clean) = (&all_fonts, &clean);
                    scope.spawn(move || {
                        let mut glyphs = damaged_glyphs(net_rounds, 10 + i, fonts)?;
                        glyphs.templates.extend(clean.iter().cloned());
                        Ok((glyphs.templates.len(), GlyphNet::train(&glyphs, reads, NET_ITERATIONS, 4_240 + i)?))
                    })
                })
                .collect();
            jobs.into_iter().map(|j| j.join().expect("training thread")).collect()
        });
        for (i, result) in trained.into_iter().enumerate() {
            let (count, net) = result?;
            let path = out.join(format!("card_{name}_net_{}.yml", i + 1));
            std::fs::write(&path, net.to_yaml()?)?;
            println!(
                "{name} network {}: {count} glyphs ({net_rounds} rounds of damaged faces, the font set, drawn shapes), {NET_ITERATIONS} iterations, {:.0} s -> {}",
                i + 1,
                start.elapsed().as_secs_f64(),
                path.display()
            );
        }
    }
    Ok(())
}

/// Training passes of each network (RPROP, whole set each pass).
const NET_ITERATIONS: i32 = 300;

fn write(set: &GlyphTemplates, path: &Path, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    let bytes = set.encode();
    std::fs::write(path, &bytes)?;
    println!("{what}: {} templates, {} bytes -> {}", set.templates.len(), bytes.len(), path.display());
    Ok(())
}
