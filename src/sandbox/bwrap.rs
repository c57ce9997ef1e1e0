//! The bubblewrap command line for a [`SandboxSpec`] (pure).
//!
//! What the sandboxed process sees:
//! - read-only: `/usr`, `/lib`, `/lib64`, `/bin`, `/sbin` (on merged-usr Debian these are
//!   symlinks into `/usr`; bwrap binds their targets), the CA store (`/etc/ssl/certs`,
//!   `/etc/ca-certificates`), and with a shared network only: `/etc/resolv.conf`,
//!   `/etc/hosts`, `/etc/nsswitch.conf` (glibc's resolver order for the Rust/C providers;
//!   none of these hold secrets);
//! - read-only at their own paths: the Terraform binary, the plugin cache, extra binds;
//! - read-write: the workdir and the spec's `rw_binds` (tfgate's own directories, such as
//!   the saved plan's); fresh tmpfs on `/tmp` and on [`SANDBOX_HOME`];
//! - a fresh `/proc` of its own pid namespace and a minimal `/dev`.
//!
//! Nothing else of the host: not `/root`, `/home`, `/work`, `/var`, the rest of `/etc`,
//! `/sys`, nor the host's `/proc`. All capabilities are dropped.
//!
//! The environment is NOT on this command line (any local user can read a process's
//! `/proc/PID/cmdline`, and it holds STS keys and `TF_VAR_` values): bwrap is started with
//! exactly [`sandbox_environment`] as its own environment (`env_clear` first) and passes it
//! on to the program.
//!
//! Mount order matters (later mounts cover earlier ones): the tmpfs mounts come before the
//! tool binds and the workdir, so a workdir or tool under `/tmp` stays visible.

use std::ffi::OsString;
use std::path::Path;

use super::spec::{Network, SandboxSpec, SANDBOX_HOME};
use crate::egress::proxy::SOCKET_NAME;
use crate::egress::relay::{proxy_port, RelayPlan, SANDBOX_SOCKET_DIR};

/// System directories bound read-only when present on the host.
const SYSTEM_RO_DIRS: &[&str] = &["/usr", "/lib", "/lib64", "/bin", "/sbin"];
/// CA certificates, for TLS to AWS. `/etc/ssl/certs` links into `/usr/share`, which is bound.
const CA_RO_PATHS: &[&str] = &["/etc/ssl/certs", "/etc/ca-certificates"];
/// Name resolution; bound only when the network is shared.
const NETWORK_RO_PATHS: &[&str] = &["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf"];

/// The whole environment of the sandboxed program, given to bwrap as its process environment
/// (never as arguments): the spec's map with `HOME` = [`SANDBOX_HOME`].
pub fn sandbox_environment(spec: &SandboxSpec) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = spec
        .env
        .iter()
        .filter(|(key, _)| key.as_str() != "HOME")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    env.push(("HOME".to_string(), SANDBOX_HOME.to_string()));
    env
}

/// Arguments for `bwrap` (without `bwrap` itself) that run `program args…` inside the
/// sandbox described by `spec`. No environment value is among them.
pub fn bwrap_argv(spec: &SandboxSpec, program: &Path, args: &[String]) -> Vec<OsString> {
    let mut argv = ArgvBuilder::default();
    argv.flags(&[
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]);
    if spec.network != Network::Shared {
        argv.flags(&["--unshare-net"]);
    }
    argv.flags(&["--die-with-parent", "--new-session", "--cap-drop", "ALL"]);

    for dir in SYSTEM_RO_DIRS.iter().chain(CA_RO_PATHS) {
        argv.same_path("--ro-bind-try", dir);
    }
    if spec.network == Network::Shared {
        for path in NETWORK_RO_PATHS {
            argv.same_path("--ro-bind-try", path);
        }
    }
    argv.one("--proc", "/proc");
    argv.one("--dev", "/dev");
    for dir in ["/tmp", SANDBOX_HOME] {
        if let Some(size) = spec.limits.tmpfs_bytes {
            argv.one("--size", size.to_string());
        }
        argv.one("--tmpfs", dir);
    }

    argv.same_path("--ro-bind", &spec.terraform_bin);
    if let Some(cache) = &spec.plugin_cache {
        argv.same_path("--ro-bind", cache);
    }
    for path in &spec.extra_ro_binds {
        argv.same_path("--ro-bind", path);
    }
    if let Network::Egress(mount) = &spec.network {
        argv.push("--ro-bind");
        argv.push(&mount.socket_dir);
        argv.push(SANDBOX_SOCKET_DIR);
        argv.same_path("--ro-bind", &mount.relay_bin);
    }
    for path in &spec.rw_binds {
        argv.same_path("--bind", path);
    }
    argv.same_path("--bind", &spec.workdir);
    argv.one("--chdir", &spec.workdir);

    argv.flags(&["--"]);
    match &spec.network {
        Network::Egress(mount) => {
            let relay = RelayPlan {
                socket: Path::new(SANDBOX_SOCKET_DIR).join(SOCKET_NAME),
                proxy_port: proxy_port(&mount.forwards),
                forwards: mount.forwards.clone(),
                program: program.to_path_buf(),
                args: args.to_vec(),
            };
            argv.push(&mount.relay_bin);
            for arg in relay.to_args() {
                argv.push(arg);
            }
        }
        _ => {
            argv.push(program);
            for arg in args {
                argv.push(arg);
            }
        }
    }
    argv.0
}

