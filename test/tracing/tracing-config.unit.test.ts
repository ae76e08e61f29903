/**
 * Trace export settings from the standard OpenTelemetry variables (src/config.ts), and the attributes a platform
 * call's span carries (src/tracing/sdk.ts): off unless an endpoint is set, nothing secret or personal on a span.
 */
import { ConfigError, loadTracingConfig, loadWorkerConfig } from '../../src/config';
import { platformCallAttributes } from '../../src/tracing/sdk';
import { startTracing } from '../../src/tracing';

describe('tracing configuration', () => {
  it('is off without an endpoint, and startTracing then loads nothing', async () => {
    const config = loadTracingConfig({});
    expect(config.endpoint).toBeUndefined();
    expect(await startTracing(config, { serviceName: 'x' })).toBeUndefined();
  });

  it('appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT and takes the traces endpoint as is', () => {
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).endpoint).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      loadTracingConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
      }).endpoint,
    ).toBe('https://traces.example/otlp');
  });

  it('reads protocol, headers, service name, timeout and batch delay; the traces-specific ones win', () => {
    const config = loadTracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s%3Dcret, tenant = blue',
      OTEL_SERVICE_NAME: 'badge-orders-eu',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_BSP_SCHEDULE_DELAY: '250',
    });
    expect(config).toEqual({
      endpoint: 'https://collector:4318/v1/traces',
      protocol: 'http/json',
      headers: { 'x-api-key': 's=cret', tenant: 'blue' },
      serviceName: 'badge-orders-eu',
      exportTimeoutMs: 2000,
      scheduleDelayMs: 250,
    });
  });

  it('sends headers (a collector’s API key) only over https:// or to loopback; without headers, to any endpoint', () => {
    const headers = { OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=k3y-0f-the-collector' };
    let message = '';
    try {
      loadTracingConfig({ ...headers, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'Invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: are sent with every export, so the endpoint must be an https:// URL (http:// only on loopback) (or send no headers)',
    );
    expect(() =>
      loadTracingConfig({
        ...headers,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
      }),
    ).toThrow(ConfigError);
    expect(
      loadTracingConfig({ ...headers, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).headers,
    ).toEqual({
      'x-api-key': 'k3y-0f-the-collector',
    });
    // Without headers, or with tracing off, http:// stays as it is.
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).endpoint).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      loadTracingConfig({
        ...headers,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_SDK_DISABLED: 'true',
      }).endpoint,
    ).toBeUndefined();
  });

  it('is off when the SDK is disabled or the exporter is none, even with an endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadTracingConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).endpoint).toBeUndefined();
    expect(loadTracingConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).endpoint).toBeUndefined();
  });

  it('refuses what it cannot do, naming the variable and never a header value', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => loadTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/,
    );
    expect(() => loadTracingConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(ConfigError);
    expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/,
    );
    let message = '';
    try {
      loadTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'secret-token-without-key' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(message).not.toContain('secret-token');
  });

  it('is part of the worker configuration', () => {
    const config = loadWorkerConfig({
      BADGE_USERNAME: 'u',
      BADGE_PASSWORD: 'p',
      PAYLOAD_ENCRYPTION: 'off',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    });
    expect(config.tracing.endpoint).toBe('http://127.0.0.1:4318/v1/traces');
    expect(
      loadWorkerConfig({ BADGE_USERNAME: 'u', BADGE_PASSWORD: 'p', PAYLOAD_ENCRYPTION: 'off' }).tracing
        .endpoint,
    ).toBeUndefined();
  });
});

describe('a platform call span', () => {
  it('carries method, route template, status and attempt only', () => {
    expect(
      platformCallAttributes(
        { route: 'orders', method: 'POST', path: '/badge/v2/api/v1/orders', status: 422, durationMs: 12 },
        3,
      ),
    ).toEqual({
      'http.request.method': 'POST',
      'http.route': '/badge/v2/api/v1/orders',
      'http.response.status_code': 422,
      'badge.platform.api': 'orders',
      'badge.activity.attempt': 3,
    });
  });

  it('names what happened instead of an answer, and has no attempt outside an activity', () => {
    expect(
      platformCallAttributes({
        route: 'documents',
        method: 'POST',
        path: '/document/api/v1/documents',
        status: 'timeout',
        durationMs: 30_000,
      }),
    ).toEqual({
      'http.request.method': 'POST',
      'http.route': '/document/api/v1/documents',
      'error.type': 'timeout',
      'badge.platform.api': 'documents',
    });
  });
});
