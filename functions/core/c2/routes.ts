/**
 * The agent API's routes, each spelled here once: the agent API dispatches on them (as the Lambda function and as
 * the agent service), the CDK app routes exactly these to it (everything else on the agent domain is refused at
 * the edge), the local gateway serves them, and the operations that send agents somewhere build their URLs here.
 */
import { BeaconError } from "../errors.js";

/**
 * Where the incumbent C2 server serves the C2 protocol. Fleets configured for it post their heartbeats and
 * acknowledgements below it, and reach the same routes here with only the host in their URLs changed.
 */
const INCUMBENT_C2_PROTOCOL = "/efm/api/c2-protocol";

/**
 * Each route's method and path as API Gateway spells route keys: `{name}` stands for one path segment. A route
 * agents configured for the incumbent C2 server post to has its `incumbentPath` too: the same route, the same
 * handler, reached by the incumbent's spelling. Beacon builds its own URLs with `path` alone.
 */
export const AgentRoutes = {
  heartbeat: {
    method: "POST",
    path: "/c2/api/heartbeat",
    incumbentPath: `${INCUMBENT_C2_PROTOCOL}/heartbeat`,
  },
  acknowledge: {
    method: "POST",
    path: "/c2/api/acknowledge",
    incumbentPath: `${INCUMBENT_C2_PROTOCOL}/acknowledge`,
  },
  /** Where UPDATE CONFIGURATION sends agents for a flow version that declares no parameters. */
  flowContent: { method: "GET", path: "/c2/api/flows/{flowId}/content" },
  /** Where UPDATE CONFIGURATION sends an agent for a version that declares parameters: rendered with its values. */
  agentFlowContent: { method: "GET", path: "/c2/api/agents/{agentId}/flows/{flowId}/content" },
  /** Where UPDATE ASSET and SYNC RESOURCE send agents for an asset. */
  assetContent: { method: "GET", path: "/c2/api/assets/{assetId}/content" },
  /**
   * Where a rollout of a class's staged values sends its members: the version rendered with the values the
   * rollout froze in place of the class's.
   */
  agentRolloutFlowContent: {
    method: "GET",
    path: "/c2/api/agents/{agentId}/rollouts/{rolloutId}/flows/{flowId}/content",
  },
  /**
   * Where TRANSFER DEBUG sends agents to upload its bundle. Behind the load balancer the agent service's streaming
   * intake (functions/bundle-intake) takes it, as an invocation cannot carry a bundle of the largest size; through
   * the HTTP API the agent-api function takes what an invocation carries.
   */
  debugBundle: { method: "POST", path: "/c2/debug-bundles/{operationId}" },
} as const;

export type AgentRouteName = keyof typeof AgentRoutes;
export type AgentRoute = (typeof AgentRoutes)[AgentRouteName];

/** Every route, in the order above. */
export const allAgentRoutes: readonly AgentRoute[] = Object.values(AgentRoutes);

/** The routes an invocation of the agent-api function carries on any ingress: all but the bundle upload. */
export const c2ApiRoutes: readonly AgentRoute[] = allAgentRoutes.filter(
  (route) => route !== AgentRoutes.debugBundle,
);

/** Every path a route is served at: Beacon's, then the incumbent's where agents configured for it post. */
export const servedPaths = (route: AgentRoute): readonly string[] =>
  "incumbentPath" in route ? [route.path, route.incumbentPath] : [route.path];

/** Each method and path an ingress serves for `routes`, every spelling of a route beside its first. */
export const servedRouteKeys = (
  routes: readonly AgentRoute[],
): { method: AgentRoute["method"]; path: string }[] =>
  routes.flatMap((route) => servedPaths(route).map((path) => ({ method: route.method, path })));

/**
 * How a route is served by an API of its own below an API mapping of the agent domain: the mapping key is the
 * route's path up to its first parameter, the base path API Gateway strips; the API's resource path is the rest.
 */
export function apiMappingOf(route: AgentRoute): { mappingKey: string; resourcePath: string } {
  const firstParameter = route.path.indexOf("/{");
  if (firstParameter < 0) throw new Error(`${route.path} has no parameter to map below`);
  return { mappingKey: route.path.slice(1, firstParameter), resourcePath: route.path.slice(firstParameter) };
}

