import { describe, expect, it } from "vitest";
import { escapeLabelValue, renderOpenMetrics } from "./openmetrics.js";

describe("the OpenMetrics exposition", () => {
  it("describes each family, then its samples, and ends with # EOF and a line feed", () => {
    const text = renderOpenMetrics([
      {
        name: "beacon_agents",
        type: "gauge",
        help: "Agents by status.",
        samples: [
          { labels: { class: "pumps", status: "online" }, value: 3 },
          { labels: { class: "pumps", status: "offline" }, value: 0 },
        ],
      },
      { name: "beacon_heartbeats", type: "counter", help: "Heartbeats.", samples: [{ value: 12 }] },
      { name: "beacon_nothing", type: "gauge", help: "None yet.", samples: [] },
    ]);
    expect(text).toBe(
      [
        "# TYPE beacon_agents gauge",
        "# HELP beacon_agents Agents by status.",
        'beacon_agents{class="pumps",status="online"} 3',
        'beacon_agents{class="pumps",status="offline"} 0',
        "# TYPE beacon_heartbeats counter",
        "# HELP beacon_heartbeats Heartbeats.",
        "beacon_heartbeats_total 12",
        "# TYPE beacon_nothing gauge",
        "# HELP beacon_nothing None yet.",
        "# EOF",
        "",
      ].join("\n"),
    );
  });

  it("ends an exposition without families with # EOF alone", () => {
    expect(renderOpenMetrics([])).toBe("# EOF\n");
  });

  it("escapes backslashes, double quotes and line feeds in label values and help texts", () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const text = renderOpenMetrics([
      {
        name: "m",
        type: "gauge",
        help: 'says "hi"\nthen \\',
        samples: [{ labels: { class: 'x"}\n# EOF' }, value: 1 }],
      },
    ]);
    expect(text.split("\n")).toEqual([
      "# TYPE m gauge",
      '# HELP m says \\"hi\\"\\nthen \\\\',
      'm{class="x\\"}\\n# EOF"} 1',
      "# EOF",
      "",
    ]);
  });

  it("writes NaN and infinities as OpenMetrics spells them", () => {
    const text = renderOpenMetrics([
      {
        name: "m",
        type: "gauge",
        help: "h",
        samples: [
          { value: Number.NaN },
          { value: Number.POSITIVE_INFINITY },
          { value: -Infinity },
          { value: 0.5 },
        ],
      },
    ]);
    expect(text).toContain("m NaN\nm +Inf\nm -Inf\nm 0.5\n");
  });

  it("refuses a metric or label name the format cannot carry, and a family given twice", () => {
    const family = (name: string, labels?: Record<string, string>) => ({
      name,
      type: "gauge" as const,
      help: "h",
      samples: [{ labels, value: 1 }],
    });
    expect(() => renderOpenMetrics([family("beacon-agents")])).toThrow("Not a metric name");
    expect(() => renderOpenMetrics([family("m", { "agent-class": "x" })])).toThrow("Not a label name");
    expect(() => renderOpenMetrics([family("m", { __name__: "x" })])).toThrow("Not a label name");
    expect(() => renderOpenMetrics([family("m"), family("m")])).toThrow("given twice");
  });
});
