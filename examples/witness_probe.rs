//! Prints each face-up card the detector reads in the given photos with what the centre of its
//! face shows (`vision::cards::readers::witness`), and for a face left unread what its corners read: a look
//! at why a reading stood or went unread.
//! Usage: [WITNESS_PROBE_SCALE=K] [WITNESS_PROBE_DUMP=DIR] cargo run --release --example witness_probe -- PHOTO...
use card_referee::vision::cards::detector::CardDetector;
use card_referee::vision::cards::{picture::light, picture::pixels, picture::quad, readers::witness};
use opencv::{core, imgcodecs, imgproc, prelude::*};

/// The size the witness looks at a face in.
const FACE: (i32, i32) = (160, 224);

fn main() -> anyhow::Result<()> {
    let detector = CardDetector::new()?;
    // With WITNESS_PROBE_DUMP=DIR, each face looked at is written there as the witness sees it.
    let dump = std::env::var("WITNESS_PROBE_DUMP").ok();
    let mut written = 0;
    for path in std::env::args().skip(1) {
        let mut frame = imgcodecs::imread(&path, imgcodecs::IMREAD_COLOR)?;
        // With WITNESS_PROBE_SCALE=K, each photo is first scaled by K (a smaller camera's view).
        if let Some(k) = std::env::var("WITNESS_PROBE_SCALE").ok().and_then(|k| k.parse::<f64>().ok()) {
            let mut scaled = Mat::default();
            imgproc::resize(&frame, &mut scaled, core::Size::default(), k, k, imgproc::INTER_AREA)?;
            frame = scaled;
        }
        let balanced = light::balanced(&frame)?;
        for d in detector.detect(&frame)? {
            let Some(quad) = d.quad else { continue };
            let centre = witness::centre_of(balanced.as_ref(), &quad)?;
            let name = d.card.map_or("?".into(), |c| c.to_string());
            if let Some(dir) = &dump {
                written += 1;
                imgcodecs::imwrite_def(
                    format!("{dir}/{written:03}-{name}.png").as_str(),
                    &pixels::rectify_sized(balanced.as_ref(), &quad, FACE.0, FACE.1)?,
                )?;
            }
            let [cx, cy] = quad::quad_centre(&quad);
            println!(
                "{path} {name:>3} {:.2} at {cx:.0},{cy:.0} boxes {:?} shaped {} {centre:?}",
                d.confidence,
                d.index_boxes,
                witness::card_shaped(&quad)
            );
            // An unread face: what its two corners read on their own.
            if d.card.is_none() {
                println!("    corners read {:?}", detector.read_corners_of(&frame, &quad)?);
                println!("    quad {quad:?}");
            }
        }
    }
    Ok(())
}
