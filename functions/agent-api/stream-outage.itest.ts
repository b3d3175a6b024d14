/**
 * Agents send an acknowledgement at most once (Java logs a failed one and drops it, C++ does not queue it
 * again), and a heartbeat's event is written nowhere else. So when the stream cannot take events, a request
 * whose change is saved is still answered 200, and the events are held in the cache's buffer (EventsHeld)
 * until the stream is back, when the sweeper puts them on it, in order. The agent API here writes to a stream
 * that does not exist yet: every put fails as in an outage; then the stream is created, as when it recovers.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { metricTotals } from "../../scripts/local/function-metrics.js";
import { provisionStream } from "../../scripts/local/provision.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { javaDescribeAck, javaHeartbeat } from "../../scripts/test-support/event-outage.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { sweeperConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { MetricNames } from "../shared/observability.js";
import { composeSweeper } from "../sweeper/composition.js";

let api: AgentApiUnderTest;
let fleet: string;
const agentId = "java-stream-outage";
const manifestHash = randomBytes(64).toString("hex");

const streamName = `beacon-missing-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  api = await startAgentApi({ [EnvNames.streamName]: streamName });
  fleet = await api.issueCertificate({ tenant: `t-${randomUUID().slice(0, 8)}`, fleet: true });
});

afterAll(async () => {
  await api?.close();
});

const heartbeat = () => javaHeartbeat(api, fleet, agentId, manifestHash);

it("answers heartbeats and an acknowledgement 200 while the stream is down, and puts their events on it once it is back", async () => {
  const from = Date.now();
  const [describe] = await heartbeat();
  expect(describe).toMatchObject({ operation: "DESCRIBE" });
  const operationId = describe?.identifier as string;

  await javaDescribeAck(api, fleet, operationId, manifestHash);
  // Its change is saved: the manifest is known, and nothing more is asked.
  expect(await heartbeat()).toEqual([]);

  const totals = await metricTotals(
    api.functionLog,
    [MetricNames.eventsHeld, MetricNames.eventsLost, MetricNames.streamFailures],
    { from, to: Date.now() },
  );
  // Two heartbeats' events and the ack's, each held: none lost, and the requests saw no failure.
  expect(totals).toEqual({
    [MetricNames.eventsHeld]: 3,
    [MetricNames.eventsLost]: 0,
    [MetricNames.streamFailures]: 0,
  });

  // The stream is back; the sweeper's next run puts what was held on it, oldest first, and holds nothing more.
  await provisionStream(makeKinesisClient(api.env), streamName);
  const sweeper = composeSweeper(sweeperConfig(api.env));
  try {
    expect(await sweeper.relayHeld()).toEqual({ relayed: 3, more: false });
    expect(await sweeper.relayHeld()).toEqual({ relayed: 0, more: false });
  } finally {
    await sweeper.close();
  }
  const onStream = await readWholeStream(makeKinesisClient(api.env), streamName);
  expect(onStream.map((event) => (event as { type: string }).type)).toEqual([
    "heartbeat",
    "ack",
    "heartbeat",
  ]);
  expect(onStream[1]).toMatchObject({
    type: "ack",
    agentId,
    operationId,
    state: "FULLY_APPLIED",
    matched: true,
  });
});
