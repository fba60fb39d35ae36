/**
 * Streaming (spec 3.1.2, 3.1.6, 3.3.4, 9.4.2, 11.7; 0.3 sections 3.3, 7.2, 7.9): a stream's framing
 * and events, SubscribeToTask, resuming, and the refusals without the capability.
 */

import type { CheckDefinition } from '../check-types.js';

const HTTP = ['JSONRPC', 'HTTP+JSON'] as const;

/** The checks of this area, in the order of the report. */
export const STREAM_DEFINITIONS: readonly CheckDefinition[] = [
  {
    id: 'stream.content-type',
    title: 'A stream is answered as text/event-stream',
    area: 'streaming',
    level: 'must',
    section: '9.4.2',
    scope: 'interface',
    bindings: HTTP,
    v03: { section: '3.3.1' },
  },
  {
    id: 'stream.framing',
    title: 'Each SSE event holds one JSON event, with nothing else in the stream',
    area: 'streaming',
    level: 'must',
    section: '11.7',
    scope: 'interface',
    bindings: HTTP,
    v03: { section: '3.3.1' },
  },
  {
    id: 'stream.first-event',
    title: 'The first event of a stream is a Task or a Message',
    area: 'streaming',
    level: 'must',
    section: '3.1.2',
    scope: 'interface',
    v03: { section: '7.2' },
  },
  {
    id: 'stream.task-events',
    title: "The events are the stream's task's, and its states move legally",
    area: 'streaming',
    level: 'must',
    section: '3.1.2',
    scope: 'interface',
    v03: { section: '7.2' },
  },
  {
    id: 'stream.closes',
    title: 'The stream closes after a terminal or interrupted state, or after its Message',
    area: 'streaming',
    level: 'must',
    section: '3.1.2',
    scope: 'interface',
    v03: { section: '7.2' },
  },
  {
    id: 'v03.final',
    title: 'The last status update of an A2A 0.3 stream is marked final',
    area: 'streaming',
    level: 'must',
    section: '3.1.2',
    scope: 'interface',
    v10: false,
    v03: { section: '7.2.2' },
  },
  {
    id: 'stream.subscribe',
    title: 'SubscribeToTask of a live task starts with the Task and follows it to its end',
    area: 'streaming',
    level: 'must',
    section: '3.1.6',
    scope: 'interface',
    v03: { section: '7.9' },
  },
  {
    id: 'stream.subscribe-terminal',
    title: 'SubscribeToTask of a finished task gets UnsupportedOperationError',
    area: 'streaming',
    level: 'must',
    section: '3.1.6',
    scope: 'interface',
  },
  {
    id: 'stream.resume',
    title: 'SubscribeToTask with Last-Event-ID resumes after that event',
    area: 'streaming',
    level: 'may',
    section: '3.5.2',
    scope: 'interface',
  },
  {
    id: 'stream.unsupported',
    title: 'Streaming operations get UnsupportedOperationError when streaming is not declared',
    area: 'streaming',
    level: 'must',
    section: '3.3.4',
    scope: 'interface',
    v03: { section: '7.2', level: 'should' },
  },
];
