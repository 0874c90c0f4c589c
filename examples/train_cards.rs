//! Builds `models/card_glyphs.bin`, the template set the card reader compares index glyphs with:
//! every rank (A 2-10 J Q K) and suit sign rendered from a list of font files, each at two widths.
//! (Bold faces stand in for thicker strokes.) Deterministic: the same fonts give the same file, byte for byte.
//!
//! `cargo run --release --example train_cards -- [--out models/card_glyphs.bin] [FONT...]`
//! Without FONT arguments it uses the fonts listed in models/README.md from /usr/share/fonts
//! (Debian packages fonts-dejavu-core fonts-liberation fonts-freefont-ttf fonts-urw-base35
//! fonts-noto-core); missing ones are reported and skipped. No photograph is used.

use std::path::PathBuf;

use card_referee::vision::cards::classify::GlyphTemplates;

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
    let mut out = PathBuf::from("models/card_glyphs.bin");
    let mut fonts: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--out" {
            out = PathBuf::from(args.next().ok_or("--out needs a path")?);
        } else {
            fonts.push(PathBuf::from(arg));
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
    let bytes = set.encode();
    std::fs::write(&out, &bytes)?;
    println!("{} fonts, {} templates, {} bytes -> {}", slices.len(), set.templates.len(), bytes.len(), out.display());
    Ok(())
}
