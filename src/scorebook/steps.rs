//! A refereed game step by step: each commit's record lines, the frame they were decided on and
//! its thumbnail, read from the referee's journal (`referee::journal`) when the game is kept.

use std::path::Path;

use serde::Serialize;

use crate::referee::journal::{Entry as JournalEntry, Journal};

/// The largest thumbnail kept (the referee writes 240 px JPEGs of about 10 kB).
const MAX_THUMBNAIL_BYTES: u64 = 1 << 20;

/// One commit of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    pub frame: u64,
    /// The record lines committed at once.
    pub lines: Vec<String>,
    /// The frame's thumbnail (JPEG), when the journal kept one.
    #[serde(skip)]
    pub thumbnail: Option<Vec<u8>>,
}

/// The commits of the journal at `path`, an undone commit left out, each with its thumbnail
/// where the journal's thumbnail folder holds it. A journal that cannot be read gives none: the
/// game is kept by its record all the same.
pub fn from_journal(path: &Path) -> Vec<Step> {
    let Ok(text) = crate::text_input::read_text(path, crate::referee::journal::MAX_JOURNAL_BYTES, "a journal") else {
        return Vec::new();
    };
    let thumbs = Journal::thumbnail_dir_of(path);
    let mut steps: Vec<Step> = Vec::new();
    for line in text.lines() {
        match serde_json::from_str::<JournalEntry>(line) {
            Ok(JournalEntry::Commit { record, frame, thumbnail, .. }) => {
                // The referee names each thumbnail by its frame (`live::omphala`).
                let name = thumbnail.unwrap_or_else(|| format!("frame-{frame:08}.jpg"));
                let thumbnail = read_thumbnail(&thumbs.join(name));
                steps.push(Step { frame, lines: record, thumbnail });
            }
            Ok(JournalEntry::Undo { lines }) => undo(&mut steps, lines),
            _ => {}
        }
    }
    steps
}

/// Withdraws the last `lines` record lines, dropping the commits left empty.
fn undo(steps: &mut Vec<Step>, mut lines: usize) {
    while lines > 0 {
        let Some(last) = steps.last_mut() else { return };
        let take = lines.min(last.lines.len());
        last.lines.truncate(last.lines.len() - take);
        lines -= take;
        if last.lines.is_empty() {
            steps.pop();
        }
    }
}

fn read_thumbnail(path: &Path) -> Option<Vec<u8>> {
    let size = std::fs::metadata(path).ok()?.len();
    (size <= MAX_THUMBNAIL_BYTES).then(|| std::fs::read(path).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_are_read_with_their_thumbnails_and_an_undone_one_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("game.jsonl");
        let lines = [
            r#"{"kind":"start","names":["Ann","Bob"],"options":"options ace=1"}"#,
            r#"{"kind":"commit","record":["seat Ann front ? ? back 5H 9D 7S 2C KC","first Ann"],"frame":0,"ms":0}"#,
            r#"{"kind":"commit","record":["Ann draw","Ann drew 4C"],"frame":40,"ms":4000}"#,
            r#"{"kind":"commit","record":["Ann end"],"frame":52,"ms":5200,"thumbnail":"end.jpg"}"#,
            r#"{"kind":"undo","lines":1}"#,
            "not json: a line cut short",
        ];
        std::fs::write(&journal, lines.join("\n")).unwrap();
        std::fs::create_dir(dir.path().join("game.jsonl.thumbs")).unwrap();
        std::fs::write(dir.path().join("game.jsonl.thumbs/frame-00000040.jpg"), b"jpeg bytes").unwrap();
        let steps = from_journal(&journal);
        assert_eq!(steps.len(), 2);
        assert_eq!((steps[1].frame, steps[1].lines.len()), (40, 2));
        assert_eq!(steps[1].thumbnail.as_deref(), Some(&b"jpeg bytes"[..]));
        assert_eq!(steps[0].thumbnail, None);
        assert!(from_journal(&dir.path().join("missing.jsonl")).is_empty());
    }
}
