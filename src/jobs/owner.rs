//! Lease owners: the name a worker claims jobs under, and whether the process behind a name on
//! this host is gone.
//!
//! A name is `HOST-PID-START-wN`: START is the process's start time (clock ticks after boot,
//! `/proc/PID/stat`), so a restarted process that got the same PID (as a container's first
//! process does) is still told apart from the one that died. On SQLite every tfgate process
//! shares one host, so a `serve` or `worker` starting there hands the jobs of dead owners back
//! at once instead of waiting out their lease; on PostgreSQL, where owners may be on other
//! hosts, the lease decides.

/// One worker's lease-owner name.
pub fn owner_name(host: &str, pid: u32, start: u64, worker: usize) -> String {
    format!("{host}-{pid}-{start}-w{worker}")
}

/// The host, PID and start time of an owner name; `None` for any other shape (such as the
/// names of older versions, `HOST-PID-wN`, whose leases simply expire).
pub fn parse_owner(name: &str) -> Option<(&str, u32, u64)> {
    let mut parts = name.rsplitn(4, '-');
    let worker = parts.next()?;
    let start = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    let host = parts.next()?;
    let is_worker = worker
        .strip_prefix('w')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (is_worker && !host.is_empty()).then_some((host, pid, start))
}

/// Whether `owner` names a process on `host` that is no longer running, as `alive(pid, start)`
/// tells. Owners on other hosts, or of another shape, are never called dead.
pub fn is_dead_local_owner(owner: &str, host: &str, alive: impl Fn(u32, u64) -> bool) -> bool {
    match parse_owner(owner) {
        Some((h, pid, start)) => h == host && !alive(pid, start),
        None => false,
    }
}

/// The start time (clock ticks after boot) in a `/proc/PID/stat` line: field 22, counted after
/// the `)` that ends the command name (which may itself hold spaces and parentheses).
pub fn start_time_in_stat(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Whether process `pid` is running and started at `start` (read from `/proc`).
pub fn process_alive(pid: u32, start: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| start_time_in_stat(&stat))
        == Some(start)
}

/// This host's name (`/etc/hostname`), the first part of owner names.
pub fn this_host() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "tfgate".into())
}

/// This process's start time.
pub fn own_start_time() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| start_time_in_stat(&stat))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_other_shapes_are_not_parsed() {
        let name = owner_name("fly-3d8d9e1b-7a", 7, 123_456, 1);
        assert_eq!(name, "fly-3d8d9e1b-7a-7-123456-w1");
        assert_eq!(parse_owner(&name), Some(("fly-3d8d9e1b-7a", 7, 123_456)));
        for other in [
            "vm-30977-w0",
            "test-worker",
            "dies",
            "-7-1-w0",
            "h-7-1-x0",
            "h-7-1-w",
            "h-x-1-w0",
            "h-7-x-w0",
        ] {
            assert_eq!(parse_owner(other), None, "{other}");
        }
    }

    #[test]
    fn only_a_gone_process_on_this_host_is_dead() {
        let alive = |pid: u32, start: u64| (pid, start) == (7, 100);
        let cases = [
            ("vm-7-100-w0", true),    // running: the lease stands
            ("vm-7-99-w0", false),    // same PID, another start: a restarted process
            ("vm-8-100-w1", false),   // gone
            ("other-8-100-w0", true), // another host: not ours to judge
            ("vm-8-w0", true),        // an older name: its lease expires
        ];
        for (owner, kept) in cases {
            assert_eq!(!is_dead_local_owner(owner, "vm", alive), kept, "{owner}");
        }
    }

    #[test]
    fn start_time_is_read_after_the_command_name() {
        let stat = "4242 (tfgate (w) 1) S 1 4242 4242 0 -1 4194560 2305 0 0 0 12 3 0 0 20 0 \
                    9 0 987654 1234567 890";
        assert_eq!(start_time_in_stat(stat), Some(987_654));
        assert_eq!(start_time_in_stat("garbage"), None);
        let own = own_start_time();
        assert!(own > 0);
        assert!(process_alive(std::process::id(), own));
        assert!(!process_alive(std::process::id(), own + 1));
    }
}
