//! Reading the text files the command line is given (game and match records, deck files, labels,
//! profiles) so that bad input costs little and reads clearly: a size limit checked before and
//! while reading (a pipe or `/dev/zero` has no size to ask), invalid UTF-8 named by line and
//! column, and helpers that keep one error on one short line (`escaped`, `few`).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a text file could not be read. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    #[error("{}: cannot read: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: larger than {limit}, the limit for {what}", path.display(), limit = Bytes(*.limit))]
    TooLarge { path: PathBuf, what: &'static str, limit: u64 },
    #[error("{}:{line}:{column}: not UTF-8 text (byte 0x{byte:02x})", path.display())]
    NotUtf8 { path: PathBuf, line: usize, column: usize, byte: u8 },
}

impl TextError {
    /// The message without the file's name, for a caller whose error names it already.
    pub fn reason(&self) -> String {
        match self {
            TextError::Io { source, .. } => format!("cannot read: {source}"),
            TextError::TooLarge { what, limit, .. } => format!("larger than {}, the limit for {what}", Bytes(*limit)),
            TextError::NotUtf8 { line, column, byte, .. } => {
                format!("line {line}, column {column}: not UTF-8 text (byte 0x{byte:02x})")
            }
        }
    }
}

/// A byte count as people read it: "4 MiB", "512 KiB", "100 bytes".
struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            n if n >= 1 << 20 && n % (1 << 20) == 0 => write!(f, "{} MiB", n >> 20),
            n if n >= 1 << 10 && n % (1 << 10) == 0 => write!(f, "{} KiB", n >> 10),
            n => write!(f, "{n}"),
        }
    }
}

/// Reads a whole text file of at most `limit` bytes; `what` names the kind of file in the error
/// ("a game record"). Never reads more than `limit + 1` bytes.
pub fn read_text(path: &Path, limit: u64, what: &'static str) -> Result<String, TextError> {
    utf8_text(read_bytes(path, limit, what)?, path)
}

/// The bytes read from `path` as text; invalid UTF-8 is named by line and column.
pub fn utf8_text(bytes: Vec<u8>, path: &Path) -> Result<String, TextError> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let (line, column) = line_and_column(bytes, at);
        TextError::NotUtf8 { path: path.to_path_buf(), line, column, byte: bytes[at] }
    })
}

/// Reads a whole file of at most `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, TextError> {
    let io = |source| TextError::Io { path: path.to_path_buf(), source };
    let too_large = || TextError::TooLarge { path: path.to_path_buf(), what, limit };
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(io(std::io::Error::other("is a folder")));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() { meta.len() as usize } else { 0 });
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The 1-based line and column (in characters) of byte `at`, which follows valid UTF-8.
fn line_and_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    // The bytes before `at` are valid UTF-8: count the characters, not the bytes.
    let column = std::str::from_utf8(&before[line_start..]).map_or(at - line_start, |s| s.chars().count()) + 1;
    (line, column)
}

/// A name from the input as an error shows it: in quotes, with newlines, tabs, other control
/// characters and quotes escaped, so that it cannot split or fake a line; and cut to `MAX_SHOWN`
/// characters.
pub fn escaped(text: &str) -> String {
    const MAX_SHOWN: usize = 60;
    let mut shown: String = text.chars().take(MAX_SHOWN).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("{shown:?}")
}

/// `text` with every control character (newline, escape, …) written as an escape, `\u{1b}`: a
/// message quoting the input stays on one line and cannot drive the terminal.
pub fn without_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// `text` cut to `max` characters, "…" marking the cut, with every control character escaped
/// (`without_controls`): a message quoting the input kept to one short line.
pub fn shortened(text: &str, max: usize) -> String {
    let mut cut: String = text.chars().take(max).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    without_controls(&cut)
}

/// The longest message of a JSON error shown, in characters (its place is added).
const MAX_JSON_MESSAGE: usize = 200;

/// A JSON error on one short line: serde's message, which may quote a long string of the input
/// or control characters from it, [`shortened`], then where it was: "… at line L column C".
pub fn json_error(error: &serde_json::Error) -> String {
    let text = error.to_string();
    if error.line() == 0 {
        return shortened(&text, MAX_JSON_MESSAGE);
    }
    let message = text.rfind(" at line ").map_or(text.as_str(), |i| &text[..i]);
    format!("{} at line {} column {}", shortened(message, MAX_JSON_MESSAGE), error.line(), error.column())
}

/// At most `shown` items joined by ", ", then "… and N more" when there are more.
pub fn few<T: fmt::Display>(items: &[T], shown: usize) -> String {
    let mut text = items.iter().take(shown).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    if items.len() > shown {
        text.push_str(&format!(" … and {} more", items.len() - shown));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_named_by_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.txt");
        std::fs::write(&path, b"first line\nse\xc3\xa9t \xff here\n").unwrap();
        let err = read_text(&path, 1000, "a record").unwrap_err();
        assert!(matches!(err, TextError::NotUtf8 { line: 2, column: 6, byte: 0xff, .. }), "{err}");
        assert!(err.to_string().ends_with("r.txt:2:6: not UTF-8 text (byte 0xff)"), "{err}");
    }

    #[test]
    fn size_is_limited_for_files_and_for_streams() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        std::fs::write(&path, vec![b'a'; 2048]).unwrap();
        let err = read_text(&path, 1024, "a record").unwrap_err();
        assert_eq!(err.to_string(), format!("{}: larger than 1 KiB, the limit for a record", path.display()));
        assert_eq!(read_text(&path, 2048, "a record").unwrap().len(), 2048);
        #[cfg(unix)]
        assert!(matches!(read_text(Path::new("/dev/zero"), 1024, "x"), Err(TextError::TooLarge { .. })));
    }

    #[test]
    fn json_errors_are_cut_and_escaped_and_keep_their_place() {
        // A JSON string holding an escape character, decoded into the message.
        let long = format!("{{\n\"kind\": \"{}\\u001b\"}}", "x".repeat(5000));
        let e = serde_json::from_str::<std::collections::BTreeMap<String, u32>>(&long).unwrap_err();
        let text = json_error(&e);
        assert!(text.len() < 300 && !text.chars().any(char::is_control), "{text}");
        assert!(text.ends_with(&format!("… at line 2 column {}", e.column())), "{text}");
        let e = serde_json::from_str::<u32>("\"a\\u001bb\"").unwrap_err();
        assert!(json_error(&e).starts_with("invalid type: string \"a\\u{1b}b\", expected u32 at line 1 column "));
        assert_eq!(shortened("abc\ndef", 5), "abc\\nd…");
    }

    #[test]
    fn names_are_escaped_and_cut() {
        assert_eq!(escaped("Sun"), "\"Sun\"");
        assert_eq!(escaped("a\nb\"c\u{1b}"), "\"a\\nb\\\"c\\u{1b}\"");
        assert_eq!(escaped(&"x".repeat(100)).chars().count(), 60 + 3);
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(without_controls("plain 'é'"), "plain 'é'");
        assert_eq!(without_controls("a\u{1b}[2J\rb"), "a\\u{1b}[2J\\rb");
    }

    #[test]
    fn long_lists_are_cut() {
        assert_eq!(few(&[1, 2, 3], 5), "1, 2, 3");
        assert_eq!(few(&[1, 2, 3, 4, 5, 6], 2), "1, 2 … and 4 more");
    }
}
