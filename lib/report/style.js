// The report page's stylesheet. Loads nothing.
'use strict'

const { CONTENT_TYPES } = require('./messages.js')

const CSS = `
:root{--bg:#f5f6f8;--card:#fff;--fg:#1f2430;--muted:#6b7280;--line:#e4e7ec;--accent:#2563eb;--hl:#fff4c2}
*{box-sizing:border-box}
html,body{margin:0}
body{font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 430px;min-height:100vh}
.content{padding:18px 22px 40px;min-width:0}
header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:flex-start;gap:8px 16px;margin-bottom:12px}
header .titles{flex:1 1 260px;min-width:0}
header h1{font-size:20px;margin:0 0 2px}
header .sub{color:var(--muted)}
header .sub code{background:#eceff3;padding:0 4px;border-radius:3px}
.kpis{display:flex;gap:8px;flex-wrap:wrap}
.kpi{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:6px 11px;min-width:112px}
.kpi .v{font-size:18px;font-weight:650;font-variant-numeric:tabular-nums}
.kpi .l{color:var(--muted);font-size:12px}
.kpi.good .v{color:#15803d}
.banner{border-radius:8px;padding:8px 12px;margin-bottom:12px;border:1px solid}
.banner.error{background:#fef2f2;border-color:#fecaca;color:#991b1b}
.banner.note{background:#eff6ff;border-color:#bfdbfe;color:#1e3a8a}
table.passes{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow:hidden;margin-bottom:12px;font-variant-numeric:tabular-nums}
table.passes th,table.passes td{padding:4px 7px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
table.passes th{background:#f0f2f5;font-weight:600;font-size:12px;color:#404756;white-space:nowrap}
table.passes .num{text-align:right;white-space:nowrap}
table.passes code{color:var(--muted);font-size:11px}
table.passes tr.skipped td{color:var(--muted)}
table.passes tfoot td{font-weight:650;background:#f8f9fb;border-bottom:0}
table.passes .pcell{min-width:170px}
table.passes .pname{font-weight:560}
table.passes .red{color:#15803d;margin-left:6px}
table.passes td.n{color:var(--muted);width:22px}
table.passes .acts{min-width:240px}
table.passes.ops{width:auto;min-width:50%}
.wfc{width:96px}
.wf{display:flex;width:90px;height:10px;margin-top:4px;background:#f1f3f6;border-radius:2px;overflow:hidden}
.wf-left{background:#64748b}
.wf-cut{border:1px dashed #9aa3b2;border-left:0;background:repeating-linear-gradient(135deg,#eef0f4 0 3px,#fff 3px 6px)}
.pnote{color:var(--muted);font-size:11.5px;margin-top:2px}
.chip{display:inline-block;font-size:11px;padding:0 6px;border-radius:9px;margin:1px 2px 1px 0;border:1px solid transparent}
.legend{display:flex;flex-wrap:wrap;gap:6px 22px;align-items:center;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin-bottom:12px}
.legend>div{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:center}
.legend b{margin-right:4px;font-size:12px}
.lg{display:inline-flex;align-items:center;gap:5px;font-size:12px}
.lg.unused{opacity:.45}
.sw{display:inline-block;width:12px;height:12px;border-radius:3px}
.ghost-sw{border:1px dashed #9aa3b2;background:repeating-linear-gradient(135deg,#eef0f4 0 3px,#fff 3px 6px)}
.toolbar{display:flex;justify-content:space-between;align-items:center;gap:6px 12px;margin:4px 0 6px;color:var(--muted);font-size:12px}
.toolbar .seg-toggle{flex:none;white-space:nowrap}
.seg-toggle button{font:inherit;border:1px solid var(--line);background:var(--card);padding:2px 9px;cursor:pointer;color:var(--fg)}
.seg-toggle button:first-of-type{border-radius:6px 0 0 6px}.seg-toggle button:last-of-type{border-radius:0 6px 6px 0;border-left:0}
.seg-toggle .lbl{margin-right:6px}
.seg-toggle button[aria-pressed=true]{background:#1f2430;color:#fff;border-color:#1f2430}
.messages{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:0 10px 6px}
.mhead{position:sticky;top:0;z-index:3;background:var(--card);padding-top:8px}
.finder{display:flex;flex-wrap:wrap;align-items:center;gap:6px 8px;padding:0 4px 8px;border-bottom:1px solid var(--line)}
.finder input[type=search],.finder input[type=text]{font:inherit;border:1px solid #cfd5de;border-radius:6px;padding:3px 8px;background:#fff;color:var(--fg)}
.finder input:focus-visible,.legend button.f:focus-visible,.finder button:focus-visible{outline:2px solid var(--accent);outline-offset:1px}
#search{width:min(300px,100%)}
#jump{width:72px;margin-left:4px}
.finder button{font:inherit;border:1px solid var(--line);background:var(--card);border-radius:6px;padding:2px 8px;cursor:pointer;color:var(--fg)}
.finder .only{display:inline-flex;align-items:center;gap:4px;color:var(--muted);font-size:12px}
.finder .jump{margin-left:auto;color:var(--muted);font-size:12px}
.count{color:var(--muted);font-size:12px;font-variant-numeric:tabular-nums}
.colheads{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);column-gap:14px;border-bottom:2px solid var(--line)}
.colhead{padding:8px 4px 6px;font-weight:650;display:flex;justify-content:space-between}
.colhead span{color:var(--muted);font-weight:500}
.rows{position:relative;overflow-anchor:none}
.messages.none .rows::before{content:"No row matches the filters.";display:block;padding:14px 4px;color:var(--muted)}
.row{position:absolute;left:0;right:0;display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);column-gap:14px}
.row.hit>.cell.before,.row.hit>.cell.after:not(.covered){box-shadow:inset 3px 0 0 #a855f7}
.row.hit-current>.cell{background:#f5ecff}
.cell.covered{border-bottom:0}
.cell.over{position:absolute;left:calc(50% + 7px);right:0;z-index:1;overflow:clip}
.cell.over>.idx,.cell.over>.role,.cell.over>.track,.cell.over>.tok{position:sticky;top:calc(var(--head,80px) + 6px)}
.cell.over>.badges{position:sticky;top:calc(var(--head,80px) + 28px)}
.legend button.f{font:inherit;font-size:12px;color:inherit;cursor:pointer;background:none;border:1px solid transparent;border-radius:10px;padding:1px 6px 1px 3px;display:inline-flex;align-items:center;gap:5px}
.legend button.f:hover:not(:disabled){border-color:var(--line);background:#f6f7f9}
.legend button.f[aria-pressed=true]{border-color:#1f2430;background:#eef1f6}
.legend.filtering button.f[aria-pressed=false]{opacity:.55}
.legend button.f:disabled{opacity:.4;cursor:default}
.legend .n{color:var(--muted);font-size:11px;font-variant-numeric:tabular-nums}
.legend .unit{color:var(--muted);font-weight:normal}
.legend .n:empty{display:none}
.legend .fnote{flex-basis:100%;display:flex;flex-wrap:wrap;gap:4px 12px;color:var(--muted);font-size:12px}
button.link{font:inherit;background:none;border:0;padding:0;color:var(--accent);cursor:pointer;text-decoration:underline}
mark.hit{background:#f0abfc;color:inherit;border-radius:2px}
.passes-wrap{overflow-x:auto}
.cell{display:grid;grid-template-columns:34px 18px minmax(0,1fr) 74px;grid-template-rows:auto auto;align-items:center;column-gap:6px;padding:4px 4px;border-bottom:1px solid #f0f1f4;min-height:30px}
.cell.empty{display:flex;align-items:center}
.cell .note{color:#b0b6c2;font-style:italic;font-size:12px}
.cell.spans{align-content:start;background:linear-gradient(90deg,#fff0f3,#fff 70%);border-left:3px solid #ff9da6}
.cell.highlight{background:var(--hl);box-shadow:inset 3px 0 0 #f59e0b}
.cell.selected{background:#eef4ff}
.idx{color:var(--muted);font-size:11.5px;text-align:right;font-variant-numeric:tabular-nums}
.role{display:inline-flex;justify-content:center;align-items:center;width:17px;height:17px;border-radius:50%;font-size:10px;font-weight:700;color:#fff;background:#64748b}
.role.r-user{background:#4c78a8}.role.r-assistant{background:#54a24b}.role.summary{background:#e76f86}
.track{position:relative;height:16px;min-width:0}
.bar{position:relative;z-index:1;display:flex;height:16px;min-width:3px;max-width:100%;padding:0;margin:0;border:0;border-radius:3px;overflow:hidden;cursor:pointer;background:#d5d9e0}
.bar:hover{filter:brightness(1.08);box-shadow:0 0 0 2px #c7d2fe}
.bar:focus-visible,.bar.selected{outline:2px solid var(--accent);outline-offset:1px}
.seg{display:block;height:100%;min-width:0}
.ghost{position:absolute;left:0;top:0;height:16px;border:1px dashed #9aa3b2;border-radius:3px;background:repeating-linear-gradient(135deg,#eef0f4 0 3px,#fff 3px 6px)}
.tok{text-align:right;font-variant-numeric:tabular-nums;font-size:12px;white-space:nowrap}
.delta{display:block;color:#15803d;font-size:11px;line-height:1.1}
.badges{grid-column:3/5;display:flex;flex-wrap:wrap;gap:3px;margin-top:2px}
.badge{display:inline-block;font-size:10.5px;line-height:16px;padding:0 6px;border-radius:8px;white-space:nowrap;text-decoration:none;border:1px solid transparent}
a.badge:hover{text-decoration:underline}
.k-kept{background:#f1f3f6;color:#6b7280}
.k-deduplicated{background:#dbeafe;color:#1e40af;border-color:#bfdbfe}
.k-superseded{background:#e2e8f0;color:#334155}
.k-omitted{background:#e0f2fe;color:#075985}
.k-truncated{background:#fef3c7;color:#92400e}
.k-suppressed{background:#e5e7eb;color:#374151}
.k-summarized{background:#fce7f3;color:#9d174d}
.k-removed{background:#fee2e2;color:#991b1b}
.k-changed{background:#ede9fe;color:#5b21b6}
${CONTENT_TYPES.map(([key, , color]) => `.t-${key}{background:${color}}`).join('\n')}
aside.panel{position:sticky;top:0;height:100vh;overflow:auto;background:var(--card);border-left:1px solid var(--line);padding:16px 18px 30px}
.pbar{display:none}
.panel h2{font-size:15px;margin:0 0 4px}
.panel .hint{color:var(--muted)}
.panel .meta{color:var(--muted);margin-bottom:8px}
.panel h3{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:14px 0 6px}
.p-switch{display:inline-flex;margin:4px 0 8px}
.p-types{display:flex;height:10px;border-radius:3px;overflow:hidden;margin:6px 0 4px;background:#eceff3}
.p-typelist{display:flex;flex-wrap:wrap;gap:2px 10px;font-size:12px;color:#404756}
.p-actions{margin:0;padding-left:18px}
.p-actions li{margin-bottom:4px}
.p-actions .m{display:block;color:var(--muted);font-size:11.5px;word-break:break-word}
.part{margin-bottom:10px;border:1px solid var(--line);border-radius:6px;overflow:hidden}
.part-label{background:#f3f4f7;font-size:11.5px;padding:3px 8px;color:#404756;display:flex;justify-content:space-between}
.part pre{margin:0;padding:8px;white-space:pre-wrap;word-break:break-word;font-size:11.5px;line-height:1.45;max-height:none}
a{color:var(--accent)}
@media (max-width:1100px){
.layout{display:flex;flex-direction:column;height:100vh;min-height:0}
.content{flex:1 1 0;overflow:auto;min-height:0;padding:0 12px 24px}
header{padding-top:12px}
table.passes th,table.passes td{padding:4px 5px}
table.passes .pcell{min-width:110px}
table.passes .acts{min-width:120px}
aside.panel{position:static;flex:0 0 45vh;height:auto;border-left:0;border-top:2px solid var(--line);box-shadow:0 -4px 12px rgba(15,23,42,.08);padding-top:0}
.pbar{display:flex;justify-content:space-between;align-items:center;width:100%;position:sticky;top:0;z-index:1;background:var(--card);border:0;border-bottom:1px solid var(--line);margin-bottom:10px;padding:9px 0;font:inherit;font-weight:650;color:var(--fg);cursor:pointer}
.pbar span{color:var(--muted);font-weight:500;font-size:12px}
aside.panel.collapsed{flex:0 0 auto;overflow:hidden;padding-bottom:0}
aside.panel.collapsed .pbar{margin-bottom:0;border-bottom:0}
aside.panel.collapsed #panel-body{display:none}
}
`

module.exports = { CSS }
