import { inspect } from 'node:util';

/** A value that must not be shown: printed, inspected or serialised, it is a placeholder. */
export class Secret {
  #value;

  constructor(value) {
    this.#value = value;
  }

  reveal() {
    return this.#value;
  }

  /** `text` with every occurrence of the value replaced by a placeholder. */
  redact(text) {
    return this.#value ? text.split(this.#value).join('<lockToken>') : text;
  }

  /** A problem body with the value redacted from its strings. */
  redactBody(body) {
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k,
      typeof v === 'string' && k !== 'lockToken' ? this.redact(v) : v]));
  }

  toString() {
    return '<lockToken>';
  }

  toJSON() {
    return '<lockToken>';
  }

  [inspect.custom]() {
    return '<lockToken>';
  }
}
