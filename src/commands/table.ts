/** Plain-text tables for people reading a terminal; scripts use `--json` instead. */

/** Renders rows as left-aligned columns under an upper-case header. */
export function renderTable(
  columns: readonly string[],
  rows: readonly (readonly (string | number | null | undefined)[])[],
): string {
  const cells = rows.map((row) => columns.map((_, index) => String(row[index] ?? '-')));
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((row) => row[index]?.length ?? 0)),
  );
  const line = (values: readonly string[]): string =>
    values
      .map((value, index) => value.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.toUpperCase())), ...cells.map(line)].join('\n');
}

/** Renders `label: value` lines with aligned values; a field given as `undefined` or `null` is left out. */
export function renderFields(
  fields: readonly (readonly [string, string | number | boolean | null] | null | undefined)[],
): string {
  const shown = fields.filter((field) => field !== undefined && field !== null);
  const width = Math.max(...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${String(value ?? '-')}`).join('\n');
}
