/**
 * The flow designer in a real browser: a class of simulated MiNiFi C++ agents, whose manifest Beacon holds,
 * and an operator who builds GenerateFlowFile → LogAttribute with a state store from it, is told what is
 * missing, and saves the flow as a new version of the class.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphOf, groupsOf, parseDesignerFlow } from "../src/designer/flow-model.js";
import { firstLoads } from "../tools/bundle-budget.js";
import {
  api,
  capture,
  flowJson,
  localToken,
  newPage,
  pageProblems,
  signIn,
  simulatedAgents,
  startConsole,
  stopConsole,
  untilRegistered,
} from "./console-harness.js";

const AGENT_CLASS = "designed";
let webUrl: string;
let localDir: string;

beforeAll(async () => {
  ({
    webUrl,
    stack: { localDir },
  } = await startConsole("web-console-designer-test", { BEACON_SWEEPER_INTERVAL_SECONDS: "2" }));
  simulatedAgents(["--class", AGENT_CLASS, "--count", "2", "--interval", "2"]);
  await untilRegistered(AGENT_CLASS, 2, { ready: (agent) => agent.manifestId !== undefined });
}, 300_000);

afterAll(stopConsole, 60_000);

describe("the flow designer", () => {
  it("is loaded only on its own page", async () => {
    const loads = await firstLoads(path.join(localDir, "web"));
    const kilobytes = (page: string) =>
      ((loads.find((load) => load.page === page)?.gzipBytes ?? 0) / 1024).toFixed(1);
    const fleet = loads.find((load) => load.page === "src/pages/fleet.tsx");
    const designer = loads.find((load) => load.page === "src/pages/designer.tsx");
    console.log(
      `first load, gzipped: designer page ${kilobytes("src/pages/designer.tsx")} KB, fleet page ${kilobytes("src/pages/fleet.tsx")} KB`,
    );
    expect(designer?.files.length).toBeGreaterThan(0);
    // The graph library and the layout are the designer's alone.
    const designerOnly = designer?.files.filter((file) => !fleet?.files.includes(file)) ?? [];
    expect(designerOnly.length).toBeGreaterThan(0);
    expect(fleet?.files.some((file) => designerOnly.includes(file))).toBe(false);
  });

  it("builds GenerateFlowFile → LogAttribute from the class's binary and saves it as a new version", async () => {
    const { page, context } = await newPage();
    await page.goto(`${webUrl}/classes/${AGENT_CLASS}`);
    await signIn(page, "operator", AGENT_CLASS);
    await page.getByRole("link", { name: "design its flow" }).click();
    await page.getByRole("heading", { name: `Designer: ${AGENT_CLASS}`, level: 1 }).waitFor();
    await page.getByText("A new flow in the minifi-yaml format · 2 agents, 1 binary").waitFor();

    const palette = page.getByRole("form", { name: "Add a component" });
    const add = async (name: string) => {
      await palette.getByLabel("Filter").fill(name);
      await palette.getByLabel("Component").selectOption({ label: `${name} — 2 of 2 agents` });
      await palette.getByRole("button", { name: "Add" }).click();
      await page.getByRole("heading", { name: new RegExp(`^${name}`), level: 2 }).waitFor();
    };
    await add("GenerateFlowFile");
    // A property with allowed values is a choice of them, its default named.
    const generateForm = page.getByRole("region", { name: /^GenerateFlowFile/ });
    await generateForm.getByLabel("Data Format").selectOption("Text");
    await generateForm.getByLabel("Custom Text").fill("hello from the designer");
    await generateForm.getByLabel("Custom Text").press("Tab");
    await add("LogAttribute");
    await add("PersistentMapStateStorage");

    // Live problems: nothing connected yet, and the state store's required File is missing.
    const problems = page
      .getByRole("status")
      .filter({ has: page.getByRole("heading", { name: /Problems/ }) });
    await problems.getByText("PersistentMapStateStorage: File is required").waitFor();
    await problems
      .getByText("GenerateFlowFile: relationship success is neither connected nor terminated")
      .waitFor();
    await page.getByRole("button", { name: "Save as a new version" }).click();
    await page
      .getByRole("alert")
      .getByText(/Fix the \d+ problems above first/)
      .waitFor();

    const storeForm = page.getByRole("region", { name: /^PersistentMapStateStorage/ });
    await storeForm.getByLabel("File (required)").fill("/var/lib/minifi/state");
    await storeForm.getByLabel("File (required)").press("Tab");
    await problems.getByText("PersistentMapStateStorage: File is required").waitFor({ state: "detached" });

    // Keyboard: the canvas's nodes take focus, and Enter selects one, opening its form.
    const generateNode = page.getByRole("group", { name: /^Processor GenerateFlowFile/ });
    await generateNode.focus();
    await page.keyboard.press("Enter");
    const connectForm = page.getByRole("form", { name: "Connect GenerateFlowFile" });
    await connectForm.getByLabel("success").check();
    await connectForm.getByLabel("To").selectOption({ label: "LogAttribute" });
    await connectForm.getByRole("button", { name: "Connect" }).click();
    await page.getByRole("group", { name: /^Processor LogAttribute/ }).focus();
    await page.keyboard.press("Enter");
    await page
      .getByRole("region", { name: /^LogAttribute/ })
      .getByLabel("Terminate success")
      .check();
    await page.getByRole("heading", { name: "No problems found" }).waitFor();
    await capture(page, "designer");

    await page.getByRole("button", { name: "Save as a new version" }).click();
    const saved = page.getByRole("status").filter({ hasText: "Saved version" });
    await saved.getByText("Beacon's validation: all 2 agents of the class can run it.").waitFor();
    const { body: versions } = await api<{
      items: { hash: string; format: string; processorTypes: string[] }[];
    }>(`/classes/${AGENT_CLASS}/flows`);
    expect(versions.items).toHaveLength(1);
    expect(versions.items[0]?.format).toBe("minifi-yaml");
    expect(versions.items[0]?.processorTypes).toEqual([
      "org.apache.nifi.minifi.processors.GenerateFlowFile",
      "org.apache.nifi.minifi.processors.LogAttribute",
    ]);

    const hash = versions.items[0]?.hash ?? "";

    // Rolled out from the designer: the rollouts page's form, the saved version already chosen.
    await saved.getByRole("link", { name: "Roll it out" }).click();
    await page.getByRole("heading", { name: "Rollouts", level: 1 }).waitFor();
    expect(await page.getByLabel("Class", { exact: true }).inputValue()).toBe(AGENT_CLASS);
    await page.locator(`select[name=flowHash] option[value="${hash}"]`).waitFor({ state: "attached" });
    expect(await page.getByLabel("Flow version").inputValue()).toBe(hash);
    await page.getByLabel("Canary", { exact: true }).fill("1");
    await page.getByLabel("Canary unit").selectOption("count");
    await page.getByLabel("Batch size (agents)").fill("2");
    await page.getByLabel("Between batches (s)").fill("0");
    await page.getByLabel("Soak (s)").fill("2");
    await page.getByRole("button", { name: "Start rollout" }).click();
    await page.getByRole("heading", { name: /^Rollout /, level: 1 }).waitFor();
    await page.locator(".verdict").getByText("completed", { exact: true }).waitFor({ timeout: 120_000 });

    // The agents report the designed flow: the agent list shows both on its version.
    await page.goto(`${webUrl}/agents?class=${AGENT_CLASS}`);
    const agentRows = page.getByRole("region", { name: "Agents", exact: true }).getByRole("row");
    await agentRows
      .filter({ hasText: hash.slice(0, 12) })
      .nth(1)
      .waitFor();
    const { body: reported } = await api<{ items: { flowId?: string }[] }>(`/agents?class=${AGENT_CLASS}`);
    expect(reported.items.map((agent) => agent.flowId)).toEqual([hash, hash]);
    await capture(page, "designer-rolled-out");

    // The new version on the class page, and opened from there again, as it was saved.
    await page.goto(`${webUrl}/classes/${AGENT_CLASS}?flow=${hash}`);
    await page.getByRole("heading", { name: AGENT_CLASS, level: 1 }).waitFor();
    await page
      .getByRole("region", { name: "Flow versions" })
      .getByRole("link", { name: new RegExp(hash.slice(0, 12)) })
      .waitFor();
    await page.getByRole("link", { name: /in the designer$/ }).click();
    await page.getByRole("group", { name: /^Processor LogAttribute/ }).waitFor();
    await page.getByRole("heading", { name: "No problems found" }).waitFor();
    await context.close();
  }, 240_000);

  it("adds a dynamic property where the manifest allows one, and undoes its removal", async () => {
    const { page, context } = await newPage();
    await page.goto(`${webUrl}/classes/${AGENT_CLASS}/designer`);
    await signIn(page, "operator", `Designer: ${AGENT_CLASS}`);
    const palette = page.getByRole("form", { name: "Add a component" });
    await palette.getByLabel("Filter").fill("RetryFlowFile");
    await palette.getByLabel("Component").selectOption({ label: "RetryFlowFile — 2 of 2 agents" });
    await palette.getByRole("button", { name: "Add" }).click();
    const form = page.getByRole("form", { name: "Add a property to RetryFlowFile" });
    await form.getByRole("button", { name: "Add property" }).click();
    await form.getByRole("alert").getByText("Give the property a name.").waitFor();
    await form.getByLabel("Property name").fill("Maximum Retries");
    await form.getByRole("button", { name: "Add property" }).click();
    await form
      .getByRole("alert")
      .getByText("Maximum Retries is a property of RetryFlowFile already.")
      .waitFor();
    await form.getByLabel("Property name").fill("retry.reason");
    await form.getByLabel("Property value").fill("upstream timeout");
    await form.getByRole("button", { name: "Add property" }).click();
    const component = page.getByRole("region", { name: /^RetryFlowFile/ });
    expect(await component.getByLabel("retry.reason", { exact: true }).inputValue()).toBe("upstream timeout");
    await capture(page, "designer-dynamic-property");

    await component.getByRole("button", { name: "Remove retry.reason" }).click();
    await component.getByLabel("retry.reason", { exact: true }).waitFor({ state: "detached" });
    // Undo from the keyboard, outside a text field: the property is back; redo from the toolbar removes it.
    await page.getByRole("button", { name: "Undo" }).focus();
    await page.keyboard.press("Control+z");
    await component.getByLabel("retry.reason", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Redo" }).click();
    await component.getByLabel("retry.reason", { exact: true }).waitFor({ state: "detached" });
    await context.close();
  }, 120_000);

  it("saves where the operator moved a component, after undo, unchecked when no manifest is known", async () => {
    const javaClass = "designed-java";
    const published = await api<{ hash: string }>(`/classes/${javaClass}/flows`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: flowJson(javaClass, "org.apache.nifi.processors.standard.LogAttribute", "log"),
    });
    expect(published.status).toBe(201);
    const { page, context } = await newPage();
    await page.goto(`${webUrl}/classes/${javaClass}/designer?version=${published.body.hash}`);
    await signIn(page, "operator", `Designer: ${javaClass}`);
    await page.getByText(/in the nifi-json format · 0 agents, 0 binaries/).waitFor();

    // Moved from the keyboard: laid out at (16, 16), two steps right and one down, the step down undone.
    const node = page.getByRole("group", { name: /^Processor log/ });
    await node.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("region", { name: /^log/ }).waitFor();
    await node.focus();
    // Each key press moves it from where it is drawn: the next waits until it is drawn there.
    const drawnAt = (x: number, y: number) =>
      expect
        .poll(() =>
          node.evaluate(
            (element) => (element as unknown as { style: { transform: string } }).style.transform,
          ),
        )
        .toBe(`translate(${x}px, ${y}px)`);
    await drawnAt(16, 16);
    for (const [key, x, y] of [
      ["ArrowRight", 21, 16],
      ["ArrowRight", 26, 16],
      ["ArrowDown", 26, 21],
      ["Control+z", 26, 16],
    ] as const) {
      await page.keyboard.press(key);
      await drawnAt(x, y);
    }

    await page.getByRole("button", { name: "Save as a new version" }).click();
    await page.getByRole("alert").getByText("Confirm that you save it unchecked first.").waitFor();
    await page.getByLabel(/^Save anyway: Beacon knows the manifest of none/).check();
    await capture(page, "designer-unchecked");
    await page.getByRole("button", { name: "Save as a new version" }).click();
    const saved = page.getByRole("status").filter({ hasText: "Saved version" });
    await saved.getByText("The class has no agent to check it against yet.").waitFor();

    const { body: versions } = await api<{ items: { hash: string }[] }>(`/classes/${javaClass}/flows`);
    const hash = versions.items.find((version) => version.hash !== published.body.hash)?.hash ?? "";
    const { body: document } = await api<{ rootGroup: { processors: { position?: unknown }[] } }>(
      `/classes/${javaClass}/flows/${hash}/content`,
    );
    expect(document.rootGroup.processors[0]?.position).toEqual({ x: 26, y: 16 });
    await context.close();
  }, 120_000);

  it("opens a nested group from the keyboard, builds inside it with ports, connects it and saves it", async () => {
    const { page, context } = await newPage();
    // The class's target: the flow the first case designed and rolled out.
    await page.goto(`${webUrl}/classes/${AGENT_CLASS}/designer`);
    await signIn(page, "operator", `Designer: ${AGENT_CLASS}`);
    await page.getByRole("group", { name: /^Processor LogAttribute/ }).waitFor();
    const palette = page.getByRole("form", { name: "Add a component" });
    const addOther = async (label: string) => {
      await palette.getByLabel("Component").selectOption({ label });
      await palette.getByRole("button", { name: "Add" }).click();
    };
    // The canvas is drawn anew when a component comes or goes: a node focused just before it is gone with its
    // focus, and Space then selects nothing. Selecting again until the node shows selected rides that out.
    const select = async (name: RegExp) => {
      const node = page.getByRole("group", { name });
      const selected = node.and(page.locator(".selected"));
      for (let attempt = 1; ; attempt++) {
        await node.focus();
        await page.keyboard.press(" ");
        try {
          return await selected.waitFor({ timeout: 5_000 });
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    };
    // Ports belong inside a group: the root's palette offers none.
    expect(await palette.getByRole("option", { name: "Input port" }).count()).toBe(0);
    await addOther("Process group");
    const groupForm = page.getByRole("region", { name: "Process group" });
    await groupForm.getByLabel("Name").fill("ingest");
    await page.getByRole("region", { name: "ingest" }).waitFor();

    // Enter on the group's node opens it; the trail says where the canvas is.
    await page.getByRole("group", { name: /^Process group ingest/ }).focus();
    await page.keyboard.press("Enter");
    const trail = page.getByRole("navigation", { name: "Process groups" });
    await trail.getByText("ingest").and(page.locator("[aria-current=location]")).waitFor();
    await page.getByRole("group", { name: /^Processor LogAttribute/ }).waitFor({ state: "detached" });
    await addOther("Input port");
    await palette.getByLabel("Filter").fill("PutFile");
    await palette.getByLabel("Component").selectOption({ label: "PutFile — 2 of 2 agents" });
    await palette.getByRole("button", { name: "Add" }).click();
    await addOther("Output port");

    await select(/^Input port Input port/);
    const fromPort = page.getByRole("form", { name: "Connect Input port" });
    await fromPort.getByLabel("To").selectOption({ label: "PutFile" });
    await fromPort.getByRole("button", { name: "Connect" }).click();
    await select(/^Processor PutFile/);
    const putFile = page.getByRole("region", { name: /^PutFile/ });
    await putFile.getByLabel("Terminate failure").check();
    const fromPut = page.getByRole("form", { name: "Connect PutFile" });
    // A new connection offers the relationships still loose: only success goes on here.
    await fromPut.getByLabel("success").check();
    await fromPut.getByLabel("failure").uncheck();
    await fromPut.getByLabel("To").selectOption({ label: "Output port" });
    await fromPut.getByRole("button", { name: "Connect" }).click();
    await fromPut.getByText("success → Output port").waitFor();
    await capture(page, "designer-nested-group");

    // Back out by the trail, from the keyboard, and connect the group's ports in the root.
    await trail.getByRole("button", { name: AGENT_CLASS }).focus();
    await page.keyboard.press("Enter");
    await select(/^Processor GenerateFlowFile/);
    const fromGenerate = page.getByRole("form", { name: "Connect GenerateFlowFile" });
    await fromGenerate.getByLabel("success").check();
    await fromGenerate.getByLabel("To").selectOption({ label: "ingest › Input port" });
    await fromGenerate.getByRole("button", { name: "Connect" }).click();
    await fromGenerate.getByText("success → ingest").waitFor();
    // Its output port goes nowhere yet: the group's node counts the problem inside it.
    const groupNode = page.getByRole("group", { name: /^Process group ingest/ });
    await groupNode.getByText("1 problem", { exact: true }).waitFor();
    await select(/^Process group ingest/);
    const fromGroup = page.getByRole("form", { name: "Connect ingest" });
    expect(await fromGroup.getByLabel("From").inputValue()).not.toBe("");
    await fromGroup.getByLabel("To").selectOption({ label: "LogAttribute" });
    await fromGroup.getByRole("button", { name: "Connect" }).click();
    await fromGroup.getByText("out → LogAttribute").waitFor();
    await page.getByRole("heading", { name: "No problems found" }).waitFor();
    // The canvas takes its nodes' new data a render after the list of problems: the count goes then.
    await groupNode.getByText(/problem/).waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Save as a new version" }).click();
    const saved = page.getByRole("status").filter({ hasText: "Saved version" });
    await saved.getByText("Beacon's validation: all 2 agents of the class can run it.").waitFor();
    const { body: versions } = await api<{ items: { hash: string; processorTypes: string[] }[] }>(
      `/classes/${AGENT_CLASS}/flows`,
    );
    const version = versions.items.find((item) =>
      item.processorTypes.includes("org.apache.nifi.minifi.processors.PutFile"),
    );
    const content = await fetch(`${webUrl}/api/v1/classes/${AGENT_CLASS}/flows/${version?.hash}/content`, {
      headers: { authorization: `Bearer ${await localToken("operator")}` },
    });
    const flow = parseDesignerFlow(await content.text());
    const [, nested] = groupsOf(flow);
    expect(nested?.trail).toEqual(["ingest"]);
    const inside = graphOf(flow, nested?.path);
    expect(inside.nodes.map((node) => node.kind).sort()).toEqual(["inputPort", "outputPort", "processor"]);
    expect(inside.edges.map((edge) => edge.relationships)).toEqual([[], ["success"]]);
    const group = graphOf(flow).nodes.find((node) => node.name === "ingest");
    const root = graphOf(flow).edges.filter((edge) => edge.source === group?.id || edge.target === group?.id);
    expect(root).toHaveLength(2);
    // Where the components were put is saved in the C++ flow too.
    expect(group?.position).toBeDefined();
    expect(inside.nodes.every((node) => node.position !== undefined)).toBe(true);
    await context.close();
  }, 180_000);

  it("ran every page without an uncaught error or a Content-Security-Policy refusal", () => {
    expect(pageProblems).toEqual([]);
  });
});
