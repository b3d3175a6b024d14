import type { IdGenerator } from "../../core/ports.js";

export class SequentialIds implements IdGenerator {
  private next = 0;
  newId() {
    return `id-${++this.next}`;
  }
}
