/**
 * The agent API: one request in, its response out, whichever door it came through (the Lambda function's,
 * handler.ts, or the agent service's on Fargate). It holds the dispatch of the agent routes, and it logs, counts
 * and publishes each request's metrics itself; a door gives it the request, the deadline, and its log context.
 */
import { Readable } from "node:stream";
import { MetricUnit } from "@aws-lambda-powertools/metrics";
import { certificateEvidence } from "../adapters/x509/certificate-evidence.js";
import { type AnswerDeadlines, answerDeadlines } from "../core/agent-requests/answer-budget.js";
import type { DownloadContent, DownloadOutcome } from "../core/agent-requests/content-download.js";
import type { HeartbeatOutcome } from "../core/agent-requests/record-heartbeat.js";
import { HTTP_API_DEBUG_BUNDLE_MAX_BYTES } from "../core/bundles/model.js";
import { MANIFEST_BUNDLES_PATH } from "../core/c2/manifest.js";
import { ACK_REPLY, NO_OPERATIONS_REPLY } from "../core/c2/operations.js";
import {
  type AgentRouteName,
  type AgentRouteParams,
  matchAgentRoute,
  noAgentRoute,
} from "../core/c2/routes.js";
import { BeaconError } from "../core/errors.js";
import type { BeaconEvent } from "../core/events/model.js";
import { PublishNotAwaited } from "../core/events/publishing.js";
import { CacheBypassed } from "../core/guarded-cache.js";
import { credentialOfCertificate, type DistinguishedCertificate } from "../core/identity/ca-bindings.js";
import type { AgentCredential } from "../core/identity/credentials.js";
import type { AgentApp, AgentRequest, AgentResponse } from "../shared/agent-request.js";
import { agentApiConfig } from "../shared/config.js";
import { errorResponse, inflateBody, jsonResponse, RecurringValueParser } from "../shared/http.js";
import { functionLogger, MetricNames, metrics, reportStreamFailure } from "../shared/observability.js";
import { assertValid, Validators } from "../shared/schemas.js";
import { composeAgentApi } from "./composition.js";

/** The agent API's logger, to which each door gives a request's context: Lambda's invocation's, say. */
export const logger = functionLogger();
const config = agentApiConfig();
const agentApi = composeAgentApi(config, () => {
  metrics.addMetric(MetricNames.cacheBreakerOpened, MetricUnit.Count, 1);
  logger.warn("cache breaker opened: requests answer from DynamoDB until the cache answers again");
});
const limits = { maxInflatedBytes: config.maxInflatedBytes, maxJsonDepth: config.maxJsonDepth };
/**
 * Builds whose manifest bundles the container parses once, however many of their agents send them: few, as a
 * container serves agents of few builds at a time, and each is kept parsed (a few MB for C++).
 */
const BUILDS_PARSED_ONCE = 4;
const bodies = new RecurringValueParser(MANIFEST_BUNDLES_PATH, BUILDS_PARSED_ONCE, limits);

type Routes = {
  [Name in AgentRouteName]: (
    request: AgentRequest,
    params: AgentRouteParams<Name>,
    deadlines: AnswerDeadlines,
  ) => Promise<AgentResponse>;
};

type Download<Id, Content extends DownloadContent> = (
  deadlines: AnswerDeadlines,
  credential: AgentCredential,
  id: Id,
  ifNoneMatch: string | undefined,
) => Promise<DownloadOutcome<Content>>;

interface Downloadable<Id = string, Content extends DownloadContent = DownloadContent> {
  what: "flow" | "asset";
  download: Download<Id, Content>;
  binary: boolean;
  /** The id's fields for the log, once the download found it. */
  logKeys: (id: Id) => Record<string, string>;
}

/**
 * What agents download by hash: flows where UPDATE CONFIGURATION sends them (the Java agent reads the flow id
 * from the 4th segment too), sent as the text they are; assets where UPDATE ASSET and SYNC RESOURCE send them,
 * any bytes. Ids are hex hashes, so the segment needs no decoding; anything else is nobody's content.
 */
