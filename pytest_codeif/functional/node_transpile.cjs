// Run on the host, trusted: TypeScript and JSX text to CommonJS JavaScript with the
// TypeScript compiler's `transpileModule` (see `node_transpile.py`). The text is data
// here: transpileModule parses and prints it, reads no other file, resolves no import,
// checks no type and runs nothing of it.
//
// Usage: node node_transpile.cjs TYPESCRIPT_PACKAGE < {"files": {relpath: text}}
// Prints {"version": ..., "files": {relpath: javascript}}.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const ts = require(path.join(process.argv[2], "lib", "typescript.js"));
const request = JSON.parse(fs.readFileSync(0, "utf8"));
const options = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  jsx: ts.JsxEmit.ReactJSX,
  sourceMap: false,
  inlineSourceMap: false,
};
const files = {};
for (const [relpath, text] of Object.entries(request.files)) {
  // An `.mts` file would be printed as an ES module whatever `module` says: as `.ts`, it
  // runs as CommonJS as every other transpiled file (the Node worker loads them so).
  files[relpath] = ts.transpileModule(text, {
    fileName: relpath.replace(/\.mts$/, ".ts"),
    compilerOptions: options,
    reportDiagnostics: false,
  }).outputText;
}
fs.writeSync(1, JSON.stringify({ version: ts.version, files }));
