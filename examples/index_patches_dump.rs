//! Shows what the index networks see in an image: every corner window of the card outlines
//! found and every loose index candidate, as patches tiled into one PNG with the networks'
//! readings, to look at when the reader fails on a photo.
//!
//! `cargo run --release --example index_patches_dump -- IMAGE OUT.png [corner|loose] [min] [X,Y,R]`
//! With `min`, only loose candidates the network reads as a card at that confidence or more;
//! with `X,Y,R` after it, only loose candidates whose rank lies within R pixels of (X, Y), each
//! printed with where it lies and every probability the network gives it.

use card_referee::vision::cards::readers::index::candidate_spots;
use card_referee::vision::cards::readers::index_net::{IndexNet, NetReading};
use card_referee::vision::cards::readers::patch::{self, CORNER_H, CORNER_W, INDEX_H, INDEX_W, Patch};
use card_referee::vision::cards::stages::outlines::find_card_quads;
use opencv::{core, imgcodecs, imgproc, prelude::*};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [image, out, rest @ ..] = args.as_slice() else {
        return Err("usage: index_patches_dump IMAGE OUT.png [corner|loose] [min]".into());
    };
    let kind = rest.first().map_or("corner", String::as_str);
    let min: f32 = rest.get(1).map_or(Ok(0.0), |m| m.parse())?;
    let near: Option<Vec<f32>> = rest.get(2).map(|n| n.split(',').map(str::parse).collect()).transpose()?;
    if near.as_ref().is_some_and(|n| n.len() != 3) {
        return Err("the place to look near is X,Y,R (three numbers)".into());
    }
    let frame = imgcodecs::imread(image, imgcodecs::IMREAD_COLOR)?;
    let (patches, net) = if kind == "corner" {
        let mut patches = Vec::new();
        for quad in find_card_quads(&frame, 0.004)? {
            for far in [false, true] {
                patches.push(patch::cut(&frame, &patch::corner_window(&quad, far), CORNER_W, CORNER_H)?);
            }
        }
        (patches, IndexNet::corner()?)
    } else {
        let mut patches = Vec::new();
        for spot in candidate_spots(&frame, 1000)? {
            if let Some([x, y, r]) = near.as_deref() {
                if (spot.rank[0] - x).hypot(spot.rank[1] - y) > *r {
                    continue;
                }
                println!(
                    "rank at {:.1},{:.1} down {:.3},{:.3} unit {:.2}",
                    spot.rank[0], spot.rank[1], spot.down[0], spot.down[1], spot.unit
                );
            }
            let window = patch::index_window(spot.rank, spot.down, spot.unit);
            patches.push(patch::cut(&frame, &window, INDEX_W, INDEX_H)?);
        }
        (patches, IndexNet::loose()?)
    };
    let readings = net.read(&patches.iter().collect::<Vec<_>>())?;
    if near.is_some() {
        for r in &readings {
            let f = |v: &[f32]| v.iter().map(|p| format!("{:.2}", p)).collect::<Vec<_>>().join(" ");
            println!("ranks A..K,none [{}]  suits,none [{}]", f(&r.ranks), f(&r.suits));
        }
    }
    let shown: Vec<(&Patch, &NetReading)> = patches
        .iter()
        .zip(&readings)
        .filter(|(_, r)| min <= 0.0 || r.card().is_some_and(|(_, p)| p >= min))
        .take(200)
        .collect();
    tile(&shown, out)?;
    println!("{} patches, {} shown", patches.len(), shown.len());
    Ok(())
}

/// Tiles patches three times enlarged, ten to a row, each under its reading.
fn tile(shown: &[(&Patch, &NetReading)], out: &str) -> opencv::Result<()> {
    let Some((first, _)) = shown.first() else { return Ok(()) };
    let (w, h, k) = (first.w, first.h, 3);
    let (cell_w, cell_h) = (w * k + 4, h * k + 16);
    let rows = (shown.len() as i32 + 9) / 10;
    let mut sheet =
        Mat::new_rows_cols_with_default(rows * cell_h, 10 * cell_w, core::CV_8UC3, core::Scalar::all(60.0))?;
    for (i, (p, r)) in shown.iter().enumerate() {
        let (x, y) = ((i as i32 % 10) * cell_w, (i as i32 / 10) * cell_h);
        let n = (w * h) as usize;
        let mut bgr = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, core::Scalar::all(0.0))?;
        for j in 0..n {
            let (ink, red) = (f32::from(p.bytes[j]), f32::from(p.bytes[n + j]));
            let px = bgr.at_2d_mut::<core::Vec3b>(j as i32 / w, j as i32 % w)?;
            let grey = 255.0 - ink;
            *px = core::Vec3b::from([(grey - 0.7 * red).max(0.0) as u8, (grey - 0.7 * red).max(0.0) as u8, grey as u8]);
        }
        let mut big = Mat::default();
        imgproc::resize(&bgr, &mut big, core::Size::new(w * k, h * k), 0.0, 0.0, imgproc::INTER_NEAREST)?;
        big.copy_to(&mut Mat::roi_mut(&mut sheet, core::Rect::new(x, y + 14, w * k, h * k))?)?;
        let label = match r.card() {
            Some((card, p)) => format!("{card} {:.0}", p * 100.0),
            None => format!("- {:.0}", r.nothing() * 100.0),
        };
        let colour = core::Scalar::new(0.0, 255.0, 255.0, 0.0);
        imgproc::put_text(
            &mut sheet,
            &label,
            core::Point::new(x + 2, y + 11),
            imgproc::FONT_HERSHEY_SIMPLEX,
            0.4,
            colour,
            1,
            imgproc::LINE_AA,
            false,
        )?;
    }
    imgcodecs::imwrite(out, &sheet, &core::Vector::new())?;
    Ok(())
}
