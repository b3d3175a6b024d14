import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { AgentServiceSettings } from "../../functions/agent-service/settings.js";
import {
  checkedUnits,
  defaultDeployment,
  type Prices,
  readPrices,
  readUnits,
  recordMeasurements,
  type UnitName,
  type Units,
  unitsFile,
  withValues,
} from "./inputs.js";
import { dynamoDbItemBytes } from "./measure.js";
import {
  estimate,
  javaConnectionsPerHeartbeat,
  type Load,
  nlbLcus,
  type OptionId,
  optionIds,
  optionOf,
  priced,
} from "./model.js";
import { checkQuotas } from "./quotas.js";
import { report, type Sized } from "./table.js";
import { targetReport } from "./target.js";

/** The units as the tests fix them, whatever the bench later records in units.json. */
const FIXED: Record<UnitName, number> = {
  handlerCpuMsConcurrent: 0.75,
  handlerCpuMsOneAtATime: 1.78,
  gatewayAndHandlerCpuMs: 1.41,
  lambdaMemoryMb: 1024,
  lambdaMemoryMbPerVcpu: 1769,
  cacheRoundTripMs: 0.5,
  streamPutMs: 15,
  requestBodyBytes: 1059,
  requestHeaderBytes: 220,
  responseBodyBytes: 26,
  responseHeaderBytes: 200,
  cppConnectionsPerHeartbeat: 1,
  javaPoolIdleSeconds: 300,
  ingressIdleTimeoutSeconds: 290,
  ingressConnectionLifetimeSeconds: 3600,
  tlsSetupBytesOutRsa2048: 4500,
  tlsSetupBytesOutEcdsaP256: 3500,
  tlsSetupBytesOutEcdsaP256PrivateCa: 2500,
  tlsSetupBytesOutEcdsaP256PrivateLeaf: 1500,
  sessionTicketBytesSaved: 1440,
  tlsSetupBytesInClient: 1000,
  tlsHandshakeCpuMs: 5,
  tcpIpHeaderBytesPerHeartbeat: 208,
  tcpIpHeaderBytesPerConnection: 832,
  cacheRoundTripsPerHeartbeat: 1,
  cacheScriptsPerSecondPerShard: 40_000,
  cacheMemoryBytesPerAgent: 3659,
  cacheEcpuPerRoundTrip: 10,
  streamRecordsPerHeartbeat: 1,
  eventBytes: 919,
  partitionKeyBytes: 52,
  streamPutOverheadBytes: 1000,
  dynamoDbRequestsPerHeartbeat: 0,
  checkpointsPerAgentHour: 6,
  agentItemBytes: 1922,
  indexesHoldingAgentItem: 2,
  lastSeenItemBytes: 80,
  indexesHoldingLastSeenItem: 0,
  // One metric line of 200 B per heartbeat, with CloudWatch's 26 B for its log event.
  metricLineBytesPerHeartbeat: 226,
  logEventOverheadBytes: 26,
  lambdaPlatformLogBytesPerInvocation: 0,
};
const units: Units = withValues(readUnits(), FIXED);
const prices = readPrices();
/** A fleet of MiNiFi C++ agents unless `javaShare` says otherwise. */
const at = (agents: number, intervalSeconds = 60, javaShare = 0): Load => ({
  agents,
  intervalSeconds,
  javaShare,
});
const lineOf = (lines: { item: string; monthly: number }[], start: string) =>
  lines.find((line) => line.item.startsWith(start))?.monthly;
const withPrice = (name: keyof Prices["prices"], value: number): Prices => ({
  ...prices,
  prices: { ...prices.prices, [name]: { ...prices.prices[name], value, tiers: undefined } },
});

