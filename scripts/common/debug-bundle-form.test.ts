import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tarGz, untarGz } from "./debug-bundle-form.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("debug bundles as gzip tars", () => {
  const files = [
    { name: "manifest.json", bytes: Buffer.from('{"agentType":"cpp"}') },
    { name: "minifi-app.log", bytes: Buffer.alloc(1500, "x") },
  ];

  it("are read back as written", () => {
    expect(untarGz(tarGz(files)).map(({ name, bytes }) => [name, Buffer.from(bytes).toString()])).toEqual(
      files.map(({ name, bytes }) => [name, bytes.toString()]),
    );
  });

  it("are what the system's tar reads, and it writes what they read", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "beacon-tar-"));
    dirs.push(dir);
    const written = path.join(dir, "debug.tar.gz");
    writeFileSync(written, tarGz(files));
    expect(execFileSync("tar", ["-tzf", written], { encoding: "utf8" }).trim().split("\n")).toEqual([
      "manifest.json",
      "minifi-app.log",
    ]);
    writeFileSync(path.join(dir, "bootstrap.conf"), "c2.enable=true\n");
    const made = execFileSync("tar", ["--format=ustar", "-czf", "-", "-C", dir, "bootstrap.conf"]);
    expect(untarGz(made).map(({ name, bytes }) => [name, Buffer.from(bytes).toString()])).toEqual([
      ["bootstrap.conf", "c2.enable=true\n"],
    ]);
    expect(() => untarGz(Buffer.from("not gzip"))).toThrow();
  });
});
