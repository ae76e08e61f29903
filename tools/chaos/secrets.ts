/**
 * Looking for secrets where they must never be: workflow histories (every payload decoded as text) and process
 * output. Used by the chaos run and the history export.
 */

/** A JSON Web Token: three base64url parts, the first two starting like a JSON object (`{"`). */
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/;

function collectText(value: unknown, out: string[]): void {
  if (value instanceof Uint8Array) {
    out.push(Buffer.from(value).toString('utf8'));
  } else if (typeof value === 'string') {
    out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectText(item, out);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value as Record<string, unknown>)) collectText(item, out);
  }
}

/** Every string and payload (bytes decoded as UTF-8) of a history or any other object, one per line. */
export function textOf(value: unknown): string {
  const out: string[] = [];
  collectText(value, out);
  return out.join('\n');
}

/**
 * What secret a text holds, as descriptions that do not repeat the secret ("the password of user demo",
 * "a JWT"); empty when it holds none.
 */
export function findSecrets(
  text: string,
  secrets: readonly { readonly name: string; readonly value: string }[],
): string[] {
  const found = secrets.filter((secret) => secret.value !== '' && text.includes(secret.value));
  const descriptions = found.map((secret) => secret.name);
  if (JWT_PATTERN.test(text)) descriptions.push('a JWT');
  if (/access_token/.test(text)) descriptions.push('an access_token field');
  return descriptions;
}
