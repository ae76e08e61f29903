/**
 * Debian's Chromium driven by Playwright (`playwright-core`: Playwright's own browser download does not work
 * here), headless, with a fresh profile per launch; and screenshots saved as artifacts under the git-ignored
 * `artifacts/e2e/` folder.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's `chromium` package; `CHROMIUM_PATH` points elsewhere (another distribution, a local Chrome). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where screenshots go (git-ignored): one folder per test file, emptied when its browser starts. */
export const ARTIFACTS_DIR = resolve(__dirname, '..', '..', 'artifacts', 'e2e');

/** Flags for a quiet, reproducible headless run in a container: no sandbox, no GPU, no background traffic. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A running browser with one page. */
export interface E2eBrowser {
  readonly page: Page;
  /** Saves a full-page screenshot as `artifacts/e2e/<artifacts>/<name>.png` and returns its path. */
  screenshot(name: string): Promise<string>;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh `--user-data-dir` (Playwright passes it for a persistent context); screenshots
 * go to `artifacts/e2e/<artifacts>/`, emptied first so a run's folder holds only that run's pictures.
 */
export async function launchBrowser(options: {
  readonly artifacts: string;
  /** Accept any certificate: for loopback servers with a throwaway self-signed one. @default false */
  readonly ignoreHttpsErrors?: boolean;
}): Promise<E2eBrowser> {
  const artifactsDir = join(ARTIFACTS_DIR, options.artifacts);
  rmSync(artifactsDir, { recursive: true, force: true });
  mkdirSync(artifactsDir, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'badge-e2e-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 1000 },
      ignoreHTTPSErrors: options.ignoreHttpsErrors ?? false,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    async screenshot(name) {
      const path = join(artifactsDir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
