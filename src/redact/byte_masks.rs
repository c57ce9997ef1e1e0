//! Bit masks of byte classes over 64-byte blocks (bit `i` = byte `i`), for the window scan:
//! SSE2 on x86_64 (16 bytes per instruction), a byte loop elsewhere. Both give the same masks
//! (tested).

/// The byte classes of one block. Bytes past the end of the text are in no class.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ClassMasks {
    /// `[A-Za-z0-9/+=_-]`: what long tokens are made of.
    pub token: u64,
    pub digit: u64,
    /// `[A-Z0-9]`: what access key ids are made of.
    pub upper_or_digit: u64,
    pub hex: u64,
    /// `[A-Za-z0-9._%+-]`: the local part of an e-mail address.
    pub email_local: u64,
    /// `[A-Za-z0-9-]`: the first byte of an e-mail domain.
    pub domain: u64,
    pub colon: u64,
    pub at: u64,
    pub dot: u64,
}

/// The masks of `block` (at most 64 bytes).
pub fn class_masks(block: &[u8]) -> ClassMasks {
    debug_assert!(block.len() <= 64);
    if block.len() < 64 {
        // Pad with a byte that is in no class.
        let mut padded = [b' '; 64];
        padded[..block.len()].copy_from_slice(block);
        return class_masks_of(&padded);
    }
    class_masks_of(block.try_into().expect("64 bytes"))
}

#[cfg(target_arch = "x86_64")]
fn class_masks_of(block: &[u8; 64]) -> ClassMasks {
    let mut masks = ClassMasks::default();
    for (lane, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86_64 baseline; `chunk` is 16 readable bytes.
        let lane_masks = unsafe { sse2::lane_masks(chunk) };
        let shift = 16 * lane;
        masks.token |= u64::from(lane_masks[0]) << shift;
        masks.digit |= u64::from(lane_masks[1]) << shift;
        masks.upper_or_digit |= u64::from(lane_masks[2]) << shift;
        masks.hex |= u64::from(lane_masks[3]) << shift;
        masks.email_local |= u64::from(lane_masks[4]) << shift;
        masks.domain |= u64::from(lane_masks[5]) << shift;
        masks.colon |= u64::from(lane_masks[6]) << shift;
        masks.at |= u64::from(lane_masks[7]) << shift;
        masks.dot |= u64::from(lane_masks[8]) << shift;
    }
    masks
}

#[cfg(not(target_arch = "x86_64"))]
fn class_masks_of(block: &[u8; 64]) -> ClassMasks {
    class_masks_bytewise(block)
}

/// The reference: one byte at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn class_masks_bytewise(block: &[u8; 64]) -> ClassMasks {
    let mut m = ClassMasks::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        let alnum = b.is_ascii_alphanumeric();
        let set = |mask: &mut u64, yes: bool| {
            if yes {
                *mask |= bit;
            }
        };
        set(&mut m.token, super::patterns::is_token_byte(b));
        set(&mut m.digit, b.is_ascii_digit());
        set(
            &mut m.upper_or_digit,
            b.is_ascii_uppercase() || b.is_ascii_digit(),
        );
        set(&mut m.hex, b.is_ascii_hexdigit());
        set(&mut m.email_local, alnum || b"._%+-".contains(&b));
        set(&mut m.domain, alnum || b == b'-');
        set(&mut m.colon, b == b':');
        set(&mut m.at, b == b'@');
        set(&mut m.dot, b == b'.');
    }
    m
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };

    /// Bytes in `lo..=hi` (unsigned): shifted so that `lo` becomes -128, then one signed compare.
    #[inline(always)]
    unsafe fn in_range(v: __m128i, lo: u8, hi: u8) -> __m128i {
        let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
        let limit = i8::MIN + (hi - lo) as i8 + 1;
        _mm_cmplt_epi8(shifted, _mm_set1_epi8(limit))
    }

    #[inline(always)]
    unsafe fn eq(v: __m128i, byte: u8) -> __m128i {
        _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))
    }

    #[inline(always)]
    unsafe fn bits(v: __m128i) -> u16 {
        _mm_movemask_epi8(v) as u16
    }

    /// The masks of 16 bytes, in [`super::ClassMasks`]' field order.
    ///
    /// # Safety
    /// `chunk` must hold at least 16 bytes.
    #[inline(always)]
    pub unsafe fn lane_masks(chunk: &[u8]) -> [u16; 9] {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        let digit = in_range(v, b'0', b'9');
        let upper = in_range(v, b'A', b'Z');
        let lower = in_range(v, b'a', b'z');
        let alnum = _mm_or_si128(digit, _mm_or_si128(upper, lower));
        let dash = eq(v, b'-');
        let underscore = eq(v, b'_');
        let plus = eq(v, b'+');
        let dot = eq(v, b'.');
        let token = _mm_or_si128(
            _mm_or_si128(alnum, _mm_or_si128(dash, underscore)),
            _mm_or_si128(plus, _mm_or_si128(eq(v, b'/'), eq(v, b'='))),
        );
        let hex = _mm_or_si128(
            digit,
            _mm_or_si128(in_range(v, b'a', b'f'), in_range(v, b'A', b'F')),
        );
        let email_local = _mm_or_si128(
            _mm_or_si128(alnum, _mm_or_si128(dash, underscore)),
            _mm_or_si128(plus, _mm_or_si128(dot, eq(v, b'%'))),
        );
        let domain = _mm_or_si128(alnum, dash);
        [
            bits(token),
            bits(digit),
            bits(_mm_or_si128(upper, digit)),
            bits(hex),
            bits(email_local),
            bits(domain),
            bits(eq(v, b':')),
            bits(eq(v, b'@')),
            bits(dot),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_value_gets_the_same_masks_as_the_byte_loop() {
        let all: Vec<u8> = (0..=255u8).collect();
        for block in all.chunks(64) {
            let block: &[u8; 64] = block.try_into().unwrap();
            assert_eq!(class_masks(block), class_masks_bytewise(block));
        }
    }

    #[test]
    fn a_short_block_is_padded_with_bytes_in_no_class() {
        let m = class_masks(b"a1:");
        assert_eq!(m.token, 0b011);
        assert_eq!(m.digit, 0b010);
        assert_eq!(m.colon, 0b100);
        assert_eq!(m.hex, 0b011);
    }
}
