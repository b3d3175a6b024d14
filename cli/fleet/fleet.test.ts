import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../../scripts/test-support/local-stack.js";
import type { Schemas } from "../../web/src/api/client.js";
import { ExitCode } from "../exit.js";
import { run } from "../main.js";
import { parseFleetFile, readFleetFolder } from "./folder.js";
import { type FleetObject, FolderError } from "./objects.js";
import { type CurrentState, changesAnything, plan, planJson, renderPlan } from "./plan.js";

const EXAMPLE = path.join(repositoryRoot, "docs", "examples", "fleet");
const noFlows = () => {
  throw new Error("no flow files here");
};

/** The objects of one YAML text, or the FolderError's message. */
async function parsed(text: string) {
  try {
    return await parseFleetFile("fleet.yaml", text, noFlows);
  } catch (error) {
    if (error instanceof FolderError) return error.message;
    throw error;
  }
}

function empty(): CurrentState {
  return {
    settings: {},
    classes: new Map(),
    groups: new Map(),
    classParameters: new Map(),
    groupParameters: new Map(),
    agentParameters: new Map(),
    flows: new Map(),
    assets: new Set(),
    resourceSets: new Map(),
    webhooks: [],
  };
}

const agentClass = (name: string, fields: Partial<Schemas["AgentClass"]> = {}): Schemas["AgentClass"] => ({
  name,
  heartbeatIntervalSeconds: 60,
  autoCreated: false,
  createdAt: "2026-11-30T10:00:00.000Z",
  requireApproval: false,
  agents: { total: 0, online: 0 } as Schemas["AgentClass"]["agents"],
  ...fields,
});

const entry = (name: string, fields: Partial<Schemas["ParameterEntry"]>): Schemas["ParameterEntry"] => ({
  name,
  updatedAt: "2026-11-30T10:00:00.000Z",
  updatedBy: "someone",
  ...fields,
});

/** What the example folder declares, as the tenant would hold it once applied. */
async function applied(objects?: FleetObject[]): Promise<CurrentState> {
  const state = empty();
  for (const object of objects ?? (await readFleetFolder(EXAMPLE))) {
    switch (object.kind) {
      case "Settings":
        state.settings = { ...object.spec } as Schemas["TenantSettings"];
        break;
      case "Class":
        state.classes.set(
          object.name,
          agentClass(object.name, object.spec as Partial<Schemas["AgentClass"]>),
        );
        break;
      case "Group":
        state.groups.set(object.name, {
          name: object.name,
          ...object.spec,
          requireApproval: false,
          maintenanceWindows: [],
          parameterPriority: 0,
          parameterNames: [],
          createdAt: "2026-11-30T10:00:00.000Z",
          updatedAt: "2026-11-30T10:00:00.000Z",
        });
        break;
      case "ClassParameter":
      case "GroupParameter":
      case "AgentParameter": {
        const lists = {
          ClassParameter: state.classParameters,
          GroupParameter: state.groupParameters,
          AgentParameter: state.agentParameters,
        }[object.kind];
        const list = lists.get(object.owner) ?? { items: [] };
        list.items.push(entry(object.name, object.spec));
        lists.set(object.owner, list);
        break;
      }
      case "FlowVersion":
        state.flows.set(object.className, [
          ...(state.flows.get(object.className) ?? []),
          { hash: object.hash, className: object.className, label: object.label } as Schemas["FlowVersion"],
        ]);
        break;
      case "Asset":
        state.assets.add(object.sha256);
        break;
      case "ClassResources":
        state.resourceSets.set(object.className, {
          className: object.className,
          items: object.spec.items.map(({ assetId, path = "" }) => ({ assetId, path, name: "some.csv" })),
          digest: "0".repeat(64),
          hashType: "SHA-256",
          updatedAt: "2026-11-30T10:00:00.000Z",
          updatedBy: "someone",
        });
        break;
      case "Webhook":
        state.webhooks.push({
          ...object.spec,
          subscriptionId: "wh-1764496800000-a",
          state: "active",
          createdAt: "2026-11-30T10:00:00.000Z",
          createdBy: "someone",
        });
        break;
    }
  }
  return state;
}

