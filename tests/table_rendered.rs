//! The table view on rendered tables: cards dealt into the standard layout's rows, rendered,
//! detected, placed and settled, compared with what was dealt.

use card_referee::cards::{Card, Suit};
use card_referee::geometry::Pt;
use card_referee::render::random::random_back_style;
use card_referee::render::scene::{Camera, Hand, PlacedCard, Renderer, Scene};
use card_referee::render::table::{Lighting, TableKind};
use card_referee::table::{
    CardView, EntityView, Face, Motion, SeatView, SettleConfig, Settler, TableLayout, TableView, place, place_frame,
};
use card_referee::vision::cards::{CardDetection, CardDetector};
use opencv::core::Size;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A dealt table: the scene and the view it should give.
struct Deal {
    scene: Scene,
    layout: TableLayout,
    truth: TableView,
}

/// `players` seats, each with 2 face-down Front Row cards and 5 face-up Back Row cards; some
/// Front Row cards shielded by a face-down Diamond, some Back Row cards enhanced by a Heart; a
/// deck and a discard pile. The camera looks down on the whole table, seats left and right.
/// `varied`: any table, any back, uneven light, blur and noise, as the renderer's random scenes
/// have them; else green felt, the default back and plain light.
fn deal(seed: u64, players: usize, varied: bool) -> Deal {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut deck = Card::deck();
    deck.shuffle(&mut rng);
    let mut take = |suit: Option<Suit>| {
        let i = deck.iter().position(|c| suit.is_none_or(|s| c.suit == s)).expect("cards left");
        deck.remove(i)
    };
    let mut layout = TableLayout::standard(players);
    let mut cards = Vec::new();
    let mut truth = TableView { seats: vec![SeatView::default(); players], ..TableView::default() };
    let jitter =
        |rng: &mut ChaCha8Rng, p: Pt| Pt::new(p.x + rng.random_range(-3.0..3.0), p.y + rng.random_range(-3.0..3.0));
    for (s, zones) in layout.seats.clone().iter().enumerate() {
        for (k, row, front) in (0..2).map(|k| (k, zones.front, true)).chain((0..5).map(|k| (k, zones.back, false))) {
            let centre = jitter(&mut rng, row.slot(k));
            let angle = row.angle + rng.random_range(-0.03..0.03);
            let base = PlacedCard { card: take(None), face_up: !front, centre, angle };
            let modifier = rng.random_bool(0.25).then(|| PlacedCard {
                card: take(Some(if front { Suit::Diamonds } else { Suit::Hearts })),
                face_up: !front,
                centre: row.modifier_at(centre),
                angle,
            });
            let view = |p: &PlacedCard| CardView {
                face: if p.face_up { Face::Up } else { Face::Down },
                card: p.face_up.then_some(p.card),
                centre: p.centre,
            };
            let entity = EntityView { base: view(&base), modifier: modifier.as_ref().map(view) };
            let seat = &mut truth.seats[s];
            if front {
                seat.front.push(entity)
            } else {
                seat.back.push(entity)
            }
            cards.push(base);
            cards.extend(modifier);
        }
    }
    for k in 0..4 {
        let centre = jitter(&mut rng, layout.deck.centre);
        cards.push(PlacedCard { card: take(None), face_up: false, centre, angle: 0.02 * k as f64 });
    }
    truth.deck = true;
    for _ in 0..2 {
        let centre = jitter(&mut rng, layout.discard.centre);
        let angle = rng.random_range(-0.2..0.2);
        let top = PlacedCard { card: take(None), face_up: true, centre, angle };
        truth.discard = Some(CardView::up(top.card, top.centre));
        cards.push(top);
    }
    let (min, max) = layout.extent();
    let centre = Pt::new((min.x + max.x) / 2.0, (min.y + max.y) / 2.0);
    // The table's longer side runs along the frame's width: for two seats the seats lie left and
    // right, for more they lie along the top and bottom.
    let (wide, deep) = (max.x - min.x, max.y - min.y);
    let (along, across, quarter) =
        if deep > wide { (deep, wide, std::f64::consts::FRAC_PI_2) } else { (wide, deep, 0.0) };
    let view_width = along.max(across * 1280.0 / 720.0) * 0.95;
    let tilt = rng.random_range(0.0..0.2);
    let turn = quarter + rng.random_range(-0.05..0.05);
    let mut scene = Scene::plain(cards, view_width, tilt);
    scene.camera = Camera::overhead(Size::new(1280, 720), centre, view_width, tilt, turn);
    scene.noise_seed = seed;
    if varied {
        scene.table = TableKind::ALL[rng.random_range(0..TableKind::ALL.len())];
        scene.table_seed = rng.random();
        scene.back_style = random_back_style(&mut rng);
        scene.lighting = Lighting {
            gradient: rng.random_range(0.0..0.3),
            gradient_angle: rng.random_range(0.0..std::f64::consts::TAU),
            vignette: rng.random_range(0.0..0.3),
            ..Lighting::default()
        };
        scene.blur_sigma = rng.random_range(0.0..1.2);
        scene.noise_sigma = rng.random_range(0.0..5.0);
    }
    let to_table = scene.camera.table_to_image.inverse().expect("the camera sees the table");
    layout.image_to_table = to_table.0;
    Deal { scene, layout, truth }
}

