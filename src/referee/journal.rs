//! The session journal: every committed input, every verdict and every operator answer appended
//! as one JSON line and flushed at once, so that a crash or a `kill -9` loses nothing already
//! ruled. Reading it back gives the options, the seat names and the committed inputs, from which
//! the referee resumes exactly where it stopped.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::rules::omphala::notation::{Record, parse as parse_record};
use crate::rules::omphala::{Input, RuleOptions};
use crate::table::TableLayout;
use crate::text_input::TextError;

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
    /// The frame of the source whose view the last commit came from (a video source resumes
    /// after it, so that the views since are ruled on again).
    Frame { frame: u64 },
    /// The operator withdrew the last committed input: its record lines, counted from the end.
    Undo { lines: usize },
    /// Where the seats' rows lie, from here on: fitted to the deal, given, or adjusted by hand. A
    /// game resumed without a layout file goes on with the last one. As a layout file holds it
    /// (TOML), checked as one when read back.
    Layout { toml: String },
}

/// What a journal holds, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Resumed {
    pub names: Vec<String>,
    pub options: RuleOptions,
    pub inputs: Vec<Input>,
    /// The frame of the last commit (a video source resumes after it).
    pub frame: Option<u64>,
    /// The table layout last journalled.
    pub layout: Option<TableLayout>,
    /// Questions (`confirm`) said up to the last commit: as many lines of an answers file were
    /// used. Those said after it are asked again, since the views since the last commit are
    /// ruled on again.
    pub answered: usize,
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
        Journal::thumbnail_dir_of(&self.path)
    }

    /// The thumbnail folder of the journal at `path`: `JOURNAL.thumbs/`.
    pub fn thumbnail_dir_of(path: &Path) -> PathBuf {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".thumbs");
        path.with_file_name(name)
    }

    /// Appends one entry and flushes it to the disk.
    pub fn append(&mut self, entry: &Entry) -> Result<(), String> {
        self.append_json(entry)
    }

    /// Journals what the Omphala referee said: a committed input as a commit (what a resume
    /// replays), and every event as said.
    pub fn append_said(&mut self, event: &crate::referee::omphala::RefereeEvent) -> Result<(), String> {
        if let crate::referee::omphala::RefereeEvent::Input { record, at, .. } = event {
            self.append(&Entry::Commit { record: record.clone(), frame: at.frame, ms: at.ms, thumbnail: None })?;
        }
        let value = serde_json::to_value(event).map_err(|e| e.to_string())?;
        self.append(&Entry::Said { event: value })
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

/// The largest journal read back, in bytes: a game of a whole evening journals a few megabytes.
pub const MAX_JOURNAL_BYTES: u64 = 1 << 30;

/// Reads a journal back. A last line cut short by a crash is ignored; any other bad line is an
/// error naming it.
pub fn read(path: &Path) -> Result<Resumed, String> {
    let bytes = crate::text_input::read_bytes(path, MAX_JOURNAL_BYTES, "a journal").map_err(|e| match e {
        TextError::Io { source, .. } => format!("{}: cannot read the journal: {source}", path.display()),
        other => other.to_string(),
    })?;
    from_bytes(bytes, path)
}

/// Reads the bytes of the journal at `path` (named in the errors), as [`read`] does: a last
/// line cut short inside a character is ignored as any cut line is.
pub fn from_bytes(mut bytes: Vec<u8>, path: &Path) -> Result<Resumed, String> {
    if let Err(e) = std::str::from_utf8(&bytes) {
        let at = e.valid_up_to();
        let in_last_line = bytes[at..].iter().position(|&b| b == b'\n').is_none_or(|i| at + i + 1 == bytes.len());
        if in_last_line {
            bytes.truncate(bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1));
        }
    }
    let text = crate::text_input::utf8_text(bytes, path).map_err(|e| e.to_string())?;
    parse(&text, path)
}

