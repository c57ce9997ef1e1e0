//! Whether a Rust path or a `file.rs::item` names something the crate defines, found with `syn`
//! the way the compiler finds it: through `mod` items (files or inline) and `pub use`
//! re-exports (named, renamed or glob); `Type::member` is a method, associated item, field or
//! variant of a type of that name anywhere in the crate.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

/// How deep re-exports are followed (glob cycles end here).
const MAX_DEPTH: usize = 16;

/// One module: its path in the crate, the file holding it, the folder of its child modules,
/// and its items.
struct Module {
    path: Vec<String>,
    file: PathBuf,
    dir: PathBuf,
    items: Vec<syn::Item>,
}

/// An item a module defines: a type-like item (which may have members) or another item.
enum Defined {
    Type,
    Other,
}

pub struct Crate {
    src: PathBuf,
    /// Type or trait name → its methods, associated items, fields and variants.
    members: HashMap<String, BTreeSet<String>>,
}

fn parse(file: &Path) -> Result<Vec<syn::Item>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    syn::parse_file(&text)
        .map(|f| f.items)
        .map_err(|e| format!("{}: {e}", file.display()))
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// The name of what an item defines, and its kind.
fn defines(item: &syn::Item) -> Option<(String, Defined)> {
    let (ident, kind) = match item {
        syn::Item::Struct(i) => (&i.ident, Defined::Type),
        syn::Item::Enum(i) => (&i.ident, Defined::Type),
        syn::Item::Union(i) => (&i.ident, Defined::Type),
        syn::Item::Trait(i) => (&i.ident, Defined::Type),
        syn::Item::Type(i) => (&i.ident, Defined::Type),
        syn::Item::Fn(i) => (&i.sig.ident, Defined::Other),
        syn::Item::Const(i) => (&i.ident, Defined::Other),
        syn::Item::Static(i) => (&i.ident, Defined::Other),
        syn::Item::Macro(i) => (i.ident.as_ref()?, Defined::Other),
        _ => return None,
    };
    Some((ident.to_string(), kind))
}

/// The last identifier of an `impl` block's type (`impl<T> a::Foo<T>` → `Foo`).
fn impl_type_name(node: &syn::ItemImpl) -> Option<String> {
    match &*node.self_ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Collects every type's members over the whole crate.
#[derive(Default)]
struct Members(HashMap<String, BTreeSet<String>>);

impl Members {
    fn add(&mut self, owner: &syn::Ident, names: impl IntoIterator<Item = String>) {
        self.0.entry(owner.to_string()).or_default().extend(names);
    }
}

impl<'ast> Visit<'ast> for Members {
    fn visit_item_impl(&mut self, node: &'ast syn::ItemImpl) {
        if let Some(name) = impl_type_name(node) {
            let names = node.items.iter().filter_map(|item| match item {
                syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
                syn::ImplItem::Const(c) => Some(c.ident.to_string()),
                syn::ImplItem::Type(t) => Some(t.ident.to_string()),
                _ => None,
            });
            self.0.entry(name).or_default().extend(names);
        }
        visit::visit_item_impl(self, node);
    }

    fn visit_item_enum(&mut self, node: &'ast syn::ItemEnum) {
        self.add(
            &node.ident,
            node.variants.iter().map(|v| v.ident.to_string()),
        );
        visit::visit_item_enum(self, node);
    }

    fn visit_item_struct(&mut self, node: &'ast syn::ItemStruct) {
        let fields = node.fields.iter().filter_map(|f| f.ident.as_ref());
        self.add(&node.ident, fields.map(ToString::to_string));
        visit::visit_item_struct(self, node);
    }

    fn visit_item_trait(&mut self, node: &'ast syn::ItemTrait) {
        let names = node.items.iter().filter_map(|item| match item {
            syn::TraitItem::Fn(f) => Some(f.sig.ident.to_string()),
            syn::TraitItem::Const(c) => Some(c.ident.to_string()),
            syn::TraitItem::Type(t) => Some(t.ident.to_string()),
            _ => None,
        });
        self.add(&node.ident, names);
        visit::visit_item_trait(self, node);
    }
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The names a `use` tree brings in: (name, full path) for each, and the prefixes of globs.
fn use_names(tree: &syn::UseTree, prefix: &[String], names: &mut Vec<(String, Vec<String>)>) {
    let with = |ident: &syn::Ident| [prefix, &[ident.to_string()]].concat();
    match tree {
        syn::UseTree::Path(p) => use_names(&p.tree, &with(&p.ident), names),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let last = prefix.last().cloned().unwrap_or_default();
            names.push((last, prefix.to_vec()));
        }
        syn::UseTree::Name(n) => names.push((n.ident.to_string(), with(&n.ident))),
        syn::UseTree::Rename(r) => names.push((r.rename.to_string(), with(&r.ident))),
        syn::UseTree::Glob(_) => names.push(("*".to_string(), prefix.to_vec())),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, prefix, names)),
    }
}

