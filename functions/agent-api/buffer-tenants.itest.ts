/**
 * The event buffer's share per tenant: while the stream is down, a tenant whose agents fill its share of the
 * cache's buffer has the rest of its events kept in the outbox, and another tenant's events are still held in
 * the buffer; once the stream is back the sweeper's relay puts them all on it, each agent's in order. The agent
 * API here writes to a stream that does not exist yet, with a share of three events per tenant.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import {
  countsReach,
  javaHeartbeat,
  missingStream,
  relayHeldOnceBack,
} from "../../scripts/test-support/event-outage.js";
import { EnvNames } from "../shared/env-names.js";
import { MetricNames } from "../shared/observability.js";

const TENANT_SHARE = 3;
const FLOOD = 6;
let api: AgentApiUnderTest;
const streamName = missingStream();

beforeAll(async () => {
  api = await startAgentApi({
    [EnvNames.streamName]: streamName,
    [EnvNames.eventBufferMaxEventsPerTenant]: String(TENANT_SHARE),
  });
});

afterAll(async () => {
  await api?.close();
});

it("holds another tenant's events while one floods its share, keeps the flood's overflow in the outbox, and relays all", async () => {
  const from = Date.now();
  const flooding = await api.issueCertificate({ tenant: `t-${randomUUID().slice(0, 8)}`, fleet: true });
  const quiet = await api.issueCertificate({ tenant: `t-${randomUUID().slice(0, 8)}`, fleet: true });
  const hash = randomBytes(64).toString("hex");
  for (let beat = 0; beat < FLOOD; beat++) await javaHeartbeat(api, flooding, "flood-1", hash);
  await countsReach(api, from, {
    [MetricNames.eventsHeld]: TENANT_SHARE,
    [MetricNames.eventsHeldInOutbox]: FLOOD - TENANT_SHARE,
    [MetricNames.eventsLost]: 0,
  });
  await javaHeartbeat(api, quiet, "quiet-1", hash);
  await javaHeartbeat(api, quiet, "quiet-1", hash);
  await countsReach(api, from, {
    [MetricNames.eventsHeld]: TENANT_SHARE + 2,
    [MetricNames.eventsHeldInOutbox]: FLOOD - TENANT_SHARE,
    [MetricNames.eventsLost]: 0,
  });

  const { relayed, onStream } = await relayHeldOnceBack(api, streamName);
  expect(relayed).toBe(FLOOD + 2);
  const beatsOf = (agentId: string) =>
    onStream
      .filter((event) => event.type === "heartbeat" && event.agentId === agentId)
      .map((event) => event.at);
  expect(beatsOf("flood-1")).toHaveLength(FLOOD);
  expect(beatsOf("flood-1")).toEqual([...beatsOf("flood-1")].sort((a, b) => a - b));
  expect(beatsOf("quiet-1")).toHaveLength(2);
});
