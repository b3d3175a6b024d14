import { LISTED_ATTENTION_REASONS, type ListedAttentionReason } from "../agents/attention.js";

/**
 * An agent's place in a reason's index: its score there (offline: when it was last seen; ERROR bulletins: until
 * when they hold; the others: since when the reason holds) and its id. The indexes keep agents in
 * (score, agent id) order, so the attention list pages through them by it and reads a page's worth each time.
 */
export interface AttentionPosition {
  score: number;
  agentId: string;
}

/** Which way a page reads an index, and after which position. */
export interface AttentionPageRequest {
  after?: AttentionPosition;
  limit: number;
  descending?: boolean;
}

/** The scores at which a reason holds: above `above` and below `below` (both exclusive), either open. */
export interface AttentionScoreRange {
  above?: number;
  below?: number;
}

/**
 * Where the reason holds in its index at `now`: offline agents were last seen before their class's `onlineSince`,
 * ERROR bulletins hold until their score, the other reasons while the agent is in the index.
 */
export function attentionScoreRange(
  reason: ListedAttentionReason,
  onlineSince: number,
  now: number,
): AttentionScoreRange {
  if (reason === "offline") return { below: onlineSince };
  if (reason === "errorBulletins") return { above: now };
  return {};
}

/** Orders positions by score, then agent id, as the cache's sorted sets do (descending: the reverse). */
export function comparePositions(a: AttentionPosition, b: AttentionPosition, descending = false): number {
  const order = a.score - b.score || (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0);
  return descending ? -order : order;
}

/**
 * The page of these positions a request asks for: those in the range, after its position, in order, at most
 * its limit. The cache's adapters read each class's index for at most that many, then merge them here.
 */
export function pageOfPositions(
  positions: AttentionPosition[],
  range: AttentionScoreRange,
  request: AttentionPageRequest,
): AttentionPosition[] {
  const { after, descending } = request;
  return positions
    .filter(
      ({ score }) =>
        (range.above === undefined || score > range.above) &&
        (range.below === undefined || score < range.below),
    )
    .filter((position) => after === undefined || comparePositions(position, after, descending) > 0)
    .sort((a, b) => comparePositions(a, b, descending))
    .slice(0, request.limit);
}

/**
 * Where an attention list stopped: the reason it was reading (in LISTED_ATTENTION_REASONS' order, for `any`)
 * and the last position it read there, none when it is to start that reason from its first agent.
 */
export interface AttentionCursor {
  reason: ListedAttentionReason;
  after?: AttentionPosition;
}

/** The cursor as the list's `next` carries it: `reason`, or `reason:score:agentId`. */
export function attentionCursorText({ reason, after }: AttentionCursor): string {
  return after === undefined ? reason : `${reason}:${after.score}:${after.agentId}`;
}

/** The cursor `attentionCursorText` wrote; undefined for any other text. */
export function attentionCursorOf(text: string): AttentionCursor | undefined {
  const [reason, score, ...id] = text.split(":");
  const agentId = id.join(":");
  if (!LISTED_ATTENTION_REASONS.includes(reason as ListedAttentionReason)) return undefined;
  if (score === undefined) return { reason: reason as ListedAttentionReason };
  if (!/^-?\d+(\.\d+)?$/.test(score) || agentId === "") return undefined;
  return { reason: reason as ListedAttentionReason, after: { score: Number(score), agentId } };
}

/** Whether the text is an attention list's cursor. */
export const isAttentionCursor = (text: string): boolean =>
  text.length <= 256 && attentionCursorOf(text) !== undefined;
