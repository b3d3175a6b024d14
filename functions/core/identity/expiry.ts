import type { CertificateExpiringEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { publishReportingFailure } from "../events/publishing.js";
import { dropUndefined } from "../json.js";
import type { Clock, IdGenerator } from "../ports.js";
import { certificateState, DAY_MS } from "./certificates.js";
import type { CertificateRecord, CertificateStore } from "./ports.js";

export interface ExpiryNoticeSettings {
  /** Days before its notAfter at which a certificate is announced as expiring. */
  warningDays: number;
  /** Most certificates one run announces; the rest wait for the next run, soonest first. */
  maxPerRun: number;
}

export interface ExpiryNoticeOutcome {
  announced: number;
  /** More were due than one run announces. */
  more: boolean;
  /** The announcements could not be put on the stream; they are not made again. */
  streamError?: unknown;
}

/**
 * The sweeper's announcement of certificates entering the expiry window: each one once, as a
 * `certificate.expiring` event. The store finds the due ones through a sparse index (no scan) and records
 * each announcement conditionally, so overlapping or repeated runs announce a certificate once; a revoked
 * certificate is never announced, nor one of a retired CA (it fails the handshake already: it has no expiry
 * to warn of), though it is marked as one, to leave the due ones.
 */
export function makeExpiryNotices(deps: {
  store: CertificateStore;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  settings: ExpiryNoticeSettings;
  /** The CAs the agent ingress trusts, where the deployment tells (CertificateAuthority.trustedSigners). */
  trustedSigners(): Promise<ReadonlySet<string> | undefined>;
}) {
  const { store, events, clock, ids, settings } = deps;
  return async function announceExpiring(): Promise<ExpiryNoticeOutcome> {
    const now = clock.now();
    const due = await store.dueForExpiryNotice(now + settings.warningDays * DAY_MS, settings.maxPerRun + 1);
    const trusted = due.length === 0 ? undefined : await deps.trustedSigners();
    const notices: CertificateExpiringEvent[] = [];
    for (const record of due.slice(0, settings.maxPerRun)) {
      const retired = certificateState(record, now, trusted) === "retired";
      if ((await store.markExpiryAnnounced(record.tenant, record.serial, now)) && !retired)
        notices.push(expiringEvent(record, now, ids.newId(), settings.warningDays));
    }
    const streamError = await publishReportingFailure(events, notices);
    return { announced: notices.length, more: due.length > settings.maxPerRun, streamError };
  };
}

export function expiringEvent(
  record: CertificateRecord,
  at: number,
  eventId: string,
  warningDays: number,
): CertificateExpiringEvent {
  return dropUndefined({
    type: "certificate.expiring",
    version: 1,
    eventId,
    tenant: record.tenant,
    at,
    serial: record.serial,
    kind: record.kind,
    agentId: record.agentId,
    fleetName: record.fleetName,
    subjectDN: record.subjectDN,
    notAfter: record.notAfter,
    warningDays,
  });
}
