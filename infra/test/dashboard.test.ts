import { beforeAll, describe, expect, it } from "vitest";
import { type SynthesizedBeacon, synthesized } from "./assembly.js";

let prod: SynthesizedBeacon;
let prodAlb: SynthesizedBeacon;

beforeAll(() => {
  prod = synthesized("prod");
  prodAlb = synthesized("prodAlb");
});

interface Widget {
  type: string;
  properties: {
    title?: string;
    metrics?: unknown[][];
    annotations?: { alarms?: unknown[] };
  };
}

/** The dashboard's widgets, its body's tokens (ARNs, the region) read as placeholders. */
function widgetsOf({ statelessTemplate }: SynthesizedBeacon): Widget[] {
  const [dashboard] = Object.values(statelessTemplate.findResources("AWS::CloudWatch::Dashboard"));
  const body = dashboard?.Properties.DashboardBody as { "Fn::Join": [string, unknown[]] };
  const text = body["Fn::Join"][1].map((part) => (typeof part === "string" ? part : "TOKEN")).join("");
  return (JSON.parse(text) as { widgets: Widget[] }).widgets;
}

const alarmWidgets = (widgets: Widget[]) => widgets.filter((widget) => widget.properties.annotations?.alarms);
const graphs = (widgets: Widget[]) =>
  widgets.filter((widget) => widget.type === "metric" && !widget.properties.annotations?.alarms);
const titles = (widgets: Widget[]) => widgets.map((widget) => widget.properties.title);

describe("the dashboard", () => {
  it("holds a graph of each watched piece beside one widget per alarm", () => {
    for (const [beacon, alarms] of [
      // Behind API Gateway, the asset stream function's errors, throttles and six degradations are 8 of them.
      [prod, 54],
      [prodAlb, 49],
    ] as const) {
      const widgets = widgetsOf(beacon);
      expect(alarmWidgets(widgets)).toHaveLength(alarms);
      expect(titles(graphs(widgets))).toEqual([
        "Agents online, by tenant and class",
        "Agents offline, by tenant and class",
        "Heartbeats per second, by tenant and class",
        "Agents needing attention, by reason",
        "Operations entering each state, per minute",
        "New bulletins and rollouts in progress",
        "Agent API requests and 5xx",
        "Agent API latency (p99, ms)",
        "Stream put errors",
        "Cache processing units (ECPUs)",
        "Cache memory (bytes used)",
        "Cache evictions and throttled commands",
        "StreamConsumer iterator age (ms)",
        "StreamConsumer errors and duration",
      ]);
      expect(widgets).toHaveLength(alarms + 14);
    }
  });

  it("graphs the fleet's series by search over the Tenant and Class dimensions the sweeper writes", () => {
    const fleet = graphs(widgetsOf(prod)).slice(0, 6);
    const expressions = fleet.map((widget) => JSON.stringify(widget.properties.metrics));
    for (const expression of expressions) expect(expression).toContain("SEARCH('{Beacon/Fleet,Tenant,Class}");
    expect(expressions[0]).toContain('MetricName=\\"beacon_agents_online\\"');
    expect(expressions[2]).toContain("RATE(SEARCH(");
    expect(expressions[4]).toContain('MetricName=\\"beacon_operations_last_minute_timed_out\\"');
  });

  it("graphs the cache's processing units, memory and evictions, and the stream's refused puts", () => {
    const metrics = JSON.stringify(graphs(widgetsOf(prod)).map((widget) => widget.properties.metrics));
    for (const metricName of [
      "ElastiCacheProcessingUnits",
      "BytesUsedForCache",
      "Evictions",
      "ThrottledCmds",
    ])
      expect(metrics).toContain(`["AWS/ElastiCache","${metricName}","clusterId"`);
    for (const metricName of [
      "PutRecords.FailedRecords",
      "PutRecords.ThrottledRecords",
      "WriteProvisionedThroughputExceeded",
    ])
      expect(metrics).toContain(`"AWS/Kinesis","${metricName}"`);
  });
});
