/**
 * Shell completion from the program itself: every command's subcommands and options, walked from commander's
 * tree into a table the script looks words up in, so a new command completes without touching this file.
 * zsh runs the bash script through bashcompinit.
 */
import type { Command } from "commander";

export const SHELLS = ["bash", "zsh"] as const;
export type Shell = (typeof SHELLS)[number];

/** Each command path ("" for the program, "rollouts watch") and the words that may follow it. */
export function completionWords(program: Command): Map<string, string[]> {
  const words = new Map<string, string[]>();
  const flags = (command: Command) =>
    command.options.flatMap((option) => [option.long, option.short].filter((flag) => flag !== undefined));
  // The program's own options (--json, --context) go anywhere.
  const everywhere = [...flags(program), "--help"];
  const walk = (command: Command, path: string) => {
    const own = command === program ? [] : flags(command);
    words.set(path, [...command.commands.map((sub) => sub.name()), ...own, ...everywhere]);
    for (const sub of command.commands) walk(sub, path === "" ? sub.name() : `${path} ${sub.name()}`);
  };
  walk(program, "");
  return words;
}

export function completionScript(program: Command, shell: Shell): string {
  const entries = [...completionWords(program)]
    .map(([path, words]) => `  [${JSON.stringify(path)}]=${JSON.stringify(words.join(" "))}`)
    .join("\n");
  const bash = `# beacon completion for ${shell}: source it, or add it to your shell's start-up file.
declare -gA _beacon_words=(
${entries}
)
_beacon() {
  local path="" word next
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    next="\${path:+$path }$word"
    [[ -n "\${_beacon_words[$next]+x}" ]] && path="$next"
  done
  COMPREPLY=($(compgen -W "\${_beacon_words[$path]}" -- "\${COMP_WORDS[COMP_CWORD]}"))
}
complete -F _beacon beacon
`;
  return shell === "zsh" ? `autoload -U +X bashcompinit && bashcompinit\n${bash}` : bash;
}