/// Reads the text of the journal at `path` (named in the errors), as [`read`] does.
pub fn parse(text: &str, path: &Path) -> Result<Resumed, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut header: Option<(Vec<String>, String, usize)> = None;
    // The committed record's lines, each with the journal line it was committed on.
    let mut record_lines: Vec<(String, usize)> = Vec::new();
    let mut frame = None;
    let mut layout = None;
    let (mut asked, mut answered) = (0, 0);
    for (k, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = match serde_json::from_str(line) {
            Ok(entry) => entry,
            Err(_) if k + 1 == lines.len() => break,
            Err(e) => {
                let e = crate::text_input::json_error(&e);
                return Err(format!("{}: line {}: not a journal entry: {e}", path.display(), k + 1));
            }
        };
        match entry {
            Entry::Start { names, options } => header = Some((names, options, k + 1)),
            Entry::Commit { record, frame: f, .. } => {
                record_lines.extend(record.into_iter().map(|l| (l, k + 1)));
                frame = Some(f);
                answered = asked;
            }
            Entry::Frame { frame: f } => {
                frame = Some(f);
                answered = asked;
            }
            Entry::Undo { lines } => record_lines.truncate(record_lines.len().saturating_sub(lines)),
            Entry::Layout { toml } => {
                let read = TableLayout::from_toml(&toml)
                    .map_err(|e| format!("{}: line {}: the table layout: {e}", path.display(), k + 1))?;
                layout = Some(read);
            }
            Entry::Said { event } => {
                asked += usize::from(event.get("event").and_then(|e| e.as_str()) == Some("confirm"))
            }
        }
    }
    let Some((names, options_line, start_line)) = header else {
        return Err(format!("{}: no start line: not a card-referee journal", path.display()));
    };
    // The record as the referee wrote it: the options line, then the committed lines.
    let mut text = String::new();
    let mut journal_lines = Vec::new();
    for (line, at) in std::iter::once((&options_line, start_line)).chain(record_lines.iter().map(|(l, at)| (l, *at))) {
        text.push_str(line);
        text.push('\n');
        journal_lines.push(at);
    }
    let record: Record = parse_record(&text).map_err(|e| {
        let at = journal_lines.get(e.line - 1).copied().unwrap_or(start_line);
        format!("{}: line {at}: the committed record: {}", path.display(), e.message)
    })?;
    Ok(Resumed {
        names,
        options: record.options(),
        inputs: record.inputs().into_iter().map(|(_, i)| i).collect(),
        frame,
        layout,
        answered,
    })
}

/// The journal entry of a table layout.
pub fn layout_entry(layout: &TableLayout) -> Entry {
    Entry::Layout { toml: layout.to_toml() }
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
    fn a_last_line_cut_inside_a_character_is_ignored_and_other_bad_text_named() {
        let start = "{\"kind\":\"start\",\"names\":[\"A\",\"B\"],\"options\":\"\"}\n";
        let mut bytes =
            format!("{start}{{\"kind\":\"frame\",\"frame\":3}}\n{{\"kind\":\"said\",\"event\":\"\u{2026}").into_bytes();
        bytes.truncate(bytes.len() - 1);
        let path = Path::new("j.jsonl");
        assert_eq!(from_bytes(bytes.clone(), path).unwrap().frame, Some(3));
        bytes.extend(b"\"}\n{\"kind\":\"frame\",\"frame\":4}\n");
        assert_eq!(from_bytes(bytes, path).unwrap_err(), "j.jsonl:3:25: not UTF-8 text (byte 0xe2)");
    }

    #[test]
    fn a_bad_committed_line_is_named_by_its_journal_line() {
        let text = "{\"kind\":\"start\",\"names\":[\"A\",\"B\"],\"options\":\"\"}
{\"kind\":\"commit\",\"record\":[\"seat A front ? back 2C\",\"seat B front ? back 3C\",\"first A\"],\"frame\":1,\"ms\":0}
{\"kind\":\"frame\",\"frame\":2}
{\"kind\":\"commit\",\"record\":[\"A draw\",\"A fly\"],\"frame\":3,\"ms\":0}
";
        let err = parse(text, Path::new("j.jsonl")).unwrap_err();
        assert!(err.starts_with("j.jsonl: line 4: the committed record: unknown verb 'fly'"), "{err}");
    }

    #[test]
    fn the_last_layout_journalled_is_read_back_and_a_bad_one_named_by_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.jsonl");
        let mut journal = Journal::open(&path).unwrap();
        journal.append(&Entry::Start { names: vec!["A".into(), "B".into()], options: String::new() }).unwrap();
        assert_eq!(read(&path).unwrap().layout, None);
        let mut fitted = TableLayout::standard(2);
        fitted.seats.rotate_left(1);
        journal.append(&layout_entry(&TableLayout::standard(2))).unwrap();
        journal.append(&Entry::Frame { frame: 9 }).unwrap();
        journal.append(&layout_entry(&fitted)).unwrap();
        assert_eq!(read(&path).unwrap().layout, Some(fitted));
        let mut bad = TableLayout::standard(2);
        bad.deck.radius = -1.0;
        journal.append(&layout_entry(&bad)).unwrap();
        journal.append(&Entry::Frame { frame: 10 }).unwrap();
        let err = read(&path).unwrap_err();
        assert!(err.contains("line 5: the table layout: ") && err.contains("deck.radius"), "{err}");
    }

    #[test]
    fn the_questions_asked_up_to_the_last_commit_are_the_answers_used() {
        let start = r#"{"kind":"start","names":["A","B"],"options":""}"#;
        let asked = r#"{"kind":"said","event":{"event":"confirm","candidates":["A draw","A end"]}}"#;
        let note = r#"{"kind":"said","event":{"event":"note","text":"hello"}}"#;
        let frame = r#"{"kind":"frame","frame":12}"#;
        let text = [start, asked, note, asked, frame, asked, note].join("\n");
        let resumed = parse(&text, Path::new("j.jsonl")).unwrap();
        assert_eq!(resumed.answered, 2, "the question after the last commit is asked again");
        assert_eq!(resumed.frame, Some(12));
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
