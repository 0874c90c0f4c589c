//! The house's layering, checked over the `use` lines and `crate::` / `super::` paths of `src/`:
//! no file imports from a higher layer, nothing but the demo, the command line, the training
//! data and tests uses the renderer, and no two files import each other, directly or round a
//! circle. Layers, lowest first (a module may use its own layer and those below it):
//!
//! ```text
//! rules, cards, symbols, text_input  <  geometry, layout  <  vision, capture, render  <  table
//! <  referee, scorebook, room  <  live  <  ui, cli, training
//! ```
//!
//! Test modules (`#[cfg(test)] mod …`) are not checked: tests may use anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: &[&[&str]] = &[
    &["rules", "cards", "symbols", "text_input"],
    &["geometry", "layout"],
    &["vision", "capture", "render"],
    &["table"],
    &["referee", "scorebook", "room"],
    &["live"],
    &["ui", "cli", "training"],
];

/// Who may use the synthetic renderer: the demo source, the live demo, the window, the command
/// line and the training data.
const RENDER_USERS: &[&str] = &["render", "capture", "live", "ui", "cli", "training"];

type Module = Vec<String>;

fn rank(top: &str) -> Option<usize> {
    LAYERS.iter().position(|names| names.contains(&top))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ reads") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b/mod.rs` → [a, b]; `src/a/c.rs` → [a, c]; `lib.rs` and `main.rs` → [].
fn module_of(src: &Path, path: &Path) -> Module {
    let rel = path.strip_prefix(src).expect("under src/").with_extension("");
    let mut parts: Module = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts
}

/// The product's code of a file: its test module cut off, comments and string literals blanked.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if c == '"' && !escaped {
                        break;
                    }
                    escaped = c == '\\' && !escaped;
                }
                out.push_str("\"\"");
            }
            // A char literal such as '"' or '{' (a lifetime has no closing quote close by).
            '\'' => {
                let ahead: String = chars.clone().take(3).collect();
                let literal = ahead.chars().nth(1) == Some('\'') || ahead.starts_with('\\');
                if literal {
                    for c in chars.by_ref() {
                        if c == '\'' {
                            break;
                        }
                    }
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// `a::{b, c::{d, e}}` → [a::b, a::c::d, a::c::e], aliases dropped.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap_or(tree).trim().to_string()];
    };
    let (prefix, inner) = (&tree[..open], &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())]);
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in inner.chars() {
        match c {
            ',' if depth == 0 => parts.push(std::mem::take(&mut current)),
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' => {
                depth -= 1;
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts.iter().filter(|p| !p.trim().is_empty()).flat_map(|p| expand(p)).map(|p| format!("{prefix}{p}")).collect()
}

/// Every path a file's code names: its `use` trees, and `crate::…` / `super::…` paths in place.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        paths.extend(expand(&rest[..end]));
        rest = &rest[end..];
    }
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start) {
            let at = from + at;
            from = at + start.len();
            if code[..at].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            paths.push(code[at..end].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// A path named in module `here`, made absolute; `None` for another crate's.
fn absolute(path: &str, here: &Module) -> Option<Module> {
    let mut segments = path.split("::").filter(|s| !s.is_empty()).map(str::to_string);
    let first = segments.next()?;
    let mut base: Module = match first.as_str() {
        "crate" => Vec::new(),
        "self" => here.clone(),
        "super" => here[..here.len().saturating_sub(1)].to_vec(),
        _ => return None,
    };
    let mut segments = segments.peekable();
    while segments.peek().is_some_and(|s| s == "super") {
        segments.next();
        base.pop();
    }
    base.extend(segments);
    Some(base)
}

/// The imports between files: each file and the files whose items it names.
fn imports(src: &Path) -> BTreeMap<Module, BTreeMap<Module, String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(src, f)).collect();
    let owner = |target: &Module| (1..=target.len()).rev().map(|k| target[..k].to_vec()).find(|m| modules.contains(m));
    let mut edges: BTreeMap<Module, BTreeMap<Module, String>> = BTreeMap::new();
    for file in &files {
        let here = module_of(src, file);
        if here.is_empty() {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).expect("a source file reads"));
        for path in paths_in(&code) {
            let Some(dest) = absolute(&path, &here).and_then(|t| owner(&t)) else { continue };
            if dest != here {
                edges.entry(here.clone()).or_default().entry(dest).or_insert(path);
            }
        }
    }
    edges
}

