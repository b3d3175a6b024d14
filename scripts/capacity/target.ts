/**
 * Whether a fleet fits a monthly budget, and if not, how far each unit would have to move, one at a time,
 * for the cheapest option to fit it; and what the HTTP API option's request fees alone cost.
 */
import {
  type Deployment,
  type Prices,
  type ServerKeyType,
  serverKeyTypes,
  type UnitName,
  type Units,
  withValues,
} from "./inputs.js";
import { estimate, type Load, type OptionId, optionIds, optionOf, priced } from "./model.js";

/** Units that work on Beacon or on the agents' settings could lower; each lowers the cost as it falls. */
export const adjustableUnits: readonly UnitName[] = [
  "gatewayAndHandlerCpuMs",
  "handlerCpuMsOneAtATime",
  "streamPutMs",
  "cppConnectionsPerHeartbeat",
  "tlsSetupBytesOutRsa2048",
  "tlsSetupBytesOutEcdsaP256",
  "tlsSetupBytesOutEcdsaP256PrivateCa",
  "tlsSetupBytesOutEcdsaP256PrivateLeaf",
  "tlsHandshakeCpuMs",
  "responseHeaderBytes",
  "requestBodyBytes",
  "eventBytes",
  "metricLineBytesPerHeartbeat",
  "checkpointsPerAgentHour",
  "lastSeenItemBytes",
  "cacheMemoryBytesPerAgent",
  "cacheEcpuPerRoundTrip",
];

export interface UnitChange {
  unit: UnitName;
  from: number;
  /** What the unit costs the option a month: the saving were it 0. */
  costs: number;
  /** The largest value at which the option fits the budget alone; undefined when even 0 does not. */
  to: number | undefined;
}

/** The cheapest option for one mix of agents and one server key, and whether it fits the budget. */
export interface MixFit {
  javaShare: number;
  serverKey: ServerKeyType;
  option: OptionId;
  monthly: number;
  fits: boolean;
}

/** The fleet mixes priced ingress by ingress: all MiNiFi Java, half and half, all MiNiFi C++. */
export const fleetMixes = [1, 0.5, 0] as const;

/**
 * What each mix should cost at most a month at 100,000 agents every 60 s: all Java within $1,000, all C++ within
 * $1,800 (the incumbent's cluster); half and half has no target of its own beyond the common budget.
 */
export const mixTargets: ReadonlyMap<number, number> = new Map([
  [1, 1_000],
  [0, 1_800],
]);

/** One mix on one ingress option with one server certificate. */
export interface IngressPrice {
  serverKey: ServerKeyType;
  option: OptionId;
  monthly: number;
}

/** Every ingress option and certificate priced for one mix, the cheapest of them, and the mix's own target. */
export interface MixIngress {
  javaShare: number;
  prices: IngressPrice[];
  cheapest: IngressPrice;
  target: number | undefined;
}

/** Each fleet mix priced on every ingress option with every server certificate; the cheapest chosen per mix. */
export function ingressByMix(load: Load, units: Units, prices: Prices, deployment: Deployment): MixIngress[] {
  return fleetMixes.map((javaShare) => {
    const priced = serverKeyTypes.flatMap((serverKey) => {
      const estimated = estimate({ ...load, javaShare }, units, prices, { ...deployment, serverKey });
      return optionIds.map((option) => ({ serverKey, option, monthly: optionOf(estimated, option).monthly }));
    });
    return {
      javaShare,
      prices: priced,
      cheapest: priced.reduce((a, b) => (b.monthly < a.monthly ? b : a)),
      target: mixTargets.get(javaShare),
    };
  });
}

export interface TargetReport {
  load: Load;
  budget: number;
  option: OptionId;
  monthly: number;
  fits: boolean;
  /** Biggest cost first. */
  changes: UnitChange[];
  /** The largest share of today's values that every adjustable unit together may keep for the option to fit. */
  together: number | undefined;
  /** All MiNiFi C++, the load's own mix and all MiNiFi Java, each with either server key. */
  mixes: MixFit[];
  /** Each fleet mix on every ingress option and server certificate. */
  byIngress: MixIngress[];
  httpApi: {
    monthly: number;
    /** API Gateway's and Lambda's per-request fees, which no unit of Beacon's changes. */
    requestFees: number;
    /** The shortest heartbeat interval at which the whole HTTP API option fits the budget. */
    intervalToFit: number | undefined;
  };
}

/** The largest x in [low, high] with fits(x), for a `fits` that holds below some point and fails above it. */
function largestFitting(low: number, high: number, fits: (x: number) => boolean): number | undefined {
  if (!fits(low)) return undefined;
  if (fits(high)) return high;
  let [good, bad] = [low, high];
  for (let step = 0; step < 60; step++) {
    const middle = (good + bad) / 2;
    if (fits(middle)) good = middle;
    else bad = middle;
  }
  return good;
}

export function targetReport(
  load: Load,
  budget: number,
  units: Units,
  prices: Prices,
  deployment: Deployment,
): TargetReport {
  const estimated = estimate(load, units, prices, deployment);
  const option = estimated.cheapest;
  const costWith = (changed: Units, at: Load = load, id: OptionId = option) =>
    optionOf(estimate(at, changed, prices, deployment), id).monthly;
  const monthly = optionOf(estimated, option).monthly;
  const changes = adjustableUnits
    .map((unit) => ({
      unit,
      from: units[unit].value,
      costs: monthly - costWith(withValues(units, { [unit]: 0 })),
      to: largestFitting(
        0,
        units[unit].value,
        (value) => costWith(withValues(units, { [unit]: value })) <= budget,
      ),
    }))
    .filter((change) => change.costs > 0)
    .sort((a, b) => b.costs - a.costs);
  const scaled = (share: number) =>
    withValues(units, Object.fromEntries(changes.map(({ unit, from }) => [unit, from * share])));
  const together = largestFitting(0, 1, (share) => costWith(scaled(share)) <= budget);
  const heartbeatsPerMonth = (load.agents / load.intervalSeconds) * deployment.hoursPerMonth * 3600;
  const longest = 24 * 3600;
  const fitsAt = (interval: number) =>
    costWith(units, { ...load, intervalSeconds: interval }, "httpApiLambda") <= budget;
  const mixes = [...new Set([0, load.javaShare, 1])].flatMap((javaShare) =>
    serverKeyTypes.map((serverKey) => {
      const mixed = estimate({ ...load, javaShare }, units, prices, { ...deployment, serverKey });
      const cheapest = optionOf(mixed, mixed.cheapest).monthly;
      return { javaShare, serverKey, option: mixed.cheapest, monthly: cheapest, fits: cheapest <= budget };
    }),
  );
  return {
    load,
    budget,
    option,
    monthly,
    fits: monthly <= budget,
    changes,
    together,
    mixes,
    byIngress: ingressByMix(load, units, prices, deployment),
    httpApi: {
      monthly: optionOf(estimated, "httpApiLambda").monthly,
      requestFees:
        priced(prices.prices.httpApiRequest, heartbeatsPerMonth) +
        priced(prices.prices.lambdaRequest, heartbeatsPerMonth),
      intervalToFit: fitsAt(longest) ? shortestFitting(load.intervalSeconds, longest, fitsAt) : undefined,
    },
  };
}

/** The shortest interval in [low, high] that fits, rounded up to a whole second. */
function shortestFitting(low: number, high: number, fits: (x: number) => boolean): number {
  if (fits(low)) return low;
  let [bad, good] = [low, high];
  while (good - bad > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (fits(middle)) good = middle;
    else bad = middle;
  }
  return good;
}
