// The panel's stylesheet: VS Code's theme variables when the host page defines them (a webview
// does); otherwise its own colours for the page's light or dark scheme (prefers-color-scheme),
// each pair of text and background readable (contrast 4.5:1 or more). Loads nothing.

export const STYLE = `
:host { color-scheme: light dark;
  --cc-fg: #1f2328; --cc-bg: #ffffff; --cc-muted: #59636e; --cc-border: #d0d7de; --cc-input-fg: #1f2328; --cc-input-bg: #ffffff;
  --cc-input-border: #8c959f; --cc-button-fg: #1f2328; --cc-button-bg: #eef1f4; --cc-primary-fg: #ffffff; --cc-primary-bg: #0b5cad;
  --cc-error: #b42318; --cc-focus: #0b5cad; --cc-code-bg: #eef1f4; --cc-block-bg: #f3f5f7; --cc-bar: #3b82f6; --cc-bar-before: #9aa4af; }
@media (prefers-color-scheme: dark) { :host {
  --cc-fg: #d4d4d4; --cc-bg: #1e1e1e; --cc-muted: #a8b0b8; --cc-border: #454a50; --cc-input-fg: #e6e6e6; --cc-input-bg: #2b2d30;
  --cc-input-border: #7d848c; --cc-button-fg: #e6e6e6; --cc-button-bg: #3a3d41; --cc-primary-fg: #ffffff; --cc-primary-bg: #0e639c;
  --cc-error: #f48771; --cc-focus: #3794ff; --cc-code-bg: #33363a; --cc-block-bg: #252629; --cc-bar: #4f8ff7; --cc-bar-before: #6b737c; } }
:host { display: block; font-family: var(--vscode-font-family, system-ui, sans-serif); font-size: var(--vscode-font-size, 13px);
  color: var(--vscode-foreground, var(--cc-fg)); background: var(--vscode-editor-background, var(--cc-bg)); line-height: 1.4; }
* { box-sizing: border-box; }
h2 { font-size: 1.15em; margin: 1.2em 0 .4em; }
h3 { font-size: 1em; margin: 1em 0 .3em; }
fieldset { border: 1px solid var(--vscode-panel-border, var(--cc-border)); border-radius: 4px; margin: .5em 0; padding: .4em .8em .6em; }
legend { font-weight: 600; padding: 0 .3em; }
.cc-field { display: grid; gap: .15em; margin: .45em 0; }
.cc-check { display: flex; gap: .4em; align-items: center; flex-wrap: wrap; }
.cc-check > .cc-help, .cc-check > .cc-error { flex-basis: 100%; }
.cc-help { color: var(--vscode-descriptionForeground, var(--cc-muted)); font-size: .92em; }
.cc-error { color: var(--vscode-errorForeground, var(--cc-error)); font-size: .92em; }
.cc-error:empty { display: none; }
.cc-invalid > input, .cc-invalid > select, .cc-invalid > textarea { outline: 1px solid var(--vscode-inputValidation-errorBorder, var(--cc-error)); }
input[type=text], input[type=number], select, textarea {
  font: inherit; color: var(--vscode-input-foreground, var(--cc-input-fg)); background: var(--vscode-input-background, var(--cc-input-bg));
  border: 1px solid var(--vscode-input-border, var(--cc-input-border)); border-radius: 2px; padding: .2em .35em; max-width: 100%; }
textarea { width: 100%; font-family: var(--vscode-editor-font-family, ui-monospace, monospace); }
button { font: inherit; color: var(--vscode-button-secondaryForeground, var(--cc-button-fg)); background: var(--vscode-button-secondaryBackground, var(--cc-button-bg));
  border: 1px solid var(--vscode-button-border, var(--cc-input-border)); border-radius: 2px; padding: .2em .7em; cursor: pointer; }
button.cc-primary { color: var(--vscode-button-foreground, var(--cc-primary-fg)); background: var(--vscode-button-background, var(--cc-primary-bg)); }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 2px solid var(--vscode-focusBorder, var(--cc-focus)); outline-offset: 1px; }
.cc-providers { display: grid; grid-template-columns: repeat(auto-fit, minmax(14em, 1fr)); gap: .5em; }
.cc-provider { display: flex; gap: .5em; align-items: flex-start; border: 1px solid var(--vscode-panel-border, var(--cc-border)); border-radius: 4px; padding: .5em; }
.cc-provider:has(input:checked) { border-color: var(--vscode-focusBorder, var(--cc-focus)); }
.cc-row { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; margin: .3em 0; }
.cc-item { border-left: 3px solid var(--vscode-panel-border, var(--cc-border)); padding-left: .6em; margin: .5em 0; }
.cc-status { margin: .4em 0; }
.cc-errors { border: 1px solid var(--vscode-inputValidation-errorBorder, var(--cc-error)); border-radius: 4px; padding: .3em .8em; }
.cc-errors:empty { display: none; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25em .5em; border-bottom: 1px solid var(--vscode-panel-border, var(--cc-border)); vertical-align: middle; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.cc-bar { height: .8em; background: var(--vscode-charts-blue, var(--cc-bar)); border-radius: 2px; }
.cc-bar.before { width: 100%; background: var(--vscode-charts-gray, var(--cc-bar-before)); }
.cc-bars { display: grid; gap: 2px; min-width: 8em; }
pre { white-space: pre-wrap; word-break: break-word; max-height: 20em; overflow: auto; background: var(--vscode-textCodeBlock-background, var(--cc-block-bg)); padding: .5em; }
details > summary { cursor: pointer; margin: .4em 0; }
code { font-family: var(--vscode-editor-font-family, ui-monospace, monospace); font-size: .95em; background: var(--vscode-textCodeBlock-background, var(--cc-code-bg)); padding: 0 .2em; border-radius: 2px; }
.cc-error { white-space: pre-line; }
.cc-request { max-height: 30em; overflow: auto; border: 1px solid var(--vscode-panel-border, var(--cc-border)); border-radius: 4px; padding: .3em .6em; }
.cc-msg { margin: .5em 0; }
details.cc-compact > summary { display: flex; gap: .6em; align-items: baseline; flex-wrap: wrap; }
details.cc-compact > summary::marker { content: ''; }
details.cc-compact > summary::before { content: '▸'; }
details.cc-compact[open] > summary::before { content: '▾'; }
.cc-line { color: var(--vscode-descriptionForeground, var(--cc-muted)); }
.cc-msg-role { font-weight: 600; text-transform: capitalize; }
.cc-msg-text { white-space: pre-wrap; overflow-wrap: anywhere; font-family: var(--vscode-editor-font-family, ui-monospace, monospace); font-size: .92em;
  background: var(--vscode-textCodeBlock-background, var(--cc-block-bg)); padding: .3em .5em; border-radius: 2px; }
`
