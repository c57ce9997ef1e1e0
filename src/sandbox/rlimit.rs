//! Applying [`Limits`] in the child between fork and exec (effects).

use std::io;

use super::spec::Limits;

/// The `(resource, value)` pairs to set for `limits` (pure).
pub(crate) fn rlimit_pairs(limits: &Limits) -> Vec<(libc::__rlimit_resource_t, u64)> {
    [
        (libc::RLIMIT_AS, limits.address_space_bytes),
        (libc::RLIMIT_CPU, limits.cpu_seconds),
        (libc::RLIMIT_FSIZE, limits.file_size_bytes),
        (libc::RLIMIT_NPROC, limits.max_processes),
    ]
    .into_iter()
    .filter_map(|(resource, value)| value.map(|v| (resource, v)))
    .collect()
}

/// Sets soft = hard = min(value, inherited hard limit) for each pair: limits are only ever
/// lowered, so this works without CAP_SYS_RESOURCE. Runs in the forked child before exec:
/// only async-signal-safe calls (getrlimit/setrlimit) here, and no allocation.
pub(crate) fn apply_rlimits(pairs: &[(libc::__rlimit_resource_t, u64)]) -> io::Result<()> {
    for &(resource, value) in pairs {
        let mut current = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain syscalls with valid pointers to stack values.
        if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let value = lowered(value as libc::rlim_t, current.rlim_max);
        let limit = libc::rlimit {
            rlim_cur: value,
            rlim_max: value,
        };
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The wanted limit, but never above the inherited hard limit (RLIM_INFINITY is the largest).
fn lowered(wanted: libc::rlim_t, hard: libc::rlim_t) -> libc::rlim_t {
    wanted.min(hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_only_lowered() {
        let table: &[(libc::rlim_t, libc::rlim_t, libc::rlim_t)] = &[
            (100, 200, 100),
            (300, 200, 200),
            (100, libc::RLIM_INFINITY, 100),
            (libc::RLIM_INFINITY, 5, 5),
        ];
        for &(wanted, hard, expected) in table {
            assert_eq!(lowered(wanted, hard), expected, "{wanted} {hard}");
        }
    }

    #[test]
    fn pairs_skip_unset_limits() {
        let limits = Limits {
            address_space_bytes: Some(1 << 30),
            cpu_seconds: None,
            file_size_bytes: Some(4096),
            max_processes: None,
            ..Limits::default()
        };
        assert_eq!(
            rlimit_pairs(&limits),
            vec![(libc::RLIMIT_AS, 1 << 30), (libc::RLIMIT_FSIZE, 4096)]
        );
    }

    #[test]
    fn all_limits_map_to_their_resource() {
        let limits = Limits {
            address_space_bytes: Some(1),
            cpu_seconds: Some(2),
            file_size_bytes: Some(3),
            max_processes: Some(4),
            ..Limits::default()
        };
        assert_eq!(
            rlimit_pairs(&limits),
            vec![
                (libc::RLIMIT_AS, 1),
                (libc::RLIMIT_CPU, 2),
                (libc::RLIMIT_FSIZE, 3),
                (libc::RLIMIT_NPROC, 4),
            ]
        );
    }
}
