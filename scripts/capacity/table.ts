/** The capacity report as fixed-width text: pure, so that tests read exactly what the command prints. */
import { type Prices, serverKeyNames, serverKeyTypes, type Units } from "./inputs.js";
import { type Estimate, type OptionId, optionIds, optionNames, optionOf } from "./model.js";
import type { QuotaCheck } from "./quotas.js";
import type { IngressPrice, TargetReport } from "./target.js";

export interface Sized {
  estimate: Estimate;
  quotas: QuotaCheck[];
}

const number = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const dollars = (value: number) => `$${number(value)}`;
const right = (text: string, width: number) => text.padStart(width);
const COLUMN = 13;
/** A quota this close to its limit is named too: a reconnect storm or a month's growth crosses it. */
const NEAR = 0.8;
const LABEL = 34;

export function provenance(units: Units, prices: Prices): string[] {
  const kinds = new Map<string, number>();
  for (const unit of Object.values(units)) kinds.set(unit.kind, (kinds.get(unit.kind) ?? 0) + 1);
  const assumedPrices = Object.values(prices.prices).filter((price) => price.assumption).length;
  return [
    `Prices: ${prices.region} list prices taken ${prices.takenOn} (scripts/capacity/prices.json); ` +
      `${assumedPrices} of ${Object.keys(prices.prices).length} and the cache node prices are assumptions.`,
    `Units: scripts/capacity/units.json, ${[...kinds].map(([kind, count]) => `${count} ${kind === "assumption" ? "assumed" : kind}`).join(", ")}.`,
  ];
}

export function summaryTable(sizes: Sized[]): string[] {
  const row = (label: string, cells: string[]) =>
    `${label.padEnd(LABEL)}${cells.map((cell) => right(cell, COLUMN)).join("")}`;
  const estimates = sizes.map((size) => size.estimate);
  const interval = estimates[0]?.load.intervalSeconds ?? 0;
  return [
    `Monthly cost in USD, a heartbeat every ${number(interval)} s, ${mixName(estimates[0]?.load.javaShare ?? 0)}`,
    row(
      "agents",
      estimates.map((each) => number(each.load.agents)),
    ),
    row(
      "heartbeats/s",
      estimates.map((each) => number(each.heartbeatsPerSecond)),
    ),
    ...optionIds.map((id) =>
      row(
        optionNames[id],
        estimates.map((each) => dollars(optionOf(each, id).monthly)),
      ),
    ),
    row(
      "  of which shared parts",
      estimates.map((each) => dollars(each.sharedMonthly)),
    ),
    row(
      "cheapest",
      estimates.map((each) => optionShortNames[each.cheapest]),
    ),
    row(
      "quotas crossed",
      sizes.map((size) => String(size.quotas.filter((quota) => quota.crossed).length)),
    ),
  ];
}

const percent = (share: number) => `${number(100 * share)} %`;
/** A fleet's mix of agents in words. */
const mixName = (javaShare: number): string =>
  javaShare === 0
    ? "all MiNiFi C++"
    : javaShare === 1
      ? "all MiNiFi Java"
      : `${percent(javaShare)} MiNiFi Java, ${percent(1 - javaShare)} C++`;

const optionShortNames: Record<OptionId, string> = {
  httpApiLambda: "HTTP API",
  albLambda: "ALB+Lambda",
  albFargate: "ALB+Fargate",
  nlbFargate: "NLB+Fargate",
};

export function detail({ estimate: estimated, quotas }: Sized): string[] {
  const lineRow = (item: string, quantity: string, monthly: string, note = "") =>
    `  ${item.padEnd(62)}${right(quantity, 26)}${right(monthly, 12)}${note ? `  ${note}` : ""}`;
  const lines = (title: string, items: Estimate["shared"], total: number) => [
    ` ${title}`,
    ...items.map((each) =>
      lineRow(
        each.item,
        `${number(each.quantity, Number.isInteger(each.quantity) || each.quantity >= 10 ? 0 : 2)} ${each.quantityUnit}`,
        dollars(each.monthly),
        each.note,
      ),
    ),
    lineRow("total", "", dollars(total)),
  ];
  const crossed = quotas.filter((quota) => quota.crossed);
  const near = quotas.filter((quota) => !quota.crossed && quota.need >= NEAR * quota.limit);
  const needs = (quota: QuotaCheck) =>
    `  ${quota.name}: needs ${number(quota.need)} ${quota.unit}, limit ${number(quota.limit)} ` +
    `[${quota.options.map((id) => optionShortNames[id]).join(", ")}] → ${quota.action}`;
  return [
    `${number(estimated.load.agents)} agents (${mixName(estimated.load.javaShare)}), a heartbeat every ` +
      `${number(estimated.load.intervalSeconds)} s: ` +
      `${number(estimated.heartbeatsPerSecond)} heartbeats/s, ${number(estimated.heartbeatsPerMonth / 1e6)} million a month`,
    ...lines("shared parts", estimated.shared, estimated.sharedMonthly),
    ...estimated.options.flatMap((option) =>
      lines(`${option.name} (with the shared parts)`, option.lines, option.monthly),
    ),
    crossed.length === 0
      ? ` quotas: none crossed (${quotas.length} checked)`
      : ` quotas crossed (${crossed.length} of ${quotas.length} checked):`,
    ...crossed.map(needs),
    ...(near.length === 0
      ? []
      : [` within ${number(100 * (1 - NEAR))} % of their limit:`, ...near.map(needs)]),
  ];
}