#[derive(Default)]
struct ArgvBuilder(Vec<OsString>);

impl ArgvBuilder {
    fn push(&mut self, arg: impl AsRef<std::ffi::OsStr>) {
        self.0.push(arg.as_ref().to_os_string());
    }
    fn flags(&mut self, flags: &[&str]) {
        for flag in flags {
            self.push(flag);
        }
    }
    fn one(&mut self, flag: &str, value: impl AsRef<std::ffi::OsStr>) {
        self.push(flag);
        self.push(value);
    }
    fn same_path(&mut self, flag: &str, path: impl AsRef<std::ffi::OsStr>) {
        self.push(flag);
        self.push(&path);
        self.push(&path);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;
    use crate::sandbox::spec::Limits;

    fn spec(network: Network) -> SandboxSpec {
        SandboxSpec {
            workdir: PathBuf::from("/var/lib/tfgate/runs/42"),
            terraform_bin: PathBuf::from("/opt/tfgate/bin/terraform"),
            plugin_cache: Some(PathBuf::from("/var/cache/tfgate/plugins")),
            extra_ro_binds: vec![PathBuf::from("/opt/tfgate/mirror")],
            rw_binds: vec![PathBuf::from("/var/lib/tfgate/work/runtime/plan-1")],
            env: BTreeMap::from([
                ("CHECKPOINT_DISABLE".to_string(), "1".to_string()),
                ("HOME".to_string(), "/root".to_string()),
                ("TF_IN_AUTOMATION".to_string(), "1".to_string()),
            ]),
            network,
            limits: Limits::default(),
            timeout: Duration::from_secs(600),
            output_cap_bytes: 1 << 20,
        }
    }

    fn argv(network: Network) -> Vec<String> {
        let program = Path::new("/opt/tfgate/bin/terraform");
        let args = ["plan".to_string(), "-json".to_string()];
        bwrap_argv(&spec(network), program, &args)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    /// `(flag, values)` groups, in order, for the options that take values.
    fn groups(argv: &[String]) -> Vec<(String, Vec<String>)> {
        let arity = |flag: &str| match flag {
            "--ro-bind" | "--ro-bind-try" | "--bind" => 2,
            "--proc" | "--dev" | "--tmpfs" | "--chdir" | "--cap-drop" | "--size" => 1,
            _ => 0,
        };
        let mut out = Vec::new();
        let mut i = 0;
        while i < argv.len() && argv[i] != "--" {
            let n = arity(&argv[i]);
            out.push((argv[i].clone(), argv[i + 1..i + 1 + n].to_vec()));
            i += 1 + n;
        }
        out
    }

    fn has(argv: &[String], flag: &str, values: &[&str]) -> bool {
        groups(argv)
            .iter()
            .any(|(f, v)| f == flag && v.iter().map(String::as_str).eq(values.iter().copied()))
    }

    fn position(argv: &[String], flag: &str, values: &[&str]) -> usize {
        groups(argv)
            .iter()
            .position(|(f, v)| f == flag && v.iter().map(String::as_str).eq(values.iter().copied()))
            .unwrap_or_else(|| panic!("{flag} {values:?} missing"))
    }

    #[test]
    fn expected_options_per_network() {
        // (network, flag, values, expected present)
        let table: &[(Network, &str, &[&str], bool)] = &[
            (Network::None, "--unshare-user", &[], true),
            (Network::None, "--unshare-pid", &[], true),
            (Network::None, "--unshare-ipc", &[], true),
            (Network::None, "--unshare-uts", &[], true),
            (Network::None, "--unshare-cgroup-try", &[], true),
            (Network::None, "--unshare-net", &[], true),
            (Network::Shared, "--unshare-net", &[], false),
            (Network::Shared, "--unshare-pid", &[], true),
            (Network::None, "--die-with-parent", &[], true),
            (Network::None, "--new-session", &[], true),
            (Network::None, "--cap-drop", &["ALL"], true),
            (Network::None, "--ro-bind-try", &["/usr", "/usr"], true),
            (Network::None, "--ro-bind-try", &["/lib", "/lib"], true),
            (Network::None, "--ro-bind-try", &["/lib64", "/lib64"], true),
            (Network::None, "--ro-bind-try", &["/bin", "/bin"], true),
            (
                Network::None,
                "--ro-bind-try",
                &["/etc/ssl/certs", "/etc/ssl/certs"],
                true,
            ),
            (
                Network::None,
                "--ro-bind-try",
                &["/etc/ca-certificates", "/etc/ca-certificates"],
                true,
            ),
            (
                Network::None,
                "--ro-bind-try",
                &["/etc/resolv.conf", "/etc/resolv.conf"],
                false,
            ),
            (
                Network::None,
                "--ro-bind-try",
                &["/etc/hosts", "/etc/hosts"],
                false,
            ),
            (
                Network::None,
                "--ro-bind-try",
                &["/etc/nsswitch.conf", "/etc/nsswitch.conf"],
                false,
            ),
            (
                Network::Shared,
                "--ro-bind-try",
                &["/etc/resolv.conf", "/etc/resolv.conf"],
                true,
            ),
            (
                Network::Shared,
                "--ro-bind-try",
                &["/etc/hosts", "/etc/hosts"],
                true,
            ),
            (
                Network::Shared,
                "--ro-bind-try",
                &["/etc/nsswitch.conf", "/etc/nsswitch.conf"],
                true,
            ),
            (
                Network::None,
                "--ro-bind",
                &["/opt/tfgate/bin/terraform", "/opt/tfgate/bin/terraform"],
                true,
            ),
            (
                Network::None,
                "--ro-bind",
                &["/var/cache/tfgate/plugins", "/var/cache/tfgate/plugins"],
                true,
            ),
            (
                Network::None,
                "--ro-bind",
                &["/opt/tfgate/mirror", "/opt/tfgate/mirror"],
                true,
            ),
            (
                Network::None,
                "--bind",
                &[
                    "/var/lib/tfgate/work/runtime/plan-1",
                    "/var/lib/tfgate/work/runtime/plan-1",
                ],
                true,
            ),
            (
                Network::None,
                "--bind",
                &["/var/lib/tfgate/runs/42", "/var/lib/tfgate/runs/42"],
                true,
            ),
            (Network::None, "--tmpfs", &["/tmp"], true),
            (Network::None, "--tmpfs", &["/home/tfgate"], true),
            (Network::None, "--proc", &["/proc"], true),
            (Network::None, "--dev", &["/dev"], true),
            (Network::None, "--chdir", &["/var/lib/tfgate/runs/42"], true),
        ];
        for (network, flag, values, expected) in table {
            let argv = argv(network.clone());
            assert_eq!(
                has(&argv, flag, values),
                *expected,
                "{network:?}: {flag} {values:?} present should be {expected}"
            );
        }
    }

    #[test]
    fn nothing_else_of_the_host_is_bound() {
        for network in [Network::None, Network::Shared] {
            let argv = argv(network.clone());
            let mut bound: Vec<String> = groups(&argv)
                .into_iter()
                .filter(|(f, _)| matches!(f.as_str(), "--ro-bind" | "--ro-bind-try" | "--bind"))
                .map(|(_, v)| {
                    assert_eq!(v[0], v[1], "binds keep their path");
                    v[0].clone()
                })
                .collect();
            bound.sort();
            let mut allowed = vec![
                "/bin",
                "/etc/ca-certificates",
                "/etc/ssl/certs",
                "/lib",
                "/lib64",
                "/opt/tfgate/bin/terraform",
                "/opt/tfgate/mirror",
                "/sbin",
                "/usr",
                "/var/cache/tfgate/plugins",
                "/var/lib/tfgate/runs/42",
                "/var/lib/tfgate/work/runtime/plan-1",
            ];
            if network == Network::Shared {
                allowed.extend(["/etc/hosts", "/etc/nsswitch.conf", "/etc/resolv.conf"]);
            }
            allowed.sort();
            assert_eq!(bound, allowed, "{network:?}");
            for forbidden in ["/", "/root", "/work", "/home", "/etc", "/var", "/sys"] {
                assert!(!bound.iter().any(|b| b == forbidden), "{forbidden} bound");
            }
        }
    }

    #[test]
    fn tmpfs_and_system_binds_precede_tool_and_workdir_binds() {
        let argv = argv(Network::None);
        let tmp = position(&argv, "--tmpfs", &["/tmp"]);
        let home = position(&argv, "--tmpfs", &["/home/tfgate"]);
        let usr = position(&argv, "--ro-bind-try", &["/usr", "/usr"]);
        let tf = position(
            &argv,
            "--ro-bind",
            &["/opt/tfgate/bin/terraform", "/opt/tfgate/bin/terraform"],
        );
        let work = position(
            &argv,
            "--bind",
            &["/var/lib/tfgate/runs/42", "/var/lib/tfgate/runs/42"],
        );
        assert!(usr < tmp && tmp < home && home < tf && tf < work);
    }

    #[test]
    fn no_environment_value_is_on_the_command_line() {
        let argv = argv(Network::None);
        for flag in ["--setenv", "--clearenv", "--unsetenv"] {
            assert!(
                !argv.iter().any(|a| a == flag),
                "{flag} on the command line"
            );
        }
        for value in ["CHECKPOINT_DISABLE", "TF_IN_AUTOMATION", "/root"] {
            assert!(
                !argv.iter().any(|a| a.contains(value)),
                "{value} on the command line"
            );
        }
        let sep = argv.iter().position(|a| a == "--").unwrap();
        assert_eq!(
            argv[sep + 1..],
            ["/opt/tfgate/bin/terraform", "plan", "-json"]
        );
    }

    #[test]
    fn environment_is_the_spec_map_with_the_sandbox_home() {
        let env = sandbox_environment(&spec(Network::None));
        assert_eq!(
            env,
            [
                ("CHECKPOINT_DISABLE".to_string(), "1".to_string()),
                ("TF_IN_AUTOMATION".to_string(), "1".to_string()),
                ("HOME".to_string(), "/home/tfgate".to_string()),
            ]
        );
    }

    #[test]
    fn each_tmpfs_is_sized() {
        let argv = argv(Network::None);
        let size = Limits::default().tmpfs_bytes.unwrap().to_string();
        for dir in ["/tmp", "/home/tfgate"] {
            let at = position(&argv, "--tmpfs", &[dir]);
            assert_eq!(
                groups(&argv)[at - 1],
                ("--size".to_string(), vec![size.clone()])
            );
        }
        let mut no_size = spec(Network::None);
        no_size.limits.tmpfs_bytes = None;
        let argv = bwrap_argv(&no_size, Path::new("/bin/true"), &[]);
        assert!(!argv.iter().any(|a| a == "--size"));
    }

    #[test]
    fn optional_binds_are_omitted_when_unset() {
        let mut s = spec(Network::None);
        s.plugin_cache = None;
        s.extra_ro_binds.clear();
        s.rw_binds.clear();
        let argv: Vec<String> = bwrap_argv(&s, Path::new("/bin/true"), &[])
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        let ro_binds: Vec<_> = groups(&argv)
            .into_iter()
            .filter(|(f, _)| f == "--ro-bind")
            .collect();
        assert_eq!(ro_binds.len(), 1, "only terraform: {ro_binds:?}");
        let rw_binds = groups(&argv).into_iter().filter(|(f, _)| f == "--bind");
        assert_eq!(rw_binds.count(), 1, "only the workdir");
        assert_eq!(argv.last().unwrap(), "/bin/true");
    }

    #[test]
    fn argument_values_are_passed_verbatim() {
        let args = ["-var".to_string(), "x=$(id) --bind / /".to_string()];
        let argv = bwrap_argv(&spec(Network::None), Path::new("/bin/echo"), &args);
        let sep = argv.iter().position(|a| a == "--").unwrap();
        assert_eq!(
            argv[sep + 2..],
            [OsString::from("-var"), OsString::from("x=$(id) --bind / /")]
        );
    }
}
