import { useLocation } from "preact-iso";
import { dataOf, type Schemas } from "../api/client";
import { BarChart } from "../components/bar-chart";
import { useConsole } from "../components/console";
import { Page } from "../components/page";
import { Loaded, TableFrame, TableHead, useResource } from "../components/resource";
import { byteSize, dateTime } from "../format";

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
/** A bar's slot is a 31st of the chart, so that a day looks the same in any month, however few have usage. */
const MONTH_DAYS = 31;

/** The month the URL names (`?month=YYYY-MM`), else the current one, in UTC as statements count months. */
const monthOf = (query: Record<string, string | undefined>): string =>
  query.month && MONTH.test(query.month) ? query.month : new Date().toISOString().slice(0, 7);

/** The month's first instant and the next month's, as the usage range's `from` and `to`. */
function rangeOf(month: string) {
  const [year, index] = month.split("-").map(Number) as [number, number];
  return {
    from: new Date(Date.UTC(year, index - 1, 1)).toISOString(),
    to: new Date(Date.UTC(year, index, 1)).toISOString(),
  };
}

const count = (value: number) => value.toLocaleString("en-US");
/** Unit prices are fractions of a cent: shown to six significant figures, as people can compare them. */
const usd = (value: number) => `$${value.toLocaleString("en-US", { maximumSignificantDigits: 6 })}`;
/** Cents, but an amount below a cent to its significant figures rather than $0.00. */
const amount = (value: number) =>
  value > 0 && value < 0.01
    ? usd(value)
    : `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

const UNIT_NAMES: Record<Schemas["UsageStatementLine"]["unit"], string> = {
  agentHours: "Agent-hours",
  heartbeats: "Heartbeats",
  bytesOut: "Bytes out",
  downloadBytes: "Bytes downloaded",
  tableGbMonths: "GB-months in DynamoDB",
  bucketGbMonths: "GB-months in S3",
};

/** GB-months of a few megabytes are millionths: shown to their significant figures, as unit prices are. */
const quantityOf = (line: Schemas["UsageStatementLine"]) =>
  Number.isInteger(line.quantity)
    ? count(line.quantity)
    : line.quantity.toLocaleString("en-US", { maximumSignificantDigits: 6 });

/** The stored figures in the order the page lists them, each with the store that keeps it. */
const STORED_ROWS = [
  ["manifests", "Manifests", "DynamoDB"],
  ["flowVersions", "Flow versions", "DynamoDB"],
  ["assets", "Assets", "S3"],
  ["debugBundles", "Debug bundles", "S3"],
] as const;

/** What the tenant used, hour by hour, and its month priced: for whoever pays for it, so admins only. */
export function Usage() {
  const { client } = useConsole();
  const location = useLocation();
  const month = monthOf(location.query);
  const [statement, reloadStatement] = useResource(
    () => dataOf(client.GET("/api/v1/usage/statement", { params: { query: { month } } })),
    `statement ${month}`,
  );
  const [usage, reloadUsage] = useResource(
    () => dataOf(client.GET("/api/v1/usage", { params: { query: rangeOf(month) } })),
    `usage ${month}`,
  );

  function chooseMonth(event: Event) {
    event.preventDefault();
    const chosen = String(new FormData(event.currentTarget as HTMLFormElement).get("month") ?? "");
    if (MONTH.test(chosen)) location.route(`/usage?month=${chosen}`);
  }

  return (
    <Page title="Usage">
      <form key={month} class="filters" onSubmit={chooseMonth} aria-label="Choose the month">
        <label>
          Month (UTC)
          <input type="month" name="month" defaultValue={month} required />
        </label>
        <div class="form-actions">
          <button type="submit">Show</button>
        </div>
      </form>
      <h2>Statement for {month}</h2>
      <Loaded resource={statement} what="the month's statement" reload={reloadStatement}>
        {(data) => <Statement statement={data} />}
      </Loaded>
      <h2>Stored</h2>
      <Loaded resource={usage} what="what the tenant stores" reload={reloadUsage}>
        {(data) => <StoredTable days={data.storedDays} month={month} />}
      </Loaded>
      <h2>Heartbeats per day</h2>
      <Loaded resource={usage} what="the month's usage" reload={reloadUsage}>
        {(data) =>
          data.hours.length === 0 ? (
            <p class="empty">
              No usage in {month}: the stream consumer meters each heartbeat, acknowledgement and operation of
              the tenant's agents here, hour by hour, within a minute or so of its arrival.
            </p>
          ) : (
            <>
              <DayChart hours={data.hours} />
              <h2>Hours</h2>
              <HoursTable hours={data.hours} />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

function Statement({ statement }: { statement: Schemas["UsageStatement"] }) {
  const { usage, pricedAs } = statement;
  return (
    <>
      <TableFrame label={`Statement for ${statement.month}`}>
        <table>
          <TableHead columns={["Unit", "Quantity", "Unit price", "Amount"]} />
          <tbody>
            {statement.lines.map((line) => (
              <tr key={line.unit}>
                <th scope="row">
                  {UNIT_NAMES[line.unit]}
                  <div class="muted">{line.description}</div>
                </th>
                <td>{quantityOf(line)}</td>
                <td>{usd(line.unitPrice)}</td>
                <td>{amount(line.amount)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={3}>
                Total ({statement.currency})
              </th>
              <td>{amount(statement.total)}</td>
            </tr>
          </tfoot>
        </table>
      </TableFrame>
      <p class="hint">
        Priced as {pricedAs.option} with the capacity model's unit prices
        {pricedAs.overridden.length > 0 ? `, the deployment's own for ${pricedAs.overridden.join(", ")}` : ""}
        . Also metered, priced at nothing: {count(usage.acknowledgements)} acknowledgements,{" "}
        {count(usage.operations)} operations, {byteSize(usage.bytesIn)} in, {count(usage.uploads)} debug
        bundle uploads ({byteSize(usage.uploadBytes)}); {count(usage.activeAgents)} distinct agents in the
        month.
      </p>
    </>
  );
}