export function targetLines(report: TargetReport): string[] {
  const { load, budget } = report;
  const head =
    `Target: ${number(load.agents)} agents every ${number(load.intervalSeconds)} s for at most ${dollars(budget)} a month. ` +
    `Cheapest option: ${optionNames[report.option]}, ${dollars(report.monthly)}: ` +
    (report.fits ? "fits." : `over by ${dollars(report.monthly - budget)}.`);
  const changes = report.fits
    ? []
    : [
        " What each unit costs it a month, and the value at which it alone would fit (others unchanged):",
        ...report.changes.map(
          (change) =>
            `  ${change.unit.padEnd(30)}${right(dollars(change.costs), 9)}   ${number(change.from, 2)} → ` +
            (change.to === undefined
              ? "does not fit even at 0"
              : `${number(change.to, 2)} (${number((100 * (change.to - change.from)) / change.from)} %)`),
        ),
        report.together === undefined
          ? " Not even all of them at 0 together fit: the fixed parts alone cost more."
          : ` All of them together fit at ${number(100 * report.together)} % of today's values.`,
      ];
  const { httpApi } = report;
  const mixes = [
    " The cheapest option by mix of agents and server certificate key:",
    ...report.mixes.map(
      (mix) =>
        `  ${mixName(mix.javaShare).padEnd(32)}${serverKeyNames[mix.serverKey].padEnd(24)}` +
        `${optionShortNames[mix.option].padEnd(13)}${right(dollars(mix.monthly), 8)}  ` +
        (mix.fits ? "fits" : `over by ${dollars(mix.monthly - budget)}`),
    ),
  ];
  const byIngress = [
    ` By fleet mix, ingress and server certificate, ${number(load.agents)} agents every ${number(load.intervalSeconds)} s ` +
      "(ALB and API Gateway priced with Node's default session tickets, the agent service behind the NLB with Beacon's):",
    `  ${"".padEnd(24)}${optionIds.map((id) => right(optionShortNames[id], COLUMN)).join("")}`,
    ...report.byIngress.flatMap((mix) => [
      `  ${mixName(mix.javaShare)}`,
      ...serverKeyTypes.map(
        (serverKey) =>
          `    ${serverKeyNames[serverKey].padEnd(22)}${optionIds
            .map((id) =>
              right(
                dollars(
                  (
                    mix.prices.find(
                      (each) => each.serverKey === serverKey && each.option === id,
                    ) as IngressPrice
                  ).monthly,
                ),
                COLUMN,
              ),
            )
            .join("")}`,
      ),
      `    cheapest: ${optionShortNames[mix.cheapest.option]}, ${serverKeyNames[mix.cheapest.serverKey]}, ` +
        `${dollars(mix.cheapest.monthly)}` +
        (mix.target === undefined
          ? ""
          : `; target ${dollars(mix.target)}: ` +
            (mix.cheapest.monthly <= mix.target
              ? "met"
              : `over by ${dollars(mix.cheapest.monthly - mix.target)}`)) +
        `; ${dollars(budget)}: ` +
        (mix.cheapest.monthly <= budget ? "fits" : `over by ${dollars(mix.cheapest.monthly - budget)}`),
    ]),
  ];
  return [
    head,
    ...changes,
    ...mixes,
    ...byIngress,
    ` HTTP API + Lambda: ${dollars(httpApi.monthly)}, of which API Gateway's and Lambda's request fees ` +
      `${dollars(httpApi.requestFees)}; ` +
      (httpApi.intervalToFit === undefined
        ? "it does not fit at any interval up to a day."
        : `it fits from a heartbeat every ${number(httpApi.intervalToFit)} s.`),
  ];
}

export function report(sizes: Sized[], target: TargetReport, units: Units, prices: Prices): string {
  return [
    "Beacon capacity and cost, past one machine",
    ...provenance(units, prices),
    "",
    ...summaryTable(sizes),
    "",
    ...sizes.flatMap((size) => [...detail(size), ""]),
    ...targetLines(target),
  ].join("\n");
}
