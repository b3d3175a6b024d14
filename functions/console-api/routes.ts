import type { LabelChange } from "../core/agents/labels.js";
import type { AgentClassChange } from "../core/agents/ports.js";
import type { ConsoleUseCases } from "../core/console/use-cases.js";
import type { OperationState, RolloutState } from "../core/events/model.js";
import { type AgentListRequest, type AgentSelector, filtersOfSelector } from "../core/fleet/agents.js";
import type { TenantSettingsChange } from "../core/fleet/ports.js";
import type { GroupDefinition } from "../core/groups/console-groups.js";
import type { IssueRequest } from "../core/identity/certificates.js";
import type { Principal } from "../core/identity/principal.js";
import type { JsonObject } from "../core/json.js";
import type { ResourceSetRequest } from "../core/operations/console-resource-sets.js";
import type { OperationRequest } from "../core/operations/drafts.js";
import type { ConsoleResult } from "../core/result.js";
import type { RolloutRequest } from "../core/rollouts/console-rollouts.js";
import type { SubscriptionRequest } from "../core/webhooks/subscriptions.js";
import { type ConsoleInput, consoleOperations, openApiDocument } from "../shared/console-openapi.js";

type GroupRequest = GroupDefinition & { name: string };

export type ConsoleRoute = (principal: Principal, input: ConsoleInput) => Promise<ConsoleResult>;

/** Parameters arrive validated against the document, so each is of the type it declares. */
const text = (value: unknown) => value as string | undefined;
const time = (value: unknown) => (value === undefined ? undefined : Date.parse(value as string));
const page = (query: Record<string, unknown>) => ({
  cursor: text(query.cursor),
  limit: query.limit as number | undefined,
});

function operationRequestOf(body: unknown): OperationRequest {
  const { selector, ...rest } = body as Omit<OperationRequest, "selector"> & {
    selector?: AgentSelector;
  };
  if (!selector) return rest as OperationRequest;
  return { ...rest, agentId: undefined, selector: filtersOfSelector(selector) } as OperationRequest;
}

type ParameterValues = Pick<ConsoleUseCases["parameters"]["classValues"], "get" | "put" | "remove">;

/**
 * The routes of one parameter value, at the layer whose holder the path parameter `holder` names; the use
 * cases are looked up when a request comes, as every route's are.
 */
function parameterValueRoutes(values: () => ParameterValues, holder: "className" | "groupName" | "agentId") {
  const route =
    (use: keyof ParameterValues): ConsoleRoute =>
    (principal, { path, body }) =>
      values()[use](principal, path[holder] as string, path.name as string, body);
  return { get: route("get"), put: route("put"), remove: route("remove") };
}

const scopeRules = new Map(consoleOperations.map((operation) => [operation.operationId, operation.scope]));

/**
 * One use case per operation of the OpenAPI document, by operationId, each held to the principal's classes
 * by the operation's `x-beacon-scope`.
 */
export function consoleRoutes(api: ConsoleUseCases): Record<string, ConsoleRoute> {
  return Object.fromEntries(
    Object.entries(useCasesOf(api)).map(([operationId, route]): [string, ConsoleRoute] => [
      operationId,
      (principal, input) => {
        const rule = scopeRules.get(operationId);
        if (!rule) throw new Error(`No operation ${operationId} in the console's document`);
        return api.scopes.within(principal, rule, input, () => route(principal, input));
      },
    ]),
  );
}

