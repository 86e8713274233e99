import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it): playwright-core never downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium with a fresh profile in `profileDir`, nothing fetched in the background. */
export function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
