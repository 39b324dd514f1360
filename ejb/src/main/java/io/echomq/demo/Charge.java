package io.echomq.demo;

/**
 * The payload of a demo payments job: charge {@code amountCents} to {@code account}.
 *
 * @param account     the account to charge (created on first use)
 * @param amountCents a positive amount in cents
 */
public record Charge(String account, long amountCents) {
}
