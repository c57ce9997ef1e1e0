//! `Renderer::with_template_dir`: overrides read from a directory.

use super::samples;
use super::*;

/// `(file name, source)` pairs written into the override directory.
type Files<'a> = &'a [(&'a str, &'a str)];

const FOOTER: &str = "\n_Ask in {{ '#platform'|code }}._\n{{ marker }}\n";

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, source) in files {
        std::fs::write(dir.path().join(name), source).unwrap();
    }
    dir
}

#[test]
fn overrides_by_name_change_the_output_and_other_files_are_ignored() {
    let cases: &[(Files, &str, bool)] = &[
        // (files in the directory, fragment, expected in the plan comment)
        (&[], "requested by `kukie-dev`", true),
        (&[("_footer.md.j2", FOOTER)], "_Ask in `#platform`._", true),
        (&[("_footer.md.j2", FOOTER)], "requested by", false),
        (
            &[("_footer.md.j2", FOOTER), ("README.md", "{% if %}")],
            "_Ask in `#platform`._",
            true,
        ),
        (
            &[
                ("_company.j2", "Change window: weekdays"),
                (
                    "_footer.md.j2",
                    "\n{% include \"_company.j2\" %}\n{{ marker }}\n",
                ),
            ],
            "Change window: weekdays",
            true,
        ),
    ];
    for (files, fragment, expected) in cases {
        let dir = dir_with(files);
        let renderer = Renderer::with_template_dir(Some(dir.path())).unwrap();
        let text = renderer.render_plan(&samples::plan_with_changes()).unwrap();
        assert_eq!(text.contains(fragment), *expected, "{files:?}: {text}");
        assert_eq!(parse_marker(&text).unwrap().kind, CommentKind::Plan);
    }
}

#[test]
fn broken_or_missing_overrides_are_errors_naming_the_file() {
    let cases: &[(Files, &[&str])] = &[
        // (files, fragments of the error message)
        (
            &[("plan.md.j2", "# plan\n\n{% for %}\n")],
            &["plan.md.j2:3:", "syntax error"],
        ),
        (
            &[("_extra.j2", "{{ unclosed\n")],
            &["_extra.j2:1:", "syntax error"],
        ),
        (
            &[("lock_held.md.j2", "{{ body.holder_pr|no_such_filter }}")],
            &["lock_held.md.j2:1", "unknown filter"],
        ),
        (&[("plann.md.j2", "x")], &["plann.md.j2", "partial"]),
    ];
    for (files, fragments) in cases {
        let dir = dir_with(files);
        let err = Renderer::with_template_dir(Some(dir.path()))
            .unwrap_err()
            .to_string();
        for fragment in *fragments {
            assert!(
                err.contains(fragment),
                "{files:?}: {err:?} lacks {fragment:?}"
            );
        }
    }
}

#[test]
fn a_missing_directory_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-templates");
    let err = Renderer::with_template_dir(Some(&missing))
        .unwrap_err()
        .to_string();
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(err.starts_with("template directory "), "{err}");
}
