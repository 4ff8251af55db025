// An immutable list that appends in O(1): every version sees exactly its own items, while versions
// share one array underneath. Appending to the newest version pushes in place; appending to an
// older one (a transition whose commit failed was thrown away, and its room tries again) copies first.

export class AppendOnly<T> implements Iterable<T> {
  private constructor(
    private readonly items: T[],
    readonly length: number,
  ) {}

  static of<T>(items: Iterable<T> = []): AppendOnly<T> {
    const copy = [...items];
    return new AppendOnly(copy, copy.length);
  }

  /** A new version with `item` at the end; this one is unchanged. */
  append(item: T): AppendOnly<T> {
    return this.appendAll([item]);
  }

  /** A new version with `items` at the end, in their order; this one is unchanged. */
  appendAll(items: readonly T[]): AppendOnly<T> {
    const base = this.items.length === this.length ? this.items : this.items.slice(0, this.length);
    for (const item of items) base.push(item);
    return new AppendOnly(base, base.length);
  }

  at(i: number): T | undefined {
    const k = i < 0 ? this.length + i : i;
    return k >= 0 && k < this.length ? this.items[k] : undefined;
  }

  /** A plain array of this version's items (a copy). */
  toArray(): T[] {
    return this.items.slice(0, this.length);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.items[i];
  }
}
