import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../functions/core/c2/json.js";

/**
 * The real C2 payloads of schemas/c2/examples (see its README), and the C++ agent's heartbeat and
 * acknowledgement built from them: what the simulated agents of `npm run agents` send, and the tests too.
 */
const examplesDir = fileURLToPath(new URL("../schemas/c2/examples/", import.meta.url));

export const exampleText = (name: string): string => readFileSync(`${examplesDir}${name}`, "utf8");
export const example = (name: string): JsonObject => JSON.parse(exampleText(name)) as JsonObject;

/** The C++ agent's example heartbeat as agent `agentId` of `agentClass`: full (with its manifest) or light. */
export function cppHeartbeatOf(agentId: string, agentClass: string, full = false): JsonObject {
  const heartbeat = full
    ? (JSON.parse(
        exampleText("cpp/heartbeat-full.json").replace("9628acfe-b9fe-11ef-a0c0-10f60a596f64", agentId),
      ) as JsonObject)
    : example("cpp/heartbeat-light.json");
  const agentInfo = heartbeat.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  agentInfo.agentClass = agentClass;
  return heartbeat;
}

/** The C++ agent's acknowledgement of an operation, in its own shape (`operation` and `identifier` included). */
export function cppAckOf(
  agentId: string,
  operationId: string,
  state: string,
  details: { details?: string; failureCause?: string } = {},
): JsonObject {
  return {
    operation: "acknowledge",
    identifier: randomUUID(),
    operationId,
    operationState: { state, ...details },
    agentInfo: { identifier: agentId },
  };
}
