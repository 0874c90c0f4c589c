//! Which cards each photo of a folder shows: `labels.json` (`symbol-card-labels/1`), or, without
//! one, the card id in each image's file name (`07.jpg` shows card 7).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::symbols::deck::CardId;

/// One labelled image.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledImage {
    pub path: PathBuf,
    pub file: String,
    pub cards: Vec<CardId>,
}

#[derive(Deserialize)]
struct LabelsFile {
    format: String,
    images: Vec<LabelEntry>,
}

#[derive(Deserialize)]
struct LabelEntry {
    file: String,
    cards: Vec<CardId>,
}

const IMAGE_EXTENSIONS: [&str; 5] = ["jpg", "jpeg", "png", "bmp", "webp"];

/// Reads the labels of a folder of photos.
pub fn read_labels(dir: &Path) -> Result<Vec<LabelledImage>> {
    if !dir.is_dir() {
        bail!("{}: not a folder", dir.display());
    }
    let labels = dir.join("labels.json");
    if labels.exists() {
        return read_labels_file(&labels, dir);
    }
    let mut images = Vec::new();
    let entries = std::fs::read_dir(dir).with_context(|| format!("{}: unreadable", dir.display()))?;
    for entry in entries {
        let path = entry.with_context(|| format!("{}: unreadable", dir.display()))?.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        if !IMAGE_EXTENSIONS.contains(&ext.as_str()) {
            continue;
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let digits: String = stem.chars().filter(|c| c.is_ascii_digit()).collect();
        let card: CardId = digits
            .parse()
            .with_context(|| format!("{}: no labels.json and no card id in the file name", path.display()))?;
        images.push(LabelledImage {
            file: path.file_name().and_then(|s| s.to_str()).unwrap_or("").to_string(),
            path,
            cards: vec![card],
        });
    }
    images.sort_by(|a, b| a.file.cmp(&b.file));
    if images.is_empty() {
        bail!("{}: no labels.json and no images", dir.display());
    }
    Ok(images)
}

/// Reads a `labels.json` kept apart from its photos, which lie in `dir`.
pub fn read_labels_file(labels: &Path, dir: &Path) -> Result<Vec<LabelledImage>> {
    if !dir.is_dir() {
        bail!("{}: not a folder", dir.display());
    }
    let limit = crate::vision::cards::labels::MAX_LABELS_BYTES;
    let text = crate::text_input::read_text(labels, limit, "a labels file")?;
    parse_labels(&text, dir).map_err(|e| anyhow::anyhow!("{}: {e}", labels.display()))
}

/// Parses the text of a `labels.json` in `dir` (the images' paths are taken relative to it). The
/// error is a one-line reason.
pub fn parse_labels(text: &str, dir: &Path) -> Result<Vec<LabelledImage>, String> {
    let file: LabelsFile =
        serde_json::from_str(text).map_err(|e| format!("malformed labels: {}", crate::text_input::json_error(&e)))?;
    if file.format != "symbol-card-labels/1" {
        return Err(format!("unknown format {}", crate::text_input::escaped(&file.format)));
    }
    // Scores over no image would read as perfect.
    if file.images.is_empty() {
        return Err("the images list is empty: there is nothing to score".to_string());
    }
    Ok(file
        .images
        .into_iter()
        .map(|e| LabelledImage { path: dir.join(&e.file), file: e.file, cards: e.cards })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_file_and_file_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("12.jpg"), b"x").unwrap();
        std::fs::write(dir.path().join("card-3.png"), b"x").unwrap();
        let images = read_labels(dir.path()).unwrap();
        assert_eq!(images.iter().map(|i| i.cards[0]).collect::<Vec<_>>(), vec![12, 3]);
        std::fs::write(
            dir.path().join("labels.json"),
            r#"{"format":"symbol-card-labels/1","images":[{"file":"12.jpg","cards":[5]}]}"#,
        )
        .unwrap();
        assert_eq!(read_labels(dir.path()).unwrap()[0].cards, vec![5]);
        std::fs::write(dir.path().join("labels.json"), "{").unwrap();
        assert!(read_labels(dir.path()).is_err());
    }
}
