// Stand-in for Roo's i18n: t() with Roo's English strings (Roo's own en locale at the same commit)
// and i18next's {{name}} interpolation.
import common from './locales/en/common.json'

const locales: Record<string, any> = { common }

export function t(key: string, vars: Record<string, unknown> = {}): string {
  const [ns, path] = key.includes(':') ? key.split(':', 2) : ['common', key]
  let v: any = locales[ns]
  for (const part of path.split('.')) v = v == null ? undefined : v[part]
  if (typeof v !== 'string') return key
  return v.replace(/\{\{\s*(\w+)\s*\}\}/g, (_: string, name: string) => (name in vars ? String(vars[name]) : `{{${name}}}`))
}
