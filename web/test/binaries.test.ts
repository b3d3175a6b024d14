import { describe, expect, it } from "vitest";
import { binaryAgentsHref, binaryRows } from "../src/binaries.js";

const JAVA = "a".repeat(64);
const CPP = "c".repeat(64);

describe("the Binaries page's rows", () => {
  it("gathers the per-class counts by binary, the most run first, the unknown one among them", () => {
    const rows = binaryRows([
      { className: "pumps", name: "Binary not yet known", agents: 1 },
      {
        className: "pumps",
        manifestId: CPP,
        name: "MiNiFi C++ 0.15.0 · ccccccc",
        agentType: "cpp",
        version: "0.15.0",
        agents: 2,
      },
      {
        className: "pumps",
        manifestId: JAVA,
        name: "MiNiFi Java 2.3.0 · aaaaaaa",
        agentType: "minifi-java",
        version: "2.3.0",
        agents: 2,
      },
      {
        className: "valves",
        manifestId: JAVA,
        name: "MiNiFi Java 2.3.0 · aaaaaaa",
        agentType: "minifi-java",
        version: "2.3.0",
        agents: 3,
      },
    ]);
    expect(rows.map(({ name, agents, classes }) => [name, agents, classes])).toEqual([
      [
        "MiNiFi Java 2.3.0 · aaaaaaa",
        5,
        [
          { className: "pumps", agents: 2 },
          { className: "valves", agents: 3 },
        ],
      ],
      ["MiNiFi C++ 0.15.0 · ccccccc", 2, [{ className: "pumps", agents: 2 }]],
      ["Binary not yet known", 1, [{ className: "pumps", agents: 1 }]],
    ]);
    expect(rows[0]).toMatchObject({ manifestId: JAVA, agentType: "minifi-java", version: "2.3.0" });
    expect(rows[2]?.manifestId).toBeUndefined();
  });

  it("links a binary to the agent list filtered by it, and by class", () => {
    expect(binaryAgentsHref(JAVA)).toBe(`/agents?manifestId=${JAVA}`);
    expect(binaryAgentsHref(JAVA, "pumps")).toBe(`/agents?manifestId=${JAVA}&class=pumps`);
  });
});
