import { useConsole } from "./console";

/**
 * Where a form names an agent class: typed freely by a whole-tenant session, picked from its own classes by
 * a session limited to some, which can name no other. Controlled when it has `onChange`.
 */
export function ClassField(props: {
  name: string;
  value: string;
  required?: boolean;
  onChange?: (className: string) => void;
}) {
  const { session } = useConsole();
  const { name, value, required, onChange } = props;
  const changed =
    onChange &&
    ((event: Event) => onChange((event.currentTarget as HTMLInputElement | HTMLSelectElement).value.trim()));
  if (session.classes === undefined) {
    return (
      <label>
        Class
        <input
          name={name}
          required={required}
          maxLength={128}
          {...(changed ? { value, onChange: changed } : { defaultValue: value })}
        />
      </label>
    );
  }
  // Marked on its option, as the choice is: a select's value would be set before its options exist.
  const choices = required ? session.classes : ["", ...session.classes];
  return (
    <label>
      Class
      <select name={name} required={required} onChange={changed}>
        {choices.map((className) => (
          <option key={className} value={className} selected={className === value}>
            {className === "" ? "any of yours" : className}
          </option>
        ))}
      </select>
    </label>
  );
}
