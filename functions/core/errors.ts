/**
 * Every domain failure Beacon reports to a caller, with a stable code. The HTTP layer maps codes to
 * status codes in one table (functions/shared/http.ts); nothing else decides a status.
 */
export const ErrorCodes = [
  "malformed_json",
  "invalid_payload",
  "payload_too_large",
  "payload_too_deep",
  "unsupported_content_encoding",
  "missing_client_certificate",
  "invalid_client_certificate",
  "certificate_revoked",
  "tenant_not_bound_to_ca",
  "identity_mismatch",
  "agent_id_not_in_certificate",
  "route_not_found",
  "unauthenticated",
  "forbidden",
  "not_found",
  "result_expired",
  "invalid_request",
  "invalid_csr",
  "certificate_authority_unavailable",
  "operation_not_supported",
  "operation_not_queued",
  "outside_window",
  "confirmation_required",
  "cache_unavailable",
  "rollout_in_progress",
  "rollout_state",
  "rollout_conflict",
  "flow_incompatible",
  "unsupported_media_type",
  "asset_exists",
  "asset_upload_incomplete",
  "asset_upload_mismatch",
  "group_exists",
  "asset_in_use",
  "resource_set_conflict",
  "subscription_limit",
  "parameter_limit",
  "parameter_value_missing",
  "parameters_not_ready",
  "secret_unavailable",
  "webhook_tester_unavailable",
  "debug_bundle_too_large",
  "debug_bundle_exists",
  "debug_bundle_not_expected",
] as const;

export type ErrorCode = (typeof ErrorCodes)[number];

export class BeaconError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** What a caller can act on beyond the message, in the error body as it is (the undeclared parameters of a flow). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "BeaconError";
  }
}

export const isBeaconError = (error: unknown): error is BeaconError => error instanceof BeaconError;
