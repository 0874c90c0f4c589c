//! The session journal: every committed input, every verdict and every operator answer appended
//! as one JSON line and flushed at once, so that a crash or a `kill -9` loses nothing already
//! ruled. Reading it back gives the options, the seat names and the committed inputs, from which
//! the referee resumes exactly where it stopped.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::rules::omphala::notation::{Record, parse};
use crate::rules::omphala::{Input, RuleOptions};

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    /// The game's header: the seats' names and the rule options line.
    Start { names: Vec<String>, options: String },
    /// Record lines committed to the game, the frame they were decided on and its thumbnail
    /// (a file beside the journal).
    Commit {
        record: Vec<String>,
        frame: u64,
        ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thumbnail: Option<String>,
    },
    /// Anything the referee said (kept for the dispute, not needed to resume).
    Said { event: serde_json::Value },
    /// The last frame of the source that was ruled on (a video source resumes after it).
    Frame { frame: u64 },
}

/// What a journal holds, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Resumed {
    pub names: Vec<String>,
    pub options: RuleOptions,
    pub inputs: Vec<Input>,
    /// The last frame ruled on.
    pub frame: Option<u64>,
}

/// An open journal, appended to.
pub struct Journal {
    file: File,
    path: PathBuf,
}

impl Journal {
    /// Opens `path` for appending, creating it if needed.
    pub fn open(path: &Path) -> Result<Journal, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("{}: cannot open the journal: {e}", path.display()))?;
        Ok(Journal { file, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Folder for the commits' thumbnails: `JOURNAL.thumbs/`.
    pub fn thumbnail_dir(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".thumbs");
        self.path.with_file_name(name)
    }

    /// Appends one entry and flushes it to the disk.
    pub fn append(&mut self, entry: &Entry) -> Result<(), String> {
        self.append_json(entry)
    }

    /// Appends any JSON value as one line and flushes it (the mini-game referee journals its
    /// events so).
    pub fn append_json<T: Serialize>(&mut self, value: &T) -> Result<(), String> {
        let mut line = serde_json::to_string(value).map_err(|e| e.to_string())?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|e| format!("{}: cannot write the journal: {e}", self.path.display()))
    }
}

/// Reads a journal back. A last line cut short by a crash is ignored; any other bad line is an
/// error naming it.
pub fn read(path: &Path) -> Result<Resumed, String> {
    let file = File::open(path).map_err(|e| format!("{}: cannot read the journal: {e}", path.display()))?;
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: cannot read the journal: {e}", path.display()))?;
    let mut header: Option<(Vec<String>, String)> = None;
    let mut record_lines: Vec<String> = Vec::new();
    let mut frame = None;
    for (k, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = match serde_json::from_str(line) {
            Ok(entry) => entry,
            Err(_) if k + 1 == lines.len() => break,
            Err(e) => return Err(format!("{}: line {}: not a journal entry: {e}", path.display(), k + 1)),
        };
        match entry {
            Entry::Start { names, options } => header = Some((names, options)),
            Entry::Commit { record, frame: f, .. } => {
                record_lines.extend(record);
                frame = Some(f);
            }
            Entry::Frame { frame: f } => frame = Some(f),
            Entry::Said { .. } => {}
        }
    }
    let Some((names, options_line)) = header else {
        return Err(format!("{}: no start line: not a card-referee journal", path.display()));
    };
    let mut text = format!("{options_line}\n");
    for line in &record_lines {
        text.push_str(line);
        text.push('\n');
    }
    let record: Record = parse(&text).map_err(|e| format!("{}: the committed record: {e}", path.display()))?;
    Ok(Resumed {
        names,
        options: record.options(),
        inputs: record.inputs().into_iter().map(|(_, i)| i).collect(),
        frame,
    })
}

/// The options line a journal's start entry holds.
pub fn options_line(options: RuleOptions) -> String {
    Record::from_inputs(options, &[]).to_string().trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_cut_mid_line_reads_back_what_was_flushed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.jsonl");
        let mut journal = Journal::open(&path).unwrap();
        let names = vec!["Alice".to_string(), "Bob".to_string()];
        journal.append(&Entry::Start { names: names.clone(), options: options_line(RuleOptions::default()) }).unwrap();
        let deal = vec![
            "seat Alice front ? ? back QS 5H 2D 7S 9C".to_string(),
            "seat Bob front ? ? back KC JD 4H 6S 8C".to_string(),
            "first Alice".to_string(),
        ];
        journal.append(&Entry::Commit { record: deal, frame: 40, ms: 1333, thumbnail: None }).unwrap();
        journal
            .append(&Entry::Commit { record: vec!["Alice draw".into()], frame: 70, ms: 2333, thumbnail: None })
            .unwrap();
        drop(journal);
        // A crash in the middle of the next line.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"kind\":\"com").unwrap();
        let resumed = read(&path).unwrap();
        assert_eq!(resumed.names, names);
        assert_eq!(resumed.inputs.len(), 2);
        assert_eq!(resumed.frame, Some(70));
    }

    #[test]
    fn a_bad_line_inside_the_journal_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        std::fs::write(&path, "{\"kind\":\"start\",\"names\":[\"A\",\"B\"],\"options\":\"\"}\nnonsense\n{}\n").unwrap();
        let err = read(&path).unwrap_err();
        assert!(err.contains("line 2"), "{err}");
    }
}
