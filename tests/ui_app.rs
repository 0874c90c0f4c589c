//! The window, driven headless with egui_kittest: it starts on the demo table and frames arrive;
//! a bad source shows its error in the status line. On failure a screenshot is saved to
//! `target/ui-failures/` (when a renderer is available) to see what the window showed.

use std::time::{Duration, Instant};

use card_referee::capture::{CaptureOptions, SourceSpec};
use card_referee::referee::omphala::RefereeEvent;
use card_referee::rules::omphala::Phase;
use card_referee::ui::{RefereeApp, StartOptions, UiCommand};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn start(source: SourceSpec) -> Harness<'static, RefereeApp> {
    start_sized(source, 640, 360)
}

fn start_sized(source: SourceSpec, width: u32, height: u32) -> Harness<'static, RefereeApp> {
    // A game started on a real source journals: into a folder of the tests', not the user's.
    let data_dir = std::env::temp_dir().join(format!("ui-app-data-{}", std::process::id()));
    let options = StartOptions {
        source: Some(source),
        capture: Some(CaptureOptions { width, height, fps: 30 }),
        data_dir: Some(data_dir),
        ..StartOptions::default()
    };
    Harness::builder().with_size([1400.0, 860.0]).build_eframe(move |cc| RefereeApp::new(cc, options))
}

