import type { ComponentChildren } from "preact";

const WIDTH = 600;
const HEIGHT = 120;

export interface Bar {
  key: string;
  value: number;
  /** What hovering over the bar says. */
  title: string;
}

/**
 * Bars of counts scaled to the largest, in `slots` places (the bars' number unless the chart keeps room for
 * more, as a month's days do); `label` is what a screen reader hears instead, `children` the axis and caption.
 */
export function BarChart({
  bars,
  slots = bars.length,
  label,
  children,
}: {
  bars: Bar[];
  slots?: number;
  label: string;
  children: ComponentChildren;
}) {
  const peak = Math.max(1, ...bars.map((bar) => bar.value));
  const slot = WIDTH / Math.max(slots, 1);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={label}>
        {bars.map((bar, index) => {
          const height = Math.round((bar.value / peak) * (HEIGHT - 4));
          return (
            <rect
              key={bar.key}
              x={index * slot + 2}
              y={HEIGHT - height}
              width={Math.max(slot - 4, 1)}
              height={height}
              class="bar"
            >
              <title>{bar.title}</title>
            </rect>
          );
        })}
      </svg>
      {children}
    </figure>
  );
}
