import type { Kernel } from '@jupyterlab/services';

/**
 * Which kernel process a connection last bound to. Every message a kernel sends carries its
 * process's session id (jupyter_client's Session is made anew in each process), so a message
 * under another id means the kernel was restarted, and a `shutdown_reply` on IOPub that the
 * process is going away. Those are the signs a restart asked of the Jupyter REST API by any
 * client leaves for this one: the server sends a `restarting` status only for its own
 * auto-restarts, and the new process's `starting` and busy/idle statuses are lost whenever they
 * are published before the server's IOPub socket has reconnected.
 */
const processes = new WeakMap<Kernel.IKernelConnection, string>();

export function rememberProcess(kernel: Kernel.IKernelConnection, processSession: string): void {
  processes.set(kernel, processSession);
}

/** Calls `ended` for each message that shows the remembered process gone or going; returns the unsubscribe. */
export function onProcessEnd(kernel: Kernel.IKernelConnection, ended: () => void): () => void {
  const onMessage = (_: unknown, { msg, direction }: Kernel.IAnyMessageArgs) => {
    const known = processes.get(kernel);
    if (direction !== 'recv' || known === undefined) return;
    if (msg.header.session !== known || (msg.channel === 'iopub' && msg.header.msg_type === 'shutdown_reply')) ended();
  };
  kernel.anyMessage.connect(onMessage);
  return () => kernel.anyMessage.disconnect(onMessage);
}
