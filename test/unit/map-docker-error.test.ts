import { describe, expect, it } from 'vitest';
import { mapDockerError } from '../../src/adapters/docker/map-docker-error.js';
import {
  ContainerDiedError,
  EngineUnreachableError,
  ImageNotFoundError,
  SandboxError,
} from '../../src/errors/index.js';

const endpoint = 'unix:///var/run/docker.sock';

describe('mapDockerError', () => {
  it('maps transport failures to an unreachable engine', () => {
    for (const code of ['ECONNREFUSED', 'ENOENT', 'EACCES']) {
      const mapped = mapDockerError(Object.assign(new Error(code), { code }), { endpoint });
      expect(mapped).toBeInstanceOf(EngineUnreachableError);
      expect(mapped.retryable).toBe(true);
      expect(mapped.message).toContain(endpoint);
    }
  });

  it('maps a 404 about the image to a missing image', () => {
    const failure = { statusCode: 404, json: { message: 'No such image: nope:1' } };
    const mapped = mapDockerError(failure, { endpoint, image: 'nope:1' });
    expect(mapped).toBeInstanceOf(ImageNotFoundError);
    expect(mapped.code).toBe('image-not-found');
  });

  it('maps a conflict on a container to a dead container', () => {
    const failure = { statusCode: 409, json: { message: 'Container abc is not running' } };
    expect(mapDockerError(failure, { endpoint, containerId: 'abc' })).toBeInstanceOf(ContainerDiedError);
  });

  it('keeps other engine errors with their text, retryable only on server errors', () => {
    const mapped = mapDockerError({ statusCode: 500, json: { message: 'disk full' } }, { endpoint });
    expect(mapped).toBeInstanceOf(SandboxError);
    expect(mapped.message).toContain('disk full');
    expect(mapped.retryable).toBe(true);
    expect(mapDockerError({ statusCode: 400, json: { message: 'bad' } }, { endpoint }).retryable).toBe(false);
  });
});
