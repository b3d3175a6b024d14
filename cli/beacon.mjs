#!/usr/bin/env node
// The `beacon` command: the CLI's TypeScript run as it is, through tsx (installed with the repository's packages).
import { register } from "tsx/esm/api";

register();
const { run } = await import("./main.ts");
process.exitCode = await run(
  process.argv.slice(2),
  {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    isTerminal: process.stderr.isTTY,
  },
  process.env,
);
