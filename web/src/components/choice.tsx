/**
 * A labelled select of a form, uncontrolled, starting at `initial`: the choice is marked on its option,
 * because a select's default value would be set before its options exist.
 */
export function Choice(props: {
  label: string;
  name: string;
  initial: string;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        {props.options.map(([value, label]) => (
          <option key={value} value={value} selected={value === props.initial}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}
