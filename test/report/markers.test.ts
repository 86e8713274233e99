import { describe, expect, it } from 'vitest';
import {
  attemptMarker,
  finalMarker,
  hasMarker,
  parseMarkers,
  statusMarker,
} from '../../src/report/markers.js';

describe('markers', () => {
  it('writes hidden HTML comments with the job id and the attempt number', () => {
    expect(statusMarker('job-42')).toBe('<!-- selfdebug:status job=job-42 -->');
    expect(attemptMarker('job-42', 3)).toBe('<!-- selfdebug:attempt job=job-42 n=3 -->');
    expect(finalMarker('job-42')).toBe('<!-- selfdebug:final job=job-42 -->');
  });

  it('reads back every marker of a body, in order', () => {
    const body = `${statusMarker('a')}\ntext\n${attemptMarker('b', 2)}\n${finalMarker('c')}`;
    expect(parseMarkers(body)).toEqual([
      { kind: 'status', jobId: 'a' },
      { kind: 'attempt', jobId: 'b', attempt: 2 },
      { kind: 'final', jobId: 'c' },
    ]);
  });

  it('encodes ids that could end the comment or add attributes, and decodes them back', () => {
    const id = 'job --> n=9 <x>';
    const marker = statusMarker(id);
    expect(marker.indexOf('-->')).toBe(marker.length - 3);
    expect(parseMarkers(marker)).toEqual([{ kind: 'status', jobId: id }]);
  });

  it('skips malformed markers', () => {
    const body = [
      '<!-- selfdebug:status -->',
      '<!-- selfdebug:attempt job=a -->',
      '<!-- selfdebug:attempt job=a n=0 -->',
      '<!-- selfdebug:attempt job=a n=x -->',
      '<!-- selfdebug:unknown job=a -->',
      '<!-- selfdebug:final job=%E0%A4%A -->',
    ].join('\n');
    expect(parseMarkers(body)).toEqual([]);
  });

  it('matches a marker exactly: another job or attempt is not the same comment', () => {
    const body = `${attemptMarker('job-1', 2)}\n### Attempt 2`;
    expect(hasMarker(body, { kind: 'attempt', jobId: 'job-1', attempt: 2 })).toBe(true);
    expect(hasMarker(body, { kind: 'attempt', jobId: 'job-1', attempt: 1 })).toBe(false);
    expect(hasMarker(body, { kind: 'attempt', jobId: 'job-12', attempt: 2 })).toBe(false);
    expect(hasMarker(body, { kind: 'status', jobId: 'job-1' })).toBe(false);
  });
});
