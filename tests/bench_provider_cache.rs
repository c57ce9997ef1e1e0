//! `terraform init` with a cold and a warm provider cache, as an ignored test (see
//! `bench/provider-cache/run.sh`): the test provider padded to `BENCH_PROVIDER_MB` (100) MB,
//! served from a packed filesystem mirror (a zip, as a registry serves it), installed by
//! tfgate's real `tfrun::plan` in bubblewrap. Cold: an empty cache (Terraform unpacks the zip,
//! tfgate caches the package); warm: the cache filled (Terraform links the cached package).
//! The two alternate, `BENCH_ITERATIONS` (5) each after one warm-up. Prints the `init` step's
//! time of each and `BENCH_RESULT bench=provider-cache …`.

mod support;

use std::path::Path;
use std::time::Duration;

use support::*;
use tfgate::config::{Config, ConfigArgs};
use tfgate::tfrun::{self, RunSettings};

const ROOT_TF: &str = "terraform {\n  required_providers {\n    fake = { source = \"tfgate/fake\", version = \"0.1.0\" }\n  }\n}\nresource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n";
const BINARY: &str = "terraform-provider-fake_v0.1.0";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A packed mirror whose provider binary is padded with `mb` MiB (an ELF file runs with bytes
/// appended; random bytes so the zip cannot shrink them).
fn padded_mirror(dir: &Path, mb: usize) {
    let binary = tools_dir()
        .join("provider-mirror/registry.terraform.io/tfgate/fake/0.1.0/linux_amd64")
        .join(BINARY);
    let padded = dir.join("padded");
    let mut bytes = std::fs::read(binary).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    bytes.extend((0..mb << 20).map(|_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u8
    }));
    std::fs::write(&padded, bytes).unwrap();
    let zip_dir = dir.join("mirror/registry.terraform.io/tfgate/fake");
    std::fs::create_dir_all(&zip_dir).unwrap();
    let script = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    i = zipfile.ZipInfo(sys.argv[3])\n    i.external_attr = 0o755 << 16\n    z.writestr(i, open(sys.argv[2], 'rb').read())\n";
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(zip_dir.join("terraform-provider-fake_0.1.0_linux_amd64.zip"))
        .arg(&padded)
        .arg(BINARY)
        .status()
        .unwrap();
    assert!(status.success());
}

async fn init_time(config: &Config, work: &Path) -> Duration {
    let setup = tfrun::setup_from_config(config).unwrap();
    let workdir = tempfile::tempdir_in(work).unwrap();
    std::fs::create_dir_all(workdir.path().join("app")).unwrap();
    std::fs::write(workdir.path().join("app/main.tf"), ROOT_TF).unwrap();
    let settings = RunSettings {
        providers: vec!["registry.terraform.io/tfgate/*".into()],
        ..RunSettings::default()
    };
    let out = tfrun::plan(&setup, workdir.path(), "app", &settings, &mut |_| {})
        .await
        .unwrap();
    assert!(out.init.ok, "init failed: {}", out.init.stderr_tail);
    assert!(out.plan.as_ref().is_some_and(|p| p.ok), "plan failed");
    out.init.duration
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let n = v.len();
    if n % 2 == 1 {
        ms(v[n / 2])
    } else {
        (ms(v[n / 2 - 1]) + ms(v[n / 2])) / 2.0
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: bash bench/provider-cache/run.sh"]
async fn provider_cache_cold_vs_warm_init() {
    assert!(
        tools_dir().join("bin/terraform").is_file(),
        "scripts/install-terraform.sh"
    );
    let iterations = env_usize("BENCH_ITERATIONS", 5);
    let mb = env_usize("BENCH_PROVIDER_MB", 100);
    let dir = tempfile::tempdir().unwrap();
    padded_mirror(dir.path(), mb);
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let config_with_cache = |cache: &Path| {
        Config::resolve(&ConfigArgs {
            data_dir: Some(dir.path().join("data")),
            terraform: Some(tools_dir().join("bin/terraform")),
            provider_mirror: Some(dir.path().join("mirror")),
            provider_cache: Some(cache.to_path_buf()),
            sandbox_relay: Some(env!("CARGO_BIN_EXE_tfgate").into()),
            work_dir: Some(work.clone()),
            ..Default::default()
        })
        .unwrap()
    };
    let warm_cache = dir.path().join("warm-cache");
    let warm = config_with_cache(&warm_cache);
    init_time(&warm, &work).await; // warm-up: fills the warm cache
    init_time(&config_with_cache(&dir.path().join("cold-0")), &work).await;
    println!(
        "provider-cache: {iterations} iterations, provider padded with {mb} MiB, sandbox bwrap"
    );
    let (mut cold_times, mut warm_times) = (Vec::new(), Vec::new());
    for i in 1..=iterations {
        let cold_cache = dir.path().join(format!("cold-{i}"));
        let cold = init_time(&config_with_cache(&cold_cache), &work).await;
        let _ = std::fs::remove_dir_all(&cold_cache);
        let hot = init_time(&warm, &work).await;
        println!(
            "  #{i:<2} init cold {:>8.1} ms   warm {:>8.1} ms",
            cold.as_secs_f64() * 1e3,
            hot.as_secs_f64() * 1e3
        );
        cold_times.push(cold);
        warm_times.push(hot);
    }
    let (cold, hot) = (median(cold_times), median(warm_times));
    println!("init cold (unpack + cache): median {cold:.1} ms; warm (cached): median {hot:.1} ms; cold/warm {:.2}x", cold / hot);
    println!(
        "BENCH_RESULT bench=provider-cache iterations={iterations} provider_mb={mb} init_cold_median_ms={cold:.1} init_warm_median_ms={hot:.1} target_warm_ms<=1500"
    );
}