describe("the capacity model", () => {
  it("prices 100,000 agents at 60 s from the units: requests, duration, checkpoints, tasks", () => {
    const estimated = estimate(at(100_000), units, prices, defaultDeployment);
    expect(estimated.heartbeatsPerMonth).toBeCloseTo(4.38e9, -3);
    const httpApi = optionOf(estimated, "httpApiLambda");
    // 300 million at $1.00 per million, the other 4,080 million at $0.90.
    expect(lineOf(httpApi.lines, "API Gateway")).toBeCloseTo(300 + 4_080 * 0.9, 6);
    expect(lineOf(httpApi.lines, "Lambda requests")).toBeCloseTo(876, 6);
    // 1.78 ms at 1024/1769 of a vCPU, one cache round trip, one stream put: 19 ms billed.
    expect(estimated.lambdaBilledMs).toBe(19);
    // The 80-byte last-seen item is 1 write unit, in the table only.
    expect(lineOf(estimated.shared, "DynamoDB on-demand checkpoint")).toBeCloseTo(
      100_000 * 6 * 730 * 1 * 0.625e-6,
      6,
    );
    // 1,667 heartbeats/s × 1.41 ms at 50 % utilisation is 4.7 vCPU: 5 one-vCPU tasks.
    expect(estimated.fargateTasks).toBe(5);
    // A C++ fleet's handshakes cost the NLB's tasks less than the ALB's LCUs and its tickets' bytes.
    expect(estimated.cheapest).toBe("nlbFargate");
    expect(optionOf(estimated, "albFargate").monthly).toBeCloseTo(
      [...optionOf(estimated, "albFargate").lines, ...estimated.shared].reduce(
        (sum, line) => sum + line.monthly,
        0,
      ),
      6,
    );
  });

  it("moves a total by exactly what a price change moves its line", () => {
    const before = estimate(at(100_000), units, prices, defaultDeployment);
    const after = estimate(at(100_000), units, withPrice("albLcuHour", 0.016), defaultDeployment);
    const lcuLine = lineOf(optionOf(before, "albFargate").lines, "ALB LCUs") as number;
    expect(lcuLine).toBeGreaterThan(0);
    expect(optionOf(after, "albFargate").monthly - optionOf(before, "albFargate").monthly).toBeCloseTo(
      lcuLine,
      6,
    );
    expect(optionOf(after, "httpApiLambda").monthly).toBeCloseTo(
      optionOf(before, "httpApiLambda").monthly,
      6,
    );
  });

  it("counts a checkpoint of an item under 1 KB as 1 write unit per copy, never 0", () => {
    const empty = withValues(units, { lastSeenItemBytes: 0, indexesHoldingLastSeenItem: 2 });
    expect(
      lineOf(estimate(at(100_000), empty, prices, defaultDeployment).shared, "DynamoDB on-demand checkpoint"),
    ).toBeCloseTo(100_000 * 6 * 730 * 3 * 0.625e-6, 6);
  });

  it("prices the checkpoint that rewrote the whole profile at 6 write units: $1,643 at 100,000 agents", () => {
    // As before the last-seen item: the 1,922-byte profile, 2 units in the table and in each index.
    const profileCheckpoints = withValues(units, { lastSeenItemBytes: 1922, indexesHoldingLastSeenItem: 2 });
    expect(
      lineOf(
        estimate(at(100_000), profileCheckpoints, prices, defaultDeployment).shared,
        "DynamoDB on-demand checkpoint",
      ),
    ).toBeCloseTo(1642.5, 6);
  });

  it("walks tiers: only the part of a quantity above a tier's top gets the next price", () => {
    const tiered = prices.prices.httpApiRequest;
    expect(priced(tiered, 100e6)).toBeCloseTo(100, 9);
    expect(priced(tiered, 400e6)).toBeCloseTo(300 + 90, 9);
  });

  it("sizes the stream by records or bytes, and the cache by scripts or memory, whichever needs more", () => {
    const small = estimate(at(10_000), units, prices, defaultDeployment);
    expect(small.stream.provisionedShards).toBe(1);
    const large = estimate(at(10_000_000), units, prices, defaultDeployment);
    expect(large.stream.provisionedShards).toBe(167);
    const bigEvents = estimate(
      at(10_000_000),
      withValues(units, { eventBytes: 20_000 }),
      prices,
      defaultDeployment,
    );
    expect(bigEvents.stream.provisionedShards).toBe(Math.ceil((166_666.67 * 20_052) / 1024 ** 2));
    // 166,667 scripts/s at 20,000 per shard: 9 shards, more than 38 GiB needs on the cheapest node.
    expect(large.cache.shards).toBe(9);
    const bigAgents = estimate(
      at(10_000_000),
      withValues(units, { cacheMemoryBytesPerAgent: 40_000 }),
      prices,
      defaultDeployment,
    );
    expect(bigAgents.cache.shards).toBeGreaterThan(9);
  });

  it("checkpoints an agent that heartbeats less often than the checkpoint interval at each heartbeat only", () => {
    const hourly = estimate(at(100_000, 3600), units, prices, defaultDeployment);
    expect(hourly.checkpointWriteUnitsPerSecond).toBeCloseTo((100_000 * 1 * 1) / 3600, 6);
  });
});

