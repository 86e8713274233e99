import { SqliteJobStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { JobOutcome, JobResult } from '../../src/queue/job-store.js';
import { jobRequest, mentionTrigger } from '../fakes/job-requests.js';

const HOUR = 60 * 60 * 1000;

interface Sample {
  repository: string;
  issue: number;
  outcome: JobOutcome;
  costUsd: number;
  /** Hours before `now` the job finished. */
  hoursAgo: number;
  minutes: number;
  attempts: number;
}

/** A fortnight of jobs over three repositories, most fixed, some not: what an operator would see. */
export const SAMPLES: readonly Sample[] = [
  {
    repository: 'acme/api',
    issue: 12,
    outcome: 'fixed',
    costUsd: 0.0412,
    hoursAgo: 290,
    minutes: 4,
    attempts: 1,
  },
  {
    repository: 'acme/api',
    issue: 15,
    outcome: 'not-fixed',
    costUsd: 0.1311,
    hoursAgo: 286,
    minutes: 11,
    attempts: 3,
  },
  {
    repository: 'acme/web',
    issue: 3,
    outcome: 'fixed',
    costUsd: 0.0275,
    hoursAgo: 240,
    minutes: 3,
    attempts: 1,
  },
  {
    repository: 'acme/api',
    issue: 18,
    outcome: 'fixed',
    costUsd: 0.0521,
    hoursAgo: 196,
    minutes: 6,
    attempts: 2,
  },
  {
    repository: 'acme/cli',
    issue: 7,
    outcome: 'cannot-reproduce',
    costUsd: 0.0093,
    hoursAgo: 192,
    minutes: 2,
    attempts: 0,
  },
  {
    repository: 'acme/web',
    issue: 9,
    outcome: 'fixed',
    costUsd: 0.0388,
    hoursAgo: 190,
    minutes: 5,
    attempts: 1,
  },
  {
    repository: 'acme/api',
    issue: 21,
    outcome: 'fixed',
    costUsd: 0.0649,
    hoursAgo: 120,
    minutes: 7,
    attempts: 2,
  },
  {
    repository: 'acme/web',
    issue: 11,
    outcome: 'explained',
    costUsd: 0.0107,
    hoursAgo: 118,
    minutes: 1,
    attempts: 0,
  },
  {
    repository: 'acme/api',
    issue: 22,
    outcome: 'budget-exhausted',
    costUsd: 0.2013,
    hoursAgo: 75,
    minutes: 14,
    attempts: 5,
  },
  {
    repository: 'acme/cli',
    issue: 8,
    outcome: 'fixed',
    costUsd: 0.0302,
    hoursAgo: 72,
    minutes: 4,
    attempts: 1,
  },
  {
    repository: 'acme/web',
    issue: 14,
    outcome: 'fixed',
    costUsd: 0.0456,
    hoursAgo: 26,
    minutes: 5,
    attempts: 2,
  },
  {
    repository: 'acme/api',
    issue: 25,
    outcome: 'fixed',
    costUsd: 0.0334,
    hoursAgo: 3,
    minutes: 4,
    attempts: 1,
  },
];

function request(repository: string, issue: number, index: number) {
  const [owner, name] = repository.split('/') as [string, string];
  return jobRequest({
    id: `sample-${index}`,
    deliveryId: `sample-delivery-${index}`,
    dedupeKey: `sample:${index}`,
    installationId: 4242,
    repository: {
      owner,
      name,
      cloneUrl: `https://github.com/${repository}.git`,
      defaultBranch: 'main',
      private: false,
    },
    trigger: mentionTrigger({ issueNumber: issue, commentId: 1000 + index }),
  });
}

function resultOf(sample: Sample): JobResult {
  const base = `https://github.com/${sample.repository}`;
  return {
    outcome: sample.outcome,
    reason: sample.outcome === 'fixed' ? null : `ended ${sample.outcome} after ${sample.attempts} attempts`,
    attempts: sample.attempts,
    tokens: Math.round(sample.costUsd * 400_000),
    costUsd: sample.costUsd,
    links: {
      pullRequest: sample.outcome === 'fixed' ? `${base}/pull/${100 + sample.issue}` : null,
      statusComment: `${base}/issues/${sample.issue}#issuecomment-${9000 + sample.issue}`,
      checkRun: null,
    },
  };
}

/**
 * Fills the SQLite queue at `path` as if the App had run SAMPLES, plus one
 * job still running and one queued. The store's clock is moved for each
 * job, so the history spreads over the last two weeks of `now`.
 */
export async function fillSampleQueue(path: string, now: Date): Promise<void> {
  let clock = now.getTime();
  const store = new SqliteJobStore(path, { now: () => clock, leaseMs: 24 * HOUR });
  try {
    for (const [index, sample] of SAMPLES.entries()) {
      const finishedAt = now.getTime() - sample.hoursAgo * HOUR;
      clock = finishedAt - sample.minutes * 60_000 - 20_000;
      await store.enqueue(request(sample.repository, sample.issue, index));
      clock += 20_000;
      const lease = await store.claim('sample-worker');
      clock = finishedAt;
      await lease!.complete(resultOf(sample));
    }
    clock = now.getTime() - 4 * 60_000;
    await store.enqueue(request('acme/web', 16, 100));
    await store.claim('sample-worker');
    clock = now.getTime() - 60_000;
    await store.enqueue(request('acme/api', 27, 101));
  } finally {
    await store.close();
  }
}