/** A parameter in a route's path, its name captured. */
const PARAMETER = /\{(\w+)\}/g;

/** A route's path as a load balancer's path pattern: each parameter a wildcard. */
export const loadBalancerPathPattern = (path: string): string => path.replace(PARAMETER, "*");

type ParamsOf<Path extends string> = Path extends `${string}{${infer Param}}${infer Rest}`
  ? Param | ParamsOf<Rest>
  : never;

/** A route's parameters by name, each the path segment as it was sent (still percent-encoded). */
export type AgentRouteParams<Name extends AgentRouteName> = Readonly<
  Record<ParamsOf<(typeof AgentRoutes)[Name]["path"]>, string>
>;

/** The route a request takes, with its parameters. */
export type AgentRouteMatch = {
  [Name in AgentRouteName]: { name: Name; params: AgentRouteParams<Name> };
}[AgentRouteName];

const matchers = (Object.entries(AgentRoutes) as [AgentRouteName, AgentRoute][]).flatMap(([name, route]) =>
  servedPaths(route).map((path) => {
    const params = [...path.matchAll(PARAMETER)].map((match) => match[1] as string);
    const pattern = new RegExp(`^${path.replace(PARAMETER, "([^/]+)")}$`);
    return { name, method: route.method, params, pattern };
  }),
);

/** The route a request's method and path (without its query) take, if any. */
export function matchAgentRoute(method: string, path: string): AgentRouteMatch | undefined {
  for (const matcher of matchers) {
    const segments = matcher.method === method ? matcher.pattern.exec(path) : null;
    if (segments) {
      const params = Object.fromEntries(matcher.params.map((param, index) => [param, segments[index + 1]]));
      return { name: matcher.name, params } as AgentRouteMatch;
    }
  }
  return undefined;
}

/** The refusal of a request that takes no agent route. */
export const noAgentRoute = (method: string, path: string): BeaconError =>
  new BeaconError("route_not_found", `No agent route ${method} ${path}`);

/** The absolute URL of a route on the agent API at `base`, each parameter encoded as one path segment. */
export function agentRouteUrl(base: string, route: AgentRoute, params: Record<string, string> = {}): string {
  const path = route.path.replace(PARAMETER, (_, param: string) => encodeURIComponent(params[param] ?? ""));
  return `${base.replace(/\/+$/, "")}${path}`;
}

/**
 * Where agents download a flow version. Beacon sends the version's hash as `flowId` too, and the Java agent, which
 * derives a flow id from the 4th path segment when `flowId` is absent, reads the same hash.
 */
export const flowContentUrl = (agentApiUrl: string, flowId: string): string =>
  agentRouteUrl(agentApiUrl, AgentRoutes.flowContent, { flowId });

/**
 * Where an agent downloads a flow version rendered with its own parameter values. The args carry `flowId`, so
 * the Java agent does not read its flow id from the path, whose 4th segment here is the agent's id.
 */
export const agentFlowContentUrl = (agentApiUrl: string, agentId: string, flowId: string): string =>
  agentRouteUrl(agentApiUrl, AgentRoutes.agentFlowContent, { agentId, flowId });

export const agentRolloutFlowContentUrl = (
  agentApiUrl: string,
  agentId: string,
  rolloutId: string,
  flowId: string,
): string => agentRouteUrl(agentApiUrl, AgentRoutes.agentRolloutFlowContent, { agentId, rolloutId, flowId });

/**
 * Where agents download an asset: on the agent API, over mutual TLS with a certificate of the tenant. Absolute, as
 * MiNiFi Java's legacy configuration needs; neither agent adds headers to the request.
 */
export const assetContentUrl = (agentApiUrl: string, assetId: string): string =>
  agentRouteUrl(agentApiUrl, AgentRoutes.assetContent, { assetId });

/** The upload target a TRANSFER DEBUG operation sends its agent to, below the bundle ingress's base. */
export const debugBundleUrl = (base: string, operationId: string): string =>
  agentRouteUrl(base, AgentRoutes.debugBundle, { operationId });
