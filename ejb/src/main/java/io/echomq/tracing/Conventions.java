package io.echomq.tracing;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The attribute names of OpenTelemetry's messaging semantic conventions that EchoMQ sets, and its
 * own under {@code echomq.}, in one place (the conventions' artifact is not a stable API to ship).
 */
final class Conventions {

    static final String SYSTEM = "echomq";

    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system.name");

    /** The attempt this delivery is (1 for the first): the job's fencing token. */
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("echomq.job.attempt");
    static final AttributeKey<String> LANE = AttributeKey.stringKey("echomq.job.lane");
    /** What a run came to: {@code success}, {@code failure} or {@code cancelled}. */
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("echomq.job.outcome");
    /** What the queue answered a submission: {@code created}, {@code duplicate}, {@code replaced}, {@code throttled}. */
    static final AttributeKey<String> SUBMISSION = AttributeKey.stringKey("echomq.submission.outcome");
    /** The schedule whose firing made the jobs. */
    static final AttributeKey<String> SCHEDULE = AttributeKey.stringKey("echomq.schedule.name");
    /** What the queue made of a settlement: {@code completed}, {@code retried}, {@code dead}, {@code cancelled}, {@code rejected}, {@code abandoned}. */
    static final AttributeKey<String> SETTLEMENT = AttributeKey.stringKey("echomq.settlement");

    static final String SUCCESS = "success";
    static final String CANCELLED = "cancelled";
    static final String FAILURE = "failure";

    private Conventions() {
    }

    /** The run's outcome for an {@code error.type} (null: the effect is in). */
    static String outcome(String errorType) {
        return errorType == null ? SUCCESS : CANCELLED.equals(errorType) ? CANCELLED : FAILURE;
    }
}
