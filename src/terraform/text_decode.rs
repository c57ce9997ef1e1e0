//! Turns raw bytes of a Terraform output file into text: UTF-8 (with or without BOM)
//! or UTF-16 with BOM (PowerShell's `>` redirection writes UTF-16LE).

use std::borrow::Cow;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextDecodeError {
    #[error("file is neither UTF-8 nor UTF-16 with a byte-order mark")]
    NotUnicode,
}

/// Decodes bytes; borrows when the input is already UTF-8.
pub fn decode_text(bytes: &[u8]) -> Result<Cow<'_, str>, TextDecodeError> {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return std::str::from_utf8(rest)
            .map(Cow::Borrowed)
            .map_err(|_| TextDecodeError::NotUnicode);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return decode_utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return decode_utf16(rest, u16::from_be_bytes);
    }
    std::str::from_utf8(bytes)
        .map(Cow::Borrowed)
        .map_err(|_| TextDecodeError::NotUnicode)
}

/// Strips a leading U+FEFF from already-decoded text.
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn decode_utf16(
    bytes: &[u8],
    unit: fn([u8; 2]) -> u16,
) -> Result<Cow<'static, str>, TextDecodeError> {
    if bytes.len() % 2 != 0 {
        return Err(TextDecodeError::NotUnicode);
    }
    let units = bytes.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map(Cow::Owned)
        .map_err(|_| TextDecodeError::NotUnicode)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le_with_bom(text: &str) -> Vec<u8> {
        let mut out = vec![0xFF, 0xFE];
        out.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
        out
    }

    #[test]
    fn decodes_the_encodings_seen_in_the_wild() {
        assert_eq!(decode_text(b"{\"a\":1}").unwrap(), "{\"a\":1}");
        assert!(matches!(decode_text(b"{}").unwrap(), Cow::Borrowed(_)));
        assert_eq!(decode_text(b"\xEF\xBB\xBF{}").unwrap(), "{}");
        assert_eq!(
            decode_text(&utf16le_with_bom("{\"é\":1}")).unwrap(),
            "{\"é\":1}"
        );
        let mut be = vec![0xFE, 0xFF];
        be.extend("{}".encode_utf16().flat_map(|u| u.to_be_bytes()));
        assert_eq!(decode_text(&be).unwrap(), "{}");
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(decode_text(b"\xC3\x28"), Err(TextDecodeError::NotUnicode));
        assert_eq!(decode_text(b"\xFF\xFE{"), Err(TextDecodeError::NotUnicode));
    }

    #[test]
    fn strips_a_decoded_bom() {
        assert_eq!(strip_bom("\u{feff}{}"), "{}");
        assert_eq!(strip_bom("{}"), "{}");
    }
}
