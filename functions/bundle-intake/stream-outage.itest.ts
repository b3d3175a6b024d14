/**
 * A debug bundle uploaded while the stream cannot take events: the agent is answered 201 and the bundle stored,
 * as at any time, and its upload event (what usage meters) is held in the cache's buffer, then put on the stream
 * once, in its place, when the stream is back. The intake writes to a stream that does not exist yet; then the
 * stream is created, as when it recovers.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { agentAwaitingBundle, storedBundle, uploadBundle } from "../../scripts/test-support/debug-bundles.js";
import {
  countsReach,
  keptEventCounts,
  missingStream,
  relayHeldOnceBack,
} from "../../scripts/test-support/event-outage.js";
import type { UploadEvent } from "../core/events/model.js";
import { EnvNames } from "../shared/env-names.js";
import { MetricNames } from "../shared/observability.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let operator: string;
const streamName = missingStream();

beforeAll(async () => {
  agentApi = await startAgentApi({ [EnvNames.streamName]: streamName });
  consoleApi = await startConsoleApi(agentApi, { [EnvNames.streamName]: streamName });
  tenant = `bundle-outage-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  operator = await consoleApi.token({ tenant, role: "operator" });
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

it("stores a bundle uploaded while the stream is down, and puts its upload event on the stream once it is back", async () => {
  const { agentId, operationId, uploadPath } = await agentAwaitingBundle(
    agentApi,
    consoleApi,
    { fleet, operator },
    "edge-outage",
  );
  const before = await keptEventCounts(agentApi, 0);
  const bundle = randomBytes(256 * 1024);
  const uploaded = await uploadBundle(agentApi, uploadPath, bundle, fleet);
  expect(uploaded.status, uploaded.body).toBe(201);
  expect(await storedBundle(tenant, operationId)).toEqual({ objects: [bundle.length], uploads: 0 });
  // The upload's event is held, one more than before it: none lost, none kept in the outbox.
  await countsReach(agentApi, 0, {
    ...before,
    [MetricNames.eventsHeld]: before[MetricNames.eventsHeld] + 1,
  });

  const { onStream } = await relayHeldOnceBack(agentApi, streamName);
  const uploads = onStream.filter((event): event is UploadEvent => event.type === "upload");
  expect(uploads).toEqual([
    expect.objectContaining({ tenant, agentId, what: "debugBundle", bytesIn: bundle.length }),
  ]);
  // In its place: after the heartbeats that asked for the bundle.
  expect(onStream.findIndex((event) => event.type === "upload")).toBeGreaterThan(
    onStream.findIndex((event) => event.type === "heartbeat" && event.agentId === agentId),
  );
});
