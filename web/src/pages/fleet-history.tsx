import { useLocation } from "preact-iso";
import { dataOf, type Schemas } from "../api/client";
import {
  countTicks,
  HISTORY_RANGES,
  linearScale,
  linePath,
  rangeEndingAt,
  stepSecondsFor,
  timeTicks,
} from "../chart-scale";
import { useConsole } from "../components/console";
import { Loaded, TableFrame, TableHead, useInterval, useResource } from "../components/resource";

type Point = Schemas["FleetHistoryPoint"];
type Count = Exclude<keyof Point, "at">;

interface Series {
  count: Count;
  label: string;
  /** Distinct agents of different points may be the same agents: their sum means nothing. */
  summedAs?: "peak";
}

/** Each panel draws up to three series, told apart by line pattern as well as colour (styles.css). */
const PANELS: { title: string; series: Series[] }[] = [
  {
    title: "Heartbeats and agents seen",
    series: [
      { count: "heartbeats", label: "Heartbeats" },
      { count: "agentsSeen", label: "Agents seen", summedAs: "peak" },
    ],
  },
  {
    title: "Registrations, ERROR bulletins and rollout changes",
    series: [
      { count: "registrations", label: "Registrations" },
      { count: "errorBulletins", label: "ERROR bulletins" },
      { count: "rolloutTransitions", label: "Rollout changes" },
    ],
  },
  {
    title: "Agents gone offline and back online",
    series: [
      { count: "agentsWentOffline", label: "Gone offline" },
      { count: "agentsCameOnline", label: "Back online" },
    ],
  },
  {
    title: "Operations done, failed and timed out",
    series: [
      { count: "operationsDone", label: "Operations done" },
      { count: "operationsFailed", label: "Operations failed" },
      { count: "operationsTimedOut", label: "Operations timed out" },
    ],
  },
];

const PATTERNS = ["series-solid", "series-dashed", "series-dotted"] as const;
/** History is counted a few seconds behind the events: a minute's pace keeps up. */
const FOLLOW_PERIOD_MS = 60_000;

const DEFAULT_MINUTES = HISTORY_RANGES[0]?.minutes ?? 60;

/** The range the URL names (`range`, in minutes), when it is one the page offers. */
function rangeOf(query: Record<string, string>): number {
  const minutes = Number(query.range);
  return HISTORY_RANGES.some((range) => range.minutes === minutes) ? minutes : DEFAULT_MINUTES;
}

/**
 * The fleet's history per minute from the stream: a range, an optional class, charts and their numbers. The
 * range and class live in the URL (`range`, `class`), so a shared link or Back shows the same charts.
 */
