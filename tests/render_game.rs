//! Whole games rendered as video: at every rest the renderer's ground truth shows each card where
//! the rules engine says it is, illegal comments are acted out and put back, the written video
//! has as many frames as the timeline says, and bad records give a one-line error.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use card_referee::cards::Card;
use card_referee::geometry::{Homography, Pt};
use card_referee::render::game::physical::held_at;
use card_referee::render::game::{GameOptions, GameVideo, Kind, TimelineEntry};
use card_referee::render::scene::CardTruth;
use card_referee::rules::omphala::engine::apply;
use card_referee::rules::omphala::notation::parse;
use card_referee::rules::omphala::state::{GameState, Pending, Phase};
use card_referee::table::TableLayout;
use opencv::core::Size;
use opencv::prelude::*;
use opencv::videoio::{CAP_ANY, VideoCapture};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/omphala").join(name)
}

fn small(seed: u64) -> GameOptions {
    GameOptions { seed, size: Some(Size::new(320, 180)), fps: 5.0, ..GameOptions::default() }
}

/// Whether `frames` end with the still table after the last rest (2.5 to 3.5 s at `fps`).
fn ends_at_rest(frames: usize, timeline: &[TimelineEntry], fps: f64) -> bool {
    let rest_until = timeline.last().map_or(0, |e| e.rest_until);
    let tail = frames.saturating_sub(rest_until + 1);
    (2.5 * fps).floor() as usize <= tail && tail <= (3.5 * fps).ceil() as usize
}

