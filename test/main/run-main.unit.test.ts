import { unsupportedRuntime } from '../../src/main/run-main';

describe('unsupportedRuntime', () => {
  it("lets this runtime's JSON run the service", () => {
    expect(unsupportedRuntime({ json: JSON, version: process.version })).toBeNull();
  });

  it('refuses a Node.js without digit-keeping JSON, naming the versions package.json asks for', () => {
    // Node.js 20: no JSON.rawJSON, no source text in the reviver.
    const message = unsupportedRuntime({ json: { parse: JSON.parse.bind(JSON) }, version: 'v20.20.2' });
    expect(message).toBe(
      'badge-orders needs Node.js >=22.12 (package.json engines): Node.js v20.20.2 cannot read and write JSON ' +
        'numbers digit for digit, so it would round identifiers beyond 2^53',
    );
  });
});
