import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Test files that take many minutes, longest first. A fresh clone has no record of how long each file took, so
 * Vitest starts the largest files first; these would start late, and the other worker would wait for them at
 * the end. Started first, they run beside the rest of the suite.
 */
const LONGEST_FILES = ["scripts/repository/readme.itest.ts", "web/test/console.itest.ts"];

const rankOf = (specification: TestSpecification): number => {
  const rank = LONGEST_FILES.findIndex((file) => specification.moduleId.endsWith(`/${file}`));
  return rank === -1 ? LONGEST_FILES.length : rank;
};

/** Vitest's own order (what failed last, then the longest last time, then the largest), the longest files first. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array sorts are stable: files of one rank keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rankOf(a) - rankOf(b));
  }
}
