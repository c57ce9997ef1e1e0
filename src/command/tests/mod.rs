//! Table tests of the whole parser: comment body in, commands out.

mod accepted;
mod markdown_cases;
mod properties;
mod rejected;

use super::{parse_comment, Command, CommandKind, ParseError, TerraformArg};

/// The app slug every test uses.
const SLUG: &str = "tfgate-bot";

fn parse(body: &str) -> Vec<Result<Command, ParseError>> {
    parse_comment(body, SLUG)
}

/// The single result of `body`; fails the test if there is not exactly one.
fn parse_one(body: &str) -> Result<Command, ParseError> {
    let mut results = parse(body);
    assert_eq!(
        results.len(),
        1,
        "expected one command in {body:?}, got {results:?}"
    );
    results.remove(0)
}

/// Builder for expected commands.
fn command(kind: CommandKind) -> Command {
    Command::bare(kind, 1)
}

impl Command {
    fn on_line(mut self, line: usize) -> Self {
        self.line = line;
        self
    }
    fn project(mut self, name: &str) -> Self {
        self.project = Some(name.to_string());
        self
    }
    fn dir(mut self, dir: &str) -> Self {
        self.dir = Some(dir.to_string());
        self
    }
    fn workspace(mut self, name: &str) -> Self {
        self.workspace = Some(name.to_string());
        self
    }
    fn accept(mut self, input: &str) -> Self {
        self.accept_inputs.push(input.to_string());
        self
    }
    fn tf(mut self, arg: TerraformArg) -> Self {
        self.terraform_args.push(arg);
        self
    }
}
