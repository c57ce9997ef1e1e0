//! Configuration resolution tests.

use super::*;
use secrecy::ExposeSecret;

#[test]
fn secrets_split_on_commas_and_drop_blanks() {
    let s = split_secrets(" a, ,b ,");
    let v: Vec<&str> = s.iter().map(|x| x.expose_secret()).collect();
    assert_eq!(v, vec!["a", "b"]);
}

fn key_config(app_id: Option<u64>, pem: Option<&str>, path: Option<&str>) -> Config {
    Config::resolve(&ConfigArgs {
        data_dir: Some("/tmp/x".into()),
        app_id,
        private_key: pem.map(str::to_string),
        private_key_path: path.map(PathBuf::from),
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn the_app_key_comes_from_the_environment_or_a_file_never_half_configured() {
    use secrecy::ExposeSecret;
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/github/test-app-key.pem"
    );
    let pem = std::fs::read_to_string(file).unwrap();
    let from_file = app_key(&key_config(Some(7), None, Some(file)))
        .unwrap()
        .unwrap();
    assert_eq!(
        (from_file.0, from_file.1.expose_secret()),
        (7, pem.as_str())
    );
    let from_env = app_key(&key_config(Some(7), Some(&pem), None))
        .unwrap()
        .unwrap();
    assert_eq!(from_env.1.expose_secret(), pem);
    // One line with `\n` escapes, as some secret stores keep a PEM.
    let escaped = pem.trim_end().replace('\n', "\\n");
    let from_one_line = app_key(&key_config(Some(7), Some(&escaped), None))
        .unwrap()
        .unwrap();
    assert_eq!(from_one_line.1.expose_secret(), pem.trim_end());
    assert!(app_key(&key_config(None, None, None)).unwrap().is_none());
    assert!(app_key(&key_config(None, Some("  "), None))
        .unwrap()
        .is_none());
    for (config, says) in [
        (key_config(Some(7), None, None), "no private key"),
        (key_config(None, Some(&pem), None), "TFGATE_APP_ID is not"),
        (key_config(Some(7), Some(&pem), Some(file)), "not both"),
        (
            key_config(Some(7), None, Some("/nonexistent/key.pem")),
            "/nonexistent/key.pem",
        ),
    ] {
        let err = format!("{:#}", app_key(&config).unwrap_err());
        assert!(err.contains(says), "{err}");
        assert!(
            !err.contains("PRIVATE KEY-----"),
            "the key leaked into: {err}"
        );
    }
}

#[test]
fn defaults_use_sqlite_in_data_dir() {
    let c = Config::resolve(&ConfigArgs {
        data_dir: Some("/tmp/x".into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(c.database_url, "sqlite:///tmp/x/tfgate.db?mode=rwc");
    assert!(!c.is_postgres());
    assert_eq!(c.addr.to_string(), DEFAULT_ADDR);
    assert_eq!(c.metrics_addr.to_string(), DEFAULT_METRICS_ADDR);
    assert!(c.metrics_addr.ip().is_loopback());
}

#[test]
fn unknown_keys_in_file_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tfgate.toml");
    std::fs::write(&p, "addr = \"127.0.0.1:1\"\nbogus = 1\n").unwrap();
    let err = Config::resolve(&ConfigArgs {
        config: Some(p),
        ..Default::default()
    })
    .unwrap_err();
    assert!(
        format!("{err:#}").contains("unknown field `bogus`"),
        "{err:#}"
    );
}

#[test]
fn flags_win_over_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tfgate.toml");
    std::fs::write(&p, "workers = 7\napp_slug = \"filebot\"\n").unwrap();
    let c = Config::resolve(&ConfigArgs {
        config: Some(p),
        workers: Some(3),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(c.workers, 3);
    assert_eq!(c.app_slug, "filebot");
}

#[test]
fn the_template_dir_comes_from_a_flag_or_the_file_and_is_checked_at_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tfgate.toml");
    std::fs::write(&p, "template_dir = \"/from/file\"\n").unwrap();
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    let cases = [
        (None, Some("/from/file")),
        (Some(templates.clone()), Some(templates.to_str().unwrap())),
    ];
    for (flag, expected) in cases {
        let c = Config::resolve(&ConfigArgs {
            config: Some(p.clone()),
            template_dir: flag,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(c.template_dir.as_deref(), expected.map(Path::new));
    }
    let mut c = Config::resolve(&ConfigArgs {
        config: Some(p.clone()),
        ..Default::default()
    })
    .unwrap();
    let err = format!("{:#}", crate::state::renderer_for(&c).unwrap_err());
    assert!(
        err.contains("TFGATE_TEMPLATE_DIR") && err.contains("/from/file"),
        "{err}"
    );
    std::fs::write(templates.join("plan.md.j2"), "{% if %}").unwrap();
    c.template_dir = Some(templates.clone());
    let err = format!("{:#}", crate::state::renderer_for(&c).unwrap_err());
    assert!(err.contains("plan.md.j2:1:"), "{err}");
}

#[test]
fn sandbox_limits_from_settings() {
    const MIB: u64 = 1024 * 1024;
    let defaults = crate::sandbox::Limits::default();
    let resolve = |text: &str| {
        let file: ConfigFile = toml::from_str(text).unwrap();
        sandbox_limits(&file)
    };
    let (limits, output) = resolve("").unwrap();
    assert_eq!((limits, output), (defaults, 256 * MIB as usize));
    let (limits, output) = resolve(
        "sandbox_memory_mb = 512\nsandbox_pids = 64\nsandbox_cpus = 1.5\n\
         sandbox_workdir_mb = 100\nsandbox_output_mb = 8\n",
    )
    .unwrap();
    assert_eq!(limits.memory_bytes, Some(512 * MIB));
    assert_eq!(limits.max_pids, Some(64));
    assert_eq!(limits.cpu_millis, Some(1500));
    assert_eq!(limits.workdir_bytes, Some(100 * MIB));
    assert_eq!(output, 8 * MIB as usize);
    assert_eq!(
        limits.file_size_bytes, defaults.file_size_bytes,
        "others kept"
    );
    let (off, _) = resolve(
        "sandbox_memory_mb = 0\nsandbox_pids = 0\nsandbox_cpus = 0\nsandbox_workdir_mb = 0\n",
    )
    .unwrap();
    assert_eq!(
        (
            off.memory_bytes,
            off.max_pids,
            off.cpu_millis,
            off.workdir_bytes
        ),
        (None, None, None, None)
    );
    for bad in [
        "sandbox_cpus = -1",
        "sandbox_cpus = 0.001",
        "sandbox_output_mb = 0",
    ] {
        assert!(resolve(bad).is_err(), "{bad}");
    }
}