impl Module {
    /// The module in `file` (a file of `src/`), its crate path from the file's place.
    fn load(src: &Path, file: &Path) -> Result<Module, String> {
        let relative = file.strip_prefix(src).map_err(|_| "not under src/")?;
        let mut path: Vec<String> = relative
            .with_extension("")
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let name = path.last().cloned().unwrap_or_default();
        let holds_children = ["mod", "lib", "main"].contains(&name.as_str());
        if holds_children {
            path.pop();
        }
        let parent = file.parent().unwrap_or(src);
        Ok(Module {
            dir: if holds_children {
                parent.to_path_buf()
            } else {
                parent.join(&name)
            },
            path,
            file: file.to_path_buf(),
            items: parse(file)?,
        })
    }

    /// The child module `name` (not test-only modules, not `#[path]` ones).
    fn child(&self, src: &Path, name: &str) -> Result<Option<Module>, String> {
        for item in &self.items {
            let syn::Item::Mod(m) = item else { continue };
            if m.ident != name || is_cfg_test(&m.attrs) {
                continue;
            }
            if m.attrs.iter().any(|a| a.path().is_ident("path")) {
                return Ok(None);
            }
            let path = [self.path.clone(), vec![name.to_string()]].concat();
            if let Some((_, items)) = &m.content {
                let (file, dir) = (self.file.clone(), self.dir.join(name));
                let items = items.clone();
                return Ok(Some(Module {
                    path,
                    file,
                    dir,
                    items,
                }));
            }
            let file = self.dir.join(format!("{name}.rs"));
            let file = if file.is_file() {
                file
            } else {
                self.dir.join(name).join("mod.rs")
            };
            return Module::load(src, &file).map(Some);
        }
        Ok(None)
    }

    fn defined(&self, name: &str) -> Option<Defined> {
        self.items
            .iter()
            .filter_map(defines)
            .find(|(n, _)| n == name)
            .map(|(_, kind)| kind)
    }

    /// The names its `pub use` items re-export, with their paths as written.
    fn reexports(&self) -> Vec<(String, Vec<String>)> {
        let mut names = Vec::new();
        for item in &self.items {
            if let syn::Item::Use(u) = item {
                if !matches!(u.vis, syn::Visibility::Inherited) {
                    use_names(&u.tree, &[], &mut names);
                }
            }
        }
        names
    }

    /// A `use` path of this module as a path from the crate root; `None`: another crate's.
    fn absolute(&self, written: &[String]) -> Option<Vec<String>> {
        let (first, rest) = written.split_first()?;
        let mut base = self.path.clone();
        match first.as_str() {
            "crate" => return Some(rest.to_vec()),
            "self" => return Some([base, rest.to_vec()].concat()),
            "super" => {
                let supers = written.iter().take_while(|s| *s == "super").count();
                base.truncate(base.len().saturating_sub(supers));
                return Some([base, written[supers..].to_vec()].concat());
            }
            _ => {}
        }
        let local = self.defined(first).is_some()
            || self
                .items
                .iter()
                .any(|i| matches!(i, syn::Item::Mod(m) if m.ident == first));
        local.then(|| [base, written.to_vec()].concat())
    }

