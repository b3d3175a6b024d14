/**
 * The local poller outlives its Kinesis emulator: a kinesalite of this file's own is stopped while the poller
 * reads it, started again in memory (its stream gone, then created anew), and the poller goes on to hand the
 * new stream's records to the handler, having logged the outage once and its end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PutRecordsCommand } from "@aws-sdk/client-kinesis";
import type { KinesisStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { untilTrue } from "../test-support/until.js";
import { localAwsEnv } from "./backends.js";
import type { ChildService } from "./child-service.js";
import { startKinesisEmulator } from "./kinesis-emulator.js";
import { findFreePort } from "./ports.js";
import { provisionStream } from "./provision.js";
import { pollStream, type StreamPoller } from "./stream-poller.js";

const streamName = "poller-restart";
const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-poller-"));
let port: number;
let emulator: ChildService | undefined;
let poller: StreamPoller | undefined;
const delivered: string[] = [];
const logged: string[] = [];

const startEmulator = async () => {
  emulator = await startKinesisEmulator({ emulator: "kinesalite", port, stateDir, clientEnv: localAwsEnv });
};
const kinesis = () =>
  makeKinesisClient({ ...localAwsEnv, [AwsEndpointEnvNames.kinesis]: `http://127.0.0.1:${port}` });

async function put(kinesisClient: ReturnType<typeof kinesis>, ...data: string[]) {
  await kinesisClient.send(
    new PutRecordsCommand({
      StreamName: streamName,
      Records: data.map((text) => ({ Data: Buffer.from(text), PartitionKey: "p" })),
    }),
  );
}

/** What a wait was for, and what the poller logged by the time it gave up. */
const withLog = (what: string) => () => `${what}; log: ${logged.join(" | ")}`;

beforeAll(async () => {
  port = await findFreePort();
  await startEmulator();
});

afterAll(async () => {
  await poller?.stop();
  await emulator?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

it("keeps reading when the emulator is stopped and started again with its stream created anew", async () => {
  const client = kinesis();
  try {
    await provisionStream(client, streamName);
    await put(client, "before-1", "before-2");
    poller = pollStream({
      kinesis: client,
      streamName,
      invoke: async (event: KinesisStreamEvent) => {
        for (const record of event.Records)
          delivered.push(Buffer.from(record.kinesis.data, "base64").toString("utf8"));
        return { batchItemFailures: [] };
      },
      log: (line) => logged.push(line),
      idleMs: 100,
      retryMs: 200,
    });
    await untilTrue(withLog("the first records"), () => delivered.length === 2);

    await emulator?.stop();
    await untilTrue(withLog("the outage to be noticed"), () =>
      logged.some((line) => line.includes("cannot read")),
    );
    await startEmulator();
    await provisionStream(client, streamName);
    await put(client, "after-1");
    await untilTrue(withLog("the new stream's record"), () => delivered.includes("after-1"));
    expect(delivered).toEqual(["before-1", "before-2", "after-1"]);
    expect(logged.filter((line) => line.includes("cannot read"))).toHaveLength(1);
    expect(logged.some((line) => line.includes(`reading ${streamName} again`))).toBe(true);
  } finally {
    await poller?.stop();
    poller = undefined;
    client.destroy();
  }
});