describe("the fleet's agents and the server certificate", () => {
  const hundredThousand = (
    javaShare: number,
    changed: Units = units,
    serverKey = defaultDeployment.serverKey,
  ) => estimate(at(100_000, 60, javaShare), changed, prices, { ...defaultDeployment, serverKey });
  const noteOf = (lines: { item: string; note?: string }[], start: string) =>
    lines.find((line) => line.item.startsWith(start))?.note;
  const transferGib = (estimated: ReturnType<typeof estimate>, option: OptionId = "albFargate") =>
    optionOf(estimated, option).lines.find((line) => line.item.startsWith("Data transfer out"))
      ?.quantity as number;

  it("bills a C++ fleet's ALB by its new connections and a kept-alive Java fleet's by its active ones", () => {
    const cpp = hundredThousand(0);
    // 1,667 heartbeats/s, each a new connection, at 25 new connections/s per LCU.
    expect(cpp.albLcus.containerTargets).toBeCloseTo(100_000 / 60 / 25, 6);
    expect(noteOf(optionOf(cpp, "albFargate").lines, "ALB LCUs")).toBe("new connections dominate");
    const java = hundredThousand(1);
    // Every agent's connection is active each minute, at 1,500 per LCU under mutual TLS; one new connection an
    // hour each.
    expect(java.albLcus.containerTargets).toBeCloseTo(100_000 / 1_500, 6);
    expect(noteOf(optionOf(java, "albFargate").lines, "ALB LCUs")).toBe("active connections dominate");
    // Replies only, and a setup of 4,500 bytes an hour per agent.
    expect(transferGib(java)).toBeCloseTo((java.heartbeatsPerMonth * (226 + 4_500 / 60)) / 1024 ** 3, 6);
    expect(transferGib(cpp)).toBeCloseTo((cpp.heartbeatsPerMonth * (226 + 4_500)) / 1024 ** 3, 6);
    const half = hundredThousand(0.5);
    expect(transferGib(half)).toBeCloseTo((transferGib(cpp) + transferGib(java)) / 2, 6);
  });

  it("holds every LCU dimension the model prices to the pricing page's words quoted in prices.json", () => {
    const { albLcu } = prices;
    const figures = (value: number) => value.toLocaleString("en-US");
    expect(albLcu.quote).toContain(`${figures(albLcu.newConnectionsPerSecond)} new connections per second`);
    expect(albLcu.quote).toContain(
      `${figures(albLcu.activeConnectionsPerMinute)} active connections per minute or ` +
        `${figures(albLcu.activeConnectionsPerMinuteMutualTls)} active connections per minute while using Mutual TLS`,
    );
    expect(albLcu.quote).toContain(
      `${figures(albLcu.gbPerHourContainers)} GB per hour for Amazon Elastic Compute Cloud (EC2) instances, containers`,
    );
    expect(albLcu.quote).toContain(`${figures(albLcu.gbPerHourLambda)} GB per hour for Lambda functions`);
    expect(albLcu.quote).toContain(`${figures(albLcu.ruleEvaluationsPerSecond)} rule evaluations per second`);
    expect(albLcu.quote).toContain(`The first ${albLcu.freeRulesPerRequest} processed rules are free`);
    expect(albLcu.source).toMatch(/^https:\/\/aws\.amazon\.com\/elasticloadbalancing\/pricing\//);
  });

  it("holds every NLCU dimension the model prices to the pricing page's figures quoted in prices.json", () => {
    const { nlbLcu } = prices;
    const figures = (value: number) => value.toLocaleString("en-US");
    expect(nlbLcu.quote).toContain(
      `TCP: ${figures(nlbLcu.newConnectionsPerSecond)} new connections/sec, ` +
        `${figures(nlbLcu.activeConnectionsPerMinute)} active connections, ${figures(nlbLcu.gbPerHour)} GB per hour`,
    );
    expect(nlbLcu.quote).toContain(`$${prices.prices.nlbLcuHour.value} per NLCU`);
    expect([nlbLcu.newConnectionsPerSecond, nlbLcu.activeConnectionsPerMinute, nlbLcu.gbPerHour]).toEqual([
      800, 100_000, 1,
    ]);
    expect(prices.prices.nlbLcuHour.value).toBe(0.006);
    expect(nlbLcu.source).toMatch(/^https:\/\/aws\.amazon\.com\/elasticloadbalancing\/pricing\//);
    expect(prices.prices.nlbLcuHour.source).toMatch(
      /^https:\/\/aws\.amazon\.com\/elasticloadbalancing\/pricing\//,
    );
  });

  it("bills the NLB by the largest of new flows, active flows and processed bytes, handshakes included", () => {
    const hps = 100_000 / 60;
    const lcu = prices.nlbLcu;
    // A C++ fleet: every heartbeat a new flow with its handshake both ways and its packets' headers.
    const cppBytes = 1_505 + 208 + 1 * (2_060 + 1_000 + 832);
    const cpp = nlbLcus(units, at(100_000), hps, 2_060, lcu);
    expect(cpp).toEqual({
      lcus: expect.closeTo((hps * 3600 * cppBytes) / 1024 ** 3, 6),
      dominant: "processed bytes",
    });
    expect((hps * 1) / 800).toBeLessThan(cpp.lcus);
    // A kept-alive Java fleet: 100,000 active flows are one NLCU; its bytes still weigh more.
    const java = nlbLcus(units, at(100_000, 60, 1), hps, 2_060, lcu);
    const javaBytes = 1_505 + 208 + (60 / 3600) * (2_060 + 1_000 + 832);
    expect(java.lcus).toBeCloseTo((hps * 3600 * javaBytes) / 1024 ** 3, 6);
    expect(100_000 / lcu.activeConnectionsPerMinute).toBeLessThan(java.lcus);
    // A small fleet of kept connections with nothing to say: active flows dominate.
    const silent = withValues(units, {
      requestBodyBytes: 0,
      requestHeaderBytes: 0,
      responseBodyBytes: 0,
      responseHeaderBytes: 0,
      tcpIpHeaderBytesPerHeartbeat: 0,
      tcpIpHeaderBytesPerConnection: 0,
      tlsSetupBytesInClient: 0,
    });
    const quiet = nlbLcus(silent, at(100_000, 60, 1), hps, 0, lcu);
    expect(quiet.dominant).toBe("active flows");
    expect(quiet.lcus).toBeCloseTo(1, 6);
    // In the bill: the NLB's hours and NLCUs, no trust store (the tasks verify clients' certificates).
    const estimated = hundredThousand(0);
    const nlb = optionOf(estimated, "nlbFargate");
    expect(lineOf(nlb.lines, "NLB hours")).toBeCloseTo(730 * 0.0225, 6);
    expect(lineOf(nlb.lines, "NLB NLCUs")).toBeCloseTo(estimated.nlbLcus * 730 * 0.006, 6);
    expect(lineOf(nlb.lines, "ALB trust store")).toBeUndefined();
  });

  it("has the tasks behind the NLB pay every new connection's handshake CPU", () => {
    const cpp = hundredThousand(0);
    // 1,667 heartbeats/s × (1.41 ms + 1 handshake × 5 ms) at 50 % utilisation: 21.4 vCPU, 22 one-vCPU tasks.
    expect(cpp.nlbFargateTasks).toBe(22);
    expect(cpp.fargateTasks).toBe(5);
    // A kept-alive Java fleet hands shakes once an hour: (1.41 + 5/60) ms.
    expect(hundredThousand(1).nlbFargateTasks).toBe(
      Math.ceil(((100_000 / 60) * ((1.41 + 5 / 60) / 1000)) / 0.5),
    );
  });

  it("applies the mutual-TLS rule to the agent load balancer: half the active connections per LCU, and its trust store", () => {
    const withMutualTls = hundredThousand(1);
    const withoutMutualTls = estimate(at(100_000, 60, 1), units, prices, {
      ...defaultDeployment,
      albMutualTls: false,
    });
    expect(defaultDeployment.albMutualTls).toBe(true);
    expect(withMutualTls.albLcus.containerTargets).toBeCloseTo(
      2 * withoutMutualTls.albLcus.containerTargets,
      6,
    );
    const trustStore = (estimated: ReturnType<typeof estimate>) =>
      lineOf(optionOf(estimated, "albFargate").lines, "ALB trust store");
    expect(trustStore(withMutualTls)).toBeCloseTo(730 * 0.005, 6);
    expect(trustStore(withoutMutualTls)).toBeUndefined();
    // The ALB's share of an all-Java fleet of 100,000: 66.7 LCUs, not 33.3, at $0.008 an LCU-hour.
    expect(
      (optionOf(withMutualTls, "albFargate").monthly -
        optionOf(withoutMutualTls, "albFargate").monthly) as number,
    ).toBeCloseTo((100_000 / 1_500 - 100_000 / 3_000) * 0.008 * 730 + 730 * 0.005, 6);
    // A C++ fleet's new connections are counted alike with or without it.
    const cppWithout = estimate(at(100_000), units, prices, { ...defaultDeployment, albMutualTls: false });
    expect(hundredThousand(0).albLcus.containerTargets).toBeCloseTo(cppWithout.albLcus.containerTargets, 6);
  });

  it("has a Java agent reconnect each heartbeat once its interval reaches the ingress's idle timeout", () => {
    expect(javaConnectionsPerHeartbeat(units, at(100_000, 60, 1))).toBeCloseTo(60 / 3600, 9);
    expect(javaConnectionsPerHeartbeat(units, at(100_000, 289, 1))).toBeCloseTo(289 / 3600, 9);
    expect(javaConnectionsPerHeartbeat(units, at(100_000, 290, 1))).toBe(1);
    // The load balancer's default idle timeout, as long as a 60 s heartbeat: a race counted as lost.
    const awsDefault = withValues(units, { ingressIdleTimeoutSeconds: 60 });
    expect(javaConnectionsPerHeartbeat(awsDefault, at(100_000, 60, 1))).toBe(1);
    expect(transferGib(hundredThousand(1, awsDefault))).toBeCloseTo(transferGib(hundredThousand(0)), 6);
    // The pool's 5 minutes bound it too.
    const shortPool = withValues(units, { javaPoolIdleSeconds: 30 });
    expect(javaConnectionsPerHeartbeat(shortPool, at(100_000, 60, 1))).toBe(1);
  });

  it("sets each connection up with the chosen certificate key's measured bytes", () => {
    const rsa = hundredThousand(0, units, "rsa2048");
    const ecdsa = hundredThousand(0, units, "ecdsaP256");
    expect(transferGib(rsa) - transferGib(ecdsa)).toBeCloseTo(
      (rsa.heartbeatsPerMonth * 1_000) / 1024 ** 3,
      6,
    );
    expect(noteOf(optionOf(ecdsa, "albFargate").lines, "Data transfer out")).toBe(
      "1 new connection(s) per heartbeat × 3,500 B (ECDSA P-256 certificate)",
    );
    // A private CA's short ECDSA chains, on every ingress.
    const leaf = hundredThousand(0, units, "ecdsaP256PrivateLeaf");
    for (const option of optionIds)
      expect(transferGib(ecdsa, option) - transferGib(leaf, option)).toBeCloseTo(
        (ecdsa.heartbeatsPerMonth * 2_000) / 1024 ** 3,
        6,
      );
    expect(transferGib(hundredThousand(0, units, "ecdsaP256PrivateCa"))).toBeCloseTo(
      (ecdsa.heartbeatsPerMonth * (226 + 2_500)) / 1024 ** 3,
      6,
    );
  });

  it("has the agent service behind the NLB send Beacon's stateful tickets: fewer bytes out per connection", () => {
    const cpp = hundredThousand(0, units, "ecdsaP256PrivateLeaf");
    expect(transferGib(cpp, "albFargate") - transferGib(cpp, "nlbFargate")).toBeCloseTo(
      (cpp.heartbeatsPerMonth * 1_440) / 1024 ** 3,
      6,
    );
    expect(noteOf(optionOf(cpp, "nlbFargate").lines, "Data transfer out")).toBe(
      "1 new connection(s) per heartbeat × 60 B (ECDSA private, leaf certificate, stateful tickets)",
    );
  });

  it("prices Lambda's platform lines for the Lambda options only, and none at prod's WARN", () => {
    const quiet = hundredThousand(0);
    const platformLine = (estimated: ReturnType<typeof estimate>, id: "httpApiLambda" | "albLambda") =>
      lineOf(optionOf(estimated, id).lines, "CloudWatch Logs ingestion (Lambda's");
    expect(platformLine(quiet, "httpApiLambda")).toBe(0);
    const loud = hundredThousand(0, withValues(units, { lambdaPlatformLogBytesPerInvocation: 700 }));
    const expected = ((quiet.heartbeatsPerMonth * (700 + 3 * 26)) / 1024 ** 3) * 0.5;
    expect(platformLine(loud, "httpApiLambda")).toBeCloseTo(expected, 6);
    expect(platformLine(loud, "albLambda")).toBeCloseTo(expected, 6);
    expect(optionOf(loud, "albFargate").monthly).toBeCloseTo(optionOf(quiet, "albFargate").monthly, 6);
  });

  it("ingests no log event for a heartbeat that writes no metric line", () => {
    const withoutLine = hundredThousand(0, withValues(units, { metricLineBytesPerHeartbeat: 0 }));
    expect(lineOf(withoutLine.shared, "CloudWatch Logs ingestion (metric lines)")).toBe(0);
    const withLine = hundredThousand(0);
    expect(lineOf(withLine.shared, "CloudWatch Logs ingestion (metric lines)")).toBeCloseTo(
      // The unit carries its share of the stream consumer's line per batch, CloudWatch's overhead included.
      ((withLine.heartbeatsPerMonth * units.metricLineBytesPerHeartbeat.value) / 1024 ** 3) * 0.5,
      6,
    );
  });

  it("checks the budget for all C++, the fleet's mix and all Java, with each certificate", () => {
    const target = targetReport(at(100_000, 60, 0.5), 1200, units, prices, defaultDeployment);
    expect(target.mixes.map(({ javaShare, serverKey }) => [javaShare, serverKey])).toEqual(
      [0, 0.5, 1].flatMap((javaShare) =>
        ["rsa2048", "ecdsaP256", "ecdsaP256PrivateCa", "ecdsaP256PrivateLeaf"].map((key) => [javaShare, key]),
      ),
    );
    const monthly = (javaShare: number, serverKey: string) =>
      target.mixes.find((mix) => mix.javaShare === javaShare && mix.serverKey === serverKey)
        ?.monthly as number;
    expect(monthly(1, "rsa2048")).toBeLessThan(monthly(0.5, "rsa2048"));
    expect(monthly(0.5, "rsa2048")).toBeLessThan(monthly(0, "rsa2048"));
    expect(monthly(0, "ecdsaP256")).toBeLessThan(monthly(0, "rsa2048"));
    for (const mix of target.mixes) expect(mix.fits).toBe(mix.monthly <= 1200);
    // Without the metric line per heartbeat, a kept-alive Java fleet fits $1,400 with every certificate, half and
    // half with one of them; a C++ fleet does not.
    const quiet = targetReport(
      at(100_000, 60, 0.5),
      1400,
      withValues(units, { metricLineBytesPerHeartbeat: 0 }),
      prices,
      defaultDeployment,
    );
    expect(quiet.mixes.filter((mix) => mix.fits).map((mix) => mix.javaShare)).toEqual([0.5, 1, 1, 1, 1]);
  });

  it("prices each fleet mix on every ingress option with every certificate, and picks the cheapest", () => {
    const { byIngress } = targetReport(at(100_000, 60, 0.5), 1200, units, prices, defaultDeployment);
    expect(byIngress.map((mix) => [mix.javaShare, mix.target])).toEqual([
      [1, 1_000],
      [0.5, undefined],
      [0, 1_800],
    ]);
    for (const mix of byIngress) {
      expect(mix.prices).toHaveLength(4 * optionIds.length);
      expect(mix.cheapest.monthly).toBe(Math.min(...mix.prices.map((each) => each.monthly)));
      const again = estimate(at(100_000, 60, mix.javaShare), units, prices, {
        ...defaultDeployment,
        serverKey: mix.cheapest.serverKey,
      });
      expect(optionOf(again, mix.cheapest.option).monthly).toBeCloseTo(mix.cheapest.monthly, 6);
      // The shortest chain is the cheapest certificate for every mix.
      expect(mix.cheapest.serverKey).toBe("ecdsaP256PrivateLeaf");
    }
    // A kept-alive Java fleet's NLB bills 100,000 active flows per NLCU, where the mutual-TLS ALB's LCU takes 1,500.
    const java = byIngress[0]?.prices ?? [];
    const of = (option: OptionId) =>
      java.find((each) => each.option === option && each.serverKey === "ecdsaP256PrivateLeaf")
        ?.monthly as number;
    expect(of("nlbFargate")).toBeLessThan(of("albFargate"));
  });
});

describe("the quota checks", () => {
  const crossedAt = (agents: number, tenantAgents?: number) => {
    const estimated = estimate(at(agents), units, prices, defaultDeployment);
    return checkQuotas(estimated, units, defaultDeployment, tenantAgents)
      .filter((quota) => quota.crossed)
      .map((quota) => quota.name);
  };

  it("name exactly the quotas each default size crosses", () => {
    expect(crossedAt(10_000)).toEqual([]);
    expect(crossedAt(100_000)).toEqual([]);
    expect(crossedAt(1_000_000)).toEqual([
      "API Gateway requests per second (account and region)",
      "Beacon's agent API stage throttle (prod, infra/lib/config.ts)",
      "ALB LCUs before pre-provisioning (no hard quota)",
      "Beacon's ECPU cap on the serverless cache it deploys today (prod, infra/lib/config.ts)",
    ]);
    expect(crossedAt(10_000_000)).toEqual([
      "API Gateway requests per second (account and region)",
      "Beacon's agent API stage throttle (prod, infra/lib/config.ts)",
      "Lambda concurrent executions (account and region)",
      "ALB LCUs before pre-provisioning (no hard quota)",
      "One cache shard's heartbeat scripts for the largest tenant (its keys share a hash tag)",
      "Beacon's ECPU cap on the serverless cache it deploys today (prod, infra/lib/config.ts)",
      "Beacon's storage cap on the serverless cache it deploys today (prod, infra/lib/config.ts)",
    ]);
  });

  it("cross a limit only above it: 10,000 requests/s is 600,000 agents at 60 s", () => {
    const apiGateway = "API Gateway requests per second (account and region)";
    expect(crossedAt(600_000)).not.toContain(apiGateway);
    expect(crossedAt(600_060)).toContain(apiGateway);
  });

  it("hold a tenant's own limits to its agents, not the fleet's", () => {
    const tenantShard =
      "One cache shard's heartbeat scripts for the largest tenant (its keys share a hash tag)";
    expect(crossedAt(10_000_000, 50_000)).not.toContain(tenantShard);
    expect(crossedAt(10_000_000)).toContain(tenantShard);
  });

  it("load the tenant index's partition with checkpoints only when an index holds the last-seen item", () => {
    const tenantIndex = "DynamoDB partition of the largest tenant's agents in the tenant index (gsi2)";
    const crossed = (checkpointUnits: Units, tenantAgents: number) =>
      checkQuotas(
        estimate(at(10_000_000), checkpointUnits, prices, defaultDeployment),
        checkpointUnits,
        defaultDeployment,
        tenantAgents,
      )
        .filter((quota) => quota.crossed)
        .map((quota) => quota.name);
    expect(crossed(units, 10_000_000)).not.toContain(tenantIndex);
    // Were the 1,922-byte profile checkpointed: 1,000 write units/s of 2-unit items at 6 an hour is 300,000 agents.
    const profiles = withValues(units, { lastSeenItemBytes: 1922, indexesHoldingLastSeenItem: 2 });
    expect(crossed(profiles, 300_000)).not.toContain(tenantIndex);
    expect(crossed(profiles, 300_100)).toContain(tenantIndex);
  });
});

describe("the budget report", () => {
  it("says 100,000 agents at 60 s do not fit $1,200 today, with what each unit costs and what would fit", () => {
    const target = targetReport(at(100_000), 1200, units, prices, defaultDeployment);
    expect(target.option).toBe("nlbFargate");
    expect(target.fits).toBe(false);
    expect(target.changes[0]?.unit).toBe("cppConnectionsPerHeartbeat");
    const together = target.together as number;
    expect(together).toBeGreaterThan(0);
    expect(together).toBeLessThan(1);
    const scaled = (share: number) =>
      withValues(units, Object.fromEntries(target.changes.map(({ unit, from }) => [unit, from * share])));
    const monthlyAt = (share: number) =>
      optionOf(estimate(at(100_000), scaled(share), prices, defaultDeployment), target.option).monthly;
    // Whole tasks and shards make the cost a staircase: the largest share that fits may cost a little less.
    expect(monthlyAt(together)).toBeLessThanOrEqual(1200);
    expect(monthlyAt(together * 1.001)).toBeGreaterThan(1200);
    expect(target.httpApi.requestFees).toBeCloseTo(3972 + 876, 6);
  });

  it("finds the value at which one unit alone makes the option fit", () => {
    const cheaper = withValues(units, {
      cppConnectionsPerHeartbeat: 0,
      metricLineBytesPerHeartbeat: 0,
      // Checkpoints as costly as 3 write units each, so that they alone can make it fit.
      lastSeenItemBytes: 1000,
      indexesHoldingLastSeenItem: 2,
    });
    const target = targetReport(at(100_000), 1200, cheaper, prices, defaultDeployment);
    const checkpoints = target.changes.find((change) => change.unit === "checkpointsPerAgentHour");
    const fitting = withValues(cheaper, { checkpointsPerAgentHour: checkpoints?.to as number });
    expect(
      optionOf(estimate(at(100_000), fitting, prices, defaultDeployment), target.option).monthly,
    ).toBeCloseTo(1200, 2);
  });

  it("prints the summary, every size's lines, its crossed and nearly crossed quotas and the target", () => {
    const sized: Sized[] = [100_000, 1_000_000, 10_000_000].map((agents) => {
      const estimated = estimate(at(agents), units, prices, defaultDeployment);
      return { estimate: estimated, quotas: checkQuotas(estimated, units, defaultDeployment) };
    });
    const text = report(
      sized,
      targetReport(at(100_000), 1200, units, prices, defaultDeployment),
      units,
      prices,
    );
    expect(text).toMatch(/^agents\s+100,000\s+1,000,000\s+10,000,000$/m);
    expect(text).toMatch(/^ALB \+ ECS Fargate arm64\s+\$3,362\s+\$28,127\s+\$245,059$/m);
    // 166,667 records/s of the 200,000 an on-demand stream takes; the table's checkpoints (16,667 of 40,000
    // write units/s) are not near their limit.
    expect(text).toContain(
      " within 20 % of their limit:\n  Kinesis on-demand records per second per stream: needs 166,667 records/s, limit 200,000",
    );
    expect(text).not.toContain("DynamoDB on-demand table write throughput (per table, and per index): needs");
    expect(text).toContain("quotas: none crossed (13 checked)");
    expect(text).toContain("API Gateway requests per second (account and region): needs 16,667 requests/s");
    expect(text).toContain("Cheapest option: NLB (TCP) + ECS Fargate arm64, $3,121: over by $1,921.");
    expect(text).toContain("Monthly cost in USD, a heartbeat every 60 s, all MiNiFi C++\n");
    expect(text).toMatch(/^ {2}all MiNiFi C\+\+ +RSA 2048 +NLB\+Fargate +\$3,121 {2}over by \$1,921$/m);
    expect(text).toMatch(/^ {2}all MiNiFi Java +ECDSA P-256 +NLB\+Fargate +\$[\d,]+ {2}over by \$[\d,]+$/m);
  });
});

describe("the units file", () => {
  it("configures the ingress's idle timeout as the agent load balancer does", () => {
    expect(readUnits().ingressIdleTimeoutSeconds.value).toBe(
      AgentServiceSettings.loadBalancerIdleTimeoutSeconds,
    );
  });

  it("refuses a unit without its provenance", () => {
    const { handlerCpuMsConcurrent, ...rest } = readUnits();
    expect(() => checkedUnits(rest)).toThrow(/handlerCpuMsConcurrent is missing/);
    expect(() =>
      checkedUnits({ ...rest, handlerCpuMsConcurrent: { ...handlerCpuMsConcurrent, how: "" } }),
    ).toThrow(/must say how and when/);
  });

  it("takes measurements over the named units and leaves the others as they were", () => {
    const file = pathToFileURL(path.join(mkdtempSync(path.join(tmpdir(), "capacity-")), "units.json"));
    writeFileSync(file, readFileSync(unitsFile));
    recordMeasurements(
      {
        handlerCpuMsConcurrent: { value: 0.5, how: "npm run bench", machine: "test box", date: "2027-01-01" },
      },
      file,
    );
    const written = readUnits(file);
    const committed = readUnits();
    expect(written.handlerCpuMsConcurrent).toEqual({
      ...committed.handlerCpuMsConcurrent,
      value: 0.5,
      how: "npm run bench",
      machine: "test box",
      date: "2027-01-01",
      kind: "measured",
    });
    expect(written.streamPutMs).toEqual(committed.streamPutMs);
  });
});

describe("the byte measurements", () => {
  it("count a DynamoDB item's names and values", () => {
    expect(dynamoDbItemBytes({ pk: "T#a", n: 12345, m: { k: "vv" } })).toBe(
      2 + 3 + 1 + 4 + 1 + (3 + 1 + 1 + 2),
    );
  });
});

// Each case starts the CLI through tsx, up to four times: seconds apiece on a busy machine, past vitest's 5 s.
describe("npm run capacity", { timeout: 120_000 }, () => {
  const cli = fileURLToPath(new URL("cli.ts", import.meta.url));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", cli, ...args], { encoding: "utf8", timeout: 60_000 });

  it("prints one size as JSON, with the units a --set replaced", () => {
    const result = run(
      "--agents",
      "100000",
      "--interval",
      "60",
      "--set",
      "cppConnectionsPerHeartbeat=0",
      "--json",
    );
    expect(result.status).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed.sizes).toHaveLength(1);
    expect(printed.units.cppConnectionsPerHeartbeat).toMatchObject({ value: 0, kind: "assumption" });
    expect(printed.sizes[0].estimate.heartbeatsPerSecond).toBeCloseTo(100_000 / 60, 6);
  });

  it("refuses a unit it does not know, an interval of 0, a share outside 0–1 and an unknown key, in one line", () => {
    const unknown = run("--set", "speed=1");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toMatch(
      /^capacity: --set: no unit "speed"; the units are handlerCpuMsConcurrent, /,
    );
    const zero = run("--interval", "0");
    expect(zero.status).toBe(2);
    expect(zero.stderr.trim()).toBe('capacity: --interval must be a positive number; got "0"');
    const share = run("--java-share", "1.5");
    expect(share.status).toBe(2);
    expect(share.stderr.trim()).toBe('capacity: --java-share must be a number from 0 to 1; got "1.5"');
    const key = run("--server-key", "ed25519");
    expect(key.status).toBe(2);
    expect(key.stderr.trim()).toBe(
      'capacity: --server-key must be one of rsa2048, ecdsaP256, ecdsaP256PrivateCa, ecdsaP256PrivateLeaf; got "ed25519"',
    );
  });
});
