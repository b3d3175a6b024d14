import type { FlowParameter } from "../../functions/core/flows/parameters.js";
import type { FlowCatalog } from "../../functions/core/flows/ports.js";

/**
 * A MiNiFi C++ YAML flow configuration that names its processors by short class name, as C++ flows may,
 * with a service by `type` and a nested process group.
 */
export const cppYamlFlow = `MiNiFi Config Version: 3
Flow Controller:
  name: pumps
Processors:
  - name: generate
    id: 5128e3c8-015a-1000-79ca-83af40ec1991
    class: GenerateFlowFile
  - name: log
    id: 5128e3c8-015a-1000-79ca-83af40ec1992
    class: LogAttribute
Controller Services:
  - name: ssl
    id: 5128e3c8-015a-1000-79ca-83af40ec1993
    type: SSLContextService
Process Groups:
  - name: inner
    Processors:
      - name: put
        class: org.apache.nifi.minifi.processors.PutFile
Connections: []
`;

/**
 * A MiNiFi Java 2.x flow.json with parameter contexts: the root group's context inherits a common one, a
 * nested group names a context of its own, a property escapes a reference (`##{…}`) and one parameter is
 * sensitive (its value encrypted, as the agent keeps it).
 */
export const javaParameterFlow = {
  encodingVersion: { majorVersion: 2, minorVersion: 0 },
  maxTimerDrivenThreadCount: 1,
  parameterContexts: [
    {
      identifier: "7f1c9f5e-0f4b-3c6e-9d8e-2b6b1f0a1c01",
      name: "common",
      description: "What every site shares",
      parameters: [
        { name: "site.id", description: "The site's id", sensitive: false, provided: false, value: "site-0" },
        { name: "kafka.password", sensitive: true, provided: false, value: "enc{0a1b2c3d4e5f}" },
      ],
      inheritedParameterContexts: [],
    },
    {
      identifier: "7f1c9f5e-0f4b-3c6e-9d8e-2b6b1f0a1c02",
      name: "pumps",
      parameters: [
        { name: "kafka.brokers", sensitive: false, provided: false, value: "localhost:9092" },
        { name: "compression", sensitive: false, provided: false, value: "gzip" },
      ],
      inheritedParameterContexts: ["common"],
    },
    {
      identifier: "7f1c9f5e-0f4b-3c6e-9d8e-2b6b1f0a1c03",
      name: "archive",
      parameters: [{ name: "s3.prefix", sensitive: false, provided: false, value: "pumps/" }],
      inheritedParameterContexts: [],
    },
  ],
  controllerServices: [],
  rootGroup: {
    identifier: "root",
    name: "pumps",
    parameterContextName: "pumps",
    processors: [
      {
        identifier: "publish",
        name: "publish",
        type: "org.apache.nifi.processors.kafka.pubsub.PublishKafka",
        properties: {
          "Kafka Brokers": "#{kafka.brokers}",
          "Client Id": "pumps-#{site.id}",
          "Topic Name": "readings-##{not.a.parameter}",
        },
      },
    ],
    controllerServices: [
      {
        identifier: "creds",
        name: "credentials",
        type: "org.apache.nifi.kafka.service.Kafka3ConnectionService",
        properties: { Password: "#{kafka.password}" },
      },
    ],
    processGroups: [
      {
        identifier: "inner",
        name: "archive",
        parameterContextName: "archive",
        processors: [
          {
            identifier: "put",
            name: "put",
            type: "org.apache.nifi.processors.aws.s3.PutS3Object",
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the Expression Language's ${…}, not a template
            properties: { "Object Key": "#{s3.prefix}${filename}" },
          },
        ],
        controllerServices: [],
        processGroups: [],
      },
    ],
  },
};

/**
 * The parameter values of a flow.json laid out as javaParameterFlow (a rendered one, say), by context and name;
 * absent bytes are no flow, and throw.
 */
export function parameterValuesIn(
  flowJson: string | Uint8Array | undefined,
): Record<string, Record<string, unknown>> {
  const text = typeof flowJson === "string" ? flowJson : new TextDecoder().decode(flowJson);
  const flow = JSON.parse(text) as typeof javaParameterFlow;
  return Object.fromEntries(
    flow.parameterContexts.map((context) => [
      context.name,
      Object.fromEntries(context.parameters.map((parameter) => [parameter.name, parameter.value])),
    ]),
  );
}

/** A MiNiFi C++ YAML configuration with a parameter context its root group names, one value a block scalar. */
export const cppYamlParameterFlow = `MiNiFi Config Version: 3
Flow Controller:
  name: pumps
Parameter Contexts:
  - id: 804e6b47-ea22-45cd-a472-545801db98e6
    name: pumps
    description: What each site sets
    Parameters:
      - name: tail_base_dir
        description: 'Base dir of tailed files'
        sensitive: false
        value: /tmp/tail
      - name: mode
        sensitive: false
        value: compress   # the site's own
      - name: banner
        sensitive: false
        value: |
          two
          lines
      - {name: site id, sensitive: false, value: site-0}
Processors:
  - name: tail
    id: 83b58f9f-e661-4634-96fb-0e82b92becdf
    class: org.apache.nifi.minifi.processors.TailFile
    Properties:
      File to Tail: "#{tail_base_dir}/app.log"
  - name: compress
    id: 83b58f9f-e661-4634-96fb-0e82b92becd0
    class: CompressContent
    Properties:
      Mode: "#{mode}"
      Attribute: "##{mode} is #{site id}"
Parameter Context Name: pumps
`;

/** The parameters cppYamlParameterFlow declares, as a version keeps them. */
export const cppYamlParameterFlowDeclares = [
  { name: "banner", sensitive: false, default: "two\nlines\n" },
  { name: "mode", sensitive: false, default: "compress" },
  { name: "site id", sensitive: false, default: "site-0" },
  { name: "tail_base_dir", sensitive: false, description: "Base dir of tailed files", default: "/tmp/tail" },
];

/**
 * A stored flow version's record of class `pumps`, as the flow catalog's `add` takes it, declaring
 * `parameters`: what tests of values and renderings need of a version without reading a flow.
 */
export const pumpsVersionRecord = (
  hash: string,
  parameters: FlowParameter[] | undefined,
  createdAt = 0,
): Parameters<FlowCatalog["add"]>[1] => ({
  hash,
  className: "pumps",
  format: "nifi-json",
  contentType: "application/json",
  sizeBytes: 2,
  processorTypes: [],
  controllerServiceTypes: [],
  parameters,
  createdAt,
  createdBy: "alice",
});
