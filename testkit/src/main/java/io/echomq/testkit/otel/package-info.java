/** A loopback OTLP/HTTP receiver that decodes what an exporter sends, for tests that check traces and metrics. */
package io.echomq.testkit.otel;
