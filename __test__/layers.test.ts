// The modules form layers: no file reaches, through its imports, back to itself. Builds the import
// graph of the JavaScript API (`lib/`: require(), import and export-from of relative paths) and of
// each Rust crate (the engine, `src/`, and the binding, `crates/binding/src/`: `crate::` paths, in `use` items and in code, and `super::` paths, each
// resolved to the file of the module it names; a `mod` declaration is not an import, and test code
// (`#[cfg(test)]` items and `tests.rs` files) may use any module), and fails naming every circle.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(__dirname, '..')

type Graph = Map<string, Map<string, Set<string>>> // file -> imported file -> names seen

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...files(p, ext))
    else if (ext.test(name)) out.push(p)
  }
  return out
}

function addEdge(g: Graph, from: string, to: string, name: string) {
  if (from === to) return
  let targets = g.get(from)
  if (!targets) g.set(from, (targets = new Map()))
  let names = targets.get(to)
  if (!names) targets.set(to, (names = new Set()))
  names.add(name)
}

/** Source with its comments blanked (strings are kept: module specifiers are strings). */
function withoutComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

// ---- JavaScript ----

function resolveJs(fromFile: string, spec: string): string | undefined {
  const base = resolve(dirname(fromFile), spec)
  for (const c of [base, `${base}.js`, `${base}.mjs`, `${base}.cjs`, join(base, 'index.js')]) {
    if (existsSync(c) && statSync(c).isFile()) return c
  }
  return undefined
}