/// What a view says, without positions: per seat the rows' entities as "9S" / "down", a
/// modifier after "+", then the piles and the loose cards.
fn summary(view: &TableView) -> String {
    let card = |c: &CardView| match (c.face, c.card) {
        (Face::Down, _) => "down".to_string(),
        (Face::Up, Some(k)) => k.to_string(),
        (Face::Up, None) => "?".to_string(),
    };
    let entity = |e: &EntityView| match &e.modifier {
        Some(m) => format!("{}+{}", card(&e.base), card(m)),
        None => card(&e.base),
    };
    let row = |r: &[EntityView]| r.iter().map(entity).collect::<Vec<_>>().join(" ");
    let mut out: Vec<String> = view
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| format!("seat {i}: front [{}] back [{}]", row(&s.front), row(&s.back)))
        .collect();
    out.push(format!("deck {} discard {}", view.deck, view.discard.as_ref().map_or("-".into(), card)));
    out.push(format!("loose [{}]", view.loose.iter().map(card).collect::<Vec<_>>().join(" ")));
    out.join("; ")
}

/// Whether every card of `view` lies within `mm` of the card it stands for in `truth`.
fn positions_match(view: &TableView, truth: &TableView, mm: f64) -> bool {
    let centres = |v: &TableView| -> Vec<Pt> {
        v.seats
            .iter()
            .flat_map(|s| s.front.iter().chain(&s.back))
            .flat_map(|e| std::iter::once(e.base).chain(e.modifier))
            .map(|c| c.centre)
            .collect()
    };
    let (a, b) = (centres(view), centres(truth));
    a.len() == b.len() && a.iter().zip(&b).all(|(p, q)| p.distance(*q) < mm)
}

fn detect(detector: &CardDetector, scene: &Scene, renderer: &mut Renderer) -> Vec<CardDetection> {
    let frame = renderer.render(scene).expect("renders");
    detector.detect(&frame.image).expect("detects")
}

#[test]
fn a_dealt_table_is_placed_in_its_rows() {
    let detector = CardDetector::new().expect("models load");
    let mut renderer = Renderer::new();
    // Seed 101: shielded and enhanced entities both (checked below).
    let d = deal(101, 2, false);
    let has = |front: bool| {
        d.truth.seats.iter().any(|s| if front { &s.front } else { &s.back }.iter().any(|e| e.modifier.is_some()))
    };
    assert!(has(true) && has(false), "the deal holds both kinds of modifier: {}", summary(&d.truth));
    let view = place(&detect(&detector, &d.scene, &mut renderer), &d.layout);
    assert_eq!(summary(&view), summary(&d.truth));
    assert!(positions_match(&view, &d.truth, 12.0), "{view:?}");
}

