/*
 * Loaded once into the workflow sandbox before the SDK freezes its globals (a preload module:
 * services/worker/workflow-bundle.ts), so it holds for every workflow the worker runs.
 *
 * The SDK makes an Error for every promise workflow code creates, for its stack-trace query, and
 * maps each frame through the bundle's source map: at V8's default of ten frames that was a third
 * of the time the worker spends running workflow code (docs/performance.md, "Stack traces in
 * workflow code"). Three frames still show where an error was thrown and the two calls above it.
 */
Error.stackTraceLimit = 3;

export {};
