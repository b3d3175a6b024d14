import { BeaconError } from "../errors.js";
import { toIso } from "../paging.js";
import { type PricedUnit, PricedUnits, type UnitPrices } from "./priced-units.js";
import { type StoredSnapshot, storedGbMonthsOf } from "./stored.js";
import modelUnitPrices from "./unit-prices.json" with { type: "json" };
import { HOUR_MS, type usageSummaryOf } from "./usage.js";

export const pricedUnitDescriptions: Record<PricedUnit, string> = {
  agentHours: "Agent-hours: each hour, the agents active in it",
  heartbeats: "Heartbeats accepted",
  bytesOut: "Bytes of heartbeat and acknowledgement replies",
  downloadBytes: "Bytes downloaded: agents' flows and assets, operators' links",
  tableGbMonths: "GB-months stored in DynamoDB: manifests and flow versions",
  bucketGbMonths: "GB-months stored in S3: assets, debug bundles and the event archive",
};

/** The ways of running the agent API the capacity model prices, as unit-prices.json holds them. */
export type PricedOption = keyof typeof modelUnitPrices.options;
export const DEFAULT_PRICED_OPTION: PricedOption = "httpApiLambda";

/** The prices a deployment's statements use: the model's for its option, some perhaps overridden. */
export interface StatementPricing {
  option: PricedOption;
  /** The fleet the model's month was priced for: its unit prices are that month's cost per unit. */
  reference: typeof modelUnitPrices.reference;
  prices: UnitPrices;
  overridden: PricedUnit[];
}

const isPricedOption = (option: string): option is PricedOption =>
  Object.hasOwn(modelUnitPrices.options, option);

/**
 * The model's unit prices for `option` (the deployment's way of running the agent API), with `overrides` (USD
 * per unit) over them. A configuration error throws: a deployment must not bill with prices it cannot read.
 */
export function statementPricing(
  option: string = DEFAULT_PRICED_OPTION,
  overrides: unknown = {},
): StatementPricing {
  if (!isPricedOption(option))
    throw new Error(
      `usage pricing: unknown option ${option}; one of ${Object.keys(modelUnitPrices.options).join(", ")}`,
    );
  if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides))
    throw new Error('usage pricing: unit prices must be a JSON object, e.g. {"heartbeats": 0.00001}');
  const prices: UnitPrices = { ...modelUnitPrices.options[option].prices };
  const overridden: PricedUnit[] = [];
  for (const [unit, price] of Object.entries(overrides)) {
    if (!(PricedUnits as readonly string[]).includes(unit))
      throw new Error(`usage pricing: unknown unit ${unit}; one of ${PricedUnits.join(", ")}`);
    if (typeof price !== "number" || !Number.isFinite(price) || price < 0)
      throw new Error(`usage pricing: ${unit} needs a price in USD of 0 or more`);
    prices[unit as PricedUnit] = price;
    overridden.push(unit as PricedUnit);
  }
  return { option, reference: modelUnitPrices.reference, prices, overridden };
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

const currentMonthOf = (now: number): [number, number] => {
  const current = new Date(now);
  return [current.getUTCFullYear(), current.getUTCMonth()];
};

/** Usage is kept by hours since 1970, as times are; an earlier month has none to price. */
const FIRST_YEAR = 1970;

function namedMonthOf(month: string): [number, number] {
  const match = MONTH.exec(month);
  if (!match) throw new BeaconError("invalid_request", "month must be YYYY-MM, e.g. 2026-11");
  const year = Number(match[1]);
  if (year < FIRST_YEAR) throw new BeaconError("invalid_request", `month must be ${FIRST_YEAR}-01 or later`);
  return [year, Number(match[2]) - 1];
}

/** The hours of a calendar month (UTC), `YYYY-MM`; the current one without it. */
export function statementMonthOf(month: string | undefined, now: number) {
  const [year, index] = month === undefined ? currentMonthOf(now) : namedMonthOf(month);
  const from = Date.UTC(year, index, 1);
  const to = Date.UTC(year, index + 1, 1);
  return { month: new Date(from).toISOString().slice(0, 7), fromHour: from / HOUR_MS, toHour: to / HOUR_MS };
}

type UsageSummary = ReturnType<typeof usageSummaryOf>;

type StatementMonth = ReturnType<typeof statementMonthOf>;

/**
 * What a month of usage uses of each priced unit: agent-hours add up each hour's active agents, GB-months each
 * day's snapshot of what the tenant stores.
 */
export const pricedQuantitiesOf = (
  month: StatementMonth,
  { rows, totals }: UsageSummary,
  snapshots: readonly StoredSnapshot[],
): UnitPrices => ({
  agentHours: rows.reduce((sum, row) => sum + row.activeAgents, 0),
  heartbeats: totals.heartbeats,
  bytesOut: totals.bytesOut,
  downloadBytes: totals.downloadBytes,
  ...storedGbMonthsOf(snapshots, month),
});

/** A tenant's month priced: one line per priced unit, its quantity × its price, and their total in USD. */
export function statementOf(
  month: StatementMonth,
  summary: UsageSummary,
  pricing: StatementPricing,
  snapshots: readonly StoredSnapshot[],
) {
  const quantities = pricedQuantitiesOf(month, summary, snapshots);
  const lines = PricedUnits.map((unit) => ({
    unit,
    description: pricedUnitDescriptions[unit],
    quantity: quantities[unit],
    unitPrice: pricing.prices[unit],
    amount: quantities[unit] * pricing.prices[unit],
  }));
  return {
    month: month.month,
    from: toIso(month.fromHour * HOUR_MS),
    to: toIso(month.toHour * HOUR_MS),
    currency: "USD",
    pricedAs: { option: pricing.option, reference: pricing.reference, overridden: pricing.overridden },
    lines,
    total: lines.reduce((sum, line) => sum + line.amount, 0),
    usage: {
      ...summary.totals,
      agentHours: quantities.agentHours,
      tableGbMonths: quantities.tableGbMonths,
      bucketGbMonths: quantities.bucketGbMonths,
    },
  };
}