/// Renders the game `record` with the renderer's seed 6144 at 10 fps, referees the video with
/// its layout, and returns the inferred record.
fn render_and_referee(name: &str, record: &str) -> String {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("game.txt");
    std::fs::write(&script, record).unwrap();
    let run = |command: &mut std::process::Command| {
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    let card_referee = || std::process::Command::new(env!("CARGO_BIN_EXE_card-referee"));
    let (video, layout, inferred) = (dir.join("game.avi"), dir.join("game.layout.toml"), dir.join("inferred.txt"));
    run(card_referee()
        .args(["render", "game"])
        .arg(&script)
        .args(["--seed", "6144", "--fps", "10", "--out"])
        .arg(&video));
    run(card_referee()
        .args(["referee", "omphala", "--source"])
        .arg(format!("file:{}", video.display()))
        .arg("--layout")
        .arg(&layout)
        .args(["--names", "Alice,Bob", "--record"])
        .arg(&inferred));
    let got = std::fs::read_to_string(&inferred).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    got
}

/// A deal the renderer lays with two of Alice's Back Row cards touching, blurred a little (seed
/// 6144): the reader finds one outline there and reads neither card. The row says where each
/// lies, and each is read by its own corners, so the deal is seen and the game goes on.
#[test]
fn back_row_cards_dealt_touching_are_each_read_where_the_row_says_they_lie() {
    let got = render_and_referee(
        "touching",
        "seat Alice front ? ? back 7C 7D AC 9S 9C\nseat Bob front ? ? back 2C 8H 2H 6D QH\nfirst Alice\n\
         Alice end\nAlice drew 8S\nBob drew 4S\n",
    );
    assert!(got.contains("seat Alice front ? ? back 7C 7D AC 9S 9C"), "the deal was not seen:\n{got}");
    assert!(got.contains("Bob drew 4S"), "the game did not go on:\n{got}");
}

/// A failed attack on a shielded card (seed 6144): the target is turned up under its shield,
/// which shows only the target's far end, and the stack makes no card-shaped outline. The row
/// says where the base lies; its corner is read there, and the attack is ruled.
#[test]
fn a_target_turned_up_under_its_shield_is_read_where_the_row_says_it_lies() {
    let got = render_and_referee(
        "under-shield",
        "options ace=1 failed-attacker=stays tie-break=battle-when-equal-entities\n\
         seat Alice front ? ? back JD 9D 7H 6H 7D\nseat Bob front ? ? back QH 10H KS 7S 3S\nfirst Alice\n\
         Alice shield 9D 2\nAlice shield 7D 1\nAlice end\nAlice drew 10D\nBob drew JS\n\
         Bob attack JS Alice 1\nAlice revealed 1 QC\nBob draw\nBob drew 5S\n",
    );
    assert!(got.contains("Bob attack JS Alice 1\nAlice revealed 1 QC"), "the attack was not seen:\n{got}");
}

/// How often a whole dealt table is placed exactly right from one frame, over 20 seeds.
#[test]
#[ignore = "a measurement, not a check: 2-seat tables placed exactly right from one frame, 9 of 20 from the reader alone and 19 of 20 with the backs found along the rows (release build); run with --ignored --nocapture"]
fn measure_placement_over_seeds() {
    let detector = CardDetector::new().expect("models load");
    let mut renderer = Renderer::new();
    let varied = std::env::var("VARIED").is_ok();
    let players: usize = std::env::var("PLAYERS").ok().and_then(|p| p.parse().ok()).unwrap_or(2);
    let (mut right, mut right_with_backs) = (0, 0);
    for seed in 100..120 {
        let d = deal(seed, players, varied);
        let frame = renderer.render(&d.scene).expect("renders");
        let found = detector.detect(&frame.image).expect("detects");
        let want = summary(&d.truth);
        let got = summary(&place(&found, &d.layout));
        let with_backs = summary(&place_frame(&frame.image, &found, &d.layout).expect("places"));
        right += usize::from(got == want);
        right_with_backs += usize::from(with_backs == want);
        if with_backs != want {
            eprintln!("seed {seed}:\n  got  {with_backs}\n  want {want}");
        }
    }
    eprintln!(
        "placed exactly right: {right} of 20 from the reader's detections, {right_with_backs} with the backs found along the Front Rows"
    );
    // The cost of placing and settling one frame (the reader's detection excluded).
    let d = deal(100, 2, varied);
    let frame = renderer.render(&d.scene).expect("renders");
    let found = detector.detect(&frame.image).expect("detects");
    let mut settler = Settler::new(SettleConfig::default());
    let mut gate = card_referee::table::MotionGate::new();
    let runs = 50;
    let began = std::time::Instant::now();
    for _ in 0..runs {
        let motion = gate.measure(&frame.image).expect("measures");
        let view = place_frame(&frame.image, &found, &d.layout).expect("places");
        settler.push(view, Motion { changed: 0.0, ..motion });
    }
    let ms = began.elapsed().as_secs_f64() * 1000.0 / f64::from(runs);
    let began = std::time::Instant::now();
    for _ in 0..runs {
        settler.push(place(&found, &d.layout), Motion::STILL);
    }
    let light = began.elapsed().as_secs_f64() * 1000.0 / f64::from(runs);
    eprintln!("per frame: {ms:.2} ms motion gate + place_frame + settle, {light:.3} ms place + settle alone");
}

#[test]
fn the_settled_view_keeps_names_through_a_hand_and_a_card_turned_down() {
    let detector = CardDetector::new().expect("models load");
    let mut renderer = Renderer::new();
    let mut d = deal(101, 2, false);
    let mut settler = Settler::new(SettleConfig::default());
    let still = Motion::STILL;
    let views = |d: &Deal, renderer: &mut Renderer, seeds: std::ops::Range<u64>| -> Vec<TableView> {
        seeds
            .map(|n| {
                let mut scene = d.scene.clone();
                scene.noise_seed = n;
                place(&detect(&detector, &scene, renderer), &d.layout)
            })
            .collect()
    };
    // Three noisy frames, each fed twice: the table settles on the dealt view.
    let mut settled = None;
    for v in views(&d, &mut renderer, 0..3) {
        for _ in 0..2 {
            settled = settler.push(v.clone(), still).or(settled);
        }
    }
    let first = settled.expect("the table settles").view;
    assert_eq!(summary(&first), summary(&d.truth));

    // One frame misreads a card (as the reader does at times): nothing changes.
    let mut misread = views(&d, &mut renderer, 5..6).remove(0);
    let wrong: Card = "AC".parse().unwrap();
    assert_ne!(misread.seats[1].back[1].base.card, Some(wrong));
    misread.seats[1].back[1].base.card = Some(wrong);
    assert!(settler.push(misread, still).is_none(), "one misread frame flips no card");
    for v in views(&d, &mut renderer, 6..8) {
        assert!(settler.push(v, still).is_none());
    }
    assert_eq!(settler.view().map(|v| summary(&v)), Some(summary(&d.truth)));

    // A hand comes in over the second Back Row card of seat 0 and rests there.
    let target = d.layout.seats[0].back.slot(1);
    d.scene.hand = Some(Hand { palm: target, angle: 0.0, skin: [224, 172, 140] });
    let covered = views(&d, &mut renderer, 10..11).remove(0);
    let hand = Motion { changed: 0.0, skin: 0.2 };
    assert!(settler.push(covered.clone(), Motion { changed: 0.2, skin: 0.2 }).is_none());
    for _ in 0..10 {
        assert!(settler.push(covered.clone(), hand).is_none(), "a hand over cards never settles");
    }
    // The hand turns that card face down and goes.
    d.scene.hand = None;
    let i = d.scene.cards.iter().position(|c| c.centre.distance(target) < 10.0).expect("the card");
    d.scene.cards[i].face_up = false;
    let name = d.scene.cards[i].card;
    settler.push(covered, Motion { changed: 0.2, skin: 0.0 });
    let mut settled = None;
    for v in views(&d, &mut renderer, 20..23) {
        for _ in 0..2 {
            settled = settler.push(v.clone(), still).or(settled);
        }
    }
    let after = settled.expect("the turned card settles").view;
    let base = after.seats[0].back[1].base;
    assert_eq!((base.face, base.card), (Face::Down, Some(name)), "{}", summary(&after));
    // Every other card keeps its name.
    let names = |v: &TableView| -> Vec<Option<Card>> {
        v.seats.iter().flat_map(|s| s.back.iter()).filter(|e| e.base.face == Face::Up).map(|e| e.base.card).collect()
    };
    let mut before = names(&first);
    before.remove(1);
    assert_eq!(names(&after), before);
}

/// Prints what the reader finds on a dealt table, in table millimetres (a debugging aid).
#[test]
#[ignore = "a debugging aid that measures nothing: prints what the reader finds on a dealt table (SEED, VARIED, SAVE=file.png); run with --ignored --nocapture"]
fn dump_sightings() {
    let seed: u64 = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let detector = CardDetector::new().expect("models load");
    let mut renderer = Renderer::new();
    let d = deal(seed, 2, std::env::var("VARIED").is_ok());
    let frame = renderer.render(&d.scene).expect("renders");
    if let Ok(path) = std::env::var("SAVE") {
        opencv::imgcodecs::imwrite_def(&path, &frame.image).expect("saves");
    }
    let view = place_frame(&frame.image, &detector.detect(&frame.image).expect("detects"), &d.layout).expect("places");
    eprintln!("placed {}", summary(&view));
    eprintln!("back style {:?} table {:?}", d.scene.back_style, d.scene.table);
    let h = d.layout.image_to_table();
    for det in detector.detect(&frame.image).expect("detects") {
        let s = card_referee::table::Sighting::from_detection(&det, &h);
        eprintln!(
            "{:?} {:?} {:.2} quad {} centre {:?} size {:?}",
            det.face,
            det.card.map(|c| c.to_string()),
            det.confidence,
            det.quad.is_some(),
            s.as_ref().map(|s| (s.centre.x.round(), s.centre.y.round())),
            s.as_ref().and_then(|s| s.size()).map(|(a, b)| (a.round(), b.round()))
        );
    }
    eprintln!("truth {}", summary(&d.truth));
    for t in &frame.truth {
        let c = d.layout.image_to_table().apply(Pt::new(
            t.quad.iter().map(|p| p.x).sum::<f64>() / 4.0,
            t.quad.iter().map(|p| p.y).sum::<f64>() / 4.0,
        ));
        eprintln!("  {} up {} at ({:.0}, {:.0}) visible {:.2}", t.card, t.face_up, c.x, c.y, t.visible);
    }
}