describe("a fleet folder", () => {
  it("reads the example folder: every kind, the flow file by its path and SHA-256", async () => {
    const objects = await readFleetFolder(EXAMPLE);
    expect(objects.map((object) => object.kind).sort()).toEqual([
      "Asset",
      "Class",
      "Class",
      "ClassParameter",
      "ClassResources",
      "FlowVersion",
      "Group",
      "GroupParameter",
      "Settings",
      "Webhook",
    ]);
    const flow = objects.find((object) => object.kind === "FlowVersion");
    const bytes = readFileSync(path.join(EXAMPLE, "flows", "pumps.json"));
    expect(flow).toMatchObject({
      className: "pumps",
      file: path.join("flows", "pumps.json"),
      contentType: "application/json",
      hash: createHash("sha256").update(bytes).digest("hex"),
      label: "generate",
      source: { file: "flows.yaml", document: 1 },
    });
  });

  it("refuses a broken object, naming the file, the document, the object and the field", async () => {
    const object = (kind: string, metadata: string, spec: string) =>
      `apiVersion: beacon/v1\nkind: ${kind}\nmetadata: ${metadata}\nspec: ${spec}\n`;
    expect(await parsed(object("Class", "{name: pumps}", "{heartbeatIntervalSeconds: 0}"))).toBe(
      "fleet.yaml (document 1, Class pumps): spec/heartbeatIntervalSeconds must be >= 1",
    );
    expect(await parsed(`---\n${object("Class", "{name: pumps}", "{colour: blue}")}`)).toBe(
      "fleet.yaml (document 1, Class pumps): spec must NOT have additional properties (colour)",
    );
    expect(
      await parsed(
        `${object("Class", "{name: a}", "{}")}---\n${object("Class", "{name: 'no/slash'}", "{}")}`,
      ),
    ).toBe(
      'fleet.yaml (document 2, Class no/slash): metadata.name: "no/slash" is not of the form it takes ("/" is not allowed): letters, digits, ".", "_" and "-" only, starting with a letter or a digit, 1 to 128 characters',
    );
    expect(await parsed(object("Clas", "{name: a}", "{}"))).toMatch(
      /^fleet\.yaml \(document 1\): kind must be one of Settings, Class, .*, not "Clas"$/,
    );
    expect(await parsed("apiVersion: beacon/v2\nkind: Class\n")).toBe(
      'fleet.yaml (document 1): apiVersion must be beacon/v1, not "beacon/v2"',
    );
    expect(await parsed(object("Class", "{}", "{}"))).toBe(
      "fleet.yaml (document 1, Class): metadata.name is required (text)",
    );
    expect(
      await parsed(object("ClassParameter", "{class: pumps, name: a}", "{value: 1, secretRef: x}")),
    ).toMatch(/^fleet\.yaml \(document 1, ClassParameter pumps\/a\): spec/);
    expect(await parsed(object("AgentParameter", "{class: pumps, name: a}", "{value: x}"))).toBe(
      "fleet.yaml (document 1, AgentParameter): unknown field metadata.class (agent, name)",
    );
    expect(await parsed(object("AgentParameter", "{agent: pump-1, name: 'a/b'}", "{value: x}"))).toBe(
      'fleet.yaml (document 1, AgentParameter a/b): metadata.name: "a/b" is not of the form it takes',
    );
    expect(await parsed(object("FlowVersion", "{class: pumps}", "{file: flow.json}"))).toBe(
      "fleet.yaml (document 1, FlowVersion pumps/flow.json): spec.file: no flow files here",
    );
    expect(await parsed("apiVersion: beacon/v1\nkind: [unclosed\n")).toBe(
      "fleet.yaml:3: not YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
    );
  });

  it("reads a resource set's files as assets: each once, by its SHA-256, named as the file is", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "beacon-fleet-"));
    writeFileSync(path.join(folder, "gain.csv"), "a,b\n");
    const resources = (className: string, items: string) =>
      `apiVersion: beacon/v1\nkind: ClassResources\nmetadata: {class: ${className}}\nspec: {items: ${items}}\n`;
    const id = "ab".repeat(32);
    writeFileSync(
      path.join(folder, "a.yaml"),
      `${resources("pumps", `[{file: gain.csv, path: cal}, {assetId: "${id}"}]`)}---\n${resources("valves", "[{file: gain.csv}]")}`,
    );
    const objects = await readFleetFolder(folder);
    const sha256 = createHash("sha256").update("a,b\n").digest("hex");
    expect(objects.filter(({ kind }) => kind === "Asset")).toEqual([
      {
        kind: "Asset",
        source: { file: "a.yaml", document: 1 },
        file: "gain.csv",
        location: path.join(folder, "gain.csv"),
        name: "gain.csv",
        sizeBytes: 4,
        sha256,
      },
    ]);
    expect(objects.find(({ kind }) => kind === "ClassResources")).toMatchObject({
      className: "pumps",
      spec: { items: [{ assetId: sha256, path: "cal" }, { assetId: id }] },
    });

    const refused = async (items: string) => {
      writeFileSync(path.join(folder, "a.yaml"), resources("pumps", items));
      try {
        await readFleetFolder(folder);
      } catch (error) {
        return (error as Error).message;
      }
      return "read";
    };
    const where = "a.yaml (document 1, ClassResources pumps)";
    expect(await refused(`[{file: gain.csv, assetId: "${id}"}]`)).toBe(
      `${where}: spec.items[0] needs one of file (uploaded if absent) and assetId`,
    );
    expect(await refused("[{file: none.csv}]")).toBe(
      `${where}: spec.items[0].file: cannot read none.csv: ENOENT`,
    );
    expect(await refused("[{file: gain.csv, path: ../up}]")).toMatch(
      /^a\.yaml \(document 1, ClassResources pumps\): spec\/items\/0\/path: "\.\.\/up" is not of the form it takes/,
    );
    expect(await refused(`[{file: gain.csv}, {assetId: "${sha256}", path: x}]`)).toBe(
      `${where}: asset ${sha256} is in the set twice`,
    );
    writeFileSync(path.join(folder, "empty.csv"), "");
    expect(await refused("[{file: empty.csv}]")).toBe(
      `${where}: spec.items[0].file: empty.csv is empty: an asset has at least one byte.`,
    );
  });

  it("refuses an object declared twice, and a flow version's bytes declared twice", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "beacon-fleet-"));
    const flow = (file: string) =>
      `apiVersion: beacon/v1\nkind: FlowVersion\nmetadata: {class: pumps}\nspec: {file: ${file}}\n`;
    writeFileSync(path.join(folder, "a.json"), "{}");
    writeFileSync(path.join(folder, "b.json"), "{}");
    writeFileSync(path.join(folder, "a.yaml"), flow("a.json"));
    writeFileSync(path.join(folder, "b.yaml"), flow("b.json"));
    await expect(readFleetFolder(folder)).rejects.toThrow(
      /^b\.yaml \(document 1\): FlowVersion pumps@[0-9a-f]{64} is declared twice, first in a\.yaml \(document 1\)$/,
    );
    await expect(readFleetFolder(path.join(folder, "none"))).rejects.toThrow(FolderError);
  });
});

