/**
 * `npm run bench:groups`'s code, small: a few hundred agents written as Beacon writes them, labelled, the
 * groups' counts and first pages read through the console API's own composition, and two rollouts to a group
 * driven by the sweeper's engine. It checks what the bench counted and metered, never how fast.
 */
import { expect, it } from "vitest";
import { FLEET_CLASSES, fleetAgent } from "./agent-fleet.js";
import { groupsReportLines, runGroupsBench } from "./group-membership.js";
import { smallBench } from "./small-bench.js";

const AGENTS = 240;
const ROUNDS = 2;
const bench = smallBench("group-membership", AGENTS, ROUNDS);

it("writes a labelled fleet, counts and pages each group as the console API reads it and rolls out to a group, metering DynamoDB", async () => {
  const report = await runGroupsBench(bench);

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
  expect(report.pass.sweeperRuns).toBeGreaterThanOrEqual(1);
  expect(report.list.requests).toBe(1);
  // Both rollouts took every heartbeating gateway at north, each member updated and healthy; the narrower
  // batches were more, and what a member and a batch cost came out of the two.
  const heartbeatingNorthGateways = agents.filter(
    (agent) => gateways(agent) && north(agent) && agent.presence === "online",
  ).length;
  const { rollout } = report;
  expect(rollout.runs).toHaveLength(2);
  for (const run of rollout.runs) {
    expect(run).toMatchObject({ state: "completed", members: heartbeatingNorthGateways });
    expect(run.looked.writeRequests).toBeGreaterThan(0);
    expect(run.agents.writeRequests).toBeGreaterThanOrEqual(run.members);
  }
  const [wide, narrow] = rollout.runs as [(typeof rollout.runs)[0], (typeof rollout.runs)[0]];
  expect(narrow.batches).toBeGreaterThan(wide.batches);
  expect(rollout.perMember.requests).toBeGreaterThan(0);
  expect(rollout.agentsPerMember.writeUnits).toBeGreaterThan(0);
  const lines = groupsReportLines(report, ROUNDS);
  expect(lines[0]).toMatch(/^machine: \d+ × .+, Node v\d+/);
  console.log(lines.join("\n"));
}, 300_000);
