//! Frame sources against real files: a video written here is read back frame by frame, image
//! folders are read in order, and every kind of bad input gives one line naming the thing.

use std::process::Command;

use card_referee::capture::{self, CaptureOptions, FrameSource, SourceSpec};
use opencv::core::{Mat, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};
use opencv::{core, imgcodecs};

fn grey(level: u8, size: Size) -> Mat {
    Mat::new_size_with_default(size, core::CV_8UC3, Scalar::all(f64::from(level))).unwrap()
}

fn mean_level(frame: &Mat) -> f64 {
    core::mean(frame, &core::no_array()).unwrap()[0]
}

fn open(spec: SourceSpec) -> Box<dyn FrameSource> {
    capture::open(&spec, &CaptureOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

#[test]
fn a_written_video_is_read_back_frame_by_frame() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("levels.avi");
    let size = Size::new(160, 120);
    let levels: Vec<u8> = (0..12).map(|i| 20 + i * 18).collect();
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap();
    let mut writer = VideoWriter::new(path.to_str().unwrap(), fourcc, 25.0, size, true).unwrap();
    assert!(writer.is_opened().unwrap());
    for &level in &levels {
        writer.write(&grey(level, size)).unwrap();
    }
    writer.release().unwrap();

    let mut source = open(SourceSpec::File(path.clone()));
    assert_eq!(source.nominal_fps(), Some(25.0));
    let mut seen = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        assert_eq!((frame.width(), frame.height()), (160, 120));
        assert_eq!(frame.index, seen.len() as u64);
        seen.push(mean_level(&frame.image));
    }
    assert_eq!(seen.len(), levels.len());
    for (got, &want) in seen.iter().zip(&levels) {
        assert!((got - f64::from(want)).abs() < 4.0, "frame level {got} for {want}");
    }
}

#[test]
fn a_folder_is_read_in_file_name_order_skipping_other_files() {
    let dir = tempfile::tempdir().unwrap();
    for (name, level) in [("b.png", 100u8), ("a.png", 50), ("c.jpg", 150)] {
        imgcodecs::imwrite(dir.path().join(name).to_str().unwrap(), &grey(level, Size::new(32, 24)), &Vector::new())
            .unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "not an image").unwrap();
    let mut source = open(SourceSpec::Folder(dir.path().into()));
    let mut levels = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        levels.push(mean_level(&frame.image).round());
    }
    assert_eq!(levels.len(), 3);
    assert!(
        (levels[0] - 50.0).abs() < 3.0 && (levels[1] - 100.0).abs() < 3.0 && (levels[2] - 150.0).abs() < 3.0,
        "{levels:?}"
    );
}

#[test]
fn a_corrupt_image_in_a_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.jpg"), b"\xff\xd8 definitely not a jpeg").unwrap();
    let mut source = open(SourceSpec::Folder(dir.path().into()));
    let err = source.next_frame().err().expect("a corrupt image must be an error");
    assert!(err.to_string().contains("broken.jpg"), "{err}");
}

#[test]
fn the_demo_source_gives_frames_with_ground_truth() {
    let options = CaptureOptions { width: 320, height: 180, fps: 30 };
    let mut source = capture::open(&SourceSpec::Demo, &options).unwrap();
    let frame = source.next_frame().unwrap().unwrap();
    assert_eq!((frame.width(), frame.height()), (320, 180));
    assert!(!frame.truth.unwrap().is_empty());
}

fn run_cli(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_card-referee")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn assert_one_line_error(args: &[&str], names: &str) {
    let (code, stderr) = run_cli(args);
    assert_eq!(code, 2, "{args:?}: exit {code}, stderr {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: not one line: {stderr}");
    assert!(stderr.contains(names), "{args:?}: '{stderr}' does not name {names}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_sources_give_one_line_errors_and_exit_code_two() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.mp4");
    std::fs::write(&fake, "this is text, not a video").unwrap();
    let fake_arg = format!("file:{}", fake.display());
    assert_one_line_error(&["frames", "--source", "file:/no/such/video.mp4"], "/no/such/video.mp4");
    assert_one_line_error(&["frames", "--source", &fake_arg], "fake.mp4");
    assert_one_line_error(&["frames", "--source", "webcam:97"], "camera 97");
    assert_one_line_error(&["frames", "--source", "folder:/no/such/folder"], "/no/such/folder");
    assert_one_line_error(&["--source", "file:/no/such/video.mp4"], "/no/such/video.mp4");
}

#[test]
fn frames_reads_a_video_headless() {
    let (code, stderr) = run_cli(&["frames", "--source", "demo", "--count", "3", "--resolution", "320x180"]);
    assert_eq!(code, 0, "{stderr}");
}