const FLOWS: Downloadable = {
  what: "flow",
  download: agentApi.downloadFlow,
  binary: false,
  logKeys: (flowId) => ({ flowId }),
};
const ASSETS: Downloadable = {
  what: "asset",
  download: agentApi.downloadAsset,
  binary: true,
  logKeys: (assetId) => ({ assetId }),
};
/**
 * A flow version rendered with the agent's own parameter values, secrets among them: its bytes are never logged,
 * only their size, as for every download. The agent id is decoded as the heartbeat's identifier would be.
 */
const AGENT_FLOWS: Downloadable<{ agentId: string; flowId: string; rolloutId?: string }> = {
  what: "flow",
  download: agentApi.downloadAgentFlow,
  binary: false,
  logKeys: (id) => ({ ...id }),
};

const ROUTES: Routes = {
  heartbeat: (request, _, deadlines) => heartbeat(request, deadlines),
  acknowledge: (request, _, deadlines) => acknowledge(request, deadlines),
  flowContent: (request, { flowId }, deadlines) => content(request, FLOWS, flowId, deadlines),
  agentFlowContent: (request, { agentId, flowId }, deadlines) =>
    content(request, AGENT_FLOWS, { agentId: decodedSegment(agentId), flowId }, deadlines),
  agentRolloutFlowContent: (request, { agentId, rolloutId, flowId }, deadlines) =>
    content(request, AGENT_FLOWS, { agentId: decodedSegment(agentId), rolloutId, flowId }, deadlines),
  // Served by doors that stream (the agent service, the asset stream's function): an asset may be 100 MiB.
  assetContent: (request, { assetId }, deadlines) => content(request, ASSETS, assetId, deadlines),
  // Up to a whole invocation's body, written to S3 before DynamoDB: its calls keep their own timeouts.
  debugBundle: (request, { operationId }) => debugBundle(request, operationId),
};

type AnyRoute = (
  request: AgentRequest,
  params: Record<string, string>,
  deadlines: AnswerDeadlines,
) => Promise<AgentResponse>;

/**
 * Answers one agent request within the agent answer budget (AgentAnswerBudget), from now, and before `deadline`
 * (epoch milliseconds), the invocation's end; publishes its metrics.
 */
export const serveAgentRequest: AgentApp = async (request, deadline) => {
  const deadlines = answerDeadlines(Date.now(), deadline, config.storageShareMs);
  const route = matchAgentRoute(request.method, request.path);
  let response: AgentResponse;
  try {
    if (!route) throw noAgentRoute(request.method, request.path);
    response = await (ROUTES[route.name] as AnyRoute)(request, route.params, deadlines);
  } catch (error) {
    response = errorResponse(error);
    if (response.statusCode >= 500)
      logger.error("agent request failed", { path: request.path, error: error as Error });
    else
      logger.warn("agent request rejected", {
        path: request.path,
        status: response.statusCode,
        reason: response.body,
      });
    metrics.addMetric(MetricNames.rejectedRequests, MetricUnit.Count, 1);
  } finally {
    logger.resetKeys();
  }
  // A flow download that went well counts nothing; an empty publish would only log a warning.
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  return response;
};

function readBody(
  request: AgentRequest,
  validate: (typeof Validators)[keyof typeof Validators],
  what: string,
) {
  const body = bodies.parse(inflateBody(request.body, request.headers["content-encoding"], limits));
  assertValid(validate, body, what);
  return body;
}

/** The caller's certificate, what it tells itself read only should its CA's binding ask. */
function clientCertificateOf(request: AgentRequest): DistinguishedCertificate {
  const certificate = request.clientCertificate;
  if (!certificate)
    throw new BeaconError("missing_client_certificate", "Agents authenticate with a client certificate");
  const { pem, ...reported } = certificate;
  return pem === undefined ? reported : { ...reported, evidence: certificateEvidence(pem) };
}

const credentialOf = (request: AgentRequest) =>
  credentialOfCertificate(clientCertificateOf(request), config.caBindings());

