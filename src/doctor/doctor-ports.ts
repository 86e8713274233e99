import type { CheckResult } from './doctor-result.js';

/** What the checks talk to; the real ones are in doctor-probes.ts. */
export interface DoctorPorts {
  /** Engine, image (pulled if missing) and runtime: DockerSandboxProvider.ping. */
  pingSandbox(): Promise<void>;
  /** Creates (never starts) and removes a container with the real spec, so the engine judges every limit. */
  tryContainerSpec(): Promise<void>;
  /** The sidecar image is there and has the forwarder's tools; returns what to show. Unset: not checked. */
  checkSidecarImage?(): Promise<string>;
  /** A summary of `doctor --model`'s probe. */
  probeModel(): Promise<CheckResult>;
  pingRedis(url: string): Promise<void>;
  readFile(path: string): Promise<string>;
  /** Throws when the folder cannot be written to (the SQLite file goes there). */
  checkWritable(path: string): Promise<void>;
  /** Whether a package can be loaded from here (smee-client for WEBHOOK_PROXY_URL). */
  canLoad(name: string): boolean;
  /** Makes an installation token (only with `doctor --github`); returns a description such as the App's slug. */
  makeInstallationToken?(appId: string, privateKey: string): Promise<string>;
}
