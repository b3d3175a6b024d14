/**
 * The local stack's stream outage: the functions' puts through the pass-through reach the Kinesis emulator,
 * fail while `npm run stream-outage` says the stream is down (a kept-alive connection is cut, new ones are
 * dropped), and reach it again afterwards, the emulator having kept what it had.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { KinesisEventSink, StreamPublishError } from "../../functions/adapters/kinesis/event-sink.js";
import type { BeaconEvent } from "../../functions/core/events/model.js";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { readWholeStream } from "../test-support/stream-reader.js";
import { provisionStream } from "./provision.js";
import {
  endStreamOutage,
  type StreamPassThrough,
  startStreamOutage,
  startStreamPassThrough,
} from "./stream-outage.js";

const backends = inject("beaconEnv");
const streamName = `outage-${randomUUID().slice(0, 8)}`;
const localDir = mkdtempSync(path.join(tmpdir(), "beacon-outage-"));
const direct = makeKinesisClient(backends);
let passThrough: StreamPassThrough;
let throughIt: ReturnType<typeof makeKinesisClient>;

beforeAll(async () => {
  await provisionStream(direct, streamName);
  const targetPort = Number(new URL(backends[AwsEndpointEnvNames.kinesis] as string).port);
  passThrough = await startStreamPassThrough({ targetPort, localDir });
  throughIt = makeKinesisClient({ ...backends, [AwsEndpointEnvNames.kinesis]: passThrough.url });
}, 60_000);

afterAll(async () => {
  throughIt?.destroy();
  direct.destroy();
  await passThrough?.close();
  rmSync(localDir, { recursive: true, force: true });
});

const heartbeat = (sequence: number) =>
  ({
    eventId: randomUUID(),
    type: "heartbeat",
    tenant: "outage",
    agentId: "agent-1",
    at: Date.now(),
    sequence,
  }) as unknown as BeaconEvent;

/** Tries puts until one fails or succeeds as wanted: the pass-through looks at the outage file every 250 ms. */
async function untilPuts(sink: KinesisEventSink, wanted: "fail" | "succeed", sequence: number) {
  for (;;) {
    const outcome = await sink.publish([heartbeat(sequence)]).then(
      () => "succeed" as const,
      (error: unknown) => {
        expect(error).toBeInstanceOf(StreamPublishError);
        return "fail" as const;
      },
    );
    if (outcome === wanted) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it("passes the functions' puts to the emulator, fails them during an outage, and passes them again after it", async () => {
  const sink = new KinesisEventSink(throughIt, streamName, { maxAttempts: 2, backoffMs: 10 });
  await sink.publish([heartbeat(1)]);

  await startStreamOutage(localDir, Date.now() + 60_000);
  await untilPuts(sink, "fail", 2);
  await expect(sink.publish([heartbeat(3)])).rejects.toBeInstanceOf(StreamPublishError);

  await endStreamOutage(localDir);
  await untilPuts(sink, "succeed", 4);

  const sequences = ((await readWholeStream(direct, streamName)) as Array<{ sequence: number }>).map(
    (event) => event.sequence,
  );
  expect(sequences[0]).toBe(1);
  expect(sequences).not.toContain(3);
  expect(sequences.at(-1)).toBe(4);
}, 60_000);

it("ends an outage by itself once its time is over", async () => {
  const sink = new KinesisEventSink(throughIt, streamName, { maxAttempts: 1, backoffMs: 10 });
  await startStreamOutage(localDir, Date.now() + 1_500);
  await untilPuts(sink, "fail", 5);
  await untilPuts(sink, "succeed", 6);
}, 60_000);
