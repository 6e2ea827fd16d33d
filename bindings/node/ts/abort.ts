/** `AbortSignal`s for every asynchronous entry point, through the native `Cancel` handle. */

import native = require("./native");
import { abortReason, translate } from "./errors";

/**
 * Runs a native call that takes a `Cancel` handle, cancelled when `signal` aborts.
 *
 * An already-aborted signal rejects at once with its reason, before anything starts. A signal
 * that aborts during the call cancels the native work (its future is dropped: a command agent's
 * process group is killed, an HTTP request closed; a workflow run is recorded as `interrupted`)
 * and rejects with the signal's reason once the native side has stopped, so whatever the
 * rejection wakes sees the work ended. Other failures are translated (`ConfigError`).
 */
export async function cancellable<T>(
  signal: AbortSignal | undefined,
  call: (cancel: native.Cancel) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw abortReason(signal);
  const cancel = new native.Cancel();
  const onAbort = (): void => cancel.cancel();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await call(cancel);
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal);
    throw translate(e);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}
