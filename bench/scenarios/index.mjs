/** Every scenario, in the order they run and are reported. */

import { grpcSendMessage, grpcStreamScenario } from './grpc.mjs';
import { coldStart, memory } from './process.mjs';
import { getTask, listTasks, sendMessage } from './request-load.mjs';
import { restGetTask, restSendMessage } from './rest.mjs';
import { manyStreams, streamScenario } from './streaming.mjs';
import { push, pushPending } from './push.mjs';

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
  restSendMessage,
  restGetTask,
  grpcSendMessage,
  grpcStreamScenario(100),
  push,
  pushPending,
];
