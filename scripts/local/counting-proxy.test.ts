import { performance } from "node:perf_hooks";
import { afterAll, describe, expect, it } from "vitest";
import { localService } from "../test-support/local-service.js";
import { startCountingProxy } from "./counting-proxy.js";

const arrivals: number[] = [];
const backend = localService((request, body, response) => {
  arrivals.push(performance.now());
  response.end(`${request.method} ${request.url} ${body.toString()}`);
});
const closing: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(closing.map((close) => close())));

describe("the counting proxy", () => {
  it("forwards each request a delay later, as a network's round trip would, and counts it", async () => {
    const proxy = await startCountingProxy(backend.url(), { delayMs: 40 });
    closing.push(proxy.close);
    arrivals.length = 0;

    const sent = performance.now();
    const answers = await Promise.all(
      ["a", "b"].map(async (body) => {
        const answer = await fetch(`${proxy.url}/path?x=1`, { method: "POST", body });
        return answer.text();
      }),
    );

    expect(answers).toEqual(["POST /path?x=1 a", "POST /path?x=1 b"]);
    for (const arrival of arrivals) expect(arrival - sent).toBeGreaterThanOrEqual(39);
    expect(proxy.counts()).toEqual({ "POST /path?x=1": 2 });
  });
});
