import { DEBUG_BUNDLE_UPLOAD_PATH } from "../core/operations/transfer-debug.js";

/**
 * The C2 endpoints agents call, as API Gateway spells route keys. The CDK app routes exactly these to the
 * agent-api function (everything else on the agent domain is refused at the edge), and the local gateway
 * serves the same ones.
 */
export const AgentRoutes = [
  { method: "POST", path: "/c2/api/heartbeat" },
  { method: "POST", path: "/c2/api/acknowledge" },
  /** Where UPDATE CONFIGURATION sends agents for the flow. */
  { method: "GET", path: "/c2/api/flows/{flowId}/content" },
  /** Where UPDATE ASSET and SYNC RESOURCE send agents for an asset. */
  { method: "GET", path: "/c2/api/assets/{assetId}/content" },
] as const;

/**
 * Where agents upload TRANSFER DEBUG's bundle: served by the streaming bundle intake (functions/bundle-intake),
 * not by the agent-api function, whose invocation cannot carry a bundle of the largest size.
 */
export const DEBUG_BUNDLE_ROUTE = `${DEBUG_BUNDLE_UPLOAD_PATH}/{operationId}`;

/**
 * What the HTTP API ingress routes to the agent-api function: the C2 endpoints, and the bundle upload, which an
 * invocation carries up to HTTP_API_DEBUG_BUNDLE_MAX_BYTES. Behind the ALB the agent service takes the upload.
 */
export const HttpApiAgentRoutes = [...AgentRoutes, { method: "POST", path: DEBUG_BUNDLE_ROUTE }] as const;
