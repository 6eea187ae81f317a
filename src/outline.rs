//! An outline of a file's definitions from its text alone, without a parser: a line-based scanner
//! per language (TypeScript/JavaScript, Python, Rust, Go, Java/C#/Kotlin, C/C++, Ruby, PHP,
//! Markdown headings) that keeps the signature lines of functions, classes, types and methods
//! with their line numbers, as Roo Code's `list_code_definition_names` shows a file. A file of
//! another language has no outline (`None`), never a guess.
//!
//! Reads only; never executes or interprets the text beyond matching line starts.

/// The languages the scanner knows, chosen by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    TypeScript,
    Python,
    Rust,
    Go,
    JavaLike,
    C,
    Ruby,
    Php,
    Markdown,
}

impl Language {
    /// The language of `path` by its extension; `None` for any other file.
    pub fn of(path: &str) -> Option<Language> {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" | "mts" | "cts" => Language::TypeScript,
            "py" | "pyi" => Language::Python,
            "rs" => Language::Rust,
            "go" => Language::Go,
            "java" | "cs" | "kt" | "kts" | "scala" | "swift" => Language::JavaLike,
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Language::C,
            "rb" => Language::Ruby,
            "php" => Language::Php,
            "md" | "markdown" | "mdx" => Language::Markdown,
            _ => return None,
        })
    }
}

/// Longest signature line kept, in characters.
const MAX_LINE_CHARS: usize = 200;

/// The definition lines of a file: `(line number, signature line)`, in order. `lines` are the
/// file's lines with their numbers (a read may show only some). `None` when the language is not
/// known; an empty list when it is but nothing was found.
pub fn outline<'a>(path: &str, lines: impl IntoIterator<Item = (u32, &'a str)>) -> Option<Vec<(u32, String)>> {
    let lang = Language::of(path)?;
    let mut out = Vec::new();
    let mut in_block_comment = false;
    let mut in_fence = false;
    for (n, line) in lines {
        let line = line.trim_end_matches(['\r', '\n']);
        let t = line.trim_start();
        if lang == Language::Markdown {
            if t.starts_with("```") || t.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            if !in_fence && is_heading(t) {
                out.push((n, cut(line.trim_end())));
            }
            continue;
        }
        if in_block_comment {
            if t.contains("*/") {
                in_block_comment = false;
            }
            continue;
        }
        if t.starts_with("/*") && !t.contains("*/") && uses_c_comments(lang) {
            in_block_comment = true;
            continue;
        }
        if t.is_empty() || is_comment(lang, t) {
            continue;
        }
        let indent = line.len() - t.len();
        if is_definition(lang, t, indent) {
            out.push((n, cut(line.trim_end())));
        }
    }
    Some(out)
}

/// The outline as numbered lines (`12 | export function f() {`), one per definition.
pub fn render(defs: &[(u32, String)]) -> String {
    let mut out = String::new();
    for (n, line) in defs {
        out.push_str(&format!("{n} | {line}\n"));
    }
    out
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

fn is_heading(t: &str) -> bool {
    let hashes = t.bytes().take_while(|b| *b == b'#').count();
    (1..=6).contains(&hashes) && t.as_bytes().get(hashes) == Some(&b' ')
}

fn uses_c_comments(lang: Language) -> bool {
    !matches!(lang, Language::Python | Language::Ruby | Language::Markdown)
}

fn is_comment(lang: Language, t: &str) -> bool {
    match lang {
        Language::Python | Language::Ruby => t.starts_with('#'),
        Language::Php => t.starts_with("//") || t.starts_with('#') || t.starts_with('*') || t.starts_with("/*"),
        Language::C => t.starts_with("//") || t.starts_with('*') || t.starts_with("/*") || t.starts_with('#'),
        _ => t.starts_with("//") || t.starts_with('*') || t.starts_with("/*"),
    }
}

/// Strips any of `words` (each followed by a space) from the start of `t`, repeatedly.
fn strip_words<'t>(mut t: &'t str, words: &[&str]) -> &'t str {
    loop {
        let before = t;
        for w in words {
            if let Some(rest) = t.strip_prefix(w).and_then(|r| r.strip_prefix(' ')) {
                t = rest.trim_start();
            }
        }
        if t.len() == before.len() {
            return t;
        }
    }
}

fn starts_with_word(t: &str, word: &str) -> bool {
    t.strip_prefix(word).is_some_and(|r| r.starts_with([' ', '(', '<', '{', ':']) || r.is_empty())
}

fn any_word(t: &str, words: &[&str]) -> bool {
    words.iter().any(|w| starts_with_word(t, w))
}

const CONTROL: [&str; 14] = [
    "if", "for", "while", "switch", "catch", "return", "else", "do", "try", "new", "throw", "await", "case", "foreach",
];

/// `name(` at the start of `t`: an identifier directly followed by an opening parenthesis.
fn call_like(t: &str) -> bool {
    let ident = t.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$').count();
    ident > 0 && !t.as_bytes()[0].is_ascii_digit() && t[ident..].starts_with(['(', '<']) && !any_word(t, &CONTROL)
}

