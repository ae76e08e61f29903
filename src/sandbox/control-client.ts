/** A typed HTTP client of the sandbox's control API, for tests, the demo and chaos runs. */
import axios from 'axios';
import type { AxiosInstance, AxiosResponse } from 'axios';
import type { FaultConfig, SandboxRules, SandboxRulesUpdate } from './config';
import type { SandboxProfile } from './profiles';
import type { SandboxStats } from './stats';
import type { DocumentRecord, OrderRecord, RecordFilter, SandboxState } from './store';

/** Where the control API is and the token that opens it. */
export interface SandboxControlOptions {
  /** The sandbox's base URL, e.g. `http://127.0.0.1:43123`. */
  baseUrl: string;
  /** The control token printed at start (or given as `controlToken`). */
  controlToken: string;
}

/** Thrown by {@link SandboxControl} when the control API answers anything but 2xx. */
export class SandboxControlError extends Error {
  override readonly name = 'SandboxControlError';
  constructor(
    message: string,
    /** The HTTP status. */
    readonly status: number,
    /** The error body as answered. */
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** Calls `/_sandbox/*` over HTTP. */
export class SandboxControl {
  private readonly http: AxiosInstance;

  constructor(options: SandboxControlOptions) {
    this.http = axios.create({
      baseURL: `${options.baseUrl.replace(/\/+$/, '')}/_sandbox`,
      headers: { authorization: `Bearer ${options.controlToken}` },
      validateStatus: () => true,
      timeout: 10_000,
    });
  }

  /** All stored orders and documents (with size and sha256) and the idempotency keys. */
  async state(): Promise<SandboxState> {
    return this.call<SandboxState>('GET', '/state');
  }

  /** Counters: requests by route and status, token calls, faults injected by kind, idempotent replays. */
  async stats(): Promise<SandboxStats> {
    return this.call<SandboxStats>('GET', '/stats');
  }

  /** The profile the sandbox plays, resolved (a `random:<seed>` profile shows every drawn choice). */
  async profile(): Promise<SandboxProfile> {
    return this.call<SandboxProfile>('GET', '/profile');
  }

  /**
   * Ground truth: every order the platform created, in creation order, with the `Idempotency-Key` it was sent
   * with (recorded even when the profile ignores keys). `listOrders({ idempotencyKey: k })` answers "did the
   * platform create an order for key k, and which id?" — more than one entry means duplicates.
   */
  async listOrders(filter: Omit<RecordFilter, 'orderId'> = {}): Promise<OrderRecord[]> {
    return this.call<OrderRecord[]>('GET', '/orders', undefined, filter);
  }

  /**
   * Ground truth: every stored document, in creation order, with its order id, the `Idempotency-Key` it was
   * sent with, size and sha256. `(await listDocuments({ idempotencyKey: k })).length` is the number of copies
   * stored under key k.
   */
  async listDocuments(filter: RecordFilter = {}): Promise<DocumentRecord[]> {
    return this.call<DocumentRecord[]>('GET', '/documents', undefined, filter);
  }

  /** The fault configuration in force (with the `failNext` rules not yet used up). */
  async faults(): Promise<FaultConfig> {
    return this.call<FaultConfig>('GET', '/faults');
  }

  /** Replaces the whole fault configuration; `{}` turns every fault off. Returns the configuration in force. */
  async setFaults(faults: FaultConfig): Promise<FaultConfig> {
    return this.call<FaultConfig>('PUT', '/faults', faults);
  }

  /** The rules in force. */
  async rules(): Promise<SandboxRules> {
    return this.call<SandboxRules>('GET', '/rules');
  }

  /** Updates the given rules (omitted ones keep their value). Returns the rules in force. */
  async setRules(rules: SandboxRulesUpdate): Promise<SandboxRules> {
    return this.call<SandboxRules>('PUT', '/rules', rules);
  }

  /**
   * Clears orders, documents, idempotency keys, counters and the sign-ins a limit counted; users, faults and
   * rules stay. Order ids start again at the profile's first order id, or at `firstOrderId` (a positive
   * integer's digits, up to 40) this time.
   */
  async reset(options: { readonly firstOrderId?: string } = {}): Promise<void> {
    await this.call<unknown>('POST', '/reset', options.firstOrderId === undefined ? undefined : options);
  }

  private async call<T>(
    method: 'GET' | 'PUT' | 'POST',
    path: string,
    data?: unknown,
    params?: RecordFilter,
  ): Promise<T> {
    const response: AxiosResponse<T> = await this.http.request<T>({ method, url: path, data, params });
    if (response.status < 200 || response.status >= 300) {
      throw new SandboxControlError(
        `${method} /_sandbox${path} failed with ${response.status}`,
        response.status,
        response.data,
      );
    }
    return response.data;
  }
}
