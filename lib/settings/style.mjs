// The panel's stylesheet: VS Code's theme variables when the host page defines them (a webview
// does), a sober light/dark default otherwise. Loads nothing.

export const STYLE = `
:host { display: block; font-family: var(--vscode-font-family, system-ui, sans-serif); font-size: var(--vscode-font-size, 13px);
  color: var(--vscode-foreground, #1f2328); background: var(--vscode-editor-background, transparent); line-height: 1.4; }
@media (prefers-color-scheme: dark) { :host { color: var(--vscode-foreground, #d4d4d4); } }
* { box-sizing: border-box; }
h2 { font-size: 1.15em; margin: 1.2em 0 .4em; }
h3 { font-size: 1em; margin: 1em 0 .3em; }
fieldset { border: 1px solid var(--vscode-panel-border, #d0d7de); border-radius: 4px; margin: .5em 0; padding: .4em .8em .6em; }
legend { font-weight: 600; padding: 0 .3em; }
.cc-field { display: grid; gap: .15em; margin: .45em 0; }
.cc-check { display: flex; gap: .4em; align-items: center; flex-wrap: wrap; }
.cc-check > .cc-help, .cc-check > .cc-error { flex-basis: 100%; }
.cc-help { color: var(--vscode-descriptionForeground, #59636e); font-size: .92em; }
.cc-error { color: var(--vscode-errorForeground, #b42318); font-size: .92em; }
.cc-error:empty { display: none; }
.cc-invalid > input, .cc-invalid > select, .cc-invalid > textarea { outline: 1px solid var(--vscode-inputValidation-errorBorder, #b42318); }
input[type=text], input[type=number], select, textarea {
  font: inherit; color: var(--vscode-input-foreground, inherit); background: var(--vscode-input-background, #fff);
  border: 1px solid var(--vscode-input-border, #8c959f); border-radius: 2px; padding: .2em .35em; max-width: 100%; }
textarea { width: 100%; font-family: var(--vscode-editor-font-family, ui-monospace, monospace); }
button { font: inherit; color: var(--vscode-button-secondaryForeground, inherit); background: var(--vscode-button-secondaryBackground, #eef1f4);
  border: 1px solid var(--vscode-button-border, #8c959f); border-radius: 2px; padding: .2em .7em; cursor: pointer; }
button.cc-primary { color: var(--vscode-button-foreground, #fff); background: var(--vscode-button-background, #0b5cad); }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 2px solid var(--vscode-focusBorder, #0b5cad); outline-offset: 1px; }
.cc-providers { display: grid; grid-template-columns: repeat(auto-fit, minmax(14em, 1fr)); gap: .5em; }
.cc-provider { display: flex; gap: .5em; align-items: flex-start; border: 1px solid var(--vscode-panel-border, #d0d7de); border-radius: 4px; padding: .5em; }
.cc-provider:has(input:checked) { border-color: var(--vscode-focusBorder, #0b5cad); }
.cc-row { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; margin: .3em 0; }
.cc-item { border-left: 3px solid var(--vscode-panel-border, #d0d7de); padding-left: .6em; margin: .5em 0; }
.cc-status { margin: .4em 0; }
.cc-errors { border: 1px solid var(--vscode-inputValidation-errorBorder, #b42318); border-radius: 4px; padding: .3em .8em; }
.cc-errors:empty { display: none; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25em .5em; border-bottom: 1px solid var(--vscode-panel-border, #d0d7de); vertical-align: middle; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.cc-bar { height: .8em; background: var(--vscode-charts-blue, #3b82f6); border-radius: 2px; }
.cc-bar.before { width: 100%; background: var(--vscode-charts-gray, #9aa4af); }
.cc-bars { display: grid; gap: 2px; min-width: 8em; }
pre { white-space: pre-wrap; word-break: break-word; max-height: 20em; overflow: auto; background: var(--vscode-textCodeBlock-background, #f3f5f7); padding: .5em; }
details > summary { cursor: pointer; margin: .4em 0; }
`
