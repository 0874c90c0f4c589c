//! `card-referee calibrate table` and `track` on a folder of rendered frames of a deal.

use std::process::Command;

use card_referee::cards::Card;
use card_referee::geometry::Pt;
use card_referee::render::scene::{Camera, PlacedCard, Renderer, Scene};
use card_referee::table::TableLayout;
use opencv::core::{Size, Vector};
use opencv::imgcodecs;

/// A 2-seat deal seen from above (seats left and right): 2 face-down Front Row cards and 5
/// face-up Back Row cards each, the deck in the middle.
fn deal_scene() -> Scene {
    let layout = TableLayout::standard(2);
    let mut deck = Card::deck().into_iter();
    let mut cards = Vec::new();
    for seat in &layout.seats {
        for (k, row, up) in (0..2).map(|k| (k, seat.front, false)).chain((0..5).map(|k| (k, seat.back, true))) {
            cards.push(PlacedCard { card: deck.next().unwrap(), face_up: up, centre: row.slot(k), angle: row.angle });
        }
    }
    cards.push(PlacedCard { card: deck.next().unwrap(), face_up: false, centre: layout.deck.centre, angle: 0.0 });
    let mut scene = Scene::plain(cards, 1300.0, 0.1);
    scene.camera = Camera::overhead(Size::new(1280, 720), Pt::new(0.0, 0.0), 1300.0, 0.1, std::f64::consts::FRAC_PI_2);
    scene
}

fn write_frames(dir: &std::path::Path, scene: &Scene, count: u64) {
    let mut renderer = Renderer::new();
    for n in 0..count {
        let mut s = scene.clone();
        s.noise_seed = n;
        let frame = renderer.render(&s).expect("renders");
        let path = dir.join(format!("frame-{n:03}.png"));
        assert!(imgcodecs::imwrite(path.display().to_string(), &frame.image, &Vector::new()).expect("writes"));
    }
}

fn card_referee(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_card-referee")).args(args).output().expect("runs");
    (
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn the_layout_is_learnt_from_the_deal_and_the_cards_are_tracked_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let frames = std::env::var("KEEP_FRAMES").map_or_else(|_| dir.path().join("frames"), std::path::PathBuf::from);
    std::fs::create_dir_all(&frames).unwrap();
    let scene = deal_scene();
    write_frames(&frames, &scene, 5);
    let source = format!("folder:{}", frames.display());
    let layout_file = dir.path().join("table.toml");
    let layout_arg = layout_file.display().to_string();

    let (out, err, code) =
        card_referee(&["calibrate", "table", "--source", &source, "--players", "2", "--out", &layout_arg]);
    assert_eq!(code, 0, "{out}{err}");
    let learnt = TableLayout::load(&layout_file).expect("the written layout loads");
    // The learnt view of the table puts each dealt card back where it was dealt, or (an even
    // table looks the same both ways round) half a turn away.
    let to_table = learnt.image_to_table();
    let standard = TableLayout::standard(2);
    for seat in &standard.seats {
        let p = seat.back.slot(2);
        let back = to_table.apply(scene.camera.table_to_image.apply(p));
        let err = back.distance(p).min(back.distance(Pt::new(-p.x, -p.y)));
        assert!(err < 8.0, "{p:?} came back as {back:?}");
    }

    let (out, err, code) = card_referee(&["track", "--source", &source, "--layout", &layout_arg]);
    assert_eq!(code, 0, "{err}");
    let events: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    // 14 dealt cards and the deck appear once each, in their rows; a card the reader could not
    // read in enough frames when the table settled is named once it has been (frames 2 and 3
    // merge two neighbours into one outline, read as one of them).
    let appeared: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "appeared").collect();
    assert_eq!(appeared.len(), 15, "{out}");
    assert!(events.iter().all(|e| e["event"] == "appeared" || e["event"] == "named"), "{out}");
    let in_row = |row: &str, face: &str| appeared.iter().filter(|e| e["row"] == row && e["face"] == face).count();
    assert_eq!((in_row("front", "down"), in_row("back", "up")), (4, 10), "{out}");
    let mut names = std::collections::BTreeMap::new();
    for e in &events {
        names.insert(e["track"].as_u64().unwrap(), e["card"].as_str().map(str::to_string));
    }
    let mut named: Vec<String> = names.into_values().flatten().collect();
    named.sort();
    let mut dealt: Vec<String> = scene.cards.iter().filter(|c| c.face_up).map(|c| c.card.to_string()).collect();
    dealt.sort();
    assert_eq!(named, dealt, "every face-up card is named as dealt: {out}");
    assert_eq!(events.iter().filter(|e| e["zone"] == "deck").count(), 1, "{out}");
    assert!(events.iter().filter(|e| e["zone"] == "seat").all(|e| e["units"] == "mm"), "{out}");
}

#[test]
fn without_a_layout_the_cards_are_reported_in_pixels_until_the_deal_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("frames");
    std::fs::create_dir(&frames).unwrap();
    write_frames(&frames, &deal_scene(), 5);
    let source = format!("folder:{}", frames.display());
    let (out, err, code) = card_referee(&["track", "--source", &source, "--players", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("image pixels"), "{err}");
    let events: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert!(events.iter().any(|e| e["units"] == "px"), "{out}");
    assert!(events.iter().any(|e| e["event"] == "layout"), "the layout is learnt from the deal: {out}");
}

#[test]
fn a_bad_layout_file_is_refused_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table.toml");
    // The first pile's radius made a string, whatever its value.
    let text = TableLayout::standard(2).to_toml();
    let at = text.find("radius = ").expect("a radius line");
    let end = at + text[at..].find('\n').expect("the line ends");
    let corrupt = format!("{}radius = \"wide\"{}", &text[..at], &text[end..]);
    assert_ne!(corrupt, text);
    std::fs::write(&path, corrupt).unwrap();
    let (_, err, code) = card_referee(&["track", "--source", "demo", "--layout", &path.display().to_string()]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: ") && err.contains("line ") && err.contains("radius"), "{err}");
}
