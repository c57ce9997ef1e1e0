use std::sync::OnceLock;

use proptest::test_runner::Config as ProptestConfig;
use tfgate::model::view::CommentMeta;
use tfgate::render::from_outcome::RootIdent;
use tfgate::render::Renderer;

// ------------------------------------------------------------------ configuration

pub(crate) fn cfg() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    }
}

pub(crate) fn renderer() -> &'static Renderer {
    static R: OnceLock<Renderer> = OnceLock::new();
    R.get_or_init(|| Renderer::new().expect("embedded templates load"))
}

pub(crate) fn root_ident() -> RootIdent {
    RootIdent {
        project: "net".into(),
        dir: "infra/net".into(),
        workspace: "default".into(),
    }
}

pub(crate) fn meta() -> CommentMeta {
    CommentMeta {
        pr: 42,
        marker_root: "all".into(),
        run_id: "r-7".into(),
        head_sha_short: Some("9c1b2d4".into()),
        command_by: Some("octo-dev".into()),
        check_run_url: None,
    }
}
