/**
 * Version negotiation (spec 3.6.2), on 1.0 interfaces: `A2A-Version` 1.0, an unsupported one, and
 * none, which means 0.3.
 */

import type { CheckDefinition } from '../check-types.js';

/** The checks of this area, in the order of the report. */
export const VERSION_DEFINITIONS: readonly CheckDefinition[] = [
  {
    id: 'version.accepted',
    title: 'A request with A2A-Version: 1.0 is served',
    area: 'version',
    level: 'must',
    section: '3.6.2',
    scope: 'interface',
  },
  {
    id: 'version.unsupported',
    title: 'A2A-Version: 99.0 gets VersionNotSupportedError',
    area: 'version',
    level: 'must',
    section: '3.6.2',
    scope: 'interface',
  },
  {
    id: 'version.missing',
    title: 'A request without A2A-Version is taken as 0.3: served as 0.3 or refused',
    area: 'version',
    level: 'must',
    section: '3.6.2',
    scope: 'interface',
  },
];
