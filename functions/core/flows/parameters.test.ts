import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { example } from "../../../scripts/common/c2-examples.js";
import {
  cppYamlParameterFlow,
  cppYamlParameterFlowDeclares,
  javaParameterFlow,
} from "../../../scripts/test-support/flow-fixtures.js";
import type { JsonObject } from "../json.js";
import { allowedProcessorValuesOf } from "../manifests/catalog.js";
import { parseFlow, readFlowDocument } from "./document.js";
import type { FlowFormat } from "./layout.js";
import { readFlowParameters, referencedParameters, resolveParameters, valueSlotsOf } from "./parameters.js";
import { renderFlow as renderSlots } from "./rendering.js";
import { flowDefaults, parameterValuesRefused } from "./validation.js";

const bytesOf = (text: string) => new TextEncoder().encode(text);
const textOf = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** Rendering as a download does, with the slots publishing found. */
const renderFlow = async (bytes: Uint8Array, format: FlowFormat, values: ReadonlyMap<string, string>) =>
  renderSlots(bytes, await valueSlotsOf(textOf(bytes), format), values);
const readParameters = async (text: string) => {
  const { document, format } = await parseFlow(bytesOf(text), 1024 * 1024);
  return readFlowParameters(document, format);
};
const javaText = JSON.stringify(javaParameterFlow, null, 2);

/** The C++ agent's JSON configuration layout, a nested group without a context of its own. */
const cppJsonFlow = {
  "Flow Controller": { name: "valves" },
  "Parameter Contexts": [
    {
      id: "c1",
      name: "valves",
      Parameters: [{ name: "level", description: "Log level", sensitive: false, value: "info" }],
    },
  ],
  "Parameter Context Name": "valves",
  Processors: [
    {
      name: "log",
      class: "LogAttribute",
      Properties: { "Log Level": "#{level}", "Log Prefix": ["#{level}", { value: "at #{level}" }] },
    },
  ],
  "Process Groups": [
    {
      name: "inner",
      Processors: [{ name: "log again", class: "LogAttribute", Properties: { X: "#{level}" } }],
    },
  ],
};