function jsGraph(dir: string): Graph {
  const g: Graph = new Map()
  const patterns = [
    /\brequire\(\s*(['"])(\.{1,2}\/[^'"]*)\1\s*\)/g,
    /\bimport\(\s*(['"])(\.{1,2}\/[^'"]*)\1\s*\)/g,
    /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*(['"])(\.{1,2}\/[^'"]*)\1/gm,
    /^\s*import\s*(['"])(\.{1,2}\/[^'"]*)\1/gm,
  ]
  for (const file of files(dir, /\.(c|m)?js$/)) {
    const src = withoutComments(readFileSync(file, 'utf8'))
    g.set(file, g.get(file) ?? new Map())
    for (const re of patterns) {
      for (const m of src.matchAll(re)) {
        const target = resolveJs(file, m[2])
        if (target) addEdge(g, file, target, m[2])
      }
    }
  }
  return g
}

// ---- Rust ----

/** Blanks every `#[cfg(test)]` item (a `mod tests { ... }` or a single item) of a Rust source. */
function withoutTestItems(src: string): string {
  let out = src
  for (;;) {
    const at = out.indexOf('#[cfg(test)]')
    if (at < 0) return out
    let i = at + '#[cfg(test)]'.length
    // The item ends at its `;` (e.g. `mod tests;`) or at the brace that closes its body.
    let depth = 0
    for (; i < out.length; i++) {
      const ch = out[i]
      if (ch === ';' && depth === 0) break
      if (ch === '{') depth++
      if (ch === '}') {
        depth--
        if (depth === 0) break
      }
    }
    out = out.slice(0, at) + out.slice(at, i + 1).replace(/[^\n]/g, ' ') + out.slice(i + 1)
  }
}

/** Expands a `use` tree (`a::{b, c::{self, d}}`) into its paths (`a::b`, `a::c::self`, `a::c::d`). */
function expandUse(tree: string): string[] {
  const t = tree.replace(/\s+as\s+\w+/g, '').replace(/\s+/g, '')
  const open = t.indexOf('{')
  if (open < 0) return [t.replace(/\bas\w+$/, '')]
  const prefix = t.slice(0, open)
  const inner = t.slice(open + 1, t.lastIndexOf('}'))
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i <= inner.length; i++) {
    const ch = inner[i]
    if (ch === '{') depth++
    else if (ch === '}') depth--
    else if ((ch === ',' || i === inner.length) && depth === 0) {
      if (i > start) parts.push(inner.slice(start, i))
      start = i + 1
    }
  }
  return parts.flatMap((p) => expandUse(p).map((s) => prefix + s))
}

/** The module path (`["passes", "runner"]`) of a file under `src`. */
function modulePath(srcDir: string, file: string): string[] {
  const rel = relative(srcDir, file).replace(/\\/g, '/').replace(/\.rs$/, '')
  const parts = rel.split('/')
  const last = parts[parts.length - 1]
  if (last === 'mod' || (parts.length === 1 && last === 'lib')) parts.pop()
  return parts
}

/** The file of the longest module prefix of `segments` (the rest are items inside it). */
function moduleFile(srcDir: string, segments: string[]): string | undefined {
  for (let n = segments.length; n >= 0; n--) {
    const p = segments.slice(0, n)
    const candidates = n === 0 ? [join(srcDir, 'lib.rs')] : [join(srcDir, ...p) + '.rs', join(srcDir, ...p, 'mod.rs')]
    for (const c of candidates) if (existsSync(c)) return c
  }
  return undefined
}

function rustGraph(srcDir: string): Graph {
  const g: Graph = new Map()
  for (const file of files(srcDir, /\.rs$/)) {
    g.set(file, g.get(file) ?? new Map())
    if (file.endsWith('/tests.rs')) continue
    const src = withoutTestItems(withoutComments(readFileSync(file, 'utf8')))
    const own = modulePath(srcDir, file)
    const paths: string[] = []
    for (const m of src.matchAll(/\buse\s+((?:crate|super)::[^;]*);/g)) paths.push(...expandUse(m[1]))
    const code = src.replace(/\buse\s+(?:crate|super)::[^;]*;/g, '')
    for (const m of code.matchAll(/\b(?:crate|super)(?:::(?:super\b|[A-Za-z_]\w*))+/g)) paths.push(m[0])
    for (const path of paths) {
      const segments = path.split('::').filter((s) => s !== 'self')
      let base: string[]
      if (segments[0] === 'crate') {
        base = []
        segments.shift()
      } else {
        base = own.slice()
        while (segments[0] === 'super') {
          base.pop()
          segments.shift()
        }
      }
      const target = moduleFile(srcDir, [...base, ...segments])
      if (target) addEdge(g, file, target, segments[segments.length - 1] ?? path)
    }
  }
  return g
}

// ---- circles ----

/** The strongly connected parts of more than one file (Tarjan's algorithm). */
function circles(g: Graph): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of g.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number))
    }
    if (low.get(v) === idx.get(v)) {
      const part: string[] = []
      let w: string
      do {
        w = stack.pop() as string
        on.delete(w)
        part.push(w)
      } while (w !== v)
      if (part.length > 1) out.push(part.sort())
    }
  }
  for (const v of [...g.keys()].sort()) if (!idx.has(v)) visit(v)
  return out
}

/** A circle named file by file: its files, and each import inside it with the names it takes. */
function describeCircle(g: Graph, part: string[]): string {
  const inside = new Set(part)
  const lines = [`${part.length} files: ${part.map((f) => relative(root, f)).join(', ')}`]
  for (const from of part) {
    for (const [to, names] of g.get(from) ?? []) {
      if (inside.has(to)) lines.push(`  ${relative(root, from)} -> ${relative(root, to)}: ${[...names].sort().join(', ')}`)
    }
  }
  return lines.join('\n')
}

describe('the modules form layers (no import circles)', () => {
  it('lib/: no JavaScript module imports itself through others', () => {
    const g = jsGraph(join(root, 'lib'))
    expect(g.size).toBeGreaterThan(30)
    expect(circles(g).map((c) => describeCircle(g, c))).toEqual([])
  })

  it('lib/internal/ sits under the facades: nothing in it requires a module of lib/ outside it, and only lib/internal/native.js loads the engine', () => {
    const lib = join(root, 'lib')
    const internal = join(lib, 'internal') + sep
    const g = jsGraph(lib)
    const inside = [...g.keys()].filter((f) => f.startsWith(internal))
    expect(inside.length).toBeGreaterThan(15)
    const up: string[] = []
    for (const from of inside) {
      for (const [to, names] of g.get(from) ?? []) {
        if (to.startsWith(lib + sep) && !to.startsWith(internal)) up.push(`${relative(root, from)} -> ${relative(root, to)}: ${[...names].join(', ')}`)
      }
    }
    expect(up).toEqual([])
    // The engine is loaded through napi-rs's generated loader (the package's index.js), a .node
    // file, or a platform package: one module of lib/ does it.
    const loads = (file: string) =>
      [...(g.get(file)?.keys() ?? [])].includes(join(root, 'index.js')) ||
      /\b(?:require|dlopen)\([^)]*(?:\.node\b|['"`]context-condense-)/.test(
        withoutComments(readFileSync(file, 'utf8')).replace(/require\.resolve\([^)]*\)/g, ''),
      )
    expect([...g.keys()].filter(loads).map((f) => relative(root, f))).toEqual(['lib/internal/native.js'])
  })

  it('src/: no Rust module uses itself through others', () => {
    const g = rustGraph(join(root, 'src'))
    expect(g.size).toBeGreaterThan(30)
    expect(circles(g).map((c) => describeCircle(g, c))).toEqual([])
  })

  it('crates/binding/src/: no module of the binding crate uses itself through others (its crate:: and super:: paths are its own)', () => {
    const g = rustGraph(join(root, 'crates', 'binding', 'src'))
    expect(g.size).toBeGreaterThan(8)
    expect(circles(g).map((c) => describeCircle(g, c))).toEqual([])
  })

  it('finds a circle where there is one, and reads the shapes of import the modules use', () => {
    const js: Graph = new Map()
    addEdge(js, 'a', 'b', 'x')
    addEdge(js, 'b', 'c', 'y')
    addEdge(js, 'c', 'a', 'z')
    addEdge(js, 'c', 'd', 'w')
    expect(circles(js)).toEqual([['a', 'b', 'c']])
    expect(expandUse('crate::passes::{runner::{self, Policy}, Pass as P}')).toEqual([
      'crate::passes::runner::self',
      'crate::passes::runner::Policy',
      'crate::passes::Pass',
    ])
    // The graphs see the edges the layers rest on.
    const rust = rustGraph(join(root, 'src'))
    const rel = (g: Graph, f: string) => [...(g.get(join(root, f))?.keys() ?? [])].map((t) => relative(root, t))
    expect(rel(rust, 'src/providers/lossless.rs')).toContain('src/passes/runner.rs')
    expect(rel(rust, 'src/passes/dedup_reads.rs')).toContain('src/passes/mod.rs')
    const lib = jsGraph(join(root, 'lib'))
    expect(rel(lib, 'lib/index.js')).toContain('lib/manager.js')
  })
})
