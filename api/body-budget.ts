/**
 * A budget of body bytes in flight: a request takes its bytes as they arrive and gives them back once its body is
 * complete or refused.
 */
export class BodyBudget {
  #used = 0;
  constructor(readonly limit: number) {}

  get used(): number {
    return this.#used;
  }

  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#used -= bytes;
  }
}
