/**
 * A host's CPU slots for jobs, granted strictly in arrival order: a job waiting for many slots
 * is never overtaken by smaller ones that came after it, so it cannot starve.
 */
export interface CpuPool {
  /** Resolves with the release (idempotent) once `n` slots are held, or with null when `signal` aborts first: the job leaves the queue. */
  acquire(n: number, signal: AbortSignal): Promise<(() => void) | null>;
}

interface Waiter {
  n: number;
  grant(): void;
}

export function createCpuPool(size: number): CpuPool {
  let free = size;
  const queue: Waiter[] = [];
  const pump = () => {
    while (queue.length > 0 && queue[0].n <= free) {
      const next = queue.shift()!;
      free -= next.n;
      next.grant();
    }
  };
  return {
    acquire(n, signal) {
      return new Promise((resolve) => {
        if (signal.aborted) return resolve(null);
        let held = true;
        const release = () => {
          if (!held) return;
          held = false;
          free += n;
          pump();
        };
        const waiter: Waiter = {
          n,
          grant: () => {
            signal.removeEventListener('abort', leave);
            resolve(release);
          },
        };
        // The head leaving may let the ones behind it fit.
        const leave = () => {
          queue.splice(queue.indexOf(waiter), 1);
          pump();
          resolve(null);
        };
        signal.addEventListener('abort', leave, { once: true });
        queue.push(waiter);
        pump();
      });
    },
  };
}
