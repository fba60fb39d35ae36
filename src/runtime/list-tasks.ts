/**
 * ListTasks: the request's filters, its page token (which carries the filters it was made for and
 * the total counted on the first page, so that later pages neither count again nor change filters)
 * and the store's keyset page, made into the response.
 */

import type { ListTasksRequest, ListTasksResponse } from '../protocol/generated/types.js';
import type { TaskReadScope, TaskStore } from '../stores/task-store.js';
import { decodePageToken, encodePageToken } from './list-page-token.js';

/** The page size when the request gives none. */
const DEFAULT_PAGE_SIZE = 50;

/** Answers a ListTasks request in `scope`: the caller's own tasks, unless a policy widened it. */
export async function listTasks(
  store: TaskStore,
  scope: TaskReadScope,
  request: ListTasksRequest,
): Promise<ListTasksResponse> {
  const state = request.status === 'TASK_STATE_UNSPECIFIED' ? undefined : request.status;
  const contextId = request.contextId === '' ? undefined : request.contextId;
  const statusTimeFrom =
    request.statusTimestampAfter === undefined
      ? undefined
      : Date.parse(request.statusTimestampAfter);
  const filters = { scope, contextId, state, statusTimeFrom };
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  const token =
    request.pageToken === undefined || request.pageToken === ''
      ? undefined
      : decodePageToken(request.pageToken, filters);
  const page = await store.listTasks(scope, {
    pageSize,
    includeArtifacts: request.includeArtifacts === true,
    countTotal: token === undefined,
    ...(contextId === undefined ? {} : { contextId }),
    ...(state === undefined ? {} : { state }),
    ...(statusTimeFrom === undefined ? {} : { statusTimeFrom }),
    ...(token === undefined ? {} : { after: token.cursor }),
    ...(request.historyLength === undefined ? {} : { historyLength: request.historyLength }),
  });
  const totalSize = token?.totalSize ?? page.totalSize ?? 0;
  return {
    tasks: page.tasks,
    nextPageToken:
      page.next === undefined ? '' : encodePageToken({ cursor: page.next, totalSize }, filters),
    pageSize,
    totalSize,
  };
}
