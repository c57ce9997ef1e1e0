//! A small, tolerant scanner for the local `source` of `module` blocks in HCL text.
//!
//! It understands just enough HCL to not be fooled: comments (`#`, `//`, `/* */`), quoted
//! strings with escapes and `${…}` interpolations, heredocs and nested braces. Anything it
//! does not understand is skipped; it never fails.

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    LBrace,
    RBrace,
    Assign,
    Other,
}

/// The `source` values of top-level `module` blocks that are local paths (`./…` or `../…`),
/// in the order they appear, without duplicates.
pub fn find_local_module_sources(tf_source: &str) -> Vec<String> {
    block_attributes(tf_source, "module", true, "source")
        .into_iter()
        .filter(|value| value.starts_with("./") || value.starts_with("../"))
        .collect()
}

/// The `required_version` strings of top-level `terraform { … }` blocks, without duplicates.
pub fn find_required_versions(tf_source: &str) -> Vec<String> {
    block_attributes(tf_source, "terraform", false, "required_version")
}

/// The string values of `attribute = "…"` directly inside top-level blocks of `kind`
/// (with one label when `labelled`), in order, without duplicates.
fn block_attributes(tf_source: &str, kind: &str, labelled: bool, attribute: &str) -> Vec<String> {
    let tokens = tokenize(tf_source);
    let mut found: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut block_depth: Option<usize> = None;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::LBrace => depth += 1,
            Token::RBrace => {
                depth = depth.saturating_sub(1);
                if block_depth.is_some_and(|d| depth < d) {
                    block_depth = None;
                }
            }
            Token::Ident(word) if word == kind && depth == 0 => {
                let label = matches!(
                    tokens.get(i + 1),
                    Some(Token::Str(_)) | Some(Token::Ident(_))
                );
                let brace_at = i + 1 + usize::from(labelled);
                if (label || !labelled) && tokens.get(brace_at) == Some(&Token::LBrace) {
                    depth += 1;
                    block_depth = Some(depth);
                    i = brace_at + 1;
                    continue;
                }
            }
            Token::Ident(word) if word == attribute && block_depth == Some(depth) => {
                if let (Some(Token::Assign), Some(Token::Str(value))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    if !found.contains(value) {
                        found.push(value.clone());
                    }
                    i += 3;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

fn tokenize(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '#' => i = skip_line(&chars, i),
            '/' if next == Some('/') => i = skip_line(&chars, i),
            '/' if next == Some('*') => i = skip_block_comment(&chars, i + 2),
            '"' => {
                let (value, end) = read_string(&chars, i + 1);
                tokens.push(Token::Str(value));
                i = end;
            }
            '<' if next == Some('<') => {
                i = skip_heredoc(&chars, i + 2);
                tokens.push(Token::Other);
            }
            '{' => {
                tokens.push(Token::LBrace);
                i += 1;
            }
            '}' => {
                tokens.push(Token::RBrace);
                i += 1;
            }
            '=' if next == Some('=') => {
                tokens.push(Token::Other);
                i += 2;
            }
            '=' => {
                tokens.push(Token::Assign);
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '-')
                {
                    i += 1;
                }
                tokens.push(Token::Ident(chars[start..i].iter().collect()));
            }
            c if c.is_whitespace() => i += 1,
            _ => {
                tokens.push(Token::Other);
                i += 1;
            }
        }
    }
    tokens
}

fn skip_line(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i] != '\n' {
        i += 1;
    }
    i
}

fn skip_block_comment(chars: &[char], mut i: usize) -> usize {
    while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
        i += 1;
    }
    (i + 2).min(chars.len())
}

