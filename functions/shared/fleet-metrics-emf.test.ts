import { describe, expect, it } from "vitest";
import type { MetricFamily } from "../core/openmetrics.js";
import { cloudWatchMetricName, fleetMetricDocuments } from "./fleet-metrics-emf.js";

const families: MetricFamily[] = [
  {
    name: "beacon_agents",
    type: "gauge",
    help: "",
    samples: [
      { labels: { class: "pumps", status: "online" }, value: 3 },
      { labels: { class: "valves", status: "online" }, value: 2 },
      { labels: { class: "pumps", status: "offline" }, value: 1 },
      { labels: { class: "valves", status: "offline" }, value: 0 },
    ],
  },
  {
    name: "beacon_heartbeats",
    type: "counter",
    help: "",
    samples: [{ labels: { class: "pumps" }, value: 90 }],
  },
  { name: "beacon_heartbeats_last_minute", type: "gauge", help: "", samples: [{ value: 42 }] },
  { name: "beacon_counts_from_cache", type: "gauge", help: "", samples: [{ value: 1 }] },
];

describe("the fleet's series as CloudWatch Embedded Metric Format", () => {
  it("names a metric after its series and its labels' values but the class", () => {
    expect(
      cloudWatchMetricName(
        { name: "beacon_operations_last_minute", type: "gauge" },
        { labels: { class: "pumps", state: "failed" }, value: 1 },
      ),
    ).toBe("beacon_operations_last_minute_failed");
    expect(cloudWatchMetricName({ name: "beacon_heartbeats", type: "counter" }, { value: 1 })).toBe(
      "beacon_heartbeats_total",
    );
  });

  it("writes one document per class with the Tenant and Class dimensions, and one for the tenant's own", () => {
    expect(fleetMetricDocuments("acme", families, 1_700_000_000_000)).toEqual([
      {
        _aws: {
          Timestamp: 1_700_000_000_000,
          CloudWatchMetrics: [
            {
              Namespace: "Beacon/Fleet",
              Dimensions: [["Tenant", "Class"]],
              Metrics: [
                { Name: "beacon_agents_online", Unit: "Count" },
                { Name: "beacon_agents_offline", Unit: "Count" },
                { Name: "beacon_heartbeats_total", Unit: "Count" },
              ],
            },
          ],
        },
        Tenant: "acme",
        Class: "pumps",
        beacon_agents_online: 3,
        beacon_agents_offline: 1,
        beacon_heartbeats_total: 90,
      },
      {
        _aws: {
          Timestamp: 1_700_000_000_000,
          CloudWatchMetrics: [
            {
              Namespace: "Beacon/Fleet",
              Dimensions: [["Tenant", "Class"]],
              Metrics: [
                { Name: "beacon_agents_online", Unit: "Count" },
                { Name: "beacon_agents_offline", Unit: "Count" },
              ],
            },
          ],
        },
        Tenant: "acme",
        Class: "valves",
        beacon_agents_online: 2,
        beacon_agents_offline: 0,
      },
      {
        _aws: {
          Timestamp: 1_700_000_000_000,
          CloudWatchMetrics: [
            {
              Namespace: "Beacon/Fleet",
              Dimensions: [["Tenant"]],
              Metrics: [
                { Name: "beacon_heartbeats_last_minute", Unit: "Count" },
                { Name: "beacon_counts_from_cache", Unit: "Count" },
              ],
            },
          ],
        },
        Tenant: "acme",
        beacon_heartbeats_last_minute: 42,
        beacon_counts_from_cache: 1,
      },
    ]);
  });
});
