import { describe, expect, it } from "vitest";
import { cppYamlFlow } from "../../../scripts/test-support/flow-fixtures.js";
import { MemoryFlowCatalog } from "../../adapters/memory/flow-catalog.js";
import { MemoryHotState } from "../../adapters/memory/hot-state.js";
import { MemoryRevocationList } from "../../adapters/memory/revocation-list.js";
import { readFlowDocument } from "../flows/document.js";
import type { AgentCredential } from "../identity/credentials.js";
import { makeFlowDownload } from "./flow-download.js";

const credential = (tenant: string, serialNumber = "A1"): AgentCredential => ({
  kind: "fleet",
  tenant,
  fleetName: "plant",
  serialNumber,
});

async function harness() {
  const flows = new MemoryFlowCatalog();
  const revocations = new MemoryRevocationList();
  const hotState = new MemoryHotState();
  const bytes = new TextEncoder().encode(cppYamlFlow);
  const document = await readFlowDocument(bytes, 1024 * 1024);
  await flows.add("t1", { ...document, className: "pumps", createdAt: 0, createdBy: "ops" }, bytes);
  return { download: makeFlowDownload({ flows, revocations, hotState }), revocations, hash: document.hash };
}

describe("an agent downloading a flow", () => {
  it("gets the tenant's version with its content type, and not-modified for the tag it holds", async () => {
    const { download, hash } = await harness();
    const outcome = await download(credential("t1"), hash, undefined);
    expect(outcome.notModified).toBe(false);
    expect(outcome.content?.contentType).toBe("application/yaml");
    expect(new TextDecoder().decode(outcome.content?.bytes)).toBe(cppYamlFlow);
    for (const tag of [`"${hash}"`, `W/"${hash}"`, `"other", "${hash}"`, "*"]) {
      expect((await download(credential("t1"), hash, tag)).notModified).toBe(true);
    }
    expect((await download(credential("t1"), hash, '"other"')).notModified).toBe(false);
  });

  it("finds no flow of another tenant, nor one by a name that is no hash, even with a matching tag", async () => {
    const { download, hash } = await harness();
    for (const [tenant, flowId] of [
      ["t2", hash],
      ["t1", "not-a-hash"],
    ] as const) {
      await expect(download(credential(tenant), flowId, "*")).rejects.toMatchObject({ code: "not_found" });
    }
  });

  it("refuses a revoked certificate as a heartbeat would", async () => {
    const { download, revocations, hash } = await harness();
    revocations.revoke("t1", "A1");
    await expect(download(credential("t1"), hash, undefined)).rejects.toMatchObject({
      code: "certificate_revoked",
    });
  });
});
