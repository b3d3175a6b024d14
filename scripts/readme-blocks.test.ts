import { describe, expect, it } from "vitest";
import { readmeBlocks, readmeScript } from "./readme-blocks.js";

const markdown = [
  "# Title",
  "",
  "```sh",
  "echo one",
  "```",
  "",
  "```properties",
  "a=b",
  "```",
  "",
  "<!-- readme-test: skip (starts the stack) -->",
  "```sh",
  "npm start",
  "```",
  "",
  "<!-- readme-test: background -->",
  "```bash",
  "npm run agents",
  "```",
  "",
  "```",
  "```sh inside a plain block is not a shell block",
  "```",
].join("\n");

describe("the README's shell blocks", () => {
  it("are found with their lines and markers, and other code blocks are left out", () => {
    expect(readmeBlocks(markdown)).toEqual([
      { line: 3, mode: "run", text: "echo one" },
      { line: 12, mode: "skip", text: "npm start", reason: "starts the stack" },
      { line: 17, mode: "background", text: "npm run agents" },
    ]);
  });

  it("refuse a skip without a reason, a marker they cannot read, and an unclosed block", () => {
    expect(() => readmeBlocks("<!-- readme-test: skip -->\n```sh\nx\n```")).toThrow(/says why/);
    expect(() => readmeBlocks("<!-- readme-test: sometimes -->\n```sh\nx\n```")).toThrow(/unreadable/);
    expect(() => readmeBlocks("```sh\nx\n")).toThrow(/never closed/);
  });

  it("become one script that runs blocks in order, starts background ones apart and replaces what it is told", () => {
    const script = readmeScript(
      readmeBlocks(`${markdown}\n\n\`\`\`sh\ncurl https://127.0.0.1:8443/x\n\`\`\``),
      {
        replacements: [["127.0.0.1:8443", "127.0.0.1:18443"]],
        backgroundDir: "/tmp/bg",
      },
    );
    expect(script).toContain("set -euo pipefail");
    expect(script).not.toContain("npm start");
    expect(script.indexOf("echo one")).toBeLessThan(script.indexOf("npm run agents"));
    expect(script).toContain("{\nnpm run agents\n} > '/tmp/bg/background-17.log' 2>&1 &");
    expect(script).toContain("echo $! >> '/tmp/bg/pids'");
    expect(script).toContain("curl https://127.0.0.1:18443/x");
    expect(script.trimEnd().endsWith('echo "▶ every README block ran"')).toBe(true);
  });
});
