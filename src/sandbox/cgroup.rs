//! Per-run cgroup limits (pure part): which controller files get which values, where the
//! server's own cgroups are, and the event counters that say a limit was hit.
//!
//! cgroup v2 (one unified hierarchy) is used when the host delegates the server's cgroup with
//! the `memory`, `pids` and `cpu` controllers; else the cgroup v1 controller hierarchies
//! (`/sys/fs/cgroup/{memory,pids,cpu}`), each when the server may create a child under its own
//! cgroup there; see `cgroup_host.rs`.

use std::collections::BTreeMap;

use super::spec::Limits;

/// A cgroup v1 controller tfgate sets limits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Controller {
    Memory,
    Pids,
    Cpu,
}

impl Controller {
    pub const ALL: [Controller; 3] = [Controller::Memory, Controller::Pids, Controller::Cpu];

    /// The controller's name in `/proc/self/cgroup` and under `/sys/fs/cgroup`.
    pub fn name(self) -> &'static str {
        match self {
            Controller::Memory => "memory",
            Controller::Pids => "pids",
            Controller::Cpu => "cpu",
        }
    }
}

/// The CFS period the CPU quota is expressed in (100 ms, the kernel's default).
pub const CPU_PERIOD_US: u64 = 100_000;

/// The files to write in a run's cgroups, in order, for `limits` (`(controller, file,
/// value)`); a limit that is `None` writes nothing.
pub fn v1_settings(limits: &Limits) -> Vec<(Controller, &'static str, String)> {
    let mut out = Vec::new();
    if let Some(bytes) = limits.memory_bytes {
        out.push((
            Controller::Memory,
            "memory.limit_in_bytes",
            bytes.to_string(),
        ));
    }
    if let Some(pids) = limits.max_pids {
        out.push((Controller::Pids, "pids.max", pids.to_string()));
    }
    if let Some(millis) = limits.cpu_millis {
        // At least 1 ms per period: the kernel refuses a smaller quota.
        let quota = (millis.saturating_mul(CPU_PERIOD_US) / 1000).max(1000);
        out.push((
            Controller::Cpu,
            "cpu.cfs_period_us",
            CPU_PERIOD_US.to_string(),
        ));
        out.push((Controller::Cpu, "cpu.cfs_quota_us", quota.to_string()));
    }
    out
}

/// The files to write in a run's cgroup v2 directory, in order; a limit that is `None` writes
/// nothing. Swap is denied where memory is limited (else the limit only moves pages to swap).
pub fn v2_settings(limits: &Limits) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(bytes) = limits.memory_bytes {
        out.push(("memory.max", bytes.to_string()));
        out.push(("memory.swap.max", "0".to_string()));
    }
    if let Some(pids) = limits.max_pids {
        out.push(("pids.max", pids.to_string()));
    }
    if let Some(millis) = limits.cpu_millis {
        let quota = (millis.saturating_mul(CPU_PERIOD_US) / 1000).max(1000);
        out.push(("cpu.max", format!("{quota} {CPU_PERIOD_US}")));
    }
    out
}

/// The server's cgroup v2 path, from the `0::/path` line of `/proc/self/cgroup`.
pub fn own_v2_path(proc_self_cgroup: &str) -> Option<String> {
    proc_self_cgroup
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .map(|p| p.trim().to_string())
}

/// Which of `wanted` a cgroup v2 `cgroup.controllers` file does not offer.
pub fn v2_missing(controllers_file: &str, wanted: &[Controller]) -> Vec<Controller> {
    let offered: Vec<&str> = controllers_file.split_whitespace().collect();
    wanted
        .iter()
        .copied()
        .filter(|c| !offered.contains(&c.name()))
        .collect()
}