describe("beacon apply and diff", () => {
  it("refuse a broken folder with exit code 2 before any request", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "beacon-fleet-"));
    writeFileSync(
      path.join(folder, "a.yaml"),
      "apiVersion: beacon/v1\nkind: Settings\nspec: {timeZone: 7}\n",
    );
    for (const command of ["apply", "diff"]) {
      let stderr = "";
      const code = await run(
        [command, "-f", folder],
        { out: () => {}, err: (text) => (stderr += text) },
        // Nothing listens on port 9: a request would fail with exit code 1.
        { BEACON_URL: "http://127.0.0.1:9", BEACON_TOKEN: "t", XDG_CONFIG_HOME: folder },
      );
      expect(code).toBe(ExitCode.usage);
      expect(stderr).toBe(
        "beacon: a.yaml (document 1, Settings tenant): spec/timeZone must be string,null\n",
      );
    }
  });

  it("refuse a resource set's file over the limit by its size, before reading any of it", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "beacon-fleet-"));
    writeFileSync(
      path.join(folder, "a.yaml"),
      "apiVersion: beacon/v1\nkind: ClassResources\nmetadata: {class: pumps}\nspec: {items: [{file: big.bin}]}\n",
    );
    writeFileSync(path.join(folder, "big.bin"), "");
    // Sparse files: no byte is written. The larger is beyond what one read can hold (readFileSync refuses
    // over 2 GiB), so its refusal can only come from its size.
    for (const [sizeBytes, size] of [
      [101 * 1024 * 1024, "101.0 MiB"],
      [3 * 1024 * 1024 * 1024, "3072.0 MiB"],
    ] as const) {
      truncateSync(path.join(folder, "big.bin"), sizeBytes);
      let stderr = "";
      const code = await run(
        ["apply", "-f", folder],
        { out: () => {}, err: (text) => (stderr += text) },
        { BEACON_URL: "http://127.0.0.1:9", BEACON_TOKEN: "t", XDG_CONFIG_HOME: folder },
      );
      expect(code).toBe(ExitCode.usage);
      expect(stderr).toBe(
        `beacon: a.yaml (document 1, ClassResources pumps): spec.items[0].file: big.bin is ${size} (${sizeBytes} bytes): an asset is at most 100.0 MiB (104857600 bytes).\n`,
      );
    }
  });
});

