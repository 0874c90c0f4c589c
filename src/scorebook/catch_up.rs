//! Games a crash or a book that could not be written left out: each Omphala journal in the
//! data folder whose game is over is written into the book (a game already there is kept
//! once), so a finished game reaches the book on the next start however its first write ended.

use std::path::Path;

use super::{BookError, EntryError, Scorebook};
use crate::referee::journal;
use crate::rules::omphala::notation::Record;

/// How many journals' games were written, and the journals that could not be read (each named
/// with why).
#[derive(Debug, Default)]
pub struct CaughtUp {
    pub written: usize,
    pub unreadable: Vec<String>,
}

/// Writes every finished game of the Omphala journals (`omphala-*.jsonl`) in `folder`; a
/// journal whose game the book holds is not read again.
pub fn catch_up(book: &mut Scorebook, folder: &Path) -> Result<CaughtUp, BookError> {
    let mut caught = CaughtUp::default();
    let Ok(listing) = std::fs::read_dir(folder) else { return Ok(caught) };
    let mut journals: Vec<std::path::PathBuf> = listing
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("omphala-") && name.ends_with(".jsonl")
        })
        .collect();
    journals.sort();
    for path in journals {
        if book.has_journal(&path)? {
            continue;
        }
        let resumed = match journal::read(&path) {
            Ok(resumed) => resumed,
            Err(e) => {
                caught.unreadable.push(e);
                continue;
            }
        };
        // The record as the referee writes it at the game's end (`live::referee`); a game not
        // over waits for its players.
        let text = Record::from_inputs(resumed.options, &resumed.inputs).to_string();
        match book.add_refereed(&text, Some(&path)) {
            Ok((_, new)) => caught.written += usize::from(new),
            Err(BookError::Entry(EntryError::NotOver(_))) => {}
            Err(BookError::Entry(e)) => caught.unreadable.push(format!("{}: {e}", path.display())),
            Err(e) => return Err(e),
        }
    }
    Ok(caught)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A journal holding `record`'s lines, one commit each after the deal.
    fn journal_of(path: &Path, record: &str) {
        let lines: Vec<&str> =
            record.lines().map(|l| l.split('#').next().unwrap().trim()).filter(|l| !l.is_empty()).collect();
        let deal = lines.iter().take_while(|l| !l.starts_with("first")).count() + 1;
        let names: Vec<&str> = lines[..deal - 1].iter().map(|l| l.split_whitespace().nth(1).unwrap()).collect();
        let options = journal::options_line(crate::rules::omphala::RuleOptions::default());
        let mut out = vec![serde_json::json!({"kind": "start", "names": names, "options": options}).to_string()];
        out.push(serde_json::json!({"kind": "commit", "record": &lines[..deal], "frame": 0, "ms": 0}).to_string());
        for (k, line) in lines[deal..].iter().enumerate() {
            out.push(serde_json::json!({"kind": "commit", "record": [line], "frame": k + 1, "ms": 0}).to_string());
        }
        std::fs::write(path, out.join("\n") + "\n").unwrap();
    }

    #[test]
    fn a_finished_game_left_out_of_the_book_is_written_once_and_an_unfinished_one_waits() {
        let dir = tempfile::tempdir().unwrap();
        journal_of(&dir.path().join("omphala-1.jsonl"), include_str!("../../tests/data/omphala/tie-battle.txt"));
        journal_of(&dir.path().join("omphala-2.jsonl"), include_str!("../../tests/data/omphala/red-reset.txt"));
        std::fs::write(dir.path().join("omphala-3.jsonl"), "not a journal\n").unwrap();
        std::fs::write(dir.path().join("tower-4.jsonl"), "{\"event\":\"start\"}\n").unwrap();
        let mut book = Scorebook::open(&dir.path().join("book.sqlite")).unwrap();
        let caught = catch_up(&mut book, dir.path()).unwrap();
        assert_eq!(caught.written, 1);
        assert_eq!(caught.unreadable.len(), 1, "{:?}", caught.unreadable);
        assert!(caught.unreadable[0].contains("omphala-3.jsonl"), "{:?}", caught.unreadable);
        let games = book.games(&super::super::Filter::default()).unwrap();
        assert_eq!(games[0].entry.decided_by, "battle");
        assert_eq!(book.steps(games[0].id).unwrap().len(), 6);
        assert_eq!(catch_up(&mut book, dir.path()).unwrap().written, 0);
    }
}
