import { describe, expect, it } from 'vitest';
import { excerptLog } from '../../src/ci-logs/index.js';
import { excerptDevSet } from './excerpt-dev-set.js';

/**
 * The excerpt's development set wraps each real tool run in other CI systems' job logs too
 * (scripts/excerpt-dev-set): every system holds at least five tools, and each of its logs is read
 * as that system's, with the failing step and its exit code found in the system's own markers.
 */
const SYSTEMS = ['gitlab', 'jenkins', 'azure-pipelines', 'circleci', 'buildkite', 'travis'];
const logs = excerptDevSet().filter((log) => SYSTEMS.includes(log.shape));

describe("the CI systems' shapes of the excerpt's development set", () => {
  it('holds at least five tools in every system', () => {
    for (const system of SYSTEMS) {
      const tools = new Set(logs.filter((log) => log.shape === system).map((log) => log.tool));
      expect({ system, enough: tools.size >= 5 }).toEqual({ system, enough: true });
    }
  });

  it.each(logs.map((log) => [log.name, log] as const))(
    'is read as its system, the failing step named: %s',
    async (_name, log) => {
      const excerpt = await excerptLog(log.text, { maxLines: 150 });
      expect(excerpt.system).toBe(log.shape);
      expect(excerpt.failingStep).not.toBeNull();
      expect(excerpt.exitCode).toBe(log.exitCode);
    },
  );
});
