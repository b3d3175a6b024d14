/**
 * A load test run as pictures: one static HTML file, written beside Artillery's JSON report, with inline
 * SVG charts over the run's periods (Artillery's `intermediate`, about 10 s each): requests a second,
 * p50/p95/p99 response times, errors, and Beacon's own counters. No script and nothing fetched: a browser
 * opens it from disk, and it can be committed or attached as it is.
 */
import { writeFile } from "node:fs/promises";
import { BEACON_COUNTERS, type BeaconCounters, readBeaconCounters } from "./gates.js";
import type { ArtilleryReport, MetricSummary, ScenarioRun } from "./run-scenario.js";

/** One of Artillery's periods, as its JSON report holds them (`period` is its start, ms since the epoch). */
export interface ReportPeriod {
  period: number | string;
  firstMetricAt?: number;
  lastMetricAt?: number;
  counters: Record<string, number>;
  summaries: Record<string, MetricSummary>;
}

export type ReportWithPeriods = ArtilleryReport & { intermediate: ReportPeriod[] };

/** What the charts show of one period; `at` is seconds from the run's first period. */
export interface PeriodPoint {
  at: number;
  requestsPerSecond: number;
  p50: number | undefined;
  p95: number | undefined;
  p99: number | undefined;
  /** Failed agents, errors (timeouts, refused replies) and replies other than 200. */
  errors: number;
}

const periodStart = (period: ReportPeriod): number => Number(period.period);

const inTimeOrder = (report: ReportWithPeriods): ReportPeriod[] =>
  [...report.intermediate].sort((a, b) => periodStart(a) - periodStart(b));

/** Each period's start and end (ms since the epoch, both included): up to the next one's start, or its last metric. */
export function periodWindows(report: ReportWithPeriods): { from: number; to: number }[] {
  const periods = inTimeOrder(report);
  return periods.map((period, index) => {
    const next = periods[index + 1];
    const from = periodStart(period);
    return { from, to: next ? periodStart(next) - 1 : Math.max(from, period.lastMetricAt ?? from) };
  });
}

/** The run's periods as the charts' points, in time order. */
export function seriesOf(report: ReportWithPeriods): PeriodPoint[] {
  const periods = inTimeOrder(report);
  const windows = periodWindows(report);
  const first = windows[0]?.from ?? 0;
  return periods.map((period, index) => {
    const { from, to } = windows[index] ?? { from: first, to: first };
    const seconds = Math.max(1, (to + 1 - from) / 1000);
    const time = period.summaries["http.response_time"];
    const errors = Object.entries(period.counters)
      .filter(
        ([name]) =>
          name.startsWith("errors.") ||
          name === "vusers.failed" ||
          (name.startsWith("http.codes.") && name !== "http.codes.200"),
      )
      .reduce((sum, [, count]) => sum + count, 0);
    return {
      at: Math.round((from - first) / 1000),
      requestsPerSecond: Math.round(((period.counters["http.requests"] ?? 0) / seconds) * 10) / 10,
      p50: time?.median,
      p95: time?.p95,
      p99: time?.p99,
      errors,
    };
  });
}

/** The smallest 1, 2 or 5 times a power of ten at or above `value`: a chart's top that reads well. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((multiple) => multiple * power >= value * (1 - 1e-12)) ?? 10;
  return step * power;
}

/** Maps [domainLow, domainHigh] onto [rangeLow, rangeHigh] linearly; a zero-width domain maps to rangeLow. */
export function linearScale(
  [domainLow, domainHigh]: [number, number],
  [rangeLow, rangeHigh]: [number, number],
): (value: number) => number {
  const width = domainHigh - domainLow;
  return (value) =>
    width === 0 ? rangeLow : rangeLow + ((value - domainLow) / width) * (rangeHigh - rangeLow);
}

export interface ChartSeries {
  name: string;
  /** [x, y]; a point whose y is undefined (nothing measured) breaks the line. */
  points: [number, number | undefined][];
}

const WIDTH = 640;
const HEIGHT = 220;
const MARGIN = { left: 56, right: 12, top: 28, bottom: 32 };
const COLOURS = ["#1f77b4", "#ff7f0e", "#d62728", "#2ca02c", "#9467bd", "#8c564b"];
/** Grid lines per axis: a fifth of a 1, 2 or 5 ceiling is a round number too. */
const TICKS = 5;

const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const format = (value: number): string => String(Number(value.toPrecision(3)));

