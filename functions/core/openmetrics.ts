/** The media type of the OpenMetrics text exposition `renderOpenMetrics` writes. */
export const OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/** A sample of a family: its labels (name to value) and its value. */
export interface MetricSample {
  labels?: Readonly<Record<string, string>>;
  value: number;
}

/**
 * A metric family as OpenMetrics describes one: a gauge is a value now, a counter only grows (its samples
 * are named `<name>_total`). Names and label names are the caller's constants, checked here all the same.
 */
export interface MetricFamily {
  name: string;
  type: "gauge" | "counter";
  help: string;
  samples: readonly MetricSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value as the exposition quotes it: backslash, double quote and line feed escaped. */
export const escapeLabelValue = (value: string): string =>
  value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");

/** A HELP text on one line: backslash, double quote and line feed escaped, as OpenMetrics asks. */
const escapeHelp = escapeLabelValue;

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

function labelsText(labels: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return "";
  for (const [name] of entries) {
    if (!LABEL_NAME.test(name) || name.startsWith("__")) throw new Error(`Not a label name: ${name}`);
  }
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
}

/**
 * The families as an OpenMetrics text exposition (version 1.0.0): each family's TYPE and HELP, then its samples,
 * and the closing `# EOF`. A family without samples is still described, so a scraper knows it exists.
 */
export function renderOpenMetrics(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const { name, type, help, samples } of families) {
    if (!METRIC_NAME.test(name)) throw new Error(`Not a metric name: ${name}`);
    if (seen.has(name)) throw new Error(`Metric family ${name} given twice`);
    seen.add(name);
    lines.push(`# TYPE ${name} ${type}`, `# HELP ${name} ${escapeHelp(help)}`);
    const sampleName = type === "counter" ? `${name}_total` : name;
    for (const { labels, value } of samples) {
      lines.push(`${sampleName}${labelsText(labels)} ${formatValue(value)}`);
    }
  }
  lines.push("# EOF");
  return `${lines.join("\n")}\n`;
}
