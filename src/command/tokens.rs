//! Splitting a command line into tokens. No shell semantics: tokens are whitespace-separated
//! words; quotes are kept as they are (only `["key"]` index keys in addresses use them) and must
//! be balanced within a token; shell metacharacters and control characters are refused outright.

use super::error::{echo, ParseError};

/// Characters a shell would interpret. tfgate never uses a shell; refusing them keeps a comment
/// from ever looking like it could inject one.
const SHELL_METACHARACTERS: [char; 7] = [';', '|', '&', '$', '`', '<', '>'];

/// The whitespace-separated tokens of `text`, each checked for shell metacharacters, control
/// characters and unbalanced double quotes. The first bad token decides the error.
pub(super) fn tokenize(text: &str) -> Result<Vec<&str>, ParseError> {
    text.split_whitespace().map(check_token).collect()
}

fn check_token(token: &str) -> Result<&str, ParseError> {
    if let Some(character) = token.chars().find(|ch| SHELL_METACHARACTERS.contains(ch)) {
        return Err(ParseError::ShellMetacharacter {
            token: echo(token),
            character,
        });
    }
    if token.chars().any(char::is_control) {
        return Err(ParseError::ControlCharacter { token: echo(token) });
    }
    if token.matches('"').count() % 2 == 1 {
        return Err(ParseError::UnbalancedQuote { token: echo(token) });
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_any_whitespace() {
        assert_eq!(
            tokenize(" -p  net\t-d\u{a0}x ").unwrap(),
            vec!["-p", "net", "-d", "x"]
        );
        assert_eq!(tokenize("").unwrap(), Vec::<&str>::new());
    }

    #[test]
    fn keeps_balanced_quotes_in_one_token() {
        assert_eq!(
            tokenize(r#"-target=aws_s3_bucket.b["k"]"#).unwrap(),
            vec![r#"-target=aws_s3_bucket.b["k"]"#]
        );
    }

    #[test]
    fn refuses_each_shell_metacharacter() {
        for character in SHELL_METACHARACTERS {
            let line = format!("-p a{character}b");
            assert_eq!(
                tokenize(&line),
                Err(ParseError::ShellMetacharacter {
                    token: echo(&format!("a{character}b")),
                    character
                }),
                "{line}"
            );
        }
    }

    #[test]
    fn refuses_unbalanced_quotes_and_control_characters() {
        assert_eq!(
            tokenize(r#"-p "my proj""#),
            Err(ParseError::UnbalancedQuote {
                token: "\"my".into()
            })
        );
        assert_eq!(
            tokenize("-p a\u{0}b"),
            Err(ParseError::ControlCharacter { token: "ab".into() })
        );
    }
}
