import Docker from 'dockerode';

/**
 * A dockerode client configured the way the docker CLI is: DOCKER_HOST,
 * DOCKER_TLS_VERIFY and DOCKER_CERT_PATH (docker-modem reads them), else the
 * local socket. Remote engines work because the workspace travels as a tar
 * stream, never as a bind mount.
 */
export function createDockerClient(): Docker {
  return new Docker();
}

/** A human-readable name for where the client points, for error messages. */
export function describeEndpoint(docker: Docker): string {
  const modem = docker.modem as { socketPath?: string; host?: string; port?: number; protocol?: string };
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`;
  return `${modem.protocol ?? 'http'}://${modem.host ?? 'localhost'}:${modem.port ?? ''}`;
}
