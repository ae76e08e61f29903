/**
 * The API for tests: the app on a free port over real HTTP, against a test stack's orders client, with three
 * API keys and an OIDC issuer whose JWKS is served on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { buildApiApp } from '../../src/api/app';
import { createAuthenticator, hashApiKey } from '../../src/api/auth';
import { apiDocumentsFromConfig, type ApiDocuments } from '../../src/api/documents-plugin';
import { documentStoreConfigSchema } from '../../src/config';
import type { ApiKeyEntry, ApiLimits, ApiScope } from '../../src/api/config';
import { ORDER_OPERATIONS, UPLOAD_DOCUMENT } from '../../src/http-contract';

type BuildApiAppOptions = Parameters<typeof buildApiApp>[0];

/** The API's answers, as its operations table documents them (tests parse what the API sent with these). */
export const orderAcceptedSchema = ORDER_OPERATIONS.putOrder.responses[201].schema[1];
export const orderViewSchema = ORDER_OPERATIONS.getOrder.responses[200].schema[1];
export const orderPageSchema = ORDER_OPERATIONS.listOrders.responses[200].schema[1];
export const documentUploadResponseSchema = UPLOAD_DOCUMENT.responses[201].schema[1];
export const retryAcceptedSchema = ORDER_OPERATIONS.retryOrder.responses[202].schema[1];

/**
 * The test keys: each key's secret by its id, and its client when not its own id. `writer` and `reader` are two
 * keys of one backend (client `writer`); `other` is another backend; `operator` reaches every order.
 */
export const TEST_KEYS = {
  writer: { key: 'bo_test-writer-0123456789abcdef0123456789abcdef', scopes: ['orders:write', 'orders:read'] },
  reader: {
    key: 'bo_test-reader-0123456789abcdef0123456789abcdef',
    scopes: ['orders:read'],
    client: 'writer',
  },
  other: { key: 'bo_test-other-0123456789abcdef0123456789abcdef0', scopes: ['orders:write', 'orders:read'] },
  operator: { key: 'bo_test-operator-0123456789abcdef0123456789abcde', scopes: ['ops', 'orders:read'] },
  fuzzer: {
    key: 'bo_test-fuzzer-0123456789abcdef0123456789abcdef0',
    scopes: ['orders:write', 'orders:read', 'ops'],
  },
} as const satisfies Record<string, { key: string; scopes: readonly ApiScope[]; client?: string }>;

export const OIDC_ISSUER = 'https://issuer.test';
export const OIDC_AUDIENCE = 'badge-orders-api';

/** A JWKS endpoint on loopback and a signer for its key. */
export interface TestIssuer {
  readonly jwksUrl: string;
  /** Signs a token (subject `backend-x` unless `claims` name one); `null` for `expiresIn`, `issuer` or `audience` leaves that claim out. */
  sign(
    claims: Record<string, unknown>,
    options?: { expiresIn?: string | number | null; issuer?: string | null; audience?: string | null },
  ): Promise<string>;
  close(): Promise<void>;
}

/** Starts an issuer: one ES256 key, its JWKS served on port 0. */
export async function startTestIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
    sign: (claims, options = {}) => {
      const token = new SignJWT({ sub: 'backend-x', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
        .setIssuedAt();
      const { issuer = OIDC_ISSUER, audience = OIDC_AUDIENCE, expiresIn = '5m' } = options;
      if (issuer !== null) token.setIssuer(issuer);
      if (audience !== null) token.setAudience(audience);
      if (expiresIn !== null) token.setExpirationTime(expiresIn);
      return token.sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A running API. */
export interface TestApi {
  readonly url: string;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** The API keys file entries of {@link TEST_KEYS}. */
export function testKeyEntries(): ApiKeyEntry[] {
  return Object.entries(TEST_KEYS).map(([id, entry]) => ({
    id,
    ...('client' in entry ? { client: entry.client } : {}),
    sha256: hashApiKey(entry.key),
    scopes: [...entry.scopes],
  }));
}

/** The API's documents in a local store under `documentsRoot`, as `npm run api` builds them without DOCUMENT_STORE. */
export function localApiDocuments(
  documentsRoot: string,
  maxDocumentBytes = 4 * 1024 * 1024,
): Promise<ApiDocuments> {
  return apiDocumentsFromConfig({
    store: documentStoreConfigSchema.parse(undefined),
    documentsRoot,
    maxDocumentBytes,
  });
}

/** Starts the API on a free loopback port. */
export async function startTestApi(options: {
  readonly orders: BadgeOrdersClient;
  readonly jwksUrl?: string;
  readonly limits?: Partial<ApiLimits>;
  readonly documents?: BuildApiAppOptions['documents'];
  readonly webhooks?: BuildApiAppOptions['webhooks'];
  readonly tracing?: BuildApiAppOptions['tracing'];
}): Promise<TestApi> {
  const app = await buildApiApp({
    orders: options.orders,
    authenticator: createAuthenticator({
      apiKeys: testKeyEntries(),
      oidc:
        options.jwksUrl === undefined
          ? undefined
          : {
              jwksUrl: options.jwksUrl,
              issuer: OIDC_ISSUER,
              audience: OIDC_AUDIENCE,
              algorithms: ['ES256'],
              clockToleranceSeconds: 0,
            },
    }),
    limits: options.limits,
    documents: options.documents,
    webhooks: options.webhooks,
    tracing: options.tracing,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, app, close: () => app.close() };
}
