// Completes package-lock.json with the other platforms' builds of optional dependencies (biome's and
// rollup's per-platform binaries) when the registry npm resolved against does not offer them at the
// locked version: npm then leaves them out of the lock, and `npm ci` refuses that lock everywhere
// ("Missing: @biomejs/cli-darwin-arm64@ from lock file"). Each missing package gets an entry at the
// version its parent asks for, with the os, cpu and libc of the nearest version the registry has, so
// npm skips it on every other platform and fetches it by name and version on its own. Run it after
// `npm install` changes the lock: node scripts/build/complete-lock.mjs
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const lockFile = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..", "package-lock.json");
const lock = JSON.parse(readFileSync(lockFile, "utf8"));
const { packages } = lock;

/** Whether Node finds `name` from the package at `location`: in its own node_modules or its ancestors'. */
function resolvesFrom(location, name) {
  let base = location;
  for (;;) {
    if (packages[`${base === "" ? "" : `${base}/`}node_modules/${name}`]) return true;
    if (base === "") return false;
    const parent = base.lastIndexOf("/node_modules/");
    base = parent < 0 ? "" : base.slice(0, parent);
  }
}

const release = (version) => version.split("-")[0].split(".").map(Number);
function compareVersions(a, b) {
  const [x, y] = [release(a), release(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

const releaseFields = ["version", "os", "cpu", "libc", "license", "engines"];

/**
 * The registry's metadata of the release nearest to `version`: the newest not above it, else the oldest.
 * A package the registry does not have at all gets the os and cpu its name spells, as these names do
 * ("cli-android-arm64").
 */
function nearestRelease(name, version) {
  const view = spawnSync("npm", ["view", `${name}@>=0.0.0`, ...releaseFields, "--json"], {
    encoding: "utf8",
  });
  if (view.status !== 0) return platformNamedBy(name);
  const releases = [JSON.parse(view.stdout)].flat().sort((a, b) => compareVersions(a.version, b.version));
  const notAbove = releases.filter((candidate) => compareVersions(candidate.version, version) <= 0);
  return notAbove.at(-1) ?? releases[0];
}

const nodePlatforms = new Set(["aix", "android", "darwin", "freebsd", "linux", "openbsd", "sunos", "win32"]);
const nodeArchitectures = new Set(["arm", "arm64", "ia32", "loong64", "ppc64", "riscv64", "s390x", "x64"]);

function platformNamedBy(name) {
  const words = name.split("/").at(-1).split("-");
  const os = words.find((word) => nodePlatforms.has(word));
  const cpu = words.find((word) => nodeArchitectures.has(word));
  if (os === undefined || cpu === undefined)
    throw new Error(`the registry has no release of ${name}, and its name names no platform`);
  return {
    version: "none: platform from its name",
    os: [os],
    cpu: [cpu],
    ...(words.includes("musl") && { libc: ["musl"] }),
  };
}

const added = [];
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, wanted] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolvesFrom(location, name)) continue;
    if (!/^\d+\.\d+\.\d+$/.test(wanted)) {
      console.warn(`skipped ${name}@${wanted} (from ${location}): only exact versions can be completed`);
      continue;
    }
    const nearest = nearestRelease(name, wanted);
    const target = packages[`node_modules/${name}`]
      ? `${location}/node_modules/${name}`
      : `node_modules/${name}`;
    packages[target] = {
      version: wanted,
      ...(nearest.cpu && { cpu: nearest.cpu }),
      ...(entry.dev && { dev: true }),
      ...(nearest.libc && { libc: nearest.libc }),
      ...(nearest.license && { license: nearest.license }),
      optional: true,
      ...(nearest.os && { os: nearest.os }),
      ...(nearest.engines && { engines: nearest.engines }),
    };
    added.push(`${name}@${wanted} (platform of release ${nearest.version})`);
  }
}

lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, "en")));
writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length === 0 ? "the lock file is complete" : `added to the lock file:\n  ${added.join("\n  ")}`,
);
