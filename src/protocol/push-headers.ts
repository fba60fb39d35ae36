/**
 * The headers of a push notification POST beyond the spec's `Authorization` (spec 4.3.3), shared
 * by the server that sends them and the receiver that checks them.
 */

/** The config's `token` (spec 4.3.1), for the receiver to check. */
export const NOTIFICATION_TOKEN_HEADER = 'x-a2a-notification-token';

/**
 * Identifies one delivery — `<taskId>:<configId>:<seq>`, or `<from>-<to>` for coalesced
 * artifact chunks — the same on every retry, so that a receiver drops the duplicates that
 * at-least-once delivery brings.
 */
export const DELIVERY_ID_HEADER = 'x-a2a-delivery-id';