function useCasesOf(api: ConsoleUseCases): Record<string, ConsoleRoute> {
  const classParameter = parameterValueRoutes(() => api.parameters.classValues, "className");
  const groupParameter = parameterValueRoutes(() => api.parameters.groupValues, "groupName");
  const agentParameter = parameterValueRoutes(() => api.parameters.agentValues, "agentId");
  return {
    getOpenApi: async () => ({ body: openApiDocument }),
    listClasses: (principal, { query }) => api.classes.list(principal, page(query)),
    getClass: (principal, { path }) => api.classes.get(principal, path.className as string),
    putClass: (principal, { path, body }) =>
      api.classes.put(principal, path.className as string, body as AgentClassChange),
    getSettings: (principal) => api.settings.get(principal),
    listGroups: (principal, { query }) => api.groups.list(principal, page(query)),
    createGroup: (principal, { body }) => api.groups.create(principal, body as GroupRequest),
    getGroup: (principal, { path, query }) =>
      api.groups.get(principal, path.groupName as string, query.count as "pass" | "live" | undefined),
    putGroup: (principal, { path, body }) =>
      api.groups.put(principal, path.groupName as string, body as GroupDefinition),
    deleteGroup: (principal, { path }) => api.groups.delete(principal, path.groupName as string),
    listGroupAgents: (principal, { path, query }) =>
      api.groups.agents(principal, path.groupName as string, page(query)),
    pinGroup: (principal, { path, body }) => api.pins.pinGroup(principal, path.groupName as string, body),
    unpinGroup: (principal, { path }) => api.pins.unpinGroup(principal, path.groupName as string),
    listGroupParameters: (principal, { path }) =>
      api.parameters.groupValues.list(principal, path.groupName as string),
    getGroupParameter: groupParameter.get,
    putGroupParameter: groupParameter.put,
    deleteGroupParameter: groupParameter.remove,
    putSettings: (principal, { body }) => api.settings.put(principal, body as TenantSettingsChange),
    listAgents: (principal, { query }) =>
      api.agents.list(principal, {
        // The `label` parameter's terms, repeated or separated by commas, as a selector's `labels`.
        ...filtersOfSelector({ ...query, labels: text(query.label)?.split(",") }),
        sort: query.sort as AgentListRequest["sort"],
        ...page(query),
      }),
    getAgent: (principal, { path }) => api.agents.get(principal, path.agentId as string),
    listAgentEvents: (principal, { path, query }) =>
      api.history.agent(principal, path.agentId as string, page(query)),
    listWebhookDeliveries: (principal, { path, query }) =>
      api.deliveries.list(principal, path.subscriptionId as string, page(query)),
    decommissionAgent: (principal, { path }) => api.agents.decommission(principal, path.agentId as string),
    labelAgent: (principal, { path, body }) =>
      api.agents.label(principal, path.agentId as string, body as LabelChange),
    pinAgent: (principal, { path, body }) => api.pins.pin(principal, path.agentId as string, body),
    unpinAgent: (principal, { path }) => api.pins.unpin(principal, path.agentId as string),
    labelAgents: (principal, { body }) => {
      const { selector = {}, ...change } = (body ?? {}) as LabelChange & { selector?: AgentSelector };
      return api.agents.labelSelected(principal, { ...change, selector: filtersOfSelector(selector) });
    },
    listManifests: (principal, { query }) => api.manifests.list(principal, page(query)),
    getManifest: (principal, { path }) => api.manifests.get(principal, path.manifestId as string),
    getManifestContent: (principal, { path }) => api.manifests.content(principal, path.manifestId as string),
    uploadFlow: (principal, { path, query, body }) =>
      api.flows.upload(
        principal,
        path.className as string,
        body as Uint8Array,
        text(query.label),
        query.requireCompatible as boolean | undefined,
      ),
    labelFlow: (principal, { path, body }) =>
      api.flows.label(
        principal,
        path.className as string,
        path.hash as string,
        (body as { label: string }).label,
      ),
    listFlows: (principal, { path, query }) =>
      api.flows.list(principal, path.className as string, page(query)),
    getFlow: (principal, { path }) => api.flows.get(principal, path.className as string, path.hash as string),
    getFlowContent: (principal, { path }) =>
      api.flows.content(principal, path.className as string, path.hash as string),
    validateFlow: (principal, { path }) =>
      api.flows.validate(principal, path.className as string, path.hash as string),
    listRunningFlows: (principal, { path }) =>
      api.adoptions.runningFlows(principal, path.className as string),
    listAdoptions: (principal, { path, query }) =>
      api.adoptions.list(principal, path.className as string, page(query)),
    adoptFlow: (principal, { path, body }) =>
      api.adoptions.adopt(principal, path.className as string, body as JsonObject),
    getAdoption: (principal, { path }) =>
      api.adoptions.get(principal, path.className as string, path.adoptionId as string),
    uploadAsset: (principal, { query, body, contentType }) =>
      api.assets.upload(principal, { name: text(query.name), contentType, bytes: body as Uint8Array }),
    startAssetUpload: (principal, { body }) => api.assets.startUpload(principal, body as JsonObject),
    completeAssetUpload: (principal, { path }) =>
      api.assets.completeUpload(principal, path.uploadId as string),
    abortAssetUpload: (principal, { path }) => api.assets.abortUpload(principal, path.uploadId as string),
    signAssetUploadParts: (principal, { path, body }) =>
      api.assets.signParts(principal, path.uploadId as string, body as JsonObject),
    listAssets: (principal, { query }) => api.assets.list(principal, page(query)),
    getAsset: (principal, { path }) => api.assets.get(principal, path.assetId as string),
    getAssetContent: (principal, { path, query }) =>
      api.assets.content(principal, path.assetId as string, {
        redirect: query.redirect as boolean | undefined,
      }),
    deleteAsset: (principal, { path }) => api.assets.delete(principal, path.assetId as string),
    listClassParameters: (principal, { path }) =>
      api.parameters.classValues.list(principal, path.className as string),
    discardStagedClassParameters: (principal, { path }) =>
      api.parameters.classValues.discardStaged(principal, path.className as string),
    getClassParameter: classParameter.get,
    putClassParameter: classParameter.put,
    deleteClassParameter: classParameter.remove,
    listAgentParameters: (principal, { path }) =>
      api.parameters.agentValues.list(principal, path.agentId as string),
    getAgentParameter: agentParameter.get,
    putAgentParameter: agentParameter.put,
    deleteAgentParameter: agentParameter.remove,
    getResourceSet: (principal, { path }) => api.resourceSets.get(principal, path.className as string),
    putResourceSet: (principal, { path, body }) =>
      api.resourceSets.put(principal, path.className as string, body as ResourceSetRequest),
    getFleetSummary: (principal) => api.fleetSummary(principal),
    getFleetAttention: (principal) => api.fleetAttention(principal),
    getFleetMetrics: (principal) => api.fleetMetrics(principal),
    getFleetBinaries: (principal) => api.fleetBinaries(principal),
    getFleetHistory: (principal, { query }) =>
      api.history.fleet(principal, {
        agentClass: text(query.class),
        from: time(query.from),
        to: time(query.to),
        stepSeconds: query.step as number | undefined,
      }),
    getUsage: (principal, { query }) =>
      api.usage.get(principal, { from: time(query.from), to: time(query.to) }),
    getUsageStatement: (principal, { query }) => api.usage.statement(principal, { month: text(query.month) }),
    listCertificates: (principal, { query }) =>
      api.certificates.list(principal, {
        ...page(query),
        expiring: query.expiring as boolean | undefined,
        expiringWithinDays: query.expiringWithinDays as number | undefined,
        agentId: text(query.agentId),
      }),
    issueCertificate: (principal, { body }) => api.certificates.issue(principal, body as IssueRequest),
    getCertificate: (principal, { path }) => api.certificates.get(principal, path.serial as string),
    revokeCertificate: (principal, { path, body }) =>
      api.certificates.revoke(principal, path.serial as string, body),
    createOperation: (principal, { body }) => api.operations.create(principal, operationRequestOf(body)),
    listOperations: (principal, { query }) =>
      api.operations.list(principal, {
        state: query.state as OperationState | undefined,
        agentId: text(query.agentId),
        ...page(query),
      }),
    getOperation: (principal, { path }) => api.operations.get(principal, path.operationId as string),
    getOperationSelection: (principal, { path }) =>
      api.operations.selection(principal, path.selectionId as string),
    cancelOperation: (principal, { path }) => api.operations.cancel(principal, path.operationId as string),
    getOperationResult: (principal, { path }) => api.operations.result(principal, path.operationId as string),
    listDebugBundles: (principal, { query }) =>
      api.debugBundles.list(principal, { ...page(query), agentId: text(query.agentId) }),
    getDebugBundle: (principal, { path }) => api.debugBundles.get(principal, path.operationId as string),
    downloadDebugBundle: (principal, { path, query }) =>
      api.debugBundles.download(principal, path.operationId as string, {
        redirect: query.redirect as boolean | undefined,
      }),
    startRollout: (principal, { body }) => api.rollouts.start(principal, body as RolloutRequest),
    listRollouts: (principal, { query }) =>
      api.rollouts.list(principal, {
        className: text(query.className),
        state: query.state as RolloutState | undefined,
        ...page(query),
      }),
    getRollout: (principal, { path }) => api.rollouts.get(principal, path.rolloutId as string),
    listRolloutAgents: (principal, { path, query }) =>
      api.rollouts.agents(principal, path.rolloutId as string, page(query)),
    pauseRollout: (principal, { path }) => api.rollouts.pause(principal, path.rolloutId as string),
    resumeRollout: (principal, { path }) => api.rollouts.resume(principal, path.rolloutId as string),
    abortRollout: (principal, { path }) => api.rollouts.abort(principal, path.rolloutId as string),
    finishRollout: (principal, { path }) => api.rollouts.finish(principal, path.rolloutId as string),
    approveRollout: (principal, { path }) => api.rollouts.approve(principal, path.rolloutId as string),
    refuseRollout: (principal, { path, body }) =>
      api.rollouts.refuse(principal, path.rolloutId as string, body as { reason?: string }),
    listAuditRecords: (principal, { query }) =>
      api.audit.list(principal, {
        from: time(query.from),
        to: time(query.to),
        actor: text(query.actor),
        operation: text(query.operation),
        ...page(query),
      }),
    createSubscription: (principal, { body }) => api.webhooks.create(principal, body as SubscriptionRequest),
    listSubscriptions: (principal, { query }) => api.webhooks.list(principal, page(query)),
    getSubscription: (principal, { path }) => api.webhooks.get(principal, path.subscriptionId as string),
    deleteSubscription: (principal, { path }) =>
      api.webhooks.delete(principal, path.subscriptionId as string),
    testSubscription: (principal, { path }) => api.webhooks.test(principal, path.subscriptionId as string),
    enableSubscription: (principal, { path }) =>
      api.webhooks.enable(principal, path.subscriptionId as string),
  };
}
