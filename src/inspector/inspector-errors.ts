/**
 * The inspector's own errors: local errors that never cross the A2A wire. A request of the page
 * that is not valid is answered 400 with the message, which names the field and what is wrong.
 */

import { LocalError } from '../index.js';

/** A request of the page that is not valid; nothing was done. */
export class InspectorInputError extends LocalError {}

/** A connection id the backend does not hold (the inspector restarted, or it was replaced). */
export class UnknownConnectionError extends LocalError {}
