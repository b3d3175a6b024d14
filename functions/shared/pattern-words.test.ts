import { describe, expect, it } from "vitest";
import { charactersRefused, patternInWords } from "./pattern-words.js";

describe("a schema pattern in words", () => {
  it("says a name's pattern: its characters, its first one and its length", () => {
    expect(patternInWords("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")).toBe(
      'letters, digits, ".", "_" and "-" only, starting with a letter or a digit, 1 to 128 characters',
    );
    expect(patternInWords("^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,127}$")).toBe(
      'letters, digits, spaces, ".", "_", ":" and "-" only, starting with a letter or a digit, 1 to 128 characters',
    );
  });

  it("says a hash's pattern, and a literal prefix", () => {
    expect(patternInWords("^[0-9a-f]{64}$")).toBe('digits and "a" to "f" only, 64 characters');
    expect(patternInWords("^whsec_[A-Za-z0-9+/]+$")).toBe(
      'letters, digits, "+" and "/" only, after "whsec_"',
    );
  });

  it("has no words for a pattern of another form", () => {
    expect(patternInWords("^(device|agent|property):.+$")).toBeUndefined();
    expect(patternInWords("^(?!.*\\.\\.)[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")).toBeUndefined();
    expect(patternInWords("^\\S+$")).toBeUndefined();
    expect(patternInWords("^wh-[0-9]{13}-[A-Za-z0-9-]{1,64}$")).toBeUndefined();
  });

  it("names the characters of a value that no class of the pattern allows", () => {
    expect(charactersRefused("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", "a/b c/")).toEqual(["/", " "]);
    expect(charactersRefused("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", "too-long-but-fine")).toEqual([]);
  });
});