export function FleetHistory(props: { classes: string[] }) {
  const { client } = useConsole();
  const location = useLocation();
  const minutes = rangeOf(location.query);
  const agentClass = location.query.class ?? "";
  const choose = (next: { range?: number; class?: string }) => {
    const params = new URLSearchParams(location.query);
    for (const [name, value] of Object.entries(next)) {
      const isDefault = name === "range" ? value === DEFAULT_MINUTES : value === "";
      if (isDefault) params.delete(name);
      else params.set(name, String(value));
    }
    const search = params.toString();
    location.route(search ? `${location.path}?${search}` : location.path, true);
  };
  const step = stepSecondsFor(minutes);
  const [history, reload] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/fleet/history", {
          params: {
            query: {
              ...rangeEndingAt(Date.now(), minutes),
              step,
              ...(agentClass ? { class: agentClass } : {}),
            },
          },
        }),
      ),
    `history ${minutes} ${agentClass}`,
  );
  useInterval(reload, FOLLOW_PERIOD_MS, history.status === "ready");
  return (
    <section aria-labelledby="history">
      <h2 id="history">History</h2>
      <div class="filters">
        <label>
          Range
          <select value={minutes} onChange={(event) => choose({ range: Number(event.currentTarget.value) })}>
            {HISTORY_RANGES.map((range) => (
              <option key={range.minutes} value={range.minutes}>
                Last {range.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Class
          <select value={agentClass} onChange={(event) => choose({ class: event.currentTarget.value })}>
            <option value="">The whole fleet</option>
            {props.classes.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Loaded resource={history} what="the fleet's history" reload={reload}>
        {(data) => <HistoryFigure history={data} />}
      </Loaded>
    </section>
  );
}

function HistoryFigure({ history }: { history: Schemas["FleetHistory"] }) {
  const { points } = history;
  const series = PANELS.flatMap((panel) => panel.series);
  const per = history.stepSeconds === 60 ? "minute" : `${history.stepSeconds / 60} minutes`;
  const range = `${dayAndTime(history.from)} to ${dayAndTime(history.to)}`;
  const of = history.class === undefined ? "the whole fleet" : `class ${history.class}`;
  if (points.every((point) => series.every(({ count }) => !point[count]))) {
    return (
      <p class="empty">
        Nothing was counted for {of} from {range}. Each event is counted a few seconds after it happens.
      </p>
    );
  }
  const totals = series
    .map(({ count, label, summedAs }) =>
      summedAs === "peak"
        ? `${label.toLowerCase()} at most ${peakOf(points, count)} per ${per}`
        : `${label.toLowerCase()} ${sum(points, count)}`,
    )
    .join(", ");
  return (
    <figure class="chart history">
      <figcaption>
        {capitalised(of)} from {range}, per {per}: {totals}.
      </figcaption>
      <div class="panels">
        {PANELS.map((panel) => (
          <SeriesChart
            key={panel.title}
            title={panel.title}
            series={panel.series}
            history={history}
            per={per}
          />
        ))}
      </div>
      <details>
        <summary>The numbers</summary>
        <TableFrame label={`Fleet history per ${per}`}>
          <table class="wrapped-heads">
            <TableHead columns={["From", ...series.map(({ label }) => label)]} />
            <tbody>
              {points.map((point) => (
                <tr key={point.at}>
                  <td>{shortTime(point.at)}</td>
                  {series.map(({ count }) => (
                    <td key={count}>{point[count] ?? 0}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      </details>
    </figure>
  );
}

/** The chart's drawing box; the SVG scales to the page's width, so a phone shows all of it. */
const WIDTH = 480;
const HEIGHT = 190;
const MARGIN = { left: 40, right: 10, top: 24, bottom: 40 };

function SeriesChart(props: {
  title: string;
  series: Series[];
  history: Schemas["FleetHistory"];
  per: string;
}) {
  const { history, series } = props;
  const from = Date.parse(history.from);
  const to = Date.parse(history.to);
  const half = (history.stepSeconds * 1000) / 2;
  const peaks = series.map(({ count }) => peakOf(history.points, count));
  const yTicks = countTicks(Math.max(...peaks));
  const x = linearScale([from, to], [MARGIN.left, WIDTH - MARGIN.right]);
  const y = linearScale([0, yTicks.at(-1) ?? 1], [HEIGHT - MARGIN.bottom, MARGIN.top]);
  // A label at the right edge would be cut off.
  const xTicks = timeTicks(from, to, 4, -new Date(from).getTimezoneOffset()).filter(
    (tick) => x(tick) <= WIDTH - 24,
  );
  return (
    <div class="series-chart">
      <h3>{props.title}</h3>
      <ul class="legend">
        {series.map(({ count, label }, index) => (
          <li key={count}>
            <svg width="28" height="10" aria-hidden="true">
              <line x1="0" y1="5" x2="28" y2="5" class={`series ${PATTERNS[index]}`} />
            </svg>
            {label}
          </li>
        ))}
      </ul>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${props.title} per ${props.per}: ${series.map(({ label }, index) => `${label} at most ${peaks[index]}`).join(", ")}.`}
      >
        <text x={MARGIN.left} y={12} class="axis-title">
          count per {props.per}
        </text>
        {yTicks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} class="grid" />
            <text x={MARGIN.left - 6} y={y(tick)} class="tick tick-y">
              {tick}
            </text>
          </g>
        ))}
        {xTicks.map((tick) => (
          <text key={tick} x={x(tick)} y={HEIGHT - MARGIN.bottom + 16} class="tick tick-x">
            {shortTime(new Date(tick).toISOString())}
          </text>
        ))}
        <text x={(MARGIN.left + WIDTH - MARGIN.right) / 2} y={HEIGHT - 4} class="axis-title axis-x">
          local time
        </text>
        {series.map(({ count, label }, index) => (
          <path
            key={count}
            d={linePath(
              history.points.map((point) => [x(Date.parse(point.at) + half), y(point[count] ?? 0)]),
            )}
            class={`series ${PATTERNS[index]}`}
          >
            <title>{label}</title>
          </path>
        ))}
      </svg>
    </div>
  );
}

const peakOf = (points: Point[], count: Count) => Math.max(0, ...points.map((point) => point[count] ?? 0));
const sum = (points: Point[], count: Count) =>
  points.reduce((total, point) => total + (point[count] ?? 0), 0);
const capitalised = (text: string) => `${text[0]?.toUpperCase() ?? ""}${text.slice(1)}`;
const shortTime = (iso: string) =>
  new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
const dayAndTime = (iso: string) =>
  new Date(iso).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
