/**
 * `src/workflows/patches.ts` as if 0.7.0's fixes had been made without a patch of their own: they take the answer
 * of the 0.6.0 patch, so every order recorded on 0.6.0 takes them. Replaying those orders against it shows what
 * the guard prevents, each order failing where the fix changes what it does (not on a patch marker).
 */
import { PATCHES as GUARDED } from '../../../src/workflows/patches';

export const PATCHES = { ...GUARDED, fixes070: GUARDED.uncertainCreationHeld } as const;