/// Groups of files that import each other round a circle (a parent and its own children apart:
/// a child using its parent's types while the parent calls the child is one module's inside).
fn circles(edges: &BTreeMap<Module, BTreeMap<Module, String>>) -> Vec<Vec<Module>> {
    let related = |a: &Module, b: &Module| a.starts_with(b) || b.starts_with(a);
    let graph: BTreeMap<&Module, Vec<&Module>> =
        edges.iter().map(|(a, ds)| (a, ds.keys().filter(|b| !related(a, b)).collect())).collect();
    // Tarjan's strongly connected components.
    struct Walk<'a> {
        graph: &'a BTreeMap<&'a Module, Vec<&'a Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        found: Vec<Vec<Module>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for &w in self.graph.get(v).map_or(&[][..], Vec::as_slice) {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    group.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk =
        Walk { graph: &graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

fn problems(src: &Path) -> Vec<String> {
    let edges = imports(src);
    let name = |m: &Module| m.join("::");
    let mut out = Vec::new();
    for (a, dests) in &edges {
        for (b, path) in dests {
            match (rank(&a[0]), rank(&b[0])) {
                (None, _) => out.push(format!("{}: no layer for `{}` (add it to LAYERS)", name(a), a[0])),
                (_, None) => out.push(format!("{}: no layer for `{}` (add it to LAYERS)", name(b), b[0])),
                _ if b[0] == "render" && !RENDER_USERS.contains(&a[0].as_str()) => {
                    out.push(format!("{} uses the renderer ({}) [{path}]", name(a), name(b)))
                }
                (Some(ra), Some(rb)) if rb > ra => {
                    out.push(format!("{} ({}) uses {}, a higher layer ({}) [{path}]", name(a), a[0], name(b), b[0]))
                }
                _ => {}
            }
        }
    }
    for group in circles(&edges) {
        let names: Vec<String> = group.iter().map(name).collect();
        out.push(format!("an import circle: {}", names.join(" <-> ")));
    }
    out
}

#[test]
fn no_file_imports_from_a_higher_layer_or_round_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = problems(&src);
    assert!(found.is_empty(), "{} layering problem(s):\n{}", found.len(), found.join("\n"));
    assert!(imports(&src).len() > 100, "the import graph is too small: the scan is broken");
}

#[test]
fn the_scan_sees_upward_imports_and_circles() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path();
    for folder in ["rules", "table", "vision", "render"] {
        std::fs::create_dir_all(src.join(folder)).expect("a folder");
    }
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).expect("a file");
    write("rules/mod.rs", "pub mod a;\npub mod b;\n");
    // a and b use each other: a circle. a also reaches up into the table.
    write("rules/a.rs", "use super::b::B;\nuse crate::table::{T, place::{P}};\npub struct A;\n");
    write("rules/b.rs", "pub struct B(super::a::A);\n// use crate::vision::V;\nconst S: &str = \"crate::vision\";\n");
    write("table/mod.rs", "pub struct T;\npub mod place;\n");
    write("table/place.rs", "pub struct P;\n#[cfg(test)]\nmod tests {\n    use crate::vision::V;\n}\n");
    write("vision/mod.rs", "use crate::render::Frame;\npub struct V;\n");
    write("render/mod.rs", "pub struct Frame;\n");
    let found = problems(src);
    let has = |text: &str| found.iter().any(|p| p.contains(text));
    assert!(has("rules::a (rules) uses table, a higher layer"), "{found:?}");
    assert!(has("rules::a (rules) uses table::place, a higher layer"), "{found:?}");
    assert!(has("an import circle: rules::a <-> rules::b"), "{found:?}");
    assert!(has("vision uses the renderer (render)"), "{found:?}");
    // Comments, strings and test modules are not imports.
    assert!(!found.iter().any(|p| p.starts_with("rules::b") || p.starts_with("table::place")), "{found:?}");
}
