//! Checking a photo before and after OpenCV decodes it, so that a bad file is refused with one
//! line naming it: a PNG or JPEG is walked chunk by chunk (marker by marker) first, which gives
//! its size without decoding it and finds a file cut short (libpng and libjpeg would print their
//! own warning, and a JPEG cut in half would be decoded grey below the cut, without a word);
//! the size is limited before decoding (a header may claim 100,000 × 100,000 pixels) and checked
//! again after (a picture 1 px high has nothing to find and breaks resizing).

use std::path::Path;

/// The largest image file read, in bytes.
pub const MAX_IMAGE_BYTES: u64 = 64 << 20;
/// The longest side of an image, in pixels.
pub const MAX_SIDE: u32 = 16_384;
/// The most pixels in an image (a 64-megapixel camera's).
pub const MAX_PIXELS: u64 = 64_000_000;
/// The shortest side of an image, in pixels: a card needs more than this to be seen at all.
pub const MIN_SIDE: u32 = 16;
/// The longest side over the shortest: the pipeline's working scales keep the short side whole.
pub const MAX_ASPECT: u32 = 16;

/// Checks an image file before decoding: its size, and for a PNG or JPEG its structure and
/// dimensions. Other formats are left to the decoder (and to [`check_size`] after it). The error
/// is a reason without the file's name.
pub fn check_file(path: &Path) -> Result<(), String> {
    let bytes = crate::text_input::read_bytes(path, MAX_IMAGE_BYTES, "an image").map_err(|e| e.reason())?;
    if let Some((width, height)) = dimensions(&bytes)? {
        check_size(width, height)?;
    }
    Ok(())
}

/// Refuses an image too small, too large or too narrow to look for cards in.
pub fn check_size(width: u32, height: u32) -> Result<(), String> {
    let (short, long) = (width.min(height), width.max(height));
    if long > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(format!(
            "the image is {width}×{height} pixels: the limit is {MAX_SIDE} a side and {} megapixels",
            MAX_PIXELS / 1_000_000
        ));
    }
    if short < MIN_SIDE {
        return Err(format!("the image is {width}×{height} pixels: too small (at least {MIN_SIDE} a side)"));
    }
    if long / short > MAX_ASPECT {
        return Err(format!(
            "the image is {width}×{height} pixels: too narrow (a side at most {MAX_ASPECT} times the other)"
        ));
    }
    Ok(())
}

/// The width and height of a PNG or JPEG, read from its header, after checking that the file is
/// whole; `None` for another format.
pub fn dimensions(bytes: &[u8]) -> Result<Option<(u32, u32)>, String> {
    if bytes.starts_with(PNG_SIGNATURE) {
        return png_dimensions(bytes).map(Some);
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        return jpeg_dimensions(bytes).map(Some);
    }
    Ok(None)
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

/// Walks the chunks to IEND; the first must be IHDR.
fn png_dimensions(bytes: &[u8]) -> Result<(u32, u32), String> {
    let truncated = || "the PNG file is truncated (it ends before its IEND chunk)".to_string();
    let mut at = PNG_SIGNATURE.len();
    let mut size = None;
    loop {
        let length = be32(bytes, at).ok_or_else(truncated)? as usize;
        let kind = bytes.get(at + 4..at + 8).ok_or_else(truncated)?;
        let end = at.checked_add(12).and_then(|a| a.checked_add(length)).ok_or_else(truncated)?;
        if end > bytes.len() {
            return Err(truncated());
        }
        match kind {
            b"IHDR" if length >= 8 => size = Some((be32(bytes, at + 8).unwrap(), be32(bytes, at + 12).unwrap())),
            b"IEND" => return size.ok_or_else(|| "not a PNG image: no IHDR chunk".to_string()),
            _ if size.is_none() => return Err("not a PNG image: the first chunk is not IHDR".to_string()),
            _ => {}
        }
        at = end;
    }
}

/// Walks the markers to EOI, skipping the entropy-coded data after each SOS; the size is the
/// first frame header's (SOF0..SOF15 but DHT, JPG and DAC).
fn jpeg_dimensions(bytes: &[u8]) -> Result<(u32, u32), String> {
    let truncated = || "the JPEG file is truncated (it ends before its end-of-image marker)".to_string();
    let mut at = 2;
    let mut size = None;
    loop {
        // Markers may be preceded by fill bytes 0xFF.
        if bytes.get(at) != Some(&0xFF) {
            return Err(if at >= bytes.len() { truncated() } else { "a corrupt JPEG file".to_string() });
        }
        while bytes.get(at) == Some(&0xFF) {
            at += 1;
        }
        let marker = *bytes.get(at).ok_or_else(truncated)?;
        at += 1;
        match marker {
            0xD9 => return size.ok_or_else(|| "a JPEG file without a frame header".to_string()),
            0xD0..=0xD7 | 0x01 => continue,
            _ => {}
        }
        let length = be16(bytes, at).ok_or_else(truncated)? as usize;
        if length < 2 || at + length > bytes.len() {
            return Err(truncated());
        }
        if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) && size.is_none() && length >= 7 {
            let height = be16(bytes, at + 3).unwrap();
            let width = be16(bytes, at + 5).unwrap();
            size = Some((u32::from(width), u32::from(height)));
        }
        at += length;
        if marker == 0xDA {
            at = after_entropy_data(bytes, at).ok_or_else(truncated)?;
        }
    }
}

