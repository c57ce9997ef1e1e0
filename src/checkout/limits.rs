//! Size and count limits applied while extracting a tarball.

/// Limits enforced while a tarball is extracted; exceeding any of them rejects the checkout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    /// Most bytes of file content written in total (regular files and hard-link copies).
    pub max_total_bytes: u64,
    /// Most archive members accepted: regular files, directories and links all count.
    pub max_files: usize,
    /// Most bytes in any single file.
    pub max_file_bytes: u64,
}

impl Default for ExtractLimits {
    /// 512 MiB in total, 50,000 members, 100 MiB per file: generous for a Terraform repository.
    fn default() -> Self {
        ExtractLimits {
            max_total_bytes: 512 * 1024 * 1024,
            max_files: 50_000,
            max_file_bytes: 100 * 1024 * 1024,
        }
    }
}

/// Bytes of tar headers, long names and padding allowed per member on top of file content.
const OVERHEAD_PER_MEMBER: u64 = 16 * 1024;

impl ExtractLimits {
    /// Most bytes read from the decompressed stream: content plus per-member overhead.
    /// Bounds gzip bombs and oversized header records that are not file content.
    pub fn max_stream_bytes(&self) -> u64 {
        let members = u64::try_from(self.max_files).unwrap_or(u64::MAX);
        self.max_total_bytes.saturating_add(
            members
                .saturating_add(4)
                .saturating_mul(OVERHEAD_PER_MEMBER),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_cap_adds_overhead_per_member_to_content() {
        let limits = ExtractLimits {
            max_total_bytes: 1000,
            max_files: 6,
            max_file_bytes: 10,
        };
        assert_eq!(limits.max_stream_bytes(), 1000 + 10 * 16 * 1024);
    }

    #[test]
    fn stream_cap_saturates_instead_of_overflowing() {
        let limits = ExtractLimits {
            max_total_bytes: u64::MAX - 1,
            max_files: usize::MAX,
            max_file_bytes: 10,
        };
        assert_eq!(limits.max_stream_bytes(), u64::MAX);
    }
}
