import type { MetricFamily, MetricSample } from "../core/openmetrics.js";

/** The CloudWatch namespace of the fleet's series, apart from the functions' own (`Beacon`). */
export const FLEET_METRICS_NAMESPACE = "Beacon/Fleet";

/** The dimensions of a class's series, and of a tenant's series of no class. */
export const FleetDimensions = { tenant: "Tenant", class: "Class" } as const;

/**
 * An Embedded Metric Format document: one JSON log line that CloudWatch Logs turns into metrics, here of one
 * tenant's class (or of the tenant alone), the values under their metric names beside the dimensions' values.
 */
export interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: "Count" }[];
    }[];
  };
  [field: string]: unknown;
}

/**
 * A sample's CloudWatch metric name: the series' OpenMetrics name (a counter's with `_total`), then the values
 * of its labels other than the class, in order: `beacon_agents` of status online is `beacon_agents_online`,
 * `beacon_operations_last_minute` of state failed `beacon_operations_last_minute_failed`.
 */
export function cloudWatchMetricName(
  family: Pick<MetricFamily, "name" | "type">,
  sample: MetricSample,
): string {
  const values = Object.entries(sample.labels ?? {})
    .filter(([label]) => label !== "class")
    .map(([, value]) => value);
  return [family.type === "counter" ? `${family.name}_total` : family.name, ...values].join("_");
}

/**
 * A tenant's fleet series as EMF documents, one per class with the dimensions Tenant and Class, and one with
 * Tenant alone for the series of no class: at most 1,000 classes of at most 100 metrics each, EMF's limit a
 * document (docs/metrics.md counts them).
 */
export function fleetMetricDocuments(
  tenant: string,
  families: readonly MetricFamily[],
  at: number,
): EmfDocument[] {
  const byClass = new Map<string, Record<string, number>>();
  for (const family of families)
    for (const sample of family.samples) {
      const agentClass = sample.labels?.class ?? "";
      const values = byClass.get(agentClass) ?? {};
      values[cloudWatchMetricName(family, sample)] = sample.value;
      byClass.set(agentClass, values);
    }
  return [...byClass].map(([agentClass, values]) => {
    const dimensions =
      agentClass === ""
        ? { [FleetDimensions.tenant]: tenant }
        : { [FleetDimensions.tenant]: tenant, [FleetDimensions.class]: agentClass };
    return {
      _aws: {
        Timestamp: at,
        CloudWatchMetrics: [
          {
            Namespace: FLEET_METRICS_NAMESPACE,
            Dimensions: [Object.keys(dimensions)],
            Metrics: Object.keys(values).map((name) => ({ Name: name, Unit: "Count" as const })),
          },
        ],
      },
      ...dimensions,
      ...values,
    };
  });
}