    /// Fn names of the `impl` blocks (and trait definitions) at the top of this module.
    fn impl_fns(&self, of_type: Option<&str>) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for item in &self.items {
            if let syn::Item::Impl(i) = item {
                if of_type.map_or(true, |t| impl_type_name(i).as_deref() == Some(t)) {
                    names.extend(i.items.iter().filter_map(|m| match m {
                        syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
                        _ => None,
                    }));
                }
            }
        }
        names
    }
}

impl Crate {
    pub fn load(src: &Path) -> Crate {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        let mut members = Members::default();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let parsed =
                syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            members.visit_file(&parsed);
        }
        Crate {
            src: src.to_path_buf(),
            members: members.0,
        }
    }

    fn root(&self) -> Result<Module, String> {
        Module::load(&self.src, &self.src.join("lib.rs"))
    }

    /// Whether `name` (a type defined or re-exported) has every member of `rest` (at most one).
    fn members_hold(&self, name: &str, kind: Defined, rest: &[String]) -> Result<(), String> {
        match (rest, kind) {
            ([], _) => Ok(()),
            ([member], Defined::Type)
                if self.members.get(name).is_some_and(|m| m.contains(member)) =>
            {
                Ok(())
            }
            _ => Err(format!("`{name}` has no member `{}`", rest.join("::"))),
        }
    }

    /// `segments` from `module`, through child modules, definitions and re-exports.
    fn resolve(&self, module: &Module, segments: &[String], depth: usize) -> Result<(), String> {
        let Some((first, rest)) = segments.split_first() else {
            return Ok(());
        };
        if depth > MAX_DEPTH {
            return Err(format!("re-exports of `{first}` go round in circles"));
        }
        if let Some(child) = module.child(&self.src, first)? {
            return self.resolve(&child, rest, depth);
        }
        if let Some(kind) = module.defined(first) {
            return self.members_hold(first, kind, rest);
        }
        let reexports = module.reexports();
        if let Some((_, written)) = reexports.iter().find(|(name, _)| name == first) {
            let Some(target) = module.absolute(written) else {
                return Ok(()); // another crate's item, re-exported
            };
            return self.resolve(&self.root()?, &[target, rest.to_vec()].concat(), depth + 1);
        }
        for (_, glob) in reexports.iter().filter(|(name, _)| name == "*") {
            let Some(target) = module.absolute(glob) else {
                continue;
            };
            let path = [target, segments.to_vec()].concat();
            if self.resolve(&self.root()?, &path, depth + 1).is_ok() {
                return Ok(());
            }
        }
        let shown = module.path.join("::");
        Err(format!(
            "no `{first}` in `{shown}` ({})",
            module.file.display()
        ))
    }

    /// A Rust path from the crate root: a top-level module or an item of `lib.rs` (`crate::` or
    /// `tfgate::` may lead).
    pub fn check_path(&self, path: &[String]) -> Result<(), String> {
        let path = match path.first().map(String::as_str) {
            Some("crate" | "tfgate") => &path[1..],
            _ => path,
        };
        let root = self.root()?;
        let top = path.first().ok_or("empty path")?;
        self.resolve(&root, path, 0)
            .map_err(|e| match root.child(&self.src, top) {
                Ok(Some(_)) => e,
                _ => format!("`{top}` is not a top-level module of the crate (nor a dependency)"),
            })
    }

    /// `item` is defined in `file` (re-exports do not count): an item, a method of an `impl`
    /// in the file, or a member of a type the file defines or implements.
    pub fn check_in_file(&self, file: &Path, item: &[String]) -> Result<(), String> {
        let module = Module::load(&self.src, file)?;
        let (first, rest) = item.split_first().ok_or("empty item")?;
        if let Some(kind) = module.defined(first) {
            return self.members_hold(first, kind, rest);
        }
        let found = match rest {
            [] => module.impl_fns(None).contains(first),
            [member] => module.impl_fns(Some(first)).contains(member),
            _ => false,
        };
        found
            .then_some(())
            .ok_or_else(|| format!("`{}` is not defined in {}", item.join("::"), file.display()))
    }
}