fn is_definition(lang: Language, t: &str, indent: usize) -> bool {
    match lang {
        Language::TypeScript => ts_definition(t, indent),
        Language::Python => any_word(strip_words(t, &["async"]), &["def", "class"]),
        Language::Rust => {
            let s =
                strip_words(t, &["pub", "pub(crate)", "pub(super)", "async", "const", "unsafe", "extern", "default"]);
            any_word(s, &["fn", "struct", "enum", "trait", "impl", "type", "mod", "union"])
                || s.starts_with("macro_rules!")
        }
        Language::Go => any_word(t, &["func"]) || (indent == 0 && any_word(t, &["type"])),
        Language::JavaLike => java_definition(t),
        Language::C => c_definition(t, indent),
        Language::Ruby => any_word(t, &["def", "class", "module"]),
        Language::Php => {
            let s = strip_words(t, &["public", "private", "protected", "static", "abstract", "final", "readonly"]);
            any_word(s, &["function", "class", "interface", "trait", "enum"])
        }
        Language::Markdown => false,
    }
}

const TS_MODIFIERS: [&str; 15] = [
    "export",
    "default",
    "declare",
    "abstract",
    "async",
    "public",
    "private",
    "protected",
    "static",
    "readonly",
    "override",
    "get",
    "set",
    "function*",
    "*",
];

fn ts_definition(t: &str, indent: usize) -> bool {
    let exported = starts_with_word(t, "export");
    let s = strip_words(t, &TS_MODIFIERS);
    if any_word(s, &["function", "class", "interface", "enum", "namespace", "module"]) {
        return true;
    }
    // `type Name<T> =`: a type alias (not an expression that starts with a variable `type`).
    if let Some(rest) = s.strip_prefix("type ") {
        let name = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$').count();
        let after = rest[name..].trim_start();
        return name > 0 && (after.starts_with('=') || after.starts_with('<'));
    }
    // `const f = (...) =>`, `const f = async function`: a function bound at the top level.
    if any_word(s, &["const", "let", "var"]) && (indent == 0 || exported) {
        let rhs = s.split_once('=').map_or("", |(_, r)| r.trim_start());
        return rhs.contains("=>") || rhs.starts_with("function") || rhs.starts_with("async");
    }
    // Test blocks are a test file's definitions: `describe("x", () => {`, `it(...)`.
    if ["describe", "it", "test", "suite", "context"]
        .iter()
        .any(|w| s.strip_prefix(w).is_some_and(|r| r.starts_with('(')))
        && t.trim_end().ends_with('{')
    {
        return true;
    }
    // A method or constructor inside a class: `name(args) {` or `name<T>(args): R {`; a call
    // taking a callback (`setTimeout(() => {`, `list.forEach(function (x) {`) is not one.
    indent > 0 && call_like(s) && t.trim_end().ends_with('{') && !t.contains("=>") && !t.contains("function")
}

const JAVA_MODIFIERS: [&str; 17] = [
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "final",
    "abstract",
    "sealed",
    "override",
    "virtual",
    "async",
    "partial",
    "readonly",
    "synchronized",
    "open",
    "data",
    "suspend",
];

fn java_definition(t: &str) -> bool {
    let s = strip_words(t, &JAVA_MODIFIERS);
    if any_word(s, &["class", "interface", "enum", "record", "struct", "fun", "object", "namespace", "trait", "func"]) {
        return true;
    }
    // A method: `Type name(...)` ending in `{` (or the brace on the next line), not a call.
    if t.ends_with(';') || any_word(s, &CONTROL) || s.starts_with('@') {
        return false;
    }
    let Some(paren) = s.find('(') else { return false };
    let head = &s[..paren];
    let words = head.split_whitespace().count();
    // Two words (`Type name`), or a constructor: one word after a modifier.
    let shaped = words >= 2 || (words == 1 && s.len() < t.len());
    shaped && !head.contains('=') && !head.contains('.') && !head.contains('"')
}

