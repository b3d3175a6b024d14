import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PricedUnits } from "../../functions/core/history/priced-units.js";
import { addAgent, emptySketch } from "../../functions/core/history/sketch.js";
import { statementOf, statementPricing } from "../../functions/core/history/statement.js";
import { usageSummaryOf } from "../../functions/core/history/usage.js";
import { defaultDeployment, readPrices, readUnits } from "./inputs.js";
import { estimate, optionIds, optionOf } from "./model.js";
import {
  modelUsageOf,
  REFERENCE_LOAD,
  unitPricesDocument,
  unitPricesFile,
  unitPricesOf,
} from "./unit-prices.js";

const units = readUnits();
const prices = readPrices();
const estimated = estimate(REFERENCE_LOAD, units, prices, defaultDeployment);
const usage = modelUsageOf(estimated, units, defaultDeployment);

describe("unit prices from the capacity model", () => {
  it("price the model's month at exactly the model's total, for every option", () => {
    const perOption = unitPricesOf(estimated, units, defaultDeployment, prices);
    for (const option of estimated.options) {
      const { prices: unitPrices } = perOption[option.id];
      const billed = PricedUnits.reduce((sum, unit) => sum + unitPrices[unit] * usage[unit], 0);
      expect(billed).toBeCloseTo(option.monthly, 6);
    }
  });

  it("are what the checked-in file holds: `npm run capacity:unit-prices` writes it again", () => {
    const checkedIn = JSON.parse(readFileSync(unitPricesFile, "utf8"));
    expect(checkedIn).toEqual(JSON.parse(JSON.stringify(unitPricesDocument())));
  });

  it("charge the data transfer of replies' bodies per byte at what the model pays per byte", () => {
    const { bytesOut } = unitPricesOf(estimated, units, defaultDeployment, prices).albFargate.prices;
    // The option's own line (its bytes depend on who terminates TLS); its average price per GiB at the reference
    // fleet's volume.
    const transfer = optionOf(estimated, "albFargate").lines.find((line) =>
      line.item.startsWith("Data transfer out"),
    );
    expect(bytesOut * 1024 ** 3).toBeCloseTo((transfer?.monthly ?? 0) / (transfer?.quantity ?? 1), 9);
  });

  it("price stored GB-months at DynamoDB's and S3 Standard's quoted prices, the same on every option", () => {
    for (const { prices: unitPrices } of Object.values(
      unitPricesOf(estimated, units, defaultDeployment, prices),
    )) {
      expect(unitPrices.tableGbMonths).toBe(prices.prices.dynamoDbGbMonth.value);
      expect(unitPrices.bucketGbMonths).toBe(prices.prices.s3StandardGbMonth.value);
    }
  });
});

describe("statements over the model's month", () => {
  /** One tenant's month of hours, every hour `agents` agents and their share of the heartbeats. */
  function tenantMonth(tenant: string, agents: number, share: number) {
    const hours = defaultDeployment.hoursPerMonth;
    const sketch = emptySketch();
    for (let agent = 0; agent < agents; agent++) addAgent(sketch, `${tenant}-${agent}`);
    return Array.from({ length: hours }, (_, hour) => ({
      tenant,
      hour,
      agentsSeen: sketch,
      positions: {},
      counts: {
        heartbeats: (usage.heartbeats * share) / hours,
        acknowledgements: 0,
        operations: 0,
        bytesIn: 0,
        bytesOut: (usage.bytesOut * share) / hours,
        downloads: 0,
        downloadBytes: 0,
        uploads: 0,
        uploadBytes: 0,
      },
    }));
  }

  it("add up, over tenants who used the model's units between them, to the model's total", {
    timeout: 30_000,
  }, () => {
    // 100,000 agents as three tenants: the sketch counts a tenant's agents within a few per cent, so the
    // agent-hours are taken as the statement counts them and the model's month is priced for the same.
    const tenants = [
      { tenant: "acme", agents: 200, share: 0.002 },
      { tenant: "globex", agents: 300, share: 0.003 },
      { tenant: "initech", agents: 99_500, share: 0.995 },
    ];
    const month = { month: "2026-11", fromHour: 0, toHour: defaultDeployment.hoursPerMonth };
    const summaries = tenants.map(({ tenant, agents, share }) =>
      usageSummaryOf(tenantMonth(tenant, agents, share)),
    );
    for (const option of optionIds) {
      const pricing = statementPricing(option);
      const statements = summaries.map((summary) => statementOf(month, summary, pricing, []));
      const agentHours = statements.reduce((sum, statement) => sum + statement.usage.agentHours, 0);
      const total = statements.reduce((sum, statement) => sum + statement.total, 0);
      const model = PricedUnits.reduce(
        (sum, unit) => sum + pricing.prices[unit] * (unit === "agentHours" ? agentHours : usage[unit]),
        0,
      );
      expect(total).toBeCloseTo(model, 6);
      expect(Math.abs(agentHours / usage.agentHours - 1)).toBeLessThan(0.03);
      // With the model's agent-hours exactly (the sketch's estimate set right), the model's own total.
      const exact = total + pricing.prices.agentHours * (usage.agentHours - agentHours);
      expect(exact).toBeCloseTo(estimated.options.find(({ id }) => id === option)?.monthly ?? 0, 6);
    }
  });
});
