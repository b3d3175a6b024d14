import ackEventSchema from "../../schemas/events/ack-event.schema.json" with { type: "json" };
import agentDecommissionedEventSchema from "../../schemas/events/agent-decommissioned-event.schema.json" with {
  type: "json",
};
import agentOfflineEventSchema from "../../schemas/events/agent-offline-event.schema.json" with {
  type: "json",
};
import agentOnlineEventSchema from "../../schemas/events/agent-online-event.schema.json" with {
  type: "json",
};
import certificateExpiringEventSchema from "../../schemas/events/certificate-expiring-event.schema.json" with {
  type: "json",
};
import downloadEventSchema from "../../schemas/events/download-event.schema.json" with { type: "json" };
import heartbeatEventSchema from "../../schemas/events/heartbeat-event.schema.json" with { type: "json" };
import operationEventSchema from "../../schemas/events/operation-event.schema.json" with { type: "json" };
import rolloutEventSchema from "../../schemas/events/rollout-event.schema.json" with { type: "json" };
import uploadEventSchema from "../../schemas/events/upload-event.schema.json" with { type: "json" };
import webhookDisabledEventSchema from "../../schemas/events/webhook-disabled-event.schema.json" with {
  type: "json",
};

/** The part of JSON Schema the event schemas use. */
interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  $defs?: Record<string, JsonSchema>;
}

export const eventSchemas = [
  ackEventSchema,
  agentDecommissionedEventSchema,
  agentOfflineEventSchema,
  agentOnlineEventSchema,
  certificateExpiringEventSchema,
  downloadEventSchema,
  heartbeatEventSchema,
  operationEventSchema,
  rolloutEventSchema,
  uploadEventSchema,
  webhookDisabledEventSchema,
] as JsonSchema[];

export interface GlueColumn {
  name: string;
  type: string;
}

/**
 * The archive table's columns: every property of every event schema, typed for Athena's JSON SerDe, so that the
 * table cannot fall behind the events. Properties that several events share must have one type in all of them.
 * `except` leaves out the partition columns (the tenant is one, taken from the object's key).
 */
export function eventColumns(except: readonly string[]): GlueColumn[] {
  const columns = new Map<string, string>();
  for (const schema of eventSchemas) {
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (except.includes(name)) continue;
      const type = hiveTypeOf(property, schema);
      const known = columns.get(name);
      if (known !== undefined && known !== type)
        throw new Error(`event property ${name} is ${known} in one schema and ${type} in another`);
      columns.set(name, type);
    }
  }
  return [...columns].map(([name, type]) => ({ name: name.toLowerCase(), type }));
}

/** Hive's type for a JSON Schema; `root` holds the `$defs` a `$ref` names. */
function hiveTypeOf(schema: JsonSchema, root: JsonSchema): string {
  if (schema.$ref !== undefined) {
    const target = root.$defs?.[schema.$ref.replace("#/$defs/", "")];
    if (target === undefined) throw new Error(`unresolved ${schema.$ref}`);
    return hiveTypeOf(target, root);
  }
  if (typeof schema.const === "number") return "int";
  if (typeof schema.const === "string" || schema.enum !== undefined) return "string";
  // A nullable value has the type of its value.
  const type = [schema.type ?? "string"].flat().find((candidate) => candidate !== "null");
  switch (type) {
    case "string":
      return "string";
    case "integer":
      return "bigint";
    case "number":
      return "double";
    case "boolean":
      return "boolean";
    case "array":
      return `array<${hiveTypeOf(schema.items ?? {}, root)}>`;
    case "object": {
      if (schema.properties !== undefined) {
        const fields = Object.entries(schema.properties).map(
          ([name, field]) => `${name.toLowerCase()}:${hiveTypeOf(field, root)}`,
        );
        return `struct<${fields.join(",")}>`;
      }
      if (typeof schema.additionalProperties === "object")
        return `map<string,${hiveTypeOf(schema.additionalProperties, root)}>`;
      throw new Error("an object of unknown fields has no Hive type");
    }
    default:
      throw new Error(`no Hive type for JSON type ${String(type)}`);
  }
}
