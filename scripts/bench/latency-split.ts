/**
 * Where the rate sweep's heartbeats spend their time inside the bench process, per step: the gateway's (each
 * request from its headers parsed to its answer written, TLS aside), the heartbeat handler's within it, and the
 * stream puts the handler waits on. Read from Node's HTTP diagnostics channels, so nothing on the path changes;
 * with the load's own lateness and the latency the load measures, they split a heartbeat's latency.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import { latencySummary } from "./agent-client.js";

/** The channels' messages, as far as the split reads them. */
type ServerMessage = { request: IncomingMessage };
type ClientMessage = { request: ClientRequest };

export interface LatencySplit {
  /** Times a call of `handler`: the handler's share. */
  timed<T>(handler: () => Promise<T>): Promise<T>;
  /** Each part's p50 and p99 since the last reset, in ms, and starts again. */
  takeStep(): Record<"gateway" | "handler" | "streamPut", { p50: number; p99: number }>;
  close(): void;
}

/** Starts timing this process's served requests and its requests to the stream at `streamEndpoint`. */
export function startLatencySplit(streamEndpoint: string): LatencySplit {
  const streamHost = new URL(streamEndpoint).host;
  const started = new WeakMap<object, number>();
  let gateway: number[] = [];
  let handler: number[] = [];
  let streamPut: number[] = [];
  const timeFrom = (key: object, into: number[]) => {
    const at = started.get(key);
    if (at !== undefined) into.push(performance.now() - at);
  };
  const listeners: [string, (message: unknown) => void][] = [
    ["http.server.request.start", (m) => started.set((m as ServerMessage).request, performance.now())],
    ["http.server.response.finish", (m) => timeFrom((m as ServerMessage).request, gateway)],
    [
      "http.client.request.start",
      (m) => {
        const { request } = m as ClientMessage;
        if (request.getHeader("host") === streamHost) started.set(request, performance.now());
      },
    ],
    ["http.client.response.finish", (m) => timeFrom((m as ClientMessage).request, streamPut)],
  ];
  for (const [channel, listener] of listeners) subscribe(channel, listener);
  const summary = (times: number[]) => {
    const { p50, p99 } = latencySummary(times);
    return { p50, p99 };
  };
  return {
    async timed(call) {
      const at = performance.now();
      try {
        return await call();
      } finally {
        handler.push(performance.now() - at);
      }
    },
    takeStep() {
      const step = { gateway: summary(gateway), handler: summary(handler), streamPut: summary(streamPut) };
      gateway = [];
      handler = [];
      streamPut = [];
      return step;
    },
    close() {
      for (const [channel, listener] of listeners) unsubscribe(channel, listener);
    },
  };
}
