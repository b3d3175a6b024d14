/**
 * The unit prices usage statements bill with, derived from the capacity model: each line of the model's monthly
 * bill is charged to the unit that drives it (an agent active in an hour, a heartbeat, a byte of reply), and a
 * unit's price is what its lines cost over how much of it the model's month uses. So the model's month priced
 * per unit costs exactly the model's total, and statements whose usage adds up to the model's month add up to
 * that total too.
 *
 * The console API cannot run the model (it reads units.json and prices.json from this folder, which no function
 * ships), so the prices are a generated file, functions/core/history/unit-prices.json, checked against the model
 * by unit-prices.test.ts. `npm run capacity:unit-prices` writes it again after units.json or prices.json change.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PricedUnits, type UnitPrices } from "../../functions/core/history/priced-units.js";
import { parseCommandLine } from "../common/command-line.mjs";
import {
  type Deployment,
  defaultDeployment,
  type Prices,
  readPrices,
  readUnits,
  type Units,
} from "./inputs.js";
import { type CostLine, type Estimate, estimate, type Load, type OptionId, type optionIds } from "./model.js";

/** The fleet whose month the prices are taken from: the capacity target's, 100,000 agents at 60 s. */
export const REFERENCE_LOAD: Load = { agents: 100_000, intervalSeconds: 60, javaShare: 0.5 };

export const unitPricesFile = new URL("../../functions/core/history/unit-prices.json", import.meta.url);

const GIB = 1024 ** 3;

/** What the model's month uses of each priced unit, as the usage meter would count it. */
export function modelUsageOf(estimated: Estimate, units: Units, deployment: Deployment): UnitPrices {
  return {
    agentHours: estimated.load.agents * deployment.hoursPerMonth,
    heartbeats: estimated.heartbeatsPerMonth,
    bytesOut: estimated.heartbeatsPerMonth * units.responseBodyBytes.value,
    // Nor does it download anything: a downloaded byte is priced as a byte of reply (unitPricesOf).
    downloadBytes: 0,
    // The model's month stores no tenant's objects: storage is priced at its own prices (storagePricesOf).
    tableGbMonths: 0,
    bucketGbMonths: 0,
  };
}

/** What a tenant's stored bytes cost a month: DynamoDB's and S3 Standard's prices per GB-month, as quoted. */
export const storagePricesOf = (prices: Prices) => ({
  tableGbMonths: prices.prices.dynamoDbGbMonth.value,
  bucketGbMonths: prices.prices.s3StandardGbMonth.value,
});

/**
 * The line's monthly cost per unit that drives it. Per agent: what the cache holds, the registry stores and the
 * periodic checkpoints write. Replies' bodies' share of the data transfer out per byte of reply (what the meter
 * counts), the rest of it (headers, TLS setup) per heartbeat, as everything else.
 */
function chargesOf(line: CostLine, estimated: Estimate, units: Units): Partial<UnitPrices> {
  if (/^(ElastiCache|DynamoDB storage|DynamoDB on-demand checkpoint)/.test(line.item))
    return { agentHours: line.monthly };
  if (line.item.startsWith("Data transfer out")) {
    const replyBodiesGib = (estimated.heartbeatsPerMonth * units.responseBodyBytes.value) / GIB;
    const bodies = line.quantity > 0 ? line.monthly * (replyBodiesGib / line.quantity) : 0;
    return { bytesOut: bodies, heartbeats: line.monthly - bodies };
  }
  return { heartbeats: line.monthly };
}

export interface OptionUnitPrices {
  /** The model's monthly total for the reference fleet on this option. */
  monthly: number;
  prices: UnitPrices;
}

/** Each option's unit prices: its lines' and the shared lines' costs charged to their units, over their use. */
export function unitPricesOf(
  estimated: Estimate,
  units: Units,
  deployment: Deployment,
  prices: Prices,
): Record<OptionId, OptionUnitPrices> {
  const usage = modelUsageOf(estimated, units, deployment);
  const storage = storagePricesOf(prices);
  const entries = estimated.options.map((option) => {
    const costs: UnitPrices = {
      agentHours: 0,
      heartbeats: 0,
      bytesOut: 0,
      downloadBytes: 0,
      tableGbMonths: 0,
      bucketGbMonths: 0,
    };
    for (const line of [...estimated.shared, ...option.lines])
      for (const [unit, cost] of Object.entries(chargesOf(line, estimated, units)))
        costs[unit as keyof UnitPrices] += cost;
    const unitPrices = Object.fromEntries(
      PricedUnits.map((unit) => [unit, usage[unit] > 0 ? costs[unit] / usage[unit] : 0]),
    ) as UnitPrices;
    // A downloaded byte leaves as a reply's does, at the data transfer out's price per byte.
    const downloadBytes = unitPrices.bytesOut;
    return [
      option.id,
      { monthly: option.monthly, prices: { ...unitPrices, downloadBytes, ...storage } },
    ] as const;
  });
  return Object.fromEntries(entries) as Record<OptionId, OptionUnitPrices>;
}

/** The generated file's content for the model as units.json and prices.json say now. */
export function unitPricesDocument(
  units = readUnits(),
  prices = readPrices(),
  deployment = defaultDeployment,
) {
  const estimated = estimate(REFERENCE_LOAD, units, prices, deployment);
  return {
    about:
      "Generated by `npm run capacity:unit-prices` (scripts/capacity/unit-prices.ts) from the capacity model, " +
      "units.json and prices.json: USD per unit, each option's month for the reference fleet charged to the " +
      "units that drive it. Do not edit; override per deployment instead (docs/usage.md).",
    reference: { ...REFERENCE_LOAD, hoursPerMonth: deployment.hoursPerMonth, pricesTakenOn: prices.takenOn },
    options: unitPricesOf(estimated, units, deployment, prices),
  } satisfies { options: Record<(typeof optionIds)[number], OptionUnitPrices> } & Record<string, unknown>;
}

const USAGE = `Usage: npm run capacity:unit-prices

Derives the unit prices usage statements bill with from the capacity model (units.json, prices.json) and
writes them to functions/core/history/unit-prices.json (without --write, to stdout).
  --write  write the file`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseCommandLine(USAGE, { options: { write: { type: "boolean", default: false } } });
  const document = `${JSON.stringify(unitPricesDocument(), null, 2)}\n`;
  if (values.write) writeFileSync(unitPricesFile, document);
  else process.stdout.write(document);
}
