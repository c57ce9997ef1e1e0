//! Finding where a YAML node starts, for problem messages.
//!
//! serde_yaml 0.9 exposes positions only on errors. So to locate a node we deserialise the
//! document with a visitor that walks a path (`projects[2].plan_role`) and raises a marker
//! error when it reaches the node; serde_yaml stamps that error with the node's start mark.
//! Exact, and no second YAML parser is needed.

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// One step of a path into a YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// Builds a path: `path!["projects", 2, "plan_role"]`-like helper without macros.
pub fn key(k: &str) -> Seg {
    Seg::Key(k.to_string())
}

pub fn idx(i: usize) -> Seg {
    Seg::Index(i)
}

const MARKER: &str = "\u{0}tfgate-locate\u{0}";

/// 1-based (line, column) where the node at `path` starts. When the node does not exist,
/// the nearest existing ancestor's position; `(1, 1)` when nothing can be found.
pub fn locate(source: &str, path: &[Seg]) -> (usize, usize) {
    for len in (0..=path.len()).rev() {
        if let Some(pos) = locate_exact(source, &path[..len]) {
            return pos;
        }
    }
    (1, 1)
}

/// Position of the node at exactly `path`, if present.
pub fn locate_exact(source: &str, path: &[Seg]) -> Option<(usize, usize)> {
    let de = serde_yaml::Deserializer::from_str(source);
    match (Locator { path }).deserialize(de) {
        Ok(()) => None,
        Err(err) if err.to_string().contains(MARKER) => {
            err.location().map(|l| (l.line(), l.column()))
        }
        Err(_) => None,
    }
}

/// Position of the map key `name` inside the mapping at `path` (for problems about a key).
pub fn locate_key(source: &str, path: &[Seg], name: &str) -> Option<(usize, usize)> {
    let de = serde_yaml::Deserializer::from_str(source);
    match (Locator { path: &[] }).key_in(path, name, de) {
        Ok(()) => None,
        Err(err) if err.to_string().contains(MARKER) => {
            err.location().map(|l| (l.line(), l.column()))
        }
        Err(_) => None,
    }
}

struct Locator<'p> {
    path: &'p [Seg],
}

impl<'p> Locator<'p> {
    fn key_in<'de, D: de::Deserializer<'de>>(
        self,
        path: &'p [Seg],
        name: &str,
        d: D,
    ) -> Result<(), D::Error> {
        d.deserialize_any(KeyLocator { path, name })
    }
}

impl<'de> DeserializeSeed<'de> for Locator<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

fn here<E: de::Error>() -> Result<(), E> {
    Err(E::custom(MARKER))
}

macro_rules! scalar_visits {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name<E: de::Error>(self, _v: $ty) -> Result<(), E> {
            if self.path.is_empty() { here() } else { Ok(()) }
        })*
    };
}

impl<'de> Visitor<'de> for Locator<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML node")
    }

    scalar_visits!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        if self.path.is_empty() {
            here()
        } else {
            Ok(())
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Seg::Key(want), rest)) = self.path.split_first() else {
            return if self.path.is_empty() { here() } else { Ok(()) };
        };
        while let Some(k) = map.next_key::<serde_yaml::Value>()? {
            if k.as_str() == Some(want.as_str()) {
                return map.next_value_seed(Locator { path: rest });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Seg::Index(want), rest)) = self.path.split_first() else {
            return if self.path.is_empty() { here() } else { Ok(()) };
        };
        let mut i = 0;
        loop {
            if i == *want {
                return seq.next_element_seed(Locator { path: rest }).map(|_| ());
            }
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }
}

/// Walks `path` like [`Locator`], then raises the marker on the key `name` of that mapping.
struct KeyLocator<'p, 'n> {
    path: &'p [Seg],
    name: &'n str,
}

impl<'de> DeserializeSeed<'de> for KeyLocator<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

struct KeyMarker<'n>(&'n str);

impl<'de> DeserializeSeed<'de> for KeyMarker<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        // The marker must be raised inside `deserialize_any` so that it gets the key's mark.
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyMarker<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if v == self.0 {
            here()
        } else {
            Ok(())
        }
    }

    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

impl<'de> Visitor<'de> for KeyLocator<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML node")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        match self.path.split_first() {
            None => {
                while map.next_key_seed(KeyMarker(self.name))?.is_some() {
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(())
            }
            Some((Seg::Key(want), rest)) => {
                while let Some(k) = map.next_key::<serde_yaml::Value>()? {
                    if k.as_str() == Some(want.as_str()) {
                        return map.next_value_seed(KeyLocator {
                            path: rest,
                            name: self.name,
                        });
                    }
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(())
            }
            Some(_) => Ok(()),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Seg::Index(want), rest)) = self.path.split_first() else {
            return Ok(());
        };
        let mut i = 0;
        loop {
            if i == *want {
                return seq
                    .next_element_seed(KeyLocator {
                        path: rest,
                        name: self.name,
                    })
                    .map(|_| ());
            }
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    scalar_visits!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "repos:\n  - acme/*\nprojects:\n  - name: net\n    dir: infra/net\n  - name: eks\n    dir: infra/eks\n    depends_on: [net, \"x\"]\nflag: true\n";

    #[test]
    fn locates_nodes() {
        let cases: Vec<(Vec<Seg>, (usize, usize))> = vec![
            (vec![key("repos"), idx(0)], (2, 5)),
            (vec![key("projects"), idx(1), key("dir")], (7, 10)),
            (
                vec![key("projects"), idx(1), key("depends_on"), idx(1)],
                (8, 23),
            ),
            (vec![key("flag")], (9, 7)),
            (vec![key("projects"), idx(1), key("missing")], (6, 5)),
            (vec![key("projects"), idx(9)], (4, 3)),
        ];
        for (path, want) in cases {
            assert_eq!(locate(DOC, &path), want, "{path:?}");
        }
    }

    #[test]
    fn exact_lookup_misses_absent_nodes() {
        assert_eq!(locate_exact(DOC, &[key("nope")]), None);
        assert_eq!(locate_exact(DOC, &[key("repos"), idx(0)]), Some((2, 5)));
    }

    #[test]
    fn locates_keys() {
        assert_eq!(
            locate_key(DOC, &[key("projects"), idx(1)], "depends_on"),
            Some((8, 5))
        );
        assert_eq!(locate_key(DOC, &[], "flag"), Some((9, 1)));
        assert_eq!(locate_key(DOC, &[], "nope"), None);
    }
}