fn video(name: &str, seed: u64) -> GameVideo {
    let text = std::fs::read_to_string(data(name)).unwrap();
    GameVideo::from_text(&text, &small(seed)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Where a card's centre lies on the table: the crossing of its outline's diagonals, taken back
/// through the camera.
fn table_centre(truth: &CardTruth, to_table: &Homography) -> Pt {
    let [a, b, c, d] = truth.quad;
    let (r, s) = (Pt::new(c.x - a.x, c.y - a.y), Pt::new(d.x - b.x, d.y - b.y));
    let t = ((b.x - a.x) * s.y - (b.y - a.y) * s.x) / (r.x * s.y - r.y * s.x);
    to_table.apply(Pt::new(a.x + r.x * t, a.y + r.y * t))
}

/// What a seat's rows show: Back Row (base, modifier) pairs, Front Row (base, face up,
/// modifier) in slot order.
#[derive(Debug, Default, PartialEq)]
struct SeatSeen {
    back: BTreeSet<(Card, Option<Card>)>,
    front: Vec<(Card, bool, Option<Card>)>,
}

/// A Front Row slot as seen: the base (and whether face up), the modifier.
type FrontSlot = (Option<(Card, bool)>, Option<Card>);

struct Seen {
    card: Card,
    face_up: bool,
}

#[derive(Debug, Default)]
struct TableSeen {
    seats: Vec<SeatSeen>,
    discard_top: Option<Card>,
    deck: bool,
}

/// The ground truth's cards: identity, face, centre on the table.
fn truth_on_table(truth: &[CardTruth], layout: &TableLayout) -> Vec<(Card, bool, Pt)> {
    let to_table = layout.image_to_table();
    truth.iter().map(|t| (t.card, t.face_up, table_centre(t, &to_table))).collect()
}

/// Places every card in the layout's rows and piles.
fn read_table(cards: &[(Card, bool, Pt)], layout: &TableLayout) -> TableSeen {
    let mut seen =
        TableSeen { seats: layout.seats.iter().map(|_| SeatSeen::default()).collect(), ..Default::default() };
    let mut back: Vec<Vec<(Option<Card>, Option<Card>)>> = vec![vec![(None, None); 12]; layout.seats.len()];
    let mut front: Vec<Vec<FrontSlot>> = vec![vec![(None, None); 12]; layout.seats.len()];
    // A slid attacker (one at a time), kept apart: moved along its row clear of the piles, it
    // may lie where another slot's attacker would.
    let mut held: Vec<(Option<Card>, Option<Card>)> = vec![(None, None); layout.seats.len()];
    for &(card, face_up, p) in cards {
        let t = Seen { card, face_up };
        if layout.discard.contains(p) {
            assert!(t.face_up, "{} lies face down on the discard pile", t.card);
            seen.discard_top = Some(t.card);
            continue;
        }
        if layout.deck.contains(p) {
            assert!(!t.face_up, "{} lies face up on the deck", t.card);
            seen.deck = true;
            continue;
        }
        // The nearest place of any row (slots of neighbouring seats can lie close together).
        let mut best: Option<(f64, usize, usize, usize)> = None;
        for (s, zones) in layout.seats.iter().enumerate() {
            for k in 0..12 {
                let (b, f) = (zones.back.slot(k), zones.front.slot(k));
                // An attacker slid forward out of its Back Row slot while its target is shown
                // still belongs to that slot.
                let held = held_at(layout, &zones.back, b);
                let places =
                    [b, zones.back.modifier_at(b), f, zones.front.modifier_at(f), held, zones.back.modifier_at(held)];
                for (what, place) in places.into_iter().enumerate() {
                    let d = p.distance(place);
                    if best.is_none_or(|(bd, ..)| d < bd) {
                        best = Some((d, s, k, what));
                    }
                }
            }
        }
        let (d, s, k, what) = best.expect("the layout has seats");
        assert!(d < 8.0, "{} lies in no zone, at {p:?}", t.card);
        match what {
            0 => {
                assert!(t.face_up, "{} lies face down in a Back Row", t.card);
                back[s][k].0 = Some(t.card);
            }
            1 => {
                assert!(t.face_up, "a Back Row modifier {} lies face down", t.card);
                back[s][k].1 = Some(t.card);
            }
            2 => front[s][k].0 = Some((t.card, t.face_up)),
            4 => {
                assert!(t.face_up, "{} slid forward face down", t.card);
                held[s].0 = Some(t.card);
            }
            5 => held[s].1 = Some(t.card),
            _ => {
                assert!(!t.face_up, "a Front Row modifier {} lies face up", t.card);
                front[s][k].1 = Some(t.card);
            }
        }
    }
    for (s, seat) in seen.seats.iter_mut().enumerate() {
        for &(base, modifier) in back[s].iter().chain(std::iter::once(&held[s])) {
            match base {
                Some(base) => {
                    seat.back.insert((base, modifier));
                }
                None => assert!(modifier.is_none(), "a modifier without its base"),
            }
        }
        let used = front[s].iter().rposition(|e| e.0.is_some()).map_or(0, |i| i + 1);
        for &(base, modifier) in &front[s][..used] {
            let (card, up) = base.expect("the Front Row has no gap at rest");
            seat.front.push((card, up, modifier));
        }
    }
    seen
}

/// Checks a settled frame against the engine. `face_up` lists the Front Row entities that
/// should lie face up (an attack's target awaiting its ruling, tie-break reveals).
fn check_rest(seen: &TableSeen, state: &GameState, face_up: &BTreeSet<(usize, usize)>, at: &TimelineEntry) {
    for (s, player) in state.players.iter().enumerate() {
        let want_back: BTreeSet<(Card, Option<Card>)> =
            player.back.iter().map(|e| (e.card.expect("Back Row cards are known"), e.modifier)).collect();
        assert_eq!(seen.seats[s].back, want_back, "{}'s Back Row after {at:?}", player.name);
        let front = &seen.seats[s].front;
        assert_eq!(front.len(), player.front.len(), "{}'s Front Row after {at:?}: {front:?}", player.name);
        for (p, (entity, &(card, up, modifier))) in player.front.iter().zip(front).enumerate() {
            if let Some(known) = entity.card {
                assert_eq!(card, known, "{}'s Front Row entity {} after {at:?}", player.name, p + 1);
            }
            assert_eq!(modifier, entity.modifier, "{}'s Front Row modifier {} after {at:?}", player.name, p + 1);
            assert_eq!(up, face_up.contains(&(s, p)), "{}'s Front Row entity {} face after {at:?}", player.name, p + 1);
        }
    }
    assert_eq!(seen.discard_top, state.discard.last().copied(), "discard top after {at:?}");
    assert_eq!(seen.deck, state.deck > 0, "deck after {at:?}");
}

/// Replays `name` beside its video and checks every rest frame's ground truth.
fn every_rest_matches_the_engine(name: &str, seed: u64) -> GameVideo {
    let text = std::fs::read_to_string(data(name)).unwrap();
    rests_match_the_engine(&text, seed, true)
}

/// Replays a record beside its video and checks every rest frame: the rendered ground truth
/// (`render`), or the cards as laid out.
fn rests_match_the_engine(text: &str, seed: u64, render: bool) -> GameVideo {
    let mut video = GameVideo::from_text(text, &small(seed)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let record = parse(text).unwrap();
    let inputs: std::collections::HashMap<usize, _> = record.inputs().into_iter().map(|(i, x)| (i + 1, x)).collect();
    let mut state = GameState::new(record.options());
    let mut tie_break_up = BTreeSet::new();
    let timeline = video.timeline().to_vec();
    assert!(!timeline.is_empty());
    for entry in &timeline {
        if matches!(entry.kind, Kind::Illegal | Kind::Undo) {
            continue;
        }
        let input = inputs[&entry.line].clone();
        let over = !matches!(state.phase, Phase::Playing | Phase::Setup);
        apply(&mut state, input.clone()).unwrap();
        if let (
            true,
            card_referee::rules::omphala::Input::Observe(card_referee::rules::omphala::Observation::Revealed {
                player,
                position,
                ..
            }),
        ) = (over, &input)
        {
            tie_break_up.insert((*player, *position));
        }
        let mut face_up = tie_break_up.clone();
        if let Pending::Reveal(attack) = state.pending {
            face_up.insert((attack.defender, attack.position));
        }
        let (_, hand) = video.cards_at(entry.rest_until);
        assert!(hand.is_none(), "a hand in view at the rest after {entry:?}");
        if entry.end < entry.rest_until {
            assert!(video.cards_at(entry.end + 1).1.is_none(), "the rest after {entry:?} starts without a hand");
        }
        let cards = if render {
            truth_on_table(&video.render(entry.rest_until).unwrap().truth, &video.layout)
        } else {
            video.cards_at(entry.rest_until).0.iter().map(|c| (c.card, c.face_up, c.centre)).collect()
        };
        check_rest(&read_table(&cards, &video.layout), &state, &face_up, entry);
    }
    video
}

#[test]
fn the_short_game_shows_every_card_where_the_engine_says_at_every_rest() {
    let video = every_rest_matches_the_engine("games/short-2p.txt", 3);
    let kinds: Vec<Kind> = video.timeline().iter().map(|e| e.kind).collect();
    assert_eq!(kinds[0], Kind::Deal);
    assert!(kinds.contains(&Kind::Agree));
    assert_eq!(kinds.iter().filter(|k| **k == Kind::Illegal).count(), 2);
}

#[test]
fn failed_attacks_discards_resets_and_battles_show_as_the_engine_says() {
    for (name, seed) in [
        ("failed-attack.txt", 1),
        ("games/failed-attacker-discarded.txt", 2),
        ("natural-end-battle.txt", 9),
        ("shield-counts-two.txt", 10),
        ("seven-card-limit.txt", 3),
        ("red-reset.txt", 4),
        ("tie-battle.txt", 5),
        ("three-players-draw-two.txt", 6),
        ("games/three-seats.txt", 7),
        ("games/three-seats-battle.txt", 13),
    ] {
        every_rest_matches_the_engine(name, seed);
    }
}

#[test]
fn random_games_of_two_to_four_seats_lay_every_card_where_the_engine_says() {
    use card_referee::rules::omphala::RuleOptions;
    use card_referee::rules::omphala::simulate::{RecordOptions, play_recorded};
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(41);
    let how = RecordOptions { max_turns: Some(40), illegal: 3 };
    let mut illegal = 0;
    for (i, players) in [2, 3, 4, 2, 3, 4].into_iter().enumerate() {
        let game = play_recorded(&mut rng, players, RuleOptions::default(), &how).unwrap();
        let video = rests_match_the_engine(&game.record.to_string(), i as u64, false);
        illegal += video.timeline().iter().filter(|e| e.kind == Kind::Undo).count();
        assert_eq!(video.timeline().iter().filter(|e| e.kind == Kind::Illegal).count(), game.illegal);
    }
    assert!(illegal > 0);
}

#[test]
fn an_illegal_comment_is_acted_out_then_put_back() {
    let mut video = video("games/short-2p.txt", 8);
    let timeline = video.timeline().to_vec();
    let at = timeline.iter().position(|e| e.kind == Kind::Illegal).expect("an illegal entry");
    let (before, illegal, undo) = (&timeline[at - 1], &timeline[at], &timeline[at + 1]);
    assert_eq!(illegal.text, "Alice enhance 5H 2D");
    assert_eq!((undo.kind, undo.line, &undo.text), (Kind::Undo, illegal.line, &illegal.text));
    assert!(illegal.start > before.rest_until && illegal.start <= illegal.end && illegal.end < illegal.rest_until);
    // At rest, the Heart lies on the Diamond as a modifier, face up; after the undo the table is
    // exactly as it was before.
    let rendered = video.render(illegal.rest_until).unwrap();
    let seen = read_table(&truth_on_table(&rendered.truth, &video.layout), &video.layout);
    let (heart, diamond): (Card, Card) = ("5H".parse().unwrap(), "2D".parse().unwrap());
    assert!(seen.seats[0].back.contains(&(diamond, Some(heart))), "{:?}", seen.seats[0].back);
    assert_eq!(video.cards_at(undo.rest_until).0, video.cards_at(before.rest_until).0);
    let rest = (illegal.rest_until - illegal.end) as f64 / video.fps;
    assert!((1.2..=2.0).contains(&rest), "the illegal move rests {rest} s");
}

#[test]
fn the_same_seed_films_the_same_game_and_the_camera_sees_every_slot() {
    let a = video("games/short-2p.txt", 11);
    let b = video("games/short-2p.txt", 11);
    assert_eq!(a.timeline(), b.timeline());
    assert_eq!(a.cards_at(100), b.cards_at(100));
    // At the default sizes every slot of every row lies in view, a card at least ~85 px long.
    let games = [("games/short-2p.txt", 2), ("games/three-seats.txt", 3)];
    for ((name, players), seed) in games.into_iter().flat_map(|g| (0..12).map(move |s| (g, s))) {
        let text = std::fs::read_to_string(data(name)).unwrap();
        let video = GameVideo::from_text(&text, &GameOptions { seed, size: None, fps: 10.0, ..GameOptions::default() })
            .unwrap();
        assert_eq!(video.players(), players);
        let size = video.camera.size;
        let to_image = video.camera.table_to_image;
        for zones in &video.layout.seats {
            for row in [zones.front, zones.back] {
                for k in 0..8 {
                    let c = row.slot(k);
                    let top = to_image.apply(Pt::new(c.x, c.y - 44.0));
                    let bottom = to_image.apply(Pt::new(c.x, c.y + 44.0));
                    for p in [top, bottom] {
                        assert!(
                            p.x >= 0.0 && p.y >= 0.0 && p.x <= f64::from(size.width) && p.y <= f64::from(size.height)
                        );
                    }
                    assert!(top.distance(bottom) >= 85.0, "{players} seats: a card {} px long", top.distance(bottom));
                }
            }
        }
    }
}

fn card_referee(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_card-referee")).args(args).output().unwrap()
}

#[test]
fn the_written_video_has_the_frames_of_its_timeline_and_the_rest_after_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("game.avi");
    let record = data("games/short-2p.txt");
    let args = ["render", "game", record.to_str().unwrap(), "--seed", "2", "--out", out.to_str().unwrap()];
    let output = card_referee(&[&args[..], &["--size", "320x180", "--fps", "5"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("frames/s"));
    let timeline: Vec<TimelineEntry> = std::fs::read_to_string(dir.path().join("game.timeline.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for pair in timeline.windows(2) {
        assert!(pair[0].rest_until <= pair[1].start, "{pair:?}");
    }
    let mut capture = VideoCapture::from_file(out.to_str().unwrap(), CAP_ANY).unwrap();
    let mut frames = 0;
    let mut frame = opencv::core::Mat::default();
    while capture.read(&mut frame).unwrap() {
        assert_eq!((frame.cols(), frame.rows()), (320, 180));
        frames += 1;
    }
    assert!(ends_at_rest(frames, &timeline, 5.0), "{frames} frames");
    let layout = TableLayout::load(&dir.path().join("game.layout.toml")).unwrap();
    assert_eq!(layout.seats.len(), 2);
    assert_ne!(layout.image_to_table, Homography::IDENTITY.0, "the camera's view is written");
}

#[test]
fn bad_records_give_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.avi");
    let out = out.to_str().unwrap();
    let legal_comment = dir.path().join("legal-comment.txt");
    std::fs::write(
        &legal_comment,
        "seat Al front ? ? back 2C 3C 4C 5C 6C\nseat Bo front ? ? back 2D 3D 4D 5D 6D\nfirst Al\n# illegal: Al draw\n",
    )
    .unwrap();
    let bad_comment = dir.path().join("bad-comment.txt");
    std::fs::write(&bad_comment, "seat Al front ? ? back 2C 3C 4C 5C 6C\nseat Bo front ? ? back 2D 3D 4D 5D 6D\nfirst Al\n# illegal: Al attack 1X Bo 1\n").unwrap();
    let missing = dir.path().join("missing.txt");
    for (file, code, words) in [
        (missing.clone(), 2, "cannot read"),
        (data("malformed-card.txt"), 2, "line"),
        (data("heart-on-diamond.txt"), 1, "illegal: A Heart cannot be placed on a Diamond"),
        (legal_comment, 2, "line 4: '# illegal: Al draw' is a legal move here"),
        (bad_comment, 2, "line 4, column 22"),
    ] {
        let output = card_referee(&["render", "game", file.to_str().unwrap(), "--out", out, "--size", "320x180"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{}: {stderr}", file.display());
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(words), "{}: {stderr}", file.display());
    }
    assert!(!Path::new(out).exists(), "nothing written for a bad record");
}

#[test]
fn the_hand_is_out_of_view_when_a_motion_ends() {
    use card_referee::render::Renderer;
    let video = video("games/three-seats.txt", 12);
    let mut renderer = Renderer::new();
    let mut checked = 0;
    for entry in video.timeline().iter().filter(|e| e.end < e.rest_until) {
        let mut scene = video.scene_at(entry.end);
        assert!(scene.hand.is_some(), "the motion of {entry:?} ends with the hand withdrawing");
        scene.noise_sigma = 0.0;
        let with_hand = renderer.render(&scene).unwrap().image;
        scene.hand = None;
        let without = renderer.render(&scene).unwrap().image;
        assert_eq!(
            with_hand.data_bytes().unwrap(),
            without.data_bytes().unwrap(),
            "a hand in view at the end of {entry:?}"
        );
        checked += 1;
    }
    assert!(checked > 10);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10))]
    #[test]
    fn any_random_game_lays_every_card_where_the_engine_says(seed in 0u64..1_000_000, players in 2usize..=4) {
        use card_referee::rules::omphala::RuleOptions;
        use card_referee::rules::omphala::simulate::{RecordOptions, play_recorded};
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let how = RecordOptions { max_turns: Some(25), illegal: 2 };
        let game = play_recorded(&mut rng, players, RuleOptions::default(), &how).unwrap();
        let video = rests_match_the_engine(&game.record.to_string(), seed, false);
        proptest::prop_assert!(ends_at_rest(video.frame_count(), video.timeline(), 5.0));
    }
}

/// A lossy film (`render game --lossy`): the camera stalls now and then (the same picture for two
/// seconds) and a hand lies over a row now and then; otherwise the film is the plain one.
#[test]
fn a_lossy_film_stalls_and_covers_rows_for_two_seconds_now_and_then() {
    let text = std::fs::read_to_string(data("games/three-seats.txt")).unwrap();
    let plain = GameVideo::from_text(&text, &small(12)).unwrap();
    let mut lossy = GameVideo::from_text(&text, &GameOptions { lossy: true, ..small(12) }).unwrap();
    let frames = plain.frame_count();
    assert_eq!(lossy.frame_count(), frames);
    let (mut stalled, mut covered) = (0, 0);
    let mut last = lossy.render(0).unwrap().image.data_bytes().unwrap().to_vec();
    for frame in 1..frames {
        let image = lossy.render(frame).unwrap().image.data_bytes().unwrap().to_vec();
        stalled += usize::from(image == last);
        last = image;
        covered += usize::from(lossy.scene_at(frame).resting.len() > plain.scene_at(frame).resting.len());
    }
    // Two seconds at 5 frames a second, every 15 to 35 seconds.
    let seconds = frames as f64 / 5.0;
    assert!(seconds > 60.0, "a film long enough to hold losses: {seconds} s");
    assert!(stalled >= 9 && covered >= 10, "{stalled} frames stalled, {covered} covered in {seconds} s");
    assert!(((stalled + covered) as f64) < seconds * 5.0 * 2.0 / 15.0 + 10.0, "{stalled} + {covered} frames lost");
}
