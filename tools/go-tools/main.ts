/**
 * `npm run go-tools [-- name …]`: builds the pinned Go programs (all, or the named ones) into `.tools/go/`,
 * so CI can build them before the tests that need them and a developer can build them ahead of time.
 */
import { ensureGoTool, GO_TOOLS } from './go-tools';
import { runMain } from '../../src/main/run-main';

async function main(names: readonly string[]): Promise<void> {
  const known = Object.keys(GO_TOOLS) as (keyof typeof GO_TOOLS)[];
  const unknown = names.filter((name) => !(known as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown Go tool ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const wanted = names.length > 0 ? (names as (keyof typeof GO_TOOLS)[]) : known;
  for (const name of wanted) console.log(`${name}: ${await ensureGoTool(GO_TOOLS[name])}`);
}

runMain(() => main(process.argv.slice(2)));