async function heartbeat(request: AgentRequest, deadlines: AnswerDeadlines): Promise<AgentResponse> {
  const credential = credentialOf(request);
  const body = readBody(request, Validators.heartbeat, "heartbeat");
  const { tenant } = credential;
  try {
    const outcome = await agentApi.recordHeartbeat(
      deadlines,
      credential,
      body,
      deadlines.streamBy,
      request.body.length,
    );
    // Appending keys costs a steady heartbeat, which logs nothing, more than the rest of its logging: they are
    // appended only for the lines that carry them.
    if (!isQuiet(outcome)) logger.appendKeys({ tenant, agentId: outcome.agentId });
    // A steady heartbeat counts nothing here, so that it writes no metric line: the stream consumer counts
    // Heartbeats from the heartbeat events it reads, one line a batch.
    if (outcome.refusedAgentClass !== undefined)
      logger.warn("agent class ignored: not a valid class name", {
        reported: outcome.refusedAgentClass,
        agentClass: outcome.agentClass,
      });
    if (outcome.firstSight) {
      metrics.addMetric(MetricNames.registrations, MetricUnit.Count, 1);
      logger.info("agent registered", { agentClass: outcome.agentClass });
    }
    if (outcome.manifestStored) {
      metrics.addMetric(MetricNames.manifestsStored, MetricUnit.Count, 1);
      logger.info("manifest stored", { from: "heartbeat" });
    }
    if (outcome.describeSent) metrics.addMetric(MetricNames.describeSent, MetricUnit.Count, 1);
    reportDegradation(outcome);
    return jsonResponse(200, outcome.reply);
  } catch (error) {
    // What is logged of the failure, here or where the request is answered, names the tenant.
    logger.appendKeys({ tenant });
    if (error instanceof BeaconError) throw error;
    // The agents cannot act on an error reply (Java logs it, C++ counts a failed read): answer with no
    // operations, DynamoDB's calls given up at the storage share's end included. Nothing half-done is lost: the
    // next heartbeat finds the same state and completes it.
    metrics.addMetric(MetricNames.heartbeatsFailed, MetricUnit.Count, 1);
    logger.error("heartbeat failed; answered with no operations", { error: error as Error });
    return jsonResponse(200, NO_OPERATIONS_REPLY);
  }
}

async function acknowledge(request: AgentRequest, deadlines: AnswerDeadlines): Promise<AgentResponse> {
  const credential = credentialOf(request);
  const body = readBody(request, Validators.acknowledge, "acknowledgement");
  logger.appendKeys({ tenant: credential.tenant });
  const outcome = await agentApi.recordAck(
    deadlines,
    credential,
    body,
    deadlines.streamBy,
    request.body.length,
  );
  logger.appendKeys({ agentId: outcome.agentId, operationId: outcome.operationId });
  metrics.addMetric(MetricNames.acknowledgements, MetricUnit.Count, 1);
  if (outcome.manifestStored) {
    metrics.addMetric(MetricNames.manifestsStored, MetricUnit.Count, 1);
    logger.info("manifest stored", { from: "acknowledgement" });
  }
  if (outcome.resultError !== undefined) {
    // The operation closed all the same: the agent would not send its answer again.
    metrics.addMetric(MetricNames.operationResultsLost, MetricUnit.Count, 1);
    logger.error("operation result not kept", { error: outcome.resultError as Error });
  }
  logger.info("acknowledgement recorded", { matched: outcome.matched, resultBytes: outcome.resultBytes });
  // Agents send an ack once: its saved change is answered 200 even when its events missed the stream.
  reportDegradation(outcome);
  return jsonResponse(200, ACK_REPLY);
}

/**
 * A debug bundle through the HTTP API ingress: the whole request arrives in the invocation (base64-encoded), so
 * this ingress takes bundles up to HTTP_API_DEBUG_BUNDLE_MAX_BYTES, refused with the same 413 above, as the
 * streaming intake refuses what passes its own, larger limit. The form's reader is loaded by the first bundle: an
 * agent sends one only when an operator asks, and no cold start should compile it.
 */