/// The line enabling `controllers` for a cgroup's children (`cgroup.subtree_control`).
pub fn v2_subtree_control(controllers: &[Controller]) -> String {
    controllers
        .iter()
        .map(|c| format!("+{}", c.name()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The controllers `limits` needs.
pub fn wanted(limits: &Limits) -> Vec<Controller> {
    let mut controllers: Vec<Controller> = v1_settings(limits).iter().map(|s| s.0).collect();
    controllers.dedup();
    controllers
}

/// The server's own cgroup path per v1 controller, from `/proc/self/cgroup` (lines
/// `ID:controller[,controller…]:/path`; the v2 line `0::/path` is skipped).
pub fn own_v1_paths(proc_self_cgroup: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in proc_self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        for controller in controllers.split(',').filter(|c| !c.is_empty()) {
            out.insert(controller.to_string(), path.to_string());
        }
    }
    out
}

/// The `key value` counter in a flat cgroup file (`pids.events`: `max 3`;
/// `memory.oom_control`: `oom_kill 1`); 0 when absent or unreadable.
pub fn counter(text: &str, key: &str) -> u64 {
    text.lines()
        .filter_map(|line| line.split_once(' '))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The start-up lines saying which per-run limits are in force: an info line, and a warning
/// when a limit has only a weaker fallback (`available`: the usable controllers).
pub fn in_force_summary(
    available: &[Controller],
    v2: bool,
    is_root: bool,
) -> (String, Option<String>) {
    let names: Vec<&str> = available.iter().map(|c| c.name()).collect();
    let info = if v2 {
        format!(
            "per-run limits: cgroup v2 {} plus rlimits (address space, CPU seconds, file size)",
            names.join(", ")
        )
    } else if names.is_empty() {
        "per-run limits: rlimits only (address space, CPU seconds, file size, processes); \
         no cgroup controller can be used"
            .to_string()
    } else {
        format!(
            "per-run limits: cgroup v1 {} plus rlimits (address space, CPU seconds, file size)",
            names.join(", ")
        )
    };
    let missing: Vec<&str> = Controller::ALL
        .iter()
        .filter(|c| !available.contains(c))
        .map(|c| c.name())
        .collect();
    let mut warnings = Vec::new();
    if !missing.is_empty() {
        warnings.push(format!(
            "no usable cgroup for {}: only rlimits bound these per run",
            missing.join(", ")
        ));
    }
    if is_root && !available.contains(&Controller::Pids) {
        warnings.push(
            "running as root without a pids cgroup: RLIMIT_NPROC is not enforced for root, so \
             nothing but the timeout stops a fork bomb; run tfgate as an unprivileged user or \
             give it a writable pids cgroup"
                .to_string(),
        );
    }
    (info, (!warnings.is_empty()).then(|| warnings.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(memory: Option<u64>, pids: Option<u64>, cpu: Option<u64>) -> Limits {
        Limits {
            memory_bytes: memory,
            max_pids: pids,
            cpu_millis: cpu,
            ..Limits::default()
        }
    }

    #[test]
    fn limits_to_cgroup_files() {
        use Controller::*;
        type Files = Vec<(Controller, &'static str, &'static str)>;
        let table: Vec<(Limits, Files)> = vec![
            (limits(None, None, None), vec![]),
            (
                limits(Some(1 << 30), None, None),
                vec![(Memory, "memory.limit_in_bytes", "1073741824")],
            ),
            (
                limits(None, Some(256), None),
                vec![(Pids, "pids.max", "256")],
            ),
            (
                limits(None, None, Some(1500)),
                vec![
                    (Cpu, "cpu.cfs_period_us", "100000"),
                    (Cpu, "cpu.cfs_quota_us", "150000"),
                ],
            ),
            (
                limits(None, None, Some(1)),
                vec![
                    (Cpu, "cpu.cfs_period_us", "100000"),
                    (Cpu, "cpu.cfs_quota_us", "1000"),
                ],
            ),
            (
                limits(Some(4096), Some(10), Some(2000)),
                vec![
                    (Memory, "memory.limit_in_bytes", "4096"),
                    (Pids, "pids.max", "10"),
                    (Cpu, "cpu.cfs_period_us", "100000"),
                    (Cpu, "cpu.cfs_quota_us", "200000"),
                ],
            ),
        ];
        for (limits, expected) in table {
            let got = v1_settings(&limits);
            let got: Vec<(Controller, &str, &str)> =
                got.iter().map(|(c, f, v)| (*c, *f, v.as_str())).collect();
            assert_eq!(got, expected, "{limits:?}");
        }
    }

    #[test]
    fn wanted_controllers_follow_the_set_limits() {
        use Controller::*;
        assert_eq!(wanted(&limits(None, None, None)), vec![]);
        assert_eq!(wanted(&limits(None, Some(1), Some(1))), vec![Pids, Cpu]);
        assert_eq!(
            wanted(&limits(Some(1), Some(1), Some(1))),
            vec![Memory, Pids, Cpu]
        );
    }

    #[test]
    fn own_paths_from_proc_self_cgroup() {
        let text = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n\
                    2:cpu,cpuacct:/svc\n0::/\nbroken line\n";
        let paths = own_v1_paths(text);
        assert_eq!(
            paths.get("memory").map(String::as_str),
            Some("/process_api/abc")
        );
        assert_eq!(paths.get("pids").map(String::as_str), Some("/"));
        assert_eq!(paths.get("cpu").map(String::as_str), Some("/svc"));
        assert_eq!(paths.get("cpuacct").map(String::as_str), Some("/svc"));
        assert_eq!(paths.get("name=systemd").map(String::as_str), Some("/"));
        assert!(!paths.contains_key(""), "the v2 line has no controller");
    }

    #[test]
    fn in_force_summary_table() {
        use Controller::*;
        // (available, root, info contains, warning contains)
        let table: &[(&[Controller], bool, &str, Option<&str>)] = &[
            (
                &[Memory, Pids, Cpu],
                true,
                "cgroup v1 memory, pids, cpu",
                None,
            ),
            (
                &[Memory, Pids, Cpu],
                false,
                "cgroup v1 memory, pids, cpu",
                None,
            ),
            (
                &[Pids],
                true,
                "cgroup v1 pids",
                Some("no usable cgroup for memory, cpu"),
            ),
            (&[], false, "rlimits only", Some("memory, pids, cpu")),
            (
                &[],
                true,
                "rlimits only",
                Some("RLIMIT_NPROC is not enforced for root"),
            ),
            (&[Memory], true, "memory", Some("fork bomb")),
        ];
        for (available, root, info, warning) in table {
            let (got_info, got_warning) = in_force_summary(available, false, *root);
            assert!(got_info.contains(info), "{available:?}: {got_info}");
            match warning {
                None => assert_eq!(got_warning, None, "{available:?}"),
                Some(w) => assert!(
                    got_warning.as_deref().is_some_and(|g| g.contains(w)),
                    "{available:?} {root}: {got_warning:?}"
                ),
            }
        }
        let (_, as_user) = in_force_summary(&[], false, false);
        let (v2, none) = in_force_summary(&Controller::ALL, true, true);
        assert!(v2.contains("cgroup v2 memory, pids, cpu"), "{v2}");
        assert_eq!(none, None);
        assert!(!as_user.unwrap().contains("fork bomb"));
    }

    #[test]
    fn v2_files_and_paths() {
        let got = v2_settings(&limits(Some(1 << 30), Some(256), Some(1500)));
        let got: Vec<(&str, &str)> = got.iter().map(|(f, v)| (*f, v.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("memory.max", "1073741824"),
                ("memory.swap.max", "0"),
                ("pids.max", "256"),
                ("cpu.max", "150000 100000"),
            ]
        );
        assert!(v2_settings(&limits(None, None, None)).is_empty());
        assert_eq!(
            v2_settings(&limits(None, None, Some(1)))[0].1,
            "1000 100000"
        );
        assert_eq!(
            own_v2_path("12:pids:/x\n0::/system.slice/tfgate.service\n").as_deref(),
            Some("/system.slice/tfgate.service")
        );
        assert_eq!(own_v2_path("4:memory:/x\n"), None);
        use Controller::*;
        assert_eq!(
            v2_missing("cpuset cpu io memory pids\n", &[Memory, Pids, Cpu]),
            vec![]
        );
        assert_eq!(v2_missing("hugetlb\n", &[Memory, Cpu]), vec![Memory, Cpu]);
        assert_eq!(
            v2_subtree_control(&[Memory, Pids, Cpu]),
            "+memory +pids +cpu"
        );
    }

    #[test]
    fn counters_from_flat_files() {
        let table: &[(&str, &str, u64)] = &[
            ("max 3\n", "max", 3),
            ("max 0\n", "max", 0),
            (
                "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
                "oom_kill",
                2,
            ),
            ("oom_kill_disable 1\n", "oom_kill", 0),
            ("", "max", 0),
            ("max x\n", "max", 0),
        ];
        for (text, key, expected) in table {
            assert_eq!(counter(text, key), *expected, "{text:?} {key}");
        }
    }
}
