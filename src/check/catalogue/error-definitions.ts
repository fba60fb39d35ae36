/**
 * Errors (spec 3.3.2, 5.4, 10.6, 11.6), judged over every error the run met on the interface.
 */

import type { CheckDefinition } from '../check-types.js';

/** The checks of this area, in the order of the report. */
export const ERROR_DEFINITIONS: readonly CheckDefinition[] = [
  {
    id: 'error.code',
    title: 'Each A2A error carries its code of spec 5.4 on this binding',
    area: 'errors',
    level: 'must',
    section: '5.4',
    scope: 'interface',
    v03: { section: '8.2', level: 'should' },
  },
  {
    id: 'error.error-info',
    title: 'Each A2A error names its type in a google.rpc.ErrorInfo (reason, domain)',
    area: 'errors',
    level: 'must',
    section: '11.6',
    scope: 'interface',
    bindings: ['HTTP+JSON', 'GRPC'],
  },
  {
    id: 'error.details',
    title: 'Every error detail object names its @type',
    area: 'errors',
    level: 'must',
    section: '3.3.2',
    scope: 'interface',
  },
  {
    id: 'error.message',
    title: 'Every error has a human-readable message',
    area: 'errors',
    level: 'must',
    section: '3.3.2',
    scope: 'interface',
    v03: { section: '6.12' },
  },
];
