//! The window, driven headless with egui_kittest: it starts on the demo table and frames arrive;
//! a bad source shows its error in the status line. On failure a screenshot is saved to
//! `target/ui-failures/` (when a renderer is available) to see what the window showed.

use std::time::{Duration, Instant};

use card_referee::capture::{CaptureOptions, SourceSpec};
use card_referee::referee::omphala::RefereeEvent;
use card_referee::ui::{RefereeApp, StartOptions, UiCommand};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn start(source: SourceSpec) -> Harness<'static, RefereeApp> {
    start_sized(source, 640, 360)
}

fn start_sized(source: SourceSpec, width: u32, height: u32) -> Harness<'static, RefereeApp> {
    let options = StartOptions {
        source: Some(source),
        capture: Some(CaptureOptions { width, height, fps: 30 }),
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

/// The demo table is refereed live: its first rulings reach the banner and the rulings log,
/// and the panel shows the seats' rows once the deal is committed.
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
}

/// A game journalled at a real table is offered for resuming; a click goes on with it: its seats
/// and committed deal are back on the panel.
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
    let _ = std::fs::remove_dir_all(&dir);
}
