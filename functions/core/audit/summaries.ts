/** What an audited request carried, as the console parsed it, and what its use case answered when it succeeded. */
export interface AuditedExchange {
  query: Record<string, unknown>;
  body?: unknown;
  /** The success answer's body; absent when the request was refused or failed. */
  answer?: unknown;
}

type Summarize = (exchange: AuditedExchange) => Record<string, unknown>;

/** The fields named, of an object, that are there. */
function pick(value: unknown, names: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null) return {};
  const source = value as Record<string, unknown>;
  return Object.fromEntries(
    names.filter((name) => source[name] !== undefined).map((name) => [name, source[name]]),
  );
}

/** A parameter's value: which kind was set, and the reference when it is one; never the text. */
const parameterValueSummary: Summarize = ({ body }) => {
  const { secretRef, value } = (body ?? {}) as { secretRef?: unknown; value?: unknown };
  if (typeof secretRef === "string") return { kind: "secretRef", secretRef };
  return typeof value === "string" ? { kind: "value" } : {};
};

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The scheme, host and port of a URL, without its path, query or credentials. */
function originOf(url: unknown): Record<string, unknown> {
  if (typeof url !== "string" || !URL.canParse(url)) return {};
  return { origin: new URL(url).origin };
}

/**
 * The one allow-list of what an audit record keeps of a request and its answer, by operationId: settings and
 * names an operator reviews, and the ids of what was created. Nothing else is kept of any body, so an operation
 * added to the document is audited without a summary until it is given one here. Never listed: flow or asset
 * content, certificate signing requests and private keys, tokens, secrets (a subscription's signing secret, its
 * URL's path and query), an operation's arguments (UPDATE PROPERTIES carries the agent's property values),
 * a parameter's value (only the reference of one that names a secret).
 */
export const AUDIT_SUMMARIES: Readonly<Record<string, Summarize>> = {
  putClass: ({ body }) =>
    pick(body, [
      "description",
      "heartbeatIntervalSeconds",
      "ackTimeoutSeconds",
      "cleanUpAfterDays",
      "valueChanges",
      "labelSources",
      "requireApproval",
    ]),
  putSettings: ({ body }) => pick(body, ["cleanUpAfterDays"]),
  createGroup: ({ body }) => pick(body, ["name", "description", "query", "parameterPriority"]),
  putGroup: ({ body }) => pick(body, ["description", "query", "parameterPriority"]),
  uploadFlow: ({ answer }) => pick(answer, ["hash", "format", "sizeBytes", "version", "label"]),
  labelFlow: ({ body, answer }) => ({ ...pick(answer, ["hash", "version"]), ...pick(body, ["label"]) }),
  uploadAsset: ({ query, answer }) => ({
    ...pick(query, ["name"]),
    ...pick(answer, ["assetId", "sizeBytes"]),
  }),
  putResourceSet: ({ body, answer }) => ({
    assetIds: listOf((body as { items?: unknown })?.items).map(
      (item) => (item as { assetId?: unknown }).assetId,
    ),
    ...pick(answer, ["digest"]),
  }),
  issueCertificate: ({ body, answer }) => ({
    ...pick(body, ["kind", "agentId", "fleetName", "validityDays"]),
    key: (body as { csrPem?: unknown })?.csrPem === undefined ? "generated" : "from-csr",
    ...pick(answer, ["serial"]),
  }),
  createOperation: ({ body, answer }) => ({
    ...pick(body, ["operation", "operand", "agentId", "selector"]),
    ...(answer === undefined ? {} : { created: listOf((answer as { items?: unknown }).items).length }),
  }),
  // A subscription's URL may itself be a credential (a token in its path or query): only its origin is kept.
  createSubscription: ({ body, answer }) => ({
    ...originOf((body as { url?: unknown })?.url),
    ...pick(body, ["eventTypes", "agentClass"]),
    ...pick(answer, ["subscriptionId"]),
  }),
  testSubscription: ({ answer }) => pick(answer, ["delivered", "status", "error"]),
  adoptFlow: ({ body, answer }) => ({
    ...pick(body, ["flowId"]),
    ...pick(answer, ["adoptionId", "agentId"]),
  }),
  labelAgent: ({ body }) => pick(body, ["set", "remove"]),
  labelAgents: ({ body, answer }) => ({
    ...pick(body, ["selector", "set", "remove"]),
    ...pick(answer, ["matched", "changed", "refused"]),
  }),
  putClassParameter: (exchange) => ({
    ...parameterValueSummary(exchange),
    ...pick(exchange.answer, ["staged"]),
  }),
  putGroupParameter: parameterValueSummary,
  putAgentParameter: parameterValueSummary,
  startRollout: ({ body, answer }) => ({
    ...pick(body, ["className", "flowHash", "stagedValues", "startAt"]),
    ...pick(answer, ["rolloutId", "fromFlow", "toFlow", "plan", "state"]),
  }),
  approveRollout: ({ answer }) => pick(answer, ["state", "approvedBy"]),
  refuseRollout: ({ body, answer }) => ({ ...pick(body, ["reason"]), ...pick(answer, ["state"]) }),
};

/** The record's summary of the exchange, when its operation has an entry and it yields anything. */
export function summaryOf(
  operationId: string,
  exchange: AuditedExchange,
): Record<string, unknown> | undefined {
  const summarize = AUDIT_SUMMARIES[operationId];
  const summary = summarize?.(exchange);
  return summary && Object.keys(summary).length > 0 ? summary : undefined;
}
