import { Fragment } from "preact";
import { useId, useState } from "preact/hooks";
import { dataOf, type Schemas } from "../api/client";
import { dateTime } from "../format";
import type { FlowParameter } from "../parameters";
import { type ApiRoute, mayCall } from "../session";
import { ConfirmedAction } from "./confirmed-action";
import { useConsole } from "./console";
import { SubmitRow, TableFrame, TableHead, useAction } from "./resource";

type ParameterEntry = Schemas["ParameterEntry"];

/** One layer of values as a page changes them, through its holder's own routes (a class's, an agent's). */
export interface ParameterLayer {
  /** Whose values they are, as a sentence ends: "for the class". */
  holder: string;
  /** The route that deletes a value, which the page offers only to a session that may call it. */
  deleteRoute: ApiRoute;
  put(name: string, value: Schemas["ParameterValueRequest"]): Promise<{ created: boolean }>;
  remove(name: string): Promise<unknown>;
}

/** A PUT of a value: the API's refusal as an error, else whether the value is new at its layer (201) or replaced one. */
export async function putOutcome(
  request: Promise<{ data?: ParameterEntry; error?: unknown; response: Response }>,
): Promise<{ created: boolean }> {
  const reply = await request;
  await dataOf(Promise.resolve(reply));
  return { created: reply.response.status === 201 };
}

/** A value as the console shows it: the text, or where its secret is kept; a secret itself never reaches the page. */
export function ParameterValueText(props: { value?: string; secretRef?: string }) {
  if (props.secretRef !== undefined) {
    return (
      <>
        <span class="mono">{props.secretRef}</span>
        <span class="badge">secret reference</span>
      </>
    );
  }
  if (props.value === undefined) return <span class="muted">no value</span>;
  return props.value === "" ? <span class="muted">empty text</span> : <span class="mono">{props.value}</span>;
}

/** The values set at one layer, each deletable (after a confirmation) by a session that may. */
export function ParameterValues(props: {
  label: string;
  entries: ParameterEntry[];
  layer: ParameterLayer;
  onRemoved: () => void;
}) {
  const { session } = useConsole();
  const layer = mayCall(session, props.layer.deleteRoute) ? props.layer : undefined;
  return (
    <TableFrame label={props.label}>
      <table>
        <TableHead
          columns={["Name", "Value", "Set by", "Set at", ...(layer ? [{ hidden: "Delete" }] : [])]}
        />
        <tbody>
          {props.entries.map((entry) => (
            <tr key={entry.name}>
              <td class="mono">{entry.name}</td>
              <td class="wrap">
                <ParameterValueText value={entry.value} secretRef={entry.secretRef} />
              </td>
              <td>{entry.updatedBy}</td>
              <td>{dateTime(entry.updatedAt)}</td>
              {layer && (
                <td>
                  <ConfirmedAction
                    ask={
                      <>
                        Delete…<span class="visually-hidden"> {entry.name}</span>
                      </>
                    }
                    confirm={`Delete ${entry.name}`}
                    keep="Keep it"
                    act={() => layer.remove(entry.name)}
                    onDone={props.onRemoved}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

function describeDeclaration(parameter: FlowParameter): string {
  const what = parameter.sensitive
    ? "The flow declares it sensitive: its value is a reference to a secret, never the secret itself."
    : "The flow declares it.";
  const fallback = parameter.default === undefined ? "" : ` Its default: ${parameter.default}.`;
  return `${what}${parameter.description ? ` ${parameter.description}` : ""}${fallback}`;
}

type ValueKind = "value" | "secretRef";

/**
 * Sets a value at the layer: a name picked from those the flow declares, or any other, and either text or a
 * reference to a secret; a parameter the flow declares sensitive is offered the reference alone.
 */
export function SetParameter(props: {
  layer: ParameterLayer;
  declared: readonly FlowParameter[];
  onSet: () => void;
}) {
  const { session } = useConsole();
  const [state, run] = useAction();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ValueKind>("value");
  const [notice, setNotice] = useState<string>();
  const namesId = useId();
  const hintId = useId();
  const declaration = props.declared.find((parameter) => parameter.name === name.trim());
  const secretOnly = declaration?.sensitive === true;
  const chosen: ValueKind = secretOnly ? "secretRef" : kind;

  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const text = String(new FormData(form).get("text") ?? "");
    const named = name.trim();
    const set = await run(() =>
      props.layer.put(named, chosen === "secretRef" ? { secretRef: text.trim() } : { value: text }),
    );
    if (set) {
      setNotice(`${set.created ? "Set" : "Replaced"} ${named} ${props.layer.holder}.`);
      form.reset();
      setName("");
      props.onSet();
    }
  }

  return (
    <details class="panel">
      <summary>Set a parameter value</summary>
      <form class="stacked" onSubmit={submit}>
        <label>
          Parameter name
          <input
            name="name"
            required
            maxLength={256}
            autoComplete="off"
            list={namesId}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </label>
        <datalist id={namesId}>
          {props.declared.map((parameter) => (
            <option key={parameter.name} value={parameter.name}>
              {parameter.sensitive ? "sensitive" : parameter.description}
            </option>
          ))}
        </datalist>
        {declaration ? (
          <p class="hint">{describeDeclaration(declaration)}</p>
        ) : (
          props.declared.length > 0 && (
            <p class="hint">
              The flow declares {props.declared.map((parameter) => parameter.name).join(", ")}; any other name
              is kept too.
            </p>
          )
        )}
        <fieldset>
          <legend>Kind of value</legend>
          <label class="inline">
            <input
              type="radio"
              name="kind"
              checked={chosen === "value"}
              disabled={secretOnly}
              onChange={() => setKind("value")}
            />
            text
          </label>
          <label class="inline">
            <input
              type="radio"
              name="kind"
              checked={chosen === "secretRef"}
              onChange={() => setKind("secretRef")}
            />
            a reference to a secret
          </label>
        </fieldset>
        {chosen === "secretRef" ? (
          <Fragment key="secretRef">
            <label>
              Secret reference
              <input
                name="text"
                required
                maxLength={2048}
                placeholder={`ssm:/beacon/${session.tenant}/…`}
                aria-describedby={hintId}
              />
            </label>
            <p class="hint" id={hintId}>
              The secret stays in AWS Secrets Manager or SSM Parameter Store and is read when an agent
              downloads its flow: a secret's full ARN (its name below <code>beacon/{session.tenant}/</code>),
              or <code>ssm:</code> and a parameter's name below <code>/beacon/{session.tenant}/</code>.
            </p>
          </Fragment>
        ) : (
          <label key="value">
            Value
            <input name="text" maxLength={4096} />
          </label>
        )}
        <SubmitRow state={state} label="Set value" busyLabel="Setting…" notice={notice} />
      </form>
    </details>
  );
}
