/**
 * ListTasks over 1,000 tasks, end to end: the default page size, and paging that stays exact
 * while new tasks keep arriving — every earlier task exactly once, none twice — over every
 * binding, against every store.
 */

import { beforeAll, expect, it } from 'vitest';
import type { Task } from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import type { InProcessServer } from '../support/in-process-server.js';
import { send } from '../support/messages.js';

const SEEDED = 1_000;
const CONCURRENCY = 16;

/** Completes every task at once: two writes per task (created, completed). */
const instant = defineAgent({ card: testCard('Instant'), execute: () => undefined });

/** Sends `count` messages, `CONCURRENCY` at a time; resolves with the task ids. */
async function createTasks(agent: A2ADriver, count: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      ids.push((await agent.sendTask(send('go'))).id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  return ids;
}

describeBehaviour('ListTasks paging', (env) => {
  let server: InProcessServer;
  let seeded: string[];

  // One server for the whole block: the tasks outlive a single test.
  beforeAll(async () => {
    server = await env.serve(instant);
    seeded = await createTasks(server.agent, SEEDED);
  }, 60_000);

  it('returns 50 tasks per page by default, with the total and a next page token', async () => {
    const page = await server.agent.listTasks();
    expect(page.tasks).toHaveLength(50);
    expect(page.pageSize).toBe(50);
    expect(page.totalSize).toBe(SEEDED);
    expect(page.nextPageToken).not.toBe('');
    for (const task of page.tasks) expect(task).not.toHaveProperty('artifacts');
  });

  it('pages over 1,000 tasks while new ones are created: every earlier task once, none twice', async () => {
    const { agent } = server;
    const pages: Task[][] = [];
    const createdMeanwhile: string[] = [];
    let pageToken: string | undefined;
    do {
      // Each page is read while three new tasks are being created.
      const [page, created] = await Promise.all([
        agent.listTasks(pageToken === undefined ? { pageSize: 37 } : { pageSize: 37, pageToken }),
        createTasks(agent, 3),
      ]);
      pages.push(page.tasks);
      createdMeanwhile.push(...created);
      pageToken = page.nextPageToken === '' ? undefined : page.nextPageToken;
      expect(pages.length).toBeLessThan(100);
    } while (pageToken !== undefined);

    const listed = pages.flat().map((task) => task.id);
    const counts = new Map<string, number>();
    for (const id of listed) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    expect(seeded.filter((id) => counts.get(id) !== 1)).toEqual([]);
    // Tasks created during the paging sort before the cursor: at most the first page has them.
    const lateOnes = new Set(createdMeanwhile);
    expect(
      pages
        .slice(1)
        .flat()
        .filter((task) => lateOnes.has(task.id)),
    ).toEqual([]);
    const times = pages
      .flat()
      .filter((task) => !lateOnes.has(task.id))
      .map((task) => Date.parse(task.status.timestamp ?? ''));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(createdMeanwhile.length).toBeGreaterThanOrEqual(3 * 27);
    expect((await agent.listTasks({ pageSize: 1 })).totalSize).toBe(
      SEEDED + createdMeanwhile.length,
    );
  });
});