/** The month's latest snapshot of what the tenant stores (the sweeper takes one a day). */
function StoredTable({ days, month }: { days: Schemas["UsageStoredDay"][]; month: string }) {
  const latest = days.at(-1);
  if (!latest)
    return (
      <p class="empty">
        No snapshot of what the tenant stores in {month}: the sweeper takes one a day for each tenant with
        agents.
      </p>
    );
  return (
    <>
      <TableFrame label="Stored">
        <table>
          <TableHead columns={["Kind", "Count", "Bytes", "Kept in"]} />
          <tbody>
            {STORED_ROWS.map(([kind, name, store]) => (
              <tr key={kind}>
                <th scope="row">{name}</th>
                <td>{count(latest[kind].count)}</td>
                <td>{byteSize(latest[kind].bytes)}</td>
                <td>{store}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Event archive</th>
              <td />
              <td>{byteSize(latest.archive.bytes)}</td>
              <td>S3</td>
            </tr>
          </tbody>
        </table>
      </TableFrame>
      <p class="hint">
        As of {dateTime(latest.takenAt)}; {days.length} daily snapshot{days.length === 1 ? "" : "s"} in the
        month, each priced as a day of GB-months in the statement.
      </p>
    </>
  );
}

/** The hours' heartbeats added up per day (UTC), a bar each. */
function DayChart({ hours }: { hours: Schemas["UsageHour"][] }) {
  const days = new Map<string, number>();
  for (const hour of hours) {
    const day = hour.hour.slice(0, 10);
    days.set(day, (days.get(day) ?? 0) + hour.heartbeats);
  }
  const bars = [...days.entries()].map(([day, heartbeats]) => ({
    key: day,
    value: heartbeats,
    title: `${day}: ${count(heartbeats)}`,
  }));
  const peak = Math.max(1, ...bars.map((bar) => bar.value));
  return (
    <BarChart
      bars={bars}
      slots={MONTH_DAYS}
      label={`Heartbeats per day: ${bars.map((bar) => bar.title).join("; ")}`}
    >
      <figcaption>
        {bars.length} day{bars.length === 1 ? "" : "s"} with usage; at most {count(peak)} heartbeats a day.
      </figcaption>
    </BarChart>
  );
}

function HoursTable({ hours }: { hours: Schemas["UsageHour"][] }) {
  return (
    <TableFrame label="Usage per hour">
      <table>
        <TableHead
          columns={[
            "Hour",
            "Active agents",
            "Heartbeats",
            "Acknowledgements",
            "Operations",
            "Bytes in",
            "Bytes out",
            "Downloaded",
            "Uploaded",
          ]}
        />
        <tbody>
          {hours.map((hour) => (
            <tr key={hour.hour}>
              <td>{dateTime(hour.hour)}</td>
              <td>{count(hour.activeAgents)}</td>
              <td>{count(hour.heartbeats)}</td>
              <td>{count(hour.acknowledgements)}</td>
              <td>{count(hour.operations)}</td>
              <td>{byteSize(hour.bytesIn)}</td>
              <td>{byteSize(hour.bytesOut)}</td>
              <td>{byteSize(hour.downloadBytes)}</td>
              <td>{byteSize(hour.uploadBytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}
