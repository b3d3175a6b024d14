import { isValidIdentifier } from "../identity/credentials.js";
import type { IdGenerator } from "../ports.js";

/**
 * Every operation id Beacon hands an agent ends with `~<agent id>`, `~` being a character agent ids never
 * contain. Agents echo the id unchanged in their acknowledgement, which usually names no agent (only
 * DESCRIBE MANIFEST's does), and a fleet certificate speaks for many agents: the id alone leads to the
 * operation, in its agent's partition, with one consistent read and no index.
 */
const AGENT_SEPARATOR = "~";

/**
 * The ids of operations: what an agent id may hold, `~`, and up to 256 characters (the acknowledgement
 * schema's bound), so that they are safe in keys and URL paths.
 */
const OPERATION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@~-]{0,255}$/;

export const isValidOperationId = (value: string): boolean => OPERATION_ID_PATTERN.test(value);

/** An operation id of `agentId`: its own part, which tells the kind of operation, then the agent's id. */
export const operationIdOf = (ownPart: string, agentId: string): string =>
  `${ownPart}${AGENT_SEPARATOR}${agentId}`;

/** The agent an operation id names, or undefined for an id Beacon did not make. */
export function agentOfOperation(operationId: string): string | undefined {
  const separator = operationId.lastIndexOf(AGENT_SEPARATOR);
  if (separator < 0) return undefined;
  const agentId = operationId.slice(separator + 1);
  return isValidIdentifier(agentId) ? agentId : undefined;
}

/** Operation ids sort by creation time, so lists run newest first and an agent's queue in order. */
export const newOperationId = (now: number, ids: IdGenerator, agentId: string): string =>
  operationIdOf(`op-${String(now).padStart(13, "0")}-${ids.newId()}`, agentId);