/// Reads a quoted string starting after its opening quote; returns its text (escapes
/// resolved for `\"` and `\\`, interpolations kept verbatim) and the index after the
/// closing quote. An unterminated string ends at the end of its line.
fn read_string(chars: &[char], mut i: usize) -> (String, usize) {
    let mut out = String::new();
    while i < chars.len() {
        match chars[i] {
            '"' => return (out, i + 1),
            '\n' => return (out, i),
            '\\' if i + 1 < chars.len() => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '$' | '%' if chars.get(i + 1) == Some(&'{') => {
                let end = skip_template(chars, i + 2);
                out.extend(&chars[i..end]);
                i = end;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    (out, i)
}

/// Skips a `${…}` body (nested braces and strings) starting after its `{`.
fn skip_template(chars: &[char], mut i: usize) -> usize {
    let mut depth = 1;
    while i < chars.len() {
        match chars[i] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            '"' => {
                let (_, end) = read_string(chars, i + 1);
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Skips a heredoc starting after `<<` (optionally `<<-`): to the line holding only the tag.
fn skip_heredoc(chars: &[char], mut i: usize) -> usize {
    if chars.get(i) == Some(&'-') {
        i += 1;
    }
    let start = i;
    while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
        i += 1;
    }
    let tag: String = chars[start..i].iter().collect();
    if tag.is_empty() {
        return i;
    }
    i = skip_line(chars, i);
    while i < chars.len() {
        let line_start = i + 1;
        let line_end = skip_line(chars, line_start);
        let line: String = chars[line_start.min(chars.len())..line_end]
            .iter()
            .collect();
        if line.trim() == tag {
            return line_end;
        }
        i = line_end;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_local_sources_only() {
        let src = r#"
module "vpc" {
  source  = "../../modules/vpc"
  cidr    = var.cidr
}

module "eks" {
  source = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
}

module nodes { source = "./nodes" }
"#;
        assert_eq!(
            find_local_module_sources(src),
            vec!["../../modules/vpc", "./nodes"]
        );
    }

    #[test]
    fn ignores_comments_strings_and_heredocs() {
        let src = r#"
# module "a" { source = "./commented" }
// module "b" { source = "./commented2" }
/* module "c" {
  source = "./commented3"
} */
locals {
  text = "module \"d\" { source = \"./in-string\" }"
  doc = <<-EOT
    module "e" {
      source = "./in-heredoc"
    }
  EOT
}
resource "x" "y" {
  source = "./not-a-module"
}
module "real" {
  # source = "./commented-inside"
  source = "./real"
  settings = {
    source = "./nested-attribute"
  }
  name = "${var.prefix}-{x}"
}
"#;
        assert_eq!(find_local_module_sources(src), vec!["./real"]);
    }

    #[test]
    fn tolerates_broken_input() {
        let cases = [
            "module \"x\" {",
            "module \"x\" { source = \"./unterminated",
            "}}}{{",
            "<<",
            "\"${",
        ];
        for src in cases {
            let _ = find_local_module_sources(src);
        }
        assert_eq!(
            find_local_module_sources("module \"x\" {\n source = \"./a\"\n"),
            vec!["./a"]
        );
    }

    #[test]
    fn dedupes_and_keeps_order() {
        let src = "module \"a\" {\n source = \"./b\"\n}\nmodule \"c\" {\n source = \"./a\"\n}\nmodule \"d\" {\n source = \"./b\"\n}\n";
        assert_eq!(find_local_module_sources(src), vec!["./b", "./a"]);
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_only_returns_local_paths(src in "[ -~\n]{0,200}") {
            for source in find_local_module_sources(&src) {
                proptest::prop_assert!(source.starts_with("./") || source.starts_with("../"));
            }
        }

        #[test]
        fn finds_a_module_among_noise(noise in "[a-z =#\n]{0,40}", dir in "[a-z]{1,8}") {
            let src = format!("{noise}\nmodule \"m\" {{\n  source = \"./{dir}\"\n}}\n");
            let found = find_local_module_sources(&src);
            // Noise may open a comment that swallows the block, but never invents a source.
            let want = vec![format!("./{}", dir)];
            proptest::prop_assert!(found.is_empty() || found == want);
        }
    }

    #[test]
    fn required_versions_of_terraform_blocks() {
        let src = r#"
terraform {
  required_version = ">= 1.5, < 2.0"
  required_providers {
    aws = { source = "hashicorp/aws", required_version = "not-this" }
  }
}
# terraform { required_version = "commented" }
module "m" { required_version = "a module argument" }
terraform {
  required_version = ">= 1.5, < 2.0"
}
terraform { required_version = "~> 1.9.0" }
"#;
        assert_eq!(
            find_required_versions(src),
            vec![">= 1.5, < 2.0".to_string(), "~> 1.9.0".to_string()]
        );
        assert!(find_required_versions(
            "terraform {}
"
        )
        .is_empty());
    }
}
