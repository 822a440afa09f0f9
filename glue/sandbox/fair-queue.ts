// The sandbox pool's wait queue, fair by principal: when a worker frees, the next run is taken
// round-robin across the principals that have runs waiting, first come first served within one
// principal. A principal whose run joins the queue is served after at most one run of each other
// principal waiting, however many those queued (one principal's burst never stands in front of
// another's single program). With one principal (`local` on stdio) this is a plain FIFO.

export class FairQueue<T> {
  /** Each waiting principal's runs, oldest first; the Map's order is the turn order (head: next). */
  private readonly byPrincipal = new Map<string, T[]>();
  private count = 0;

  /** Runs waiting, over every principal (the pool's `queue` bounds this total). */
  get size(): number {
    return this.count;
  }

  /** A principal's first waiting run joins the turn at its end; a later one waits behind its own. */
  push(principal: string, item: T): void {
    const own = this.byPrincipal.get(principal);
    if (own) own.push(item);
    else this.byPrincipal.set(principal, [item]);
    this.count++;
  }

  /** The next run: the oldest of the principal whose turn it is, who then goes to the end of the turn. */
  shift(): T | undefined {
    const first = this.byPrincipal.entries().next();
    if (first.done) return undefined;
    const [principal, own] = first.value;
    const item = own.shift()!;
    this.count--;
    // Deleting and setting again moves the principal to the end of the Map's order.
    this.byPrincipal.delete(principal);
    if (own.length > 0) this.byPrincipal.set(principal, own);
    return item;
  }
}
