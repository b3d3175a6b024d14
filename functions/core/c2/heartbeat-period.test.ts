import { describe, expect, it } from "vitest";
import { cppAgentOf, example, javaAgentOf } from "../../../scripts/common/c2-examples.js";
import type { JsonObject } from "../json.js";
import {
  MAX_OWN_HEARTBEAT_PERIOD_MS,
  MIN_OWN_HEARTBEAT_PERIOD_MS,
  ownHeartbeatPeriodMsOf,
  periodMsOf,
} from "./heartbeat-period.js";

const operationsOf = (manifest: JsonObject) => manifest.supportedOperations as unknown[];
const manifestOf = (heartbeat: JsonObject) => (heartbeat.agentInfo as JsonObject).agentManifest as JsonObject;

/** A manifest's supportedOperations listing one property, laid out as each agent lays it out. */
const cppListing = (propertyName: string, propertyValue?: string) => [
  { type: "heartbeat", properties: {} },
  { type: "update", properties: { properties: { availableProperties: [{ propertyName, propertyValue }] } } },
];
const javaListing = (propertyValue?: string) => [
  { type: "DESCRIBE", properties: { MANIFEST: {} } },
  {
    type: "UPDATE",
    properties: {
      PROPERTIES: { availableProperties: [{ propertyName: "c2.agent.heartbeat.period", propertyValue }] },
    },
  },
];

describe("an agent's own heartbeat period", () => {
  it("is read from the real C++ manifest: 30 sec", () => {
    expect(ownHeartbeatPeriodMsOf(operationsOf(manifestOf(example("cpp/heartbeat-full.json"))))).toBe(30_000);
    const ack = example("cpp/ack-describe-manifest.json");
    expect(ownHeartbeatPeriodMsOf(operationsOf(manifestOf(ack)))).toBe(30_000);
  });

  it("is read from a Java manifest in milliseconds, and is the library's 1 s when listed without a value", () => {
    expect(ownHeartbeatPeriodMsOf(operationsOf(manifestOf(javaAgentOf("j-1", "pumps").full())))).toBe(5_000);
    expect(ownHeartbeatPeriodMsOf(operationsOf(manifestOf(cppAgentOf("c-1", "pumps").full())))).toBe(30_000);
    expect(ownHeartbeatPeriodMsOf(javaListing("15000"))).toBe(15_000);
    expect(ownHeartbeatPeriodMsOf(javaListing(""))).toBe(1_000);
    expect(ownHeartbeatPeriodMsOf(javaListing(undefined))).toBe(1_000);
  });

  it("is unknown when the manifest lists no such property or no UPDATE PROPERTIES at all", () => {
    const javaExample = example("java-2.3.0/ack-describe-manifest.json");
    expect(ownHeartbeatPeriodMsOf(operationsOf(manifestOf(javaExample)))).toBeUndefined();
    expect(ownHeartbeatPeriodMsOf(cppListing("nifi.log.level", "debug"))).toBeUndefined();
    expect(ownHeartbeatPeriodMsOf(cppListing("nifi.c2.agent.heartbeat.period"))).toBeUndefined();
    expect(ownHeartbeatPeriodMsOf([])).toBeUndefined();
    expect(ownHeartbeatPeriodMsOf([null, "update", { type: "update", properties: "x" }])).toBeUndefined();
  });

  it("reads the C++ property's value as a time period", () => {
    expect(ownHeartbeatPeriodMsOf(cppListing("nifi.c2.agent.heartbeat.period", "5 sec"))).toBe(5_000);
    expect(ownHeartbeatPeriodMsOf(cppListing("nifi.c2.agent.heartbeat.period", "2500"))).toBe(2_500);
    expect(ownHeartbeatPeriodMsOf(cppListing("nifi.c2.agent.heartbeat.period", "soon"))).toBeUndefined();
  });
});

describe("a time period", () => {
  it("takes every unit MiNiFi writes, in any case and spacing; a bare number is milliseconds", () => {
    const cases: [string, number][] = [
      ["1500", 1_500],
      ["1500 ms", 1_500],
      ["1500MS", 1_500],
      ["1500 millis", 1_500],
      ["30 sec", 30_000],
      ["30sec", 30_000],
      ["30 secs", 30_000],
      ["1 second", 1_000],
      ["30 Seconds", 30_000],
      ["30s", 30_000],
      ["  5   SEC  ", 5_000],
      ["2 min", 120_000],
      ["1 minute", 60_000],
      ["3 minutes", 180_000],
      ["1 hr", 3_600_000],
      ["2 hours", 7_200_000],
      ["1 Hour", 3_600_000],
    ];
    for (const [text, ms] of cases) expect({ text, ms: periodMsOf(text) }).toEqual({ text, ms });
  });

  it("is refused when it is no period: garbage, fractions, negatives, unknown units, zero", () => {
    for (const text of [
      "",
      " ",
      "sec",
      "fast",
      "1.5 sec",
      "-5 sec",
      "5 fortnights",
      "5 s e c",
      "0",
      "0 min",
      "1e3",
    ])
      expect({ text, ms: periodMsOf(text) }).toEqual({ text, ms: undefined });
  });

  it("is held between one second and one day, so neither Beacon's latency nor the cache's memory decides", () => {
    expect(periodMsOf("1 ms")).toBe(MIN_OWN_HEARTBEAT_PERIOD_MS);
    expect(periodMsOf("999")).toBe(MIN_OWN_HEARTBEAT_PERIOD_MS);
    expect(periodMsOf("1000")).toBe(1_000);
    expect(periodMsOf("24 hours")).toBe(MAX_OWN_HEARTBEAT_PERIOD_MS);
    expect(periodMsOf("30 days")).toBe(MAX_OWN_HEARTBEAT_PERIOD_MS);
    expect(periodMsOf("999999999999999 hours")).toBe(MAX_OWN_HEARTBEAT_PERIOD_MS);
  });
});
