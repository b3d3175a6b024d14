import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { localService } from "../../../scripts/test-support/local-service.js";
import type { HeartbeatEvent } from "../../core/events/model.js";
import { makeKinesisClient } from "../../runtime/aws-clients/kinesis.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { CoalescingEventSink, KinesisEventSink, StreamPublishError } from "./event-sink.js";

interface PutRecordsRequest {
  StreamName: string;
  Records: { Data: string; PartitionKey: string }[];
}
/** Kinesis's answer, or a connection broken once the call was sent: its outcome unknown to the sink. */
type Answer = { status: number; body: unknown } | "hang up";

// The emulators never fail part of a batch or throttle: this server answers as Kinesis does when it does.
const requests: { headers: IncomingHttpHeaders; body: PutRecordsRequest }[] = [];
let answer: (request: PutRecordsRequest, index: number) => Answer;
const kinesis = localService((request, received, response) => {
  const body = JSON.parse(received.toString()) as PutRecordsRequest;
  requests.push({ headers: request.headers, body });
  const answered = answer(body, requests.length - 1);
  if (answered === "hang up") {
    request.socket.destroy();
    return;
  }
  const { status, body: reply } = answered;
  response.writeHead(status, { "content-type": "application/x-amz-json-1.1" });
  response.end(JSON.stringify(reply));
});
let sink: KinesisEventSink;
let coalescing: CoalescingEventSink;

beforeAll(() => {
  const client = makeKinesisClient(kinesis.env(AwsEndpointEnvNames.kinesis));
  sink = new KinesisEventSink(client, "events", { maxAttempts: 3, backoffMs: 1 });
  coalescing = new CoalescingEventSink(client, "events", { maxAttempts: 3, backoffMs: 1 });
});

beforeEach(() => {
  requests.length = 0;
});

const event = (agentId: string): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `event-${agentId}`,
  tenant: "acme",
  agentId,
  at: 1,
  firstSight: false,
  operationsSent: [],
});

const agentsIn = (request: PutRecordsRequest) =>
  request.Records.map(
    (record) => (JSON.parse(Buffer.from(record.Data, "base64").toString()) as HeartbeatEvent).agentId,
  );
const allPut = (request: PutRecordsRequest): Answer => ({
  status: 200,
  body: { FailedRecordCount: 0, Records: request.Records.map(() => ({ SequenceNumber: "1", ShardId: "s" })) },
});

describe("KinesisEventSink", () => {
  it("puts each event, as JSON, with its tenant/agent partition key in a signed PutRecords call", async () => {
    answer = allPut;
    await sink.publish([event("a")]);
    const [request] = requests;
    expect(request?.headers).toMatchObject({
      "x-amz-target": "Kinesis_20131202.PutRecords",
      "content-type": "application/x-amz-json-1.1",
      authorization: expect.stringMatching(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/kinesis\//),
    });
    expect(request?.body.StreamName).toBe("events");
    expect(request?.body.Records[0]?.PartitionKey).toBe("acme/a");
    expect(agentsIn(request?.body as PutRecordsRequest)).toEqual(["a"]);
  });

  it("resends only the entries a PutRecords call failed", async () => {
    answer = (request, index) =>
      index === 0
        ? {
            status: 200,
            body: {
              FailedRecordCount: 2,
              Records: [
                { ErrorCode: "ProvisionedThroughputExceededException" },
                { SequenceNumber: "1", ShardId: "s" },
                { ErrorCode: "InternalFailure" },
              ],
            },
          }
        : allPut(request);
    await sink.publish([event("a"), event("b"), event("c")]);
    expect(requests.map((request) => agentsIn(request.body))).toEqual([
      ["a", "b", "c"],
      ["a", "c"],
    ]);
  });

  it("gives up after the bounded number of attempts, naming what failed", async () => {
    answer = () => ({
      status: 200,
      body: { FailedRecordCount: 1, Records: [{ ErrorCode: "ProvisionedThroughputExceededException" }] },
    });
    await expect(sink.publish([event("a")])).rejects.toBeInstanceOf(StreamPublishError);
    expect(requests).toHaveLength(3);
  });

  it("puts at most 500 events a call, and counts those of later calls as not put when one gives up", async () => {
    // Every call fails its first entry: the first 500 events never all get through.
    answer = (request) => ({
      status: 200,
      body: {
        FailedRecordCount: 1,
        Records: request.Records.map((_, index) =>
          index === 0 ? { ErrorCode: "InternalFailure" } : { SequenceNumber: "1" },
        ),
      },
    });
    const events = Array.from({ length: 600 }, (_, index) => event(`a-${index}`));
    const failure = await sink.publish(events).catch((error: unknown) => error);
    // The first call's one failed entry, and the 100 events of the call never made, in order.
    expect((failure as StreamPublishError).unpublished).toEqual([events[0], ...events.slice(500)]);
    expect(requests.map((request) => request.body.Records.length)).toEqual([500, 1, 1]);
  });

  it("retries a call that failed whole, such as a throttled request, and names Kinesis's error when it gives up", async () => {
    const throttled = {
      status: 400,
      body: { __type: "LimitExceededException", message: "Rate exceeded for stream events" },
    };
    answer = (request, index) => (index === 0 ? throttled : allPut(request));
    await sink.publish([event("a")]);
    expect(requests).toHaveLength(2);

    requests.length = 0;
    answer = () => throttled;
    await expect(sink.publish([event("a")])).rejects.toMatchObject({
      lastErrorCode: "LimitExceededException",
    });
    expect(requests).toHaveLength(3);
  });
});

describe("a call whose outcome is unknown", () => {
  const unknownOutcomes: [string, Answer][] = [
    ["its connection broke once it was sent", "hang up"],
    ["Kinesis answered 500", { status: 500, body: { __type: "InternalFailure", message: "internal" } }],
  ];

  it.each(unknownOutcomes)(
    "is not made again when %s, and gives its events back marked as resent",
    async (_, failure) => {
      answer = (request, index) => (index === 0 ? failure : allPut(request));
      const publish = sink.publish([event("a"), event("b")]);
      await expect(publish).rejects.toBeInstanceOf(StreamPublishError);
      const error = (await publish.catch((thrown: unknown) => thrown)) as StreamPublishError;
      expect(error.unpublished.map(({ eventId, resent }) => ({ eventId, resent }))).toEqual([
        { eventId: "event-a", resent: true },
        { eventId: "event-b", resent: true },
      ]);
      expect(requests).toHaveLength(1);
    },
  );

  it("leaves its events unmarked when the connection was refused: nothing was sent", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = new KinesisEventSink(
      makeKinesisClient({
        [AwsEndpointEnvNames.kinesis]: `http://127.0.0.1:${port}`,
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "local",
        AWS_SECRET_ACCESS_KEY: "local",
      }),
      "events",
      { maxAttempts: 3, backoffMs: 1 },
    );
    const error = (await refused
      .publish([event("a")])
      .catch((thrown: unknown) => thrown)) as StreamPublishError;
    expect(error).toMatchObject({ lastErrorCode: "Error" });
    expect(error.unpublished.map((unpublished) => unpublished.resent)).toEqual([undefined]);
  });
});

