//! The `/help` reply, generated from [`CommandKind::help`] so that every command has help.

use super::CommandKind;

/// What the help text says about one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandHelp {
    /// Usage line with the `/` prefix, e.g. `/plan [-p NAME] [-d DIR] [-w NAME] [-- TF_FLAGS]`.
    pub usage: &'static str,
    /// One sentence on what the command does.
    pub summary: &'static str,
    /// (flag, meaning) pairs.
    pub flags: &'static [(&'static str, &'static str)],
}

const SELECT_PROJECT: (&str, &str) = ("-p, --project NAME", "only this project");
const SELECT_DIR: (&str, &str) = (
    "-d, --dir DIR",
    "only the project in this directory (relative to the repository root)",
);
const SELECT_WORKSPACE: (&str, &str) = ("-w, --workspace NAME", "only this Terraform workspace");
const POLICY_SET: (&str, &str) = ("--set SET_NAME", "only this plan policy set");

impl CommandKind {
    /// Help for this command. The `match` is exhaustive: a new command needs help to compile.
    pub fn help(&self) -> CommandHelp {
        match self {
            CommandKind::Plan => CommandHelp {
                usage: "/plan [-p NAME] [-d DIR] [-w NAME] [-- TERRAFORM_FLAGS]",
                summary: "Plans the projects this pull request changes and saves the plan for `/apply`.",
                flags: &[
                    SELECT_PROJECT,
                    SELECT_DIR,
                    SELECT_WORKSPACE,
                    ("-- -target=ADDR", "plan only this resource or module (repeatable)"),
                    ("-- -replace=ADDR", "plan to replace this resource (repeatable)"),
                    ("-- -refresh=false", "skip refreshing state"),
                    ("-- -lock-timeout=DURATION", "wait for the state lock, up to `10m`"),
                ],
            },
            CommandKind::Apply => CommandHelp {
                usage: "/apply [-p NAME] [-d DIR] [-w NAME] [--accept-input INPUT] [-- -lock-timeout=DURATION]",
                summary: "Applies the saved plan of each project, if it is approved and still current.",
                flags: &[
                    SELECT_PROJECT,
                    SELECT_DIR,
                    SELECT_WORKSPACE,
                    ("--accept-input INPUT", "apply although this shared input changed outside the diff (repeatable)"),
                    ("-- -lock-timeout=DURATION", "wait for the state lock, up to `10m`"),
                ],
            },
            CommandKind::Unlock => CommandHelp {
                usage: "/unlock [-p NAME] [-d DIR] [-w NAME]",
                summary: "Releases tfgate's lock on the projects so that another pull request can plan them.",
                flags: &[SELECT_PROJECT, SELECT_DIR, SELECT_WORKSPACE],
            },
            CommandKind::Cancel => CommandHelp {
                usage: "/cancel [-p NAME]",
                summary: "Cancels this pull request's queued plans and applies (of the named project only); one that has started is never stopped.",
                flags: &[SELECT_PROJECT],
            },
            CommandKind::Inputs => CommandHelp {
                usage: "/inputs",
                summary: "Lists the shared inputs (secrets, variables) the projects read, and which changed since the last apply.",
                flags: &[],
            },
            CommandKind::AckDeploy => CommandHelp {
                usage: "/ack-deploy",
                summary: "Accepts what the `tfgate/deploy` check says merging would deploy or delete (GitOps folders), for the current head; a new push asks again.",
                flags: &[],
            },
            CommandKind::ApprovePolicies => CommandHelp {
                usage: "/approve-policies [-p NAME] [--set SET_NAME]",
                summary: "An owner of a plan policy set approves its `deny` failures on the current plans (of the named project or set only), so `/apply` may apply them; the PR author cannot approve, and a new push or plan needs a new approval.",
                flags: &[SELECT_PROJECT, POLICY_SET],
            },
            CommandKind::Help => CommandHelp {
                usage: "/help",
                summary: "Shows this help.",
                flags: &[],
            },
        }
    }
}

/// The Markdown reply to `/help` (and to unknown commands).
pub fn help_text(app_slug: &str) -> String {
    let mut text = String::from("### tfgate commands\n\n");
    for kind in CommandKind::ALL {
        let help = kind.help();
        text.push_str(&format!("- `{}`  \n  {}\n", help.usage, help.summary));
        for (flag, meaning) in help.flags {
            text.push_str(&format!("  - `{flag}`: {meaning}\n"));
        }
    }
    text.push_str(&format!(
        "\nStart a line with the command. `tfgate plan` and `@{app_slug} plan` work too. \
         Commands in code blocks, quotes and HTML comments are ignored.\n\n\
         After `--`, only `-target=`, `-replace=`, `-refresh=false` and `-lock-timeout=` are passed \
         to Terraform; `-target`, `-replace` and `-refresh` belong to `/plan`.\n"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_text_snapshot() {
        // No module prefix in the file name, so the snapshot survives the move into the main crate.
        let mut settings = insta::Settings::clone_current();
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!("help_text", help_text("tfgate-bot")));
    }

    #[test]
    fn every_command_has_usage_starting_with_its_name() {
        for kind in CommandKind::ALL {
            let help = kind.help();
            let first_word = help.usage.split_whitespace().next();
            assert_eq!(first_word, Some(kind.slash_form().as_str()), "{kind}");
            assert!(!help.summary.is_empty(), "{kind}");
        }
    }

    #[test]
    fn help_text_lists_every_command_and_the_mention_form() {
        let text = help_text("my-app");
        for kind in CommandKind::ALL {
            assert!(text.contains(&format!("`{}", kind.slash_form())), "{kind}");
        }
        assert!(text.contains("`@my-app plan`"));
    }

    #[test]
    fn usage_lines_parse_as_their_command() {
        // Each usage with its placeholders filled in is itself a valid command.
        let filled = [
            (
                "/plan -p net -d infra -w prod -- -target=aws_s3_bucket.b",
                CommandKind::Plan,
            ),
            (
                "/apply -p net -d infra -w prod --accept-input ADMIN_CIDRS -- -lock-timeout=5m",
                CommandKind::Apply,
            ),
            ("/unlock -p net -d infra -w prod", CommandKind::Unlock),
            ("/cancel -p net", CommandKind::Cancel),
            ("/inputs", CommandKind::Inputs),
            ("/ack-deploy", CommandKind::AckDeploy),
            (
                "/approve-policies -p net --set no-world-ssh",
                CommandKind::ApprovePolicies,
            ),
            ("/help", CommandKind::Help),
        ];
        for (line, kind) in filled {
            let parsed = crate::command::parse_comment(line, "tfgate-bot");
            assert!(
                matches!(parsed.as_slice(), [Ok(command)] if command.kind == kind),
                "{line}: {parsed:?}"
            );
        }
    }
}
