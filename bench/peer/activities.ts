/**
 * The peer's activities: the platform calls as a user would first write them from the platform's specification
 * (`shared/spec/badge-platform-spec.md`), with plain axios and form-data and nothing of ours. One
 * activity per step; the token comes back from `signIn` and travels with the order (so it is in the history, in
 * plain text: the peer has no codec). A 401 signs in again once, as the specification says; other 4xx answers
 * are final, everything else is retried by Temporal.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import axios, { isAxiosError, type AxiosResponse, type RawAxiosRequestHeaders } from 'axios';
import FormData from 'form-data';

/** Where the platform is and who signs in; where the documents are. */
export interface PeerSettings {
  readonly baseUrl: string;
  readonly username: string;
  readonly password: string;
  readonly documentsRoot: string;
}

/** What `signIn` returns: the token and the user id the document API wants as `document_owner`. */
export interface PeerSession {
  readonly token: string;
  readonly userId: string;
}

/** Statuses worth another try: the token (handled here), timeouts and rate limits (Temporal retries). */
const RETRYABLE_4XX = new Set([401, 408, 429]);

/** Turns a failed call into what Temporal should do with it: a final failure for a rejected request. */
function failure(error: unknown): Error {
  const status = isAxiosError(error) ? error.response?.status : undefined;
  if (status !== undefined && status >= 400 && status < 500 && !RETRYABLE_4XX.has(status)) {
    return ApplicationFailure.nonRetryable(`the platform answered ${status}`, 'PlatformRejected');
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** The user id of a token: its `sub` claim (the JWT's payload, not verified: the platform does that). */
function userIdOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    sub?: unknown;
  };
  return String(payload.sub);
}

/** Creates the activities for one worker. */
export function createPeerActivities(settings: PeerSettings) {
  const http = axios.create({ baseURL: settings.baseUrl, timeout: 30_000 });

  async function signIn(): Promise<PeerSession> {
    try {
      const response = await http.post<{ access_token: string }>('/iam/api/v1/auth/jwt', {
        username: settings.username,
        password: settings.password,
      });
      return { token: response.data.access_token, userId: userIdOf(response.data.access_token) };
    } catch (error) {
      throw failure(error);
    }
  }

  /** Makes a call with the token; on 401 signs in again and repeats it once. */
  async function withToken<T>(
    token: string,
    call: (headers: RawAxiosRequestHeaders) => Promise<AxiosResponse<T>>,
  ): Promise<AxiosResponse<T>> {
    try {
      return await call({ Authorization: `Bearer ${token}` });
    } catch (error) {
      if (!isAxiosError(error) || error.response?.status !== 401) throw error;
      const fresh = await signIn();
      return call({ Authorization: `Bearer ${fresh.token}` });
    }
  }

  return {
    signIn,

    /** Whether the user's stocks list `stockId`. */
    async lookUpStock(input: { token: string; stockId: number }): Promise<boolean> {
      try {
        const response = await withToken<{ data: { stock_id: number }[] }>(input.token, (headers) =>
          http.get('/badge/v2/api/v1/stocks', { headers }),
        );
        return response.data.data.some((stock) => String(stock.stock_id) === String(input.stockId));
      } catch (error) {
        throw failure(error);
      }
    },

    /** Creates the order (with its stock when given; without it when the platform does not know the stock). */
    async createOrder(input: {
      token: string;
      vehicle: Record<string, unknown>;
      badge: Record<string, unknown>;
      stockId?: number;
    }): Promise<{ orderId: string }> {
      const post = (body: Record<string, unknown>) =>
        withToken<{ id: string | number }>(input.token, (headers) =>
          http.post('/badge/v2/api/v1/orders', body, { headers }),
        ).then((response) => ({ orderId: String(response.data.id) }));
      const body = { vehicle: input.vehicle, badge: input.badge };
      try {
        if (input.stockId === undefined) return await post(body);
        return await post({ ...body, stock_id: input.stockId }).catch((error: unknown) => {
          // The specification: an unknown stock answers 404; create the order without a stock id.
          if (isAxiosError(error) && error.response?.status === 404) return post(body);
          throw error;
        });
      } catch (error) {
        throw failure(error);
      }
    },

    /** Uploads one document (a path under the documents root) and links it to the order. */
    async uploadDocument(input: {
      token: string;
      userId: string;
      orderId: string;
      path: string;
    }): Promise<unknown> {
      try {
        const response = await withToken<unknown>(input.token, (headers) => {
          const form = new FormData();
          form.append('document_type', 'badge');
          form.append('document_type_id', input.orderId);
          form.append('document_owner', input.userId);
          form.append('file', createReadStream(join(settings.documentsRoot, input.path)));
          return http.post('/document/api/v1/documents', form, {
            headers: { ...headers, ...form.getHeaders() },
            maxBodyLength: Infinity,
          });
        });
        return response.data;
      } catch (error) {
        throw failure(error);
      }
    },
  };
}

/** The peer's activity functions, for the workflow's `proxyActivities`. */
export type PeerActivities = ReturnType<typeof createPeerActivities>;
