/** Parsers of the bench's command-line values (commander argument parsers), shared by its option groups. */
import { InvalidArgumentError } from 'commander';

/** A whole number ≥ 0. */
export function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return parsed;
}

/** A comma-separated list of whole numbers ≥ 1, e.g. `1,10,50`. */
export function intList(value: string): number[] {
  return value.split(',').map((part) => {
    const parsed = positiveInt(part.trim());
    if (parsed === 0) throw new InvalidArgumentError('must be whole numbers >= 1');
    return parsed;
  });
}
