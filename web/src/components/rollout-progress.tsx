import type { Schemas } from "../api/client";
import { dateTime } from "../format";
import {
  type BatchProgress,
  describeBatch,
  rolloutProgress,
  SEGMENT_WORDS,
  SEGMENTS,
} from "../rollout-progress";

/** A batch's segments side by side, each from where the one before ends. */
function segmentsOf(batch: BatchProgress) {
  let from = 0;
  return SEGMENTS.filter((segment) => batch.counts[segment] > 0).map((segment) => {
    const count = batch.counts[segment];
    from += count;
    return { segment, from: from - count, count };
  });
}

/**
 * A stacked bar per batch of the rollout (done, on the new version, updating, failed, rolled back, to come),
 * with when each batch still to come should start, from the sweeper's real interval and the health wait.
 * Each bar is an image whose text alternative says what it shows; the same words follow it on screen.
 */
export function RolloutProgressBars(props: {
  rollout: Schemas["Rollout"];
  members: Schemas["RolloutAgent"][];
  /** The class's heartbeat interval: an agent takes the update, then reports it, at its heartbeats. */
  heartbeatSeconds: number;
  /** The members are one page of several: only their batches are drawn of those started. */
  partial: boolean;
}) {
  const { rollout } = props;
  const progress = rolloutProgress(rollout, props.members, props.heartbeatSeconds, Date.now());
  const widest = Math.max(1, ...progress.batches.map((batch) => batch.size));
  return (
    <section aria-labelledby="progress" class="rollout-progress">
      <h2 id="progress">Progress by batch</h2>
      <p class="hint">
        About {progress.batchSeconds} s a batch: the sweeper runs every {rollout.sweeperIntervalSeconds} s,
        the class's agents heartbeat every {props.heartbeatSeconds} s (one heartbeat takes the update, the
        next reports it) and each agent soaks {rollout.plan.soakSeconds} s
        {rollout.plan.batchIntervalSeconds > 0 &&
          `, batches at least ${rollout.plan.batchIntervalSeconds} s apart`}
        .
        {progress.expectedEnd !== undefined &&
          ` The last batch should be over by ${dateTime(new Date(progress.expectedEnd).toISOString())}.`}
        {progress.skipped > 0 &&
          ` ${progress.skipped} agents passed over (offline, on the version already, or unable to take it).`}
        {props.partial && " Started batches of agents on other pages are drawn there."}
      </p>
      <ol class="batches">
        {progress.batches.map((batch) => {
          const words = describeBatch(batch);
          const when =
            batch.expectedStart === undefined
              ? ""
              : `, expected to start ${dateTime(new Date(batch.expectedStart).toISOString())}`;
          return (
            <li key={batch.batch}>
              <svg
                class="batch-bar"
                role="img"
                aria-label={`${words}${when}`}
                viewBox={`0 0 ${widest} 1`}
                preserveAspectRatio="none"
              >
                {segmentsOf(batch).map(({ segment, from, count }) => (
                  <rect key={segment} class={`segment-${segment}`} x={from} y={0} width={count} height={1} />
                ))}
              </svg>
              <p class="batch-words" aria-hidden="true">
                {words}
                {when}
              </p>
            </li>
          );
        })}
      </ol>
      <p class="legend" aria-hidden="true">
        {SEGMENTS.map((segment) => (
          <span key={segment}>
            <span class={`swatch segment-${segment}`} /> {SEGMENT_WORDS[segment]}
          </span>
        ))}
      </p>
    </section>
  );
}
