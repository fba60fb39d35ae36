/** Every scenario, in the order they run and are reported. */

import { coldStart, memory } from './process.mjs';
import { getTask, listTasks, sendMessage } from './request-load.mjs';
import { manyStreams, streamScenario } from './streaming.mjs';
import { push } from './push.mjs';

export const SCENARIOS = [
  sendMessage,
  getTask,
  streamScenario(10),
  streamScenario(100),
  streamScenario(400),
  manyStreams,
  memory,
  coldStart,
  listTasks,
  push,
];
