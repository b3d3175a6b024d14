import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { BeaconEvent } from "../../functions/core/events/model.js";
import type { JsonObject } from "../../functions/core/json.js";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { sweeperConfig } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { MetricNames } from "../../functions/shared/observability.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import { example } from "../common/c2-examples.js";
import { metricTotals } from "../local/function-metrics.js";
import { provisionStream } from "../local/provision.js";
import type { AgentApiUnderTest } from "./agent-api-harness.js";
import { readWholeStream } from "./stream-reader.js";
import { until } from "./until.js";

/** What became of the events the stream refused: held in the buffer, kept in the outbox, or lost. */
export const KEPT_EVENT_COUNTS = [
  MetricNames.eventsHeld,
  MetricNames.eventsHeldInOutbox,
  MetricNames.eventsLost,
] as const;
export type KeptEventCounts = Record<(typeof KEPT_EVENT_COUNTS)[number], number>;

/** A stream name no stream has yet: every put to it fails, as in an outage, until provisionStream makes it. */
export const missingStream = () => `beacon-missing-${randomUUID().slice(0, 8)}`;

/** A Java agent's light heartbeat, answered 200; answers the operations it requested. */
export async function javaHeartbeat(
  api: AgentApiUnderTest,
  certificate: string,
  agentId: string,
  manifestHash: string,
) {
  const body = example("java-2.3.0/heartbeat-light.json");
  const agentInfo = body.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  agentInfo.agentManifestHash = manifestHash;
  body.agentId = agentId;
  const response = await api.post("/c2/api/heartbeat", body, { certificate });
  expect(response.status, response.body).toBe(200);
  return response.json().requestedOperations as { identifier: string; operation: string }[];
}

/**
 * The Java library's DESCRIBE acknowledgement of `operationId`, under a fleet certificate (its id alone names the
 * agent), answered 200.
 */
export async function javaDescribeAck(
  api: AgentApiUnderTest,
  certificate: string,
  operationId: string,
  manifestHash: string,
) {
  const ack = example("java-2.3.0/ack-describe-manifest.json");
  ack.operationId = operationId;
  (ack.agentInfo as JsonObject).agentManifestHash = manifestHash;
  delete (ack.agentInfo as JsonObject).identifier;
  const answered = await api.post("/c2/api/acknowledge", ack, { certificate });
  expect(answered.status, answered.body).toBe(200);
}

/** The function log's counts of kept events since `from`. */
export const keptEventCounts = (api: AgentApiUnderTest, from: number): Promise<KeptEventCounts> =>
  metricTotals(api.functionLog, KEPT_EVENT_COUNTS, { from, to: Date.now() });

/** Waits until the counts since `from` are `expected`: a put's count may follow its request's answer. */
export async function countsReach(api: AgentApiUnderTest, from: number, expected: KeptEventCounts) {
  let seen: KeptEventCounts | undefined;
  await until(
    () => `counts ${JSON.stringify(expected)}, seen ${JSON.stringify(seen)}`,
    async () => {
      seen = await keptEventCounts(api, from);
      return KEPT_EVENT_COUNTS.every((name) => seen?.[name] === expected[name]) ? true : undefined;
    },
  );
}

/**
 * Makes the stream, as when it recovers, and runs the sweeper's relay of held events until it has nothing
 * more, as its runs would; answers how many it put on the stream and what the stream then holds.
 */
export async function relayHeldOnceBack(api: AgentApiUnderTest, streamName: string) {
  const kinesis = makeKinesisClient(api.env);
  await provisionStream(kinesis, streamName);
  // A fresh client's first commands wait for its connection: on a busy machine, longer than a request may.
  const sweeper = composeSweeper(sweeperConfig({ ...api.env, [EnvNames.cacheTimeoutMs]: "5000" }));
  let relayed = 0;
  try {
    for (let more = true; more; ) {
      const outcome = await sweeper.relayHeld();
      relayed += outcome.relayed;
      more = outcome.more;
    }
    expect(await sweeper.relayHeld()).toEqual({ relayed: 0, more: false });
  } finally {
    await sweeper.close();
  }
  return { relayed, onStream: (await readWholeStream(kinesis, streamName)) as BeaconEvent[] };
}
