/** The worker's start-up check of the search attributes, against a recording operator service. */
import { temporal } from '@temporalio/proto';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';

type OperatorService = temporal.api.operatorservice.v1.OperatorService;
const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/** An operator service that knows `existing` and records what is added (a unit test of one module). */
function recordingOperator(existing: readonly string[]): {
  readonly operatorService: OperatorService;
  readonly added: Record<string, unknown>[];
} {
  const added: Record<string, unknown>[] = [];
  const operatorService = {
    listSearchAttributes: () =>
      Promise.resolve({ customAttributes: Object.fromEntries(existing.map((name) => [name, KEYWORD])) }),
    addSearchAttributes: (request: { searchAttributes?: Record<string, unknown> | null }) => {
      added.push(request.searchAttributes ?? {});
      return Promise.resolve({});
    },
  } as unknown as OperatorService;
  return { operatorService, added };
}

describe('ensureSearchAttributes', () => {
  it('adds the missing attributes as Keyword and leaves existing ones alone', async () => {
    const operator = recordingOperator(['BadgeOrderRef']);
    const result = await ensureSearchAttributes(operator, 'default');
    expect(result).toEqual({
      added: ['BadgeOrderId', 'BadgeOrderStatus', 'BadgeOrderClient'],
      existing: ['BadgeOrderRef'],
    });
    expect(operator.added).toEqual([
      { BadgeOrderId: KEYWORD, BadgeOrderStatus: KEYWORD, BadgeOrderClient: KEYWORD },
    ]);
  });

  it('adds nothing when all exist', async () => {
    const operator = recordingOperator([
      'BadgeOrderRef',
      'BadgeOrderId',
      'BadgeOrderStatus',
      'BadgeOrderClient',
    ]);
    const result = await ensureSearchAttributes(operator, 'default');
    expect(result.added).toEqual([]);
    expect(operator.added).toEqual([]);
  });
});
