import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryUsage } from "../../adapters/memory/usage.js";
import type { DownloadEvent, HeartbeatEvent } from "../events/model.js";
import type { Principal } from "../identity/principal.js";
import { makeUsageApi } from "./console-usage.js";
import { makeUsageConsumer } from "./consumer.js";
import { statementMonthOf, statementPricing } from "./statement.js";
import modelUnitPrices from "./unit-prices.json" with { type: "json" };
import { HOUR_MS } from "./usage.js";

const NOVEMBER = Date.UTC(2026, 10, 1);
const admin: Principal = { tenant: "acme", role: "admin", subject: "a" };
let ids = 0;

const heartbeat = (agentId: string, at: number): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `hb-${++ids}`,
  tenant: "acme",
  agentId,
  at,
  bytesIn: 1_000,
  bytesOut: 26,
  firstSight: false,
  operationsSent: [],
});

const download = (at: number): DownloadEvent => ({
  type: "download",
  version: 1,
  eventId: `dl-${++ids}`,
  tenant: "acme",
  agentId: "pump-2",
  at,
  what: "asset",
  bytesOut: 5_000,
});

describe("a usage statement's month", () => {
  const now = Date.UTC(2026, 10, 30, 11);

  it("is a calendar month in UTC, the current one unless named", () => {
    expect(statementMonthOf("2026-02", now)).toEqual({
      month: "2026-02",
      fromHour: Date.UTC(2026, 1, 1) / HOUR_MS,
      toHour: Date.UTC(2026, 2, 1) / HOUR_MS,
    });
    expect(statementMonthOf(undefined, now)).toMatchObject({
      month: "2026-11",
      fromHour: NOVEMBER / HOUR_MS,
    });
    expect(statementMonthOf("2026-12", now).toHour).toBe(Date.UTC(2027, 0, 1) / HOUR_MS);
  });

  it("refuses what is not YYYY-MM", () => {
    for (const month of ["2026-13", "2026-1", "26-11", "2026-11-01", "november"])
      expect(() => statementMonthOf(month, now)).toThrow(
        expect.objectContaining({ code: "invalid_request" }),
      );
  });

  it("refuses a month before 1970, which dates would read as the 1900s", () => {
    for (const month of ["0000-01", "0099-12", "1969-12"])
      expect(() => statementMonthOf(month, now)).toThrow(
        expect.objectContaining({ code: "invalid_request", message: "month must be 1970-01 or later" }),
      );
    expect(statementMonthOf("1970-01", now)).toMatchObject({ month: "1970-01", fromHour: 0 });
  });
});

describe("usage pricing", () => {
  it("takes the capacity model's unit prices for the deployment's option", () => {
    expect(statementPricing().prices).toEqual(modelUnitPrices.options.httpApiLambda.prices);
    expect(statementPricing("albFargate")).toMatchObject({
      option: "albFargate",
      prices: modelUnitPrices.options.albFargate.prices,
      overridden: [],
    });
  });

  it("lets a deployment override a unit's price, and refuses what it cannot bill with", () => {
    const pricing = statementPricing("albLambda", { heartbeats: 0.00002 });
    expect(pricing.prices).toEqual({ ...modelUnitPrices.options.albLambda.prices, heartbeats: 0.00002 });
    expect(pricing.overridden).toEqual(["heartbeats"]);
    expect(() => statementPricing("onPremises")).toThrow(/unknown option onPremises/);
    expect(() => statementPricing(undefined, { acknowledgements: 1 })).toThrow(/unknown unit/);
    expect(() => statementPricing(undefined, { heartbeats: -1 })).toThrow(/0 or more/);
    expect(() => statementPricing(undefined, { heartbeats: "1" })).toThrow(/0 or more/);
    expect(() => statementPricing(undefined, [1])).toThrow(/JSON object/);
  });
});

describe("the monthly statement", () => {
  const pricing = statementPricing("albFargate", { heartbeats: 0.00001 });

  async function subject() {
    const usage = new MemoryUsage();
    const consumer = makeUsageConsumer(usage);
    // Two agents in the first hour of November, one of them again in its last hour, and one in December.
    const events = [
      heartbeat("pump-1", NOVEMBER + 1_000),
      heartbeat("pump-2", NOVEMBER + 2_000),
      heartbeat("pump-1", NOVEMBER + 3_000),
      download(NOVEMBER + 4_000),
      heartbeat("pump-1", Date.UTC(2026, 11, 1) - 1_000),
      heartbeat("pump-1", Date.UTC(2026, 11, 1) + 1_000),
    ];
    await consumer.consume(
      events.map((event, index) => ({ shard: "s-0", position: String(index + 1), event })),
    );
    return makeUsageApi({ usage, clock: new ManualClock(Date.UTC(2027, 0, 5)), usagePricing: pricing });
  }

  it("prices the month's agent-hours, heartbeats, bytes out, downloads and storage, each its quantity × its price", async () => {
    const { body } = await (await subject()).statement(admin, { month: "2026-11" });
    const { agentHours, bytesOut, downloadBytes } = pricing.prices;
    // A downloaded byte costs what a byte of reply does: the data transfer out's price.
    expect(downloadBytes).toBe(bytesOut);
    expect(body).toEqual({
      month: "2026-11",
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-12-01T00:00:00.000Z",
      currency: "USD",
      pricedAs: { option: "albFargate", reference: modelUnitPrices.reference, overridden: ["heartbeats"] },
      lines: [
        expect.objectContaining({
          unit: "agentHours",
          quantity: 3,
          unitPrice: agentHours,
          amount: 3 * agentHours,
        }),
        expect.objectContaining({ unit: "heartbeats", quantity: 4, unitPrice: 0.00001, amount: 4 * 0.00001 }),
        expect.objectContaining({
          unit: "bytesOut",
          quantity: 4 * 26,
          unitPrice: bytesOut,
          amount: 104 * bytesOut,
        }),
        expect.objectContaining({
          unit: "downloadBytes",
          quantity: 5_000,
          unitPrice: downloadBytes,
          amount: 5_000 * downloadBytes,
        }),
        expect.objectContaining({ unit: "tableGbMonths", quantity: 0, amount: 0 }),
        expect.objectContaining({ unit: "bucketGbMonths", quantity: 0, amount: 0 }),
      ],
      total: 3 * agentHours + 4 * 0.00001 + 104 * bytesOut + 5_000 * downloadBytes,
      usage: {
        activeAgents: 2,
        agentHours: 3,
        heartbeats: 4,
        acknowledgements: 0,
        operations: 0,
        bytesIn: 4_000,
        bytesOut: 104,
        downloads: 1,
        downloadBytes: 5_000,
        uploads: 0,
        uploadBytes: 0,
        tableGbMonths: 0,
        bucketGbMonths: 0,
      },
    });
  });

  it("answers the caller's tenant's month, to admins only", async () => {
    const api = await subject();
    const other = await api.statement({ ...admin, tenant: "globex" }, { month: "2026-11" });
    expect(other.body).toMatchObject({ total: 0, usage: { heartbeats: 0 } });
    await expect(api.statement({ ...admin, role: "operator" }, {})).rejects.toMatchObject({
      code: "forbidden",
    });
  });
});
