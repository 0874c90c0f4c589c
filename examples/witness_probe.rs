//! Prints each face-up card the detector reads in the given photos with what the centre of its
//! face shows (`vision::cards::witness`): a look at why a reading stood or went unread.
//! Usage: [WITNESS_PROBE_SCALE=K] [WITNESS_PROBE_DUMP=DIR] cargo run --release --example witness_probe -- PHOTO...
use card_referee::vision::cards::detector::CardDetector;
use card_referee::vision::cards::{light, witness};
use opencv::{core, imgcodecs, imgproc, prelude::*};

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
                    &upright(balanced.as_ref(), &quad)?,
                )?;
            }
            let (cx, cy) = (quad.iter().map(|p| p[0]).sum::<f32>() / 4.0, quad.iter().map(|p| p[1]).sum::<f32>() / 4.0);
            println!(
                "{path} {name:>3} {:.2} at {cx:.0},{cy:.0} boxes {:?} shaped {} {centre:?}",
                d.confidence,
                d.index_boxes,
                witness::card_shaped(&quad)
            );
        }
    }
    Ok(())
}

/// The face inside `quad` at 160 x 224 pixels, its top-left corner first.
fn upright(frame: &Mat, quad: &[[f32; 2]; 4]) -> opencv::Result<Mat> {
    let points =
        |ps: [[f32; 2]; 4]| core::Vector::<core::Point2f>::from_iter(ps.map(|p| core::Point2f::new(p[0], p[1])));
    let to = [[0.0, 0.0], [160.0, 0.0], [160.0, 224.0], [0.0, 224.0]];
    let m = imgproc::get_perspective_transform(&points(*quad), &points(to), core::DECOMP_LU)?;
    let mut out = Mat::default();
    imgproc::warp_perspective_def(frame, &mut out, &m, core::Size::new(160, 224))?;
    Ok(out)
}