async function debugBundle(request: AgentRequest, encodedOperationId: string): Promise<AgentResponse> {
  const certificate = clientCertificateOf(request);
  const { bundleOperationId, bundleReceipt, receiveDebugBundle } = await import(
    "../bundle-intake/receive.js"
  );
  const bundle = await receiveDebugBundle(
    agentApi.debugBundleIntake,
    {
      operationId: bundleOperationId(encodedOperationId),
      certificate,
      headers: { ...request.headers, "content-length": String(request.body.length) },
      body: Readable.from([request.body]),
    },
    HTTP_API_DEBUG_BUNDLE_MAX_BYTES,
  );
  logger.appendKeys({ tenant: bundle.tenant, agentId: bundle.agentId, operationId: bundle.operationId });
  logger.info("debug bundle stored", { bytes: bundle.bytes });
  return jsonResponse(201, bundleReceipt(bundle));
}

/** A path segment as sent, percent-decoded; a malformed one names nothing there is. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BeaconError("not_found", "No such flow");
  }
}

async function content<Id>(
  request: AgentRequest,
  route: Downloadable<Id>,
  id: Id,
  deadlines: AnswerDeadlines,
): Promise<AgentResponse> {
  const credential = credentialOf(request);
  logger.appendKeys({ tenant: credential.tenant });
  const outcome = await route.download(deadlines, credential, id, request.headers["if-none-match"]);
  // Only now is the id known to be a flow's or an asset's, fit for the log.
  logger.appendKeys(route.logKeys(id));
  reportDegradation(outcome);
  const headers = { etag: outcome.tag, "cache-control": "private, no-cache" };
  if (outcome.notModified) return { statusCode: 304, headers, body: "" };
  const { contentType } = outcome.content;
  const body = bodyOf(outcome.content, route.binary);
  const sizeBytes = "length" in outcome.content ? outcome.content.length : outcome.content.bytes.length;
  logger.info(`${route.what} downloaded`, { contentType, sizeBytes });
  // Metered as the bytes go out: a download answered 304 or refused above sends none, and counts none.
  reportDegradation(await agentApi.meterDownload(credential, route.what, sizeBytes, deadlines.streamBy));
  return { statusCode: 200, headers: { ...headers, "content-type": contentType }, body };
}

/**
 * Flows are UTF-8 text (checked at upload) and travel as text; assets are any bytes, streamed from the bucket as
 * the agent takes them.
 */
function bodyOf(content: DownloadContent, binary: boolean): AgentResponse["body"] {
  if ("body" in content) return { length: content.length, stream: content.body };
  const bytes = Buffer.from(content.bytes);
  return binary ? bytes : bytes.toString("utf8");
}

/** Whether a heartbeat's outcome logs nothing: no registration, manifest, refused class or degradation to tell. */
const isQuiet = (outcome: HeartbeatOutcome): boolean =>
  !outcome.firstSight &&
  !outcome.manifestStored &&
  outcome.refusedAgentClass === undefined &&
  outcome.cacheError === undefined &&
  outcome.streamError === undefined;

/**
 * Counts and logs what went wrong on the way without failing the request. Events that missed the stream
 * (EventsLost counted them) are logged whole where the use case hands them back, an acknowledgement's,
 * so that they can be put on the stream again from the log.
 */
function reportDegradation(outcome: {
  cacheError?: unknown;
  streamError?: unknown;
  unpublished?: BeaconEvent[];
}) {
  if (outcome.cacheError !== undefined) metrics.addMetric(MetricNames.cacheFallbacks, MetricUnit.Count, 1);
  if (outcome.cacheError instanceof CacheBypassed) {
    // Logged once, when the breaker opened.
    metrics.addMetric(MetricNames.cacheBypassed, MetricUnit.Count, 1);
  } else if (outcome.cacheError !== undefined) {
    logger.warn("cache unavailable; answered from DynamoDB", { error: String(outcome.cacheError) });
  }
  if (outcome.streamError instanceof PublishNotAwaited) {
    // The put goes on, and EventsLost counts its events should it fail; on Lambda it may not end before the
    // container is frozen, so the events are logged whole too.
    metrics.addMetric(MetricNames.streamPutsNotAwaited, MetricUnit.Count, 1);
    logger.warn("event put still under way when the request was answered", { events: outcome.unpublished });
  } else if (outcome.streamError !== undefined) {
    reportStreamFailure(logger, outcome.streamError, "events", outcome.unpublished);
  }
}

/** Closes the container's connections; the local stack calls it on shutdown, Lambda never needs to. */
export const shutdown = (): Promise<void> => agentApi.close();