/// The position of the next marker after entropy-coded data (0xFF 0x00 is a stuffed byte and
/// RSTn markers belong to the data), or `None` when the file ends first.
fn after_entropy_data(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at += bytes.get(at..)?.iter().position(|&b| b == 0xFF)?;
        match *bytes.get(at + 1)? {
            0x00 | 0xD0..=0xD7 | 0xFF => at += if bytes[at + 1] == 0xFF { 1 } else { 2 },
            _ => return Some(at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Mat, Scalar, Vector};
    use opencv::imgcodecs;
    use opencv::prelude::*;

    fn encoded(ext: &str, width: i32, height: i32) -> Vec<u8> {
        let image = Mat::new_rows_cols_with_default(height, width, opencv::core::CV_8UC3, Scalar::all(120.0)).unwrap();
        let mut out = Vector::<u8>::new();
        imgcodecs::imencode(ext, &image, &mut out, &Vector::new()).unwrap();
        out.to_vec()
    }

    #[test]
    fn sizes_are_read_from_whole_files() {
        assert_eq!(dimensions(&encoded(".png", 300, 200)), Ok(Some((300, 200))));
        assert_eq!(dimensions(&encoded(".jpg", 300, 200)), Ok(Some((300, 200))));
        assert_eq!(dimensions(b"BM not one of ours"), Ok(None));
    }

    #[test]
    fn truncated_files_are_found() {
        for ext in [".png", ".jpg"] {
            let whole = encoded(ext, 300, 200);
            for cut in [whole.len() - 1, whole.len() / 2, 10] {
                let err = dimensions(&whole[..cut]).unwrap_err();
                assert!(err.contains("truncated"), "{ext} cut at {cut}: {err}");
            }
        }
    }

    #[test]
    fn a_jpeg_with_data_after_its_end_is_whole() {
        let mut bytes = encoded(".jpg", 64, 64);
        bytes.extend_from_slice(b"trailing data a camera appended");
        assert_eq!(dimensions(&bytes), Ok(Some((64, 64))));
    }

    /// Every photo of the shared data reads as whole, and of a size the checks take.
    #[test]
    fn the_shared_photos_pass() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
        let mut stack = vec![root];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
                if path.is_dir() {
                    stack.push(path);
                } else if ["jpg", "jpeg", "png"].contains(&ext.as_str()) {
                    check_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    seen += 1;
                }
            }
        }
        eprintln!("{seen} shared photos checked");
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        assert!(check_size(1500, 1).unwrap_err().contains("too small"));
        assert!(check_size(100_000, 100_000).unwrap_err().contains("the limit"));
        assert!(check_size(1600, 20).unwrap_err().contains("too narrow"));
        assert!(check_size(4032, 3024).is_ok());
        assert!(check_size(16, 16).is_ok());
    }
}
