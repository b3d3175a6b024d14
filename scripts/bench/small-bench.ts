/**
 * What a fleet bench's small test in `npm test` runs it with: the test stack's backends, a tenant of its own and
 * a state folder under .beacon/ that goes after the test file.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, inject } from "vitest";
import { repositoryRoot } from "../test-support/local-stack.js";
import type { FleetBenchOptions } from "./fleet-bench.js";

/** The options of the bench `name` over `agents` agents, each case measured `rounds` times, quietly. */
export function smallBench(name: string, agents: number, rounds: number): FleetBenchOptions {
  const stateDir = path.join(repositoryRoot, ".beacon", `${name}-test-${process.pid}`);
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));
  return {
    env: inject("beaconEnv"),
    stateDir,
    tenant: `bench-${randomUUID().slice(0, 8)}`,
    agents,
    rounds,
    log: () => {},
  };
}