describe("parameter references in a property", () => {
  it.each([
    ["#{a}", ["a"], "A"],
    ["x-#{a}-#{b c}", ["a", "b c"], "x-A-B"],
    ["##{a}", [], "#{a}"],
    ["###{a}", ["a"], "#A"],
    ["####{a}", [], "##{a}"],
    ["#####{a}", ["a"], "##A"],
    ["#{a", [], "#{a"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Expression Language's ${…}, not a template
    ["# {a} ${a} {a}", [], "# {a} ${a} {a}"],
  ])("%s references %j and runs as %s", (value, names, resolved) => {
    expect(referencedParameters(value)).toEqual(names);
    expect(resolveParameters(value, (name) => ({ a: "A", "b c": "B" })[name])).toBe(resolved);
  });

  it("cannot run a property whose parameter has no value", () => {
    expect(resolveParameters("#{a}/#{secret}", (name) => (name === "a" ? "A" : undefined))).toBeUndefined();
  });
});

describe("reading a flow's parameters", () => {
  it("reads a Java flow.json's declarations and where each group's context, with what it inherits, covers", async () => {
    const reading = await readParameters(javaText);
    expect(reading.declared).toEqual([
      { name: "compression", sensitive: false, default: "gzip" },
      { name: "kafka.brokers", sensitive: false, default: "localhost:9092" },
      { name: "kafka.password", sensitive: true },
      { name: "s3.prefix", sensitive: false, default: "pumps/" },
      { name: "site.id", sensitive: false, description: "The site's id", default: "site-0" },
    ]);
    expect(
      reading.references.map(({ parameter, componentName, property }) => [
        parameter,
        componentName,
        property,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ["kafka.brokers", "publish", "Kafka Brokers"],
        ["site.id", "publish", "Client Id"],
        ["kafka.password", "credentials", "Password"],
        ["s3.prefix", "put", "Object Key"],
      ]),
    );
    expect(reading.references).toHaveLength(4);
    expect(reading.undeclared).toEqual([]);
  });

  it("finds a reference undeclared where its group reaches no context that declares it", async () => {
    const flow = structuredClone(javaParameterFlow) as typeof javaParameterFlow & JsonObject;
    // The nested group's context neither declares nor inherits the root's parameters.
    const inner = flow.rootGroup.processGroups[0] as { processors: { properties: JsonObject }[] };
    Object.assign(inner.processors[0]?.properties ?? {}, { Bucket: "#{site.id}" });
    // Services at the controller level reach no context at all.
    flow.controllerServices = [
      { identifier: "ssl", name: "ssl", type: "SSLContextService", properties: { Keystore: "#{s3.prefix}" } },
    ] as never;
    const { undeclared } = await readParameters(JSON.stringify(flow));
    expect(
      undeclared.map(({ parameter, component, componentName, property }) => [
        parameter,
        component,
        componentName,
        property,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ["site.id", "processor", "put", "Bucket"],
        ["s3.prefix", "controller service", "ssl", "Keystore"],
      ]),
    );
    expect(undeclared).toHaveLength(2);
  });

  it("reads the C++ YAML configuration's contexts, values written bare and a reference beside an escape", async () => {
    const reading = await readParameters(cppYamlParameterFlow);
    expect(reading.declared).toEqual(cppYamlParameterFlowDeclares);
    expect(reading.references.map(({ parameter, property }) => [parameter, property])).toEqual([
      ["tail_base_dir", "File to Tail"],
      ["mode", "Mode"],
      ["site id", "Attribute"],
    ]);
    expect(reading.undeclared).toEqual([]);
  });

  it("reads the C++ JSON configuration: several values of a property, a nested group with no context", async () => {
    const reading = await readParameters(JSON.stringify(cppJsonFlow));
    expect(reading.references.map(({ property }) => property)).toEqual([
      "Log Level",
      "Log Prefix",
      "Log Prefix",
      "X",
    ]);
    expect(reading.undeclared.map(({ componentName }) => componentName)).toEqual(["log again"]);
  });
});

describe("publishing a flow with parameters", () => {
  it("keeps what the flow declares with the version", async () => {
    expect((await readFlowDocument(bytesOf(cppYamlParameterFlow), 1024 * 1024)).parameters).toHaveLength(4);
    expect(
      (await readFlowDocument(bytesOf(javaText), 1024 * 1024)).parameters?.map(({ name }) => name),
    ).toEqual(["compression", "kafka.brokers", "kafka.password", "s3.prefix", "site.id"]);
  });

  it("refuses a flow that references a parameter nobody declares, naming each and where", async () => {
    await expect(readFlowDocument(bytesOf(JSON.stringify(cppJsonFlow)), 1024 * 1024)).rejects.toThrow(
      expect.objectContaining({
        code: "invalid_request",
        message:
          'The flow references parameters that no parameter context of their process group declares: #{level} in processor "log again" property "X"',
        details: {
          undeclaredParameters: [
            { parameter: "level", component: "processor", componentName: "log again", property: "X" },
          ],
          undeclaredCount: 1,
        },
      }),
    );
  });
});

describe("rendering a flow with values", () => {
  const values = new Map([
    ["site.id", "site-42"],
    ["kafka.password", "the secret"],
    ["compression", 'quoted "x"\nand a line'],
    ["not.declared", "ignored"],
  ]);

  it("puts each value into every context that declares it and keeps every other byte of the JSON", async () => {
    const twice = structuredClone(javaParameterFlow);
    twice.parameterContexts[2]?.parameters.push({
      name: "site.id",
      sensitive: false,
      provided: false,
      value: "archive-site",
    });
    const source = JSON.stringify(twice, null, 2);
    const rendered = textOf(await renderFlow(bytesOf(source), "nifi-json", values));
    const expected = structuredClone(twice);
    for (const context of expected.parameterContexts) {
      for (const parameter of context.parameters) {
        parameter.value = values.get(parameter.name) ?? parameter.value;
      }
    }
    expect(rendered).toBe(JSON.stringify(expected, null, 2));
    // The same document and values render the same bytes: the hash can be the agent's flow id.
    const again = await renderFlow(bytesOf(source), "nifi-json", values);
    expect(createHash("sha256").update(again).digest("hex")).toBe(
      createHash("sha256").update(rendered).digest("hex"),
    );
  });

  it("gives a parameter declared without a value one, in a JSON object of its own style", async () => {
    const flow = structuredClone(cppJsonFlow) as JsonObject;
    (flow["Parameter Contexts"] as { Parameters: JsonObject[] }[])[0]?.Parameters.push({
      name: "password",
      sensitive: true,
    });
    const rendered = await renderFlow(
      bytesOf(JSON.stringify(flow)),
      "minifi-json",
      new Map([["password", "p"]]),
    );
    expect(JSON.parse(textOf(rendered))["Parameter Contexts"][0].Parameters[1]).toEqual({
      name: "password",
      sensitive: true,
      value: "p",
    });
  });

  it("keeps the C++ YAML valid, its comments and layout, with each value a string the agent reads", async () => {
    const yamlValues = new Map([
      ["mode", "decompress"],
      ["banner", "one: line"],
      ["site id", "#{not a reference}\u2028"],
      ["tail_base_dir", "/var/log"],
    ]);
    const withoutValue = cppYamlParameterFlow.replace("        value: /tmp/tail\n", "");
    const rendered = textOf(await renderFlow(bytesOf(withoutValue), "minifi-yaml", yamlValues));
    const parameters = parseYaml(rendered)["Parameter Contexts"][0].Parameters as JsonObject[];
    expect(Object.fromEntries(parameters.map(({ name, value }) => [name, value]))).toEqual(
      Object.fromEntries(yamlValues),
    );
    expect(rendered).toContain('value: "decompress"   # the site\'s own\n');
    expect(rendered.split("Processors:")[1]).toBe(withoutValue.split("Processors:")[1]);
    expect((await readFlowDocument(bytesOf(rendered), 1024 * 1024)).format).toBe("minifi-yaml");
  });

  it("leaves a flow whose parameters get no values as it was", async () => {
    expect(textOf(await renderFlow(bytesOf(cppYamlParameterFlow), "minifi-yaml", new Map()))).toBe(
      cppYamlParameterFlow,
    );
  });
});

describe("values a binary refuses", async () => {
  const cppManifest = (example("cpp/heartbeat-full.json").agentInfo as JsonObject)
    .agentManifest as JsonObject;
  const allowed = allowedProcessorValuesOf(cppManifest);
  const { references, declared } = await readParameters(cppYamlParameterFlow);

  it("passes the flow's own values its processors allow, named by short class as C++ flows may", () => {
    expect(allowed.get("org.apache.nifi.minifi.processors.CompressContent")?.get("Mode")).toEqual([
      "compress",
      "decompress",
    ]);
    expect(parameterValuesRefused(references, allowed, flowDefaults(declared))).toEqual([]);
  });

  it("names each value a property's allowable values leave out, and passes over what has no value", () => {
    const values = new Map([["mode", "squash"]]);
    expect(parameterValuesRefused(references, allowed, (name) => values.get(name))).toEqual([
      {
        parameter: "mode",
        processorType: "CompressContent",
        property: "Mode",
        value: "squash",
        allowed: ["compress", "decompress"],
      },
    ]);
  });
});
