// Every relative link in README.md and docs/*.md points at something that exists: the file or folder,
// and, for a link with `#anchor` into a Markdown file, a heading of that file (named as GitHub names
// headings: lower case, punctuation dropped, spaces as hyphens, a repeated heading numbered -1, -2, …).
// Links inside code (fenced blocks, `inline code`) are not links and are not checked; neither are
// addresses with a scheme (https:, mailto:), which would need the network.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(__dirname, '..')
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** The text outside fenced code blocks and inline code spans, line for line. */
function prose(markdown: string): string {
  const lines = markdown.split('\n')
  let fence: string | null = null
  const out: string[] = []
  for (const line of lines) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null
      out.push('')
      continue
    }
    if (m) {
      fence = m[1]
      out.push('')
      continue
    }
    out.push(line.replace(/(`+)[\s\S]*?\1/g, ''))
  }
  return out.join('\n')
}

/** GitHub's anchor for a heading's text. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

const anchorCache = new Map<string, Set<string>>()
function anchorsOf(file: string): Set<string> {
  const known = anchorCache.get(file)
  if (known) return known
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  let fence: string | null = null
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null
      continue
    }
    if (f) {
      fence = f[1]
      continue
    }
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!h) continue
    const base = slug(h[1])
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  anchorCache.set(file, anchors)
  return anchors
}

/** Every `[text](target)` and `![alt](target)` of a page, with its line. */
function linksOf(page: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = []
  prose(readFileSync(join(root, page), 'utf8'))
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1], line: i + 1 })
    })
  return links
}

/** What is wrong with one link, or null when it resolves. */
function problem(page: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null
  const hash = target.indexOf('#')
  const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash))
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1))
  const file = path === '' ? join(root, page) : resolve(dirname(join(root, page)), path)
  if (!file.startsWith(root)) return `${target}: points outside the repository`
  if (!existsSync(file)) return `${target}: no such file or folder (${relative(root, file)})`
  if (anchor === null) return null
  if (!file.endsWith('.md')) return null
  if (!anchorsOf(file).has(anchor)) return `${target}: ${relative(root, file)} has no heading whose anchor is #${anchor}`
  return null
}

describe('links in the README and docs/', () => {
  it('finds the pages and their links', () => {
    expect(pages).toContain('README.md')
    expect(pages.length).toBeGreaterThan(5)
    expect(linksOf('README.md').length).toBeGreaterThan(10)
  })

  it('knows GitHub’s anchors', () => {
    expect(slug('Roo Code drop-in: `context-condense/roo`')).toBe('roo-code-drop-in-context-condenseroo')
    expect(slug('The manager: when to condense, and what to do when it fails')).toBe('the-manager-when-to-condense-and-what-to-do-when-it-fails')
    expect(slug('Which provider or policy to pick')).toBe('which-provider-or-policy-to-pick')
  })

  for (const page of pages) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const broken = linksOf(page)
        .map(({ target, line }) => ({ line, why: problem(page, target) }))
        .filter((b) => b.why !== null)
        .map((b) => `${page}:${b.line}: ${b.why}`)
      expect(broken).toEqual([])
    })
  }
})
