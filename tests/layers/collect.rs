//! The import collector: every crate-internal path a file names, resolved to a module file.

use super::*;

/// Collects the crate-internal paths a file names, each resolved to an absolute module path.
pub(crate) struct ImportCollector<'a> {
    /// Every module of the crate (files), to resolve `child::…` and to find the longest prefix.
    pub(crate) modules: &'a BTreeSet<Vec<String>>,
    /// The module the visitor is in (the file's, plus inline `mod x { … }` blocks).
    pub(crate) current: Vec<String>,
    pub(crate) found: BTreeSet<Vec<String>>,
}

impl ImportCollector<'_> {
    /// Resolves a path written in the current module to an absolute one, or `None` when it is
    /// not crate-internal (std, an external crate, a local item).
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.current.clone(),
            "super" => {
                let mut base = self.current.clone();
                base.pop()?;
                base
            }
            _ => {
                let mut child = self.current.clone();
                child.push(first.clone());
                if rest.is_empty() || !self.modules.contains(&child) {
                    return None;
                }
                child.extend(rest.iter().cloned());
                return Some(child);
            }
        };
        let mut rest = rest;
        while let Some((next, tail)) = rest.split_first() {
            if next != "super" {
                break;
            }
            base.pop()?;
            rest = tail;
        }
        base.extend(rest.iter().cloned());
        (!base.is_empty()).then_some(base)
    }

    fn record(&mut self, segments: &[String]) {
        if let Some(path) = self.absolute(segments) {
            self.found.insert(path);
        }
    }

    fn walk_use(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.walk_use(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                if name == "self" {
                    self.record(prefix);
                } else {
                    prefix.push(name);
                    self.record(prefix);
                    prefix.pop();
                }
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.record(prefix);
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.record(prefix),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.walk_use(prefix, item);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for ImportCollector<'_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_item_mod(&mut self, node: &'ast syn::ItemMod) {
        if is_test_only(&node.attrs) || node.content.is_none() {
            return;
        }
        self.current.push(node.ident.to_string());
        visit::visit_item_mod(self, node);
        self.current.pop();
    }

    fn visit_item_impl(&mut self, node: &'ast syn::ItemImpl) {
        if !is_test_only(&node.attrs) {
            visit::visit_item_impl(self, node);
        }
    }

    fn visit_item_fn(&mut self, node: &'ast syn::ItemFn) {
        if !is_test_only(&node.attrs) {
            visit::visit_item_fn(self, node);
        }
    }

    fn visit_impl_item_fn(&mut self, node: &'ast syn::ImplItemFn) {
        if !is_test_only(&node.attrs) {
            visit::visit_impl_item_fn(self, node);
        }
    }

    fn visit_item_use(&mut self, node: &'ast syn::ItemUse) {
        if !is_test_only(&node.attrs) {
            self.walk_use(&mut Vec::new(), &node.tree);
        }
    }

    fn visit_path(&mut self, node: &'ast syn::Path) {
        let segments: Vec<String> = node.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            self.record(&segments);
        }
        visit::visit_path(self, node);
    }
}

/// The file a module path lands in: its longest prefix that is a module of the crate.
pub(crate) fn resolve<'m>(
    path: &[String],
    files_by_module: &'m BTreeMap<Vec<String>, String>,
) -> Option<&'m String> {
    (1..=path.len())
        .rev()
        .find_map(|n| files_by_module.get(&path[..n]))
}

/// Tarjan's strongly connected components of `graph` with more than one member.
pub(crate) fn loops(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn connect<'g>(s: &mut State<'g>, v: &'g str) {
        let next = s.index.len();
        s.index.insert(v, next);
        s.low.insert(v, next);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                connect(s, w);
                let low = s.low[v].min(s.low[w.as_str()]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w.as_str()) {
                let low = s.low[v].min(s.index[w.as_str()]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            connect(&mut state, v);
        }
    }
    state.found
}
