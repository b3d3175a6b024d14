import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { keptAlivePost, type Post } from "./kept-alive-post.js";

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

const connections = new Set<Socket>();
const bodies: string[] = [];
let answer: Answer = (_request, response) => response.end("{}");
const service = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    bodies.push(Buffer.concat(chunks).toString());
    answer(request, response);
  });
});
service.on("connection", (socket: Socket) => connections.add(socket));

const postWithin = (requestTimeoutMs: number): Post =>
  keptAlivePost(
    {
      protocol: "http:",
      hostname: "127.0.0.1",
      port: (service.address() as AddressInfo).port,
      path: "/",
    },
    { connectionTimeoutMs: 1_000, requestTimeoutMs },
  );

beforeAll(() => new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve)));
afterAll(async () => {
  service.closeAllConnections();
  await new Promise((resolve) => service.close(resolve));
});
beforeEach(() => {
  service.closeAllConnections();
  connections.clear();
  bodies.length = 0;
  answer = (_request, response) => response.end("{}");
});

describe("a POST over kept-alive connections", () => {
  it("answers the service's status and body, sending the calls one after another on one connection", async () => {
    answer = (request, response) => {
      response.writeHead(request.headers["x-call"] === "2" ? 400 : 200);
      response.end(`{"call":${request.headers["x-call"]}}`);
    };
    const post = postWithin(5_000);

    await expect(post({ "x-call": "1" }, '{"first":true}')).resolves.toEqual({
      statusCode: 200,
      text: '{"call":1}',
    });
    await expect(post({ "x-call": "2" }, '{"second":true}')).resolves.toEqual({
      statusCode: 400,
      text: '{"call":2}',
    });
    expect(bodies).toEqual(['{"first":true}', '{"second":true}']);
    expect(connections.size).toBe(1);
  });

  it("fails as timed out when the service does not answer in time, and closes that connection", async () => {
    answer = () => {}; // Frozen: the request read, nothing answered.
    const post = postWithin(200);

    await expect(post({}, "{}")).rejects.toMatchObject({ name: "TimeoutError" });
    const [held] = connections;
    await expect.poll(() => held?.destroyed).toBe(true);
  });

  it("fails as reset when the connection closes before the answer is whole", async () => {
    answer = (_request, response) => {
      response.writeHead(200, { "content-length": "100" });
      response.write('{"Records":[');
      setImmediate(() => response.socket?.destroy());
    };

    await expect(postWithin(5_000)({}, "{}")).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  it("fails as aborted when its signal aborts, before it is sent or while it waits", async () => {
    answer = () => {};
    const post = postWithin(5_000);

    await expect(post({}, "{}", AbortSignal.abort())).rejects.toMatchObject({ name: "AbortError" });
    expect(bodies).toHaveLength(0);

    const aborting = new AbortController();
    const waiting = post({}, "{}", aborting.signal);
    await expect.poll(() => bodies.length).toBe(1);
    aborting.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
  });
});
