//! A probe for the settled view of a video: runs the table watch as the referee does (the layout
//! fitted to the deal) and prints, for frames FROM to TO, seat 1's Front Row as each frame places
//! it and as the settled view gives it. With WATCH_PROBE_LAYOUT=PATH the fitted layout is written
//! there. Given a PNG and a layout instead, prints the backs the back finder sees along each
//! Front Row of that picture.
//!
//! Usage: watch_probe VIDEO FROM TO | watch_probe IMAGE.png LAYOUT.toml

use std::path::Path;

use card_referee::capture::{CaptureOptions, SourceSpec};
use card_referee::table::{TableLayout, TableView, TableWatch, place_frame};
use card_referee::vision::cards::CardDetector;

fn front(v: &TableView) -> String {
    let Some(seat) = v.seats.first() else { return "-".into() };
    seat.front
        .iter()
        .map(|e| format!("{:?}{}@{:.0}", e.base.face, if e.modifier.is_some() { "+m" } else { "" }, e.base.centre.x))
        .collect::<Vec<_>>()
        .join(" ")
}

fn backs_in(image: &str, layout: &str) -> anyhow::Result<()> {
    let image = opencv::imgcodecs::imread(image, opencv::imgcodecs::IMREAD_COLOR)?;
    let layout = TableLayout::load(Path::new(layout)).map_err(anyhow::Error::msg)?;
    for b in card_referee::vision::row_backs::front_row_backs(&image, &layout)? {
        let centre = b.centre;
        println!("{:.0},{:.0} face {} shield {}", centre.x, centre.y, b.looks_like_face, b.shield.is_some());
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(args.len() >= 3, "usage: watch_probe VIDEO FROM TO | watch_probe IMAGE.png LAYOUT.toml");
    if args[1].ends_with(".png") {
        return backs_in(&args[1], &args[2]);
    }
    anyhow::ensure!(args.len() == 4, "usage: watch_probe VIDEO FROM TO");
    let (from, to): (u64, u64) = (args[2].parse()?, args[3].parse()?);
    let spec = SourceSpec::File(args[1].clone().into());
    let mut source = card_referee::capture::open(&spec, &CaptureOptions::default())?;
    let fps = source.nominal_fps().unwrap_or(10.0);
    let mut watch = TableWatch::new(CardDetector::new()?, None, 2, fps, false);
    let save = std::env::var("WATCH_PROBE_LAYOUT").ok();
    while let Some(frame) = source.next_frame()? {
        if frame.index > to {
            break;
        }
        let watched = watch.push(&frame.image, frame.index, frame.time.as_secs_f64())?;
        if frame.index < from {
            continue;
        }
        if frame.index == from
            && let (Some(path), Some(layout)) = (&save, watch.layout())
        {
            std::fs::write(path, layout.to_toml())?;
        }
        let placed = match (watch.layout(), watched.detections.is_empty()) {
            (Some(layout), false) => front(&place_frame(&frame.image, &watched.detections, layout)?),
            _ => "(not read)".into(),
        };
        let settled = watched.view.as_ref().map(front).unwrap_or_default();
        println!("{} placed [{placed}] settled [{settled}]", frame.index);
    }
    Ok(())
}