describe("the plan", () => {
  it("creates everything in an empty tenant, settings and classes before what needs them", async () => {
    const changes = plan(await readFleetFolder(EXAMPLE), empty(), { prune: false });
    expect(changes.map(({ action, kind }) => `${action} ${kind}`)).toEqual([
      "update Settings",
      "create Class",
      "create Class",
      "create Group",
      "create ClassParameter",
      "create GroupParameter",
      "create FlowVersion",
      "create Asset",
      "create ClassResources",
      "create Webhook",
    ]);
    expect(changesAnything(changes)).toBe(true);
  });

  it("changes nothing once applied", async () => {
    const changes = plan(await readFleetFolder(EXAMPLE), await applied(), { prune: true });
    expect(changes.every(({ action }) => action === "unchanged")).toBe(true);
    expect(changesAnything(changes)).toBe(false);
    expect(renderPlan(changes)).toMatch(
      /\nPlan: 0 to create, 0 to update, 0 to delete, 10 unchanged, 0 not managed here\.$/,
    );
  });

  it("updates the fields that differ, and only those the folder gives", async () => {
    const current = await applied();
    current.classes.set(
      "pumps",
      agentClass("pumps", {
        heartbeatIntervalSeconds: 60,
        ackTimeoutSeconds: 120,
        description: "Pump controllers of plant 7",
        cleanUpAfterDays: 30,
      }),
    );
    current.classParameters.set("pumps", {
      items: [],
      staged: [entry("kafka.brokers", { value: "old:9092", staged: true })],
    });
    const flows = current.flows.get("pumps") ?? [];
    current.flows.set(
      "pumps",
      flows.map((flow) => ({ ...flow, label: "older" })),
    );
    const changes = plan(await readFleetFolder(EXAMPLE), current, { prune: false });
    const updates = changes.filter(({ action }) => action === "update");
    expect(updates).toMatchObject([
      { kind: "Class", name: "pumps", differences: ["heartbeatIntervalSeconds: 60 → 30"] },
      {
        kind: "ClassParameter",
        name: "pumps/kafka.brokers",
        differences: ['value: "old:9092" → "broker-1.plant.example:9092"'],
      },
      { kind: "FlowVersion", name: "pumps/flows/pumps.json", differences: ['label: "older" → "generate"'] },
    ]);
    expect(renderPlan(changes)).toContain("~ update Class pumps\n    heartbeatIntervalSeconds: 60 → 30\n");
  });

  it("a resource set's items are compared as a set: what it adds and removes, by file or name", async () => {
    const objects = await readFleetFolder(EXAMPLE);
    const current = await applied(objects);
    const set = current.resourceSets.get("pumps") as Schemas["ResourceSet"];
    const kept = set.items[0] as Schemas["ResourceSet"]["items"][number];
    current.resourceSets.set("pumps", {
      ...set,
      items: [
        { assetId: "cd".repeat(32), name: "old.csv", path: "" },
        { ...kept, path: "elsewhere" },
      ],
    });
    expect(
      plan(objects, current, { prune: false }).find(({ kind }) => kind === "ClassResources"),
    ).toMatchObject({
      action: "update",
      differences: [
        'adds assets/calibration.csv at "calibration"',
        'removes old.csv at ""',
        'removes some.csv at "elsewhere"',
      ],
    });
    current.resourceSets.set("pumps", { ...set, items: [...set.items].reverse() });
    current.assets.clear();
    expect(
      plan(objects, current, { prune: false })
        .filter(({ action }) => action !== "unchanged")
        .map(({ action, kind, name }) => `${action} ${kind} ${name}`),
    ).toEqual(["create Asset assets/calibration.csv"]);
  });

  it("a group's definition is whole: a field left out that the tenant has set is an update to its default", async () => {
    const current = await applied();
    const group = current.groups.get("plant-7") as Schemas["Group"];
    current.groups.set("plant-7", { ...group, requireApproval: true, parameterPriority: 5 });
    const [change] = plan(await readFleetFolder(EXAMPLE), current, { prune: false }).filter(
      ({ action }) => action === "update",
    );
    expect(change).toMatchObject({
      kind: "Group",
      differences: ["requireApproval: true → false", "parameterPriority: 5 → 0"],
    });
  });

  it("enables a declared webhook whose subscription is disabled, unless a same one is active", async () => {
    const objects = await readFleetFolder(EXAMPLE);
    const current = await applied(objects);
    const active = current.webhooks[0] as Schemas["Subscription"];
    const disabled: Schemas["Subscription"] = {
      ...active,
      state: "disabled",
      disabledAt: "2026-11-30T12:00:00.000Z",
      disabledReason: "The receiver answered 410 Gone",
    };
    current.webhooks = [disabled];
    const changes = plan(objects, current, { prune: true });
    expect(changes.filter(({ action }) => action !== "unchanged")).toEqual([
      {
        action: "update",
        kind: "Webhook",
        name: "https://hooks.example.com/beacon [agent.offline,rollout.*] of pumps",
        object: objects.find(({ kind }) => kind === "Webhook"),
        differences: ['state: "disabled" → "active" (The receiver answered 410 Gone)'],
        subscriptionId: active.subscriptionId,
      },
    ]);
    expect(renderPlan(changes)).toContain(
      '\n    state: "disabled" → "active" (The receiver answered 410 Gone)\n',
    );

    expect(planJson(changes).changes.find(({ action }) => action === "update")).toMatchObject({
      kind: "Webhook",
      subscriptionId: active.subscriptionId,
    });

    current.webhooks = [disabled, { ...active, subscriptionId: "wh-1764496800000-b" }];
    expect(changesAnything(plan(objects, current, { prune: true }))).toBe(false);
  });

  it("leaves what the folder does not declare alone, and deletes it only with --prune", async () => {
    const current = await applied();
    current.classes.set("auto", agentClass("auto", { autoCreated: true }));
    current.groups.set("old", { ...(current.groups.get("plant-7") as Schemas["Group"]), name: "old" });
    current.classParameters.get("pumps")?.items.push(entry("retired", { value: "x" }));
    current.classParameters.set("auto", { items: [entry("kept", { value: "y" })] });
    current.webhooks.push({
      ...(current.webhooks[0] as Schemas["Subscription"]),
      subscriptionId: "wh-1764496800000-b",
      eventTypes: ["agent.online"],
    });
    const objects = await readFleetFolder(EXAMPLE);

    const kept = plan(objects, current, { prune: false });
    expect(changesAnything(kept)).toBe(false);
    expect(
      kept.filter(({ action }) => action === "unmanaged").map(({ kind, name }) => `${kind} ${name}`),
    ).toEqual([
      "Class auto",
      "Group old",
      "ClassParameter pumps/retired",
      "Webhook wh-1764496800000-b https://hooks.example.com/beacon [agent.online] of pumps",
    ]);
    expect(renderPlan(kept)).toContain("Not managed here, left alone:\n  Class auto\n  Group old\n");

    const pruned = plan(objects, current, { prune: true });
    expect(
      pruned.filter(({ action }) => action === "delete").map(({ kind, name }) => `${kind} ${name}`),
    ).toEqual([
      "Group old",
      "ClassParameter pumps/retired",
      "Webhook wh-1764496800000-b https://hooks.example.com/beacon [agent.online] of pumps",
    ]);
    expect(
      planJson(pruned)
        .changes.filter(({ kind, action }) => kind === "Webhook" && action === "delete")
        .map(({ subscriptionId }) => subscriptionId),
    ).toEqual(["wh-1764496800000-b"]);
    // The API deletes no class; an undeclared class's parameters are not the folder's to prune.
    expect(pruned.find(({ name }) => name === "auto")).toMatchObject({
      action: "unmanaged",
      note: "the API deletes no class",
    });
    expect(pruned.some(({ name }) => name === "auto/kept")).toBe(false);
  });

  it("sets an agent's own values and, with --prune, removes those of the agents it names that it leaves out", async () => {
    const objects = (await parsed(
      [
        "apiVersion: beacon/v1\nkind: AgentParameter\nmetadata: {agent: pump-0001, name: broker}\nspec: {value: edge-1:9092}",
        "apiVersion: beacon/v1\nkind: AgentParameter\nmetadata: {agent: pump-0001, name: token}\nspec: {secretRef: 'ssm:/plant-7/pump-0001/token'}",
        "apiVersion: beacon/v1\nkind: AgentParameter\nmetadata: {agent: pump-0002, name: broker}\nspec: {value: edge-2:9092}",
      ].join("\n---\n"),
    )) as FleetObject[];
    expect(objects.map((object) => object.kind)).toEqual([
      "AgentParameter",
      "AgentParameter",
      "AgentParameter",
    ]);
    const current = empty();
    current.agentParameters.set("pump-0001", {
      items: [entry("broker", { value: "edge-0:9092" }), entry("retired", { value: "x" })],
    });
    current.agentParameters.set("pump-0002", { items: [] });

    const kept = plan(objects, current, { prune: false });
    expect(renderPlan(kept)).toBe(
      [
        "~ update AgentParameter pump-0001/broker",
        '    value: "edge-0:9092" → "edge-1:9092"',
        "+ create AgentParameter pump-0001/token",
        "+ create AgentParameter pump-0002/broker",
        "Not managed here, left alone:",
        "  AgentParameter pump-0001/retired",
        "Plan: 2 to create, 1 to update, 0 to delete, 0 unchanged, 1 not managed here.",
      ].join("\n"),
    );
    const pruned = plan(objects, current, { prune: true });
    expect(pruned.find(({ action }) => action === "delete")).toMatchObject({
      kind: "AgentParameter",
      name: "pump-0001/retired",
      target: { kind: "AgentParameter", owner: "pump-0001", name: "retired" },
    });
    expect(changesAnything(plan(objects, await applied(objects), { prune: true }))).toBe(false);
  });

  it("gives the plan as JSON: each change's action, kind, name, where it was declared, and the counts", async () => {
    const json = planJson(plan(await readFleetFolder(EXAMPLE), empty(), { prune: false }));
    expect(json.summary).toEqual({ create: 9, update: 1, delete: 0, unchanged: 0, unmanaged: 0 });
    expect(json.changes[1]).toEqual({
      action: "create",
      kind: "Class",
      name: "pumps",
      source: { file: "classes.yaml", document: 1 },
    });
    expect(JSON.stringify(json)).not.toContain("rootGroup");
  });
});
