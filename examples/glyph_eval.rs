//! Glyph accuracy of the card reader's classifier on damaged renderer faces drawn with fonts it
//! was not built from: `cargo run --release --example glyph_eval -- [ROUNDS] [TRAIN_ROUNDS]`.
use card_referee::cards::Suit;
use card_referee::training::glyphs::damaged_glyphs;
use card_referee::vision::cards::readers::classify::{GlyphClass, GlyphTemplates, confidence};

#[path = "shared/font_halves.rs"]
mod font_halves;
use font_halves::font_halves;

fn score(name: &str, t: &GlyphTemplates, test: &GlyphTemplates) {
    let (mut rn, mut rok, mut rsure, mut rsure_ok, mut sn, mut sok) = (0, 0, 0, 0, 0, 0);
    let start = std::time::Instant::now();
    for (class, g) in &test.templates {
        match class {
            GlyphClass::Rank(r) => {
                rn += 1;
                if let Some((got, best, second)) = t.best_rank(g) {
                    if got == *r {
                        rok += 1;
                    }
                    if confidence(best, second) >= 0.6 {
                        rsure += 1;
                        if got == *r {
                            rsure_ok += 1;
                        }
                    }
                }
            }
            GlyphClass::Suit(s) => {
                sn += 1;
                let allowed: Vec<Suit> = Suit::ALL.into_iter().filter(|x| x.is_red() == s.is_red()).collect();
                if let Some((got, _, _)) = t.best_suit(g, &allowed)
                    && got == *s
                {
                    sok += 1;
                }
            }
            GlyphClass::Digit(_) => {}
        }
    }
    println!(
        "{name}: {} templates; ranks {rok}/{rn} = {:.3} (sure {rsure_ok}/{rsure} = {:.3}, coverage {:.3}); suits {sok}/{sn} = {:.3}; {:.1} us/glyph",
        t.templates.len(),
        rok as f64 / rn as f64,
        rsure_ok as f64 / rsure.max(1) as f64,
        rsure as f64 / rn as f64,
        sok as f64 / sn as f64,
        start.elapsed().as_secs_f64() * 1e6 / (rn + sn) as f64
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(4, |a| a.parse().unwrap());
    let train_rounds: usize = args.next().map_or(20, |a| a.parse().unwrap());
    let (train_fonts, test_fonts) = font_halves();
    println!("{} training fonts, {} test fonts", train_fonts.len(), test_fonts.len());
    let test = damaged_glyphs(rounds, 777, &test_fonts).unwrap();
    let builtin = GlyphTemplates::builtin().unwrap();
    score("builtin", &builtin, &test);
    let mut plus = builtin.clone();
    let damaged = damaged_glyphs(train_rounds, 1, &train_fonts).unwrap();
    plus.templates.extend(damaged.templates.iter().cloned());
    score("builtin+damaged", &plus, &test);
    score("damaged only", &damaged, &test);
    for k in [20, 40, 80] {
        let c = card_referee::training::glyphs::condensed(&damaged, k).unwrap();
        score(&format!("damaged condensed {k}"), &c, &test);
        let mut both = builtin.clone();
        both.templates.extend(c.templates);
        score(&format!("builtin + damaged condensed {k}"), &both, &test);
    }
}
