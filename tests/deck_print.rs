//! The printable Cipher deck: the PDF renders (through poppler's pdftoppm, installed by
//! scripts/setup) into pages that show every card of the deck, each with its own symbols.

use std::path::Path;
use std::process::Command;

use card_referee::symbols::render::pdf::{CARD_MM, print_pages};
use card_referee::symbols::render::{Paper, PictureDeck, print_deck};
use image::RgbaImage;

const DPI: f32 = 40.0;

fn px(mm: f32) -> f32 {
    mm / 25.4 * DPI
}

/// Mean brightness (0..255) of the pixels within `radius` of `center`.
fn brightness(page: &RgbaImage, center: (f32, f32), radius: f32) -> f32 {
    let (mut sum, mut n) = (0.0, 0.0);
    let r = radius.ceil() as i32;
    for dy in -r..=r {
        for dx in -r..=r {
            let (x, y) = (center.0 as i32 + dx, center.1 as i32 + dy);
            let inside = (dx * dx + dy * dy) as f32 <= radius * radius && x >= 0 && y >= 0;
            if let Some(p) = page.get_pixel_checked(x as u32, y as u32).filter(|_| inside) {
                sum += (p[0] as f32 + p[1] as f32 + p[2] as f32) / 3.0;
                n += 1.0;
            }
        }
    }
    sum / n
}

fn rasterise(pdf: &Path, dir: &Path) -> Vec<RgbaImage> {
    let status = Command::new("pdftoppm")
        .args(["-png", "-r", &DPI.to_string()])
        .arg(pdf)
        .arg(dir.join("page"))
        .status()
        .expect("pdftoppm (poppler-utils, installed by scripts/setup) must be on the PATH");
    assert!(status.success());
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    files.sort();
    files.iter().map(|f| image::open(f).unwrap().to_rgba8()).collect()
}

fn check_paper(paper: Paper) {
    let deck = PictureDeck::cipher();
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("cipher.pdf");
    std::fs::write(&pdf, print_deck(&deck, paper).unwrap()).unwrap();
    let truth = print_pages(&deck, paper);
    let pages = rasterise(&pdf, dir.path());
    assert_eq!(pages.len(), truth.len(), "{paper:?}: 10 card pages and a legend");
    assert_eq!(pages.len(), 11);

    let (w, h) = paper.size_mm();
    let mut printed = Vec::new();
    for (page, truth) in pages.iter().zip(&truth) {
        assert!(
            (page.width() as f32 - px(w)).abs() <= 1.5 && (page.height() as f32 - px(h)).abs() <= 1.5,
            "{paper:?}"
        );
        // The page corner is blank paper.
        assert!(brightness(page, (3.0, 3.0), 2.0) > 250.0);
        for card in &truth.cards {
            // Every printed card is the deck's card: the same symbols, by the renderer's ground truth.
            let mut drawn: Vec<usize> = card.symbols.iter().map(|s| s.symbol).collect();
            let mut expected = deck.deck.card(card.card).unwrap().symbols.clone();
            drawn.sort_unstable();
            expected.sort_unstable();
            assert_eq!(drawn, expected, "card {}", card.card);
            // ... and the page shows them: colour where each picture is, white card between.
            for s in &card.symbols {
                let centre = (px(s.center.0), px(s.center.1));
                assert!(
                    brightness(page, centre, px(s.size) / 3.0) < 235.0,
                    "card {}: {} is not on the page",
                    card.card,
                    s.name
                );
            }
            // The grey cut circle: darker than the white card just inside it and the paper outside.
            let (cx, cy) = (px(card.center_mm.0), px(card.center_mm.1));
            let rim = (0..72)
                .map(|k| {
                    let a = k as f32 * std::f32::consts::TAU / 72.0;
                    let r = px(CARD_MM / 2.0);
                    let on = brightness(page, (cx + r * a.cos(), cy + r * a.sin()), 0.0);
                    let inside = brightness(page, (cx + (r - 3.0) * a.cos(), cy + (r - 3.0) * a.sin()), 0.0);
                    (on, inside)
                })
                .filter(|(on, inside)| on < inside)
                .count();
            assert!(rim > 36, "card {}: cut circle not found ({rim}/72)", card.card);
            printed.push(card.card);
        }
    }
    assert_eq!(
        printed,
        (1..=57).collect::<Vec<u32>>(),
        "every card printed once, in order"
    );
    // The legend page shows the 57 pictures in three columns.
    let legend = pages.last().unwrap();
    assert!(brightness(legend, (px(w) / 2.0, px(h) / 2.0), px(w) / 3.0) < 250.0);
}

#[test]
fn a4_sheets_show_every_card() {
    check_paper(Paper::A4);
}

#[test]
fn letter_sheets_show_every_card() {
    check_paper(Paper::Letter);
}

#[test]
fn print_command_writes_the_pdf() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cipher.pdf");
    let run = Command::new(env!("CARGO_BIN_EXE_card-referee"))
        .args(["deck", "print", "--deck", "cipher", "--paper", "letter", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let refused = Command::new(env!("CARGO_BIN_EXE_card-referee"))
        .args(["deck", "print", "--deck", "plane-7", "--out"])
        .arg(dir.path().join("x.pdf"))
        .output()
        .unwrap();
    assert_eq!(
        refused.status.code(),
        Some(2),
        "a deck without pictures cannot be printed"
    );
}
