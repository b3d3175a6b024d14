/**
 * A schema `pattern` said in words, for the person whose value did not match it: `letters, digits, ".", "_"
 * and "-", starting with a letter or a digit, 1 to 128 characters` rather than `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`.
 * It reads the patterns the API documents are written with: literal characters and character classes, each
 * with an optional count. Any other pattern has no words here, and the caller says only that the value does
 * not have the form the field takes.
 */

/** One step of a pattern: a character class or a literal character, taken `min` to `max` times. */
interface Step {
  /** The characters as a character class's body, `A-Za-z0-9._-`. */
  chars: string;
  literal?: string;
  min: number;
  max: number;
}

/** Ranges with a name of their own, and how one of them is said. */
const NAMED_RANGES: { range: string; plural: string; one: string }[] = [
  { range: "A-Z", plural: "capital letters", one: "a capital letter" },
  { range: "a-z", plural: "small letters", one: "a small letter" },
  { range: "0-9", plural: "digits", one: "a digit" },
];

function stepsOf(pattern: string): Step[] | undefined {
  const body = /^\^(.*)\$$/.exec(pattern)?.[1];
  if (body === undefined) return undefined;
  const steps: Step[] = [];
  let rest = body;
  while (rest !== "") {
    const unit = /^(?:\[((?:\\.|[^\]\\])+)\]|([A-Za-z0-9_-]))/.exec(rest);
    if (unit === null) return undefined;
    rest = rest.slice(unit[0].length);
    const count = /^(?:\{(\d+)(?:,(\d+))?\}|([?+*]))?/.exec(rest) as RegExpExecArray;
    rest = rest.slice(count[0].length);
    const [min, max] =
      count[3] === "?"
        ? [0, 1]
        : count[3] === "+"
          ? [1, Number.POSITIVE_INFINITY]
          : count[3] === "*"
            ? [0, Number.POSITIVE_INFINITY]
            : count[1] !== undefined
              ? [Number(count[1]), count[2] === undefined ? Number(count[1]) : Number(count[2])]
              : [1, 1];
    const literal = unit[2];
    steps.push({ chars: literal ?? (unit[1] as string), literal, min, max });
  }
  return steps;
}

/** A character class's body in words: `["letters", "digits", '"."']`, and one of it as `a letter or a digit`. */
function charactersOf(chars: string): { plural: string[]; one: string[] } {
  let rest = chars.replace(/\\(.)/g, "$1");
  const plural: string[] = [];
  const one: string[] = [];
  const named = NAMED_RANGES.filter(({ range }) => rest.includes(range));
  const bothCases = named.some(({ range }) => range === "A-Z") && named.some(({ range }) => range === "a-z");
  for (const { range, plural: many, one: single } of named) {
    rest = rest.replace(range, "");
    if (bothCases && range === "A-Z") continue;
    plural.push(bothCases && range === "a-z" ? "letters" : many);
    one.push(bothCases && range === "a-z" ? "a letter" : single);
  }
  for (const range of rest.match(/.-./g) ?? []) {
    rest = rest.replace(range, "");
    plural.push(`"${range[0]}" to "${range[2]}"`);
    one.push(`one of "${range[0]}" to "${range[2]}"`);
  }
  for (const char of rest) {
    const said = char === " " ? "spaces" : `"${char}"`;
    plural.push(said);
    one.push(char === " " ? "a space" : said);
  }
  return { plural, one };
}

const listed = (words: string[], and: "and" | "or") =>
  words.length < 2 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} ${and} ${words[words.length - 1]}`;

function lengthOf(steps: Step[]): string {
  const min = steps.reduce((sum, { min: least }) => sum + least, 0);
  const max = steps.reduce((sum, { max: most }) => sum + most, 0);
  if (max === Number.POSITIVE_INFINITY) return min > 1 ? `at least ${min} characters` : "";
  if (min === max) return `${max} character${max === 1 ? "" : "s"}`;
  return `${min} to ${max} characters`;
}

/** The pattern in words, or undefined when it is not one of the simple forms read here. */
export function patternInWords(pattern: string): string | undefined {
  const steps = stepsOf(pattern);
  if (steps === undefined || steps.length === 0) return undefined;
  const prefix = steps.findIndex((step) => step.literal === undefined);
  if (prefix < 0) return undefined;
  const literal = steps
    .slice(0, prefix)
    .map((step) => step.literal)
    .join("");
  const classes = steps.slice(prefix);
  if (classes.some((step) => step.literal !== undefined)) return undefined;
  const [first, ...others] = classes as [Step, ...Step[]];
  const main = others.length === 1 && first.min === 1 && first.max === 1 ? (others[0] as Step) : undefined;
  if (others.length > 0 && main === undefined) return undefined;
  const parts = [`${listed(charactersOf((main ?? first).chars).plural, "and")} only`];
  if (literal !== "") parts.push(`after "${literal}"`);
  if (main !== undefined && main.chars !== first.chars)
    parts.push(`starting with ${listed(charactersOf(first.chars).one, "or")}`);
  const length = lengthOf(classes);
  if (length !== "") parts.push(length);
  return parts.join(", ");
}

/** The characters of `value` that no character class of the pattern allows, each once. */
export function charactersRefused(pattern: string, value: string): string[] {
  const steps = stepsOf(pattern);
  if (steps === undefined) return [];
  const allowed = new RegExp(`^[${steps.map((step) => step.chars).join("")}]$`);
  return [...new Set([...value].filter((char) => !allowed.test(char)))];
}
