/**
 * Two faults at once: the stream refuses events while the cache is unreachable too. Heartbeats and an
 * acknowledgement are still answered 200, and their events, which the cache's buffer cannot hold, are kept in
 * the outbox (EventsHeldInOutbox) until the stream is back, when the sweeper's relay puts every one of them on
 * it, merged in time with those the buffer held once the cache came back: none lost. The agent API here writes
 * to a stream that does not exist yet, on a Redis of its own that the test stops and starts again.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ChildService } from "../../scripts/local/child-service.js";
import { findFreePort } from "../../scripts/local/ports.js";
import { startRedisServer } from "../../scripts/local/redis-server.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import {
  countsReach,
  javaDescribeAck,
  javaHeartbeat,
  keptEventCounts,
  missingStream,
  relayHeldOnceBack,
} from "../../scripts/test-support/event-outage.js";
import { until } from "../../scripts/test-support/until.js";
import { EnvNames } from "../shared/env-names.js";
import { MetricNames } from "../shared/observability.js";

let api: AgentApiUnderTest;
let fleet: string;
let redisPort: number;
let redisStateDir: string;
let redisServer: ChildService | undefined;
const streamName = missingStream();
const agentId = "java-two-faults";
const manifestHash = randomBytes(64).toString("hex");
const heartbeat = () => javaHeartbeat(api, fleet, agentId, manifestHash);

beforeAll(async () => {
  redisPort = await findFreePort();
  redisStateDir = mkdtempSync(path.join(tmpdir(), "beacon-redis-"));
  redisServer = await startRedisServer({ port: redisPort, stateDir: redisStateDir });
  api = await startAgentApi({
    [EnvNames.redisUrl]: `redis://127.0.0.1:${redisPort}`,
    [EnvNames.streamName]: streamName,
  });
  fleet = await api.issueCertificate({ tenant: `t-${randomUUID().slice(0, 8)}`, fleet: true });
});

afterAll(async () => {
  await api?.close();
  await redisServer?.stop();
  if (redisStateDir) rmSync(redisStateDir, { recursive: true, force: true });
});

it("answers heartbeats and an acknowledgement, keeps their events in the outbox, and relays every one once both are back", async () => {
  const from = Date.now();
  await redisServer?.stop();
  redisServer = undefined;

  const [describe] = await heartbeat();
  expect(describe).toMatchObject({ operation: "DESCRIBE" });
  const operationId = describe?.identifier as string;
  await javaDescribeAck(api, fleet, operationId, manifestHash);
  expect(await heartbeat()).toEqual([]);
  await countsReach(api, from, {
    [MetricNames.eventsHeld]: 0,
    [MetricNames.eventsHeldInOutbox]: 3,
    [MetricNames.eventsLost]: 0,
  });

  // The cache is back before the stream: once its client has reconnected, heartbeats' events are held in the
  // buffer again (those before that are kept in the outbox too).
  redisServer = await startRedisServer({ port: redisPort, stateDir: redisStateDir });
  let heartbeats = 2;
  await until("a heartbeat's event held in the cache's buffer", async () => {
    await heartbeat();
    heartbeats += 1;
    return (await keptEventCounts(api, from))[MetricNames.eventsHeld] > 0 ? true : undefined;
  });
  const accepted = heartbeats + 1;
  const counts = await keptEventCounts(api, from);
  expect(counts[MetricNames.eventsLost]).toBe(0);
  expect(counts[MetricNames.eventsHeld] + counts[MetricNames.eventsHeldInOutbox]).toBe(accepted);

  const { relayed, onStream } = await relayHeldOnceBack(api, streamName);
  expect(relayed).toBe(accepted);
  // Every accepted heartbeat and the ack, in the order they were accepted, whichever store kept them.
  expect(onStream.map((event) => event.type)).toEqual([
    "heartbeat",
    "ack",
    ...Array.from({ length: heartbeats - 1 }, () => "heartbeat"),
  ]);
  const times = onStream.map((event) => event.at);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(onStream[1]).toMatchObject({ type: "ack", agentId, operationId, state: "FULLY_APPLIED" });
});
