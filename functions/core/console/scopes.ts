import { BeaconError } from "../errors.js";
import type { FleetRegistry } from "../fleet/ports.js";
import type { CertificateStore } from "../identity/ports.js";
import { type Principal, reachesClass } from "../identity/principal.js";
import type { OperationLifecycle } from "../operations/lifecycle.js";
import type { SelectionJobStore } from "../operations/ports.js";
import type { ConsoleResult } from "../result.js";
import type { RolloutStore } from "../rollouts/ports.js";

/**
 * The fields by which a tenant-wide list's items belong to a class: a class's `name`, `className` or
 * `agentClass`; an agent's id, whose class the registry knows; the classes an audit record's actor was
 * limited to.
 */
export const ItemOwners = ["name", "className", "agentClass", "agentId", "actor.classes"] as const;
export type ItemOwner = (typeof ItemOwners)[number];

/**
 * What a console operation is to a principal limited to some classes, as its `x-beacon-scope` says:
 * - `shared`: the same for every principal of the tenant (the document, agents' manifests);
 * - `tenant`: the tenant's as a whole, for whole-tenant principals only: a limited one is refused (403);
 * - `class`: what its path or body names belongs to a class (a class, an agent, an operation, a rollout,
 *   a certificate, a selector's class); outside the principal's classes it answers 404, as another
 *   tenant's would, and a request that names no class (a selector without one, a fleet certificate) 403;
 * - `items:<field>`: a list of the tenant's, which keeps the items whose `field` belongs to its classes;
 * - `members`: acts on what spans classes (a group's members, the fleet's metrics): let through, the use case
 *   acting only on what belongs to the principal's classes.
 * Whole-tenant principals pass every rule untouched.
 */
export type ScopeRule = "shared" | "tenant" | "class" | "members" | `items:${ItemOwner}`;

export function isScopeRule(value: unknown): value is ScopeRule {
  if (value === "shared" || value === "tenant" || value === "class" || value === "members") return true;
  return (
    typeof value === "string" &&
    value.startsWith("items:") &&
    ItemOwners.includes(value.slice("items:".length) as ItemOwner)
  );
}

/** The part of a request that names what it acts on. */
export interface ScopedRequest {
  path: Record<string, string>;
  body?: unknown;
}

export interface ScopeDependencies {
  registry: FleetRegistry;
  lifecycle: OperationLifecycle;
  rollouts: RolloutStore;
  certificates: CertificateStore;
  selectionJobs: Pick<SelectionJobStore, "get">;
}

/** A reference the request makes to something of a class; `undefined` when it reaches past any one class. */
type Reference = { kind: ReferenceKind; value: string | undefined };
type ReferenceKind = "class" | "agent" | "operation" | "rollout" | "certificate" | "selection";

/** Path parameters and body fields that name something of a class, and what they name. */
const REFERENCES: Readonly<Record<string, ReferenceKind>> = {
  className: "class",
  flowClass: "class",
  agentId: "agent",
  operationId: "operation",
  rolloutId: "rollout",
  serial: "certificate",
  selectionId: "selection",
};

/** As the use cases name what they do not find. */
const NOUNS: Readonly<Record<ReferenceKind, string>> = {
  class: "agent class",
  agent: "agent",
  operation: "operation",
  rollout: "rollout",
  certificate: "certificate",
  selection: "selection",
};

function referencesOf({ path, body }: ScopedRequest): Reference[] {
  const named = (fields: Record<string, unknown>) =>
    Object.entries(fields).flatMap(([name, value]): Reference[] => {
      const kind = REFERENCES[name];
      return kind && typeof value === "string" ? [{ kind, value }] : [];
    });
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const selector = fields.selector as Record<string, unknown> | undefined;
  // A selector reaches the whole tenant unless it names a class.
  const selected: Reference[] =
    selector === undefined ? [] : [{ kind: "class", value: selector.class as string | undefined }];
  return [...named(path), ...named(fields), ...selected];
}

