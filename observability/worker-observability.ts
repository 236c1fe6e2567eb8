import type { WorkerOptions } from '@temporalio/worker';
import type { KernelClient } from '../activities/kernel/index';
import { CellContexts, traceBridgeCalls, type OpHandler, type OpRegistry } from './cell-contexts';
import { countKernels } from './count-kernels';
import { tracedCell, tracedModelCall } from './activity-tracing';
import type { CallModelInput, CallModelResult } from '../activities/call-model';
import type { RunCellInput, RunCellResult } from '../activities/session-activities';
import type { Telemetry } from './init-telemetry';
import { clientTracing, workerTracing } from './temporal-tracing';

export interface WorkerObservability {
  /** For the worker's own Temporal client (the bridge ops' updates carry the cell's trace). */
  clientInterceptors: ReturnType<typeof clientTracing> | undefined;
  bridge<B extends OpRegistry<OpHandler>>(bridge: B): B;
  kernels(kernels: KernelClient): KernelClient;
  /** Spread into Worker.create's options. */
  workerOptions: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  /** The model calls and cells of the steps a worker runs, traced and counted as their activities are. */
  steps<T extends StepCalls>(calls: T): T;
}

type StepCalls = {
  callModel: (call: CallModelInput, ...rest: never[]) => Promise<CallModelResult>;
  cell: (cell: RunCellInput, ...rest: never[]) => Promise<RunCellResult>;
};

/**
 * Everything a worker process wires for telemetry, as one value: each piece is the identity
 * when `telemetry` is absent, so createRecurWorker reads the same with or without it.
 */
export function workerObservability(telemetry: Telemetry | undefined): WorkerObservability {
  if (!telemetry?.spanProcessor) {
    return { clientInterceptors: undefined, bridge: (b) => b, kernels: (k) => k, workerOptions: {}, steps: (calls) => calls };
  }
  const cells = new CellContexts();
  return {
    clientInterceptors: clientTracing(),
    bridge: (b) => traceBridgeCalls(b, cells, telemetry.tracer),
    kernels: (k) => countKernels(k, telemetry.metrics),
    workerOptions: workerTracing(telemetry, cells),
    steps: (calls) => {
      const deps = { tracer: telemetry.tracer, metrics: telemetry.metrics, cells };
      return { ...calls, callModel: tracedModelCall(deps, calls.callModel), cell: tracedCell(deps, calls.cell) };
    },
  };
}
