// Stand-in for the vscode module (nothing in the condensing code calls it).
export default {}