/** A line chart as an SVG element: one <path> per series, axes from 0 to a nice ceiling, a legend. */
export function lineChart(title: string, unit: string, series: ChartSeries[]): string {
  const xs = series.flatMap((line) => line.points.map(([x]) => x));
  const ys = series.flatMap((line) => line.points.flatMap(([, y]) => (y === undefined ? [] : [y])));
  const xMax = niceCeiling(Math.max(1, ...xs));
  const yMax = niceCeiling(Math.max(0, ...ys));
  const x = linearScale([0, xMax], [MARGIN.left, WIDTH - MARGIN.right]);
  const y = linearScale([0, yMax], [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const paths = series.map((line, index) => {
    let command = "M";
    const segments: string[] = [];
    for (const [px, py] of line.points) {
      if (py === undefined) {
        command = "M";
        continue;
      }
      segments.push(`${command}${x(px).toFixed(1)},${y(py).toFixed(1)}`);
      command = "L";
    }
    return `<path class="series" d="${segments.join(" ")}" fill="none" stroke="${COLOURS[index % COLOURS.length]}" stroke-width="2"><title>${escapeXml(line.name)}</title></path>`;
  });
  const yTicks = Array.from({ length: TICKS + 1 }, (_, index) => (yMax * index) / TICKS).map(
    (value) =>
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#ddd"/>` +
      `<text x="${MARGIN.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${format(value)}</text>`,
  );
  const xTicks = Array.from({ length: TICKS + 1 }, (_, index) => (xMax * index) / TICKS).map(
    (value) =>
      `<text x="${x(value).toFixed(1)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${format(value)}</text>`,
  );
  const legend = series.map(
    (line, index) =>
      `<tspan fill="${COLOURS[index % COLOURS.length]}" dx="${index === 0 ? 0 : 12}">■ ${escapeXml(line.name)}</tspan>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeXml(title)}">`,
    `<text x="${MARGIN.left}" y="16" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${WIDTH - MARGIN.right}" y="16" text-anchor="end">${legend.join("")}</text>`,
    ...yTicks,
    ...xTicks,
    `<text x="${WIDTH - MARGIN.right}" y="${HEIGHT - 4}" text-anchor="end">seconds into the run; ${escapeXml(unit)}</text>`,
    ...paths,
    "</svg>",
  ].join("\n");
}

export interface HtmlReportInput {
  title: string;
  /** Lines under the title: what ran, with which variables, and the verdict. */
  facts: string[];
  report: ReportWithPeriods;
  /** Beacon's counters in each period (periodWindows order), when the function log could be read. */
  beaconCounters?: BeaconCounters[];
}

/** The charts' titles, in the order they appear. */
export const CHART_TITLES = {
  requests: "Requests per second",
  responseTime: "Response time p50 / p95 / p99",
  errors: "Errors",
  beacon: "Beacon's counters",
} as const;

export function htmlReport({ title, facts, report, beaconCounters }: HtmlReportInput): string {
  const points = seriesOf(report);
  const along = (value: (point: PeriodPoint) => number | undefined): [number, number | undefined][] =>
    points.map((point) => [point.at, value(point)]);
  const charts = [
    lineChart(CHART_TITLES.requests, "requests/s", [
      { name: "requests/s", points: along((point) => point.requestsPerSecond) },
    ]),
    lineChart(CHART_TITLES.responseTime, "ms", [
      { name: "p50", points: along((point) => point.p50) },
      { name: "p95", points: along((point) => point.p95) },
      { name: "p99", points: along((point) => point.p99) },
    ]),
    lineChart(CHART_TITLES.errors, "per period", [
      { name: "errors", points: along((point) => point.errors) },
    ]),
  ];
  if (beaconCounters) {
    charts.push(
      lineChart(
        CHART_TITLES.beacon,
        "per period",
        BEACON_COUNTERS.map((counter) => ({
          name: counter,
          points: points.map((point, index) => [point.at, beaconCounters[index]?.[counter]]),
        })),
      ),
    );
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeXml(title)}</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
svg { display: block; margin: 1.5em 0; font: 11px system-ui, sans-serif; }
li { margin: 0.2em 0; }
</style>
</head>
<body>
<h1>${escapeXml(title)}</h1>
<ul>
${facts.map((fact) => `<li>${escapeXml(fact)}</li>`).join("\n")}
</ul>
${charts.join("\n")}
</body>
</html>
`;
}

/** The run's numeric variables as `name=value` pairs: what a reader needs to repeat it. */
export const numericVariables = (run: ScenarioRun): string =>
  Object.entries(run.variables)
    .filter(([, value]) => typeof value === "number")
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");

/**
 * Writes the run's HTML report beside its JSON one (`<name>.html` for `<name>.json`) and returns its path;
 * with a function log, Beacon's counters are read per period from it.
 */
export async function writeRunReport(
  scenario: string,
  run: ScenarioRun,
  jsonReportPath: string,
  { functionLog, facts = [] }: { functionLog?: string; facts?: string[] },
): Promise<string> {
  const report = run.report as ReportWithPeriods;
  const beaconCounters = functionLog
    ? await Promise.all(periodWindows(report).map((window) => readBeaconCounters(functionLog, window)))
    : undefined;
  const file = `${jsonReportPath.replace(/\.json$/, "")}.html`;
  await writeFile(
    file,
    htmlReport({
      title: `Beacon load test: ${scenario}`,
      facts: [
        `${new Date(run.startedAt).toISOString()}, script ${run.script}.yml`,
        numericVariables(run),
        ...facts,
      ],
      report,
      beaconCounters,
    }),
  );
  return file;
}
