import type { Clock } from "../ports.js";
import { makeAgentsApi } from "./agents.js";
import { makeCertificatesApi } from "./certificates.js";
import { makeClassesApi } from "./classes.js";
import { makeFleetSummary } from "./fleet-summary.js";
import { makeManifestsApi } from "./manifests.js";
import type {
  CertificateAuthority,
  CertificateStore,
  ClassCatalog,
  FleetHotState,
  FleetRegistry,
  ManifestCatalog,
} from "./ports.js";

export interface ConsoleDependencies {
  catalog: ClassCatalog;
  registry: FleetRegistry;
  hotState: FleetHotState;
  manifests: ManifestCatalog;
  certificates: CertificateStore;
  authority: CertificateAuthority;
  clock: Clock;
  /** How stale the registry's last-seen times may be: the agent API's checkpoint interval. */
  registryLagMs: number;
}

/** Every use case of the tenant console, over its ports. Each checks the caller's role first. */
export function makeConsoleApi(deps: ConsoleDependencies) {
  const certificates = makeCertificatesApi({
    store: deps.certificates,
    authority: deps.authority,
    hotState: deps.hotState,
    clock: deps.clock,
  });
  return {
    classes: makeClassesApi(deps),
    agents: makeAgentsApi({ ...deps, revokeAgentCertificates: certificates.revokeAgentCertificates }),
    manifests: makeManifestsApi({ catalog: deps.manifests }),
    fleetSummary: makeFleetSummary(deps),
    certificates,
  };
}

export type ConsoleApi = ReturnType<typeof makeConsoleApi>;
