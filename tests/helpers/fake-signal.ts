/** A stand-in for a Lumino signal, for fake kernels in unit tests. */
export class FakeSignal<T> {
  private slots = new Set<(sender: unknown, value: T) => void>();
  connect(fn: (sender: unknown, value: T) => void) {
    this.slots.add(fn);
    return true;
  }
  disconnect(fn: (sender: unknown, value: T) => void) {
    return this.slots.delete(fn);
  }
  emit(value: T) {
    for (const fn of [...this.slots]) fn(this, value);
  }
}
