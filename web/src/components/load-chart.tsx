import type { Schemas } from "../api/client";
import { countTicks, linearScale, linePath } from "../chart-scale";
import { dateTime } from "../format";
import { TableFrame, TableHead } from "./resource";

type Sample = Schemas["LoadSample"];

interface Figure {
  label: string;
  /** The figure of a sample as charted; undefined where the sample has none. */
  value: (sample: Sample) => number | undefined;
  /** The figure as the table and the chart's text say it. */
  text: (value: number) => string;
}

/**
 * What the agent page charts of each sample, each only when some sample has it: MiNiFi Java 2.3.0 sends the
 * load average alone, MiNiFi C++ its CPU utilization and memory in use too.
 */
const FIGURES: Figure[] = [
  {
    label: "CPU in use (%)",
    value: (sample) => (sample.cpuUtilization === undefined ? undefined : sample.cpuUtilization * 100),
    text: (value) => `${Math.round(value * 10) / 10} %`,
  },
  { label: "Load average", value: (sample) => sample.cpuLoadAverage, text: String },
  { label: "Memory in use (bytes)", value: (sample) => sample.memoryUsage, text: String },
  { label: "Queued flow files", value: (sample) => sample.queuedFlowFiles, text: String },
  { label: "Queued bytes", value: (sample) => sample.queuedBytes, text: String },
];

/**
 * The agent's load and queues over its latest heartbeats (the samples the cache keeps beside its hot state):
 * a small line chart per figure the agent reports, and the numbers in a table.
 */
export function LoadChart({ samples }: { samples: Sample[] }) {
  if (samples.length === 0) {
    return (
      <p class="empty">
        No load yet: each heartbeat that reports the host's load or the flow's queues adds a sample here.
      </p>
    );
  }
  const figures = FIGURES.filter((figure) => samples.some((sample) => figure.value(sample) !== undefined));
  const from = samples[0]?.at as string;
  const to = samples.at(-1)?.at as string;
  return (
    <figure class="chart history load">
      <figcaption>
        {samples.length} heartbeats from {dateTime(from)} to {dateTime(to)}; the latest:{" "}
        {figures
          .flatMap((figure) => {
            const value = latestOf(samples, figure);
            return value === undefined
              ? []
              : [`${figure.label.replace(/ \(.*\)$/, "")} ${figure.text(value)}`];
          })
          .join(", ")}
        .
      </figcaption>
      <div class="panels">
        {figures.map((figure) => (
          <FigureChart key={figure.label} figure={figure} samples={samples} />
        ))}
      </div>
      <details>
        <summary>The numbers</summary>
        <TableFrame label="The agent's latest heartbeats' load">
          <table class="wrapped-heads">
            <TableHead columns={["Heartbeat", ...figures.map((figure) => figure.label)]} />
            <tbody>
              {samples.map((sample) => (
                <tr key={sample.at}>
                  <td>{dateTime(sample.at)}</td>
                  {figures.map((figure) => {
                    const value = figure.value(sample);
                    return <td key={figure.label}>{value === undefined ? "—" : figure.text(value)}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      </details>
    </figure>
  );
}

/** Ticks of bytes and flow files in the margin's few characters: 15B, 10B, 5B. */
const COMPACT = new Intl.NumberFormat(undefined, { notation: "compact" });

/** The drawing box; the SVG scales to the page's width. */
const WIDTH = 480;
const HEIGHT = 150;
const MARGIN = { left: 56, right: 10, top: 12, bottom: 12 };

function FigureChart({ figure, samples }: { figure: Figure; samples: Sample[] }) {
  const points = samples.flatMap((sample) => {
    const value = figure.value(sample);
    return value === undefined ? [] : [[Date.parse(sample.at), value] as const];
  });
  const times = samples.map((sample) => Date.parse(sample.at));
  const peak = Math.max(0, ...points.map(([, value]) => value));
  const yTicks = countTicks(peak, 3);
  const x = linearScale([Math.min(...times), Math.max(...times)], [MARGIN.left, WIDTH - MARGIN.right]);
  const y = linearScale([0, yTicks.at(-1) ?? 1], [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const latest = latestOf(samples, figure);
  return (
    <div class="series-chart">
      <h3>{figure.label}</h3>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${figure.label} over ${points.length} heartbeats: at most ${figure.text(peak)}${latest === undefined ? "" : `, the latest ${figure.text(latest)}`}.`}
      >
        {yTicks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} class="grid" />
            <text x={MARGIN.left - 6} y={y(tick)} class="tick tick-y">
              {COMPACT.format(tick)}
            </text>
          </g>
        ))}
        <path d={linePath(points.map(([at, value]) => [x(at), y(value)]))} class="series series-solid" />
      </svg>
    </div>
  );
}

function latestOf(samples: Sample[], figure: Figure): number | undefined {
  for (let index = samples.length - 1; index >= 0; index--) {
    const value = figure.value(samples[index] as Sample);
    if (value !== undefined) return value;
  }
  return undefined;
}