fn c_definition(t: &str, indent: usize) -> bool {
    let s = strip_words(t, &["static", "inline", "extern", "typedef", "template", "virtual", "constexpr"]);
    if any_word(s, &["struct", "class", "enum", "union", "namespace"]) && !t.ends_with(';') {
        return true;
    }
    if indent > 0 || t.ends_with(';') || any_word(s, &CONTROL) || t.starts_with('}') {
        return false;
    }
    // A function definition at the top level: `type name(args)` (the brace may follow).
    let Some(paren) = s.find('(') else { return false };
    let head = &s[..paren];
    head.split_whitespace().count() >= 2 && !head.contains('=')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(u32, &str)> {
        text.lines().enumerate().map(|(i, l)| (i as u32 + 1, l)).collect()
    }

    fn names(path: &str, text: &str) -> Vec<u32> {
        outline(path, lines(text)).unwrap().into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn typescript() {
        let t = "import { x } from './x'\n\nexport interface Options {\n  a: number\n}\n\nexport type Id = string\n\nexport class Store<T> extends Base {\n  private items: T[] = []\n  constructor(private readonly name: string) {\n    super()\n  }\n  async load(id: Id): Promise<T> {\n    if (x) {\n      return this.get(id)\n    }\n    for (const i of this.items) console.log(i)\n  }\n}\n\nexport const make = (n: number) => new Store(String(n))\nconst limit = 10\nexport default function main() {}\nclass Q {\n  run() {\n    setTimeout(() => {\n      type === \"tool\" ||\n    }, 1)\n  }\n}\n";
        assert_eq!(names("src/store.ts", t), vec![3, 7, 9, 11, 14, 22, 24, 25, 26]);
        let rendered = render(&outline("a.ts", lines(t)).unwrap());
        assert!(rendered.starts_with("3 | export interface Options {\n7 | export type Id = string\n"));
    }

    #[test]
    fn typescript_tests() {
        let t = "import { it } from \"vitest\"\n\ndescribe(\"Store\", () => {\n\tbeforeEach(() => {\n\t\tvi.clearAllMocks()\n\t})\n\n\tit(\"loads\", async () => {\n\t\texpect(1).toBe(1)\n\t})\n})\n";
        assert_eq!(names("src/store.spec.ts", t), vec![3, 8]);
    }

    #[test]
    fn python() {
        let t = "import os\n\nclass Cache:\n    \"\"\"Doc.\"\"\"\n    def __init__(self, size):\n        self.size = size\n\n    async def get(self, key):\n        # def not_this\n        return None\n\ndef main():\n    pass\n";
        assert_eq!(names("cache.py", t), vec![3, 5, 8, 12]);
    }

    #[test]
    fn rust() {
        let t = "use std::fmt;\n\n/// A thing.\npub struct Thing {\n    a: u8,\n}\n\nimpl fmt::Display for Thing {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        let x = call(1);\n        Ok(())\n    }\n}\n\npub(crate) async fn run() {}\nenum E { A }\nmacro_rules! m { () => {} }\n";
        assert_eq!(names("src/lib.rs", t), vec![4, 8, 9, 15, 16, 17]);
    }

    #[test]
    fn go() {
        let t = "package main\n\ntype Server struct {\n\taddr string\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\nfunc main() {\n\ts := Server{}\n}\n";
        assert_eq!(names("main.go", t), vec![3, 7, 11]);
    }

    #[test]
    fn java_and_csharp() {
        let t = "package a;\n\nimport b.C;\n\n@Service\npublic class UserService {\n    private final Repo repo;\n\n    public UserService(Repo repo) {\n        this.repo = repo;\n    }\n\n    public List<User> findAll(int limit) {\n        if (limit > 0) {\n            return repo.find(limit);\n        }\n        return List.of();\n    }\n}\n";
        assert_eq!(names("UserService.java", t), vec![6, 9, 13]);
        let cs = "namespace App {\n  public sealed class Job {\n    public async Task Run(CancellationToken ct) {\n      await Step(ct);\n    }\n  }\n}\n";
        assert_eq!(names("Job.cs", cs), vec![1, 2, 3]);
    }

    #[test]
    fn c_and_cpp() {
        let t = "#include <stdio.h>\n\nstruct point {\n  int x;\n};\n\nstatic int add(int a, int b)\n{\n  return a + b;\n}\n\nint main(void) {\n  printf(\"%d\", add(1, 2));\n  return 0;\n}\nint declared(int);\n";
        assert_eq!(names("main.c", t), vec![3, 7, 12]);
        let cpp = "namespace geo {\nclass Shape {\n public:\n  virtual double area() const = 0;\n};\n}\n";
        assert_eq!(names("shape.hpp", cpp), vec![1, 2]);
    }

    #[test]
    fn ruby_and_php() {
        let rb = "module Billing\n  class Invoice\n    def total\n      items.sum\n    end\n  end\nend\n";
        assert_eq!(names("invoice.rb", rb), vec![1, 2, 3]);
        let php = "<?php\nnamespace App;\n\nfinal class Cart\n{\n    public function add(Item $item): void\n    {\n        $this->items[] = $item;\n    }\n    private static function total() {}\n}\nfunction helper() {}\n";
        assert_eq!(names("Cart.php", php), vec![4, 6, 10, 12]);
    }

    #[test]
    fn markdown_headings_outside_code_fences() {
        let md = "# Title\n\ntext\n\n## Usage\n\n```sh\n# not a heading\n```\n\n### Options\n#nope\n";
        assert_eq!(names("README.md", md), vec![1, 5, 11]);
    }

    #[test]
    fn unknown_languages_have_no_outline() {
        assert!(outline("data.json", lines("{\"a\": 1}")).is_none());
        assert!(outline("Makefile", lines("all:\n\tcc a.c")).is_none());
        assert_eq!(outline("empty.ts", lines("const x = 1\n")), Some(vec![]));
    }

    #[test]
    fn block_comments_and_long_lines() {
        let t = "/*\nfunction commented() {}\n*/\nfunction real() {}\n";
        assert_eq!(names("a.js", t), vec![4]);
        let long = format!("function f({}) {{}}", "a, ".repeat(100));
        let o = outline("a.js", lines(&long)).unwrap();
        assert!(o[0].1.ends_with('…') && o[0].1.chars().count() == MAX_LINE_CHARS + 1);
    }
}
