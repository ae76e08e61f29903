/**
 * The libraries the workflow bundle evaluates once per worker (`preloadModules`, see src/workflow-bundle.ts)
 * instead of once per workflow execution. Imported the way workflow code imports them (ES modules, the same
 * named imports), so the bundle's module ids are the ones workflow code asks for: zod's schema builders live
 * in one module, and its imports (zod's core, the English messages) come with it — exactly the zod modules the
 * contract's schemas use, and not the rest of zod. The SDK freezes what it preloads, which is why only stateless
 * libraries belong here (not our own modules: zod completes schema objects lazily).
 */
import { config, object, string } from 'zod';

// A workflow parses each schema once, with schemas built for that workflow: compiling a fast path per schema
// (zod's JIT, `new Function` for every object schema of every order) costs far more than it saves. The same
// checks run either way.
config({ jitless: true });

// zod completes its global configuration (English messages, the parse memoizer) when it builds and parses its
// first schema; that happens here, before the SDK freezes the preloaded modules and globals, not in a workflow.
object({ ready: string() }).safeParse({ ready: 'yes' });

export { object as zodObject };
