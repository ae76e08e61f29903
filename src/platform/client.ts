/**
 * `createPlatformClient`: wires the HTTP layer, the token cache and the four API modules into one
 * {@link PlatformClient}.
 */
import axios from 'axios';
import { z } from 'zod';
import { responseMapSchema } from './extract';
import type { ResponseMap } from './extract';
import { basicCredentials, formEncoded, PlatformAuth } from './auth';
import { PLATFORM_PATHS, resolveRequestProfile, type RequestProfile } from './request-profile';
import type { ApiContext } from './auth';
import { uploadDocument } from './documents';
import { DEFAULT_TIMEOUTS, PlatformHttp, silentLogger } from './http';
import { createOrder } from './orders';
import { checkStock, listStocks } from './stocks';
import { defaultTokenCache } from './token-cache';
import type { PlatformClient, PlatformClientOptions } from './types';

/** Default of {@link PlatformClientOptions.tokenRefreshMarginMs}: stop reusing a token a minute before expiry. */
const DEFAULT_TOKEN_REFRESH_MARGIN_MS = 60_000;

function positive(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && (!Number.isFinite(value) || value <= 0)) {
    throw new TypeError(`PlatformClientOptions.${name} must be > 0`);
  }
  return value;
}

/** Validate the base URL without echoing it (it might carry user info) and drop trailing slashes. */
function normaliseBaseUrl(baseUrl: string): string {
  const protocol = URL.canParse(baseUrl) ? new URL(baseUrl).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError('PlatformClientOptions.baseUrl must be an absolute http(s) URL');
  }
  return baseUrl.trim().replace(/\/+$/, '');
}

/**
 * Create a platform client. Cheap: create one per worker from configuration and share it; tokens are shared
 * anyway through the process-wide token cache.
 * @param options base URL and credentials; everything else has defaults
 * @throws TypeError when an option is invalid (messages never include the password)
 */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const { credentials } = options;
  const given =
    'clientId' in credentials
      ? { clientId: credentials.clientId, clientSecret: credentials.clientSecret }
      : { username: credentials.username, password: credentials.password };
  for (const [name, value] of Object.entries(given)) {
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`PlatformClientOptions.credentials.${name} must be a non-empty string`);
    }
  }
  if ('clientId' in credentials && !['basic', 'body', undefined].includes(credentials.clientAuth)) {
    throw new TypeError('PlatformClientOptions.credentials.clientAuth must be basic or body');
  }
  // What the token request carries that must never be shown: the secret, as sent in a form and in Basic.
  const secrets =
    'clientId' in credentials
      ? [
          credentials.clientSecret,
          formEncoded(credentials.clientSecret),
          basicCredentials(credentials.clientId, credentials.clientSecret).slice('Basic '.length),
        ]
      : [credentials.password];
  const tokenPath = options.tokenPath ?? PLATFORM_PATHS.token;
  if (!/^\/[^\s?#]*$/.test(tokenPath)) {
    throw new TypeError(
      'PlatformClientOptions.tokenPath must be a path starting with / (no query or fragment)',
    );
  }
  const connectMs = positive(options.timeouts?.connectMs, 'timeouts.connectMs');
  const refreshMarginMs = options.tokenRefreshMarginMs ?? DEFAULT_TOKEN_REFRESH_MARGIN_MS;
  if (!Number.isFinite(refreshMarginMs) || refreshMarginMs < 0) {
    throw new TypeError('PlatformClientOptions.tokenRefreshMarginMs must be >= 0');
  }

  const owner = options.documentOwner;
  if (owner !== undefined) {
    const value = owner.kind === 'fixed' ? owner.id : owner.claim;
    if (typeof value !== 'string' || value.trim() === '') {
      throw new TypeError(
        `PlatformClientOptions.documentOwner.${owner.kind === 'fixed' ? 'id' : 'claim'} must be a non-empty string`,
      );
    }
  }

  let responseMap: ResponseMap | undefined;
  if (options.responseMap !== undefined) {
    const parsed = responseMapSchema.safeParse(options.responseMap);
    if (!parsed.success) {
      throw new TypeError(`PlatformClientOptions.responseMap is invalid: ${z.prettifyError(parsed.error)}`);
    }
    responseMap = parsed.data;
  }

  let requestProfile: RequestProfile;
  try {
    requestProfile = resolveRequestProfile(options.requestProfile, options.tenantId);
  } catch (error) {
    const why = error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message;
    throw new TypeError(`PlatformClientOptions.requestProfile is invalid: ${why}`);
  }

  const timeouts: Record<keyof typeof DEFAULT_TIMEOUTS, number> = { ...DEFAULT_TIMEOUTS };
  for (const name of Object.keys(timeouts) as (keyof typeof DEFAULT_TIMEOUTS)[]) {
    timeouts[name] = positive(options.timeouts?.[name], `timeouts.${name}`) ?? timeouts[name];
  }
  const http = new PlatformHttp({
    http: options.http ?? axios.create(),
    baseUrl,
    ...timeouts,
    ...(connectMs !== undefined && { connectMs }),
    logger: options.logger ?? silentLogger,
    ...(options.onRequest && { onRequest: options.onRequest }),
    secrets,
    ...(responseMap !== undefined && { responseMap }),
    requestProfile,
  });
  const auth = new PlatformAuth({
    http,
    cache: options.tokenCache ?? defaultTokenCache,
    credentials,
    tokenPath,
    refreshMarginMs,
    ...(options.documentOwner !== undefined && { documentOwner: options.documentOwner }),
  });
  const context: ApiContext = { http, auth };

  return Object.freeze({
    authenticate: (callOptions) => auth.authenticate(callOptions?.signal),
    listStocks: (callOptions) => listStocks(context, callOptions?.signal),
    checkStock: (stockId, callOptions) => checkStock(context, stockId, callOptions?.signal),
    createOrder: (input) => createOrder(context, input),
    uploadDocument: (input) => uploadDocument(context, input),
  } satisfies PlatformClient);
}
