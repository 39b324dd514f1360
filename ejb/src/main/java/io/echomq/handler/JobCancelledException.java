package io.echomq.handler;

/**
 * Thrown by a handler to stop a job whose cancel an operator requested
 * ({@link JobContext#cancelRequested()}; {@link JobContext#stopIfCancelRequested()} throws it).
 * Like any exception from a handler, it rolls back the effect transaction, so nothing of the job
 * applies; the worker then ends the job {@code cancelled} through its fenced lease. Thrown when
 * no cancel was requested, it is an ordinary failure and the job is retried.
 *
 * <p>A handler that returns normally commits its effect, and the job ends {@code completed},
 * cancel requested or not: an effect that committed is never reported as cancelled.
 */
public class JobCancelledException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JobCancelledException(String message) {
        super(message);
    }
}
