/**
 * The console API's typed client, shared by the web console and the `beacon` CLI: paths, parameters and
 * bodies come from `schema.d.ts`, which is generated from the API's OpenAPI document, so a caller that asks
 * for something the API does not offer fails to typecheck. Requests go to `baseUrl` (the page's own origin
 * in the console, a context's deployment in the CLI), where the console API is served under /api/v1. Plain
 * fetch only: it runs in Node and in the browser alike.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type Schemas = components["schemas"];
export type ConsoleClient = ReturnType<typeof consoleClient>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ConsoleClientOptions {
  /** The console's origin: the API is below it, at /api/v1. */
  baseUrl: string;
  token: string;
  /** Told of a 401: the token expired or was never good. */
  onUnauthorized?: () => void;
}

export function consoleClient({ baseUrl, token, onUnauthorized }: ConsoleClientOptions) {
  const client = createClient<paths>({ baseUrl });
  client.use({
    onRequest({ request }) {
      request.headers.set("authorization", `Bearer ${token}`);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized?.();
      return response;
    },
  });
  return client;
}

/** The reply's data, or an ApiError carrying the API's own message (`{"error":{"code","message"}}`). */
export async function dataOf<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await request;
  if (response.ok && data !== undefined) return data;
  throw apiError(response, error);
}

export function apiError(response: Response, body: unknown): ApiError {
  if (typeof body === "object" && body !== null) {
    const { error, message } = body as { error?: { code?: unknown; message?: unknown }; message?: unknown };
    if (typeof error?.message === "string") {
      return new ApiError(response.status, String(error.code ?? "error"), error.message);
    }
    // API Gateway's own refusal of a token: {"message":"Unauthorized"}.
    if (typeof message === "string") return new ApiError(response.status, "gateway", message);
  }
  return new ApiError(
    response.status,
    "http",
    `The console API answered ${response.status} ${response.statusText}`,
  );
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
