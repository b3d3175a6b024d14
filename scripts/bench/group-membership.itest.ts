/**
 * `npm run bench:groups`'s code, small: a few hundred agents written as Beacon writes them, labelled, and the
 * groups' counts and first pages read through the console API's own composition. It checks what the bench
 * counted and metered, never how fast.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { repositoryRoot } from "../test-support/local-stack.js";
import { FLEET_CLASSES, fleetAgent } from "./agent-fleet.js";
import { groupsReportLines, runGroupsBench } from "./group-membership.js";

const AGENTS = 240;
const ROUNDS = 2;
const env = inject("beaconEnv");
const stateDir = path.join(repositoryRoot, ".beacon", `group-membership-test-${process.pid}`);

afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

it("writes a labelled fleet and counts and pages each group as the console API reads it, metering DynamoDB", async () => {
  const tenant = `bench-${randomUUID().slice(0, 8)}`;
  const report = await runGroupsBench({
    env,
    stateDir,
    tenant,
    agents: AGENTS,
    rounds: ROUNDS,
    log: () => {},
  });

  const agents = Array.from({ length: AGENTS }, (_, index) => ({ index, ...fleetAgent(index) }));
  const north = ({ index }: { index: number }) => index % 4 === 0;
  const gateways = ({ agentClass }: { agentClass: string }) => agentClass === FLEET_CLASSES[0];
  const expected = {
    "kafka-publishers": agents.filter(({ kind }) => kind === "cpp").length,
    "site-north": agents.filter(north).length,
    "gateways-at-north": agents.filter((agent) => gateways(agent) && north(agent)).length,
    "gateways-seen-lately": agents.filter((agent) => gateways(agent) && agent.presence === "online").length,
  };
  expect(Object.fromEntries(report.groups.map(({ name, members }) => [name, members]))).toEqual(expected);
  expect(Object.values(expected).every((members) => members > 0 && members < AGENTS)).toBe(true);
  for (const group of report.groups) {
    expect(group.firstPage.rows).toBe(Math.min(group.members, 50));
    for (const cost of [group.count, group.firstPage]) {
      expect(cost.samplesMs).toHaveLength(ROUNDS);
      expect(cost.samplesMs.every((ms) => ms > 0)).toBe(true);
      expect(cost.capacityUnits).toBeGreaterThan(0);
    }
    // The count is the pass's, read with the group; a page of members reads the group and the registry's index.
    expect(group.count.requests).toBe(1);
    expect(group.firstPage.requests).toBeGreaterThanOrEqual(2);
  }
  // The pass read every agent once, whatever the number of groups; the list of groups is one read.
  expect(report.pass.agentsRead).toBe(AGENTS);
  expect(report.list.requests).toBe(1);
  const lines = groupsReportLines(report, ROUNDS);
  expect(lines[0]).toMatch(/^machine: \d+ × .+, Node v\d+/);
  console.log(lines.join("\n"));
}, 300_000);