describe("CoalescingEventSink", () => {
  const failing = (agents: string[]) => (request: PutRecordsRequest) => ({
    status: 200,
    body: {
      FailedRecordCount: 1,
      Records: agentsIn(request).map((agentId) =>
        agents.includes(agentId) ? { ErrorCode: "InternalFailure" } : { SequenceNumber: "1" },
      ),
    },
  });

  it("puts the events of the publishes made in one turn in one call, each agent's in order", async () => {
    answer = allPut;
    await Promise.all([
      coalescing.publish([event("a"), { ...event("a"), eventId: "a-2" }]),
      coalescing.publish([event("b")]),
      coalescing.publish([]),
      coalescing.publish([event("c")]),
    ]);
    expect(requests.map((request) => agentsIn(request.body))).toEqual([["a", "a", "b", "c"]]);
    expect(requests[0]?.body.Records.map((record) => record.PartitionKey)).toEqual([
      "acme/a",
      "acme/a",
      "acme/b",
      "acme/c",
    ]);
  });

  it("settles each publish with its own events' outcome: one's failed record fails it alone", async () => {
    answer = failing(["b"]);
    const outcomes = await Promise.allSettled([
      coalescing.publish([event("a")]),
      coalescing.publish([event("b"), event("c")]),
    ]);
    expect(outcomes[0]).toEqual({ status: "fulfilled", value: undefined });
    const failure = (outcomes[1] as PromiseRejectedResult).reason as StreamPublishError;
    expect(failure).toBeInstanceOf(StreamPublishError);
    expect(failure.unpublished).toEqual([event("b")]);
    expect(failure.lastErrorCode).toBe("InternalFailure");
    // The failed record alone was resent, as many times as the bounded attempts allow.
    expect(requests.map((request) => agentsIn(request.body))).toEqual([["a", "b", "c"], ["b"], ["b"]]);
  });

  it("resolves a publish whose records were all put without waiting for another's resends", async () => {
    let resent: () => void = () => {};
    const resendArrived = new Promise<void>((resolve) => {
      resent = resolve;
    });
    answer = (request, index) => {
      if (index === 1) resent();
      return index === 0 ? failing(["b"])(request) : allPut(request);
    };
    const b = coalescing.publish([event("b")]);
    await coalescing.publish([event("a")]);
    // a resolved while b's record still waited for its resend.
    expect(requests).toHaveLength(1);
    await resendArrived;
    await b;
  });

  it("fails every publish of a call Kinesis refused whole, each naming only its own events", async () => {
    answer = () => ({ status: 400, body: { __type: "LimitExceededException", message: "Rate exceeded" } });
    const outcomes = await Promise.allSettled([
      coalescing.publish([event("a")]),
      coalescing.publish([event("b")]),
    ]);
    expect(outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason)).toMatchObject([
      { unpublished: [event("a")], lastErrorCode: "LimitExceededException" },
      { unpublished: [event("b")], lastErrorCode: "LimitExceededException" },
    ]);
    expect(requests).toHaveLength(3);
  });

  it("puts at most 500 records a call, keeping each publish whole in one call", async () => {
    answer = allPut;
    const publishes = ["x", "y", "z"].map((name) =>
      Array.from({ length: 200 }, (_, index) => event(`${name}-${index}`)),
    );
    await Promise.all(publishes.map((events) => coalescing.publish(events)));
    expect(requests.map((request) => agentsIn(request.body))).toEqual([
      [...(publishes[0] ?? []), ...(publishes[1] ?? [])].map((each) => each.agentId),
      (publishes[2] ?? []).map((each) => each.agentId),
    ]);
  });

  it("puts a publish too large for one call alone, a call at a time, as the plain sink does", async () => {
    answer = allPut;
    const large = Array.from({ length: 600 }, (_, index) => event(`a-${index}`));
    await Promise.all([coalescing.publish(large), coalescing.publish([event("b")])]);
    expect(requests.map((request) => request.body.Records.length).sort()).toEqual([1, 100, 500]);
  });

  it("puts a lone publish in a call of its own, and one made after that call went out in the next", async () => {
    answer = allPut;
    const first = coalescing.publish([event("a")]);
    // The turn after: the first publish's call is under way.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([first, coalescing.publish([event("b")])]);
    expect(requests.map((request) => agentsIn(request.body))).toEqual([["a"], ["b"]]);
  });
});
