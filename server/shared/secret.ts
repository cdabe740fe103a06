// A secret that cannot be printed by accident: logs, JSON and template strings show ***.
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON(): string {
    return '***';
  }
  toString(): string {
    return '***';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret(***)';
  }
}