/** Holds each console request of a principal limited to classes to those classes. */
export function makeClassScopes(deps: ScopeDependencies) {
  /** Resolves what a request or a list names to its class, reading each agent once per request. */
  function ownerOf(tenant: string) {
    const agents = new Map<string, Promise<string | undefined>>();
    const classOfAgent = (agentId: string): Promise<string | undefined> => {
      let found = agents.get(agentId);
      if (!found) {
        found = deps.registry.get(tenant, agentId).then((agent) => agent?.agentClass || undefined);
        agents.set(agentId, found);
      }
      return found;
    };
    const resolvers: Record<ReferenceKind, (value: string) => Promise<string | undefined>> = {
      class: async (className) => className,
      agent: classOfAgent,
      operation: async (operationId) => {
        const operation = await deps.lifecycle.find(tenant, operationId);
        return operation && classOfAgent(operation.agentId);
      },
      rollout: async (rolloutId) => (await deps.rollouts.get(tenant, rolloutId))?.className,
      selection: async (selectionId) =>
        (await deps.selectionJobs.get(tenant, selectionId))?.request.selector.agentClass,
      certificate: async (serial) => {
        const agentId = (await deps.certificates.get(tenant, serial))?.agentId;
        return agentId === undefined ? undefined : classOfAgent(agentId);
      },
    };
    return {
      resolve: (reference: Reference & { value: string }) => resolvers[reference.kind](reference.value),
    };
  }

  async function checkReferences(principal: Principal, request: ScopedRequest): Promise<void> {
    const references = referencesOf(request);
    if (references.length === 0 || references.some((reference) => reference.value === undefined)) {
      throw new BeaconError(
        "forbidden",
        "The token limits its role to some classes: a request must name one of them",
      );
    }
    const owners = ownerOf(principal.tenant);
    const classes = await Promise.all(
      references.map((reference) => owners.resolve(reference as Reference & { value: string })),
    );
    // Answered as a missing one is, whether it exists in another class or nowhere.
    const outside = references.find((_reference, index) => !reachesClass(principal, classes[index]));
    if (outside) throw new BeaconError("not_found", `No such ${NOUNS[outside.kind]}`);
  }

  async function keepItems(
    principal: Principal,
    owner: ItemOwner,
    result: ConsoleResult,
  ): Promise<ConsoleResult> {
    const body = result.body as { items?: Record<string, unknown>[] } | undefined;
    if (!Array.isArray(body?.items)) return result;
    const owners = ownerOf(principal.tenant);
    const reached = await Promise.all(
      body.items.map(async (item) => {
        if (owner === "actor.classes") {
          const classes = (item.actor as { classes?: string[] } | undefined)?.classes;
          // A whole-tenant actor's records, or one limited to no class, may concern any class.
          return (
            classes !== undefined &&
            classes.length > 0 &&
            classes.every((className) => reachesClass(principal, className))
          );
        }
        const value = item[owner];
        if (typeof value !== "string") return false;
        const kind = owner === "agentId" ? "agent" : "class";
        return reachesClass(principal, await owners.resolve({ kind, value }));
      }),
    );
    return { ...result, body: { ...body, items: body.items.filter((_item, index) => reached[index]) } };
  }

  return {
    /** Answers the request with `answer` as far as the principal's classes reach, by the operation's rule. */
    async within(
      principal: Principal,
      rule: ScopeRule,
      request: ScopedRequest,
      answer: () => Promise<ConsoleResult>,
    ): Promise<ConsoleResult> {
      if (principal.classes === undefined || rule === "shared" || rule === "members") return answer();
      if (rule === "tenant") {
        throw new BeaconError(
          "forbidden",
          "This concerns the whole tenant; the token limits its role to some classes",
        );
      }
      if (rule === "class") {
        await checkReferences(principal, request);
        return answer();
      }
      return keepItems(principal, rule.slice("items:".length) as ItemOwner, await answer());
    },
  };
}

export type ClassScopes = ReturnType<typeof makeClassScopes>;