/// Steps the window until `done` holds; after `limit` saves a screenshot and fails with `what`.
fn step_until(
    harness: &mut Harness<'static, RefereeApp>,
    name: &str,
    limit: Duration,
    what: &str,
    done: impl Fn(&RefereeApp) -> bool,
) {
    let deadline = Instant::now() + limit;
    while !done(harness.state()) {
        if Instant::now() > deadline {
            let saved = save_screenshot(harness, name);
            panic!("{what} within {limit:?} (status: {:?}); screenshot: {saved}", harness.state().status());
        }
        harness.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    harness.step();
}

fn save_screenshot(harness: &mut Harness<'static, RefereeApp>, name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ui-failures");
    let path = dir.join(format!("{name}.png"));
    match harness.render() {
        Ok(image) => match std::fs::create_dir_all(&dir)
            .map_err(|e| e.to_string())
            .and_then(|()| image.save(&path).map_err(|e| e.to_string()))
        {
            Ok(()) => path.display().to_string(),
            Err(e) => format!("not saved ({e})"),
        },
        Err(e) => format!("not rendered ({e})"),
    }
}

#[test]
fn the_window_opens_on_the_demo_table_and_frames_arrive() {
    let mut harness = start(SourceSpec::Demo);
    step_until(&mut harness, "demo-frames", Duration::from_secs(90), "no 5 demo frames shown", |app| {
        app.frames_shown() >= 5
    });
    let status = harness.state().status().clone();
    assert_eq!((status.width, status.height), (640, 360));
    assert!(harness.query_by_label_contains("demo table").is_some(), "status line does not name the source");
    assert!(harness.query_by_label_contains("fps").is_some(), "status line shows no frame rate");
}

#[test]
fn a_missing_video_file_is_reported_in_the_status_line() {
    let mut harness = start(SourceSpec::Demo);
    let missing = SourceSpec::File("/nonexistent/table.mp4".into());
    let ctx = harness.ctx.clone();
    harness.state_mut().run_command(&ctx, UiCommand::SwitchSource(missing.clone()));
    step_until(&mut harness, "missing-file", Duration::from_secs(30), "no failure shown", |app| {
        matches!(app.status().state, card_referee::capture::worker::CaptureState::Failed(_))
    });
    assert_eq!(harness.state().source(), &missing);
    let error = harness.query_by_label_contains("failed:").expect("no failure in the status line");
    let text = format!("{error:?}");
    assert!(text.contains("/nonexistent/table.mp4") && text.contains("does not exist"), "{text}");
}

#[test]
fn a_new_camera_mode_reopens_the_source_at_that_size() {
    let mut harness = start(SourceSpec::Demo);
    step_until(&mut harness, "mode-before", Duration::from_secs(60), "no first frame", |app| app.frames_shown() >= 1);
    let ctx = harness.ctx.clone();
    let mode = CaptureOptions { width: 320, height: 240, fps: 30 };
    harness.state_mut().run_command(&ctx, UiCommand::SetMode(mode.clone()));
    step_until(&mut harness, "mode-after", Duration::from_secs(60), "no frame in the new mode", |app| {
        (app.status().width, app.status().height) == (320, 240)
    });
    assert!(harness.query_all_by_label_contains("320×240").count() >= 1, "the window does not show the new size");
    assert_eq!(harness.state().capture_options(), &mode);
}

/// The demo table is refereed live: its first rulings reach the banner and the rulings log, the
/// panel shows the seats' rows once the deal is committed, and the whole first game is refereed
/// to its standings.
#[test]
fn the_demo_game_is_refereed_on_screen() {
    let mut harness = start_sized(SourceSpec::Demo, 1280, 720);
    step_until(&mut harness, "demo-ruling", Duration::from_secs(300), "no ruling of the demo game", |app| {
        app.snapshot().log.iter().filter(|s| matches!(s.event, RefereeEvent::Input { .. })).count() >= 2
    });
    let snapshot = harness.state().snapshot().clone();
    assert!(snapshot.title.starts_with("Demo: Omphala"), "{}", snapshot.title);
    assert!(!snapshot.cards.is_empty(), "no card outlined over the image");
    assert!(!snapshot.zones.is_empty(), "no seat's rows drawn over the image");
    let deal = snapshot.log.iter().find_map(|s| match &s.event {
        RefereeEvent::Input { record, .. } => Some(record[0].clone()),
        _ => None,
    });
    let deal = deal.expect("a ruling");
    assert!(deal.starts_with("seat "), "the first ruling is not the deal: {deal}");
    assert!(harness.query_all_by_label_contains(&deal).count() >= 1, "the deal's ruling is not on screen");
    assert!(harness.query_all_by_label_contains(" — ok").count() >= 1, "no verdict on screen");
    assert!(harness.query_all_by_label_contains("Front Row").count() >= 1, "the panel shows no seat's rows");
    // The demo's first game ends by agreement when the loop moves on: its standings stay shown.
    step_until(&mut harness, "demo-standings", Duration::from_secs(900), "the demo's first game did not end", |app| {
        app.snapshot().finished.as_ref().is_some_and(|f| !f.standings.is_empty())
    });
    let finished = harness.state().snapshot().finished.clone().unwrap();
    let decided = finished.standings.iter().any(|l| l.contains("winner") || l.contains("tie-break"));
    assert!(decided, "{finished:?}");
    assert!(harness.query_all_by_label_contains("Last game's standings").count() >= 1, "no standings on screen");
    assert!(harness.query_all_by_label_contains(&finished.standings[0]).count() >= 1, "the standings are not shown");
}

/// A game journalled at a real table is offered for resuming; a click goes on with it: its seats
/// and committed deal are back on the panel; a ruling not meant is undone by a click.
#[test]
fn the_last_journalled_game_is_resumed_by_a_click() {
    let dir = std::env::temp_dir().join(format!("ui-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let journal = dir.join("game.jsonl");
    let lines = [
        r#"{"kind":"start","names":["Ann","Ben"],"options":"options ace=1"}"#,
        r#"{"kind":"commit","record":["seat Ann front ? ? back 2C 3C 4C 5C 6C","seat Ben front ? ? back 2D 3D 4D 5D 6D","first Ann"],"frame":40,"ms":1333}"#,
        r#"{"kind":"commit","record":["Ann draw"],"frame":90,"ms":3000}"#,
    ];
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let options = StartOptions {
        source: Some(SourceSpec::File(dir.join("no-camera-here.mp4"))),
        capture: Some(CaptureOptions { width: 640, height: 360, fps: 30 }),
        resume: Some(journal.clone()),
        data_dir: Some(dir.clone()),
        ..StartOptions::default()
    };
    let mut harness =
        Harness::builder().with_size([1400.0, 860.0]).build_eframe(move |cc| RefereeApp::new(cc, options));
    harness.step();
    let offer = harness.state().resume_offer().expect("no game offered for resuming").to_string();
    assert!(offer.contains("Ann, Ben") && offer.contains("turn 1"), "{offer}");
    harness.get_by_label_contains("Resume Ann, Ben").click();
    step_until(&mut harness, "resumed", Duration::from_secs(30), "the game was not resumed", |app| {
        app.snapshot().state.as_ref().is_some_and(|s| s.players.len() == 2)
    });
    let snapshot = harness.state().snapshot().clone();
    assert!(snapshot.title.contains("resumed"), "{}", snapshot.title);
    assert!(harness.query_all_by_label_contains("Ann — Front Row").count() >= 1, "Ann's rows are not on the panel");
    assert!(harness.query_all_by_label_contains("2C").count() >= 1, "the deal's cards are not on the panel");
    // "Ann draw" was not meant: undone by a click, and the journal says so for the next resume.
    harness.get_by_label("Undo last ruling").click();
    step_until(&mut harness, "undone", Duration::from_secs(30), "the last ruling was not undone", |app| {
        app.snapshot()
            .log
            .iter()
            .any(|s| matches!(&s.event, RefereeEvent::Note { text, .. } if text.starts_with("undone")))
    });
    let state = harness.state().snapshot().state.clone().unwrap();
    assert_eq!(state.turn.actions_used, 0, "the draw is still counted");
    let resumed = card_referee::referee::journal::read(&journal).unwrap();
    assert_eq!(resumed.inputs.len(), 1, "the journal still holds the undone draw");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Renders a Tower game of two players with the Cipher deck to `path` (10 frames a second);
/// returns its claims with the verdicts the rules give.
fn tower_video(path: &std::path::Path) -> Vec<card_referee::render::match_video::TrueClaim> {
    use card_referee::render::match_video::{MatchOptions, films, write_films};
    use card_referee::symbols::cipher::cipher_deck;
    use card_referee::symbols::games::GameKind;
    use card_referee::symbols::notation::replay;
    use card_referee::symbols::render::PictureDeck;
    use card_referee::symbols::simulate::{SimOptions, random_game};
    let deck = cipher_deck();
    let seed = 11;
    let text = random_game(&deck, "cipher", &SimOptions { kind: GameKind::Tower, seats: 2, size: 3, seed });
    let result = replay(&text, std::path::Path::new("."));
    let players = result.outcome.as_ref().unwrap().players.clone();
    let options = MatchOptions { seed, fps: 10.0, size: (1280, 720) };
    write_films(&result, &players, &PictureDeck::cipher(), &options, path).unwrap();
    films(&result, &players).remove(0).claims
}

/// A Tower game on video refereed in the window: a claim made by the seat's key and the symbol
/// typed gets the verdict the rules give, right and wrong, with the shared symbol ringed.
#[test]
fn a_tower_game_is_refereed_claim_by_claim() {
    let dir = std::env::temp_dir().join(format!("ui-tower-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let video = dir.join("tower.avi");
    let claims = tower_video(&video);
    let right = claims.iter().find(|c| c.outcome == "right").expect("a right claim").clone();
    let wrong = claims.iter().find(|c| c.outcome == "wrong").expect("a wrong claim").clone();
    let options = StartOptions {
        source: Some(SourceSpec::File(video)),
        capture: Some(CaptureOptions { width: 1280, height: 720, fps: 30 }),
        game: Some("tower".into()),
        data_dir: Some(dir.clone()),
        ..StartOptions::default()
    };
    let mut harness =
        Harness::builder().with_size([1400.0, 860.0]).build_eframe(move |cc| RefereeApp::new(cc, options));
    let mut claimed = Vec::new();
    for claim in [&right, &wrong] {
        let at = claim.ms;
        step_until(&mut harness, "tower-claim", Duration::from_secs(240), "the video did not reach the claim", |app| {
            app.snapshot().minigame.as_ref().is_some_and(|m| m.ms >= at)
        });
        // The operator presses the claimer's key, types the symbol and presses Enter.
        let key = [egui::Key::Num1, egui::Key::Num2][claim.seat];
        harness.key_press(key);
        harness.step();
        harness.get_by_label("Symbol:").type_text(&claim.called);
        harness.step();
        harness.key_press(egui::Key::Enter);
        harness.step();
        claimed.push(claim.clone());
    }
    step_until(&mut harness, "tower-verdicts", Duration::from_secs(120), "no two verdicts", |app| {
        app.snapshot().minigame.as_ref().is_some_and(|m| {
            m.log.iter().filter(|e| matches!(e, card_referee::referee::minigame::Event::Verdict { .. })).count() >= 2
        })
    });
    let view = harness.state().snapshot().minigame.clone().unwrap();
    let verdicts: Vec<(usize, String, String)> = view
        .log
        .iter()
        .filter_map(|e| match e {
            card_referee::referee::minigame::Event::Verdict { seat, called, outcome, .. } => {
                Some((*seat, called.clone(), serde_json::to_value(outcome).unwrap().as_str().unwrap().to_string()))
            }
            _ => None,
        })
        .collect();
    let expected: Vec<(usize, String, String)> =
        claimed.iter().map(|c| (c.seat, c.called.clone(), c.outcome.to_string())).collect();
    assert_eq!(verdicts, expected);
    assert!(harness.query_all_by_label_contains("The Tower").count() >= 1, "the panel does not name the game");
    // The players stop: the game is scored and kept in the scorebook of the window's data folder.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    let book = dir.join("scorebook.sqlite");
    let kept = || {
        card_referee::scorebook::Scorebook::open(&book)
            .and_then(|b| b.games(&card_referee::scorebook::Filter::default()))
            .unwrap_or_default()
    };
    step_until(&mut harness, "tower-kept", Duration::from_secs(30), "the game was not kept", |_| !kept().is_empty());
    let games = kept();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].entry.kind, "tower");
    assert_eq!(games[0].entry.results.len(), 2);
    assert!(games[0].entry.journal.as_ref().is_some_and(|j| j.contains("tower")), "{:?}", games[0].entry.journal);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A question the referee cannot settle is put to the operator as buttons, and a click answers
/// it: a rendered game where Alice takes a card (as her action, or by ending her turn: the table
/// looks the same) and the players then agree to stop; tied, they fight the battle, each reveal
/// typed by the operator, to the standings.
#[test]
fn a_question_is_answered_by_a_click_and_the_tie_break_battle_walked_through() {
    let dir = std::env::temp_dir().join(format!("ui-confirm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let video = rendered_game(&dir);
    let mut harness = start_on_game(video, &dir, Some(dir.join("game.layout.toml")));
    step_until(&mut harness, "confirm-video", Duration::from_secs(240), "the video did not end", |app| {
        app.status().state == card_referee::capture::worker::CaptureState::Ended && app.snapshot().frames > 0
    });
    harness.get_by_label("End game by agreement").click();
    step_until(&mut harness, "confirm-asked", Duration::from_secs(30), "no question asked", |app| {
        app.snapshot().question.is_some()
    });
    let question = harness.state().snapshot().question.clone().unwrap();
    let lines: Vec<&str> = question.candidates.iter().map(|c| c.line.as_str()).collect();
    let answer = lines.iter().find(|c| c.ends_with("Alice end")).unwrap_or(&lines[0]).to_string();
    harness.get_by_label(&answer).click();
    step_until(&mut harness, "confirm-answered", Duration::from_secs(30), "the answer was not taken", |app| {
        app.snapshot().question.is_none()
            && app.snapshot().log.iter().any(
                |s| matches!(&s.event, RefereeEvent::Input { record, .. } if record.iter().any(|l| l == "agree end")),
            )
    });
    // Tied at two Front Row cards each: the battle asks for each reveal in placement order; the
    // video has ended, so the operator types each card as the player shows it.
    type_battle_reveals(&mut harness, "battle-reveal");
    let state = harness.state().snapshot().state.clone().unwrap();
    assert!(matches!(state.phase, Phase::Over(_)), "the battle did not end: {:?}", state.phase);
    assert!(harness.query_all_by_label_contains("Standings").count() >= 1, "no standings on screen");
    // The game is kept with its steps, the deal with the thumbnail of the frame it was seen on.
    step_until(&mut harness, "battle-kept", Duration::from_secs(10), "the game was not kept", |app| {
        app.snapshot().log.iter().any(|s| format!("{:?}", s.event).contains("kept in the scorebook"))
    });
    let book = card_referee::scorebook::Scorebook::open(&dir.join("scorebook.sqlite")).unwrap();
    let steps = book.steps(1).unwrap();
    assert!(steps.iter().any(|s| s.lines.iter().any(|l| l == "Alice drew 10S")), "Alice's draw is not a step");
    let jpeg = steps[0].thumbnail.as_ref().expect("the deal's frame has no thumbnail");
    assert!(image::load_from_memory(jpeg).is_ok_and(|i| i.width() == 240), "the thumbnail is not a 240 px picture");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Walks the tie-break battle of `rendered_game`'s table through: each reveal it waits for is
/// typed by the operator as the player shows it (Alice's Front Row 4C 9H, Bob's JD 5S), until
/// the battle waits for none.
fn type_battle_reveals(harness: &mut Harness<'static, RefereeApp>, name: &str) {
    let fronts = [["4C", "9H"], ["JD", "5S"]];
    for _ in 0..4 {
        let awaited = match &harness.state().snapshot().state.as_ref().unwrap().phase {
            Phase::TieBreak(battle) => battle.awaited(),
            _ => None,
        };
        let Some((player, position)) = awaited else { break };
        harness.get_by_label("Card read:").click();
        harness.step();
        harness.get_by_label("Card read:").type_text(fronts[player][position]);
        harness.step();
        harness.get_by_label("Revealed").click();
        step_until(harness, name, Duration::from_secs(30), "the reveal was not taken", |app| {
            match &app.snapshot().state.as_ref().unwrap().phase {
                Phase::TieBreak(battle) => battle.awaited() != Some((player, position)),
                _ => true,
            }
        });
    }
}

/// The window resuming, over `rendered_game`'s video in `dir`, a journal whose deal differs from
/// the table by one card (Bob's 2S where the table shows 3S): the referee is soon lost. Returns
/// the harness and the journal's path.
fn resume_lost_game(dir: &std::path::Path) -> (Harness<'static, RefereeApp>, std::path::PathBuf) {
    let video = rendered_game(dir);
    let journal = dir.join("lost.jsonl");
    let lines = [
        r#"{"kind":"start","names":["Alice","Bob"],"options":"options ace=1"}"#,
        r#"{"kind":"commit","record":["seat Alice front ? ? back 5H 9D 7S 2C KC","seat Bob front ? ? back QS 4D 8H 6C 2S","first Alice"],"frame":0,"ms":0}"#,
    ];
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let options = StartOptions {
        source: Some(SourceSpec::File(video)),
        capture: Some(CaptureOptions { width: 1280, height: 720, fps: 30 }),
        resume: Some(journal.clone()),
        layout: Some(dir.join("game.layout.toml")),
        data_dir: Some(dir.to_path_buf()),
        ..StartOptions::default()
    };
    let mut harness =
        Harness::builder().with_size([1400.0, 860.0]).build_eframe(move |cc| RefereeApp::new(cc, options));
    harness.step();
    harness.get_by_label_contains("Resume Alice, Bob").click();
    (harness, journal)
}

/// The window refereeing Alice and Bob's game on `video`, its journals and layouts kept in
/// `dir`, with `layout` or none (fitted to the deal).
fn start_on_game(
    video: std::path::PathBuf,
    dir: &std::path::Path,
    layout: Option<std::path::PathBuf>,
) -> Harness<'static, RefereeApp> {
    let options = StartOptions {
        source: Some(SourceSpec::File(video)),
        capture: Some(CaptureOptions { width: 1280, height: 720, fps: 30 }),
        game: Some("omphala".into()),
        names: vec!["Alice".into(), "Bob".into()],
        layout,
        data_dir: Some(dir.to_path_buf()),
        ..StartOptions::default()
    };
    Harness::builder().with_size([1400.0, 860.0]).build_eframe(move |cc| RefereeApp::new(cc, options))
}

/// A rendered 2-seat game in `dir` (`game.avi`, with `game.layout.toml` beside it): the deal,
/// then Alice takes a card.
fn rendered_game(dir: &std::path::Path) -> std::path::PathBuf {
    let record = dir.join("game.txt");
    std::fs::write(
        &record,
        "seat Alice front 4C 9H back 5H 9D 7S 2C KC\nseat Bob front JD 5S back QS 4D 8H 6C 3S\nfirst Alice\n\
         Alice draw\nAlice drew 10S\n",
    )
    .unwrap();
    let video = dir.join("game.avi");
    let rendered = std::process::Command::new(env!("CARGO_BIN_EXE_card-referee"))
        .args(["render", "game"])
        .arg(&record)
        .args(["--seed", "6", "--fps", "15", "--size", "1280x720", "--out"])
        .arg(&video)
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
    video
}

/// The layout wizard: with no layout file, the layout is fitted to the deal; a row's end is
/// dragged on the live image and the adjusted layout used; "Save layout" writes it to a file,
/// which the next game loads.
#[test]
fn the_layout_fitted_to_the_deal_is_adjusted_saved_and_loaded_by_the_next_game() {
    let dir = std::env::temp_dir().join(format!("ui-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let video = rendered_game(&dir);
    let mut harness = start_on_game(video, &dir, None);
    step_until(&mut harness, "layout-fitted", Duration::from_secs(240), "no layout fitted to the deal", |app| {
        app.snapshot().layout_fitted
    });
    let fitted = harness.state().snapshot().layout.clone().expect("the layout in use is shown");
    harness.get_by_label("Adjust layout").click();
    step_until(&mut harness, "layout-handles", Duration::from_secs(10), "no handles to drag", |app| app.adjusting());
    let handle = harness.get_by_label("Alice: Back Row, first card").rect().center();
    let to = handle + egui::vec2(30.0, 12.0);
    harness.hover_at(handle);
    harness.step();
    harness.drag_at(handle);
    harness.step();
    harness.hover_at(to);
    harness.step();
    harness.drop_at(to);
    harness.step();
    harness.get_by_label("Use this layout").click();
    let alice_back = |layout: &card_referee::table::TableLayout| layout.seats[0].back;
    step_until(&mut harness, "layout-adjusted", Duration::from_secs(30), "the adjusted layout was not used", |app| {
        app.snapshot().layout.as_ref().is_some_and(|l| alice_back(l).first.distance(alice_back(&fitted).first) > 5.0)
    });
    let adjusted = harness.state().snapshot().layout.clone().unwrap();
    assert!(alice_back(&adjusted).last().distance(alice_back(&fitted).last()) < 1e-6, "the row's other end stays");
    harness.get_by_label("Save layout").click();
    step_until(&mut harness, "layout-saved", Duration::from_secs(30), "the layout was not saved", |app| {
        app.snapshot().layout_file.is_some()
    });
    let saved = harness.state().snapshot().layout_file.clone().unwrap();
    assert!(saved.starts_with(&dir), "{}", saved.display());
    let loaded = card_referee::table::TableLayout::load(&saved).expect("the saved layout reads back");
    assert!(alice_back(&loaded).first.distance(alice_back(&adjusted).first) < 0.01, "the file holds the adjusted row");
    assert_eq!(loaded.names, ["Alice", "Bob"], "the saved layout remembers who sits where");
    harness.get_by_label("New game").click();
    step_until(&mut harness, "layout-loaded", Duration::from_secs(30), "the next game did not load it", |app| {
        let s = app.snapshot();
        s.layout_file.as_ref() == Some(&saved) && !s.layout_fitted && !s.zones.is_empty()
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// A card the camera got wrong, fixed by typing while the referee is lost: the journal's deal
/// has Bob's 2S where the table shows 3S; the operator types that the card there is the 2S, and
/// the table is explained again from the journal's deal.
#[test]
fn a_desync_is_fixed_by_typing_the_card_the_camera_got_wrong() {
    let dir = std::env::temp_dir().join(format!("ui-fix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut harness, _) = resume_lost_game(&dir);
    // Asked once the deal lies on the table (the first desync may come while it is dealt).
    step_until(&mut harness, "fix-asked", Duration::from_secs(240), "no desync over the deal", |app| {
        let dealt = app.snapshot().cards.iter().filter(|c| c.label == "3S").count() == 1;
        dealt && app.snapshot().question.is_some() && app.snapshot().zones.iter().any(|z| z.differs)
    });
    harness.get_by_label("Fix a card the camera got wrong:").click();
    harness.step();
    harness.get_by_label("Fix a card the camera got wrong:").type_text("Bob back 5 2S");
    harness.step();
    harness.get_by_label("Fix").click();
    step_until(&mut harness, "fixed", Duration::from_secs(240), "the table was not explained again", |app| {
        let log = &app.snapshot().log;
        let fixed =
            log.iter().position(|s| matches!(&s.event, RefereeEvent::Note { text, .. } if text.starts_with("fixed")));
        fixed.is_some_and(|k| log[k..].iter().any(|s| matches!(s.event, RefereeEvent::Restored { .. })))
            && !app.snapshot().zones.iter().any(|z| z.differs)
    });
    let state = harness.state().snapshot().state.clone().unwrap();
    assert!(state.players[1].back.iter().any(|e| e.card == Some("2S".parse().unwrap())), "the journal's deal stands");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lost game brought back by the operator: a journal whose deal differs from the table's by
/// one card (Bob's 2S where the table shows 3S) is resumed over the rendered game; the referee
/// reports the desync and asks whether the table is right; a click corrects the game to the
/// table, and the game goes on to its standings (the battle's reveals typed).
#[test]
fn a_desync_is_corrected_by_a_click_and_the_game_goes_on_to_its_standings() {
    let dir = std::env::temp_dir().join(format!("ui-correct-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut harness, journal) = resume_lost_game(&dir);
    let right = format!("{} Alice to play", card_referee::referee::omphala::correct::TABLE_IS_RIGHT);
    // The operator answers once the players are done: the table as it lies at the end.
    step_until(&mut harness, "correct-asked", Duration::from_secs(240), "no desync question at the end", |app| {
        app.status().state == card_referee::capture::worker::CaptureState::Ended
            && app.snapshot().question.as_ref().is_some_and(|q| q.candidates.iter().any(|c| c.line == right))
    });
    let zones = harness.state().snapshot().zones.clone();
    let differing: Vec<&str> = zones.iter().filter(|z| z.differs).map(|z| z.label.as_str()).collect();
    assert!(differing.contains(&"Bob: Back Row"), "the differing row is not marked on the image: {differing:?}");
    harness.get_by_label(&right).click();
    step_until(&mut harness, "corrected", Duration::from_secs(30), "the table was not taken", |app| {
        app.snapshot().state.as_ref().is_some_and(|s| {
            s.players[1].back.iter().any(|e| e.card == Some("3S".parse().unwrap()))
                && !s.players[1].back.iter().any(|e| e.card == Some("2S".parse().unwrap()))
        })
    });
    let corrected = card_referee::referee::journal::read(&journal).unwrap();
    assert!(corrected.inputs.len() > 1, "the correction is not journalled");
    let state = harness.state().snapshot().state.clone().unwrap();
    assert_eq!(state.players[0].back.len(), 6, "Alice's draw is on the table: {:?}", state.players[0].back);
    harness.get_by_label("End game by agreement").click();
    step_until(&mut harness, "correct-ended", Duration::from_secs(30), "the game did not end", |app| {
        app.snapshot().state.as_ref().is_some_and(|s| !matches!(s.phase, Phase::Playing))
    });
    type_battle_reveals(&mut harness, "correct-reveal");
    let state = harness.state().snapshot().state.clone().unwrap();
    assert!(matches!(state.phase, Phase::Over(_)), "the game did not end: {:?}", state.phase);
    assert!(harness.query_all_by_label_contains("Standings").count() >= 1, "no standings on screen");
    // The finished game is kept in the scorebook of the window's data folder, and shown there.
    step_until(&mut harness, "correct-kept", Duration::from_secs(10), "the game was not kept", |app| {
        app.snapshot().log.iter().any(|s| format!("{:?}", s.event).contains("kept in the scorebook"))
    });
    harness.get_by_label("Scorebook").click();
    for _ in 0..5 {
        harness.step();
    }
    let kept = card_referee::scorebook::Scorebook::open(&dir.join("scorebook.sqlite")).unwrap();
    let games = kept.games(&card_referee::scorebook::Filter::default()).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].entry.journal.as_deref(), Some(journal.to_str().unwrap()));
    assert!(harness.query_by_label_contains(&games[0].summary()).is_some(), "the game is not listed");
    // Step by step: the deal, the corrections and the battle's reveals (typed after the video
    // ended: no thumbnails).
    let steps = kept.steps(games[0].id).unwrap();
    assert_eq!(steps.len(), card_referee::scorebook::steps::from_journal(&journal).len());
    harness.get_by_label_contains(&games[0].summary()).click();
    for _ in 0..3 {
        harness.step();
    }
    for step in &steps {
        let line = format!("frame {}: {}", step.frame, step.lines.join("  "));
        assert!(harness.query_all_by_label(&line).count() >= 1, "the step \"{line}\" is not shown");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Scorebook screen: tonight's table from the book in the window's data folder, a game's
/// tie-break and record shown by a click, and the games exported as CSV.
#[test]
fn the_scorebook_screen_shows_tonights_table_a_games_record_and_exports_it() {
    let dir = std::env::temp_dir().join(format!("ui-scorebook-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut book = card_referee::scorebook::Scorebook::open(&dir.join("scorebook.sqlite")).unwrap();
    for (file, at) in [("tie-battle", None), ("natural-end-battle", Some("2020-01-01T20:00:00Z"))] {
        let text = std::fs::read_to_string(format!("tests/data/omphala/{file}.txt")).unwrap();
        book.add(&card_referee::scorebook::entry::omphala(&text).unwrap(), "", at).unwrap();
    }
    drop(book);
    // A finished game whose write to the book never happened (a crash): its journal is in the
    // data folder, and the window writes it at start.
    std::fs::create_dir_all(dir.join("journals")).unwrap();
    let record = std::fs::read_to_string("tests/data/omphala/tie-shared-win.txt").unwrap();
    let lines: Vec<&str> =
        record.lines().map(|l| l.split('#').next().unwrap().trim()).filter(|l| !l.is_empty()).collect();
    let deal = lines.iter().position(|l| l.starts_with("first")).unwrap() + 1;
    let names: Vec<&str> = lines[..deal - 1].iter().map(|l| l.split_whitespace().nth(1).unwrap()).collect();
    let options = card_referee::referee::journal::options_line(card_referee::rules::omphala::RuleOptions::default());
    let mut journal = vec![serde_json::json!({"kind": "start", "names": names, "options": options}).to_string()];
    journal.push(serde_json::json!({"kind": "commit", "record": &lines[..deal], "frame": 0, "ms": 0}).to_string());
    for line in &lines[deal..] {
        journal.push(serde_json::json!({"kind": "commit", "record": [line], "frame": 1, "ms": 0}).to_string());
    }
    std::fs::write(dir.join("journals/omphala-1.jsonl"), journal.join("\n") + "\n").unwrap();
    let options = StartOptions {
        source: Some(SourceSpec::File("/nonexistent/table.mp4".into())),
        data_dir: Some(dir.clone()),
        ..StartOptions::default()
    };
    let mut harness =
        Harness::builder().with_size([1400.0, 860.0]).build_eframe(move |cc| RefereeApp::new(cc, options));
    step_until(&mut harness, "scorebook-caught-up", Duration::from_secs(20), "the journal's game was not kept", |_| {
        card_referee::scorebook::Scorebook::open(&dir.join("scorebook.sqlite"))
            .is_ok_and(|b| b.count().unwrap_or(0) == 3)
    });
    harness.get_by_label("Scorebook").click();
    harness.step();
    harness.step();
    // Tonight: the games written now, not the one of 2020.
    for _ in 0..5 {
        harness.step();
    }
    let n = harness.query_all_by_label("Alice").count();
    if n != 1 {
        let saved = save_screenshot(&mut harness, "scorebook-screen");
        panic!("Alice is not in tonight's table ({n} labels); screenshot: {saved}");
    }
    assert!(harness.query_all_by_label("P1").count() == 0, "a game of another night is in tonight's table");
    assert!(harness.query_by_label("Games (2)").is_some());
    harness.get_by_label_contains("(battle)").click();
    harness.step();
    harness.step();
    assert!(harness.query_by_label_contains("survivors: Alice 2, Bob 1").is_some(), "no tie-break shown");
    assert!(harness.query_by_label_contains("Alice revealed 1 KH").is_some(), "no record shown");
    harness.get_by_label("Tonight").click();
    harness.step();
    harness.step();
    assert!(harness.query_all_by_label("P1").count() == 1, "every night's games are not shown without the filter");
    harness.get_by_label("Export CSV").click();
    harness.step();
    let exported: Vec<std::path::PathBuf> =
        std::fs::read_dir(dir.join("exports")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(exported.len(), 1);
    let csv = std::fs::read_to_string(&exported[0]).unwrap();
    assert_eq!(csv.lines().count(), 1 + 6, "{csv}");
    harness.step();
    assert!(harness.query_by_label_contains("3 games written to").is_some(), "the export is not said");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A video of `cards` held up in turn before a dark table, each for 8 frames drifting a little,
/// with 4 empty frames between them (15 frames a second), after 3 s of the empty table (the time
/// the window is looked at before the first card comes).
fn held_cards_video(path: &std::path::Path, cards: &[&str]) {
    use card_referee::render::face::{FaceStyle, draw_face};
    use opencv::core::{self, Mat, Scalar, Size};
    use opencv::imgproc;
    use opencv::prelude::*;
    use opencv::videoio::{VideoWriter, VideoWriterTrait};
    let size = Size::new(320, 360);
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap();
    let mut writer = VideoWriter::new(path.to_str().unwrap(), fourcc, 15.0, size, true).unwrap();
    assert!(writer.is_opened().unwrap());
    let table = || Mat::new_size_with_default(size, core::CV_8UC3, Scalar::new(40.0, 90.0, 30.0, 0.0)).unwrap();
    for _ in 0..45 {
        writer.write(&table()).unwrap();
    }
    for code in cards {
        let face = draw_face(code.parse().unwrap(), &FaceStyle::default(), 240).unwrap();
        for k in 0..8 {
            let mut frame = table();
            let centre = core::Point2f::new(face.cols() as f32 / 2.0, face.rows() as f32 / 2.0);
            let mut m =
                imgproc::get_rotation_matrix_2d(centre, f64::from(k % 3), 190.0 / f64::from(face.cols())).unwrap();
            *m.at_2d_mut::<f64>(0, 2).unwrap() += 160.0 - f64::from(centre.x) + f64::from(k);
            *m.at_2d_mut::<f64>(1, 2).unwrap() += 180.0 - f64::from(centre.y);
            let border = core::BORDER_TRANSPARENT;
            imgproc::warp_affine(&face, &mut frame, &m, size, imgproc::INTER_AREA, border, Scalar::all(0.0)).unwrap();
            writer.write(&frame).unwrap();
        }
        for _ in 0..4 {
            writer.write(&table()).unwrap();
        }
    }
    writer.release().unwrap();
}

/// The deck's teaching: "Teach this deck" asks for the cards one by one (clubs first, ace to
/// king); each card held up is taken and the next asked; "Finish" keeps the cards taught as a
/// deck profile in the data folder, and the next game reads with it.
#[test]
fn a_deck_is_taught_card_by_card_and_the_next_game_reads_with_it() {
    let dir = std::env::temp_dir().join(format!("ui-teach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let video = dir.join("held-cards.avi");
    held_cards_video(&video, &["AC", "2C", "3C"]);
    let options = StartOptions {
        source: Some(SourceSpec::File(video)),
        capture: Some(CaptureOptions { width: 320, height: 360, fps: 15 }),
        data_dir: Some(dir.clone()),
        ..StartOptions::default()
    };
    let mut harness =
        Harness::builder().with_size([1400.0, 860.0]).build_eframe(move |cc| RefereeApp::new(cc, options));
    harness.step();
    harness.get_by_label("Teach this deck").click();
    step_until(&mut harness, "teach-open", Duration::from_secs(30), "the teaching did not open", |app| {
        app.teaching().is_some_and(|t| t.asked.is_some())
    });
    assert!(
        harness.query_all_by_label_contains("Ace of clubs (AC)").count() >= 1,
        "the ace of clubs is not asked for first"
    );
    step_until(
        &mut harness,
        "teach-taken",
        Duration::from_secs(240),
        "the three cards held up were not taken",
        |app| app.teaching().is_some_and(|t| t.taken.len() >= 3),
    );
    let taught = harness.state().teaching().unwrap().taken.clone();
    let codes: Vec<String> = taught.iter().map(|c| c.code()).collect();
    assert_eq!(codes, ["AC", "2C", "3C"], "each card taken once, as the card asked for");
    assert!(harness.query_all_by_label_contains("Four of clubs (4C)").count() >= 1, "the next card is not asked for");
    assert!(harness.query_all_by_label_contains("3 of 52 cards taught").count() >= 1);
    harness.get_by_label("Finish and read with this deck").click();
    step_until(
        &mut harness,
        "teach-kept",
        Duration::from_secs(60),
        "the next game does not read with the deck",
        |app| app.teaching().is_none() && app.snapshot().title.contains(", deck deck-"),
    );
    let kept = harness.state().card_profile().expect("the deck in use").to_path_buf();
    assert!(kept.starts_with(dir.join("decks")), "{}", kept.display());
    let profile = card_referee::vision::cards::decks::enroll::DeckProfile::load(&kept).unwrap();
    let cards: Vec<String> = profile.cards().iter().map(|c| c.code()).collect();
    assert_eq!(cards, ["AC", "2C", "3C"]);
    let _ = std::fs::remove_dir_all(&dir);
}
