import { expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { LongestFirstSequencer } from "./longest-first.js";

const root = "/repository";
const specificationOf = (file: string) =>
  ({ moduleId: `${root}/${file}`, project: { name: "integration" } }) as unknown as TestSpecification;

it("starts the longest files first, then the rest in Vitest's own order (here the largest first)", async () => {
  const sizes = new Map<string, number>();
  const context = {
    config: { root },
    cache: {
      getFileTestResults: () => undefined,
      getFileStats: (key: string) => ({ size: sizes.get(key.slice("integration:".length)) ?? 0 }),
    },
  } as unknown as Vitest;
  const files = [
    ["functions/a.itest.ts", 300],
    ["web/test/console.itest.ts", 100],
    ["functions/b.itest.ts", 900],
    ["scripts/repository/readme.itest.ts", 50],
  ] as const;
  for (const [file, size] of files) sizes.set(file, size);

  const sorted = await new LongestFirstSequencer(context).sort(files.map(([file]) => specificationOf(file)));

  expect(sorted.map(({ moduleId }) => moduleId.slice(root.length + 1))).toEqual([
    "scripts/repository/readme.itest.ts",
    "web/test/console.itest.ts",
    "functions/b.itest.ts",
    "functions/a.itest.ts",
  ]);
});
