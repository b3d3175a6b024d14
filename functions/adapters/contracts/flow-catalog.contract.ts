import { createHash, randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import type { FlowCatalog, FlowVersionRecord, NewFlowVersion } from "../../core/flows/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

const sameBytes = (read: Uint8Array | undefined, expected: Uint8Array) =>
  read !== undefined && Buffer.from(read).equals(Buffer.from(expected));

/** Flow versions per class, each written once, and their content once per tenant and hash, read by hash. */
export const flowCatalogContract = contract<FlowCatalog>("the flow catalog", (the) => {
  const flowOf = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    const hash = createHash("sha256").update(bytes).digest("hex");
    const version: NewFlowVersion = {
      hash,
      format: "minifi-json",
      contentType: "application/json",
      sizeBytes: bytes.length,
      processorTypes: ["org.apache.nifi.minifi.processors.GenerateFlowFile"],
      controllerServiceTypes: [],
      className: "pumps",
      createdAt: START,
      createdBy: "alice",
    };
    /** The record as stored: the class's first version unless numbered otherwise. */
    const record: FlowVersionRecord = { ...version, gzipBytes: gzipSync(bytes).length, version: 1 };
    return { bytes, version, record };
  };

  it("adds a class's version once, with its gzip size, and serves its content by hash", async () => {
    const catalog = the.subject;
    const { bytes, version, record } = flowOf('{"rootGroup":{"name":"pumps"}}');
    expect(await catalog.get(the.tenant, "pumps", version.hash)).toBeUndefined();
    expect(await catalog.read(the.tenant, version.hash)).toBeUndefined();

    expect(await catalog.add(the.tenant, version, bytes)).toEqual({ record, created: true });
    expect(await catalog.get(the.tenant, "pumps", version.hash)).toEqual(record);
    const content = await catalog.read(the.tenant, version.hash);
    expect(content).toMatchObject({ hash: version.hash, contentType: "application/json" });
    expect(sameBytes(content?.bytes, bytes)).toBe(true);

    const again = await catalog.add(
      the.tenant,
      { ...version, createdAt: START + 1, createdBy: "bob" },
      bytes,
    );
    expect(again).toEqual({ record, created: false });
    expect(await catalog.get(the.tenant, "pumps", version.hash)).toEqual(record);
    expect(await catalog.read(`${the.tenant}-other`, version.hash)).toBeUndefined();
  });

  it("keeps a tenant's content as first stored when another class publishes the same bytes", async () => {
    const catalog = the.subject;
    const { bytes, version } = flowOf("flowController:\n  name: pumps\n");
    await catalog.add(the.tenant, version, bytes);
    const relabelled = { ...version, className: "valves", contentType: "application/yaml" as const };
    expect(await catalog.add(the.tenant, relabelled, bytes)).toMatchObject({ created: true });
    expect(await catalog.get(the.tenant, "valves", version.hash)).toMatchObject({ className: "valves" });
    expect(await catalog.read(the.tenant, version.hash)).toMatchObject({ contentType: "application/json" });
  });

  it("serves content back exactly, however large, whatever its caller does to the bytes it gave", async () => {
    const catalog = the.subject;
    // Beyond what one table item holds once gzipped.
    const bytes = randomBytes(320 * 1024);
    const { version } = flowOf("large");
    const added = Buffer.from(bytes);
    await catalog.add(the.tenant, { ...version, sizeBytes: bytes.length }, bytes);
    bytes.fill(0);
    expect(sameBytes((await catalog.read(the.tenant, version.hash))?.bytes, added)).toBe(true);
  });

  it("lists a class's versions by hash page by page, either way", async () => {
    const catalog = the.subject;
    const flows = ["a", "b", "c"].map((name) => flowOf(`{"name":"${name}"}`));
    for (const { version, bytes } of flows) await catalog.add(the.tenant, version, bytes);
    const other = flowOf('{"name":"valves"}');
    await catalog.add(the.tenant, { ...other.version, className: "valves" }, other.bytes);
    const byHash = flows
      .map(({ record }, index) => ({ ...record, version: index + 1 }))
      .sort((a, b) => (a.hash < b.hash ? -1 : 1));

    const first = await catalog.list(the.tenant, "pumps", { limit: 2 });
    expect(first).toEqual({ items: byHash.slice(0, 2), last: byHash[1]?.hash });
    expect(await catalog.list(the.tenant, "pumps", { limit: 2, after: first.last })).toEqual({
      items: byHash.slice(2),
    });
    const descending = await catalog.list(the.tenant, "pumps", { limit: 3, descending: true });
    // A full page names a cursor even when nothing follows it.
    expect(descending).toEqual({ items: [...byHash].reverse(), last: byHash[0]?.hash });
    expect(await catalog.list(the.tenant, "drains", { limit: 3 })).toEqual({ items: [] });
  });

  it("keeps the parameters a version declares as they were added, and a version that declares none without them", async () => {
    const catalog = the.subject;
    const { bytes, version, record } = flowOf('{"name":"parameters"}');
    const parameters = [
      { name: "kafka.brokers", sensitive: false, description: "Where to publish", default: "localhost:9092" },
      { name: "kafka.password", sensitive: true },
      { name: "empty", sensitive: false, default: "" },
    ];
    expect(await catalog.add(the.tenant, { ...version, parameters }, bytes)).toEqual({
      record: { ...record, parameters },
      created: true,
    });
    expect(await catalog.get(the.tenant, "pumps", version.hash)).toEqual({ ...record, parameters });
    expect((await catalog.list(the.tenant, "pumps", { limit: 10 })).items).toContainEqual({
      ...record,
      parameters,
    });
    const none = flowOf('{"name":"no parameters"}');
    await catalog.add(the.tenant, { ...none.version, parameters: [] }, none.bytes);
    expect(await catalog.get(the.tenant, "pumps", none.version.hash)).toEqual({
      ...none.record,
      parameters: [],
      version: 2,
    });
  });

  it("hands out copies: what a caller does to a record read stays with the caller", async () => {
    const catalog = the.subject;
    const { bytes, version, record } = flowOf('{"name":"copies"}');
    await catalog.add(the.tenant, version, bytes);
    const read = (await catalog.get(the.tenant, "pumps", version.hash)) as FlowVersionRecord;
    read.processorTypes.push("changed by its reader");
    const [listed] = (await catalog.list(the.tenant, "pumps", { limit: 1 })).items;
    listed?.processorTypes.push("changed by its reader");
    expect(await catalog.get(the.tenant, "pumps", version.hash)).toEqual(record);
  });

  it("numbers a class's versions in publish order, each class its own, the same bytes again keeping theirs", async () => {
    const catalog = the.subject;
    const [first, second] = ["first", "second"].map((name) => flowOf(`{"name":"${name}"}`));
    if (!first || !second) throw new Error("two flows");
    expect((await catalog.add(the.tenant, first.version, first.bytes)).record.version).toBe(1);
    expect((await catalog.add(the.tenant, second.version, second.bytes)).record.version).toBe(2);
    expect(await catalog.add(the.tenant, { ...first.version, label: "late" }, first.bytes)).toEqual({
      record: first.record,
      created: false,
    });
    const valves = await catalog.add(the.tenant, { ...second.version, className: "valves" }, second.bytes);
    expect(valves.record.version).toBe(1);
    const third = flowOf('{"name":"third"}');
    expect((await catalog.add(the.tenant, third.version, third.bytes)).record.version).toBe(3);
  });

  it("gives versions published at once each a number of its own, none skipped", async () => {
    const catalog = the.subject;
    const flows = [1, 2, 3, 4, 5].map((index) => flowOf(`{"name":"at once ${index}"}`));
    const added = await Promise.all(
      flows.map(({ version, bytes }) => catalog.add(the.tenant, version, bytes)),
    );
    expect(added.map(({ record }) => record.version).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it("keeps a label given at publish, and sets, changes or removes it later", async () => {
    const catalog = the.subject;
    const { bytes, version, record } = flowOf('{"name":"labelled"}');
    expect(await catalog.add(the.tenant, { ...version, label: "kafka tls" }, bytes)).toEqual({
      record: { ...record, label: "kafka tls" },
      created: true,
    });
    expect(await catalog.setLabel(the.tenant, "pumps", version.hash, "kafka mtls")).toEqual({
      ...record,
      label: "kafka mtls",
    });
    expect(await catalog.get(the.tenant, "pumps", version.hash)).toEqual({ ...record, label: "kafka mtls" });
    expect(await catalog.setLabel(the.tenant, "pumps", version.hash, undefined)).toEqual(record);
    expect(await catalog.get(the.tenant, "pumps", version.hash)).toEqual(record);
    expect(await catalog.setLabel(the.tenant, "valves", version.hash, "elsewhere")).toBeUndefined();
    expect(await catalog.get(the.tenant, "valves", version.hash)).toBeUndefined();
  });
});
