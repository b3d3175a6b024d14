import { describe, expect, it } from "vitest";
import { MemoryFlowCatalog } from "../../adapters/memory/flow-catalog.js";
import { readFlowDocument } from "./document.js";
import { flowVersionNameOf, flowVersionNames } from "./version-names.js";

const flowOf = (name: string) =>
  new TextEncoder().encode(JSON.stringify({ rootGroup: { name, processors: [], processGroups: [] } }));

async function publish(flows: MemoryFlowCatalog, className: string, name: string, label?: string) {
  const bytes = flowOf(name);
  const document = await readFlowDocument(bytes, 1024 * 1024);
  const { record } = await flows.add(
    "t1",
    { ...document, className, createdAt: 0, createdBy: "ops", label },
    bytes,
  );
  return record.hash;
}

describe("flow version names", () => {
  it("are the version's number and label, or none for a version stored before numbering, unlabelled", () => {
    expect(flowVersionNameOf({ version: 7, label: "kafka tls" })).toEqual({ version: 7, label: "kafka tls" });
    expect(flowVersionNameOf({ version: 2 })).toEqual({ version: 2 });
    expect(flowVersionNameOf({ label: "before numbering" })).toEqual({ label: "before numbering" });
    expect(flowVersionNameOf({})).toBeUndefined();
  });

  it("of a page's rows read each distinct version once, and name no flow that is not a version of its class", async () => {
    const flows = new MemoryFlowCatalog();
    const first = await publish(flows, "pumps", "first");
    const second = await publish(flows, "pumps", "second", "kafka tls");
    const reads: string[] = [];
    const counted = {
      get: (tenant: string, className: string, hash: string) => {
        reads.push(`${className}/${hash}`);
        return flows.get(tenant, className, hash);
      },
    };
    const rows = [
      { className: "pumps", flow: first },
      { className: "pumps", flow: second },
      { className: "pumps", flow: first },
      { className: "valves", flow: first },
      { className: "pumps", flow: "flow-id-from-another-c2-server" },
    ];
    const nameOf = await flowVersionNames(counted, "t1", rows);
    expect(rows.map(nameOf)).toEqual([
      { version: 1 },
      { version: 2, label: "kafka tls" },
      { version: 1 },
      undefined,
      undefined,
    ]);
    expect(reads.sort()).toEqual([`pumps/${first}`, `pumps/${second}`, `valves/${first}`].sort());
  });
});
