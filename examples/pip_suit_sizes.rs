//! How often the centre's pips tell a card's suit and count at each card size: faces of many
//! rendered deck designs, shrunk to a card `long` pixels long and softened as a webcam's are,
//! looked at by the witness (`readers::witness::centre_of`). Prints, per size and colour, the
//! share of faces whose pips show their suit, and of those whose suit is shown wrong.
//! With `EACH=1`, each face is also written to stderr: length, blur given, card, the suit its
//! pips show, how many pips it counts, and the card's own blur as measured (`picture::blur::blur_within`).
//! `cargo run --release --example pip_suit_sizes -- [DESIGNS [BLUR]]`
use card_referee::cards::Card;
use card_referee::render::face::draw_face;
use card_referee::render::random::random_face_style;
use card_referee::vision::cards::picture::blur::blur_within;
use card_referee::vision::cards::readers::witness::centre_of;
use opencv::{core, imgproc, prelude::*};
use rand::SeedableRng;

fn main() -> opencv::Result<()> {
    let designs: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let sigma: f64 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(0.6);
    let styles: Vec<_> =
        (0..designs).map(|k| random_face_style(&mut rand_chacha::ChaCha8Rng::seed_from_u64(1000 + k), &[])).collect();
    println!("long  colour  faces  suit shown  suit wrong  count right  count wrong");
    for long in [44, 47, 50, 55, 58, 60, 70, 80, 90, 100] {
        for red in [true, false] {
            let (mut faces, mut shown, mut wrong, mut counted, mut miscounted) = (0, 0, 0, 0, 0);
            for style in &styles {
                for card in
                    Card::deck().into_iter().filter(|c| c.suit.is_red() == red && (2..=10).contains(&c.rank.value()))
                {
                    let face = draw_face(card, style, 200)?;
                    let k = f64::from(long) / f64::from(face.rows());
                    let mut small = Mat::default();
                    imgproc::resize(&face, &mut small, core::Size::default(), k, k, imgproc::INTER_AREA)?;
                    // On a dark table, so that the card's own edge is measured as a webcam's is.
                    let m = 16;
                    let mut laid = Mat::default();
                    core::copy_make_border(
                        &small,
                        &mut laid,
                        m,
                        m,
                        m,
                        m,
                        core::BORDER_CONSTANT,
                        core::Scalar::all(60.0),
                    )?;
                    let mut soft = Mat::default();
                    imgproc::gaussian_blur_def(&laid, &mut soft, core::Size::new(0, 0), sigma)?;
                    let (x0, y0, w, h) = (m as f32, m as f32, small.cols() as f32, small.rows() as f32);
                    let quad = [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]];
                    let centre = centre_of(&soft, &quad)?;
                    let measured =
                        blur_within(&soft, core::Rect::new(m, m, small.cols(), small.rows()))?.unwrap_or(9.0);
                    if std::env::var("EACH").is_ok() {
                        eprintln!("{long} {sigma} {card} {:?} {:?} {measured:.2}", centre.suit, centre.pips);
                    }
                    faces += 1;
                    if let Some(s) = centre.suit {
                        shown += 1;
                        wrong += usize::from(s != card.suit);
                    }
                    if let Some(n) = centre.pips {
                        counted += usize::from(n == card.rank.value());
                        miscounted += usize::from(n != card.rank.value());
                    }
                }
            }
            let pc = |n: usize| 100.0 * n as f64 / faces as f64;
            println!(
                "{long:>4}  {:>6}  {faces:>5}  {:>9.1}%  {:>9.1}%  {:>10.1}%  {:>10.1}%",
                if red { "red" } else { "black" },
                pc(shown),
                pc(wrong),
                pc(counted),
                pc(miscounted)
            );
        }
    }
    Ok(())
}
